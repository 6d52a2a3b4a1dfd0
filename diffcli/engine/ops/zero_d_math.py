"""PyTorch's 0-d results of the elementwise functions, where numpy's loops round otherwise.

A 0-d tensor (one element) takes ATen's scalar path: the kernel's scalar lambda, which calls
the C library's function of the element's type (`std::sinh(float)` is `sinhf`), or, for the
functions ATen hands to Intel MKL's vector math (sin, cos, tan, asin, acos, atan, exp, expm1,
log, log2, log10, log1p, sqrt, tanh, erf on this build), MKL's own. numpy's float32 SIMD
loops round differently in up to 60% of the cases (tests/engine/test_numerics.py counts).

- C library functions (sinh, cosh, asinh, acosh, atanh in float32): the C library's float
  function itself (ctypes, `sinhf`): bit for bit;
- ATen's composite scalar lambdas (sigmoid, silu, softplus, elu, gelu, sinc): the same
  expression in the element's type on the C library's functions: bit for bit;
- MKL's functions: the float32 ones computed in float64 and rounded (or the C library's
  float function where that matches more often): MKL's rounding cannot be reproduced
  without MKL; the rate each reaches is pinned in test_numerics.KNOWN.

Only 0-d float32 (and, for the composite rows, float64) inputs are routed here: arrays
keep numpy's loops, float64 0-d the scalar lane's C library functions (unary.py)."""

from __future__ import annotations

import ctypes
import math

import numpy as np

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
PI_F = np.float32(math.pi)
SQRT1_2_F = np.float32(math.sqrt(0.5))


def _libm():
    """The process's own symbols, where the C library's math functions are (Python links
    them): no search for a library file, no subprocess."""
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


LIBM = _libm()


def c_float_function(name: str, fallback):
    """The C library's `namef` (float -> float) as a function on Python floats; `fallback`
    (the double function, its result rounded to float32) where there is none."""
    f = getattr(LIBM, name + "f", None) if LIBM is not None else None
    if f is None:
        return lambda x: float(np.float32(fallback(x)))
    f.restype, f.argtypes = ctypes.c_float, [ctypes.c_float]
    return f


def _safe(f):
    def g(x):
        try:
            return f(x)
        except (OverflowError, ValueError):
            return math.nan if x == x and f is not math.exp else (math.inf if x > 0 else 0.0)

    return g


expf = c_float_function("exp", _safe(math.exp))
log1pf = c_float_function("log1p", math.log1p)
erff = c_float_function("erf", math.erf)
sinf = c_float_function("sin", math.sin)
expm1f = c_float_function("expm1", math.expm1)


def c_float(name: str, fallback):
    """A 0-d float32 array -> the C library's float function of it, as a 0-d array."""
    f = c_float_function(name, fallback)
    return lambda a: np.asarray(np.float32(f(float(a))))


def via_float64(np_fn):
    """A 0-d float32 array -> numpy's float64 function of it rounded to float32."""
    return lambda a: np.asarray(np_fn(a.astype(np.float64)), dtype=np.float32)


def at_0d(forward, f32=None, f64=None):
    """`forward`, with 0-d float32 (float64) inputs computed by `f32` (`f64`)."""

    def fwd(a):
        if not a.ndim:
            if f32 is not None and a.dtype == F32:
                return f32(a)
            if f64 is not None and a.dtype == F64:
                return f64(a)
        return forward(a)

    return fwd


# --- ATen's scalar lambdas (UnaryOpsKernel.cpp, Activation.cpp), in the element's type ---------


def _f32(v):
    return np.asarray(v, dtype=np.float32)


def sigmoid_f32(a):
    one = np.float32(1)
    return _f32(one / (one + np.float32(expf(float(-a[()])))))


def silu_f32(a):
    x = a[()]
    return _f32(x / (np.float32(1) + np.float32(expf(float(-x)))))


def silu_f64(a):
    x = float(a)
    try:
        return np.asarray(x / (1.0 + math.exp(-x)))
    except OverflowError:
        return np.asarray(-0.0 if x < 0 else 0.0) if x == x else np.asarray(x)


def sinc_f32(a):
    x = a[()]
    if x == 0:
        return _f32(1.0)
    product = PI_F * x
    return _f32(np.float32(sinf(float(product))) / product)


def gelu_f32(x):
    """x * 0.5 * (1 + erf(x * M_SQRT1_2)), approximate="none"."""
    return _f32(x * np.float32(0.5) * (np.float32(1) + np.float32(erff(float(x * SQRT1_2_F)))))


def softplus_f32(x, beta, threshold):
    b, t = np.float32(beta), np.float32(threshold)
    bx = x * b
    if bx > t:
        return _f32(x)
    return _f32(np.float32(log1pf(expf(float(bx)))) / b)


def softplus_f64(x, beta, threshold):
    bx = float(x) * beta
    if bx > threshold:
        return np.asarray(float(x))
    try:
        return np.asarray(math.log1p(math.exp(bx)) / beta)
    except OverflowError:
        return np.asarray(math.inf / beta)


def elu_f32(x, alpha):
    """expm1(x) * alpha for x <= 0, x above."""
    if x > 0:
        return _f32(x)
    return _f32(np.float32(expm1f(float(x))) * np.float32(alpha))


def elu_f64(x, alpha):
    v = float(x)
    if v > 0 or v != v:
        return np.asarray(v)
    return np.asarray(math.expm1(v) * alpha)
