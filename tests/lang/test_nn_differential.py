"""Differential tests of tiny models against live PyTorch (skipped without torch): random
`nn.Linear` + MSELoss + SGD/Adam/AdamW training loops and numpy round trips
(`script_gen.nn_programs`), each a PyTorch program run by diffcli and by Python + torch.

Compared: the text exactly, with every number to 1e-5 relative. Bit for bit holds where
ATen's float32 gemm order is reproduced (`nn_layers._exact`, the shapes the generator
draws) and the optimizer runs no `sqrt` (SGD); Adam/AdamW go through `sqrt`, which
PyTorch 2.13 runs through MKL's vector math (not correctly rounded), and some larger
products take MKL kernels of another order, so the differential test holds them to the
tolerance; the committed goldens (test_nn_optim.py) pin the bit-for-bit cases.

    python -m pytest -m slow tests/lang/test_nn_differential.py   # 25 programs, derandomized
"""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

torch = pytest.importorskip("torch")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.cli.samples import invoke  # noqa: E402

from .script_gen import nn_programs  # noqa: E402

_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _torch_output(script):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(script, "<script>", "exec"), {"__name__": "__main__"})
    return buf.getvalue()


@pytest.mark.slow  # (.ci/run runs the slow tests with the system python3 when it has torch)
@settings(
    max_examples=int(os.environ.get("DIFFCLI_NN_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(nn_programs())
def test_tiny_training_loops_print_what_pytorch_prints(program):
    script, kind = program
    want = _torch_output(script)
    code, got, err = invoke(["run", "-e", script])
    assert code == 0, err
    assert _NUMBER.sub("#", got) == _NUMBER.sub("#", want), f"\n{script}\n--- diffcli\n{got}--- torch\n{want}"
    for g, w in zip(_NUMBER.findall(got), _NUMBER.findall(want)):
        assert abs(float(g) - float(w)) <= 1e-5 * max(1.0, abs(float(w))), (g, w, script)
