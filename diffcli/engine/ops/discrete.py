"""Ops whose results carry no gradient: any / all, argmax / argmin (bool and int64
results), equal / allclose (Python bools)."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import as_tensor
from ..tensor import Tensor
from .reductions import _axes, _dims


def _bool_reduce(np_fn):
    def op(a, dim=None, keepdim=False):
        a = as_tensor(a)
        x = a.array
        if dim is None:
            out = np.asarray(np_fn(x))
            if keepdim:
                out = out.reshape((1,) * x.ndim)
            return Tensor(out)
        dims = _dims(dim, x.ndim)
        out = np.asarray(np_fn(x, axis=_axes(dims, x.ndim), keepdims=keepdim))
        return Tensor(out)

    return op


any = _bool_reduce(np.any)
all = _bool_reduce(np.all)


def _arg_extreme(name, is_max):
    def op(a, dim=None, keepdim=False):
        a = as_tensor(a)
        x = a.array
        if x.dtype == np.bool_:
            raise errors.TorchRuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            if x.size == 0:
                raise errors.TorchIndexError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
                )
            idx = np.asarray(x.argmax() if is_max else x.argmin(), dtype=np.int64)
            return Tensor(idx.reshape((1,) * x.ndim) if keepdim else idx)
        d = _dims(dim, x.ndim)[0]
        if x.ndim == 0:
            return Tensor(np.asarray(0, dtype=np.int64))
        if x.shape[d] == 0:
            raise errors.TorchIndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        idx = np.asarray(x.argmax(axis=d) if is_max else x.argmin(axis=d), dtype=np.int64)
        return Tensor(np.expand_dims(idx, d) if keepdim else idx)

    return op


argmax = _arg_extreme("argmax", True)
argmin = _arg_extreme("argmin", False)


def _tensor_args(fname, a, b, method):
    for v, arg, pos in ((a, "input", 1), (b, "other", 1 if method else 2)):
        if not isinstance(v, Tensor):
            raise errors.TorchTypeError(
                f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}"
            )


def equal(a, b, _method=False):
    """torch.equal: a Python bool, True when the shapes and the values (after promotion)
    are the same; nan equals nothing."""
    _tensor_args("equal", a, b, _method)
    x, y = a.array, b.array
    if x.shape != y.shape:
        return False
    rd = dtypes.promote(x.dtype, y.dtype)
    return bool(np.array_equal(x.astype(rd, copy=False), y.astype(rd, copy=False)))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False, _method=False):
    """torch.allclose: isclose(...).all() as a Python bool. The dtypes must match; integer
    tensors compare in the default float dtype. |a - b| <= atol + |rtol * b| where finite,
    or a == b (or both nan, with equal_nan)."""
    _tensor_args("allclose", a, b, _method)
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
            allowed = atol + np.abs(rtol * y)
            actual = np.abs(x - y)
            close = close | (np.isfinite(actual) & (actual <= allowed))
    return bool(np.all(close))


def equal_method(self, other):
    return equal(self, other, _method=True)


def allclose_method(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return allclose(self, other, rtol, atol, equal_nan, _method=True)
