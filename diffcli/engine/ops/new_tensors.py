"""`x.copy_(src)` (CopyBackwards, in place: src broadcast to x's shape and cast to its
dtype) and the constructors that take their dtype from a tensor: `x.new_zeros(size)`,
`new_ones`, `new_full`, `new_empty`, `new_tensor` (leaves, x's dtype unless `dtype=`)."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import as_tensor
from ..tensor import Tensor
from . import (
    assignment,  # noqa: F401 (its copy_ row, CopyBackwards)
    rows,
)
from . import creation as K


def copy(a, src, non_blocking=False):
    """copy_'s value, out of place (inplace.apply writes it into `a`): `src` broadcast to
    `a`'s shape, in `a`'s dtype; CopyBackwards (assignment.py's row: zeros for `a`, the
    gradient for `src`, summed and cast back to its shape and dtype by the engine)."""
    src = as_tensor(src)
    x, s = a.array, src.array
    shape = errors.broadcast_shapes(x.shape, s.shape)
    if shape != x.shape:
        raise errors.TorchRuntimeError(
            f"output with shape [{', '.join(map(str, x.shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, shape))}]"
        )
    out = np.broadcast_to(s, x.shape).astype(x.dtype)
    if x.dtype.kind != "f":  # (an integer or bool tensor records no history)
        return Tensor(out)
    return _COPY.record(out, (a, src))


_COPY = rows.ROWS["copy_"]
copy.rows = (_COPY,)


def _dtype(a, dtype):
    return dtypes.to_np(dtype) or a.array.dtype


def new_zeros(a, *size, dtype=None, device=None, requires_grad=False):
    return K._leaf(np.zeros(K._size(size), dtype=_dtype(a, dtype)), requires_grad)


def new_ones(a, *size, dtype=None, device=None, requires_grad=False):
    return K._leaf(np.ones(K._size(size), dtype=_dtype(a, dtype)), requires_grad)


def new_empty(a, *size, dtype=None, device=None, requires_grad=False):
    """(PyTorch leaves the memory as it was; here it is zeros)"""
    return K._leaf(np.zeros(K._size(size), dtype=_dtype(a, dtype)), requires_grad)


def new_full(a, size, fill_value, dtype=None, device=None, requires_grad=False):
    if not isinstance(size, (list, tuple)):
        raise errors.TorchTypeError(
            f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return K._leaf(np.full(K._size((size,)), fill_value, dtype=_dtype(a, dtype)), requires_grad)


def new_tensor(a, data, dtype=None, device=None, requires_grad=False):
    """torch.tensor(data) in `a`'s dtype (data's own dtype only if it is a tensor)."""
    if isinstance(data, Tensor):
        errors.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor)."
        )
        arr = np.array(data.array, dtype=dtypes.to_np(dtype) or data.array.dtype, copy=True)
        return K._leaf(arr, requires_grad)
    return K.tensor(data, dtype=_dtype(a, dtype), requires_grad=requires_grad)


NEW_METHODS = {
    "new_zeros": new_zeros,
    "new_ones": new_ones,
    "new_empty": new_empty,
    "new_full": new_full,
    "new_tensor": new_tensor,
}
