"""The constructs and library pieces that stopped real tutorial code in the second sweep of
public autograd snippets, each exercised by a script written for this test, against what
PyTorch 2.13 printed: tests/goldens/sweep.json, recorded by tests/goldens/record_sweep.py.
diffcli must print the same stdout (addresses taken out), give the same warnings and end
with the same error, if any."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
