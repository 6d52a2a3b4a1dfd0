"""The check's core on plain numpy functions: a planted wrong gradient is reported at its
exact element, with the numbers that explain it; kinks and precision are labelled."""

from __future__ import annotations

import numpy as np
import pytest

from diffcli.checks.compare import DTYPE_DEFAULTS, Settings, coarsest, compare

F64 = Settings.for_dtype("float64")


def test_a_perturbed_gradient_is_reported_at_its_worst_element():
    x = np.array([1.0, 2.0, 3.0])
    grad = 2 * x
    grad[1] += 1e-3  # the planted bug
    grad[2] += 1e-4  # a smaller one: not the worst
    row = compare("x", 1, grad, lambda v: np.sum(v**2), x, F64)
    assert (row.ok, row.result, row.label) == (False, "mismatch", "likely bug")
    w = row.worst
    assert w.index == (1,) and w.out == ()
    assert w.analytic == 4.001
    assert w.numeric == pytest.approx(4.0, abs=1e-9)
    assert w.abs_error == pytest.approx(1e-3, abs=1e-9)
    assert w.rel_error == pytest.approx(2.5e-4, rel=1e-6)
    assert w.tolerance == pytest.approx(1e-5 + 1e-4 * 4.0, rel=1e-9)
    assert 0 < w.estimate < 1e-8  # the numeric value is good to far better than the error
    assert row.verdict == "MISMATCH (likely bug)"


def test_a_perturbed_jacobian_entry_is_reported_with_both_indices():
    x = np.array([0.5, 1.5])
    jac = np.array([[np.cos(0.5), 0.0], [0.0, 2 * 1.5]])  # d[sin(x0), x1^2]/dx
    jac[1, 0] = 0.25  # planted: d y[1] / d x[0] is 0
    row = compare("x", 1, jac, lambda v: np.array([np.sin(v[0]), v[1] ** 2]), x, F64)
    assert not row.ok
    assert (row.worst.out, row.worst.index, row.worst.analytic) == ((1,), (0,), 0.25)
    assert row.worst.numeric == pytest.approx(0.0, abs=1e-9)
    assert row.numeric.shape == (2, 2) and row.numeric[0, 0] == pytest.approx(np.cos(0.5), abs=1e-8)


def test_the_exact_gradient_passes_and_still_names_its_worst_element():
    x = np.array([[0.1, -0.4], [2.0, 0.7]])
    row = compare("x", 1, np.cos(x), lambda v: np.sum(np.sin(v)), x, F64)
    assert row.ok and row.result == "ok" and row.worst is not None
    assert row.worst.abs_error <= row.max_abs < 1e-8


@pytest.mark.parametrize(
    "f, grad_at_0",
    [
        (lambda v: np.maximum(v, 0).sum(), 0.0),  # relu'(0) = 0 in PyTorch
        (lambda v: np.abs(v).sum(), 0.0),  # abs'(0) = 0
        (lambda v: np.clip(v, 0.0, 1.0).sum(), 1.0),  # clamp at its bound: 1
    ],
)
def test_a_kink_is_a_kink_only_where_the_graph_has_one(f, grad_at_0):
    x = np.array([0.0])
    row = compare("x", 1, np.array([grad_at_0]), f, x, F64, kinks=True)
    assert (row.ok, row.result, row.label) == (True, "kink", "kink")
    left, right = row.worst.one_sided
    assert min(left, right) <= grad_at_0 <= max(left, right) and left != right
    row = compare("x", 1, np.array([grad_at_0]), f, x, F64, kinks=False)  # no kink op: the central
    assert row.result != "kink" and row.worst.one_sided is None  # difference alone decides


def test_smooth_functions_with_a_large_second_derivative_are_no_kink():
    x = np.array([2.0, -1.5])
    row = compare("x", 1, 10 * x**9, lambda v: np.sum(v**10), x, F64, kinks=True)
    assert row.ok and row.result == "ok" and row.worst.one_sided is None


def test_an_analytic_value_outside_the_one_sided_differences_is_no_kink():
    x = np.array([0.0])
    row = compare("x", 1, np.array([3.0]), lambda v: np.abs(v).sum(), x, F64, kinks=True)
    assert (row.ok, row.label) == (False, "likely bug")


def test_float32_defaults_and_precision_labels():
    x32 = np.array([0.3, 1.7], dtype=np.float32)

    def f(v):
        return np.sum(np.sin(v) * np.exp(v), dtype=np.float32)

    g = (np.cos(x32.astype(np.float64)) + np.sin(x32.astype(np.float64))) * np.exp(x32.astype(np.float64))
    s32 = Settings.for_dtype(np.float32)
    assert (s32.eps, s32.atol, s32.rtol) == DTYPE_DEFAULTS["float32"]
    assert compare("x", 1, g, f, x32, s32).ok
    tight = Settings(1e-6, 1e-5, 1e-4, "float32")  # float64's settings on float32 values
    row = compare("x", 1, g, f, x32, tight)
    assert not row.ok and row.label == "precision-limited"


def test_coarsest_dtype_and_given_values_win():
    assert coarsest("float64", "float32") == "float32"
    assert coarsest("int64") == "float64"
    s = Settings.for_dtype("float32", eps=1e-4, scale=(10.0, 10.0))
    assert (s.eps, s.atol, s.rtol) == (1e-3, 1e-2, 1e-1)
