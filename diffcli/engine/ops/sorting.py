"""sort, argsort and topk: (values, indices) as torch.return_types.sort / .topk, the values
recording SortBackward0 / TopkBackward0, whose gradient goes to the index each value came
from (PyTorch's value_selecting_reduction_backward, a scatter into zeros). The order is
stable (equal elements keep their order); NaN sorts as the largest value, as in PyTorch."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import rows
from .extremes import value_selecting_reduction_backward
from .reductions import ReturnTypes
from .rows import Kink, expose

# where two elements are equal the order (and the index each value came from) may flip
TIES = Kink(
    "a tie: equal elements (not seen from the values picked)",
    None,
    "1 at the index returned, 0 at the other ties",
)


def _order(x: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """The stable sorting permutation of `x` along `d` (descending: the largest first,
    equal elements still in their order, NaN first)."""
    if not descending:
        return np.argsort(x, axis=d, kind="stable")
    flipped = np.argsort(np.flip(x, d), axis=d, kind="stable")
    return (x.shape[d] - 1) - np.flip(flipped, d)


def _sorted(a, dim, descending):
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(int(dim), x.ndim)
    if not x.ndim:
        return a, x, d, np.zeros((), dtype=np.int64)
    return a, x, d, _order(x, d, bool(descending)).astype(np.int64)


def sort(a, dim=-1, descending=False, stable=None):
    """`stable=` given (either value) is the sort.stable overload: SortBackward1."""
    a, x, d, idx = _sorted(a, dim, descending)
    vals = np.take_along_axis(x, idx, axis=d) if x.ndim else x.copy()
    indices = Tensor(idx)
    row = _SORT if stable is None else _SORT_STABLE
    values = row.record(vals, (a,), fargs=(d, indices, x.shape))
    return ReturnTypes(values, indices, "sort")


def argsort(a, dim=-1, descending=False, stable=False):
    return Tensor(_sorted(a, dim, descending)[3])


def topk(a, k, dim=-1, largest=True, sorted=True):
    """The k largest (or smallest) elements along `dim`, in order."""
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(int(dim), x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise errors.TorchRuntimeError("selected index k out of range")
    if not x.ndim:
        idx = np.zeros((), dtype=np.int64) if k else np.zeros((0,), dtype=np.int64)
        vals = x.copy() if k else np.zeros((0,), dtype=x.dtype)
    else:
        idx = np.take(_order(x, d, bool(largest)), np.arange(k), axis=d).astype(np.int64)
        vals = np.take_along_axis(x, idx, axis=d)
    indices = Tensor(idx)
    values = _TOPK.record(vals, (a,), fargs=(d, indices, x.shape))
    return ReturnTypes(values, indices, "topk")


def _picking_row(name, grad_fn):
    """A row whose values are picked from `self` at `indices` along `dim` (sort, topk): its
    gradient is scattered back to where each value came from."""
    return rows.text_row(
        name,
        grad_fn,
        ("zeros_like(self).scatter(dim, indices, grad)",),
        args=(("dim", -1), ("indices", None), ("self_sym_sizes", None)),
        saves=("indices",),
        kink=TIES,
        formulas=(
            lambda grad, self, result, dim, indices, self_sym_sizes: value_selecting_reduction_backward(
                grad, dim, indices, self_sym_sizes, True
            ),
        ),
    )


_SORT = _picking_row("sort", "SortBackward0")
_SORT_STABLE = _picking_row("sort.stable", "SortBackward1")
_TOPK = _picking_row("topk", "TopkBackward0")

expose(sort, _SORT, _SORT_STABLE, names=("sort",))
expose(topk, _TOPK, names=("topk",))
