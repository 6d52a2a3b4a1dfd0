"""Counting and searching: unique (Unique2Backward0 / UniqueDimBackward0, whose derivative
PyTorch does not implement), bincount, searchsorted and bucketize (int64 results, no
gradient)."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor, record
from ..tensor import Tensor, _wrap_dim
from .rows import expose


def _no_derivative_node(name, op, out, a):
    """PyTorch's node for an op whose derivative it does not implement (Unique2Backward0):
    recorded like any other, its backward raises."""

    def backward(g, *_):
        raise errors.TorchNotImplementedError(f"the derivative for '{op}' is not implemented.")

    return record(name, out, (a,), backward)


def unique(a, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted, as PyTorch's CPU kernel gives them whatever `sorted`
    says), or the distinct slices along `dim`; with the inverse indices and the counts
    when asked (a tuple then)."""
    a = as_tensor(a)
    x = a.array
    if dim is None:
        vals, inverse, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True)
        inverse = inverse.reshape(x.shape)
        out = _no_derivative_node("Unique2Backward0", "_unique2", vals.astype(x.dtype), a)
    else:
        d = _wrap_dim(int(dim), x.ndim)
        vals, inverse, counts = np.unique(x, axis=d, return_inverse=True, return_counts=True)
        out = _no_derivative_node("UniqueDimBackward0", "unique_dim", vals.astype(x.dtype), a)
    extra = []
    if return_inverse:
        extra.append(Tensor(np.asarray(inverse, dtype=np.int64).reshape(-1 if dim is not None else x.shape)))
    if return_counts:
        extra.append(Tensor(np.asarray(counts, dtype=np.int64)))
    return (out, *extra) if extra else out


def bincount(a, weights=None, minlength=0):
    a = as_tensor(a)
    x = a.array
    if x.dtype.kind == "f":
        raise errors.not_implemented("bincount_cpu", x.dtype)
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise errors.TorchRuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise errors.TorchRuntimeError("minlength should be >= 0")
    if weights is None:
        return Tensor(np.bincount(x, minlength=int(minlength)).astype(np.int64))
    w = as_tensor(weights).array
    if w.shape != x.shape:
        raise errors.TorchRuntimeError("weights should be 1-d and have the same length as input")
    kind = w.dtype if w.dtype.kind == "f" else np.dtype(np.float64)
    return Tensor(np.bincount(x, weights=w.astype(np.float64), minlength=int(minlength)).astype(kind))


def searchsorted(sorted_sequence, values, out_int32=False, right=False, side=None, sorter=None):
    seq = as_tensor(sorted_sequence).array
    scalar = not isinstance(values, Tensor)
    v = np.asarray(values.array if not scalar else values, dtype=seq.dtype if scalar else None)
    if side is not None:
        right = side == "right"
    how = "right" if right else "left"
    if seq.ndim == 1:
        out = np.searchsorted(seq, v, side=how)
    else:
        if seq.shape[:-1] != v.shape[:-1]:
            raise errors.TorchRuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match, but we got boundaries tensor "
                f"{list(seq.shape)} and input value tensor {list(v.shape)}"
            )
        flat_s, flat_v = seq.reshape(-1, seq.shape[-1]), v.reshape(-1, v.shape[-1])
        out = np.stack([np.searchsorted(r, q, side=how) for r, q in zip(flat_s, flat_v)]).reshape(v.shape)
    return Tensor(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


def bucketize(a, boundaries, out_int32=False, right=False):
    b = as_tensor(boundaries).array
    if b.ndim != 1:
        raise errors.TorchRuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    return searchsorted(boundaries, a, out_int32=out_int32, right=right)


expose(unique, names=("unique",))
COUNTING = {"bincount": bincount, "searchsorted": searchsorted, "bucketize": bucketize}
