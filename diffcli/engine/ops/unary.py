"""Elementwise unary ops as one table: name -> (grad_fn, numpy forward, backward, saves).

`backward(g, x, y)` gets the upstream gradient, the input and the output (whichever the
row saves; the other is None) and returns the input's gradient in Tensor ops. `formula`
is the local derivative as text, for explanations.
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..function import F64, OUT, as_tensor, record, record_scalar
from ..tensor import Tensor

_SQRT_2_PI = math.sqrt(2.0 / math.pi)


def _erf(x):
    """erf elementwise in x's dtype (each value rounded to it), so that the arithmetic
    around it stays in x's dtype: float32 computed in float32, as PyTorch does."""
    v = np.vectorize(math.erf, otypes=[np.float64])
    x = np.asarray(x)
    return v(x).astype(x.dtype if x.dtype.kind == "f" else np.float64, copy=False)


_SQRT1_2 = math.sqrt(0.5)
_GELU_BETA = 2.0 / math.sqrt(math.pi) * _SQRT1_2 * 0.5  # PyTorch's kBeta: 1/sqrt(2 pi)


def _gelu(x):
    return x * 0.5 * (1.0 + _erf(x * _SQRT1_2))


_GELU_KAPPA = 0.044715


def gelu_backward(g: Tensor, x: Tensor, approximate: str = "none") -> Tensor:
    """PyTorch's gelu_backward(grad, self) (GeluBackwardBackward0, saving both): g times
    gelu's derivative, computed as PyTorch's kernel does. Its derivatives: this op again
    in g, gelu_double_backward in x."""
    gd, xd = g.data_, x.data_
    with np.errstate(all="ignore"):
        if approximate == "tanh":
            x_sq = xd * xd
            t = np.tanh(_SQRT_2_PI * (xd + _GELU_KAPPA * (x_sq * xd)))
            left_derivative = 0.5 * (1 + t)
            right_derivative = 0.5 * xd * (1 - t * t) * (_SQRT_2_PI * (1 + 3 * _GELU_KAPPA * x_sq))
            out = gd * (left_derivative + right_derivative)
        else:
            cdf = 0.5 * (1.0 + _erf(xd * _SQRT1_2))
            pdf = _GELU_BETA * np.exp(xd * xd * -0.5)
            out = gd * (cdf + xd * pdf)

    def backward(gg, go, s):
        return gelu_backward(gg, s, approximate), _gelu_double_backward(gg, go, s, approximate)
    return record("GeluBackwardBackward0", np.asarray(out).astype(gd.dtype, copy=False), (g, x), backward,
                  (g, x))


def _gelu_double_backward(ggi: Tensor, go: Tensor, x: Tensor, approximate: str) -> Tensor:
    """PyTorch's gelu_double_backward: ggI * gO * gelu''(x), in its operations."""
    if approximate == "tanh":
        inner = _mul_scalar(x + _mul_scalar(_pow(x, 3), _GELU_KAPPA), _SQRT_2_PI)
        tanh_inner = tanh(inner)
        sech_inner = _rdiv_scalar(1.0, cosh(inner))
        f = _mul_scalar(x, 0.5)
        g = _rsub_scalar(1.0, tanh_inner * tanh_inner)
        h = _mul_scalar(_add_scalar(_mul_scalar(x, 3 * _GELU_KAPPA) * x, 1.0), _SQRT_2_PI)
        f_prime_gh = _mul_scalar(g, 0.5) * h
        g_prime = _mul_scalar(sech_inner, 2.0) * (-sech_inner * tanh_inner) * h
        g_prime_fh = f * h * g_prime
        h_prime = _mul_scalar(_mul_scalar(x, 6 * _GELU_KAPPA), _SQRT_2_PI)
        h_prime_fg = f * g * h_prime
        return ggi * go * (_mul_scalar(f_prime_gh, 2.0) + g_prime_fh + h_prime_fg)
    input_sq = x * x
    pdf = _mul_scalar(exp(_mul_scalar(input_sq, -0.5)), _GELU_BETA)
    return ggi * go * (_mul_scalar(pdf, 2.0) - input_sq * pdf)


