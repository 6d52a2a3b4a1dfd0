"""Each row's symbolic form (Row.sym, engine/ops/symforms.py) gives the row's own forward:
the form, built by SymPy at a point, against the engine's op there; and every smooth op of
the generator's table has a form."""

from __future__ import annotations

import math

import numpy as np
import pytest

from diffcli.engine import Tensor
from diffcli.engine.ops import rows
from tests.lang.script_gen import UNARY

forms = pytest.importorskip("diffcli.symbolic.forms")  # (the [symbolic] extra: SymPy)

POINTS = [(0.37, 0.61), (-0.45, 1.3), (1.7, -0.8)]
DOMAIN = {
    "acosh": 1.0,
    "log": 0.0,
    "log2": 0.0,
    "log10": 0.0,
    "sqrt": 0.0,
    "rsqrt": 0.0,
    "acos": None,
    "asin": None,
    "atanh": None,
    "log1p": -1.0,
}
WITH_OPS = [name for name, row in rows.ROWS.items() if row.sym is not None and name in rows.OPS]


def _inputs(name, row, point):
    vals = list(point[: len(row.inputs)])
    lo = DOMAIN.get(name.split(".")[0], "any")
    if lo is None:  # |x| < 1
        vals = [v / 2 for v in vals]
    elif lo != "any":
        vals = [abs(v) + lo + 0.1 for v in vals]
    return vals


@pytest.mark.parametrize("name", WITH_OPS)
@pytest.mark.parametrize("point", POINTS)
def test_form_is_the_forward(name, point):
    row = rows.ROWS[name]
    vals = _inputs(name, row, point)
    if name.startswith("pow") and vals[0] < 0:
        vals[0] = -vals[0]
    params = dict(zip(row.inputs, vals))
    params.update({a: d for a, d in row.args})
    if name == "pow.Scalar":
        return  # (its parameters are (exponent, self): pow(2, x) binds pow.Tensor_Scalar)
    expected = float(rows.OPS[name](*[Tensor(np.array(v)) for v in vals], *[d for _, d in row.args]).array)
    got = float(forms.as_expr(forms.apply(row, params)))
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15) or (math.isnan(got) and math.isnan(expected))


def test_every_smooth_op_of_the_generator_has_a_form():
    missing = [fn for fn in UNARY if rows.ROWS.get(fn) is not None and rows.ROWS[fn].sym is None]
    assert missing == []
    for fn in (
        "add",
        "sub",
        "mul",
        "div.Tensor",
        "pow.Tensor_Tensor",
        "atan2",
        "hypot",
        "logaddexp",
        "maximum",
        "minimum",
        "clamp",
        "clamp_min",
        "clamp_max",
        "leaky_relu",
        "elu",
        "softplus",
        "gelu",
        "where",
        "relu",
        "abs",
        "floor",
        "sign",
    ):
        assert rows.ROWS[fn].sym is not None, fn


from diffcli import engine  # noqa: E402

COMPOSITES = sorted(n for n, fn in engine.FUNCTIONS.items() if isinstance(getattr(fn, "sym", None), str))
COMPOSITE_POINTS = [-6.5, -0.45, 0.0, 0.37, 6.0, 7.2]  # (relu6's kinks at 0 and 6)


def test_the_composites_with_forms():
    assert COMPOSITES == ["l1_loss", "positive", "relu6", "selu", "softsign", "tanhshrink"]


@pytest.mark.parametrize("name", COMPOSITES)
@pytest.mark.parametrize("x", COMPOSITE_POINTS)
def test_composite_form_is_its_forward_and_gradient(name, x):
    """expose's `sym` of a composite (its rows are its parts, not alternatives) gives the
    op's forward, and its SymPy derivative the engine's gradient, kinks included."""
    import sympy as S

    from diffcli.symbolic.derive import derivative

    fn = engine.FUNCTIONS[name]
    a = S.Symbol("a", real=True)
    args = (a, 0.25) if name == "l1_loss" else (a,)
    e = forms.as_expr(
        forms.evaluate(
            forms.form(fn.sym), dict(zip(("a",) if name == "positive" else ("input", "target"), args))
        )
    )
    t = Tensor(np.array(x), requires_grad=True)
    out = fn(t, 0.25) if name == "l1_loss" else fn(t)
    out.backward()
    assert float(e.subs(a, x)) == pytest.approx(float(out.array), rel=1e-12, abs=1e-15)
    assert float(derivative(e, a).subs(a, x)) == pytest.approx(float(t.grad.array), rel=1e-12, abs=1e-15)
