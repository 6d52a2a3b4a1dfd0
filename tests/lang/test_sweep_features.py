"""The constructs and library pieces that stopped real tutorial code in the second sweep of
public autograd snippets, each exercised by a script written for this test, against what
PyTorch 2.13 printed: tests/goldens/sweep.json, recorded by tests/goldens/record_sweep.py.
diffcli must print the same stdout (addresses taken out), give the same warnings and end
with the same error, if any."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.samples import invoke
from tests.helpers import run_script

GOLDENS = json.loads((Path(__file__).resolve().parents[1] / "goldens" / "sweep.json").read_text())
CASES = GOLDENS["cases"]


def test_goldens_were_recorded_from_torch_2_13():
    assert GOLDENS["torch"].startswith("2.13")
    assert "nn_containers" in CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_script_prints_what_pytorch_printed(name):
    case = CASES[name]
    out, warned, error = run_script(case["script"])
    assert out == case["stdout"], f"\n--- diffcli\n{out}--- torch\n{case['stdout']}"
    assert error == case["error"]
    assert warned == case["warnings"]


@pytest.mark.parametrize(
    "statement, message",  # Python 3.11's words, as `python3 -c` prints them
    [
        ("del f()", "cannot delete function call"),
        ("del 1", "cannot delete literal"),
        ("del a + b", "cannot delete expression"),
        ("del *a", "cannot delete starred"),
        ("del a, (b, f())", "cannot delete function call"),
    ],
)
def test_del_of_what_cannot_be_deleted_is_a_syntax_error(statement, message):
    code, out, err = invoke(["run", "-e", f"import torch\n{statement}\n"])
    assert code == 2 and out == "" and f"SyntaxError: {message}" in err.splitlines()[0], err


@pytest.mark.parametrize(
    "script",
    [
        'print(len("a".center(10**9)))',
        's = "a" * 1000\nfor i in range(5):\n    s = s.replace("a", "aaaaaaaaaa")',
        'print(len("x".zfill(10**9)))',
        'print(len("\\t".expandtabs(10**9)))',
        'print(len("ab".join(["x"] * 5000000)))',
    ],
)
def test_a_str_method_that_grows_a_string_is_held_to_max_elements(script):
    code, out, err = invoke(["run", "-e", f"import torch\n{script}\n"])
    assert code == 1 and out == "" and "LimitError: string of " in err.splitlines()[0], err