def _relu(a):
    if a.dtype == np.bool_:
        raise errors.TorchRuntimeError("Boolean inputs not supported for relu")
    return np.where(a < 0, 0, a).astype(a.dtype)  # keeps -0.0 and nan, as PyTorch does


def _zeros_like(t: Tensor) -> Tensor:
    """PyTorch's zeros_like(grad) in a formula: a constant, so it never requires grad."""
    return Tensor(np.zeros_like(t.data_))


def _zero(g, x, y):
    """The gradient of a piecewise-constant op (floor, sign...): zeros_like(grad), +0.
    everywhere and no grad_fn even under create_graph, as in PyTorch."""
    return _zeros_like(g)


def threshold_backward(g: Tensor, y: Tensor, threshold: float = 0.0) -> Tensor:
    """PyTorch's threshold_backward(grad, self, threshold): g where y > threshold, else 0.
    Recorded (ThresholdBackwardBackward0, saving y) so that relu's gradient requires grad
    under create_graph as PyTorch's does: d/dg is this op again, d/dy is zero."""
    out = np.where(y.data_ > threshold, g.data_, 0).astype(g.data_.dtype)
    return record("ThresholdBackwardBackward0", out, (g, y),
                  lambda gg, s: (threshold_backward(gg, s, threshold), _zeros_like(gg)), (y,))


def softplus_backward(g: Tensor, x: Tensor, beta: float, threshold: float) -> Tensor:
    """PyTorch's softplus_backward (SoftplusBackwardBackward0, saving g and x): g where
    beta x > threshold, else g sigmoid(beta x). Its derivative in x is PyTorch's
    softplus_double_backward, zero from the threshold on (the threshold included)."""
    bx = x.data_ * beta
    with np.errstate(over="ignore"):
        z = np.exp(bx)
        out = np.where(bx > threshold, g.data_, g.data_ * z / (z + 1)).astype(g.data_.dtype)

    def backward(gg, go, s):
        # PyTorch's softplus_double_backward(gg * go, x): sigmoid_backward(gg * go,
        # sigmoid(beta x)) * (beta x < threshold) * beta
        bx = _mul_scalar(s, beta)
        below = Tensor((bx.data_ < threshold).astype(gg.data_.dtype))
        return (softplus_backward(gg, s, beta, threshold),
                _mul_scalar(sigmoid_backward(gg * go, sigmoid(bx)) * below, beta))
    return record("SoftplusBackwardBackward0", out, (g, x), backward, (g, x))


def elu_backward(g: Tensor, x: Tensor, alpha: float) -> Tensor:
    """PyTorch's elu_backward for an input (EluBackwardBackward0, saving g and x): g where
    x > 0, else g alpha exp(x). Its derivative in x is PyTorch's elu_double_backward,
    which is zero from x = 0 on (0 included)."""
    gd = g.data_
    with np.errstate(over="ignore"):
        out = np.where(x.data_ > 0, gd, gd * alpha * np.exp(x.data_)).astype(gd.dtype)

    def backward(gg, go, s):
        # PyTorch's elu_double_backward: elu_backward(gg * go * input_scale, x) * (x < 0)
        negative = Tensor((s.data_ < 0).astype(gg.data_.dtype))
        return elu_backward(gg, s, alpha), elu_backward(_mul_scalar(gg * go, 1.0), s, alpha) * negative
    return record("EluBackwardBackward0", out, (g, x), backward, (g, x))


def leaky_relu_backward(g: Tensor, x: Tensor, negative_slope: float) -> Tensor:
    """PyTorch's leaky_relu_backward (LeakyReluBackwardBackward0, saving x): g where
    x > 0, else g * negative_slope; d/dg is this op again, d/dx is zero."""
    gd = g.data_
    out = np.where(x.data_ > 0, gd, gd * negative_slope).astype(gd.dtype)
    return record("LeakyReluBackwardBackward0", out, (g, x),
                  lambda gg, s: (leaky_relu_backward(gg, s, negative_slope), _zeros_like(gg)), (x,))


def _mul_scalar(t: Tensor, c: float) -> Tensor:
    """Tensor * Scalar inside a PyTorch formula: MulBackward1, one input."""
    from .arithmetic import mul_scalar
    return mul_scalar(t, c)


