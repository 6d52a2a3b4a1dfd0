"""The backward formulas of shape.py's rows that are more than one op (PyTorch's
FunctionsManual helpers for permute, expand, repeat, cat and stack). The ops they call are
looked up in rows.ops when they run, so this module needs none of shape.py."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import rows
from .rows import ops


def permute_backward(g: Tensor, dims) -> Tensor:
    """The inverse permutation of the gradient."""
    return ops.permute(g, *tuple(np.argsort(dims)))


def expand_backward(g: Tensor, shape) -> Tensor:
    """PyTorch's at::sum_to(grad, self.sym_sizes())."""
    return ops.sum_to_shape(g, shape)


def repeat_backward(g: Tensor, sizes, shape) -> Tensor:
    """The gradient's copies summed: viewed as (repeat, size) pairs, summed over the repeats."""
    shp = (1,) * (len(sizes) - len(shape)) + tuple(shape)
    split = []
    for r, s in zip(sizes, shp):
        split += [r, s]
    gg = ops.reshape(g, *split)
    gg = ops.sum(gg, tuple(range(0, 2 * len(sizes), 2)))
    return ops.reshape(gg, *shape)


def cat_backward(g: Tensor, d: int, sizes) -> tuple:
    """Each tensor's slice of the gradient (every one: they are computed together)."""
    bounds = np.cumsum([0] + [s[d] for s in sizes])
    return tuple(ops.narrow(g, d, int(bounds[i]), int(bounds[i + 1] - bounds[i])) for i in range(len(sizes)))


def stack_backward(g: Tensor, d: int) -> tuple:
    """Each tensor's slice of the gradient along the new dim (every one)."""
    return tuple(ops.select(g, d, i) for i in range(g.array.shape[d]))


rows.helpers(
    tensor={
        f.__name__: f
        for f in (permute_backward, expand_backward, repeat_backward, cat_backward, stack_backward)
    }
)
