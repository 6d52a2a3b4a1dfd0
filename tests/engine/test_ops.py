"""The op table, one row per op (the style of JAX's lax_autodiff_test).

A row names the op, how to call it on tensors, its numpy reference, the shapes to try
and the input domain (kept away from kinks and poles). Every case checks, in float64:

  forward    against the numpy reference;
  order 1    `out.backward(u)` with a random upstream gradient u, and `grad(out, xs, u)`,
             against central finite differences of sum(u * f(xs));
  order 2    `grad(out, xs, u, create_graph=True)` gives g; the gradient of
             sum_i (g_i * v_i).sum() against finite differences of that first-order
             quantity (v_i random); then the same for out * out, whose second
             derivative is non-zero even for linear ops, so every backward formula
             must itself be differentiable.

Unary ops run on shapes (), (3,), (2, 3); binary ops on those and on the broadcast
pairs ((2,3),(3,)), ((3,1),(1,4)), ((2,3),()). `test_every_op_has_a_row` keeps the table
and the rows in step: a new op is a new row.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from diffcli.engine import FUNCTIONS as F
from diffcli.engine import Tensor, grad, no_grad
from tests.helpers import NOT_DIFFERENTIABLE

# ---------------------------------------------------------------------------------------
# input domains: callables (rng, shape) -> float64 array


def uniform(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def away_from_zero(lo=0.2, hi=2.0):
    """|x| in [lo, hi] with a random sign: for abs, sign, relu, 1/x, kinks at 0."""
    return lambda rng, shape: rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def off_grid(rng, shape):
    """Fractional parts kept off 0 and 0.5, for floor/ceil/round/trunc."""
    frac = rng.uniform(0.1, 0.4, shape) + rng.choice([0.0, 0.5], shape)
    return rng.integers(-2, 2, shape) + frac


def spread(rng, shape):
    """Distinct values at least 0.1 apart (no ties for max, min, norm(inf)...)."""
    n = int(np.prod(shape, dtype=np.int64))
    vals = (rng.permutation(n) - n / 2) * 0.37 + rng.uniform(0, 0.1, n)
    return vals.reshape(shape)


def with_zero(rng, shape):
    """Values away from zero, except one exact zero (a product's awkward point)."""
    x = away_from_zero(0.5)(rng, shape)
    x.reshape(-1)[rng.integers(x.size)] = 0.0
    return x


DEFAULT = uniform(-2.0, 2.0)
POSITIVE = uniform(0.3, 2.5)
UNIT = uniform(-0.85, 0.85)
PROB = uniform(0.1, 0.9)

UNARY_SHAPES = [((),), ((3,),), ((2, 3),)]
BINARY_SHAPES = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((3, 1), (1, 4)), ((2, 3), ())]


@dataclass
class Row:
    name: str
    fn: Callable  # (*tensors) -> Tensor, on the engine
    ref: Callable | None  # (*arrays) -> array, numpy; None: no forward check
    shapes: list  # list of tuples of input shapes
    domain: object = DEFAULT  # one sampler, or a tuple with one per input
    covers: tuple = ()  # FUNCTIONS names this row exercises
    order: int = 2  # highest derivative order checked
    rtol: float = 1e-6
    fwd_rtol: float = 1e-12


ROWS: list[Row] = []


def row(name, fn, ref, shapes, covers=None, **kw):
    ROWS.append(Row(name, fn, ref, shapes, covers=tuple(covers or (name,)), **kw))


# ---------------------------------------------------------------------------------------
# elementwise unary ops


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


UNARY_ROWS = [
    # name, numpy reference, domain
    ("sin", np.sin, DEFAULT),
    ("cos", np.cos, DEFAULT),
    ("tan", np.tan, uniform(-1.2, 1.2)),
    ("asin", np.arcsin, UNIT),
    ("acos", np.arccos, UNIT),
    ("atan", np.arctan, DEFAULT),
    ("sinh", np.sinh, DEFAULT),
    ("cosh", np.cosh, DEFAULT),
    ("tanh", np.tanh, DEFAULT),
    ("asinh", np.arcsinh, DEFAULT),
    ("acosh", np.arccosh, uniform(1.2, 3.0)),
    ("atanh", np.arctanh, UNIT),
    ("exp", np.exp, DEFAULT),
    ("expm1", np.expm1, DEFAULT),
    ("log", np.log, POSITIVE),
    ("log2", np.log2, POSITIVE),
    ("log10", np.log10, POSITIVE),
    ("log1p", np.log1p, uniform(-0.7, 2.0)),
    ("sqrt", np.sqrt, POSITIVE),
    ("rsqrt", lambda x: 1 / np.sqrt(x), POSITIVE),
    ("reciprocal", lambda x: 1 / x, away_from_zero(0.3)),
    ("abs", np.abs, away_from_zero()),
    ("sign", np.sign, away_from_zero()),
    ("sigmoid", _sigmoid, DEFAULT),
    ("relu", lambda x: np.maximum(x, 0), away_from_zero()),
    ("gelu", lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))), DEFAULT),
    ("silu", lambda x: x * _sigmoid(x), DEFAULT),
    ("softplus", lambda x: np.log1p(np.exp(x)), DEFAULT),
    ("elu", lambda x: np.where(x > 0, x, np.expm1(x)), away_from_zero()),
    ("leaky_relu", lambda x: np.where(x > 0, x, 0.01 * x), away_from_zero()),
    ("floor", np.floor, off_grid),
    ("ceil", np.ceil, off_grid),
    ("round", np.round, off_grid),
    ("trunc", np.trunc, off_grid),
    ("neg", np.negative, DEFAULT),
    ("square", np.square, DEFAULT),
    ("erf", _erf, DEFAULT),
    ("sinc", np.sinc, DEFAULT),
    # the activations of engine/ops/activations.py
    ("hardtanh", lambda x: np.clip(x, -1.0, 1.0), DEFAULT),
    ("relu6", lambda x: np.clip(x, 0.0, 6.0), uniform(-3.0, 8.0)),
    (
        "selu",
        lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
        away_from_zero(),
    ),
    ("celu", lambda x: np.where(x > 0, x, np.expm1(x)), DEFAULT),
    ("hardswish", lambda x: x * np.clip(x + 3.0, 0.0, 6.0) / 6.0, uniform(-4.0, 4.0)),
    ("mish", lambda x: x * np.tanh(np.log1p(np.exp(x))), DEFAULT),
    ("hardshrink", lambda x: np.where(np.abs(x) > 0.5, x, 0.0), DEFAULT),
    ("softshrink", lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0.0)), DEFAULT),
    ("logsigmoid", lambda x: -np.log1p(np.exp(-x)), DEFAULT),
    ("softsign", lambda x: x / (1 + np.abs(x)), away_from_zero()),
    ("tanhshrink", lambda x: x - np.tanh(x), DEFAULT),
    ("erfc", lambda x: 1.0 - _erf(x), DEFAULT),
]
for _name, _ref, _dom in UNARY_ROWS:
    row(_name, F[_name], _ref, UNARY_SHAPES, domain=_dom)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


