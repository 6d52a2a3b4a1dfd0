"""Rearrangements that tutorials reach for, composed of the views and copies PyTorch
composes them of: roll (RollBackward0), repeat_interleave (unsqueeze, expand, clone,
view; with a tensor of repeats an index_select), tile (repeat), movedim/moveaxis
(permute), swapaxes/swapdims (transpose), unflatten (view), broadcast_to (expand),
fliplr/flipud (flip), hstack/vstack/column_stack (cat), and cumprod as a function."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import rows
from . import shape as S
from .index_ops import index_select
from .reductions import _CUMPROD, _cumprod
from .rows import expose


def _ints(v) -> tuple:
    if isinstance(v, (list, tuple)):
        return tuple(int(x) for x in v)
    return (int(v),)


def roll(a, shifts, dims=None):
    a = as_tensor(a)
    x = a.array
    s = _ints(shifts)
    if dims is None:
        if len(s) != 1:
            raise errors.TorchRuntimeError(f"shifts and dimensions must align. shifts: {len(s)}, dims:0")
        out = np.roll(x.reshape(-1), s[0]).reshape(x.shape)
        return _ROLL.record(out, (a,), fargs=(s, ()))
    d = _ints(dims)
    if len(s) != len(d):
        raise errors.TorchRuntimeError(f"shifts and dimensions must align. shifts: {len(s)}, dims:{len(d)}")
    d = tuple(_wrap_dim(k, x.ndim) for k in d)
    out = np.roll(x, s, d) if x.ndim else x.copy()
    return _ROLL.record(out, (a,), fargs=(s, d))


def roll_backward(g: Tensor, shifts, dims) -> Tensor:
    return roll(g, tuple(-k for k in shifts), dims if dims else None)


def repeat_interleave(a, repeats=None, dim=None, output_size=None):
    """Each element (each slice along `dim`) repeated `repeats` times; no dim: of the
    flattened tensor. PyTorch composes an int repeat as unsqueeze, expand, clone and view,
    and a tensor of repeats as an index_select."""
    a = as_tensor(a)
    if dim is None:
        a = S.flatten(a) if a.array.ndim != 1 else a
        d = 0
    else:
        d = _wrap_dim(int(dim), a.array.ndim)
    n = a.array.shape[d] if a.array.ndim else 1
    if isinstance(repeats, Tensor) and repeats.array.ndim:
        r = repeats.array.reshape(-1)
        if r.size != n and r.size != 1:
            raise errors.TorchRuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{r.size} and input.size(0) = {n}"
            )
        if (r < 0).any():
            raise errors.TorchRuntimeError("repeats can not be negative")
        idx = np.repeat(np.arange(n, dtype=np.int64), np.broadcast_to(r, (n,)))
        return index_select(a, d, Tensor(idx))
    k = int(repeats.item()) if isinstance(repeats, Tensor) else int(repeats)
    if k < 0:
        raise errors.TorchRuntimeError("Repeats must be non-negative")
    shape = list(a.array.shape)
    u = S.unsqueeze(a, d + 1)
    e = S.expand(u, *(shape[: d + 1] + [k] + shape[d + 1 :]))
    c = rows.ROWS["clone"].record(np.array(e.array, order="C", copy=True), (e,))
    return S.view(c, *(shape[:d] + [n * k] + shape[d + 1 :]))


def tile(a, dims):
    a = as_tensor(a)
    dims = _ints(dims)
    if len(dims) < a.array.ndim:
        dims = (1,) * (a.array.ndim - len(dims)) + dims
    return S.repeat(a, *dims)


def movedim(a, source, destination):
    a = as_tensor(a)
    x = a.array
    src, dst = _ints(source), _ints(destination)
    if len(src) != len(dst):
        raise errors.TorchRuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    src = [_wrap_dim(k, x.ndim) for k in src]
    dst = [_wrap_dim(k, x.ndim) for k in dst]
    for name, ds in (("source", src), ("destination", dst)):
        if len(set(ds)) != len(ds):
            raise errors.TorchRuntimeError(
                f"movedim: repeated dim in `{name}` ({list(_ints(source if name == 'source' else destination))})"
            )
    order = [None] * x.ndim
    for s_, d_ in zip(src, dst):
        order[d_] = s_
    rest = iter(k for k in range(x.ndim) if k not in src)
    order = [next(rest) if k is None else k for k in order]
    return S.permute(a, *order)


def swapaxes(a, axis0, axis1):
    return S.transpose(a, axis0, axis1)


def unflatten(a, dim, sizes):
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(int(dim), x.ndim)
    sizes = list(_ints(sizes))
    if -1 in sizes:
        known = int(np.prod([s for s in sizes if s != -1]))
        sizes[sizes.index(-1)] = x.shape[d] // known if known else 0
    if int(np.prod(sizes)) != x.shape[d]:
        raise errors.TorchRuntimeError(
            f"unflatten: Provided sizes {list(_ints(sizes))} don't multiply up to the size of dim "
            f"{dim} ({x.shape[d]}) in the input tensor"
        )
    return S.view(a, *(list(x.shape[:d]) + sizes + list(x.shape[d + 1 :])))


def broadcast_to(a, size):
    return S.expand(a, *_ints(size))


def fliplr(a):
    a = as_tensor(a)
    if a.array.ndim < 2:
        raise errors.TorchRuntimeError("Input must be >= 2-d.")
    return S.flip(a, 1)


def flipud(a):
    a = as_tensor(a)
    if a.array.ndim < 1:
        raise errors.TorchRuntimeError("Input must be >= 1-d.")
    return S.flip(a, 0)


def _at_least(ts, n):
    out = []
    for t in S._seq(ts):
        while t.array.ndim < n:
            t = S.unsqueeze(t, 0)
        out.append(t)
    return out


def hstack(tensors):
    ts = S._seq(tensors)
    ts = [S.unsqueeze(t, 0) if t.array.ndim == 0 else t for t in ts]
    return S.cat(ts, 0 if ts and ts[0].array.ndim == 1 else 1)


def vstack(tensors):
    return S.cat(_at_least(tensors, 2), 0)


def column_stack(tensors):
    ts = [S.view(t, t.array.size, 1) if t.array.ndim <= 1 else t for t in S._seq(tensors)]
    return S.cat(ts, 1)


def cumprod(a, dim, dtype=None):
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(int(dim), x.ndim)
    if x.dtype.kind in "bi" and dtype is None:
        return Tensor(np.cumprod(x, axis=d).astype(np.int64)) if x.ndim else Tensor(x.astype(np.int64))
    if not x.ndim:
        return _CUMPROD.record(x.copy(), (a,), fargs=(0,))
    return _cumprod(a, d)


_ROLL = rows.text_row(
    "roll",
    "RollBackward0",
    ("grad.roll(-shifts, dims)",),
    args=(("shifts", None), ("dims", None)),
    formulas=(lambda grad, self, result, shifts, dims: roll_backward(grad, shifts, dims),),
)
rows.helpers(tensor={"roll_backward": roll_backward})

expose(roll, _ROLL, names=("roll",))
_VIEWS = (rows.ROWS["unsqueeze"], rows.ROWS["expand"], rows.ROWS["clone"], rows.ROWS["view"])
expose(repeat_interleave, *_VIEWS, rows.ROWS["index_select"], names=("repeat_interleave",))
expose(tile, rows.ROWS["repeat"], names=("tile",))
expose(movedim, rows.ROWS["permute"], names=("movedim", "moveaxis"))
expose(swapaxes, rows.ROWS["transpose"], names=("swapaxes", "swapdims"))
expose(unflatten, rows.ROWS["view"], names=("unflatten",))
expose(broadcast_to, rows.ROWS["expand"], names=("broadcast_to",))
expose(fliplr, rows.ROWS["flip"], names=("fliplr",))
expose(flipud, rows.ROWS["flip"], names=("flipud",))
expose(hstack, rows.ROWS["cat"], names=("hstack",), method=False)
expose(vstack, rows.ROWS["cat"], names=("vstack",), method=False)
expose(column_stack, rows.ROWS["cat"], names=("column_stack",), method=False)
expose(cumprod, _CUMPROD, names=("cumprod",))