def _add_scalar(t: Tensor, c: float) -> Tensor:
    """Tensor + Scalar inside a PyTorch formula: AddBackward1, one input."""
    out = (t.data_ + c).astype(t.data_.dtype, copy=False)
    return record("AddBackward1", out, (t,), lambda g: (g,))


def _sub_scalar(t: Tensor, c: float) -> Tensor:
    """Tensor - Scalar inside a PyTorch formula: SubBackward1, one input."""
    out = (t.data_ - c).astype(t.data_.dtype, copy=False)
    return record("SubBackward1", out, (t,), lambda g: (g,))


def _rsub_scalar(c: float, t: Tensor) -> Tensor:
    """Scalar - Tensor inside a PyTorch formula (ATen fills a tensor with the scalar and
    subtracts in place): SubBackward0, its first input a constant."""
    out = (c - t.data_).astype(t.data_.dtype, copy=False)
    return record("SubBackward0", out, (None, t), lambda g: (None, -g))


def _rdiv_scalar(c: float, t: Tensor) -> Tensor:
    """Scalar / Tensor inside a PyTorch formula: DivBackward0, its first input a constant."""
    with np.errstate(all="ignore"):
        out = (c / t.data_).astype(t.data_.dtype, copy=False)
    return record("DivBackward0", out, (None, t), lambda g, q: (None, -g * c / (q * q)), (t,))


def _pow(x: Tensor, e: int) -> Tensor:
    """x.pow(e) inside a PyTorch formula (PowBackward0)."""
    from .arithmetic import pow
    return pow(x, e)


def _asin_grad(x: Tensor) -> Tensor:
    """asin's (and, negated, acos's) local derivative as PyTorch's formula records it:
    (-x * x + 1).rsqrt()."""
    return rsqrt(_add_scalar(-x * x, 1.0))




def _silu_backward(g: Tensor, x: Tensor) -> Tensor:
    """PyTorch's infinitely_differentiable_silu_backward (silu's formula under grad mode):
    g * sigmoid(x) * (1 + x * (1 - sigmoid(x))), one sigmoid."""
    s = sigmoid(x)
    return g * s * _add_scalar(x * _rsub_scalar(1.0, s), 1.0)


def tanh_backward(g: Tensor, y: Tensor) -> Tensor:
    """PyTorch's tanh_backward(grad, output) (TanhBackwardBackward0, saving both):
    g * (1 - y^2). Its derivatives: d/dg is this op again, d/dy is -2 y g."""
    out = g.data_ * (1 - y.data_ * y.data_)

    def backward(gg, go, s):
        return tanh_backward(gg, s), gg * (_mul_scalar(s, -2.0) * go)
    return record("TanhBackwardBackward0", out, (g, y), backward, (g, y))


def sigmoid_backward(g: Tensor, y: Tensor) -> Tensor:
    """PyTorch's sigmoid_backward(grad, output) (SigmoidBackwardBackward0, saving both):
    g (1 - y) y, in that order. Its derivatives: d/dg is this op again, d/dy is g (1 - 2 y)."""
    out = g.data_ * (1 - y.data_) * y.data_

    def backward(gg, go, s):
        return sigmoid_backward(gg, s), gg * go * _add_scalar(_mul_scalar(s, -2.0), 1.0)
    return record("SigmoidBackwardBackward0", out, (g, y), backward, (g, y))