row(
    "gelu(approximate=tanh)",
    lambda x: F["gelu"](x, approximate="tanh"),
    _gelu_tanh,
    UNARY_SHAPES,
    covers=["gelu"],
)
row(
    "softplus(beta=2, threshold=1.5)",
    lambda x: F["softplus"](x, beta=2, threshold=1.5),
    lambda x: np.where(2 * x > 1.5, x, np.log1p(np.exp(2 * x)) / 2),
    UNARY_SHAPES,
    domain=uniform(-2, 0.6),
    covers=["softplus"],
)
row(
    "softplus above threshold",
    lambda x: F["softplus"](x, threshold=1.0),
    lambda x: np.where(x > 1.0, x, np.log1p(np.exp(x))),
    UNARY_SHAPES,
    domain=uniform(1.2, 3.0),
    covers=["softplus"],
)
row(
    "elu(alpha=0.5)",
    lambda x: F["elu"](x, alpha=0.5),
    lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)),
    UNARY_SHAPES,
    domain=away_from_zero(),
    covers=["elu"],
)
row(
    "celu(alpha=0.7)",
    lambda x: F["celu"](x, 0.7),
    lambda x: np.where(x > 0, x, 0.7 * np.expm1(x / 0.7)),
    UNARY_SHAPES,
    covers=["celu"],
    rtol=1e-5,  # (PyTorch's input_scale is 1 / float32(alpha): 1e-8 off 1 / alpha)
)
row(
    "hardsigmoid",
    F["hardsigmoid"],
    lambda x: np.clip(x + 3.0, 0.0, 6.0) / 6.0,
    UNARY_SHAPES,
    domain=uniform(-4.0, 4.0),
    order=1,  # (PyTorch's hardsigmoid_backward has no derivative: NotImplemented)
    rtol=1e-5,  # (its slope is PyTorch's float 1.0f / 6.0f)
)
row(
    "threshold(0.4, 20)",
    lambda x: F["threshold"](x, 0.4, 20.0),
    lambda x: np.where(x > 0.4, x, 20.0),
    UNARY_SHAPES,
    covers=["threshold"],
)
row(
    "hardtanh(-0.5, 2)",
    lambda x: F["hardtanh"](x, -0.5, 2.0),
    lambda x: np.clip(x, -0.5, 2.0),
    UNARY_SHAPES,
    domain=uniform(-1.5, 3.0),
    covers=["hardtanh"],
)
row(
    "leaky_relu(0.2)",
    lambda x: F["leaky_relu"](x, 0.2),
    lambda x: np.where(x > 0, x, 0.2 * x),
    UNARY_SHAPES,
    domain=away_from_zero(),
    covers=["leaky_relu"],
)
row(
    "round(decimals=1)",
    lambda x: F["round"](x, decimals=1),
    lambda x: np.round(x, 1),
    UNARY_SHAPES,
    domain=lambda rng, s: off_grid(rng, s) / 10,
    covers=["round"],
)

# ---------------------------------------------------------------------------------------
# binary arithmetic, with broadcasting

BINARY_ROWS = [
    ("add", np.add, DEFAULT),
    ("sub", np.subtract, DEFAULT),
    ("mul", np.multiply, DEFAULT),
    ("div", np.divide, (DEFAULT, away_from_zero(0.4))),
    ("pow", np.power, (POSITIVE, DEFAULT)),
    ("atan2", np.arctan2, (DEFAULT, away_from_zero())),
    ("maximum", np.maximum, DEFAULT),
    ("minimum", np.minimum, DEFAULT),
    ("rsub", lambda a, b: b - a, DEFAULT),
    ("hypot", np.hypot, DEFAULT),
    ("logaddexp", np.logaddexp, DEFAULT),
]
for _name, _ref, _dom in BINARY_ROWS:
    row(_name, F[_name], _ref, BINARY_SHAPES, domain=_dom)

row(
    "add(alpha=0.5)",
    lambda a, b: F["add"](a, b, alpha=0.5),
    lambda a, b: a + 0.5 * b,
    BINARY_SHAPES,
    covers=["add"],
)
row(
    "sub(alpha=2)",
    lambda a, b: F["sub"](a, b, alpha=2),
    lambda a, b: a - 2 * b,
    BINARY_SHAPES,
    covers=["sub"],
)
row("max(a, b)", F["max"], np.maximum, BINARY_SHAPES, covers=["max"])
row("min(a, b)", F["min"], np.minimum, BINARY_SHAPES, covers=["min"])
row(
    "where(mask, a, b)",
    lambda a, b: F["where"](Tensor(np.array([True, False, True])), a, b),
    lambda a, b: np.where([True, False, True], a, b),
    [((3,), (3,)), ((2, 3), (3,)), ((), (3,))],
    covers=["where"],
)
row(
    "where(a > 0, a, 0.0)",
    lambda a: F["where"](a > 0, a, 0.0),
    lambda a: np.where(a > 0, a, 0.0),
    UNARY_SHAPES,
    domain=away_from_zero(),
    covers=["where"],
)

# operators and Python-number operands (the PyTorch nodes differ: RsubBackward1, 2/a...)
for _name, _fn, _ref, _dom in [
    ("a + 2", lambda a: a + 2, lambda a: a + 2, DEFAULT),
    ("2 - a", lambda a: 2 - a, lambda a: 2 - a, DEFAULT),
    ("a * 2.5", lambda a: a * 2.5, lambda a: a * 2.5, DEFAULT),
    ("a / 2", lambda a: a / 2, lambda a: a / 2, DEFAULT),
    ("2 / a", lambda a: 2 / a, lambda a: 2 / a, away_from_zero(0.4)),
    ("a ** 2", lambda a: a**2, lambda a: a**2, DEFAULT),
    ("a ** 3", lambda a: a**3, lambda a: a**3, DEFAULT),
    ("a ** 0.5", lambda a: a**0.5, np.sqrt, POSITIVE),
    ("a ** -1.5", lambda a: a**-1.5, lambda a: a**-1.5, POSITIVE),
    ("a ** 0", lambda a: a**0, lambda a: a**0, DEFAULT),
    ("2 ** a", lambda a: 2**a, lambda a: 2**a, DEFAULT),
    ("-a", lambda a: -a, np.negative, DEFAULT),
    ("abs(a)", lambda a: abs(a), np.abs, away_from_zero()),
]:
    row(_name, _fn, _ref, UNARY_SHAPES, domain=_dom, covers=[])
row("a @ b operator", lambda a, b: a @ b, np.matmul, [((2, 3), (3, 4))], covers=[])

# clamp family: bounds as numbers and as tensors; inputs kept off the bounds
_off_bounds = lambda rng, s: rng.choice([-1.6, -0.4, 0.3, 1.4], s) + rng.uniform(-0.2, 0.2, s)
for _name, _kw, _ref in [
    ("clamp(-1, 1)", dict(min=-1.0, max=1.0), lambda a: np.clip(a, -1, 1)),
    ("clamp(min=0)", dict(min=0.0), lambda a: np.maximum(a, 0)),
    ("clamp(max=0)", dict(max=0.0), lambda a: np.minimum(a, 0)),
    ("clamp(min=1, max=-1) (min > max)", dict(min=1.0, max=-1.0), lambda a: np.full_like(a, -1.0)),
]:
    row(
        _name, lambda a, kw=_kw: F["clamp"](a, **kw), _ref, UNARY_SHAPES, domain=_off_bounds, covers=["clamp"]
    )
row(
    "clamp_min(0)",
    lambda a: F["clamp_min"](a, 0.0),
    lambda a: np.maximum(a, 0),
    UNARY_SHAPES,
    covers=["clamp_min"],
    domain=_off_bounds,
)
row(
    "clamp_max(0)",
    lambda a: F["clamp_max"](a, 0.0),
    lambda a: np.minimum(a, 0),
    UNARY_SHAPES,
    covers=["clamp_max"],
    domain=_off_bounds,
)
_lo, _hi = np.array([-1.0, 0.0, -0.1]), np.array([1.0, 0.5, 1.0])
row(
    "clamp(tensor bounds)",
    lambda a: F["clamp"](a, Tensor(_lo), Tensor(_hi)),
    lambda a: np.minimum(np.maximum(a, _lo), _hi),
    [((3,),), ((2, 3),)],
    domain=_off_bounds,
    covers=["clamp"],
)
row(
    "clamp(a, lo, hi) all differentiable",
    lambda a, lo, hi: F["clamp"](a, lo, hi),
    lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi),
    [((3,), (3,), (3,)), ((2, 3), (3,), ()), ((2, 3), (2, 1), (2, 3))],
    domain=(_off_bounds, uniform(-1.1, -0.9), uniform(0.9, 1.1)),
    covers=["clamp"],
)
row(
    "clamp(a, min=lo) differentiable bound",
    lambda a, lo: F["clamp"](a, min=lo),
    lambda a, lo: np.maximum(a, lo),
    [((3,), (3,)), ((2, 3), ())],
    domain=(_off_bounds, uniform(-1.1, -0.9)),
    covers=["clamp"],
)

