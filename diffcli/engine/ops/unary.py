"""Elementwise unary ops: one row each (rows.py says what a row holds).

    sin = _row("sin", "SinBackward0", np.sin, lambda grad, self, result: grad * cos(self),
               "cos(self)", ("self",), lane=math.sin, inplace=True)

is the whole op: the engine function, its node, what it saves, its derivative (on Tensors,
and on floats in the scalar lane, where `cos` is the cos row's lane, math.cos), the text
an explanation prints, and its entries in the op table (`sin`, `Tensor.sin`, `sin_`).
(The rows with arguments, gelu, softplus, elu, leaky_relu and round: unary_args.py.)
A formula takes `grad, self, result` (and the row's args); its names are looked up in
rows.TENSOR_NS / rows.FLOAT_NS, which the imports below only mirror for the reader.

Lanes: math's (the C library's) forward where PyTorch's 0-d results are the C library's and
numpy's SIMD loops round differently (exp, log, tanh, sinh, cosh, asinh, acosh, atanh,
sigmoid, erf: tests/engine/test_scalar_lane.py pins torch's bits); NUMPY where PyTorch
agrees with numpy (expm1, log1p, atan); sin, cos and sqrt are the same in all three.
"""

from __future__ import annotations

import math

import numpy as np

from .. import errors
from . import unary_backward as B
from . import zero_d_math as Z
from .elementwise import unary
from .formulas import add_scalar, mul_scalar, rsub_scalar, sub_scalar, zeros_like
from .rows import NUMPY, D, Kink, Row
from .unary_backward import (
    LN2,
    LN10,
    TWO_OVER_SQRT_PI,
    sigmoid_backward,
    silu_backward,
    sinc_backward,
    tanh_backward,
    threshold_backward,
)
from .zero_d_math import at_0d, c_float, via_float64


def _relu(a):
    if a.dtype == np.bool_:
        raise errors.TorchRuntimeError("Boolean inputs not supported for relu")
    return np.where(a < 0, 0, a).astype(a.dtype)  # keeps -0.0 and nan, as PyTorch does


def _sigmoid_float(x):
    return 1.0 / (1.0 + math.exp(-x))


def _sign(a):
    """PyTorch's (0 < a) - (a < 0): 0 for nan (numpy's sign gives nan), -0.0 gives 0."""
    if a.dtype == np.bool_:
        return a.copy()
    s = np.sign(a)
    return np.where(np.isnan(s), 0, s).astype(a.dtype) if a.dtype.kind == "f" else s


def _sinc(x):
    """PyTorch's kernel: sin(pi x) / (pi x), 1 at 0."""
    product = np.pi * x
    return np.where(x == 0, 1.0, np.sin(product) / product)


def _row(name, grad_fn, forward, formula, text, saves=(), **kw):
    """A one-input row; the op is a Tensor method and a script function named `name`."""
    return unary(
        Row(
            name,
            grad_fn,
            forward,
            grads=(D(formula, text),),
            saves=saves,
            names=kw.pop("names", (name,)),
            **kw,
        )
    )


# --- kinks (rows.Kink): where these ops are not differentiable ----------------------------

AT_ZERO_SIGN = Kink("self == 0", lambda self, **_: self == 0, "0")
AT_ZERO_RELU = Kink("self == 0", lambda self, **_: self == 0, "0")
JUMP_SIGN = Kink("self == 0 (a jump)", lambda self, **_: self == 0, "0")
JUMP_INTEGERS = Kink("self is an integer (a jump)", lambda self, **_: np.floor(self) == self, "0")
JUMP_TRUNC = Kink(
    "self is a nonzero integer (a jump)", lambda self, **_: (np.floor(self) == self) & (self != 0), "0"
)


def _zero(grad, self, result):
    """Piecewise-constant ops (floor, sign...): PyTorch's zeros_like(grad)."""
    return zeros_like(grad)


# --- trigonometric and hyperbolic ---------------------------------------------------------

