"""Matrix products with PyTorch's rank-dependent dispatch: mm, mv, dot, outer, bmm, and
matmul composed from them the way ATen composes it (so the graph shows the same nodes)."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor, record
from ..tensor import Tensor
from . import shape as S


def _dtype_check(a, b, what="expected m1 and m2 to have the same dtype"):
    if a.data_.dtype != b.data_.dtype:
        from .. import dtypes
        n = {"float64": "double", "float32": "float", "int64": "long int", "bool": "bool"}
        raise errors.TorchRuntimeError(
            f"{what}, but got: {n[a.data_.dtype.name]} != {n[b.data_.dtype.name]}")


def mm(a, b):
    a, b = as_tensor(a), as_tensor(b)
    if a.data_.ndim != 2:
        raise errors.TorchRuntimeError("self must be a matrix")
    if b.data_.ndim != 2:
        raise errors.TorchRuntimeError("mat2 must be a matrix")
    if a.data_.shape[1] != b.data_.shape[0]:
        raise errors.TorchRuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.data_.shape[0]}x{a.data_.shape[1]} "
            f"and {b.data_.shape[0]}x{b.data_.shape[1]})")
    _dtype_check(a, b)
    out = a.data_ @ b.data_

    def backward(g, p, q):
        return (mm(g, S.t(q)) if p is not None and a.requires_grad_flag else None,
                mm(S.t(p), g) if b.requires_grad_flag else None)
    return record("MmBackward0", out, (a, b), backward, (a, b))


def mv(a, v):
    a, v = as_tensor(a), as_tensor(v)
    if a.data_.ndim != 2 or v.data_.ndim != 1:
        raise errors.TorchRuntimeError(
            f"vector + matrix @ vector expected, got 1, {a.data_.ndim}, {v.data_.ndim}")
    if a.data_.shape[1] != v.data_.shape[0]:
        raise errors.TorchRuntimeError(
            f"size mismatch, got input ({a.data_.shape[0]}), mat ({a.data_.shape[0]}x{a.data_.shape[1]}), "
            f"vec ({v.data_.shape[0]})")
    _dtype_check(a, v, "expected m1 and m2 to have the same dtype")
    out = a.data_ @ v.data_

    def backward(g, p, q):
        return (outer(g, q) if a.requires_grad_flag else None,
                mv(S.t(p), g) if v.requires_grad_flag else None)
    return record("MvBackward0", out, (a, v), backward, (a, v))


def dot(a, b):
    a, b = as_tensor(a), as_tensor(b)
    if a.data_.ndim != 1 or b.data_.ndim != 1:
        raise errors.TorchRuntimeError(
            f"1D tensors expected, but got {a.data_.ndim}D and {b.data_.ndim}D tensors")
    if a.data_.shape[0] != b.data_.shape[0]:
        raise errors.TorchRuntimeError(
            "inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number "
            "of elements, but got %d and %d elements respectively"
            % (a.data_.shape[0], b.data_.shape[0], a.data_.shape[0], b.data_.shape[0]))
    _dtype_check(a, b, "dot : expected both vectors to have same dtype")
    out = np.asarray(a.data_ @ b.data_)
    return record("DotBackward0", out, (a, b), lambda g, p, q: (g * q, g * p), (a, b))


def outer(a, b):
    a, b = as_tensor(a), as_tensor(b)
    from .arithmetic import mul
    return mul(S.view(a, a.data_.shape[0], 1), b)


def bmm(a, b):
    a, b = as_tensor(a), as_tensor(b)
    if a.data_.ndim != 3 or b.data_.ndim != 3:
        raise errors.TorchRuntimeError("batch1 must be a 3D tensor")
    if a.data_.shape[0] != b.data_.shape[0] or a.data_.shape[2] != b.data_.shape[1]:
        raise errors.TorchRuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.data_.shape[0]}, {a.data_.shape[2]}] but got: [{b.data_.shape[0]}, {b.data_.shape[1]}].")
    out = a.data_ @ b.data_

    def backward(g, p, q):
        return (bmm(g, S.transpose(q, 1, 2)), bmm(S.transpose(p, 1, 2), g))
    return record("BmmBackward0", out, (a, b), backward, (a, b))


def matmul(a, b):
    a, b = as_tensor(a), as_tensor(b)
    da, db = a.data_.ndim, b.data_.ndim
    if da == 0 or db == 0:
        raise errors.TorchRuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        if a.data_.shape[0] != b.data_.shape[0]:
            raise errors.TorchRuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{a.data_.shape[0]} and "
                f"{b.data_.shape[0]}x{b.data_.shape[1]})")
        res = mm(S.unsqueeze(a, 0), b)
        return record("SqueezeBackward4", res.data_.reshape(res.data_.shape[1:]), (res,),
                      lambda g: (S.unsqueeze(g, 0),))
    if da == 2 and db == 2:
        return mm(a, b)
    if da >= 3 and db <= 2:
        lead = a.data_.shape[:-1]
        folded = S.reshape(a, -1, a.data_.shape[-1])
        res = mm(folded, b) if db == 2 else mv(folded, b)
        out_shape = lead + ((b.data_.shape[-1],) if db == 2 else ())
        return S._unsafe_view(res, out_shape)
    # general batched case
    ba, bb = a.data_.shape[:-2] if da > 2 else (), b.data_.shape[:-2] if db > 2 else ()
    try:
        batch = np.broadcast_shapes(ba, bb)
    except ValueError:
        raise errors.broadcast_error(ba, bb) from None
    if da == 1:
        a2 = S.unsqueeze(a, 0)
    else:
        a2 = a
    if a2.data_.shape[-1] != (b.data_.shape[-2] if db > 1 else b.data_.shape[0]):
        raise errors.TorchRuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{int(np.prod(batch))}, {a2.data_.shape[-1]}] but got: "
            f"[{int(np.prod(batch))}, {b.data_.shape[-2] if db > 1 else b.data_.shape[0]}].")
    b2 = S.unsqueeze(b, -1) if db == 1 else b
    n, m, p = a2.data_.shape[-2], a2.data_.shape[-1], b2.data_.shape[-1]
    ea = S.reshape(S.expand(a2, *(batch + (n, m))), -1, n, m)
    eb = S.reshape(S.expand(b2, *(batch + (m, p))), -1, m, p)
    res = S._unsafe_view(bmm(ea, eb), batch + (n, p))
    if da == 1:
        res = S.squeeze(res, -2)
    if db == 1:
        res = S.squeeze(res, -1)
    return res
