"""Done-when 1: for random scalar scripts from the script generator (every smooth op of the
op table among them), each printed formula, evaluated by diffcli itself at the script's
(random) values, equals the engine's gradient there (relative 1e-9 where finite)."""

from __future__ import annotations

import math
import os

from hypothesis import HealthCheck, given, settings

from tests.lang.script_gen import programs, smooth_values_st

from .helpers import R, formulas

SMOOTH_FAMILIES = ["unary", "binary", "scalar", "extra", "where"]


def assert_formulas_match(sym):
    for name, leaf, f in sym.leaves:
        if f is None:
            continue
        mine = R.evaluate(f.text, sym.values)
        g = leaf._grad
        engine = 0.0 if g is None else float(g.array.reshape(-1)[0])
        if not (math.isfinite(mine) and math.isfinite(engine)):
            continue
        assert abs(mine - engine) <= 1e-9 * max(abs(mine), abs(engine)) + 1e-12, (name, f.text, mine, engine)


@settings(
    max_examples=int(os.environ.get("DIFFCLI_SYMBOLIC_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
@given(
    programs(
        errors=False,
        fd_safe=True,
        dtype="float64",
        shapes=[()],
        families=SMOOTH_FAMILIES,
        values=smooth_values_st,
    )
)
def test_formulas_of_generated_scalar_scripts(prog):
    sym, _ = formulas(prog.forward_script, of=prog.target)
    assert_formulas_match(sym)