# ---------------------------------------------------------------------------------------
# reductions, dim / keepdim variants

RED_SHAPES = [((),), ((3,),), ((2, 3),)]
MAT = [((2, 3),)]
for _name, _fn, _ref, _shapes, _dom in [
    ("sum()", lambda a: F["sum"](a), np.sum, RED_SHAPES, DEFAULT),
    ("sum(0)", lambda a: F["sum"](a, 0), lambda a: np.sum(a, 0), [((3,),), ((2, 3),)], DEFAULT),
    (
        "sum(-1, keepdim)",
        lambda a: F["sum"](a, -1, keepdim=True),
        lambda a: np.sum(a, -1, keepdims=True),
        [((3,),), ((2, 3),)],
        DEFAULT,
    ),
    ("sum((0, 1))", lambda a: F["sum"](a, (0, 1)), np.sum, MAT, DEFAULT),
    ("sum(()) (empty dims)", lambda a: F["sum"](a, ()), np.sum, MAT, DEFAULT),
    ("mean()", lambda a: F["mean"](a), np.mean, RED_SHAPES, DEFAULT),
    ("mean(1)", lambda a: F["mean"](a, 1), lambda a: np.mean(a, 1), MAT, DEFAULT),
    (
        "mean(0, keepdim)",
        lambda a: F["mean"](a, 0, keepdim=True),
        lambda a: np.mean(a, 0, keepdims=True),
        [((3,),), ((2, 3),)],
        DEFAULT,
    ),
    ("prod()", lambda a: F["prod"](a), np.prod, RED_SHAPES, away_from_zero(0.5)),
    ("prod(1)", lambda a: F["prod"](a, 1), lambda a: np.prod(a, 1), MAT, away_from_zero(0.5)),
    (
        "prod(0, keepdim)",
        lambda a: F["prod"](a, 0, keepdim=True),
        lambda a: np.prod(a, 0, keepdims=True),
        [((3,),), ((2, 3),)],
        away_from_zero(0.5),
    ),
    ("prod() through a zero", lambda a: F["prod"](a), np.prod, [((3,),), ((2, 3),)], with_zero),
    ("prod(1) through zeros", lambda a: F["prod"](a, 1), lambda a: np.prod(a, 1), MAT, with_zero),
    ("max()", lambda a: F["max"](a), np.max, RED_SHAPES, spread),
    ("min()", lambda a: F["min"](a), np.min, RED_SHAPES, spread),
    ("max(1).values", lambda a: F["max"](a, 1).values, lambda a: np.max(a, 1), MAT, spread),
    (
        "max(0, keepdim)[0]",
        lambda a: F["max"](a, 0, keepdim=True)[0],
        lambda a: np.max(a, 0, keepdims=True),
        [((3,),), ((2, 3),)],
        spread,
    ),
    (
        "min(-1).values",
        lambda a: F["min"](a, -1).values,
        lambda a: np.min(a, -1),
        [((3,),), ((2, 3),)],
        spread,
    ),
    ("amax()", lambda a: F["amax"](a), np.max, RED_SHAPES, spread),
    (
        "amax(1, keepdim)",
        lambda a: F["amax"](a, 1, keepdim=True),
        lambda a: np.max(a, 1, keepdims=True),
        MAT,
        spread,
    ),
    ("var()", lambda a: F["var"](a), lambda a: np.var(a, ddof=1), [((3,),), ((2, 3),)], DEFAULT),
    ("var(1)", lambda a: F["var"](a, 1), lambda a: np.var(a, 1, ddof=1), MAT, DEFAULT),
    (
        "var(0, unbiased=False, keepdim)",
        lambda a: F["var"](a, 0, unbiased=False, keepdim=True),
        lambda a: np.var(a, 0, keepdims=True),
        [((3,),), ((2, 3),)],
        DEFAULT,
    ),
    ("std()", lambda a: F["std"](a), lambda a: np.std(a, ddof=1), [((3,),), ((2, 3),)], DEFAULT),
    (
        "std(1, keepdim)",
        lambda a: F["std"](a, 1, keepdim=True),
        lambda a: np.std(a, 1, ddof=1, keepdims=True),
        MAT,
        DEFAULT,
    ),
    ("std(correction=0)", lambda a: F["std"](a, correction=0), np.std, [((3,),), ((2, 3),)], DEFAULT),
    ("norm()", lambda a: F["norm"](a), lambda a: np.sqrt(np.sum(a * a)), RED_SHAPES, away_from_zero(0.3)),
    ("norm(p=1)", lambda a: F["norm"](a, p=1), lambda a: np.sum(np.abs(a)), RED_SHAPES, away_from_zero(0.3)),
    (
        "norm(p=3)",
        lambda a: F["norm"](a, p=3),
        lambda a: np.sum(np.abs(a) ** 3) ** (1 / 3),
        RED_SHAPES,
        away_from_zero(0.3),
    ),
    (
        "norm(p=1.5)",
        lambda a: F["norm"](a, p=1.5),
        lambda a: np.sum(np.abs(a) ** 1.5) ** (1 / 1.5),
        RED_SHAPES,
        away_from_zero(0.3),
    ),
    (
        "norm(p=0.5)",
        lambda a: F["norm"](a, p=0.5),
        lambda a: np.sum(np.abs(a) ** 0.5) ** 2,
        RED_SHAPES,
        away_from_zero(0.3),
    ),
    ("norm(p=inf)", lambda a: F["norm"](a, p=float("inf")), lambda a: np.max(np.abs(a)), RED_SHAPES, spread),
    (
        "norm(dim=1)",
        lambda a: F["norm"](a, dim=1),
        lambda a: np.sqrt(np.sum(a * a, 1)),
        MAT,
        away_from_zero(0.3),
    ),
    (
        "norm(p=1, dim=0, keepdim)",
        lambda a: F["norm"](a, p=1, dim=0, keepdim=True),
        lambda a: np.sum(np.abs(a), 0, keepdims=True),
        MAT,
        away_from_zero(0.3),
    ),
    (
        "logsumexp(0)",
        lambda a: F["logsumexp"](a, 0),
        lambda a: np.log(np.sum(np.exp(a), 0)),
        RED_SHAPES,
        DEFAULT,
    ),
    (
        "logsumexp(1, keepdim)",
        lambda a: F["logsumexp"](a, 1, keepdim=True),
        lambda a: np.log(np.sum(np.exp(a), 1, keepdims=True)),
        MAT,
        DEFAULT,
    ),
    (
        "logsumexp((0, 1))",
        lambda a: F["logsumexp"](a, (0, 1)),
        lambda a: np.log(np.sum(np.exp(a))),
        MAT,
        DEFAULT,
    ),
    (
        "softmax(0)",
        lambda a: F["softmax"](a, 0),
        lambda a: np.exp(a) / np.sum(np.exp(a), 0),
        RED_SHAPES,
        DEFAULT,
    ),
    (
        "softmax(-1)",
        lambda a: F["softmax"](a, -1),
        lambda a: np.exp(a) / np.sum(np.exp(a), -1, keepdims=True),
        MAT,
        DEFAULT,
    ),
    (
        "log_softmax(0)",
        lambda a: F["log_softmax"](a, 0),
        lambda a: a - np.log(np.sum(np.exp(a), 0)),
        RED_SHAPES,
        DEFAULT,
    ),
    (
        "log_softmax(1)",
        lambda a: F["log_softmax"](a, 1),
        lambda a: a - np.log(np.sum(np.exp(a), 1, keepdims=True)),
        MAT,
        DEFAULT,
    ),
    (
        "cumsum(0)",
        lambda a: F["cumsum"](a, 0),
        lambda a: np.cumsum(a, 0) if a.ndim else a,
        RED_SHAPES,
        DEFAULT,
    ),
    ("cumsum(-1)", lambda a: F["cumsum"](a, -1), lambda a: np.cumsum(a, -1), MAT, DEFAULT),
]:
    row(_name, _fn, _ref, _shapes, domain=_dom, covers=[_name.split("(")[0]])

