"""masked_fill (and `masked_fill_`), masked_select and masked_scatter:
MaskedFillBackward0/1, MaskedSelectBackward0, MaskedScatterBackward0, with PyTorch's
gradients (masked_select's is a masked_scatter into zeros, whose source gets a
masked_select again)."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from .rows import Kink, expose

# the mask is an input: where it flips is not seen from the other inputs (as for where())
MASK_FLIPS = Kink(
    "mask flips (its boundary: not seen from the inputs)", None, "1 for the side the mask picks"
)


def _mask(fname, mask) -> Tensor:
    if not isinstance(mask, Tensor):
        raise errors.TorchTypeError(
            f"{fname}(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}"
        )
    if mask.array.dtype != np.bool_:
        if fname == "masked_select":
            raise errors.TorchRuntimeError("masked_select: expected BoolTensor for mask")
        if fname == "masked_scatter":
            raise errors.TorchRuntimeError(
                f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                f"{errors.dtype_scalar_name(mask.array.dtype)}"
            )
        raise errors.TorchRuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{errors.dtype_c_name(mask.array.dtype)}"
        )
    return mask


def _broadcast(x: np.ndarray, m: np.ndarray):
    shape = errors.broadcast_shapes(m.shape, x.shape)  # (PyTorch's order: the mask's first)
    return np.broadcast_to(x, shape), np.broadcast_to(m, shape)


def masked_fill(a, mask, value):
    """`a` where `mask` is False, `value` where it is True (the two broadcast together)."""
    a = as_tensor(a)
    mask = _mask("masked_fill", mask)
    x, m = _broadcast(a.array, mask.array)
    if isinstance(value, Tensor):
        if value.array.ndim:
            raise errors.TorchRuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.array.ndim} dimension(s)."
            )
        out = np.where(m, value.array.astype(x.dtype), x)
        return _MASKED_FILL_TENSOR.record(out, (a, value), fargs=(mask,))
    out = np.where(m, np.asarray(value).astype(x.dtype), x)
    return _MASKED_FILL.record(out, (a,), fargs=(mask, value))


def masked_select(a, mask):
    """The elements of `a` where `mask` is True, as a 1-D tensor (the two broadcast)."""
    a = as_tensor(a)
    mask = _mask("masked_select", mask)
    x, m = _broadcast(a.array, mask.array)
    return _MASKED_SELECT.record(np.array(x[m], copy=True), (a,), fargs=(mask,))


def masked_scatter(a, mask, source):
    """`a` with the masked positions filled, in order, from `source`'s first elements."""
    a = as_tensor(a)
    mask = _mask("masked_scatter", mask)
    x, m = _broadcast(a.array, mask.array)
    s = source.array.reshape(-1)
    n = int(m.sum())
    if s.size < n:
        raise errors.TorchRuntimeError("Number of elements of source < number of ones in mask")
    out = x.copy()
    out[m] = s[:n].astype(x.dtype)
    return _MASKED_SCATTER.record(out, (a, source), fargs=(mask, source.array.shape))


def masked_select_backward(g: Tensor, self: Tensor, mask: Tensor) -> Tensor:
    """PyTorch's masked_select_backward: `zeros_like(self.expand(...)).masked_scatter_(mask,
    grad)`."""
    shape = errors.broadcast_shapes(self.array.shape, mask.array.shape)
    return masked_scatter(Tensor(np.zeros(shape, dtype=g.array.dtype)), mask, g)


def masked_scatter_backward(g: Tensor, mask: Tensor, sizes) -> Tensor:
    """PyTorch's masked_scatter_backward: the gradient at the masked positions, padded with
    zeros to the source's size."""
    picked = masked_select(g, mask)
    n = int(np.prod(sizes))
    diff = n - picked.array.size
    if diff:
        picked = rows.ops.cat([picked, Tensor(np.zeros(diff, dtype=g.array.dtype))])
    return rows.ops.reshape(picked, tuple(sizes))


def masked_fill_value_backward(g: Tensor, mask: Tensor) -> Tensor:
    """PyTorch's masked_fill_backward: `grad.masked_select(mask).sum()`."""
    return rows.ops.sum(masked_select(g, mask))


# --- the rows (derivatives.yaml: masked_fill.Scalar/.Tensor, masked_select, masked_scatter) --

_MASKED_FILL = rows.text_row(
    "masked_fill.Scalar",
    "MaskedFillBackward0",
    ("grad.masked_fill(mask, 0)",),
    args=(("mask", None), ("value", None)),
    saves=("mask",),
    kink=MASK_FLIPS,
    formulas=(lambda grad, self, result, mask, value: masked_fill(grad, mask, 0),),
)
_MASKED_FILL_TENSOR = rows.text_row(
    "masked_fill.Tensor",
    "MaskedFillBackward1",
    ("grad.masked_fill(mask, 0)", "grad.masked_select(mask).sum()"),
    inputs=("self", "value"),
    args=(("mask", None),),
    saves=("mask",),
    kink=MASK_FLIPS,
    formulas=(
        lambda grad, self, value, result, mask: masked_fill(grad, mask, 0),
        lambda grad, self, value, result, mask: masked_fill_value_backward(grad, mask),
    ),
)
_MASKED_SELECT = rows.text_row(
    "masked_select",
    "MaskedSelectBackward0",
    ("zeros_like(self).masked_scatter(mask, grad)",),
    args=(("mask", None),),
    saves=("mask", "self"),
    kink=MASK_FLIPS,
    formulas=(lambda grad, self, result, mask: masked_select_backward(grad, self, mask),),
)
_MASKED_SCATTER = rows.text_row(
    "masked_scatter",
    "MaskedScatterBackward0",
    ("grad.masked_fill(mask, 0)", "grad.masked_select(mask)"),
    inputs=("self", "source"),
    args=(("mask", None), ("source_sym_sizes", None)),
    saves=("mask",),
    kink=MASK_FLIPS,
    formulas=(
        lambda grad, self, source, result, mask, source_sym_sizes: masked_fill(grad, mask, 0),
        lambda grad, self, source, result, mask, source_sym_sizes: masked_scatter_backward(
            grad, mask, source_sym_sizes
        ),
    ),
)

expose(masked_fill, _MASKED_FILL, _MASKED_FILL_TENSOR, names=("masked_fill",), inplace=True)
expose(masked_select, _MASKED_SELECT, names=("masked_select",))
expose(masked_scatter, _MASKED_SCATTER, names=("masked_scatter",), inplace=True)
rows.helpers(
    tensor={
        f.__name__: f
        for f in (
            masked_fill,
            masked_select,
            masked_scatter,
            masked_select_backward,
            masked_scatter_backward,
            masked_fill_value_backward,
        )
    }
)
