"""The scalar lane (ops on 0-d float64 tensors computed on Python floats, with float
backward formulas) must give bitwise what the ordinary numpy path gives: the same values,
signs of zeros and nans, gradients, grad_fn names, saved-tensor errors.

The ordinary path is reached with shape-(1,) tensors (never in the lane) and with
create_graph=True (the engine leaves the lane for it)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from diffcli.engine import FUNCTIONS, errors, tensor
from diffcli.engine.ops import rows, unary
from diffcli.engine.tensor import Tensor

pytestmark = pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph")

SPECIAL = [
    0.0,
    -0.0,
    0.5,
    -1.25,
    3.0,
    1e-300,
    -1e-160,
    1e300,
    7.5e-5,
    math.inf,
    -math.inf,
    math.nan,
    0.7853981633974483,
    -12.375,
]
RANDOM = np.random.default_rng(7).uniform(-4, 4, 24).tolist()
VALUES = SPECIAL + RANDOM
GRADS = [1.0, -0.0, -2.5, 1e308, math.nan]


def same(a, b) -> bool:
    """Bitwise equal, as float64 arrays (nan equal to nan, -0. not equal to 0.)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes() or bool(np.all(np.isnan(a) & np.isnan(b)))


def grads_of(fn, values, g, shape, create_graph=False):
    """fn(*leaves) with leaves of `shape` holding `values`; its value, grad_fn name and
    the leaves' gradients for upstream gradient g."""
    leaves = [tensor(np.full(shape, v), requires_grad=True) for v in values]
    out = fn(*leaves)
    out.backward(tensor(np.full(shape, g)), create_graph=create_graph)
    return out, [None if t.grad is None else t.grad.array.reshape(shape) for t in leaves]


def check(fn, values, g=1.0, array_path=True):
    """The lane's value, grad_fn and gradients against the ordinary path: a shape-(1,)
    run (when the forward is numpy's in both, `array_path`) and, always, the same 0-d run
    with create_graph (the ordinary backward formulas on the lane's own forward values)."""
    lane, lane_grads = grads_of(fn, values, g, ())
    ref, ref_grads = grads_of(fn, values, g, (1,))
    assert lane.grad_fn.name() == ref.grad_fn.name()
    assert [n is None for n in lane.grad_fn.next_nodes] == [n is None for n in ref.grad_fn.next_nodes]
    if array_path:
        assert same(lane.array, ref.array.reshape(())), (values, lane.array, ref.array)
        for a, b in zip(lane_grads, ref_grads):
            assert same(a, b.reshape(())), (values, g, a, b)
    graph, graph_grads = grads_of(fn, values, g, (), create_graph=True)
    assert same(lane.array, graph.array)
    for a, b in zip(lane_grads, graph_grads):
        assert same(a, b), (values, g, a, b)


# every one-input row in the lane (pow's and rsub's, with a number argument, are below)
UNARY_LANE = sorted(
    r.name
    for r in rows.ROWS.values()
    if r.lane is not None and len(r.inputs) == 1 and not r.args and r.name in FUNCTIONS
)


# lane forwards that are the C library's (math), not numpy's: PyTorch's 0-d results are
MATH_FORWARD = {
    "exp": math.exp,
    "log": math.log,
    "tanh": math.tanh,
    "tan": math.tan,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "asinh": math.asinh,
    "acosh": math.acosh,
    "atanh": math.atanh,
    "sigmoid": lambda x: 1.0 / (1.0 + math.exp(-x)),
}


@pytest.mark.parametrize("name", UNARY_LANE)
def test_unary_ops_match_the_ordinary_path_bitwise(name):
    fn = FUNCTIONS[name]
    for v, g in itertools.product(VALUES, GRADS):
        check(fn, [v], g, array_path=name not in MATH_FORWARD)
        if name in MATH_FORWARD:
            try:
                want = MATH_FORWARD[name](v)
            except (ValueError, ArithmeticError):  # where math raises, numpy's value
                continue
            assert same(fn(tensor(v)).array, want), (name, v)


# torch 2.13's 0-d results (bits), where numpy's SIMD functions round otherwise
TORCH_0D = [
    ("exp", -24.8219, 1.6595326439416603e-11),
    ("tanh", -19.0542, -0.9999999999999999),
    ("cosh", -22.3696, 2593963416.036797),
    ("sinh", -21.9038, -1628056516.859828),
    ("asinh", -24.8356, -3.9058303552346905),
    ("atanh", 0.00069, 0.0006900001095030312),
    ("sigmoid", -24.3013, 2.793055123034233e-11),
]


