"""Rows' `kink` flag (rows.Kink): which ops say where they are not differentiable, that
each predicate finds its points (and only those), and that the value a kink states is
the gradient the engine computes there (the engine's is pinned to PyTorch's by the
edge-point goldens of test_edge_points.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diffcli.engine import FUNCTIONS, Tensor, grad
from diffcli.engine.ops import rows

KINKED = set(
    """
abs relu leaky_relu elu sign floor ceil trunc round round.decimals
clamp clamp.Tensor clamp_min clamp_max where
maximum minimum max max.dim min min.dim amax norm
remainder.Scalar remainder.Tensor div.Tensor_mode atan2 hypot
frac sgn fmod.Scalar fmod.Tensor
masked_fill.Scalar masked_fill.Tensor masked_select masked_scatter
sort sort.stable topk median median.dim kthvalue mode cummax cummin
hardtanh threshold hardsigmoid hardswish hardshrink softshrink
""".split()
)


def test_the_rows_with_a_kink_are_exactly_the_non_smooth_ops():
    assert set(rows.kinks()) == KINKED


def test_every_kink_has_a_text_and_a_value():
    for name, kink in rows.kinks().items():
        assert kink.text and kink.value, name
        assert rows.ROWS[name].kink is kink


# (row, values at a kink, values away from it): each predicate over numpy values
POINTS = [
    ("abs", dict(self=np.array([0.0, -0.0])), dict(self=np.array([0.5, -2.0]))),
    ("relu", dict(self=np.array([0.0])), dict(self=np.array([1.5, -1.5]))),
    ("leaky_relu", dict(self=np.array([0.0])), dict(self=np.array([0.1, -0.1]))),
    ("elu", dict(self=np.array([0.0]), alpha=2.0), dict(self=np.array([0.0]), alpha=1.0)),
    (
        "hardtanh",
        dict(self=np.array([-1.0, 1.0]), min_val=-1.0, max_val=1.0),
        dict(self=np.array([0.5, -2.0]), min_val=-1.0, max_val=1.0),
    ),
    ("threshold", dict(self=np.array([0.5]), threshold=0.5), dict(self=np.array([0.4, 0.6]), threshold=0.5)),
    ("hardsigmoid", dict(self=np.array([-3.0, 3.0])), dict(self=np.array([0.0, 2.9]))),
    ("hardswish", dict(self=np.array([-3.0, 3.0])), dict(self=np.array([0.0, -2.9]))),
    ("hardshrink", dict(self=np.array([-0.5, 0.5]), lambd=0.5), dict(self=np.array([0.4, 0.6]), lambd=0.5)),
    ("softshrink", dict(self=np.array([-0.5, 0.5]), lambd=0.5), dict(self=np.array([0.4, 0.6]), lambd=0.5)),
    ("sign", dict(self=np.array([0.0])), dict(self=np.array([3.0, -3.0]))),
    ("floor", dict(self=np.array([2.0, -1.0, 0.0])), dict(self=np.array([2.5, -0.5]))),
    ("ceil", dict(self=np.array([2.0])), dict(self=np.array([2.25]))),
    ("trunc", dict(self=np.array([2.0, -3.0])), dict(self=np.array([0.0, 0.5]))),
    ("round", dict(self=np.array([0.5, 2.5, -1.5])), dict(self=np.array([0.4, 2.0]))),
    ("round.decimals", dict(self=np.array([0.25]), decimals=1), dict(self=np.array([0.25]), decimals=2)),
    (
        "clamp",
        dict(self=np.array([0.0, 1.0]), min=0.0, max=1.0),
        dict(self=np.array([0.5, 2.0]), min=0.0, max=1.0),
    ),
    ("clamp_min", dict(self=np.array([0.0]), min=0.0), dict(self=np.array([0.5]), min=0.0)),
    ("clamp_max", dict(self=np.array([1.0]), max=1.0), dict(self=np.array([0.5]), max=1.0)),
    (
        "clamp.Tensor",
        dict(self=np.array([0.0]), min=np.array([0.0]), max=np.array([1.0])),
        dict(self=np.array([0.5]), min=np.array([0.0]), max=np.array([1.0])),
    ),
    (
        "maximum",
        dict(self=np.array([1.0]), other=np.array([1.0])),
        dict(self=np.array([1.0]), other=np.array([2.0])),
    ),
    (
        "minimum",
        dict(self=np.array([-1.0]), other=np.array([-1.0])),
        dict(self=np.array([1.0]), other=np.array([2.0])),
    ),
    (
        "max",
        dict(self=np.array([3.0, 1.0, 3.0]), result=np.array(3.0)),
        dict(self=np.array([3.0, 1.0, 2.0]), result=np.array(3.0)),
    ),
    (
        "max.dim",
        dict(self=np.array([[2.0, 2.0], [1.0, 0.0]]), result=np.array([2.0, 1.0]), dim=1),
        dict(self=np.array([[2.0, 1.0], [1.0, 0.0]]), result=np.array([2.0, 1.0]), dim=1),
    ),
    (
        "min.dim",
        dict(self=np.array([[0.0, 0.0]]), result=np.array([[0.0]]), dim=-1, keepdim=True),
        dict(self=np.array([[0.0, 1.0]]), result=np.array([[0.0]]), dim=-1, keepdim=True),
    ),
    (
        "amax",
        dict(self=np.array([1.0, 1.0]), result=np.array(1.0)),
        dict(self=np.array([1.0, 0.0]), result=np.array(1.0)),
    ),
    ("norm", dict(self=np.array([0.0, 0.0])), dict(self=np.array([0.0, 1.0]))),
    ("remainder.Scalar", dict(self=np.array([3.0, -2.0]), other=1.0), dict(self=np.array([2.5]), other=1.0)),
    (
        "remainder.Tensor",
        dict(self=np.array([4.0]), other=np.array([2.0])),
        dict(self=np.array([3.0]), other=np.array([2.0])),
    ),
    (
        "div.Tensor_mode",
        dict(self=np.array([4.0]), other=np.array([2.0]), rounding_mode="floor"),
        dict(self=np.array([0.0]), other=np.array([2.0]), rounding_mode="trunc"),
    ),
    (
        "atan2",
        dict(self=np.array([0.0]), other=np.array([-0.0])),
        dict(self=np.array([0.0]), other=np.array([1.0])),
    ),
    (
        "hypot",
        dict(self=np.array([0.0]), other=np.array([0.0])),
        dict(self=np.array([0.0]), other=np.array([1.0])),
    ),
    ("frac", dict(self=np.array([2.0, -1.0])), dict(self=np.array([0.0, 0.5]))),
    ("sgn", dict(self=np.array([0.0])), dict(self=np.array([3.0, -3.0]))),
    ("fmod.Scalar", dict(self=np.array([3.0, -2.0]), other=1.0), dict(self=np.array([2.5, 0.0]), other=1.0)),
    (
        "fmod.Tensor",
        dict(self=np.array([4.0]), other=np.array([2.0])),
        dict(self=np.array([3.0]), other=np.array([2.0])),
    ),
]


@pytest.mark.parametrize("name, at, away", POINTS, ids=[p[0] for p in POINTS])
def test_the_predicate_finds_the_kink_and_nothing_else(name, at, away):
    row = rows.ROWS[name]
    assert row.kink_at(**at).any()
    assert not row.kink_at(**away).any()


def test_a_tie_is_the_tied_elements():
    assert rows.ROWS["max"].kink_at(self=np.array([3.0, 1.0, 3.0]), result=np.array(3.0)).tolist() == [
        True,
        False,
        True,
    ]
    at = rows.ROWS["max.dim"].kink_at(
        self=np.array([[2.0, 2.0], [1.0, 0.0]]), result=np.array([2.0, 1.0]), dim=1
    )
    assert at.tolist() == [[True, True], [False, False]]


def test_where_says_its_points_are_not_seen_from_its_inputs():
    assert rows.ROWS["where"].kink.where is None
    assert rows.ROWS["where"].kink_at(self=np.array([1.0]), other=np.array([2.0])) is None
    assert rows.ROWS["sin"].kink_at(self=np.array([0.0])) is None


# (row, the call at a kink point, the value its kink states): the engine's gradient there
F = FUNCTIONS
AT_KINK = [
    ("abs", lambda x: F["abs"](x), 0.0),
    ("relu", lambda x: F["relu"](x), 0.0),
    ("leaky_relu", lambda x: F["leaky_relu"](x, 0.25), 0.25),
    ("elu", lambda x: F["elu"](x, 2.0), 2.0),
    ("sign", lambda x: F["sign"](x), 0.0),
    ("floor", lambda x: F["floor"](x + 1.0), 0.0),
    ("round", lambda x: F["round"](x + 0.5), 0.0),
    ("clamp", lambda x: F["clamp"](x, 0.0, 1.0), 1.0),
    ("clamp_min", lambda x: F["clamp_min"](x, 0.0), 1.0),
    ("maximum", lambda x: F["maximum"](x, Tensor(np.array(0.0))), 0.5),
    ("remainder.Scalar", lambda x: F["remainder"](x + 2.0, 1.0), 1.0),
    ("frac", lambda x: F["frac"](x + 1.0), 1.0),
    ("sgn", lambda x: F["sgn"](x), 0.0),
    ("fmod.Scalar", lambda x: F["fmod"](x + 2.0, 1.0), 1.0),
    ("atan2", lambda x: F["atan2"](x, Tensor(np.array(0.0))), 0.0),
    ("hypot", lambda x: F["hypot"](x, Tensor(np.array(0.0))), math.nan),
    ("hardtanh", lambda x: F["hardtanh"](x - 1.0), 0.0),
    ("hardtanh", lambda x: F["relu6"](x + 6.0), 0.0),
    ("threshold", lambda x: F["threshold"](x, 0.0, 5.0), 0.0),
    ("hardsigmoid", lambda x: F["hardsigmoid"](x + 3.0), 0.0),
    ("hardshrink", lambda x: F["hardshrink"](x + 0.5), 0.0),
    ("softshrink", lambda x: F["softshrink"](x - 0.5), 0.0),
]


@pytest.mark.parametrize("name, call, value", AT_KINK, ids=[a[0] for a in AT_KINK])
def test_the_engine_gradient_at_the_kink_is_the_stated_value(name, call, value):
    x = Tensor(np.array(0.0), requires_grad=True)
    (g,) = grad(call(x), [x])
    assert np.array_equal(
        g.numpy() if hasattr(g, "numpy") else np.asarray(g.item()), np.asarray(value), equal_nan=True
    )
    stated = rows.ROWS[name].kink.value.split(" ")[0]
    args = {"leaky_relu": {"negative_slope": 0.25}, "elu": {"alpha": 2.0}}.get(name, {})
    assert float(args.get(stated, stated)) == value or (math.isnan(value) and stated == "nan")
