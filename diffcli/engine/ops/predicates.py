"""Tests on values, with bool or int64 results and no gradient: isnan, isinf, isfinite,
isposinf, isneginf, signbit, isclose, logical_xor, nonzero, count_nonzero."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import as_tensor
from ..tensor import Tensor
from .reductions import _axes, _dims


def _test(np_fn, ints, name):
    """An elementwise test; `ints`: its value on integer and bool tensors."""

    def op(a):
        x = as_tensor(a).array
        if x.dtype.kind in "biu":
            return Tensor(np.full(x.shape, ints, dtype=np.bool_))
        return Tensor(np.asarray(np_fn(x)))

    op.__name__ = op.__qualname__ = name
    return op


isnan = _test(np.isnan, False, "isnan")
isinf = _test(np.isinf, False, "isinf")
isfinite = _test(np.isfinite, True, "isfinite")
isposinf = _test(np.isposinf, False, "isposinf")
isneginf = _test(np.isneginf, False, "isneginf")


def signbit(a):
    x = as_tensor(a).array
    return Tensor(np.asarray(np.signbit(x) if x.dtype.kind == "f" else x < 0))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b| where finite, or a == b (or both nan, with equal_nan);
    the dtypes must match, as in PyTorch."""
    a, b = as_tensor(a), as_tensor(b)
    x, y = a.array, b.array
    if x.dtype != y.dtype:
        raise errors.TorchRuntimeError(
            f"{errors.dtype_scalar_name(x.dtype)} did not match {errors.dtype_scalar_name(y.dtype)}"
        )
    errors.broadcast_shapes(x.shape, y.shape)
    with np.errstate(all="ignore"):
        close = x == y
        if equal_nan:
            close = close | (np.isnan(x) & np.isnan(y))
        if rtol != 0 or atol != 0:
            if x.dtype.kind != "f":
                x, y = x.astype(dtypes.default_float()), y.astype(dtypes.default_float())
            actual = np.abs(x - y)
            close = close | (np.isfinite(actual) & (actual <= atol + np.abs(rtol * y)))
    return Tensor(np.asarray(close))


def logical_xor(a, b):
    for v, arg, pos in ((a, "input", 1), (b, "other", 2)):  # (PyTorch has no Scalar overload)
        if not isinstance(v, Tensor):
            raise errors.TorchTypeError(
                f"logical_xor(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}"
            )
    x, y = as_tensor(a).array, as_tensor(b).array
    errors.broadcast_shapes(x.shape, y.shape)
    return Tensor(np.asarray(np.logical_xor(x != 0, y != 0)))


def nonzero(a, as_tuple=False):
    """The indices of the nonzero elements: an (n, ndim) int64 tensor, or (as_tuple) one
    1-D tensor per dimension."""
    x = as_tensor(a).array
    if as_tuple:
        if x.ndim == 0:
            return (Tensor(np.arange(int(x != 0), dtype=np.int64)),)
        return tuple(Tensor(i.astype(np.int64)) for i in np.nonzero(x))
    if x.ndim == 0:
        return Tensor(np.zeros((int(x != 0), 0), dtype=np.int64))
    return Tensor(np.argwhere(x).astype(np.int64))


def count_nonzero(a, dim=None):
    x = as_tensor(a).array
    if dim is None:
        return Tensor(np.asarray(np.count_nonzero(x), dtype=np.int64))
    dims = _dims(dim, x.ndim)
    return Tensor(np.asarray(np.count_nonzero(x, axis=_axes(dims, x.ndim)), dtype=np.int64))


PREDICATES = {
    f.__name__: f
    for f in (
        isnan,
        isinf,
        isfinite,
        isposinf,
        isneginf,
        signbit,
        isclose,
        logical_xor,
        nonzero,
        count_nonzero,
    )
}
