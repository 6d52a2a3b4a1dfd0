"""`&`, `|`, `~` and torch.bitwise_*: PyTorch's bitwise ops (integer and bool dtypes,
promoted as arithmetic is), against what torch 2.13 printed (tests/goldens/bitwise.json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_script

CASES = json.loads((Path(__file__).parent.parent / "goldens" / "bitwise.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["expr"] for c in CASES])
def test_bitwise_matches_pytorch(case):
    out, _, error = run_script(f"import torch\nT = torch.tensor\nprint({case['expr']})\n")
    if "error" in case:
        assert error == case["error"]
    else:
        assert error is None and out == case["printed"]


def test_in_place_operators():
    out, _, error = run_script(
        "import torch\nx = torch.tensor(5)\nx &= 3\nprint(x)\n"
        "y = torch.tensor([True, False])\ny |= torch.tensor([False, False])\nprint(y)\n"
        "z = torch.tensor(5)\nz.bitwise_or_(3)\nprint(z)\n"
    )
    assert error is None and out == "tensor(1)\ntensor([ True, False])\ntensor(7)\n"