sin = _row(
    "sin",
    "SinBackward0",
    at_0d(np.sin, via_float64(np.sin)),
    lambda grad, self, result: grad * cos(self),
    "cos(self)",
    ("self",),
    lane=math.sin,
    inplace=True,
)
cos = _row(
    "cos",
    "CosBackward0",
    at_0d(np.cos, via_float64(np.cos)),
    lambda grad, self, result: grad * -sin(self),
    "-sin(self)",
    ("self",),
    lane=math.cos,
    inplace=True,
)
tan = _row(
    "tan",
    "TanBackward0",
    at_0d(np.tan, via_float64(np.tan)),
    lambda grad, self, result: grad * add_scalar(pow(result, 2), 1.0),
    "1 + tan(self)**2",
    ("result",),
    lane=math.tan,
    inplace=True,
)
asin = _row(
    "asin",
    "AsinBackward0",
    at_0d(np.arcsin, via_float64(np.arcsin)),
    lambda grad, self, result: grad * rsqrt(add_scalar(-self * self, 1.0)),
    "1 / sqrt(1 - self**2)",
    ("self",),
    names=("asin", "arcsin"),
)
acos = _row(
    "acos",
    "AcosBackward0",
    at_0d(np.arccos, c_float("acos", math.acos)),
    lambda grad, self, result: grad * -rsqrt(add_scalar(-self * self, 1.0)),
    "-1 / sqrt(1 - self**2)",
    ("self",),
    names=("acos", "arccos"),
)
atan = _row(
    "atan",
    "AtanBackward0",
    at_0d(np.arctan, c_float("atan", math.atan)),
    lambda grad, self, result: grad / add_scalar(self * self, 1.0),
    "1 / (1 + self**2)",
    ("self",),
    lane=NUMPY,
    names=("atan", "arctan"),
)
sinh = _row(
    "sinh",
    "SinhBackward0",
    at_0d(np.sinh, c_float("sinh", math.sinh)),
    lambda grad, self, result: grad * cosh(self),
    "cosh(self)",
    ("self",),
    lane=math.sinh,
)
cosh = _row(
    "cosh",
    "CoshBackward0",
    at_0d(np.cosh, c_float("cosh", math.cosh)),
    lambda grad, self, result: grad * sinh(self),
    "sinh(self)",
    ("self",),
    lane=math.cosh,
)
tanh = _row(
    "tanh",
    "TanhBackward0",
    at_0d(np.tanh, via_float64(np.tanh)),
    lambda grad, self, result: tanh_backward(grad, result),
    "1 - tanh(self)**2",
    ("result",),
    lane=math.tanh,
    inplace=True,
)
asinh = _row(
    "asinh",
    "AsinhBackward0",
    at_0d(np.arcsinh, c_float("asinh", math.asinh)),
    lambda grad, self, result: grad * rsqrt(add_scalar(pow(self, 2), 1.0)),
    "1 / sqrt(self**2 + 1)",
    ("self",),
    lane=math.asinh,
)
acosh = _row(
    "acosh",
    "AcoshBackward0",
    at_0d(np.arccosh, c_float("acosh", math.acosh)),
    lambda grad, self, result: grad * rsqrt(sub_scalar(self * self, 1.0)),
    "1 / sqrt(self**2 - 1)",
    ("self",),
    lane=math.acosh,
)
atanh = _row(
    "atanh",
    "AtanhBackward0",
    at_0d(np.arctanh, c_float("atanh", math.atanh)),
    lambda grad, self, result: mul_scalar(grad, 1.0) / rsub_scalar(1.0, pow(self, 2)),
    "1 / (1 - self**2)",
    ("self",),
    lane=math.atanh,
)

# --- exponentials, logarithms, powers --------------------------------------------------------

