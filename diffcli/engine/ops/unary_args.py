"""Elementwise unary ops with arguments, one row each (rows.py says what a row holds):
F.gelu(x, approximate=...), F.softplus(x, beta, threshold), torch.elu(x, alpha, scale,
input_scale) (F.elu; selu is elu with SELU's alpha and scale),
F.leaky_relu(x, negative_slope), and round(x) / round(x, decimals=...). The plain unary
ops are in unary.py."""

from __future__ import annotations

import numpy as np

from .. import errors
from . import unary_backward as B
from . import zero_d_math as Z
from .formulas import zeros_like
from .rows import Kink, expose
from .unary import _row, _zero
from .unary_backward import elu_backward, gelu_backward, leaky_relu_backward, softplus_backward

AT_ZERO_SLOPE = Kink("self == 0", lambda self, **_: self == 0, "negative_slope")
AT_ZERO_ELU = Kink(
    "self == 0 and alpha * input_scale != 1",
    lambda self, alpha, input_scale=1.0, **_: (self == 0) & (alpha * input_scale != 1),
    "alpha * scale * input_scale",
)
JUMP_HALVES = Kink(
    "self - floor(self) == 0.5 (a jump: round half to even)",
    lambda self, **_: self - np.floor(self) == 0.5,
    "0",
)
JUMP_HALVES_DECIMALS = Kink(
    "self * 10**decimals - floor(self * 10**decimals) == 0.5 (a jump)",
    lambda self, decimals, **_: (lambda y: y - np.floor(y) == 0.5)(self * 10.0**decimals),
    "0",
)


# --- rows with arguments (F.gelu(x, approximate=...), round(x, decimals=...)) ----------------


def _gelu_kernel(a, approximate):
    x = a.array
    if not x.ndim and x.dtype == Z.F32 and approximate == "none":
        return Z.gelu_f32(x[()])
    out = B.gelu(x) if approximate == "none" else B.gelu_tanh(x)
    return out.astype(x.dtype, copy=False)


def _softplus_kernel(a, beta, threshold):
    x = a.array
    if not x.ndim and x.dtype in (Z.F32, Z.F64):
        return (Z.softplus_f32 if x.dtype == Z.F32 else Z.softplus_f64)(x[()], beta, threshold)
    bx = x * beta
    out = np.where(bx > threshold, x, np.log1p(np.exp(np.minimum(bx, threshold))) / beta)
    return out.astype(x.dtype)


def _elu_kernel(a, alpha, scale=1.0, input_scale=1.0):
    x = a.array
    if scale != 1.0 or input_scale != 1.0:  # (torch.elu's scales; selu's)
        return np.where(x > 0, x * scale, np.expm1(x * input_scale) * (alpha * scale)).astype(x.dtype)
    if not x.ndim and x.dtype in (Z.F32, Z.F64):
        return (Z.elu_f32 if x.dtype == Z.F32 else Z.elu_f64)(x[()], alpha)
    return np.where(x > 0, x, alpha * np.expm1(x)).astype(x.dtype)


def _leaky_relu_kernel(a, negative_slope):
    x = a.array
    return np.where(x > 0, x, x * negative_slope).astype(x.dtype)


_GELU_TEXT = (
    "(0.5 * (1 + erf(self / sqrt(2.0))) + self * exp(-self**2 / 2) / sqrt(2 * pi)"
    " if approximate == 'none' else 0.5 * (1 + tanh(sqrt(2 / pi) * (self + 0.044715 * self**3)))"
    " + 0.5 * self * (1 - tanh(sqrt(2 / pi) * (self + 0.044715 * self**3))**2)"
    " * sqrt(2 / pi) * (1 + 3 * 0.044715 * self**2))"
)

gelu = _row(
    "gelu",
    "GeluBackward0",
    None,
    lambda grad, self, result, approximate: gelu_backward(grad, self, approximate),
    _GELU_TEXT,
    ("self",),
    args=(("approximate", "none"),),
    kernel=_gelu_kernel,
    no_kernel=("GeluKernelImpl", "biu"),
    method=False,
)
softplus = _row(
    "softplus",
    "SoftplusBackward0",
    None,
    lambda grad, self, result, beta, threshold: softplus_backward(grad, self, beta, threshold),
    "where(beta * self > threshold, 1.0, sigmoid(beta * self))",
    ("self",),
    args=(("beta", 1.0), ("threshold", 20.0)),
    kernel=_softplus_kernel,
    no_kernel=("softplus_cpu", "biu"),
    method=False,
)
elu = _row(
    "elu",
    "EluBackward0",
    None,
    lambda grad, self, result, alpha, scale, input_scale: elu_backward(grad, self, alpha, scale, input_scale),
    "where(self > 0, scale, alpha * scale * input_scale * exp(self * input_scale))",
    ("self",),
    args=(("alpha", 1.0), ("scale", 1.0), ("input_scale", 1.0)),
    kink=AT_ZERO_ELU,
    kernel=_elu_kernel,
    no_kernel=("elu_cpu", "biu"),
    method=False,
)
leaky_relu = _row(
    "leaky_relu",
    "LeakyReluBackward0",
    None,
    lambda grad, self, result, negative_slope: leaky_relu_backward(grad, self, negative_slope),
    "where(self > 0, 1.0, negative_slope)",
    ("self",),
    args=(("negative_slope", 0.01),),
    kink=AT_ZERO_SLOPE,
    kernel=_leaky_relu_kernel,
    no_kernel=("leaky_relu_cpu", "biu"),
    method=False,
)


def _round_decimals_kernel(a, decimals):
    if a.array.dtype.kind != "f":
        raise errors.not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", a.array.dtype)
    return np.round(a.array, decimals)


round_ = _row(
    "round",
    "RoundBackward0",
    np.round,
    _zero,
    "0",
    kink=JUMP_HALVES,
    keeps_dtype=True,
    no_kernel=("round_vml_cpu", "b"),
    names=(),
)
_round_decimals = _row(
    "round.decimals",
    "RoundBackward1",
    None,
    lambda grad, self, result, decimals: zeros_like(grad),
    "0",
    args=(("decimals", 0),),
    kernel=_round_decimals_kernel,
    kink=JUMP_HALVES_DECIMALS,
    names=(),
)


def round(a, decimals=None):
    """`round(a)` is RoundBackward0; any `decimals=` (even 0) is PyTorch's round.decimals
    overload, RoundBackward1, with no integer kernel."""
    if decimals is None:
        return round_(a)
    return _round_decimals(a, decimals)


expose(round, round_.row, _round_decimals.row, names=("round",), inplace=True)
