"""The features that stopped real tutorial code in a sweep of public autograd snippets
(issue 11, "Done when" 4), each exercised by a script written for this test, against what
PyTorch 2.13 printed: tests/goldens/tutorials.json, recorded by
tests/goldens/record_tutorials.py. diffcli must print the same stdout (PyTorch's addresses
taken out, as diffcli prints none), give the same warnings and end with the same error, if
any."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.samples import invoke
from tests.helpers import run_script

GOLDENS = json.loads((Path(__file__).resolve().parents[1] / "goldens" / "tutorials.json").read_text())
CASES = GOLDENS["cases"]


run = run_script


def test_goldens_were_recorded_from_torch_2_13():
    assert GOLDENS["torch"].startswith("2.13")
    assert {"annotated_assignment", "module_static_and_class_forward"} <= set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_script_prints_what_pytorch_printed(name):
    case = CASES[name]
    out, warned, error = run(case["script"])
    assert out == case["stdout"], f"\n--- diffcli\n{out}--- torch\n{case['stdout']}"
    assert error == case["error"]
    assert warned == case["warnings"]


def test_a_caught_name_error_reads_as_pythons_in_pytorch_flavour_but_an_uncaught_one_keeps_the_hint():
    # (in the math flavour the caught one keeps it too: tests/cli/test_errors.py)
    out, _, error = run("import torch\ntry:\n    q\nexcept NameError as e:\n    print(e, e.args)\nq\n")
    assert out == "name 'q' is not defined (\"name 'q' is not defined\",)\n"
    assert error[0] == "NameError" and error[1].startswith("name 'q' is not defined (a free variable")


@pytest.mark.parametrize(
    "script, message",
    [
        ("x: int, y: int = 1, 2\n", "SyntaxError: unexpected ','"),
        ("f(): int = 1\n", "SyntaxError: illegal target for annotation"),
    ],
)
def test_an_annotated_assignment_takes_one_target(script, message):
    code, out, err = invoke(["run", "-e", script])
    assert code == 2 and out == "" and message in err.splitlines()[0], err
