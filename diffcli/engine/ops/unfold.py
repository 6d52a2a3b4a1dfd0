"""Tensor.unfold(dimension, size, step): the windows of `size` elements every `step` along
a dim, as a view with the window as a new last dim (UnfoldBackward0). Its gradient is
unfold_backward (each window's gradient summed back to its elements:
UnfoldBackwardBackward0), whose own gradient is an unfold again."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import rows
from . import shape as S
from .rows import expose


def _windows(x: np.ndarray, d: int, size: int, step: int) -> np.ndarray:
    """The windows as a writable numpy view of `x`."""
    if not x.ndim:
        return np.lib.stride_tricks.as_strided(x, (1,), (x.itemsize,), writeable=True) if size == 1 else x
    n = x.shape[d]
    count = (n - size) // step + 1
    shape = x.shape[:d] + (count,) + x.shape[d + 1 :] + (size,)
    strides = x.strides[:d] + (x.strides[d] * step,) + x.strides[d + 1 :] + (x.strides[d],)
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=True)


def unfold(a, dimension, size, step):
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(int(dimension), x.ndim)
    n = x.shape[d] if x.ndim else 1
    size, step = int(size), int(step)
    if size > n:
        raise errors.TorchRuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise errors.TorchRuntimeError(f"step is {step} but must be > 0")
    out = _windows(x, d, size, step)
    return S._view_of(_UNFOLD.record(out, (a,), fargs=(d, size, step, x.shape)), a)


def unfold_backward(g: Tensor, sizes, dim, size, step) -> Tensor:
    """PyTorch's unfold_backward: zeros of `sizes` with each window's gradient added at
    its elements."""
    out = np.zeros(sizes, dtype=g.array.dtype)
    if len(sizes):
        count = (sizes[dim] - size) // step + 1
        moved = np.moveaxis(out, dim, -1)
        gm = np.moveaxis(g.array, dim, -2)  # (..., count, size)
        for w in range(count):
            moved[..., w * step : w * step + size] += gm[..., w, :]
    else:
        out = g.array.reshape(()).copy()
    return _UNFOLD_BACKWARD.record(out, (g,), fargs=(dim, size, step))


_UNFOLD = rows.text_row(
    "unfold",
    "UnfoldBackward0",
    ("unfold_backward(grad, self.shape, dimension, size, step)",),
    args=(("dimension", 0), ("size", 1), ("step", 1), ("self_sym_sizes", None)),
    formulas=(
        lambda grad, self, result, dimension, size, step, self_sym_sizes: unfold_backward(
            grad, self_sym_sizes, dimension, size, step
        ),
    ),
)
_UNFOLD_BACKWARD = rows.text_row(
    "unfold_backward",
    "UnfoldBackwardBackward0",
    ("grad.unfold(dim, size, step)",),
    inputs=("grad_in",),
    args=(("dim", 0), ("size", 1), ("step", 1)),
    formulas=(lambda grad, grad_in, result, dim, size, step: unfold(grad, dim, size, step),),
)

expose(unfold, _UNFOLD, names=("unfold",), function_too=False)
rows.helpers(tensor={"unfold": unfold, "unfold_backward": unfold_backward})