# ---------------------------------------------------------------------------------------
# matrix products: every rank combination of matmul, and the named products

MATMUL_SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 4)),
    ((2, 3), (3, 4)),  # 1D/2D
    ((2, 2, 3), (2, 3, 4)),
    ((2, 2, 3), (3, 4)),
    ((2, 3), (2, 3, 4)),  # 3D mixes
    ((2, 2, 3), (3,)),
    ((3,), (2, 3, 4)),
    ((1, 2, 3), (2, 3, 4)),
    ((2, 2, 3), (1, 3, 4)),
    ((2, 1, 2, 3), (3, 3, 2)),  # batch broadcast
]
row("matmul", F["matmul"], np.matmul, MATMUL_SHAPES)
row(
    "matmul(constant, b)",
    lambda b: F["matmul"](Tensor(np.arange(6.0).reshape(2, 3) / 5), b),
    lambda b: np.matmul(np.arange(6.0).reshape(2, 3) / 5, b),
    [((3,),), ((3, 4),), ((2, 3, 4),)],
    covers=["matmul"],
)
row(
    "matmul(a, constant)",
    lambda a: F["matmul"](a, Tensor(np.arange(12.0).reshape(3, 4) / 7)),
    lambda a: np.matmul(a, np.arange(12.0).reshape(3, 4) / 7),
    [((3,),), ((2, 3),), ((2, 2, 3),)],
    covers=["matmul"],
)
row("mm", F["mm"], np.matmul, [((2, 3), (3, 4)), ((1, 1), (1, 1))])
row("mv", F["mv"], np.matmul, [((2, 3), (3,))])
row("dot", F["dot"], np.dot, [((3,), (3,))])
row("outer", F["outer"], np.outer, [((3,), (2,))])
row("bmm", F["bmm"], np.matmul, [((2, 2, 3), (2, 3, 4))])

# ---------------------------------------------------------------------------------------
# shape ops


def _m(name):
    return lambda a, *args: getattr(a, name)(*args)


for _name, _fn, _ref, _shapes in [
    ("reshape(3, 2)", lambda a: F["reshape"](a, 3, 2), lambda a: a.reshape(3, 2), MAT),
    ("reshape(-1)", lambda a: F["reshape"](a, -1), lambda a: a.reshape(-1), RED_SHAPES),
    ("reshape of a transpose", lambda a: F["reshape"](F["t"](a), 6), lambda a: a.T.reshape(6), MAT),
    (
        "reshape of a transpose (viewable)",
        lambda a: F["reshape"](F["t"](a), 3, 1, 2),
        lambda a: a.T.reshape(3, 1, 2),
        MAT,
    ),
    ("view(6)", lambda a: a.view(6), lambda a: a.reshape(6), MAT),
    ("view_as", lambda a: a.view_as(Tensor(np.zeros((3, 2)))), lambda a: a.reshape(3, 2), MAT),
    ("reshape_as", lambda a: a.reshape_as(Tensor(np.zeros((6, 1)))), lambda a: a.reshape(6, 1), MAT),
    ("flatten()", lambda a: F["flatten"](a), lambda a: a.reshape(-1), RED_SHAPES),
    (
        "flatten(0, 1) 3D",
        lambda a: F["flatten"](a, 0, 1),
        lambda a: a.reshape(-1, a.shape[-1]),
        [((2, 2, 3),)],
    ),
    ("squeeze()", lambda a: F["squeeze"](a), np.squeeze, [((1, 3),), ((2, 1, 3),)]),
    ("squeeze(1)", lambda a: F["squeeze"](a, 1), lambda a: np.squeeze(a, 1), [((3, 1),)]),
    ("unsqueeze(0)", lambda a: F["unsqueeze"](a, 0), lambda a: a[None], RED_SHAPES),
    ("unsqueeze(-1)", lambda a: F["unsqueeze"](a, -1), lambda a: a[..., None], RED_SHAPES),
    ("transpose(0, 1)", lambda a: F["transpose"](a, 0, 1), lambda a: a.swapaxes(0, 1), MAT),
    ("transpose(0, 2) 3D", lambda a: F["transpose"](a, 0, 2), lambda a: a.swapaxes(0, 2), [((2, 3, 4),)]),
    ("permute(2, 0, 1)", lambda a: F["permute"](a, 2, 0, 1), lambda a: a.transpose(2, 0, 1), [((2, 3, 4),)]),
    ("t()", lambda a: F["t"](a), lambda a: a.T, RED_SHAPES),
    ("a.T", lambda a: a.T, lambda a: a.T, [((2, 3),)]),
    (
        "expand(2, 3)",
        lambda a: a.expand(2, 3),
        lambda a: np.broadcast_to(a, (2, 3)),
        [((),), ((3,),), ((1, 3),)],
    ),
    ("expand(-1, 4)", lambda a: a.expand(-1, 4), lambda a: np.broadcast_to(a, (3, 4)), [((3, 1),)]),
    (
        "expand_as",
        lambda a: a.expand_as(Tensor(np.zeros((2, 3)))),
        lambda a: np.broadcast_to(a, (2, 3)),
        [((3,),), ((2, 1),)],
    ),
    ("repeat(2, 2)", lambda a: a.repeat(2, 2), lambda a: np.tile(a, (2, 2)), RED_SHAPES),
    ("clone", lambda a: F["clone"](a), np.copy, RED_SHAPES),
    ("contiguous of a transpose", lambda a: F["t"](a).contiguous(), lambda a: a.T.copy(), MAT),
    ("flip(0)", lambda a: F["flip"](a, 0), lambda a: np.flip(a, 0), [((3,),), ((2, 3),)]),
    ("flip(0, 1)", lambda a: F["flip"](a, 0, 1), lambda a: np.flip(a, (0, 1)), MAT),
    ("select(1, -1)", lambda a: F["select"](a, 1, -1), lambda a: a[:, -1], MAT),
]:
    row(_name, _fn, _ref, _shapes, covers=[_name.split("(")[0].split(" ")[0]])

row(
    "cat",
    lambda a, b: F["cat"]([a, b]),
    lambda a, b: np.concatenate([a, b]),
    [((3,), (2,)), ((2, 3), (1, 3))],
)
row(
    "cat(dim=1) with a constant",
    lambda a, b: F["cat"]([a, Tensor(np.ones((2, 1))), b], dim=1),
    lambda a, b: np.concatenate([a, np.ones((2, 1)), b], 1),
    [((2, 3), (2, 2))],
    covers=["cat"],
)
row(
    "stack",
    lambda a, b: F["stack"]([a, b]),
    lambda a, b: np.stack([a, b]),
    [((), ()), ((3,), (3,)), ((2, 3), (2, 3))],
)
row(
    "stack(dim=-1)",
    lambda a, b: F["stack"]([a, b], dim=-1),
    lambda a, b: np.stack([a, b], -1),
    [((3,), (3,)), ((2, 3), (2, 3))],
    covers=["stack"],
)

# ---------------------------------------------------------------------------------------
# indexing: int, slice, step slice, lists with repeats, masks, None, ellipsis