exp = _row(
    "exp",
    "ExpBackward0",
    at_0d(np.exp, via_float64(np.exp)),
    lambda grad, self, result: grad * result,
    "exp(self)",
    ("result",),
    lane=math.exp,
    inplace=True,
)
expm1 = _row(
    "expm1",
    "Expm1Backward0",
    at_0d(np.expm1, via_float64(np.expm1)),
    lambda grad, self, result: grad * add_scalar(result, 1.0),
    "exp(self)",
    ("result",),
    lane=NUMPY,
    inplace=True,
)
log = _row(
    "log",
    "LogBackward0",
    at_0d(np.log, via_float64(np.log)),
    lambda grad, self, result: grad / self,
    "1 / self",
    ("self",),
    lane=math.log,
    inplace=True,
)
log2 = _row(
    "log2",
    "Log2Backward0",
    at_0d(np.log2, via_float64(np.log2)),
    lambda grad, self, result: grad / mul_scalar(self, LN2),
    "1 / (self * log(2.0))",
    ("self",),
)
log10 = _row(
    "log10",
    "Log10Backward0",
    at_0d(np.log10, via_float64(np.log10)),
    lambda grad, self, result: grad / mul_scalar(self, LN10),
    "1 / (self * log(10.0))",
    ("self",),
)
log1p = _row(
    "log1p",
    "Log1PBackward0",
    at_0d(np.log1p, via_float64(np.log1p)),
    lambda grad, self, result: grad / add_scalar(self, 1.0),
    "1 / (1 + self)",
    ("self",),
    lane=NUMPY,
    inplace=True,
)
sqrt = _row(
    "sqrt",
    "SqrtBackward0",
    np.sqrt,
    lambda grad, self, result: grad / mul_scalar(result, 2.0),
    "1 / (2 * sqrt(self))",
    ("result",),
    lane=math.sqrt,
    inplace=True,
)
rsqrt = _row(
    "rsqrt",
    "RsqrtBackward0",
    lambda a: 1.0 / np.sqrt(a),
    lambda grad, self, result: mul_scalar(grad, -0.5) * pow(result, 3),
    "-0.5 * self**-1.5",
    ("result",),
    lane=lambda x: 1.0 / math.sqrt(x),
    inplace=True,
)
reciprocal = _row(
    "reciprocal",
    "ReciprocalBackward0",
    lambda a: 1.0 / a,
    lambda grad, self, result: -grad * (result * result),
    "-1 / self**2",
    ("result",),
    lane=NUMPY,
    inplace=True,
)
erf = _row(
    "erf",
    "ErfBackward0",
    B.erf,
    lambda grad, self, result: mul_scalar(exp(-pow(self, 2)), TWO_OVER_SQRT_PI) * grad,
    "2 / sqrt(pi) * exp(-self**2)",
    ("self",),
    lane=math.erf,
    inplace=True,
)
sinc = _row(
    "sinc",
    "SincBackward0",
    at_0d(_sinc, Z.sinc_f32),
    lambda grad, self, result: sinc_backward(grad, self),
    "where(self == 0, 0.0, (pi * self * cos(pi * self) - sin(pi * self)) / (pi * self**2))",
    ("self",),
    inplace=True,
)

# --- activations, sign, rounding ---------------------------------------------------------

abs = _row(
    "abs",
    "AbsBackward0",
    np.abs,
    lambda grad, self, result: grad * sign(self),
    "sign(self)",
    ("self",),
    kink=AT_ZERO_SIGN,
    keeps_dtype=True,
    no_kernel=("abs_cpu", "b"),
    names=("abs", "absolute"),
    inplace=True,
)
sign = _row("sign", "SignBackward0", _sign, _zero, "0", kink=JUMP_SIGN, keeps_dtype=True, inplace=True)
sigmoid = _row(
    "sigmoid",
    "SigmoidBackward0",
    at_0d(lambda a: 1.0 / (1.0 + np.exp(-a)), Z.sigmoid_f32),
    lambda grad, self, result: sigmoid_backward(grad, result),
    "sigmoid(self) * (1 - sigmoid(self))",
    ("result",),
    lane=_sigmoid_float,
    inplace=True,
)
relu = _row(
    "relu",
    "ReluBackward0",
    _relu,
    lambda grad, self, result: threshold_backward(grad, result, 0.0),
    "where(self > 0, 1.0, 0.0)",
    ("result",),
    kink=AT_ZERO_RELU,
    lane=NUMPY,
    keeps_dtype=True,
    inplace=True,
)
silu = _row(
    "silu",
    "SiluBackward0",
    at_0d(lambda a: a / (1.0 + np.exp(-a)), Z.silu_f32, Z.silu_f64),
    lambda grad, self, result: silu_backward(grad, self),
    "sigmoid(self) * (1 + self * (1 - sigmoid(self)))",
    ("self",),
    no_kernel=("silu_cpu", "biu"),
)
floor = _row(
    "floor",
    "FloorBackward0",
    np.floor,
    _zero,
    "0",
    kink=JUMP_INTEGERS,
    keeps_dtype=True,
    no_kernel=("floor_vml_cpu", "b"),
    inplace=True,
)
ceil = _row(
    "ceil",
    "CeilBackward0",
    np.ceil,
    _zero,
    "0",
    kink=JUMP_INTEGERS,
    keeps_dtype=True,
    no_kernel=("ceil_vml_cpu", "b"),
    inplace=True,
)
trunc = _row(
    "trunc",
    "TruncBackward0",
    np.trunc,
    _zero,
    "0",
    kink=JUMP_TRUNC,
    keeps_dtype=True,
    no_kernel=("trunc_vml_cpu", "b"),
    inplace=True,
)
