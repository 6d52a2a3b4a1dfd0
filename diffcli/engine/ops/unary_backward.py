"""The backward ops of unary rows, as PyTorch has them (tanh_backward, gelu_backward...):
each is an op of its own (TanhBackwardBackward0...) with its own derivative, so a gradient
taken under create_graph records what PyTorch records. Where a row in the scalar lane uses
one, its float version sits beside it, computed by the same function as its numpy kernel.

Other ops are reached through rows.TENSOR_NS (`_ops["sigmoid"]`): the op modules do not
import each other."""

from __future__ import annotations

import math

import numpy as np

from ..tensor import Tensor
from . import rows
from .formulas import add_scalar, mul_scalar, rdiv_scalar, rsub_scalar, zeros_like

_ops = rows.TENSOR_NS

SQRT_2_PI = math.sqrt(2.0 / math.pi)
SQRT1_2 = math.sqrt(0.5)
GELU_BETA = 2.0 / math.sqrt(math.pi) * SQRT1_2 * 0.5  # PyTorch's kBeta: 1/sqrt(2 pi)
GELU_KAPPA = 0.044715
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)  # erf's derivative: 2/sqrt(pi) exp(-x^2)
LN2, LN10 = math.log(2.0), math.log(10.0)

_erf_vec = np.vectorize(math.erf, otypes=[np.float64])


def erf(x):
    """The error function on an array (the C library's, as PyTorch's CPU kernel), in x's
    dtype (each value rounded to it), so that the arithmetic around it stays in x's dtype:
    float32 computed in float32, as PyTorch does."""
    x = np.asarray(x)
    return _erf_vec(x).astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)


def gelu(x):
    return x * 0.5 * (1.0 + erf(x * SQRT1_2))


def gelu_tanh(x):
    inner = SQRT_2_PI * (x + GELU_KAPPA * x**3)
    return 0.5 * x * (1 + np.tanh(inner))


def gelu_backward(g: Tensor, x: Tensor, approximate: str = "none") -> Tensor:
    """PyTorch's gelu_backward(grad, self) (GeluBackwardBackward0, saving both): g times
    gelu's derivative, computed as PyTorch's kernel does. Its derivatives: this op again
    in g, gelu_double_backward in x."""
    gd, xd = g.array, x.array
    if approximate == "tanh":
        x_sq = xd * xd
        t = np.tanh(SQRT_2_PI * (xd + GELU_KAPPA * (x_sq * xd)))
        left_derivative = 0.5 * (1 + t)
        right_derivative = 0.5 * xd * (1 - t * t) * (SQRT_2_PI * (1 + 3 * GELU_KAPPA * x_sq))
        out = gd * (left_derivative + right_derivative)
    else:
        cdf = 0.5 * (1.0 + erf(xd * SQRT1_2))
        pdf = GELU_BETA * np.exp(xd * xd * -0.5)
        out = gd * (cdf + xd * pdf)
    return _GELU_BW.record(np.asarray(out).astype(gd.dtype, copy=False), (g, x), fargs=(approximate,))


