"""max, min and amax: the full reductions (MaxBackward1: the gradient split evenly over
the ties), the dim variants returning (values, indices) (MaxBackward0: the gradient to
the index returned) and amax (AmaxBackward0); `max(a, other)` is maximum (pairwise.py).
Their rows carry the ties as kinks."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from .pairwise import maximum, minimum
from .reductions import _DIM, _KEEPDIM, _RESULT_BACK, _UNREDUCE, ReturnTypes, _axes, _dims
from .rows import Kink, expose
from .scatter import scatter_to
from .selection import where
from .shape import reshape, unsqueeze


def _extreme(a, dim, keepdim, is_max):
    a = as_tensor(a)
    x = a.array
    kind = "Max" if is_max else "Min"
    if dim is None:
        if x.size == 0:
            raise errors.TorchRuntimeError(
                f"{kind.lower()}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        out = np.asarray(x.max() if is_max else x.min())
        return _EXTREMES[kind.lower()][0].record(out, (a,))
    d = _dims(dim, x.ndim)[0]
    if x.ndim and x.shape[d] == 0:
        raise errors.TorchIndexError(f"{kind.lower()}(): Expected reduction dim {d} to have non-zero size.")
    if x.ndim == 0:
        idx = np.asarray(0)
        vals = x.copy()
    else:
        idx = np.asarray(x.argmax(axis=d) if is_max else x.argmin(axis=d))
        vals = np.take_along_axis(x, np.expand_dims(idx, d), axis=d)
        if not keepdim:
            vals = vals.squeeze(d)
        else:
            idx = np.expand_dims(idx, d)
    indices = Tensor(idx.astype(np.int64))
    # the returned indices are saved (PyTorch's MaxBackward0 saves `indices`): freed after a
    # backward, and an in-place op on them fails the backward
    values = _EXTREMES[kind.lower()][1].record(vals, (a,), fargs=(d, keepdim, indices, x.shape))
    return ReturnTypes(values, indices, kind.lower())


def evenly_distribute_backward(g: Tensor, p: Tensor, r: Tensor) -> Tensor:
    """PyTorch's evenly_distribute_backward: the gradient split evenly over the elements
    equal to the result (over the nans, if it is nan)."""
    mask = p.array == r.array
    if np.isnan(r.array).any():
        mask = np.isnan(p.array)
    count = int(mask.sum())
    return where(Tensor(mask), g / count, 0.0)


def value_selecting_reduction_backward(g: Tensor, d: int, i: Tensor, shape, keepdim) -> Tensor:
    """PyTorch's value_selecting_reduction_backward: the gradient to the index returned."""
    if not shape:
        return g
    ii = i.array if keepdim else np.expand_dims(i.array, d)
    return scatter_to(g if keepdim else unsqueeze(g, d), shape, d, ii)


def max(a, dim=None, keepdim=False, other=None):
    if (
        isinstance(dim, Tensor)
        and dim.array.ndim >= 0
        and isinstance(a, Tensor)
        and other is None
        and (dim.array.dtype.kind == "f" or dim.array.ndim > 0)
    ):
        return maximum(a, dim)
    if other is not None:
        return maximum(a, other)
    return _extreme(a, dim, keepdim, True)


def min(a, dim=None, keepdim=False, other=None):
    if (
        isinstance(dim, Tensor)
        and isinstance(a, Tensor)
        and other is None
        and (dim.array.dtype.kind == "f" or dim.array.ndim > 0)
    ):
        return minimum(a, dim)
    if other is not None:
        return minimum(a, other)
    return _extreme(a, dim, keepdim, False)


