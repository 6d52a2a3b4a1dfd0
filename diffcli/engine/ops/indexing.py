"""Indexing: `x[0]` (SelectBackward0), `x[1:3]` (SliceBackward0), `x[[0, 2]]` / masks
(IndexBackward0), `x[None]` (UnsqueezeBackward0); and `x[i] = v` (CopySlices)."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor, record
from ..tensor import Tensor, _wrap_dim
from . import shape as S


def _zeros_like(g, shape):
    return Tensor(np.zeros(shape, dtype=g.data_.dtype))


def scatter_to(g: Tensor, shape, dim, idx) -> Tensor:
    """A zero tensor of `shape` with `g` placed at `idx` along `dim` (max/min backward)."""
    def fwd(gd):
        out = np.zeros(shape, dtype=gd.dtype)
        np.put_along_axis(out, idx, gd, axis=dim)
        return out
    return record("ScatterBackward0", fwd(g.data_), (g,),
                  lambda gg: (Tensor(np.take_along_axis(gg.data_, idx, axis=dim)),))


def _index_put_backward(shape, key):
    """Backward of a read at `key`: scatter-add g into zeros of `shape` (differentiable)."""
    def backward(g):
        def put(gd):
            out = np.zeros(shape, dtype=gd.dtype)
            np.add.at(out, key, gd)
            return out
        return (record("IndexPutBackward0", put(g.data_), (g,),
                       lambda gg: (Tensor(gg.data_[key]),)),)
    return backward


def select(a, dim, index):
    a = as_tensor(a)
    x = a.data_
    if x.ndim == 0:
        raise errors.TorchIndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if not -n <= index < n:
        raise errors.TorchIndexError(
            f"index {index} is out of bounds for dimension {d} with size {n}")
    key = (slice(None),) * d + (index,)
    return S._view_of(record("SelectBackward0", x[key], (a,), _index_put_backward(x.shape, key)), a)


def narrow(a, dim, start, length):
    x = a.data_
    key = (slice(None),) * dim + (slice(start, start + length),)
    return S._view_of(record("SliceBackward0", x[key], (a,), _index_put_backward(x.shape, key)), a)


def _normalize_key(key):
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor):
            if k.data_.dtype.kind == "f":
                raise errors.TorchIndexError(
                    "tensors used as indices must be long, int, byte or bool tensors")
            out.append(k.data_ if k.data_.ndim else int(k.data_))
        elif isinstance(k, list):
            arr = np.asarray(k)
            if arr.dtype.kind == "f":
                raise errors.TorchIndexError(
                    "tensors used as indices must be long, int, byte or bool tensors")
            out.append(arr)
        elif isinstance(k, bool):
            out.append(k)
        elif isinstance(k, (int, slice)) or k is None or k is Ellipsis:
            out.append(k)
        else:
            raise errors.TorchIndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got %s)" % type(k).__name__)
    return tuple(out)


def getitem(a, key):
    """x[key], chaining PyTorch's per-dimension nodes for basic indexing."""
    a = as_tensor(a)
    key = _normalize_key(key)
    if any(isinstance(k, np.ndarray) for k in key):
        return _advanced(a, key)
    # expand the ellipsis
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > a.data_.ndim:
        raise errors.TorchIndexError(
            f"too many indices for tensor of dimension {a.data_.ndim}")
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (a.data_.ndim - n_real) + key[i + 1:]
    out = a
    dim = 0
    for k in key:
        if k is None:
            out = S.unsqueeze(out, dim)
            dim += 1
        elif isinstance(k, bool):
            out = S.unsqueeze(out, dim)
            if not k:
                out = narrow(out, dim, 0, 0)
            dim += 1
        elif isinstance(k, int):
            size = out.data_.shape[dim]
            if not -size <= k < size:
                raise errors.TorchIndexError(
                    f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = select(out, dim, k)
        else:
            if k.step is not None and k.step <= 0:
                raise errors.TorchValueError("step must be greater than zero")
            x = out.data_
            sk = (slice(None),) * dim + (k,)
            out = S._view_of(record("SliceBackward0", x[sk], (out,),
                                    _index_put_backward(x.shape, sk)), out)
            dim += 1
    if out is a:
        x = a.data_
        sk = (slice(None),)
        out = S._view_of(record("AliasBackward0", x[...], (a,), lambda g: (g,)), a)
    return out


def _advanced(a, key):
    x = a.data_
    try:
        out = x[key]
    except IndexError as e:
        msg = str(e)
        if "boolean" in msg:
            raise errors.TorchIndexError(msg) from None
        raise errors.TorchIndexError(
            msg.replace("axis", "dimension").replace("is out of bounds for dimension", "is out of bounds for dimension")) from None
    return record("IndexBackward0", np.array(out, copy=True), (a,), _index_put_backward(x.shape, key))


def setitem(a, key, value):
    """x[key] = value, in place: CopySlices over the old grad_fn."""
    from .inplace import check_inplace, commit_inplace
    a = as_tensor(a)
    nkey = _normalize_key(key)
    check_inplace(a, view=True)
    v = as_tensor(value)
    try:
        target_shape = a.data_[nkey].shape
        vd = np.broadcast_to(v.data_.astype(a.data_.dtype), target_shape)
    except ValueError:
        raise errors.TorchRuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, v.data_.shape))}] cannot be "
            f"broadcast to indexing result of shape [{', '.join(map(str, a.data_[nkey].shape))}]") from None
    except IndexError as e:
        raise errors.TorchIndexError(str(e).replace("axis", "dimension")) from None
    old = Tensor(a.data_.copy())
    old.grad_fn, old.requires_grad_flag = a.grad_fn, a.requires_grad_flag
    old._accumulator = a._accumulator
    new = a.data_.copy()
    new[nkey] = vd
    vshape = v.data_.shape

    def backward(g):
        keep = g.data_.copy()
        keep[nkey] = 0
        from ..function import sum_to_shape
        gv = Tensor(np.array(g.data_[nkey], copy=True))
        return Tensor(keep), sum_to_shape(gv, vshape)
    res = record("CopySlices", new, (old, None if not isinstance(value, Tensor) else v), backward)
    commit_inplace(a, res)
    return a
