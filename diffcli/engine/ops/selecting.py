"""Ops that pick elements: median, kthvalue, mode (torch.return_types; the gradient to the
index picked, value_selecting_reduction_backward), cummax/cummin (the gradient summed to
each running extreme's index), take and put (TakeBackward0 / PutBackward0, each the
other's gradient), rot90 (Rot90Backward0) and nansum (NansumBackward0: NaN elements get
no gradient)."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import rows
from .extremes import evenly_distribute_backward, value_selecting_reduction_backward
from .reductions import ReturnTypes, _axes, _dims, sum_backward
from .rows import expose
from .scatter import scatter_add
from .sorting import TIES, _order


def _nan_last_stable(x, d):
    """The stable ascending order along d, NaN last (as PyTorch's sort)."""
    return _order(x, d, False)


def _pick(kind, a, position, dim, keepdim, row):
    """The element at sorted `position(n)` along `dim` (lower median, k-th smallest), its
    index among equal values the one a stable sort puts there; NaN wins (median)."""
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(int(dim), x.ndim)
    if not x.ndim:
        vals, idx = x.copy(), np.zeros((), dtype=np.int64)
    else:
        n = x.shape[d]
        k = position(n)
        order = _nan_last_stable(x, d)
        idx = np.take(order, [k], axis=d)
        if kind == "median":  # a NaN along the dim is the median, at its first index
            nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
            first_nan = np.expand_dims(np.argmax(nan, axis=d), d)
            idx = np.where(np.any(nan, axis=d, keepdims=True), first_nan, idx)
        vals = np.take_along_axis(x, idx, axis=d)
        if not keepdim:
            vals, idx = vals.squeeze(d), idx.squeeze(d)
    indices = Tensor(idx.astype(np.int64))
    values = row.record(vals, (a,), fargs=(d, keepdim, indices, x.shape))
    return ReturnTypes(values, indices, kind)


def median(a, dim=None, keepdim=False):
    a = as_tensor(a)
    x = a.array
    if dim is None:
        if x.size == 0:
            return _MEDIAN.record(np.asarray(np.nan, dtype=x.dtype), (a,))
        flat = x.reshape(-1)
        if x.dtype.kind == "f" and np.isnan(flat).any():
            out = np.asarray(np.nan, dtype=x.dtype)
        else:
            out = np.sort(flat, kind="stable")[(flat.size - 1) // 2]
        return _MEDIAN.record(np.asarray(out, dtype=x.dtype), (a,))
    return _pick("median", a, lambda n: (n - 1) // 2, dim, keepdim, _MEDIAN_DIM)


def kthvalue(a, k, dim=-1, keepdim=False):
    x = as_tensor(a).array
    d = _wrap_dim(int(dim), x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 1 <= k <= n:
        raise errors.TorchRuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    return _pick("kthvalue", a, lambda n: k - 1, dim, keepdim, _KTHVALUE)


def mode(a, dim=-1, keepdim=False):
    """The most frequent value along `dim` (the smallest of those tied), at its last index."""
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(int(dim), x.ndim)
    if not x.ndim:
        vals, idx = x.copy(), np.zeros((), dtype=np.int64)
    else:
        moved = np.moveaxis(x, d, -1)
        flat = moved.reshape(-1, moved.shape[-1])
        v_out, i_out = np.empty(flat.shape[0], dtype=x.dtype), np.empty(flat.shape[0], dtype=np.int64)
        for r, row in enumerate(flat):
            values, counts = np.unique(row, return_counts=True)
            best = values[np.argmax(counts)]  # (np.unique sorts: the smallest of the ties)
            v_out[r] = best
            i_out[r] = np.nonzero(row == best)[0][-1]
        vals = v_out.reshape(moved.shape[:-1])
        idx = i_out.reshape(moved.shape[:-1])
        if keepdim:
            vals, idx = np.expand_dims(vals, d), np.expand_dims(idx, d)
    indices = Tensor(idx)
    values = _MODE.record(vals, (a,), fargs=(d, keepdim, indices, x.shape))
    return ReturnTypes(values, indices, "mode")


def _cum_extreme(kind, a, dim):
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(int(dim), x.ndim)
    if not x.ndim:
        indices = Tensor(np.zeros((), dtype=np.int64))
        values = (
            _CUMMAX.record(x.copy(), (a,), fargs=(0, indices))
            if kind == "cummax"
            else _CUMMIN.record(x.copy(), (a,), fargs=(0, indices))
        )
        return ReturnTypes(values, indices, kind)
    moved = np.moveaxis(x, d, 0)
    vals, idx = np.empty_like(moved), np.empty(moved.shape, dtype=np.int64)
    best, at = moved[0].copy(), np.zeros(moved.shape[1:], dtype=np.int64)
    for i in range(moved.shape[0]):
        cur = moved[i]
        with np.errstate(invalid="ignore"):
            better = (cur >= best) if kind == "cummax" else (cur <= best)
        if x.dtype.kind == "f":
            better = (better & ~np.isnan(best)) | (np.isnan(cur) & ~np.isnan(best))
        best = np.where(better, cur, best)
        at = np.where(better, i, at)
        vals[i], idx[i] = best, at
    indices = Tensor(np.moveaxis(idx, 0, d).copy())
    row = _CUMMAX if kind == "cummax" else _CUMMIN
    values = row.record(np.moveaxis(vals, 0, d).copy(), (a,), fargs=(d, indices))
    return ReturnTypes(values, indices, kind)


def cummax(a, dim):
    return _cum_extreme("cummax", a, dim)


def cummin(a, dim):
    return _cum_extreme("cummin", a, dim)


def cummaxmin_backward(g: Tensor, self: Tensor, indices: Tensor, dim) -> Tensor:
    """PyTorch's cummaxmin_backward: zeros_like(self).scatter_add(dim, indices, grad)."""
    if not self.array.ndim:
        return g
    return scatter_add(Tensor(np.zeros(self.array.shape, dtype=g.array.dtype)), dim, indices, g)


def _flat_index(fname, index, n):
    i = index.array if isinstance(index, Tensor) else np.asarray(index)
    if i.dtype != np.int64:
        raise errors.TorchRuntimeError(
            f"{fname}(): Expected a long tensor for index, but got {errors.dtype_scalar_name(i.dtype)}"
        )
    bad = (i < -n) | (i >= n)
    if bad.any():
        raise errors.TorchIndexError(
            f"out of range: tried to access index {int(i[bad].reshape(-1)[0])} on a tensor of {n} elements."
        )
    return i % n if n else i


def take(a, index):
    a = as_tensor(a)
    index = index if isinstance(index, Tensor) else Tensor(np.asarray(index))
    i = _flat_index("take", index, a.array.size)
    return _TAKE.record(np.array(a.array.reshape(-1)[i], copy=True), (a,), fargs=(index,))


def put(a, index, source, accumulate=False):
    a = as_tensor(a)
    index = index if isinstance(index, Tensor) else Tensor(np.asarray(index))
    i = _flat_index("put_", index, a.array.size)
    if source.array.size != i.size:
        raise errors.TorchRuntimeError(
            f"put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source.array.size}, index.numel() = {i.size}"
        )
    if source.array.dtype != a.array.dtype:
        raise errors.TorchRuntimeError(
            f"put_(): self ({errors.dtype_scalar_name(a.array.dtype)}) and source "
            f"({errors.dtype_scalar_name(source.array.dtype)}) must have the same scalar type"
        )
    out = a.array.reshape(-1).copy()
    if accumulate:
        np.add.at(out, i.reshape(-1), source.array.reshape(-1))
    else:
        out[i.reshape(-1)] = source.array.reshape(-1)
    return _PUT.record(out.reshape(a.array.shape), (a, source), fargs=(index, bool(accumulate)))


def take_backward(g: Tensor, self: Tensor, index: Tensor) -> Tensor:
    """PyTorch's take_backward: zeros_like(self).put_(index, grad, accumulate=True)."""
    return put(Tensor(np.zeros(self.array.shape, dtype=g.array.dtype)), index, g, True)


def put_self_backward(g: Tensor, index: Tensor, source: Tensor, accumulate) -> Tensor:
    """derivatives.yaml's `accumulate ? grad : grad.put(index, zeros_like(source), false)`."""
    if accumulate:
        return g
    return put(g, index, Tensor(np.zeros(source.array.shape, dtype=g.array.dtype)), False)


def put_source_backward(g: Tensor, index: Tensor, source: Tensor) -> Tensor:
    """`grad.take(index).reshape_as(source)`."""
    return rows.ops.reshape(take(g, index), source.array.shape)


def rot90(a, k=1, dims=(0, 1)):
    a = as_tensor(a)
    x = a.array
    dims = tuple(int(v) for v in dims)
    if len(dims) != 2:
        raise errors.TorchRuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x.ndim < 2:
        raise errors.TorchRuntimeError(f"expected total dims >= 2, but got total dims = {x.ndim}")
    d0, d1 = (_wrap_dim(v, x.ndim) for v in dims)
    if d0 == d1:
        raise errors.TorchRuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    out = np.rot90(x, int(k), axes=(d0, d1)).copy()
    return _ROT90.record(out, (a,), fargs=(int(k), dims))


def nansum(a, dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.array
    dims = None if dim is None else _dims(dim, x.ndim)
    axes = None if dims is None else _axes(dims, x.ndim)
    out = np.asarray(
        np.nansum(x, axis=axes, keepdims=keepdim), dtype=x.dtype if x.dtype.kind == "f" else np.int64
    )
    return _NANSUM.record(out, (a,), fargs=(dims, keepdim))


def nansum_backward(g: Tensor, self: Tensor, dims, keepdim) -> Tensor:
    """PyTorch's nansum_backward: sum_backward(...) * self.isnan().logical_not()."""
    keep = Tensor(~np.isnan(self.array))
    return sum_backward(g, self.array.shape, dims, keepdim) * keep


_VSR = lambda grad, self, result, dim, keepdim, indices, self_sym_sizes: value_selecting_reduction_backward(  # noqa: E731
    grad, dim, indices, self_sym_sizes, keepdim
)
_VSR_ARGS = (("dim", None), ("keepdim", False), ("indices", None), ("self_sym_sizes", None))
_VSR_TEXT = ("zeros_like(self).scatter(dim, indices, grad)",)


def _vsr_row(name, grad_fn):
    return rows.text_row(
        name, grad_fn, _VSR_TEXT, args=_VSR_ARGS, saves=("indices",), formulas=(_VSR,), kink=TIES
    )


_MEDIAN = rows.text_row(
    "median",
    "MedianBackward0",
    ("grad * (self == result) / (self == result).sum()",),
    saves=("self", "result"),
    kink=TIES,
    formulas=(lambda grad, self, result: evenly_distribute_backward(grad, self, result),),
)
_MEDIAN_DIM = _vsr_row("median.dim", "MedianBackward1")
_KTHVALUE = _vsr_row("kthvalue", "KthvalueBackward0")
_MODE = _vsr_row("mode", "ModeBackward0")
_CUMMAX = rows.text_row(
    "cummax",
    "CummaxBackward0",
    ("zeros_like(self).scatter_add(dim, indices, grad)",),
    args=(("dim", None), ("indices", None)),
    saves=("indices", "self"),
    kink=TIES,
    formulas=(lambda grad, self, result, dim, indices: cummaxmin_backward(grad, self, indices, dim),),
)
_CUMMIN = rows.text_row(
    "cummin",
    "CumminBackward0",
    ("zeros_like(self).scatter_add(dim, indices, grad)",),
    args=(("dim", None), ("indices", None)),
    saves=("indices", "self"),
    kink=TIES,
    formulas=(lambda grad, self, result, dim, indices: cummaxmin_backward(grad, self, indices, dim),),
)
_TAKE = rows.text_row(
    "take",
    "TakeBackward0",
    ("zeros_like(self).put_(index, grad, accumulate=True)",),
    args=(("index", None),),
    saves=("index", "self"),
    formulas=(lambda grad, self, result, index: take_backward(grad, self, index),),
)
_PUT = rows.text_row(
    "put",
    "PutBackward0",
    ("grad.put(index, zeros_like(source), accumulate)", "grad.take(index).reshape_as(source)"),
    inputs=("self", "source"),
    args=(("index", None), ("accumulate", False)),
    saves=("index", "source"),
    formulas=(
        lambda grad, self, source, result, index, accumulate: put_self_backward(
            grad, index, source, accumulate
        ),
        lambda grad, self, source, result, index, accumulate: put_source_backward(grad, index, source),
    ),
)
_ROT90 = rows.text_row(
    "rot90",
    "Rot90Backward0",
    ("grad.rot90(-k, dims)",),
    args=(("k", 1), ("dims", (0, 1))),
    formulas=(lambda grad, self, result, k, dims: rot90(grad, -k, dims),),
)
_NANSUM = rows.text_row(
    "nansum",
    "NansumBackward0",
    ("grad * ~self.isnan()",),
    args=(("dim", None), ("keepdim", False)),
    saves=("self",),
    formulas=(lambda grad, self, result, dim, keepdim: nansum_backward(grad, self, dim, keepdim),),
)

expose(median, _MEDIAN, _MEDIAN_DIM, names=("median",))
expose(kthvalue, _KTHVALUE, names=("kthvalue",))
expose(mode, _MODE, names=("mode",))
expose(cummax, _CUMMAX, names=("cummax",))
expose(cummin, _CUMMIN, names=("cummin",))
expose(take, _TAKE, names=("take",))
expose(put, _PUT, names=("put",), inplace=True)
expose(rot90, _ROT90, names=("rot90",))
expose(nansum, _NANSUM, names=("nansum",))
rows.helpers(
    tensor={
        f.__name__: f
        for f in (
            cummaxmin_backward,
            take,
            put,
            take_backward,
            put_self_backward,
            put_source_backward,
            rot90,
            nansum_backward,
        )
    }
)