_mask = np.array([[True, False, True], [False, True, True]])
for _name, _key, _shapes in [
    ("x[1]", 1, [((3,),), ((2, 3),)]),
    ("x[-1]", -1, [((3,),), ((2, 3),)]),
    ("x[0, 2]", (0, 2), MAT),
    ("x[1:3]", slice(1, 3), [((4,),)]),
    ("x[:]", slice(None), [((3,),), ((2, 3),)]),
    ("x[::2]", slice(None, None, 2), [((5,),), ((3, 3),)]),
    ("x[:, 1:]", (slice(None), slice(1, None)), MAT),
    ("x[1, ::2]", (1, slice(None, None, 2)), MAT),
    ("x[[0, 0, 2]]", [0, 0, 2], [((3,),), ((3, 2),)]),
    ("x[:, [2, 0, 2]]", (slice(None), [2, 0, 2]), MAT),
    ("x[[0, 1], [2, 2]]", ([0, 1], [2, 2]), MAT),
    ("x[0, [1, 1]]", (0, [1, 1]), MAT),
    ("x[mask]", _mask, MAT),
    ("x[row mask]", np.array([True, False]), MAT),
    ("x[None]", None, RED_SHAPES),
    ("x[..., None]", (Ellipsis, None), RED_SHAPES),
    ("x[...]", Ellipsis, RED_SHAPES),
    ("x[..., 1]", (Ellipsis, 1), MAT),
    ("x[:, None, 1]", (slice(None), None, 1), MAT),
    ("x[idx tensor]", np.array([[1, 0], [1, 1]]), [((3,),)]),
]:
    _k = (
        tuple(Tensor(k) if isinstance(k, np.ndarray) else k for k in _key)
        if isinstance(_key, tuple)
        else (Tensor(_key) if isinstance(_key, np.ndarray) else _key)
    )
    row(_name, lambda a, k=_k: a[k], lambda a, k=_key: a[k], _shapes, covers=["select"])

# gather / scatter / scatter_add (an index with a repeat: scatter_add sums it, gather's
# gradient does)
_IDX = np.array([[0, 2], [1, 1]])


def _np_scatter(a, idx, src, add=False):
    out = a.copy()
    key = (np.arange(idx.shape[0])[:, None], idx)
    if add:
        np.add.at(out, key, src[: idx.shape[0], : idx.shape[1]])
    else:
        out[key] = src[: idx.shape[0], : idx.shape[1]]
    return out


row("gather", lambda a: F["gather"](a, 1, Tensor(_IDX)), lambda a: np.take_along_axis(a, _IDX, 1), MAT)
row(
    "scatter",
    lambda a, s: F["scatter"](a, 1, Tensor(np.array([[2, 0], [1, 2]])), s),
    lambda a, s: _np_scatter(a, np.array([[2, 0], [1, 2]]), s),
    [((2, 3), (2, 2))],
)
row(
    "scatter(value)",
    lambda a: F["scatter"](a, 1, Tensor(_IDX), -1.5),
    lambda a: _np_scatter(a, _IDX, np.full((2, 2), -1.5)),
    MAT,
    covers=["scatter"],
)
row(
    "scatter_add",
    lambda a, s: F["scatter_add"](a, 1, Tensor(_IDX), s),
    lambda a, s: _np_scatter(a, _IDX, s, add=True),
    [((2, 3), (2, 2))],
)

# masked_* and index_* (a mask that broadcasts; an index with a repeat)
_MASK = np.array([True, False, True])
_I = np.array([2, 0, 2])
row(
    "masked_fill",
    lambda a: F["masked_fill"](a, Tensor(_MASK), 0.5),
    lambda a: np.where(_MASK, 0.5, a),
    [((3,),), ((2, 3),)],
)
row(
    "masked_fill(tensor value)",
    lambda a, v: F["masked_fill"](a, Tensor(_MASK), v),
    lambda a, v: np.where(_MASK, v, a),
    [((2, 3), ())],
    covers=["masked_fill"],
)


def _np_masked_select(a):
    x, m = np.broadcast_arrays(a, _MASK)
    return x[m]


def _np_masked_scatter(a, s):
    out = a.copy()
    out[_MASK] = s[:2]
    return out


row(
    "masked_select",
    lambda a: F["masked_select"](a, Tensor(_MASK)),
    _np_masked_select,
    [((3,),), ((2, 3),), ((2, 1),)],
)
row(
    "masked_scatter",
    lambda a, s: F["masked_scatter"](a, Tensor(_MASK), s),
    _np_masked_scatter,
    [((3,), (3,))],
)
row(
    "index_select", lambda a: F["index_select"](a, -1, Tensor(_I)), lambda a: a[..., _I], [((3,),), ((2, 3),)]
)


def _np_index_add(a, s, alpha=1.0):
    out = a.copy()
    np.add.at(out, (slice(None), _I), s * alpha)
    return out


row(
    "index_add",
    lambda a, s: F["index_add"](a, 1, Tensor(_I), s, alpha=2.0),
    lambda a, s: _np_index_add(a, s, 2.0),
    [((2, 3), (2, 3))],
)
row(
    "index_copy",
    lambda a, s: F["index_copy"](a, 1, Tensor(np.array([2, 0])), s),
    lambda a, s: np.stack([a[:, 1] * 0 + s[:, 1], a[:, 1], s[:, 0]], 1),
    [((2, 3), (2, 2))],
)
row(
    "index_fill",
    lambda a: F["index_fill"](a, 1, Tensor(_I), -2.0),
    lambda a: np.where(np.isin(np.arange(3), _I), -2.0, a),
    [((2, 3),)],
)
row(
    "index_fill(tensor value)",
    lambda a, v: F["index_fill"](a, 1, Tensor(_I), v),
    lambda a, v: np.where(np.isin(np.arange(3), _I), v, a),
    [((2, 3), ())],
    covers=["index_fill"],
)

# sort / topk (distinct values: finite differences keep the order), triangles, pieces
row("sort", lambda a: F["sort"](a, -1).values, lambda a: np.sort(a, -1), [((4,),), ((2, 3),)])
row(
    "sort(descending)",
    lambda a: F["sort"](a, 0, descending=True)[0],
    lambda a: -np.sort(-a, 0),
    [((3, 2),)],
    covers=["sort"],
)
row("topk", lambda a: F["topk"](a, 2).values, lambda a: -np.sort(-a, -1)[..., :2], [((4,),), ((2, 3),)])
row("tril", lambda a: F["tril"](a), np.tril, [((3, 3),), ((2, 3),)])
row("triu", lambda a: F["triu"](a, 1), lambda a: np.triu(a, 1), [((3, 3),), ((2, 2, 3),)])
row("split", lambda a: F["split"](a, 2, 1)[1] * 2 + 1, lambda a: a[:, 2:] * 2 + 1, MAT)
row("split(sizes)", lambda a: F["split"](a, [1, 2], 1)[1], lambda a: a[:, 1:], MAT, covers=["split"])
row("chunk", lambda a: F["chunk"](a, 2)[0], lambda a: a[:2], [((3,),), ((3, 2),)])
row("unbind", lambda a: F["unbind"](a, 1)[2], lambda a: a[:, 2], MAT)
row("narrow", lambda a: F["narrow"](a, -1, 1, 2), lambda a: a[..., 1:3], [((3,),), ((2, 3),)])

