"""Three-operand pointwise ops of hand-written optimizers: addcmul (self + value * t1 * t2,
AddcmulBackward0), addcdiv (self + value * t1 / t2, AddcdivBackward0) and lerp (self +
weight * (end - self), LerpBackward0 for a number weight, LerpBackward1 for a tensor),
computed in ATen's order, with derivatives.yaml's gradients (and `_` variants)."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from .formulas import mul_scalar, rdiv_scalar, rsub_scalar
from .rows import expose


def _operands(*ts):
    ts = [as_tensor(t) for t in ts]
    shape = errors.broadcast_shapes(*(t.array.shape for t in ts))
    rd = ts[0].array.dtype
    for t in ts[1:]:
        rd = dtypes.promote(rd, t.array.dtype)
    return ts, shape, rd


def addcmul(a, tensor1, tensor2, value=1):
    (a, t1, t2), shape, rd = _operands(a, tensor1, tensor2)
    x, y, z = (t.array.astype(rd, copy=False) for t in (a, t1, t2))
    out = np.asarray(x + rd.type(value) * y * z if rd.kind == "f" else x + value * y * z, dtype=rd)
    return _ADDCMUL.record(np.broadcast_to(out, shape).copy(), (a, t1, t2), fargs=(value,))


def addcdiv(a, tensor1, tensor2, value=1):
    (a, t1, t2), shape, rd = _operands(a, tensor1, tensor2)
    if rd.kind != "f":
        raise errors.TorchRuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
            "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
            "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
            "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
            "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
            "for all dtypes."
        )
    x, y, z = (t.array.astype(rd, copy=False) for t in (a, t1, t2))
    with np.errstate(all="ignore"):
        out = np.asarray(x + rd.type(value) * y / z, dtype=rd)
    return _ADDCDIV.record(np.broadcast_to(out, shape).copy(), (a, t1, t2), fargs=(value,))


def _lerp(s, e, w):
    """ATen's lerp: self + weight * (end - self) for |weight| < 0.5, else end - (end -
    self) * (1 - weight)."""
    with np.errstate(all="ignore"):
        small = np.abs(w) < 0.5
        return np.where(small, s + w * (e - s), e - (e - s) * (1 - w))


def lerp(a, end, weight):
    a, end = as_tensor(a), as_tensor(end)
    if end.array.dtype != a.array.dtype:
        raise errors.TorchRuntimeError(
            f"expected dtype {errors.dtype_c_name(a.array.dtype)} for `end` but got dtype "
            f"{errors.dtype_c_name(end.array.dtype)}"
        )
    shape = errors.broadcast_shapes(a.array.shape, end.array.shape)
    rd = a.array.dtype
    if isinstance(weight, Tensor):
        if weight.array.dtype != rd:
            raise errors.TorchRuntimeError(
                f"expected dtype {errors.dtype_c_name(rd)} for `weight` but got dtype "
                f"{errors.dtype_c_name(weight.array.dtype)}"
            )
        shape = errors.broadcast_shapes(shape, weight.array.shape)
        out = _lerp(a.array, end.array, weight.array)
        return _LERP_TENSOR.record(np.broadcast_to(out, shape).astype(rd), (a, end, weight))
    out = _lerp(a.array, end.array, rd.type(weight))
    return _LERP.record(np.broadcast_to(out, shape).astype(rd), (a, end), fargs=(weight,))


_ADDCMUL = rows.text_row(
    "addcmul",
    "AddcmulBackward0",
    ("grad", "grad * tensor2 * value", "grad * tensor1 * value"),
    inputs=("self", "tensor1", "tensor2"),
    args=(("value", 1),),
    saves=("tensor1", "tensor2"),
    formulas=(
        lambda grad, self, tensor1, tensor2, result, value: grad,
        lambda grad, self, tensor1, tensor2, result, value: grad * mul_scalar(tensor2, value),
        lambda grad, self, tensor1, tensor2, result, value: grad * mul_scalar(tensor1, value),
    ),
)
_ADDCDIV = rows.text_row(
    "addcdiv",
    "AddcdivBackward0",
    ("grad", "grad * value / tensor2", "-grad * (value * tensor1 / (tensor2 * tensor2))"),
    inputs=("self", "tensor1", "tensor2"),
    args=(("value", 1),),
    saves=("tensor1", "tensor2"),
    formulas=(
        lambda grad, self, tensor1, tensor2, result, value: grad,
        lambda grad, self, tensor1, tensor2, result, value: grad * rdiv_scalar(value, tensor2),
        lambda grad, self, tensor1, tensor2, result, value: (
            -grad * (mul_scalar(tensor1, value) / (tensor2 * tensor2))
        ),
    ),
)
_LERP = rows.text_row(
    "lerp.Scalar",
    "LerpBackward0",
    ("grad * (1 - weight)", "grad * weight"),
    inputs=("self", "end"),
    args=(("weight", None),),
    formulas=(
        lambda grad, self, end, result, weight: mul_scalar(grad, 1 - weight),
        lambda grad, self, end, result, weight: mul_scalar(grad, weight),
    ),
)
_LERP_TENSOR = rows.text_row(
    "lerp.Tensor",
    "LerpBackward1",
    ("grad * (1 - weight)", "grad * weight", "grad * (end - self)"),
    inputs=("self", "end", "weight"),
    saves=("end", "self", "weight"),
    formulas=(
        lambda grad, self, end, weight, result: grad * rsub_scalar(1, weight),
        lambda grad, self, end, weight, result: grad * weight,
        lambda grad, self, end, weight, result: grad * (end - self),
    ),
)

expose(addcmul, _ADDCMUL, names=("addcmul",), inplace=True)
expose(addcdiv, _ADDCDIV, names=("addcdiv",), inplace=True)
expose(lerp, _LERP, _LERP_TENSOR, names=("lerp",), inplace=True)
