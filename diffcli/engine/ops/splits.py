"""Views that cut a tensor into pieces: split (SplitBackward0 / SplitWithSizesBackward0),
chunk (a split: SplitBackward0), unbind (UnbindBackward0), narrow (SliceBackward0). Each
piece is a view of the input. PyTorch shares one node among a split's pieces (one output
each); here each piece has its own node of that name, as unbind's do (indexing.py), with
the same next_functions and gradients: its gradient placed at its offset in zeros of the
input's shape."""

from __future__ import annotations

import math

from .. import errors, multiview
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import indexing as I
from . import rows
from . import shape as S
from .rows import expose


def _pieces(a: Tensor, d: int, sizes, row, size_arg) -> tuple:
    x = a.array
    out, start = [], 0
    name = "Split" if row is _SPLIT else "SplitWithSizes"
    for i, n in enumerate(sizes):
        key = (slice(None),) * d + (slice(start, start + n),)
        piece = S._view_of(row.record(x[key], (a,), fargs=(d, size_arg, start, x.shape)), a)
        multiview.tag(piece, i, name)  # (no in-place change while grad mode is on: multiview.py)
        out.append(piece)
        start += n
    return tuple(out)


def split(a, split_size_or_sections, dim=0):
    """Tensor.split / torch.split: pieces of `split_size` (the last one smaller), or of
    the sizes listed."""
    a = as_tensor(a)
    x = a.array
    if x.ndim == 0:
        raise errors.TorchRuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(int(dim), x.ndim)
    n = x.shape[d]
    s = split_size_or_sections
    if isinstance(s, (list, tuple)):
        sizes = [int(v.item()) if isinstance(v, Tensor) else int(v) for v in s]
        if any(v < 0 for v in sizes):
            raise errors.TorchRuntimeError(
                f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={sizes}"
            )
        if sum(sizes) != n:
            raise errors.TorchRuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                f"dimension {d}), but got split_sizes={sizes}"
            )
        return _pieces(a, d, sizes, _SPLIT_WITH_SIZES, tuple(sizes))
    s = int(s.item()) if isinstance(s, Tensor) else int(s)
    if s < 0:
        raise errors.TorchRuntimeError(f"split expects split_size be non-negative, but got split_size={s}")
    if s == 0 and n != 0:
        raise errors.TorchRuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )
    count = max(math.ceil(n / s), 1) if s else 1
    sizes = [min(s, n - i * s) for i in range(count)]
    return _pieces(a, d, sizes, _SPLIT, s)


def chunk(a, chunks, dim=0):
    """`chunks` pieces as equal as can be (fewer if the size asks): split by
    ceil(size / chunks)."""
    a = as_tensor(a)
    x = a.array
    if x.ndim == 0:
        raise errors.TorchRuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise errors.TorchRuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(int(dim), x.ndim)
    return split(a, math.ceil(x.shape[d] / chunks), d)


def narrow(a, dim, start, length):
    """`length` elements from `start` along `dim`: a slice (SliceBackward0)."""
    a = as_tensor(a)
    x = a.array
    if x.ndim == 0:
        raise errors.TorchRuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(int(dim), x.ndim)
    n = x.shape[d]
    start = int(start.item()) if isinstance(start, Tensor) else int(start)
    length = int(length)
    if not -n <= start <= n:
        raise errors.TorchIndexError(
            f"start out of range (expected to be in range of [{-n}, {n}], but got {start})"
        )
    if start < 0:
        start += n
    if length < 0:
        raise errors.TorchRuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise errors.TorchRuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return I.narrow(a, d, start, length)


def unbind(a, dim=0):
    return I.unbind(a, dim)


def split_backward(g: Tensor, shape, dim, start) -> Tensor:
    """One piece's share of PyTorch's split_backward: its gradient at its place in zeros
    of the input's shape."""
    return I.slice_backward(g, shape, dim, start, start + g.array.shape[dim], None)


_SPLIT = rows.text_row(
    "split.Tensor",
    "SplitBackward0",
    ("cat(grads, dim)",),
    args=(("dim", 0), ("split_size", None), ("start", 0), ("self_sym_sizes", None)),
    formulas=(
        lambda grad, self, result, dim, split_size, start, self_sym_sizes: split_backward(
            grad, self_sym_sizes, dim, start
        ),
    ),
)
_SPLIT_WITH_SIZES = rows.text_row(
    "split_with_sizes",
    "SplitWithSizesBackward0",
    ("cat(grads, dim)",),
    args=(("dim", 0), ("split_sizes", None), ("start", 0), ("self_sym_sizes", None)),
    formulas=(
        lambda grad, self, result, dim, split_sizes, start, self_sym_sizes: split_backward(
            grad, self_sym_sizes, dim, start
        ),
    ),
)

expose(split, _SPLIT, _SPLIT_WITH_SIZES, names=("split",))
expose(chunk, _SPLIT, names=("chunk",))
expose(narrow, rows.ROWS["slice.Tensor"], names=("narrow",))
expose(unbind, rows.ROWS["unbind.int"], names=("unbind",))
rows.helpers(tensor={"split_backward": split_backward})