# diagonals, three-operand pointwise ops, rearrangements
row("diagonal", lambda a: F["diagonal"](a, 1), lambda a: np.diagonal(a, 1), [((3, 3),), ((2, 3),)])
row("diag", lambda a: F["diag"](a), lambda a: np.diag(a), [((3,),), ((3, 3),)])
row("diag_embed", lambda a: F["diag_embed"](a), lambda a: np.stack([np.diag(r) for r in a]), [((2, 3),)])
row("trace", lambda a: F["trace"](a), np.trace, [((3, 3),), ((2, 3),)])
row(
    "addcmul",
    lambda a, b, c: F["addcmul"](a, b, c, value=0.5),
    lambda a, b, c: a + 0.5 * b * c,
    [((3,), (3,), (3,)), ((2, 3), (3,), (2, 1))],
)
row(
    "addcdiv",
    lambda a, b, c: F["addcdiv"](a, b, c, value=-2.0),
    lambda a, b, c: a - 2.0 * b / c,
    [((3,), (3,), (3,))],
    domain=(DEFAULT, DEFAULT, POSITIVE),
)
row("lerp", lambda a, b: F["lerp"](a, b, 0.3), lambda a, b: a + 0.3 * (b - a), [((3,), (3,)), ((2, 3), (3,))])
row(
    "lerp(tensor weight)",
    lambda a, b, w: F["lerp"](a, b, w),
    lambda a, b, w: a + w * (b - a),
    [((3,), (3,), (3,))],
    covers=["lerp"],
)
row("roll", lambda a: F["roll"](a, 1, -1), lambda a: np.roll(a, 1, -1), [((3,),), ((2, 3),)])
row(
    "repeat_interleave",
    lambda a: F["repeat_interleave"](a, 2, 0),
    lambda a: np.repeat(a, 2, 0),
    [((3,),), ((2, 3),)],
)
row("tile", lambda a: F["tile"](a, (2, 1)), lambda a: np.tile(a, (2, 1)), [((3,),), ((2, 3),)])
row(
    "movedim",
    lambda a: F["movedim"](a, 0, -1),
    lambda a: np.moveaxis(a, 0, -1),
    MAT,
    covers=["movedim", "moveaxis"],
)
row(
    "swapaxes",
    lambda a: F["swapaxes"](a, 0, 1),
    lambda a: np.swapaxes(a, 0, 1),
    MAT,
    covers=["swapaxes", "swapdims"],
)
row("unflatten", lambda a: F["unflatten"](a, 0, (2, 2)), lambda a: a.reshape(2, 2), [((4,),)])
row(
    "broadcast_to",
    lambda a: F["broadcast_to"](a, (2, 3)),
    lambda a: np.broadcast_to(a, (2, 3)),
    [((3,),), ((2, 1),)],
)
row("fliplr", lambda a: F["fliplr"](a), np.fliplr, MAT)
row("flipud", lambda a: F["flipud"](a), np.flipud, [((3,),), ((2, 3),)])
row(
    "hstack",
    lambda a, b: F["hstack"]([a, b]),
    lambda a, b: np.hstack([a, b]),
    [((3,), (2,)), ((2, 3), (2, 1))],
)
row(
    "vstack",
    lambda a, b: F["vstack"]([a, b]),
    lambda a, b: np.vstack([a, b]),
    [((3,), (3,)), ((2, 3), (1, 3))],
)
row(
    "column_stack",
    lambda a, b: F["column_stack"]([a, b]),
    lambda a, b: np.column_stack([a, b]),
    [((3,), (3, 2))],
)
row("cumprod", lambda a: F["cumprod"](a, -1), lambda a: np.cumprod(a, -1), [((3,),), ((2, 3),)])
row(
    "median",
    lambda a: F["median"](a),
    lambda a: np.sort(a.reshape(-1))[(a.size - 1) // 2],
    [((3,),), ((2, 3),)],
)
row(
    "median(dim)",
    lambda a: F["median"](a, -1).values,
    lambda a: np.sort(a, -1)[..., (a.shape[-1] - 1) // 2],
    [((2, 4),)],
    covers=["median"],
)
row("kthvalue", lambda a: F["kthvalue"](a, 2).values, lambda a: np.sort(a, -1)[..., 1], [((3,),), ((2, 3),)])
row("mode", lambda a: F["mode"](a).values, lambda a: np.min(a, -1), [((3,),), ((2, 3),)])
row(
    "cummax",
    lambda a: F["cummax"](a, -1).values,
    lambda a: np.maximum.accumulate(a, -1),
    [((4,),), ((2, 3),)],
)
row("cummin", lambda a: F["cummin"](a, 0).values, lambda a: np.minimum.accumulate(a, 0), [((4,),), ((3, 2),)])
row(
    "take",
    lambda a: F["take"](a, Tensor(np.array([[0, 4], [4, 1]]))),
    lambda a: a.reshape(-1)[np.array([[0, 4], [4, 1]])],
    [((2, 3),)],
)


def _np_put_accumulate(a, s):
    out = a.reshape(-1).copy()
    np.add.at(out, [3, 0], s)
    return out.reshape(a.shape)


row(
    "put",
    lambda a, s: F["put"](a, Tensor(np.array([3, 0])), s, accumulate=True),
    _np_put_accumulate,
    [((2, 3), (2,))],
)
row("rot90", lambda a: F["rot90"](a, 1, (0, 1)), lambda a: np.rot90(a), [((2, 3),)])
row("nansum", lambda a: F["nansum"](a, 1), lambda a: np.nansum(a, 1), [((2, 3),)])
row("exp2", lambda a: F["exp2"](a), np.exp2, [((),), ((3,),), ((2, 3),)])
row("frac", lambda a: F["frac"](a), lambda a: a - np.trunc(a), [((3,),), ((2, 3),)], domain=uniform(0.1, 0.9))
row("sgn", lambda a: F["sgn"](a) * a, lambda a: np.sign(a) * a, [((3,),)], domain=uniform(0.3, 2.0))
row("nan_to_num", lambda a: F["nan_to_num"](a), lambda a: a, [((3,),), ((2, 3),)])
row("fmod", lambda a: F["fmod"](a, 1.5), lambda a: np.fmod(a, 1.5), [((3,),)], domain=uniform(0.1, 1.4))
row(
    "fmod(tensor)",
    lambda a, b: F["fmod"](a, b),
    np.fmod,
    [((3,), (3,))],
    domain=(uniform(0.1, 0.9), uniform(1.1, 2.0)),
    covers=["fmod"],
)
row(
    "index_put",
    lambda a, v: F["index_put"](a, (Tensor(np.array([0, 1])), Tensor(np.array([2, 2]))), v),
    lambda a, v: np.where(
        np.isin(np.arange(6), [2, 5]).reshape(2, 3), np.array([[0, 0, v[0]], [0, 0, v[1]]]), a
    ),
    [((2, 3), (2,))],
)
row(
    "index_put(accumulate)",
    lambda a, v: F["index_put"](a, (Tensor(np.array([0, 0])),), v, accumulate=True),
    lambda a, v: a + np.array([[1.0], [0.0]]) * (2 * v),
    [((2, 3), (3,))],
    covers=["index_put"],
)
row(
    "unfold",
    lambda a: a.unfold(-1, 2, 1) * 1.5,
    lambda a: np.lib.stride_tricks.sliding_window_view(a, 2, -1) * 1.5,
    [((4,),), ((2, 4),)],
)
row("einsum", lambda a, b: F["einsum"]("ij,jk->ik", a, b), lambda a, b: a @ b, [((2, 3), (3, 4))])
row(
    "einsum(batched, broadcast)",
    lambda a, b: F["einsum"]("...ij,...jk->...ik", a, b),
    np.matmul,
    [((2, 2, 3), (2, 3, 2)), ((2, 3), (3, 2))],
    covers=["einsum"],
)
row("einsum(diagonal, sum)", lambda a: F["einsum"]("ii", a), np.trace, [((3, 3),)], covers=["einsum"])
row("diff", lambda a: F["diff"](a, 2), lambda a: np.diff(a, 2), [((4,),), ((2, 4),)])
row(
    "sum_to_size",
    lambda a: a.sum_to_size(1, 3),
    lambda a: a.sum(axis=tuple(range(a.ndim - 1)), keepdims=True).reshape(1, 3),
    [((2, 3),), ((2, 2, 3),)],
)
row(
    "tensor_split",
    lambda a: F["tensor_split"](a, 2, -1)[0] * 3,
    lambda a: np.array_split(a, 2, -1)[0] * 3,
    [((3,),), ((2, 3),)],
)
row("atleast_2d", lambda a: F["atleast_2d"](a), np.atleast_2d, [((),), ((3,),)])
row("atleast_1d", lambda a: F["atleast_1d"](a), np.atleast_1d, [((),)])
row("atleast_3d", lambda a: F["atleast_3d"](a), np.atleast_3d, [((3,),), ((2, 3),)])
row(
    "meshgrid",
    lambda a, b: F["meshgrid"](a, b, indexing="xy")[0] * F["meshgrid"](a, b, indexing="xy")[1],
    lambda a, b: np.prod(np.meshgrid(a, b, indexing="xy"), 0),
    [((2,), (3,))],
)

# ---------------------------------------------------------------------------------------
# losses

_target = np.array([[0.5, -1.0, 2.0], [0.0, 1.0, 0.25]])
_labels = np.array([0.0, 1.0, 0.3, 1.0, 0.0, 0.8]).reshape(2, 3)
_probs = np.array([[0.2, 0.8, 0.0], [0.1, 0.3, 0.6]])
_classes = np.array([2, 0])


def _log_softmax(z, axis):
    return z - np.log(np.sum(np.exp(z), axis, keepdims=True))


for _red, _agg in [("mean", np.mean), ("sum", np.sum), ("none", lambda x: x)]:
    row(
        f"mse_loss({_red})",
        lambda a, r=_red: F["mse_loss"](a, Tensor(_target), reduction=r),
        lambda a, f=_agg: f((a - _target) ** 2),
        MAT,
        covers=["mse_loss"],
    )
    row(
        f"binary_cross_entropy({_red})",
        lambda p, r=_red: F["binary_cross_entropy"](p, Tensor(_labels), reduction=r),
        lambda p, f=_agg: f(-(_labels * np.log(p) + (1 - _labels) * np.log(1 - p))),
        MAT,
        domain=PROB,
        covers=["binary_cross_entropy"],
    )
    row(
        f"cross_entropy({_red})",
        lambda z, r=_red: F["cross_entropy"](z, Tensor(_classes), reduction=r),
        lambda z, f=_agg: f(-_log_softmax(z, 1)[[0, 1], _classes]),
        MAT,
        covers=["cross_entropy"],
    )
    row(
        f"nll_loss({_red})",
        lambda z, r=_red: F["nll_loss"](z, Tensor(_classes), reduction=r),
        lambda z, f=_agg: f(-z[[0, 1], _classes]),
        MAT,
        covers=["nll_loss"],
    )
for _red, _agg in [("mean", np.mean), ("sum", np.sum), ("none", lambda x: x)]:
    row(
        f"l1_loss({_red})",
        lambda a, r=_red: F["l1_loss"](a, Tensor(_target), reduction=r),
        lambda a, f=_agg: f(np.abs(a - _target)),
        MAT,
        covers=["l1_loss"],
    )
row(
    "normalize",
    lambda a: F["normalize"](a),
    lambda a: a / np.sqrt((a * a).sum(1, keepdims=True)),
    MAT,
    covers=["normalize"],
)
row(
    "normalize(p=1, dim=0)",
    lambda a: F["normalize"](a, p=1, dim=0),
    lambda a: a / np.abs(a).sum(0, keepdims=True),
    MAT,
    domain=away_from_zero(),
    covers=["normalize"],
)


def _cosine(a, b):
    return (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))


row(
    "cosine_similarity",
    lambda a, b: F["cosine_similarity"](a, b),
    lambda a, b: _cosine(*np.broadcast_arrays(a, b)),
    [((2, 3), (2, 3)), ((2, 3), (3,))],
    covers=["cosine_similarity"],
)
row("ravel", lambda a: F["ravel"](a), lambda a: a.ravel(), MAT, covers=["ravel"])
row("ravel of a transpose", lambda a: F["ravel"](F["t"](a)), lambda a: a.T.ravel(), MAT, covers=["ravel"])
row(
    "mse_loss(a, b) both differentiable",
    lambda a, b: F["mse_loss"](a, b),
    lambda a, b: np.mean((a - b) ** 2),
    [((3,), (3,)), ((2, 3), (2, 3))],
    covers=["mse_loss"],
)
row(
    "binary_cross_entropy(weight)",
    lambda p: F["binary_cross_entropy"](p, Tensor(_labels), weight=Tensor(np.array([1.0, 2.0, 0.5]))),
    lambda p: np.mean(np.array([1.0, 2.0, 0.5]) * -(_labels * np.log(p) + (1 - _labels) * np.log(1 - p))),
    MAT,
    domain=PROB,
    covers=["binary_cross_entropy"],
)
row(
    "cross_entropy(probabilities)",
    lambda z: F["cross_entropy"](z, Tensor(_probs)),
    lambda z: -np.sum(_log_softmax(z, 1) * _probs) / 2,
    MAT,
    covers=["cross_entropy"],
)
row(
    "cross_entropy(1D, 0-dim target)",
    lambda z: F["cross_entropy"](z, Tensor(np.array(1))),
    lambda z: -_log_softmax(z, 0)[1],
    [((3,),)],
    covers=["cross_entropy"],
)
row(
    "cross_entropy(label_smoothing=0.1)",
    lambda z: F["cross_entropy"](z, Tensor(_classes), label_smoothing=0.1),
    lambda z: np.mean(0.9 * -_log_softmax(z, 1)[[0, 1], _classes] + 0.1 / 3 * -np.sum(_log_softmax(z, 1), 1)),
    MAT,
    covers=["cross_entropy"],
)
row(
    "cross_entropy(weight, ignore_index)",
    lambda z: F["cross_entropy"](z, Tensor(np.array([2, 1, -100])), weight=Tensor(np.array([1.0, 2.0, 0.5]))),
    lambda z: (0.5 * -_log_softmax(z, 1)[0, 2] + 2.0 * -_log_softmax(z, 1)[1, 1]) / 2.5,
    [((3, 3),)],
    covers=["cross_entropy"],
)

_logit_w = np.array([1.0, 2.0, 0.5])
_logit_pw = np.array([1.0, 3.0, 0.5])


def _bce_logits_ref(z, y, w=1.0, pw=None):
    log_sig = np.minimum(z, 0) - np.log1p(np.exp(-np.abs(z)))
    lw = 1.0 if pw is None else (pw - 1) * y + 1
    return ((1 - y) * z - log_sig * lw) * w


for _red, _agg in [("mean", np.mean), ("sum", np.sum), ("none", lambda x: x)]:
    row(
        f"binary_cross_entropy_with_logits({_red})",
        lambda z, r=_red: F["binary_cross_entropy_with_logits"](z, Tensor(_labels), reduction=r),
        lambda z, f=_agg: f(_bce_logits_ref(z, _labels)),
        MAT,
        covers=["binary_cross_entropy_with_logits"],
    )
row(
    "binary_cross_entropy_with_logits(z, t, weight, pos_weight)",
    lambda z, y: F["binary_cross_entropy_with_logits"](
        z, y, weight=Tensor(_logit_w), pos_weight=Tensor(_logit_pw)
    ),
    lambda z, y: np.mean(_bce_logits_ref(z, y, _logit_w, _logit_pw)),
    [((2, 3), (2, 3))],
    covers=["binary_cross_entropy_with_logits"],
)

# ---------------------------------------------------------------------------------------
# ops of the table with nothing to differentiate, or checked elsewhere


# remainder where it is smooth (0 < x < y: x itself; y's gradient -grad * floor(x / y) = -0.)
row("remainder", F["remainder"], np.remainder, BINARY_SHAPES, domain=(POSITIVE, uniform(3.0, 4.0)))


def _cases():
    for r in ROWS:
        for shapes in r.shapes:
            sid = ",".join("x".join(map(str, s)) or "()" for s in shapes)
            yield pytest.param(r, shapes, id=f"{r.name}[{sid}]")


def _seed(name, shapes):
    return zlib.crc32(f"{name}|{shapes}".encode())


def _inputs(r: Row, shapes, rng):
    doms = r.domain if isinstance(r.domain, tuple) else (r.domain,) * len(shapes)
    return [np.asarray(dom(rng, shape), dtype=np.float64) for dom, shape in zip(doms, shapes)]


def _leaves(arrays):
    return [Tensor(np.array(a, dtype=np.float64), True) for a in arrays]


def _forward(r, arrays):
    with no_grad():
        return r.fn(*[Tensor(np.array(a)) for a in arrays]).array


def _square(t):
    return t * t


def _first_order(r, arrays, u, head=None):
    """Gradients of sum(u * head(f)) w.r.t. each input, by our engine (first order)."""
    xs = _leaves(arrays)
    out = r.fn(*xs)
    if head is not None:
        out = head(out)
    if not out.requires_grad:
        return [np.zeros_like(a) for a in arrays]
    gs = grad(out, xs, grad_outputs=Tensor(u), allow_unused=True)
    return [np.zeros_like(a) if g is None else g.array for a, g in zip(arrays, gs)]


def _central_diff(f, arrays, eps):
    """d f / d arrays[i], for a scalar f, by central differences."""
    result = []
    for i, a in enumerate(arrays):
        d = np.zeros(a.shape)
        for j in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i][j] += eps
            minus[i][j] -= eps
            d[j] = (f(plus) - f(minus)) / (2 * eps)
        result.append(d)
    return result


