"""Custom autograd Functions, gradcheck, hooks, saved tensors and the legacy spellings
(issue 12 items 1-3), against what PyTorch 2.13 printed: tests/goldens/autograd_ext.json,
recorded by tests/goldens/record_autograd_ext.py. Each case is a PyTorch-flavour script
that is its own Python + torch program; diffcli must print the same stdout (PyTorch's
addresses taken out, as diffcli prints none), give the same warnings and end with the same
error, if any."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_script

GOLDENS = json.loads((Path(__file__).resolve().parents[1] / "goldens" / "autograd_ext.json").read_text())
CASES = GOLDENS["cases"]


run = run_script


def test_goldens_were_recorded_from_torch_2_13_and_cover_each_part():
    assert GOLDENS["torch"].startswith("2.13")
    names = set(CASES)
    for part in (
        "exp_save_output",
        "gradcheck_pass_fail",
        "tensor_hooks",
        "saved_tensors_hooks",
        "multi_grad_hook",
        "variable_and_typed_tensors",
        "inference_mode",
        "saved_mul",
    ):
        assert part in names
    assert sum(n.startswith("saved_") and n != "saved_tensors_hooks" for n in names) >= 25


@pytest.mark.parametrize("name", sorted(CASES))
def test_script_prints_what_pytorch_printed(name):
    case = CASES[name]
    out, warned, error = run(case["script"])
    assert out == case["stdout"], f"\n--- diffcli\n{out}--- torch\n{case['stdout']}"
    assert error == case["error"]
    assert warned == case["warnings"]


CLI_SCRIPT = """\
import torch
class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result
x = torch.tensor([0.0, 1.0], requires_grad=True)
h = x.register_hook(lambda g: g * 2)
y = MyExp.apply(x)
z = y.sum()
"""


def test_the_commands_run_script_backwards_and_hooks_after_the_script_ended():
    """`diffcli grad` calls backward once the script has run: the Function's backward and the
    hook (script functions) still run, through the same interpreter."""
    import numpy as np

    from tests.cli.samples import invoke

    code, out, err = invoke(["grad", "--format", "json", "-e", CLI_SCRIPT])
    assert code == 0, err
    grad = json.loads(out)["leaves"]["x"]["grad"]
    want = 2 * np.exp(np.array([0.0, 1.0], dtype=np.float32))
    assert np.array_equal(np.array(grad, dtype=np.float32), want.astype(np.float32))
    code, out, err = invoke(["graph", "--wide", "-e", CLI_SCRIPT])
    assert code == 0 and "MyExpBackward" in out and "tensor([1.0000, 2.7183])" in out, out
