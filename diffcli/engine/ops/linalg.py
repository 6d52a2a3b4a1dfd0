"""Matrix products with PyTorch's rank-dependent dispatch: mm, mv, dot, outer, bmm, and
matmul composed from them the way ATen composes it (so the graph shows the same nodes)."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import as_tensor, record
from . import rows
from . import shape as S
from .arithmetic import mul
from .rows import expose


def _dtype_check(a, b, what="expected m1 and m2 to have the same dtype"):
    if a.data_.dtype != b.data_.dtype:
        raise errors.TorchRuntimeError(
            f"{what}, but got: {dtypes.c_name(a.data_.dtype)} != {dtypes.c_name(b.data_.dtype)}")


def _record_product(name, out, a, b, grad_a, grad_b, self_first=False):
    """A product whose gradient for `a` needs `b` and for `b` needs `a`: PyTorch saves `b`
    only when `a` requires grad and `a` only when `b` does (so an in-place change of the
    other one is no version error), in its unpack order (other first, unless self_first)."""
    need_b, need_a = a.requires_grad_flag, b.requires_grad_flag
    pairs = ((a, need_a), (b, need_b)) if self_first else ((b, need_b), (a, need_a))
    saved = tuple(t for t, k in pairs if k)

    def backward(g, *s):
        held = list(s)
        p = held.pop(0 if self_first else -1) if need_a else None   # `a` as saved
        q = held[0] if need_b else None                                # `b` as saved
        return (grad_a(g, q) if need_b else None, grad_b(g, p) if need_a else None)
    return record(name, out, (a, b), backward, saved)


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

    # saved in PyTorch's unpack order (mat2, then self): which one a version error names
    return _record_product("MmBackward0", out, a, b, lambda g, q: mm(g, S.t(q)),
                           lambda g, p: mm(S.t(p), g))


def mv(a, v):
    a, v = as_tensor(a), as_tensor(v)
    if a.data_.ndim != 2 or v.data_.ndim != 1:
        raise errors.TorchRuntimeError(
            f"vector + matrix @ vector expected, got 1, {a.data_.ndim}, {v.data_.ndim}")
    if a.data_.shape[1] != v.data_.shape[0]:
        raise errors.TorchRuntimeError(
            f"size mismatch, got input ({a.data_.shape[0]}), mat ({a.data_.shape[0]}x{a.data_.shape[1]}), "
            f"vec ({v.data_.shape[0]})")
    if a.data_.dtype != v.data_.dtype:  # mv is addmv_ into a result of vec's dtype
        r, m = errors.dtype_scalar_name(v.data_.dtype), errors.dtype_scalar_name(a.data_.dtype)
        raise errors.TorchRuntimeError(
            f"addmv input tensors must have the same dtype, but got {r}, {m}, and {r}")
    out = a.data_ @ v.data_

    return _record_product("MvBackward0", out, a, v, lambda g, q: outer(g, q),
                           lambda g, p: mv(S.t(p), g), self_first=True)  # (PyTorch's unpack order)


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
    if a.data_.dtype != b.data_.dtype:
        raise errors.TorchRuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{errors.dtype_scalar_name(a.data_.dtype)} and {errors.dtype_scalar_name(b.data_.dtype)}")
    out = np.asarray(a.data_ @ b.data_)
    return _record_product("DotBackward0", out, a, b, lambda g, q: g * q, lambda g, p: g * p)


def outer(a, b):
    a, b = as_tensor(a), as_tensor(b)
    for t, name in ((a, "self"), (b, "vec2")):
        if t.data_.ndim != 1:
            raise errors.TorchRuntimeError(
                f"outer: Expected 1-D argument {name}, but got {t.data_.ndim}-D")
    return mul(S.view(a, a.data_.shape[0], 1), b)


def bmm(a, b):
    a, b = as_tensor(a), as_tensor(b)
    if a.data_.ndim != 3 or b.data_.ndim != 3:
        raise errors.TorchRuntimeError("batch1 must be a 3D tensor")
    if a.data_.shape[0] != b.data_.shape[0] or a.data_.shape[2] != b.data_.shape[1]:
        raise errors.TorchRuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.data_.shape[0]}, {a.data_.shape[2]}] but got: [{b.data_.shape[0]}, {b.data_.shape[1]}].")
    if a.data_.dtype != b.data_.dtype:
        raise errors.TorchRuntimeError(
            f"expected scalar type {errors.dtype_scalar_name(a.data_.dtype)} but found "
            f"{errors.dtype_scalar_name(b.data_.dtype)}")
    out = a.data_ @ b.data_

    return _record_product("BmmBackward0", out, a, b, lambda g, q: bmm(g, S.transpose(q, 1, 2)),
                           lambda g, p: bmm(S.transpose(p, 1, 2), g))  # (PyTorch's unpack order)


def _should_fold(a, b):
    """ATen's should_fold: fold the larger (>= 3-D) operand into a matrix and call mm/mv
    when the other one is 1-D or 2-D, if that needs no extra copy or the smaller operand
    requires grad."""
    a_larger = a.data_.ndim >= b.data_.ndim
    big = a.data_ if a_larger else np.swapaxes(b.data_, -1, -2)
    small = b if a_larger else a
    if not (big.ndim >= 3 and small.data_.ndim <= 2):
        return False
    if small.requires_grad_flag:
        return True
    if a.data_.ndim == 2:
        return False
    if big.size == 0:
        return True
    st, sh = big.strides, big.shape
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(big.ndim - 2))


def matmul(a, b):
    """ATen's _matmul_impl, op for op, so the graph shows PyTorch's nodes: dot, mv,
    unsqueeze+mm+squeeze, mm, a fold into mm/mv, or expand+reshape+bmm."""
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
    if _should_fold(a, b):
        transpose = db > da
        t1 = S.transpose(b, -1, -2) if transpose else a
        t2 = (S.t(a) if da == 2 else a) if transpose else b
        out_shape = t1.data_.shape[:-1]
        folded = S.reshape(t1, -1, t1.data_.shape[-1])
        if t2.data_.ndim == 2:
            out = S._unsafe_view(mm(folded, t2), out_shape + (t2.data_.shape[1],))
            return S.contiguous(S.transpose(out, -1, -2)) if transpose else out
        return S._unsafe_view(mv(folded, t2), out_shape)
    n = a.data_.shape[-2] if da > 1 else 1
    m1 = a.data_.shape[-1]
    batch1 = a.data_.shape[:-2] if da > 2 else ()
    m2 = b.data_.shape[-2] if db > 1 else b.data_.shape[0]
    p = b.data_.shape[-1] if db > 1 else 1
    batch2 = b.data_.shape[:-2] if db > 2 else ()
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and a.requires_grad_flag:
            return matmul(S.squeeze(a, 0), b)
        if batch2[0] == 1 and b.requires_grad_flag:
            return matmul(a, S.squeeze(b, 0))
    try:
        batch = tuple(np.broadcast_shapes(batch1, batch2))
    except ValueError:
        raise errors.broadcast_error(batch1, batch2) from None
    count = int(np.prod(batch, dtype=np.int64))
    ea = S.reshape(S.expand(a, *(batch + (n, m1))), count, n, m1)
    if db == 1:
        eb = S.unsqueeze(S.reshape(S.expand(b, *(batch + (m2,))), count, m2), 2)
    else:
        eb = S.reshape(S.expand(b, *(batch + (m2, p))), count, m2, p)
    out_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    res = bmm(ea, eb)
    if db == 1:
        res = S.squeeze(res, -1)
    return S._unsafe_view(res, out_shape)


# --- the rows: per op PyTorch's node and, per input, the vector-Jacobian product an
# explanation shows (rows.text_row; the backward formulas are the lambdas above) ----------

_MM = rows.text_row("mm", "MmBackward0", ("grad @ mat2.t()", "self.t() @ grad"), inputs=("self", "mat2"),
                    saves=("mat2", "self"))
_MV = rows.text_row("mv", "MvBackward0", ("outer(grad, vec)", "self.t() @ grad"), inputs=("self", "vec"),
                    saves=("vec", "self"))
_DOT = rows.text_row("dot", "DotBackward0", ("grad * tensor", "grad * self"), inputs=("self", "tensor"),
                     saves=("tensor", "self"))
_BMM = rows.text_row("bmm", "BmmBackward0", ("grad @ mat2.transpose(1, 2)", "self.transpose(1, 2) @ grad"),
                     inputs=("self", "mat2"), saves=("mat2", "self"))

expose(mm, _MM, names=("mm",))
expose(mv, _MV, names=("mv",))
expose(dot, _DOT, names=("dot",))
expose(bmm, _BMM, names=("bmm",))
# composites (as ATen's CompositeImplicitAutograd): the rows of the ops they record
expose(outer, rows.ROWS["view"], rows.ROWS["mul"], names=("outer",))
expose(matmul, _DOT, _MV, _MM, _BMM, rows.ROWS["unsqueeze"], rows.ROWS["squeeze_.dim"],
       rows.ROWS["_unsafe_view"], rows.ROWS["expand"], rows.ROWS["view"], names=("matmul",))
