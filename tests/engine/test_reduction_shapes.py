"""var/std keep PyTorch's (and numpy's) result shape when every element is reduced along
the given dims: a [1, 3] tensor reduced over dim 1 is [1], not 0-d (the one-output path
takes ATen's order of operations, and must still drop only the reduced dims)."""

from __future__ import annotations

import numpy as np
import pytest

from diffcli.engine import std, tensor, var

X = np.array([[0.0, 1.0, 3.0]])
CASES = [
    {},
    {"dim": 1},
    {"dim": -1},
    {"dim": (0, 1)},
    {"dim": 1, "keepdim": True},
    {"dim": (0, 1), "keepdim": True},
]


@pytest.mark.parametrize("kw", CASES, ids=str)
@pytest.mark.parametrize("fn, npfn", [(var, np.var), (std, np.std)], ids=["var", "std"])
def test_one_output_reductions_keep_the_shape(fn, npfn, kw):
    got = fn(tensor(X.tolist(), requires_grad=True), **kw)
    axis = kw.get("dim")
    want = npfn(X, axis=axis, ddof=1, keepdims=kw.get("keepdim", False))
    assert got.shape == want.shape
    np.testing.assert_allclose(got.array, want, rtol=1e-15)