# name: (grad_fn, forward, backward(g, x, y), saves, formula)
UNARY = {
    "sin": ("SinBackward0", np.sin, lambda g, x, y: g * cos(x), "x", "cos(x)"),
    "cos": ("CosBackward0", np.cos, lambda g, x, y: g * -sin(x), "x", "-sin(x)"),
    "tan": ("TanBackward0", np.tan, lambda g, x, y: g * _add_scalar(_pow(y, 2), 1.0), "y", "1 + tan(x)^2"),
    "asin": ("AsinBackward0", np.arcsin, lambda g, x, y: g * _asin_grad(x), "x", "1/sqrt(1-x^2)"),
    "acos": ("AcosBackward0", np.arccos, lambda g, x, y: g * -_asin_grad(x), "x", "-1/sqrt(1-x^2)"),
    "atan": ("AtanBackward0", np.arctan, lambda g, x, y: g / _add_scalar(x * x, 1.0), "x", "1/(1+x^2)"),
    "sinh": ("SinhBackward0", np.sinh, lambda g, x, y: g * cosh(x), "x", "cosh(x)"),
    "cosh": ("CoshBackward0", np.cosh, lambda g, x, y: g * sinh(x), "x", "sinh(x)"),
    "tanh": ("TanhBackward0", np.tanh, lambda g, x, y: tanh_backward(g, y), "y", "1 - tanh(x)^2"),
    "asinh": ("AsinhBackward0", np.arcsinh, lambda g, x, y: g * rsqrt(_add_scalar(_pow(x, 2), 1.0)), "x", "1/sqrt(x^2+1)"),
    "acosh": ("AcoshBackward0", np.arccosh, lambda g, x, y: g * rsqrt(_sub_scalar(x * x, 1.0)), "x", "1/sqrt(x^2-1)"),
    "atanh": ("AtanhBackward0", np.arctanh, lambda g, x, y: _mul_scalar(g, 1.0) / _rsub_scalar(1.0, _pow(x, 2)), "x", "1/(1-x^2)"),
    "exp": ("ExpBackward0", np.exp, lambda g, x, y: g * y, "y", "exp(x)"),
    "expm1": ("Expm1Backward0", np.expm1, lambda g, x, y: g * _add_scalar(y, 1.0), "y", "exp(x)"),
    "log": ("LogBackward0", np.log, lambda g, x, y: g / x, "x", "1/x"),
    "log2": ("Log2Backward0", np.log2, lambda g, x, y: g / _mul_scalar(x, math.log(2.0)), "x", "1/(x ln 2)"),
    "log10": ("Log10Backward0", np.log10, lambda g, x, y: g / _mul_scalar(x, math.log(10.0)), "x", "1/(x ln 10)"),
    "log1p": ("Log1PBackward0", np.log1p, lambda g, x, y: g / _add_scalar(x, 1.0), "x", "1/(1+x)"),
    "sqrt": ("SqrtBackward0", np.sqrt, lambda g, x, y: g / _mul_scalar(y, 2.0), "y", "1/(2 sqrt(x))"),
    "rsqrt": ("RsqrtBackward0", lambda a: 1.0 / np.sqrt(a), lambda g, x, y: _mul_scalar(g, -0.5) * _pow(y, 3), "y", "-1/(2 x^1.5)"),
    "reciprocal": ("ReciprocalBackward0", lambda a: 1.0 / a, lambda g, x, y: -g * (y * y), "y", "-1/x^2"),
    "abs": ("AbsBackward0", np.abs, lambda g, x, y: g * sign(x), "x", "sign(x)"),
    "sign": ("SignBackward0", lambda a: a.copy() if a.dtype == np.bool_ else np.sign(a), _zero, "", "0"),
    "sigmoid": ("SigmoidBackward0", lambda a: 1.0 / (1.0 + np.exp(-a)), lambda g, x, y: sigmoid_backward(g, y), "y", "s(x)(1-s(x))"),
    "relu": ("ReluBackward0", _relu, lambda g, x, y: threshold_backward(g, y), "y", "1 if x > 0 else 0"),
    "gelu": ("GeluBackward0", _gelu, lambda g, x, y: gelu_backward(g, x), "x", "Phi(x) + x phi(x)"),
    "silu": ("SiluBackward0", lambda a: a / (1.0 + np.exp(-a)), lambda g, x, y: _silu_backward(g, x), "x", "s(x)(1 + x(1-s(x)))"),
    "floor": ("FloorBackward0", np.floor, _zero, "", "0"),
    "ceil": ("CeilBackward0", np.ceil, _zero, "", "0"),
    "round": ("RoundBackward0", np.round, _zero, "", "0"),
    "trunc": ("TruncBackward0", np.trunc, _zero, "", "0"),
}

# ops that keep an integer or bool input's dtype (the others compute in the default float)
_KEEP_DTYPE = {"floor", "ceil", "round", "trunc", "abs", "sign", "relu"}