def gelu_double_backward(ggi: Tensor, go: Tensor, x: Tensor, approximate: str) -> Tensor:
    """PyTorch's gelu_double_backward: ggI * gO * gelu''(x), in its operations."""
    if approximate == "tanh":
        inner = mul_scalar(x + mul_scalar(_ops["pow"](x, 3), GELU_KAPPA), SQRT_2_PI)
        tanh_inner = _ops["tanh"](inner)
        sech_inner = rdiv_scalar(1.0, _ops["cosh"](inner))
        f = mul_scalar(x, 0.5)
        g = rsub_scalar(1.0, tanh_inner * tanh_inner)
        h = mul_scalar(add_scalar(mul_scalar(x, 3 * GELU_KAPPA) * x, 1.0), SQRT_2_PI)
        f_prime_gh = mul_scalar(g, 0.5) * h
        g_prime = mul_scalar(sech_inner, 2.0) * (-sech_inner * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = mul_scalar(mul_scalar(x, 6 * GELU_KAPPA), SQRT_2_PI)
        h_prime_fg = f * g * h_prime
        return ggi * go * (mul_scalar(f_prime_gh, 2.0) + g_prime_fh + h_prime_fg)
    input_sq = x * x
    pdf = mul_scalar(_ops["exp"](mul_scalar(input_sq, -0.5)), GELU_BETA)
    return ggi * go * (mul_scalar(pdf, 2.0) - input_sq * pdf)


def threshold_backward(g: Tensor, y: Tensor, threshold: float = 0.0) -> Tensor:
    """PyTorch's threshold_backward(grad, self, threshold): g where y > threshold, else 0.
    Recorded (ThresholdBackwardBackward0, saving y) so that relu's gradient requires grad
    under create_graph as PyTorch's does: d/dg is this op again, d/dy is zero."""
    out = np.where(y.array > threshold, g.array, 0).astype(g.array.dtype)
    return _THRESHOLD_BW.record(out, (g, y), fargs=(threshold,))


def _threshold_float(g, y, threshold=0.0):
    return g if y > threshold else 0.0


def softplus_backward(g: Tensor, x: Tensor, beta: float, threshold: float) -> Tensor:
    """PyTorch's softplus_backward (SoftplusBackwardBackward0, saving g and x): g where
    beta x > threshold, else g sigmoid(beta x). Its derivative in x is PyTorch's
    softplus_double_backward, zero from the threshold on (the threshold included)."""
    bx = x.array * beta
    z = np.exp(bx)
    out = np.where(bx > threshold, g.array, g.array * z / (z + 1)).astype(g.array.dtype)
    return _SOFTPLUS_BW.record(out, (g, x), fargs=(beta, threshold))


def softplus_double_backward(gg: Tensor, go: Tensor, s: Tensor, beta: float, threshold: float) -> Tensor:
    """PyTorch's softplus_double_backward(gg * go, x): sigmoid_backward(gg * go,
    sigmoid(beta x)) * (beta x < threshold) * beta."""
    bx = mul_scalar(s, beta)
    below = Tensor((bx.array < threshold).astype(gg.array.dtype))
    return mul_scalar(sigmoid_backward(gg * go, _ops["sigmoid"](bx)) * below, beta)


def elu_backward(g: Tensor, x: Tensor, alpha: float, scale: float = 1.0, input_scale: float = 1.0) -> Tensor:
    """PyTorch's elu_backward for an input (EluBackwardBackward0, saving g and x): g scale
    where x > 0, else g input_scale alpha scale exp(x input_scale) (elu: scales 1; selu
    and celu pass theirs). Its derivative in x is PyTorch's elu_double_backward, which is
    zero from x = 0 on (0 included)."""
    gd, xd = g.array, x.array
    if scale == 1.0 and input_scale == 1.0:
        out = np.where(xd > 0, gd, gd * alpha * np.exp(xd))
    else:
        out = np.where(xd > 0, gd * scale, gd * input_scale * (alpha * scale) * np.exp(xd * input_scale))
    return _ELU_BW.record(out.astype(gd.dtype), (g, x), fargs=(alpha, scale, input_scale))


def elu_double_backward(
    gg: Tensor, go: Tensor, s: Tensor, alpha: float, scale=1.0, input_scale=1.0
) -> Tensor:
    """PyTorch's elu_double_backward: elu_backward(gg * go * input_scale, x) * (x < 0)."""
    negative = Tensor((s.array < 0).astype(gg.array.dtype))
    return elu_backward(mul_scalar(gg * go, input_scale), s, alpha, scale, input_scale) * negative


def leaky_relu_backward(g: Tensor, x: Tensor, negative_slope: float) -> Tensor:
    """PyTorch's leaky_relu_backward (LeakyReluBackwardBackward0, saving x): g where
    x > 0, else g * negative_slope; d/dg is this op again, d/dx is zero."""
    gd = g.array
    out = np.where(x.array > 0, gd, gd * negative_slope).astype(gd.dtype)
    return _LEAKY_RELU_BW.record(out, (g, x), fargs=(negative_slope,))


def silu_backward(g: Tensor, x: Tensor) -> Tensor:
    """PyTorch's infinitely_differentiable_silu_backward (silu's formula under grad mode):
    g * sigmoid(x) * (1 + x * (1 - sigmoid(x))), one sigmoid."""
    s = _ops["sigmoid"](x)
    return g * s * add_scalar(x * rsub_scalar(1.0, s), 1.0)


def _tanh_backward_value(g, y):
    return g * (1 - y * y)


def tanh_backward(g: Tensor, y: Tensor) -> Tensor:
    """PyTorch's tanh_backward(grad, output) (TanhBackwardBackward0, saving both):
    g * (1 - y^2). Its derivatives: d/dg is this op again, d/dy is -2 y g."""
    return _TANH_BW.record(_tanh_backward_value(g.array, y.array), (g, y))


def _sigmoid_backward_value(g, y):
    return g * (1 - y) * y


def sigmoid_backward(g: Tensor, y: Tensor) -> Tensor:
    """PyTorch's sigmoid_backward(grad, output) (SigmoidBackwardBackward0, saving both):
    g (1 - y) y, in that order. Its derivatives: d/dg is this op again, d/dy is g (1 - 2 y)."""
    return _SIGMOID_BW.record(_sigmoid_backward_value(g.array, y.array), (g, y))


def sinc_backward(g: Tensor, x: Tensor) -> Tensor:
    """PyTorch's sinc_backward: g ((pi x) cos(pi x) - sin(pi x)) / (pi x^2), and 0 where
    pi x^2 is 0 (sinc is flat at 0)."""
    self_pi = mul_scalar(x, math.pi)
    self_squared_pi = mul_scalar(x * x, math.pi)
    out = g * ((self_pi * _ops["cos"](self_pi) - _ops["sin"](self_pi)) / self_squared_pi)
    return _ops["where"](self_squared_pi == 0.0, Tensor(np.zeros((), dtype=g.array.dtype)), out)


rows.helpers(
    tensor={
        "gelu_backward": gelu_backward,
        "threshold_backward": threshold_backward,
        "softplus_backward": softplus_backward,
        "elu_backward": elu_backward,
        "leaky_relu_backward": leaky_relu_backward,
        "silu_backward": silu_backward,
        "tanh_backward": tanh_backward,
        "sigmoid_backward": sigmoid_backward,
        "sinc_backward": sinc_backward,
        "gelu_double_backward": gelu_double_backward,
        "softplus_double_backward": softplus_double_backward,
        "elu_double_backward": elu_double_backward,
        "LN2": LN2,
        "LN10": LN10,
        "TWO_OVER_SQRT_PI": TWO_OVER_SQRT_PI,
    },
    floats={
        "threshold_backward": _threshold_float,
        "tanh_backward": _tanh_backward_value,
        "sigmoid_backward": _sigmoid_backward_value,
        "LN2": LN2,
        "LN10": LN10,
        "TWO_OVER_SQRT_PI": TWO_OVER_SQRT_PI,
    },
)


# --- the rows of the backward ops (nodes only the unary rows' formulas record, under
# create_graph): PyTorch's derivatives.yaml entries, both inputs' gradients in one joint
# formula, computed whichever requires grad (as diffcli has computed them); the
# texts are the vector-Jacobian products (gelu's: approximate='none')


def _backward_row(name, grad_fn, texts, joint, inputs, args=(), saves=None):
    return rows.text_row(
        name, grad_fn, texts, inputs=inputs, saves=inputs if saves is None else saves, args=args, joint=joint
    )


_GELU_BW = _backward_row(
    "gelu_backward",
    "GeluBackwardBackward0",
    (
        "grad * (0.5 * (1 + erf(self / sqrt(2.0))) + self * exp(-self**2 / 2) / sqrt(2 * pi))",
        "grad * grad_output * exp(-self**2 / 2) / sqrt(2 * pi) * (2 - self**2)",
    ),
    lambda grad, grad_output, self, result, approximate, needs: (
        gelu_backward(grad, self, approximate),
        gelu_double_backward(grad, grad_output, self, approximate),
    ),
    ("grad_output", "self"),
    args=(("approximate", "none"),),
)
_THRESHOLD_BW = _backward_row(
    "threshold_backward",
    "ThresholdBackwardBackward0",
    ("where(self > threshold, grad, 0.0)", "0"),
    lambda grad, grad_output, self, result, threshold, needs: (
        threshold_backward(grad, self, threshold),
        zeros_like(grad),
    ),
    ("grad_output", "self"),
    args=(("threshold", 0.0),),
    saves=("self",),
)
_SOFTPLUS_BW = _backward_row(
    "softplus_backward",
    "SoftplusBackwardBackward0",
    (
        "where(beta * self > threshold, grad, grad * sigmoid(beta * self))",
        "where(beta * self < threshold,"
        " grad * grad_output * beta * sigmoid(beta * self) * (1 - sigmoid(beta * self)), 0.0)",
    ),
    lambda grad, grad_output, self, result, beta, threshold, needs: (
        softplus_backward(grad, self, beta, threshold),
        softplus_double_backward(grad, grad_output, self, beta, threshold),
    ),
    ("grad_output", "self"),
    args=(("beta", 1.0), ("threshold", 20.0)),
)
_ELU_BW = _backward_row(
    "elu_backward",
    "EluBackwardBackward0",
    (
        "where(self_or_result > 0, grad * scale,"
        " grad * input_scale * alpha * scale * exp(self_or_result * input_scale))",
        "where(self_or_result < 0, grad * grad_output * input_scale * input_scale * alpha * scale"
        " * exp(self_or_result * input_scale), 0.0)",
    ),
    lambda grad, grad_output, self_or_result, result, alpha, scale, input_scale, needs: (
        elu_backward(grad, self_or_result, alpha, scale, input_scale),
        elu_double_backward(grad, grad_output, self_or_result, alpha, scale, input_scale),
    ),
    ("grad_output", "self_or_result"),
    args=(("alpha", 1.0), ("scale", 1.0), ("input_scale", 1.0)),
)
_LEAKY_RELU_BW = _backward_row(
    "leaky_relu_backward",
    "LeakyReluBackwardBackward0",
    ("where(self > 0, grad, grad * negative_slope)", "0"),
    lambda grad, grad_output, self, result, negative_slope, needs: (
        leaky_relu_backward(grad, self, negative_slope),
        zeros_like(grad),
    ),
    ("grad_output", "self"),
    args=(("negative_slope", 0.01),),
    saves=("self",),
)
_TANH_BW = _backward_row(
    "tanh_backward",
    "TanhBackwardBackward0",
    ("grad * (1 - output**2)", "-2 * output * grad_output * grad"),
    lambda grad, grad_output, output, result, needs: (
        tanh_backward(grad, output),
        grad * (mul_scalar(output, -2.0) * grad_output),
    ),
    ("grad_output", "output"),
)
_SIGMOID_BW = _backward_row(
    "sigmoid_backward",
    "SigmoidBackwardBackward0",
    ("grad * (1 - output) * output", "grad * grad_output * (1 - 2 * output)"),
    lambda grad, grad_output, output, result, needs: (
        sigmoid_backward(grad, output),
        grad * grad_output * add_scalar(mul_scalar(output, -2.0), 1.0),
    ),
    ("grad_output", "output"),
)