@pytest.mark.parametrize("r, shapes", list(_cases()))
def test_op(r: Row, shapes):
    rng = np.random.default_rng(_seed(r.name, shapes))
    arrays = _inputs(r, shapes, rng)

    # forward against numpy
    xs = _leaves(arrays)
    out = r.fn(*xs)
    if r.ref is not None:
        want = np.asarray(r.ref(*arrays), dtype=np.float64)
        assert out.array.shape == want.shape
        np.testing.assert_allclose(out.array, want, rtol=r.fwd_rtol, atol=r.fwd_rtol)
    assert out.array.dtype == np.float64

    # first order: backward() with a random upstream gradient, and grad()
    u = rng.standard_normal(out.array.shape)
    fd = _central_diff(lambda arrs: float(np.sum(_forward(r, arrs) * u)), arrays, 1e-6)
    out.backward(Tensor(u))
    for x, d in zip(xs, fd):
        got = np.zeros_like(d) if x.grad is None else x.grad.array
        assert got.shape == d.shape
        np.testing.assert_allclose(got, d, rtol=r.rtol, atol=r.rtol)
    by_grad = _first_order(r, arrays, u)
    for x, g in zip(xs, by_grad):
        want = np.zeros_like(g) if x.grad is None else x.grad.array
        np.testing.assert_allclose(g, want, rtol=1e-14, atol=1e-14)

    # second order, of f and of f*f (the square makes even linear ops' backward formulas
    # run on gradients that require grad, so they must record under create_graph)
    if r.order >= 2:
        for head in (None, _square):
            _check_second_order(r, arrays, u, rng, head)