# PyTorch's CPU kernels that have no version for some dtypes: name -> (kernel, numpy
# dtype kinds refused); they raise NotImplementedError with the kernel's name
_NO_KERNEL = {
    "abs": ("abs_cpu", "b"), "floor": ("floor_vml_cpu", "b"), "ceil": ("ceil_vml_cpu", "b"),
    "round": ("round_vml_cpu", "b"), "trunc": ("trunc_vml_cpu", "b"),
    "gelu": ("GeluKernelImpl", "biu"), "silu": ("silu_cpu", "biu"),
    "softplus": ("softplus_cpu", "biu"), "elu": ("elu_cpu", "biu"),
    "leaky_relu": ("leaky_relu_cpu", "biu"),
}


def _check_kernel(name, x: np.ndarray) -> None:
    refused = _NO_KERNEL.get(name)
    if refused is not None and x.dtype.kind in refused[1]:
        raise errors.not_implemented(refused[0], x.dtype)


def _float_fwd(f):
    """A forward on Python floats; None where math raises (numpy then computes)."""
    def fwd(x):
        try:
            return f(x)
        except (ValueError, ArithmeticError):
            return None
    return fwd


def _sigmoid_float(x):
    return 1.0 / (1.0 + math.exp(-x))


# The scalar lane (see arithmetic.py): name -> (forward on a float or None for numpy's,
# backward on floats (g, x, y) -> (grad,)), each the UNARY row's formula in the same order
# of operations, so that the gradient is bitwise the ordinary path's. Forwards: math's
# (the C library's) where PyTorch's 0-d results are the C library's and numpy's SIMD
# loops round differently (exp, log, tanh, sinh, cosh, asinh, acosh, atanh, sigmoid:
# tests/engine/test_scalar_lane.py pins torch's bits); numpy's where PyTorch agrees with
# numpy (expm1, log1p, atan); sin, cos and sqrt are the same in all three.
_LANE = {
    "sin": (_float_fwd(math.sin), lambda g, x, y: (g * math.cos(x),)),
    "cos": (_float_fwd(math.cos), lambda g, x, y: (g * -math.sin(x),)),
    "tan": (_float_fwd(math.tan), lambda g, x, y: (g * (1 + y * y),)),
    "atan": (None, lambda g, x, y: (g / (1 + x * x),)),
    "sinh": (_float_fwd(math.sinh), lambda g, x, y: (g * math.cosh(x),)),
    "cosh": (_float_fwd(math.cosh), lambda g, x, y: (g * math.sinh(x),)),
    "tanh": (_float_fwd(math.tanh), lambda g, x, y: (g * (1 - y * y),)),
    "asinh": (_float_fwd(math.asinh), lambda g, x, y: (g * (1.0 / math.sqrt(x * x + 1.0)),)),
    "acosh": (_float_fwd(math.acosh), lambda g, x, y: (g * (1.0 / math.sqrt(x * x - 1.0)),)),
    "atanh": (_float_fwd(math.atanh), lambda g, x, y: (g * 1.0 / (1.0 - x * x),)),
    "exp": (_float_fwd(math.exp), lambda g, x, y: (g * y,)),
    "expm1": (None, lambda g, x, y: (g * (y + 1),)),
    "log": (_float_fwd(math.log), lambda g, x, y: (g / x,)),
    "log1p": (None, lambda g, x, y: (g / (x + 1),)),
    "sqrt": (_float_fwd(math.sqrt), lambda g, x, y: (g / (2 * y),)),
    "reciprocal": (None, lambda g, x, y: (-g * (y * y),)),
    "sigmoid": (_float_fwd(_sigmoid_float), lambda g, x, y: (g * (1 - y) * y,)),
    "relu": (None, lambda g, x, y: (g if y > 0.0 else 0.0,)),
}


