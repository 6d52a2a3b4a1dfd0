"""The gradients of softmax and log_softmax (through diffcli's autograd: SoftmaxBackward0 and
LogSoftmaxBackward0 run _softmax_backward_data / _log_softmax_backward_data, ops/
aten_softmax.backward_data) against PyTorch's bits (tests/goldens/softmax_grads.json,
recorded by tests/goldens/record_softmax_grads.py) on every 2-D numerics case with a dim:
bit for bit, float32 and float64."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

from diffcli.engine import FUNCTIONS
from diffcli.engine.ops import cascade_sum
from diffcli.engine.tensor import Tensor

GOLDENS = pathlib.Path(__file__).parents[1] / "goldens"
sys.path.insert(0, str(GOLDENS))
import numerics_cases as C  # noqa: E402

DATA = json.loads((GOLDENS / "softmax_grads.json").read_text())


@pytest.mark.parametrize("dtype", C.DTYPES)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_gradient_bits(op, dtype):
    want = DATA["grads"][f"{op}/{dtype}"]
    threads, cascade_sum.THREADS = cascade_sum.THREADS, DATA["threads"]
    got = []
    try:
        with np.errstate(all="ignore"):
            for i in range(C.N_REDUCE):
                x, dim = C.reduce_case(i, dtype)
                if dim is None:
                    continue
                t = Tensor(x, requires_grad=True)
                FUNCTIONS[op](t, dim).backward(Tensor(C.grad_upstream(i, x)))
                assert t.grad.array.dtype == x.dtype
                got.append(C.digest(np.asarray(t.grad.array)))
    finally:
        cascade_sum.THREADS = threads
    assert len(got) == len(want) > 300
    same = sum(a == b for a, b in zip(got, want))
    assert same == len(want), f"{op}/{dtype}: {same} of {len(want)} gradients match PyTorch's bits"
