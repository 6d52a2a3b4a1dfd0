"""The backward ops of the activations in activations.py, as PyTorch has them
(hardtanh_backward, hardshrink_backward, softshrink_backward, hardswish_backward,
log_sigmoid_backward, hardsigmoid_backward): each is an op of its own
(HardtanhBackwardBackward0...) with its own derivatives from derivatives.yaml, so a
gradient taken under create_graph records what PyTorch records. hardsigmoid_backward has
no derivative in PyTorch: under grad mode it records the NotImplemented node.

Other ops are reached through rows.TENSOR_NS (`_ops["sigmoid"]`)."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import rows
from .arithmetic import _not_implemented_node
from .formulas import div_scalar, rsub_scalar, sub_scalar, zeros_like

_ops = rows.TENSOR_NS
ONE_SIXTH = float(np.float32(1.0) / np.float32(6.0))  # PyTorch's kernel: scalar_t(1.0f / 6.0f)


def _masked(g: Tensor, keep) -> np.ndarray:
    return np.where(keep, g.array, 0).astype(g.array.dtype)


def hardtanh_backward(g: Tensor, x: Tensor, min_val: float, max_val: float) -> Tensor:
    """PyTorch's hardtanh_backward(grad, self, min_val, max_val): g strictly inside the
    bounds, 0 at and beyond them (HardtanhBackwardBackward0, saving self)."""
    out = _masked(g, (x.array > min_val) & (x.array < max_val))
    return _HARDTANH_BW.record(out, (g, x), fargs=(min_val, max_val))


def hardshrink_backward(g: Tensor, x: Tensor, lambd: float) -> Tensor:
    """PyTorch's hardshrink_backward: 0 where -lambd <= x <= lambd, else g."""
    out = _masked(g, ~((x.array >= -lambd) & (x.array <= lambd)))
    return _HARDSHRINK_BW.record(out, (g, x), fargs=(lambd,))


def softshrink_backward(g: Tensor, x: Tensor, lambd: float) -> Tensor:
    """PyTorch's softshrink_backward: 0 where -lambd <= x <= lambd, else g."""
    out = _masked(g, ~((x.array >= -lambd) & (x.array <= lambd)))
    return _SOFTSHRINK_BW.record(out, (g, x), fargs=(lambd,))


def hardswish_backward(g: Tensor, x: Tensor) -> Tensor:
    """PyTorch's hardswish_backward: 0 up to -3 (-3 included), g (x / 3 + 0.5) below 3,
    g from 3 on (HardswishBackwardBackward0, saving grad_output and self)."""
    gd, xd = g.array, x.array
    out = np.where(xd <= -3.0, 0.0, np.where(xd < 3.0, gd * (xd / 3.0 + 0.5), gd)).astype(gd.dtype)
    return _HARDSWISH_BW.record(out, (g, x))


def hardswish_double_backward(gg: Tensor, go: Tensor, x: Tensor) -> Tensor:
    """where(-3 < self < 3, grad * grad_output / 3, 0), in PyTorch's operations."""
    inside = Tensor((x.array > -3.0) & (x.array < 3.0))
    zero = Tensor(np.zeros((), dtype=x.array.dtype))
    return _ops["where"](inside, div_scalar(gg * go, 3.0), zero)


def hardsigmoid_backward(g: Tensor, x: Tensor) -> Tensor:
    """PyTorch's hardsigmoid_backward: g / 6 where -3 < x < 3, else 0. PyTorch has no
    derivative for it: under create_graph its node is NotImplemented. (1/6 is PyTorch's
    float constant 1.0f / 6.0f.)"""
    gd, xd = g.array, x.array
    out = np.where((xd > -3.0) & (xd < 3.0), gd * ONE_SIXTH, 0.0).astype(gd.dtype)
    return _not_implemented_node("hardsigmoid_backward", out, (g, x))


def log_sigmoid_backward(g: Tensor, x: Tensor) -> Tensor:
    """PyTorch's log_sigmoid_backward(grad, self, buffer) on CPU:
    g (max_deriv - sign z / (1 + z)), z = exp(-|x|) (LogSigmoidBackwardBackward0)."""
    gd, xd = g.array, x.array
    negative = xd < 0
    z = np.exp(-np.abs(xd))
    out = (gd * (np.where(negative, 1.0, 0.0) - np.where(negative, 1.0, -1.0) * (z / (1.0 + z)))).astype(
        gd.dtype
    )
    return _LOG_SIGMOID_BW.record(out, (g, x))


