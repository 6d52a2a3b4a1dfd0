"""Diagonals: diagonal (a view, DiagonalBackward0), diag_embed (DiagEmbedBackward0), diag
(a 1-D input: diag_embed; a 2-D one: diagonal_copy, DiagonalBackward0_copy) and trace
(TraceBackward0), with PyTorch's gradients: a diagonal's is diagonal_backward (the
gradient on the diagonal of zeros, DiagonalBackwardBackward0, whose own gradient is a
diagonal again), diag_embed's a diagonal, trace's an index_fill of a flat zeros viewed
as the matrix (trace_backward)."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import rows
from . import shape as S
from .index_ops import index_fill
from .rows import expose


def _diagonal_view(x: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    """The diagonal of `x` over dims d1, d2 as a writable numpy view (the diagonal's dim
    last, as in PyTorch)."""
    y = np.moveaxis(x, (d1, d2), (-2, -1))
    rows_, cols = y.shape[-2], y.shape[-1]
    r0, c0 = max(-offset, 0), max(offset, 0)
    n = max(min(rows_ - r0, cols - c0), 0)
    start = y[..., r0:, c0:] if n else y[..., :0, :0]
    strides = y.strides[:-2] + (y.strides[-2] + y.strides[-1],)
    return np.lib.stride_tricks.as_strided(start, y.shape[:-2] + (n,), strides, writeable=True)


def _dims2(x, dim1, dim2):
    d1, d2 = _wrap_dim(int(dim1), x.ndim), _wrap_dim(int(dim2), x.ndim)
    if d1 == d2:
        raise errors.TorchRuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(a, offset=0, dim1=0, dim2=1):
    a = as_tensor(a)
    x = a.array
    d1, d2 = _dims2(x, dim1, dim2)
    out = _diagonal_view(x, int(offset), d1, d2)
    return S._view_of(_DIAGONAL.record(out, (a,), fargs=(int(offset), d1, d2, x.shape)), a)


def diagonal_backward(g: Tensor, sizes, offset, dim1, dim2) -> Tensor:
    """PyTorch's diagonal_backward: zeros of `sizes` with `g` on the diagonal."""
    out = np.zeros(sizes, dtype=g.array.dtype)
    _diagonal_view(out, offset, dim1, dim2)[...] = g.array
    return _DIAGONAL_BACKWARD.record(out, (g,), fargs=(offset, dim1, dim2))


def diag_embed(a, offset=0, dim1=-2, dim2=-1):
    """The last dim of `a` put on the diagonal of new dims dim1, dim2 (DiagEmbedBackward0)."""
    a = as_tensor(a)
    x = a.array
    if x.ndim == 0:
        raise errors.TorchIndexError(
            "Dimension out of range (expected to be in range of [-1, 0], but got -2)"
        )
    ndim = x.ndim + 1
    d1, d2 = _wrap_dim(int(dim1), ndim), _wrap_dim(int(dim2), ndim)
    if d1 == d2:
        raise errors.TorchRuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + abs(int(offset))
    shape = list(x.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    out = np.zeros(shape, dtype=x.dtype)
    _diagonal_view(out, int(offset), d1, d2)[...] = x
    return _DIAG_EMBED.record(out, (a,), fargs=(int(offset), d1, d2))


def diag(a, diagonal=0):
    """torch.diag: a vector on the diagonal of a square matrix, or a matrix's diagonal."""
    a = as_tensor(a)
    x = a.array
    if x.ndim == 1:
        return diag_embed(a, diagonal, 0, 1)
    if x.ndim != 2:
        raise errors.TorchRuntimeError(f"diag(): Supports 1D or 2D tensors. Got {x.ndim}D")
    out = np.array(_diagonal_view(x, int(diagonal), 0, 1), copy=True)
    return _DIAGONAL_COPY.record(out, (a,), fargs=(int(diagonal), 0, 1, x.shape))


def trace(a):
    a = as_tensor(a)
    x = a.array
    if x.ndim != 2:
        raise errors.TorchRuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    total = np.trace(x) if x.dtype.kind == "f" else np.trace(x).astype(np.int64)
    return _TRACE.record(np.asarray(total, dtype=total.dtype), (a,), fargs=(x.shape,))


def trace_backward(g: Tensor, sizes) -> Tensor:
    """PyTorch's trace_backward: zeros(rows * cols).index_fill_(0, arange(0, n, cols + 1),
    grad).view(sizes)."""
    n = int(sizes[0] * sizes[1])
    flat = Tensor(np.zeros(n, dtype=g.array.dtype))
    picked = Tensor(np.arange(0, n, sizes[1] + 1, dtype=np.int64))
    return S.view(index_fill(flat, 0, picked, g), tuple(sizes))


_DIAGONAL_ARGS = (("offset", 0), ("dim1", 0), ("dim2", 1), ("self_sym_sizes", None))
_DIAGONAL = rows.text_row(
    "diagonal",
    "DiagonalBackward0",
    ("zeros_like(self).diagonal_scatter(grad, offset, dim1, dim2)",),
    args=_DIAGONAL_ARGS,
    formulas=(
        lambda grad, self, result, offset, dim1, dim2, self_sym_sizes: diagonal_backward(
            grad, self_sym_sizes, offset, dim1, dim2
        ),
    ),
)
_DIAGONAL_COPY = rows.text_row(
    "diagonal_copy",
    "DiagonalBackward0_copy",
    ("zeros_like(self).diagonal_scatter(grad, offset, dim1, dim2)",),
    args=_DIAGONAL_ARGS,
    formulas=(
        lambda grad, self, result, offset, dim1, dim2, self_sym_sizes: diagonal_backward(
            grad, self_sym_sizes, offset, dim1, dim2
        ),
    ),
)
_DIAGONAL_BACKWARD = rows.text_row(
    "diagonal_backward",
    "DiagonalBackwardBackward0",
    ("grad.diagonal(offset, dim1, dim2)",),
    inputs=("grad_output",),
    args=(("offset", 0), ("dim1", 0), ("dim2", 1)),
    formulas=(lambda grad, grad_output, result, offset, dim1, dim2: diagonal(grad, offset, dim1, dim2),),
)
_DIAG_EMBED = rows.text_row(
    "diag_embed",
    "DiagEmbedBackward0",
    ("grad.diagonal(offset, dim1, dim2)",),
    args=(("offset", 0), ("dim1", -2), ("dim2", -1)),
    formulas=(lambda grad, self, result, offset, dim1, dim2: diagonal(grad, offset, dim1, dim2),),
)
_TRACE = rows.text_row(
    "trace",
    "TraceBackward0",
    ("eye(*self.shape) * grad",),
    args=(("self_sym_sizes", None),),
    formulas=(lambda grad, self, result, self_sym_sizes: trace_backward(grad, self_sym_sizes),),
)

expose(diagonal, _DIAGONAL, names=("diagonal",))
expose(diag_embed, _DIAG_EMBED, names=("diag_embed",))
expose(diag, _DIAG_EMBED, _DIAGONAL_COPY, names=("diag",))
expose(trace, _TRACE, names=("trace",))
rows.helpers(tensor={f.__name__: f for f in (diagonal, diagonal_backward, diag_embed, trace_backward)})
