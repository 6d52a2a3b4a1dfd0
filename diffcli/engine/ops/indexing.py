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
    """x[key] the way PyTorch's indexing composes it: a lone slice is always a
    SliceBackward0; in a tuple, ints select (SelectBackward0), None unsqueezes, slices
    that cover the whole dimension are skipped and the others slice (SliceBackward0),
    then list/tensor/mask indices apply together as one IndexBackward0. A key that
    leaves the tensor unchanged (`x[...]`, `x[:, :]`) gives an alias."""
    a = as_tensor(a)
    lone_slice = isinstance(key, slice)
    key = _normalize_key(key)
    n_real = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
                 for k in key if k is not None and k is not Ellipsis and not isinstance(k, bool))
    if n_real > a.data_.ndim:
        raise errors.TorchIndexError(
            f"too many indices for tensor of dimension {a.data_.ndim}")
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise errors.TorchIndexError("an index can only have a single ellipsis ('...')")
    if ellipses:
        i = ellipses[0]
        key = key[:i] + (slice(None),) * (a.data_.ndim - n_real) + key[i + 1:]
    out = a
    dim = 0
    advanced = []  # (dim, index array) applied last
    for k in key:
        if k is None:
            out = S.unsqueeze(out, dim)
            dim += 1
        elif isinstance(k, bool):
            out = S.unsqueeze(out, dim)
            advanced.append((dim, np.asarray([k])))
            dim += 1
        elif isinstance(k, int):
            size = out.data_.shape[dim]
            if not -size <= k < size:
                raise errors.TorchIndexError(
                    f"index {k} is out of bounds for dimension {dim} with size {size}")
            out = select(out, dim, k)
        elif isinstance(k, np.ndarray):
            advanced.append((dim, k))
            dim += k.ndim if k.dtype == np.bool_ else 1
        else:
            if k.step is not None and k.step <= 0:
                raise errors.TorchValueError("step must be greater than zero")
            size = out.data_.shape[dim]
            # ATen skips a slice of a tuple key when it is literally [0:>=size:1]
            whole = ((k.start or 0) == 0 and (k.stop is None or k.stop >= size)
                     and (k.step or 1) == 1)
            if lone_slice or not whole:
                x = out.data_
                sk = (slice(None),) * dim + (k,)
                out = S._view_of(record("SliceBackward0", x[sk], (out,),
                                        _index_put_backward(x.shape, sk)), out)
            dim += 1
    if advanced:
        return _advanced(out, advanced)
    if out is a:
        out = S._view_of(record("AliasBackward0", a.data_[...], (a,), lambda g: (g,)), a)
    return out


def _advanced(a, indices):
    """One IndexBackward0 for the list/tensor/mask indices, at their dims."""
    x = a.data_
    key, dim = [], 0
    for d, k in indices:
        key += [slice(None)] * (d - dim) + [k]
        dim = d + (k.ndim if k.dtype == np.bool_ else 1)
    key = tuple(key)
    try:
        out = x[key]
    except IndexError as e:
        msg = str(e)
        if "boolean" in msg:
            raise errors.TorchIndexError(msg) from None
        raise errors.TorchIndexError(msg.replace("axis", "dimension")) from None
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