@pytest.mark.parametrize("name, x, want", TORCH_0D)
def test_zero_dim_values_are_pytorchs(name, x, want):
    assert getattr(unary, name)(tensor(x)).item() == want


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}
CONSTANTS = [2.0, -0.0, 0.0, 3, -7, 1e-200, 0.999, math.inf, math.nan]


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops_between_tensors_match_bitwise(op):
    fn = BINARY[op]
    for x, y in itertools.product(SPECIAL, SPECIAL):
        check(fn, [x, y], -1.5)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops_with_numbers_match_bitwise(op):
    fn = BINARY[op]
    for x, c in itertools.product(VALUES, CONSTANTS):
        check(lambda a: fn(a, c), [x], 0.75)
        check(lambda a: fn(c, a), [x], 0.75)


def test_negation_matches_bitwise():
    for x, g in itertools.product(VALUES, GRADS):
        check(lambda a: -a, [x], g)


@pytest.mark.parametrize("e", [2, 2.0, 3, 0, -1, 0.5, 2.5, 1, -2.0])
def test_pow_by_a_constant_matches_bitwise(e):
    for x, g in itertools.product(VALUES, GRADS):
        check(lambda a: a**e, [x], g)


def test_chain_of_lane_ops_matches_bitwise():
    def chain(x, w):
        y = x
        for _ in range(20):
            y = unary.sin(y * w + 0.1) ** 2 / 1.001 - unary.tanh(y) * 0.5
        return unary.exp(y) + x.sigmoid()

    for x, w in [(0.5, 1.25), (-2.0, 0.3), (3.0, -0.7)]:
        check(chain, [x, w], 1.0, array_path=False)


def test_only_one_operand_requiring_grad_saves_what_pytorch_saves():
    # x * w with w not requiring grad saves w (not x): an in-place op on x is fine,
    # on w it breaks the backward, as in PyTorch
    x = tensor(2.0, requires_grad=True) * 1
    w = tensor(3.0)
    y = x * w
    x.add_(1.0)
    y.backward()
    x2 = tensor(2.0, requires_grad=True) * 1
    w2 = tensor(3.0)
    y2 = x2 * w2
    w2.add_(1.0)
    with pytest.raises(errors.TorchRuntimeError, match="modified by an inplace operation"):
        y2.backward()


def test_backward_twice_fails_for_ops_that_save_and_works_for_those_that_do_not():
    x = tensor(0.5, requires_grad=True)
    for make, fails in [
        (lambda: x + 1.0, False),
        (lambda: x - x, False),
        (lambda: x * 2.0, True),
        (lambda: x / 4.0, True),
        (lambda: x**2, True),
        (lambda: x.sin(), True),
        (lambda: x.exp(), True),
        (lambda: 1.0 - x, False),
    ]:
        y = make()
        y.backward()
        if fails:
            with pytest.raises(errors.TorchRuntimeError, match="backward through the graph a second time"):
                y.backward()
        else:
            y.backward()


def test_gradients_leaving_the_lane_become_tensors_of_the_right_kind():
    x = tensor(0.5, requires_grad=True)
    h = x * 3.0
    h.retain_grad()
    v = tensor([1.0, 2.0], requires_grad=True)
    y = (h.sin() * v).sum() + h**2
    y.backward()
    for t in (x, h):
        assert type(t.grad) is Tensor and t.grad.array.dtype == np.float64 and t.grad.array.shape == ()
    assert same(h.grad.array, np.cos(1.5) * 3.0 + 2 * 1.5)
    assert same(x.grad.array, (np.cos(1.5) * 3.0 + 2 * 1.5) * 3.0)
    from diffcli.engine.autograd import grad

    x2 = tensor(0.5, requires_grad=True)
    (g,) = grad(x2.exp() * 2.0, [x2])
    assert type(g) is Tensor and same(g.array, np.exp(0.5) * 2.0)


def test_float32_and_integer_tensors_stay_off_the_lane():
    a = Tensor(np.array(1.5, dtype=np.float32))
    assert (a * 2.0).array.dtype == np.float32
    assert (Tensor(np.array(3)) * 2).array.dtype == np.int64
    assert (Tensor(np.array(3)) / 2).array.dtype == np.float64
    assert (tensor(1.0) * True).array.dtype == np.float64


def test_graph_freezes_for_the_collector_are_undone_by_backward():
    import gc

    x = tensor(0.5, requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0
    assert gc.get_freeze_count() > 0  # the graph's objects were moved out of the collector's scans
    y.backward()
    assert gc.get_freeze_count() == 0
    assert same(x.grad.array, 1.0)


def test_a_chain_runs_in_order_without_the_ready_queue():
    # a diamond after a chain: the two branches run newest first, then the chain
    x = tensor(0.5, requires_grad=True)
    h = x.sin() * 2.0
    a, b = h.exp(), h * h
    y = a + b
    y.backward()
    hv = math.sin(0.5) * 2.0
    assert same(x.grad.array, (math.exp(hv) + 2 * hv) * 2.0 * math.cos(0.5))