def _check_second_order(r, arrays, u, rng, head):
    """grad of sum_i <g_i, v_i>, g = grad(head(f), xs, u, create_graph=True), against
    central differences of g."""
    xs = _leaves(arrays)
    out = r.fn(*xs)
    out = out if head is None else head(out)
    gs = grad(out, xs, grad_outputs=Tensor(u), create_graph=True, allow_unused=True)
    vs = [rng.standard_normal(a.shape) for a in arrays]
    total = None
    for g, v in zip(gs, vs):
        if g is not None and g.requires_grad:
            term = F["sum"](g * Tensor(v))
            total = term if total is None else total + term
    if total is None:
        hs = [np.zeros_like(a) for a in arrays]
    else:
        hs = [
            np.zeros_like(a) if h is None else h.array
            for a, h in zip(arrays, grad(total, xs, allow_unused=True))
        ]
    fd2 = _central_diff(
        lambda arrs: float(sum(np.sum(g * v) for g, v in zip(_first_order(r, arrs, u, head), vs))),
        arrays,
        1e-5,
    )
    for h, d in zip(hs, fd2):
        np.testing.assert_allclose(
            h, d, rtol=1e-5, atol=1e-5, err_msg=f"second order of {'f*f' if head else 'f'}"
        )


def test_every_op_has_a_row():
    """Every function of the table is exercised by a row, or listed as not differentiable
    (aliases such as `multiply` count through the callable they share)."""
    covered = {id(F[c]) for r in ROWS for c in r.covers if c in F}
    missing = sorted(
        name for name, fn in F.items() if id(fn) not in covered and name not in NOT_DIFFERENTIABLE
    )
    assert not missing, f"ops without a test row: {missing}"


# ---------------------------------------------------------------------------------------
# a few property tests over random shapes


def _reduce_to(g, shape):
    """numpy's sum of a broadcast gradient back down to an operand's shape."""
    g = g.sum(axis=tuple(range(g.ndim - len(shape)))) if g.ndim > len(shape) else g
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape)


def _broadcastable_pair():
    dims = st.lists(st.integers(1, 3), min_size=0, max_size=3)

    def pair(shape):
        return st.tuples(
            st.just(tuple(shape)),
            st.lists(st.sampled_from([0, 1]), min_size=len(shape), max_size=len(shape)).map(
                lambda ones: tuple(1 if o else s for o, s in zip(ones, shape))
            ),
            st.integers(0, len(shape)),
        )

    return dims.flatmap(pair).map(lambda t: (t[0], t[1][t[2] :]))


@settings(max_examples=25, deadline=None)
@given(shapes=_broadcastable_pair(), swap=st.booleans())
def test_broadcast_gradients_reduce_to_operand_shapes(shapes, swap):
    """d sum(u * (a * b)) / da = sum of u * b over the broadcast dims, for any pair."""
    sa, sb = shapes[::-1] if swap else shapes
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    ta, tb = Tensor(a, True), Tensor(b, True)
    out = ta * tb
    u = rng.standard_normal(out.array.shape)
    out.backward(Tensor(u))

    np.testing.assert_allclose(ta.grad.array, _reduce_to(u * b, sa), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tb.grad.array, _reduce_to(u * a, sb), rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    ra=st.integers(1, 4),
    rb=st.integers(1, 4),
    n=st.integers(1, 3),
    m=st.integers(1, 3),
    p=st.integers(1, 3),
    batch=st.lists(st.integers(1, 2), min_size=2, max_size=2),
    ga=st.booleans(),
)
def test_matmul_any_ranks(ra, rb, n, m, p, batch, ga):
    """matmul equals numpy for ranks 1-4 with broadcast batches; its gradients equal
    the closed forms u @ b^T and a^T @ u summed over broadcast batch dims."""
    sa = (m,) if ra == 1 else tuple(batch[: ra - 2]) + (n, m)
    sb = (m,) if rb == 1 else tuple(batch[::-1][: rb - 2]) + (m, p)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    ta, tb = Tensor(a, ga), Tensor(b, True)
    out = F["matmul"](ta, tb)
    np.testing.assert_allclose(out.array, np.matmul(a, b), rtol=1e-12, atol=1e-12)
    u = rng.standard_normal(out.array.shape)
    out.backward(Tensor(u))
    # closed form through numpy, with 1-D operands promoted as matmul does
    a2 = a[None, :] if ra == 1 else a
    b2 = b[:, None] if rb == 1 else b
    u2 = u.reshape(np.matmul(a2, b2).shape)  # put back the size-1 dims matmul removed
    da = np.matmul(u2, np.swapaxes(b2, -1, -2))
    db = np.matmul(np.swapaxes(a2, -1, -2), u2)

    if ga:
        np.testing.assert_allclose(
            ta.grad.array, _reduce_to(da, a2.shape).reshape(sa), rtol=1e-10, atol=1e-10
        )
    np.testing.assert_allclose(tb.grad.array, _reduce_to(db, b2.shape).reshape(sb), rtol=1e-10, atol=1e-10)


@settings(max_examples=25, deadline=None)
@given(
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=3),
    data=st.data(),
    keepdim=st.booleans(),
    op=st.sampled_from(["sum", "mean", "amax", "logsumexp"]),
)
def test_reductions_over_random_dims(shape, data, keepdim, op):
    """sum/mean/amax/logsumexp over any subset of dims: numpy's value, and a gradient of
    the input's shape that sums to what the chain rule says."""
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    rng = np.random.default_rng(2)
    a = spread(rng, tuple(shape))
    t = Tensor(a, True)
    out = F[op](t, tuple(dims), keepdim=keepdim)
    ref = {
        "sum": np.sum,
        "mean": np.mean,
        "amax": np.max,
        "logsumexp": lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims)),
    }[op]
    np.testing.assert_allclose(out.array, ref(a, axis=tuple(dims), keepdims=keepdim), rtol=1e-12)
    F["sum"](out).backward()
    assert t.grad.array.shape == a.shape
    count = int(np.prod([shape[d] for d in dims]))
    expect = {"sum": a.size, "mean": a.size / count, "amax": a.size / count, "logsumexp": a.size / count}[op]
    np.testing.assert_allclose(t.grad.array.sum(), expect, rtol=1e-12)