def amax(a, dim=(), keepdim=False):
    a = as_tensor(a)
    x = a.array
    dims = _dims(dim, x.ndim) if dim not in ((), None) else tuple(range(x.ndim))
    if x.size == 0:
        if dim in ((), None):
            raise errors.TorchRuntimeError(
                "amax(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        for d in dims:
            if x.shape[d] == 0:
                raise errors.TorchIndexError(f"amax(): Expected reduction dim {d} to have non-zero size.")
    axes = _axes(dims, x.ndim)
    out = np.asarray(x.max(axis=axes, keepdims=keepdim))
    return _AMAX.record(out, (a,), fargs=(dims, keepdim))


def amax_backward(g: Tensor, p: Tensor, r: Tensor, dims, keepdim) -> Tensor:
    """PyTorch's scale_grad_by_count(restore_reduced_dims(grad), restore_reduced_dims(
    result) == self, dims): (grad / mask.sum(dims, keepdim=True)) * mask."""
    shape = p.array.shape
    gg, rd = g, r.array
    if not keepdim:
        target = tuple(1 if i in dims else n for i, n in enumerate(shape)) if shape else (1,) * len(dims)
        gg = reshape(g, target)
        rd = rd.reshape(target)
    mask = p.array == rd
    count = np.sum(mask, axis=tuple(dims) if dims and mask.ndim else None, keepdims=True)
    dt = g.array.dtype
    out = gg / Tensor(np.asarray(count, dtype=dt)) * Tensor(mask.astype(dt))
    if out.array.shape != shape:  # a 0-d input reduced over dim 0: the engine sums
        out = sum(out)
    return out


rows.helpers(
    tensor={
        f.__name__: f for f in (evenly_distribute_backward, value_selecting_reduction_backward, amax_backward)
    }
)


# --- the rows: per op PyTorch's node, the vector-Jacobian product an explanation
# shows, and the ties (kinks) ---------------------------------------------------------------
def _ties(self, result, dim=None, keepdim=False, **_):
    """Where a max/min/amax is taken by more than one element (over the reduced dims)."""
    self = np.asarray(self)
    if dim is None or dim == () or self.ndim == 0:
        axes = None
    else:
        axes = tuple(d % self.ndim for d in (dim if isinstance(dim, (tuple, list)) else (dim,)))
    r = np.asarray(result)
    if axes is not None and not keepdim:
        r = np.expand_dims(r, axes)
    hit = self == r
    return hit & (hit.sum(axis=axes, keepdims=True) > 1)


_TIES_EVEN = Kink("a tie: several elements equal the result", _ties, "1 / (self == result).sum()")
_TIES_INDEX = Kink(
    "a tie along dim: several elements equal the result",
    _ties,
    "1 at the index returned, 0 at the other ties",
)
_EXTREMES = {}
for _kind in ("max", "min"):
    _K = _kind.capitalize()
    _EXTREMES[_kind] = (
        rows.text_row(
            _kind,
            f"{_K}Backward1",
            ("grad * (self == result) / (self == result).sum()",),
            saves=("self", "result"),
            kink=_TIES_EVEN,
            formulas=(lambda grad, self, result: evenly_distribute_backward(grad, self, result),),
        ),
        rows.text_row(
            f"{_kind}.dim",
            f"{_K}Backward0",
            (f"{_UNREDUCE} * (self == {_RESULT_BACK})",),
            saves=("indices",),
            args=(_DIM, _KEEPDIM, ("indices", None), ("self_sym_sizes", None)),
            kink=_TIES_INDEX,
            formulas=(
                lambda grad, self, result, dim, keepdim, indices, self_sym_sizes: (
                    value_selecting_reduction_backward(grad, dim, indices, self_sym_sizes, keepdim)
                ),
            ),
        ),
    )
_AMAX = rows.text_row(
    "amax",
    "AmaxBackward0",
    ("grad * (self == result) / (self == result).sum()",),
    saves=("self", "result"),
    args=(("dim", ()), _KEEPDIM),
    kink=_TIES_EVEN,
    formulas=(lambda grad, self, result, dim, keepdim: amax_backward(grad, self, result, dim, keepdim),),
)

expose(max, *_EXTREMES["max"], maximum.row, names=("max",))
expose(min, *_EXTREMES["min"], minimum.row, names=("min",))
expose(amax, _AMAX, names=("amax",))
