"""Matrix products with PyTorch's rank-dependent dispatch: mm, mv, dot, outer, bmm, and
matmul composed from them the way ATen composes it (so the graph shows the same nodes)."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import as_tensor
from . import rows
from . import shape as S
from .arithmetic import mul
from .rows import expose
from .shape import t, transpose


def _dtype_check(a, b, what="expected m1 and m2 to have the same dtype"):
    if a.array.dtype != b.array.dtype:
        raise errors.TorchRuntimeError(
            f"{what}, but got: {dtypes.c_name(a.array.dtype)} != {dtypes.c_name(b.array.dtype)}"
        )


def _no_bool_kernel(kernel, a):
    """The BLAS-backed products have no Bool kernel (the dtypes already agree)."""
    if a.array.dtype == np.bool_:
        raise errors.not_implemented(kernel, a.array.dtype)


def mm(a, b):
    a, b = as_tensor(a), as_tensor(b)
    if a.array.ndim != 2:
        raise errors.TorchRuntimeError("self must be a matrix")
    if b.array.ndim != 2:
        raise errors.TorchRuntimeError("mat2 must be a matrix")
    if a.array.shape[1] != b.array.shape[0]:
        raise errors.TorchRuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.array.shape[0]}x{a.array.shape[1]} "
            f"and {b.array.shape[0]}x{b.array.shape[1]})"
        )
    _dtype_check(a, b)
    _no_bool_kernel("addmm_impl_cpu_", a)
    out = a.array @ b.array
    return _MM.record(out, (a, b))


def mv(a, v):
    a, v = as_tensor(a), as_tensor(v)
    if a.array.ndim != 2 or v.array.ndim != 1:
        raise errors.TorchRuntimeError(
            f"vector + matrix @ vector expected, got 1, {a.array.ndim}, {v.array.ndim}"
        )
    if a.array.shape[1] != v.array.shape[0]:
        raise errors.TorchRuntimeError(
            f"size mismatch, got input ({a.array.shape[0]}), mat ({a.array.shape[0]}x{a.array.shape[1]}), "
            f"vec ({v.array.shape[0]})"
        )
    if a.array.dtype != v.array.dtype:  # mv is addmv_ into a result of vec's dtype
        r, m = errors.dtype_scalar_name(v.array.dtype), errors.dtype_scalar_name(a.array.dtype)
        raise errors.TorchRuntimeError(
            f"addmv input tensors must have the same dtype, but got {r}, {m}, and {r}"
        )
    _no_bool_kernel("addmv_impl_cpu", a)
    out = a.array @ v.array
    return _MV.record(out, (a, v))


def dot(a, b):
    a, b = as_tensor(a), as_tensor(b)
    if a.array.ndim != 1 or b.array.ndim != 1:
        raise errors.TorchRuntimeError(
            f"1D tensors expected, but got {a.array.ndim}D and {b.array.ndim}D tensors"
        )
    if a.array.shape[0] != b.array.shape[0]:
        raise errors.TorchRuntimeError(
            "inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number "
            "of elements, but got %d and %d elements respectively"
            % (a.array.shape[0], b.array.shape[0], a.array.shape[0], b.array.shape[0])
        )
    if a.array.dtype != b.array.dtype:
        raise errors.TorchRuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{errors.dtype_scalar_name(a.array.dtype)} and {errors.dtype_scalar_name(b.array.dtype)}"
        )
    _no_bool_kernel("dot", a)
    out = np.asarray(a.array @ b.array)
    return _DOT.record(out, (a, b))


def outer(a, b):
    a, b = as_tensor(a), as_tensor(b)
    for x, name in ((a, "self"), (b, "vec2")):
        if x.array.ndim != 1:
            raise errors.TorchRuntimeError(f"outer: Expected 1-D argument {name}, but got {x.array.ndim}-D")
    return mul(S.view(a, a.array.shape[0], 1), b)


def bmm(a, b):
    a, b = as_tensor(a), as_tensor(b)
    if a.array.ndim != 3 or b.array.ndim != 3:
        raise errors.TorchRuntimeError("batch1 must be a 3D tensor")
    if a.array.shape[0] != b.array.shape[0] or a.array.shape[2] != b.array.shape[1]:
        raise errors.TorchRuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{a.array.shape[0]}, {a.array.shape[2]}] but got: [{b.array.shape[0]}, {b.array.shape[1]}]."
        )
    if a.array.dtype != b.array.dtype:
        raise errors.TorchRuntimeError(
            f"expected scalar type {errors.dtype_scalar_name(a.array.dtype)} but found "
            f"{errors.dtype_scalar_name(b.array.dtype)}"
        )
    _no_bool_kernel("bmm", a)
    out = a.array @ b.array
    return _BMM.record(out, (a, b))


def _should_fold(a, b):
    """ATen's should_fold: fold the larger (>= 3-D) operand into a matrix and call mm/mv
    when the other one is 1-D or 2-D, if that needs no extra copy or the smaller operand
    requires grad."""
    a_larger = a.array.ndim >= b.array.ndim
    big = a.array if a_larger else np.swapaxes(b.array, -1, -2)
    small = b if a_larger else a
    if not (big.ndim >= 3 and small.array.ndim <= 2):
        return False
    if small.needs_grad:
        return True
    if a.array.ndim == 2:
        return False
    if big.size == 0:
        return True
    st, sh = big.strides, big.shape
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(big.ndim - 2))


def matmul(a, b):
    """ATen's _matmul_impl, op for op, so the graph shows PyTorch's nodes: dot, mv,
    unsqueeze+mm+squeeze, mm, a fold into mm/mv, or expand+reshape+bmm."""
    a, b = as_tensor(a), as_tensor(b)
    da, db = a.array.ndim, b.array.ndim
    if da == 0 or db == 0:
        raise errors.TorchRuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )
    if da == 1 and db == 1:
        return dot(a, b)
    if da == 2 and db == 1:
        return mv(a, b)
    if da == 1 and db == 2:
        if a.array.shape[0] != b.array.shape[0]:
            raise errors.TorchRuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{a.array.shape[0]} and "
                f"{b.array.shape[0]}x{b.array.shape[1]})"
            )
        res = mm(S.unsqueeze(a, 0), b)
        return rows.ROWS["squeeze_.dim"].record(res.array.reshape(res.array.shape[1:]), (res,), fargs=(0,))
    if da == 2 and db == 2:
        return mm(a, b)
    if _should_fold(a, b):
        transpose = db > da
        t1 = S.transpose(b, -1, -2) if transpose else a
        t2 = (S.t(a) if da == 2 else a) if transpose else b
        out_shape = t1.array.shape[:-1]
        folded = S.reshape(t1, -1, t1.array.shape[-1])
        if t2.array.ndim == 2:
            out = S._unsafe_view(mm(folded, t2), out_shape + (t2.array.shape[1],))
            return S.contiguous(S.transpose(out, -1, -2)) if transpose else out
        return S._unsafe_view(mv(folded, t2), out_shape)
    n = a.array.shape[-2] if da > 1 else 1
    m1 = a.array.shape[-1]
    batch1 = a.array.shape[:-2] if da > 2 else ()
    m2 = b.array.shape[-2] if db > 1 else b.array.shape[0]
    p = b.array.shape[-1] if db > 1 else 1
    batch2 = b.array.shape[:-2] if db > 2 else ()
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and a.needs_grad:
            return matmul(S.squeeze(a, 0), b)
        if batch2[0] == 1 and b.needs_grad:
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


# --- the rows: per op PyTorch's node, per input the gradient formula and the
# vector-Jacobian product an explanation shows. Each input's formula reads the other
# input, so PyTorch saves `mat2` only when `self` requires grad and `self` only when `mat2`
# does (an in-place change of the other one is then no version error), in PyTorch's
# unpack order (`saves`: which one a version error names) ---------------------------------

_MM = rows.text_row(
    "mm",
    "MmBackward0",
    ("grad @ mat2.t()", "self.t() @ grad"),
    inputs=("self", "mat2"),
    saves=("mat2", "self"),
    formulas=(
        lambda grad, self, mat2, result: mm(grad, t(mat2)),
        lambda grad, self, mat2, result: mm(t(self), grad),
    ),
)
_MV = rows.text_row(
    "mv",
    "MvBackward0",
    ("outer(grad, vec)", "self.t() @ grad"),
    inputs=("self", "vec"),
    saves=("self", "vec"),
    formulas=(
        lambda grad, self, vec, result: outer(grad, vec),
        lambda grad, self, vec, result: mv(t(self), grad),
    ),
)
_DOT = rows.text_row(
    "dot",
    "DotBackward0",
    ("grad * tensor", "grad * self"),
    inputs=("self", "tensor"),
    saves=("tensor", "self"),
    formulas=(
        lambda grad, self, tensor, result: grad * tensor,
        lambda grad, self, tensor, result: grad * self,
    ),
)
_BMM = rows.text_row(
    "bmm",
    "BmmBackward0",
    ("grad @ mat2.transpose(1, 2)", "self.transpose(1, 2) @ grad"),
    inputs=("self", "mat2"),
    saves=("mat2", "self"),
    formulas=(
        lambda grad, self, mat2, result: bmm(grad, transpose(mat2, 1, 2)),
        lambda grad, self, mat2, result: bmm(transpose(self, 1, 2), grad),
    ),
)
rows.helpers(tensor={"mm": mm, "mv": mv, "dot": dot, "bmm": bmm, "outer": outer})

expose(mm, _MM, names=("mm",))
expose(mv, _MV, names=("mv",))
expose(dot, _DOT, names=("dot",))
expose(bmm, _BMM, names=("bmm",))
# composites (as ATen's CompositeImplicitAutograd): the rows of the ops they record
expose(outer, rows.ROWS["view"], rows.ROWS["mul"], names=("outer",))
expose(
    matmul,
    _DOT,
    _MV,
    _MM,
    _BMM,
    rows.ROWS["unsqueeze"],
    rows.ROWS["squeeze_.dim"],
    rows.ROWS["_unsafe_view"],
    rows.ROWS["expand"],
    rows.ROWS["view"],
    names=("matmul",),
)
