"""Statistics over a tensor: var and std (with Bessel's correction as PyTorch takes it),
the vector norms (LinalgVectorNormBackward0) and logsumexp."""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes, errors
from ..function import as_tensor
from ..tensor import Tensor
from . import aten_stats, rows
from .reductions import _DIM, _KEEPDIM, _RESULT_BACK, _UNREDUCE, _axes, _dims, _expand_back, mean
from .rows import Kink, expose
from .selection import where
from .unary import abs as tabs
from .unary import exp, sign


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


def var(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return _var_std(a, dim, unbiased, keepdim, correction, False)


def std(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return _var_std(a, dim, unbiased, keepdim, correction, True)


def _var_std(a, dim, unbiased, keepdim, correction, is_std):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    a = as_tensor(a)
    x = a.array
    if x.dtype.kind != "f":
        raise errors.TorchRuntimeError("std and var only support floating point and complex dtypes")
    c = _correction(unbiased, correction)
    dims = _dims(dim, x.ndim)
    axes = tuple(range(x.ndim)) if dims is None else _axes(dims, x.ndim)
    n = 1
    for d in axes:
        n *= x.shape[d]
    name = "std" if is_std else "var"
    if n - c <= 0:
        errors.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
            "the reduction factor (input numel divided by output numel). (Triggered internally "
            "at /__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)"
        )
    dof = n - c
    kd = keepdim
    with np.errstate(all="ignore"):
        # PyTorch divides the sum of squares by max(dof, 0): inf (or nan for a constant
        # input) when the correction leaves no degrees of freedom
        if x.ndim == 0 or not x.size or x.dtype not in (np.float32, np.float64):
            centered = x - x.mean(axis=axes, keepdims=True)
            v = np.asarray((centered * centered).sum(axis=axes, keepdims=kd) / builtins.max(dof, 0))
            out = np.sqrt(v) if is_std else v
        elif n == x.size:  # one output; ATen's order of operations (aten_stats.py)
            out = aten_stats.var_all(x, c, is_std)
            # the reduced dims go (or stay as 1s); a dim of size 1 left out of `dim` stays
            reduced = set(range(x.ndim)) if axes is None else {d % x.ndim for d in np.atleast_1d(axes)}
            out = out.reshape(
                tuple(1 if d in reduced else s for d, s in enumerate(x.shape))
                if kd
                else tuple(s for d, s in enumerate(x.shape) if d not in reduced)
            )
        else:
            out = aten_stats.var_dims(x, axes, c, is_std, kd)
    return (_STD if is_std else _VAR).record(out.astype(x.dtype), (a,), fargs=(dims, c, keepdim))


def var_backward(g: Tensor, p: Tensor, dims, c, kd) -> Tensor:
    """PyTorch's var_backward (FunctionsManual.cpp): grad * 2 * (self - mean) / dof, with
    the mean over the reduced dims (`dims` None: all of them)."""
    shape = p.array.shape
    full = dims is None or not shape
    axes = tuple(range(len(shape))) if dims is None else _axes(dims, len(shape))
    n = 1
    for d in axes:
        n *= shape[d]
    dof = n - c
    gb = _expand_back(g, shape, None if full else axes, kd)
    if full and dof <= 0:
        return gb * where(p == mean(p), float("nan"), float("inf"))
    m = mean(p) if full else mean(p, axes, keepdim=True)
    scale = 2.0 / dof if dof != 0 else float("inf")
    return gb * scale * (p - m)


def std_backward(r: Tensor, g: Tensor, p: Tensor, dims, c, kd) -> Tensor:
    """PyTorch's std_backward: var_backward of grad / (2 * result) (0 where result is 0)."""
    return var_backward(where(r == 0, 0.0, g / (r * 2)), p, dims, c, kd)


def norm(a, p="fro", dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.array
    if x.dtype.kind != "f":
        raise errors.TorchRuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {dtypes.scalar_name(x.dtype)}"
        )
    if p in ("fro", None):
        p = 2
    dims = _dims(dim, x.ndim)
    axes = tuple(range(x.ndim)) if dims is None else _axes(dims, x.ndim)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        if p == float("inf"):
            out = ax.max(axis=axes, keepdims=keepdim)
        elif p == float("-inf"):
            out = ax.min(axis=axes, keepdims=keepdim)
        elif p == 0:
            out = (ax != 0).sum(axis=axes, keepdims=keepdim).astype(x.dtype)
        elif p == 2:
            out = aten_stats.norm2(x, axes, keepdim)  # ATen's order (aten_stats.py)
            if out is None:
                out = np.sqrt((x * x).sum(axis=axes, keepdims=keepdim))
        else:
            out = (ax**p).sum(axis=axes, keepdims=keepdim) ** (1.0 / p)
    return _NORM.record(np.asarray(out, dtype=x.dtype), (a,), fargs=(p, dims, keepdim))


def norm_backward(g: Tensor, q: Tensor, p, r: Tensor, dims, kd):
    """PyTorch's norm_backward (FunctionsManual.cpp), case by case (p == 0: an undefined
    gradient, so .grad stays None)."""
    shape = q.array.shape
    gb = _expand_back(g, shape, dims, kd)
    rb = _expand_back(r, shape, dims, kd)
    if p == 0:
        return None
    if p == 1:
        return sign(q) * gb
    if p == 2:
        return gb * where(rb == 0, 0.0, q / rb)
    if p in (float("inf"), float("-inf")):
        axes = tuple(range(len(shape))) if dims is None else _axes(dims, len(shape))
        qa = np.abs(q.array)
        mask = (qa == rb.array) | np.isnan(qa)
        count = Tensor(mask.sum(axis=axes, keepdims=True).astype(q.array.dtype))
        return sign(q) * ((gb / count) * Tensor(mask.astype(q.array.dtype)))
    if p < 1:
        scaled = sign(q) * where(q == 0, 0.0, tabs(q) ** (p - 1))
        return scaled * gb * rb ** (1 - p)
    scaled = sign(q) * tabs(q) ** (p - 1) if p < 2 else q * tabs(q) ** (p - 2)
    return scaled * where(rb == 0, 0.0, gb / rb ** (p - 1))


def logsumexp(a, dim, keepdim=False):
    a = as_tensor(a)
    x = a.array.astype(dtypes.default_float()) if a.array.dtype.kind != "f" else a.array
    dims = _dims(dim, x.ndim)
    axes = _axes(dims, x.ndim)
    with np.errstate(all="ignore"):
        out = aten_stats.logsumexp(x, axes)  # (ATen's order of operations)
        if not keepdim:
            out = (
                out.reshape(tuple(s for i, s in enumerate(x.shape) if i not in dims))
                if x.ndim
                else out.reshape(())
            )
    return _LOGSUMEXP.record(np.asarray(out), (a,), fargs=(dims, keepdim))


def logsumexp_backward(g: Tensor, p: Tensor, r: Tensor, dims, keepdim) -> Tensor:
    """PyTorch's logsumexp_backward: grad * exp(self - result), both unreduced."""
    shape = p.array.shape
    return _expand_back(g, shape, dims, keepdim) * exp(p - _expand_back(r, shape, dims, keepdim))


rows.helpers(tensor={f.__name__: f for f in (var_backward, std_backward, norm_backward, logsumexp_backward)})


# --- the rows: per op PyTorch's node and the vector-Jacobian product an explanation
# shows -----------------------------------------------------------------------------------
_NORM_AT_ZERO = Kink(
    "self == 0 (every element for p > 1; any element for p <= 1)",
    lambda self, p=2, **_: (
        (np.asarray(self) == 0)
        & (np.all(np.asarray(self) == 0) if (isinstance(p, (int, float)) and p > 1) else True)
    ),
    "0",
)
_VAR = rows.text_row(
    "var",
    "VarBackward0",
    ("grad * 2 * (self - self.mean()) / (self.numel() - correction)",),
    saves=("self",),
    args=(("dim", None), ("correction", 1), _KEEPDIM),
    formulas=(
        lambda grad, self, result, dim, correction, keepdim: var_backward(
            grad, self, dim, correction, keepdim
        ),
    ),
)
_STD = rows.text_row(
    "std",
    "StdBackward0",
    ("grad * (self - self.mean()) / ((self.numel() - correction) * result)",),
    saves=("self", "result"),
    args=(("dim", None), ("correction", 1), _KEEPDIM),
    formulas=(
        lambda grad, self, result, dim, correction, keepdim: std_backward(
            result, grad, self, dim, correction, keepdim
        ),
    ),
)
_NORM = rows.text_row(
    "norm",
    "LinalgVectorNormBackward0",
    ("grad * self * abs(self)**(p - 2) / result**(p - 1)",),
    saves=("self", "result"),
    args=(("p", 2), ("dim", None), _KEEPDIM),
    kink=_NORM_AT_ZERO,
    formulas=(
        lambda grad, self, result, p, dim, keepdim: norm_backward(grad, self, p, result, dim, keepdim),
    ),
)
_LOGSUMEXP = rows.text_row(
    "logsumexp",
    "LogsumexpBackward0",
    (f"{_UNREDUCE} * exp(self - {_RESULT_BACK})",),
    saves=("self", "result"),
    args=(_DIM, _KEEPDIM),
    formulas=(lambda grad, self, result, dim, keepdim: logsumexp_backward(grad, self, result, dim, keepdim),),
)

expose(var, _VAR, names=("var",))
expose(std, _STD, names=("std",))
expose(norm, _NORM, names=("norm",))
expose(logsumexp, _LOGSUMEXP, names=("logsumexp",))