def _make(name):
    grad_fn, forward, backward, saves, _ = UNARY[name]
    lane = _LANE.get(name)
    fwd, fast = lane if lane is not None else (None, None)
    # the backward formula as a node calls it: (g, *saved, *fargs), made once per op
    if saves == "x":
        def slow(g, p, *_):
            return (backward(g, p, None),)
    elif saves == "y":
        def slow(g, r, *_):
            return (backward(g, None, r),)
    else:
        def slow(g, *_):
            return (backward(g, None, None),)

    def op(a):
        if lane is not None and a.__class__ is Tensor:
            x = a.data_
            if x.dtype is F64 and not x.ndim:  # the scalar lane
                xf = float(x)
                v = fwd(xf) if fwd is not None else None
                if v is None:
                    v = forward(x)
                return record_scalar(grad_fn, v, (a,), slow, (a,) if saves == "x" else (OUT,),
                                     fast, (xf, float(v)))
        a = as_tensor(a)
        x = a.data_
        if name in _NO_KERNEL:
            _check_kernel(name, x)
        if x.dtype.kind != "f" and name not in _KEEP_DTYPE:
            x = x.astype(dtypes.default_float())
        out = forward(x)  # numpy errors are ignored engine-wide (engine/__init__.py)
        if out.dtype != x.dtype:
            out = out.astype(x.dtype)
        return record(grad_fn, out, (a,), slow, (a,) if saves == "x" else (OUT,) if saves == "y" else ())

    op.__name__ = name
    op.__doc__ = f"{name}(x); local derivative {UNARY[name][4]}; grad_fn {grad_fn}"
    return op


sin = _make("sin"); cos = _make("cos"); tan = _make("tan")
asin = _make("asin"); acos = _make("acos"); atan = _make("atan")
sinh = _make("sinh"); cosh = _make("cosh"); tanh = _make("tanh")
asinh = _make("asinh"); acosh = _make("acosh"); atanh = _make("atanh")
exp = _make("exp"); expm1 = _make("expm1")
log = _make("log"); log2 = _make("log2"); log10 = _make("log10"); log1p = _make("log1p")
sqrt = _make("sqrt"); rsqrt = _make("rsqrt"); reciprocal = _make("reciprocal")
abs = _make("abs"); sign = _make("sign")
sigmoid = _make("sigmoid"); relu = _make("relu"); gelu_exact = _make("gelu"); silu = _make("silu")
floor = _make("floor"); ceil = _make("ceil"); round_ = _make("round"); trunc = _make("trunc")


def round(a, decimals=None):
    """`round(a)` is RoundBackward0; any `decimals=` (even 0) is PyTorch's round.decimals
    overload, RoundBackward1, with no integer kernel."""
    if decimals is None:
        return round_(a)
    a = as_tensor(a)
    if a.data_.dtype.kind != "f":
        raise errors.not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", a.data_.dtype)
    return record("RoundBackward1", np.round(a.data_, decimals), (a,), lambda g: (_zeros_like(g),))


def gelu(a, approximate="none"):
    if approximate == "none":
        return gelu_exact(a)
    a = as_tensor(a)
    x = a.data_
    _check_kernel("gelu", x)
    inner = _SQRT_2_PI * (x + 0.044715 * x ** 3)
    out = 0.5 * x * (1 + np.tanh(inner))

    return record("GeluBackward0", out, (a,), lambda g, p: (gelu_backward(g, p, "tanh"),), (a,))


def softplus(a, beta=1.0, threshold=20.0):
    a = as_tensor(a)
    x = a.data_
    _check_kernel("softplus", x)
    bx = x * beta
    with np.errstate(over="ignore"):
        out = np.where(bx > threshold, x, np.log1p(np.exp(np.minimum(bx, threshold))) / beta)

    return record("SoftplusBackward0", out.astype(x.dtype), (a,),
                  lambda g, p: (softplus_backward(g, p, beta, threshold),), (a,))


def elu(a, alpha=1.0):
    a = as_tensor(a)
    x = a.data_
    _check_kernel("elu", x)
    with np.errstate(over="ignore"):
        out = np.where(x > 0, x, alpha * np.expm1(x))

    return record("EluBackward0", out.astype(x.dtype), (a,),
                  lambda g, p: (elu_backward(g, p, alpha),), (a,))


def leaky_relu(a, negative_slope=0.01):
    a = as_tensor(a)
    x = a.data_
    _check_kernel("leaky_relu", x)
    out = np.where(x > 0, x, x * negative_slope).astype(x.dtype)
    return record("LeakyReluBackward0", out, (a,),
                  lambda g, p: (leaky_relu_backward(g, p, negative_slope),), (a,))