def log_sigmoid_double_backward(gg: Tensor, x: Tensor) -> Tensor:
    """PyTorch's log_sigmoid_double_backward(grad, input): grad * (z - 1) * z, z = sigmoid."""
    z = _ops["sigmoid"](x)
    return gg * sub_scalar(z, 1.0) * z


def mish_backward(g: Tensor, x: Tensor) -> Tensor:
    """PyTorch's infinitely_differentiable_mish_backward (mish's formula under grad mode):
    g (tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2)), sp = log1p(exp(x)) as PyTorch records it."""
    sigmoid = _ops["sigmoid"](x)
    tanh_softplus = _ops["tanh"](_ops["log1p"](_ops["exp"](x)))
    return g * (tanh_softplus + x * sigmoid * rsub_scalar(1.0, tanh_softplus * tanh_softplus))


rows.helpers(
    tensor={
        "hardtanh_backward": hardtanh_backward,
        "hardshrink_backward": hardshrink_backward,
        "softshrink_backward": softshrink_backward,
        "hardswish_backward": hardswish_backward,
        "hardsigmoid_backward": hardsigmoid_backward,
        "log_sigmoid_backward": log_sigmoid_backward,
        "mish_backward": mish_backward,
        "hardswish_double_backward": hardswish_double_backward,
        "log_sigmoid_double_backward": log_sigmoid_double_backward,
    }
)


def _backward_row(name, grad_fn, texts, joint, args=(), saves=("self",)):
    return rows.text_row(
        name, grad_fn, texts, inputs=("grad_output", "self"), saves=saves, args=args, joint=joint
    )


_HARDTANH_BW = _backward_row(
    "hardtanh_backward",
    "HardtanhBackwardBackward0",
    ("where(self <= min_val, 0.0, where(self >= max_val, 0.0, grad))", "0"),
    lambda grad, grad_output, self, result, min_val, max_val, needs: (
        hardtanh_backward(grad, self, min_val, max_val),
        zeros_like(grad),
    ),
    args=(("min_val", -1.0), ("max_val", 1.0)),
)
_HARDSHRINK_BW = _backward_row(
    "hardshrink_backward",
    "HardshrinkBackwardBackward0",
    ("where(abs(self) <= lambd, 0.0, grad)", "0"),
    lambda grad, grad_output, self, result, lambd, needs: (
        hardshrink_backward(grad, self, lambd),
        zeros_like(grad),
    ),
    args=(("lambd", 0.5),),
)
_SOFTSHRINK_BW = _backward_row(
    "softshrink_backward",
    "SoftshrinkBackwardBackward0",
    ("where(abs(self) <= lambd, 0.0, grad)", "0"),
    lambda grad, grad_output, self, result, lambd, needs: (
        softshrink_backward(grad, self, lambd),
        zeros_like(grad),
    ),
    args=(("lambd", 0.5),),
)
_HARDSWISH_BW = _backward_row(
    "hardswish_backward",
    "HardswishBackwardBackward0",
    (
        "where(self <= -3, 0.0, where(self < 3, grad * (self / 3 + 0.5), grad))",
        "where(abs(self) < 3, grad * grad_output / 3, 0.0)",
    ),
    lambda grad, grad_output, self, result, needs: (
        hardswish_backward(grad, self),
        hardswish_double_backward(grad, grad_output, self),
    ),
    saves=("grad_output", "self"),
)
_LOG_SIGMOID_BW = _backward_row(
    "log_sigmoid_backward",
    "LogSigmoidBackwardBackward0",
    ("grad * (1 - sigmoid(self))", "grad * grad_output * (sigmoid(self) - 1) * sigmoid(self)"),
    lambda grad, grad_output, self, result, needs: (
        log_sigmoid_backward(grad, self),
        log_sigmoid_double_backward(grad * grad_output, self),
    ),
    saves=("grad_output", "self"),
)
