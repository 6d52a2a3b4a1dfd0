"""Done-when 1, against PyTorch: the formulas of random scalar scripts (script_gen's, every
smooth op among them), evaluated by diffcli at the script's values, equal PyTorch's
gradients of the same program (relative 1e-9 where finite). Skipped without torch."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings

from tests.lang.script_gen import programs, smooth_values_st

from .helpers import R, formulas
from .test_generated import SMOOTH_FAMILIES

torch = pytest.importorskip("torch")


def torch_gradients(prog):
    n = len(prog.forward_script.splitlines())
    code = "\n".join(prog.torch_program.splitlines()[:n])
    ns = {}
    exec(compile(code, "<torch program>", "exec"), ns)  # the generator's own program, line for line
    leaves = [ns[lf.name] for lf in prog.leaves]
    out = ns[prog.target]
    grads = torch.autograd.grad(out, leaves, allow_unused=True)
    return {lf.name: (0.0 if g is None else float(g)) for lf, g in zip(prog.leaves, grads)}


SCALAR_PROGRAMS = programs(
    errors=False,
    fd_safe=True,
    dtype="float64",
    shapes=[()],
    families=SMOOTH_FAMILIES,
    values=smooth_values_st,
)


def check_against_pytorch(prog):
    torch.set_default_dtype(torch.float64)  # (the math flavour's program runs in float64, see script_gen)
    try:
        expected = torch_gradients(prog)
    finally:
        torch.set_default_dtype(torch.float32)
    sym, _ = formulas(prog.forward_script, of=prog.target)
    # PyTorch's hardsigmoid_backward multiplies by 1.0f / 6.0f, a float32 constant, in
    # float64 too (diffcli's engine does the same; the formula is the exact 1/6).
    rel = 1e-7 if "hardsigmoid" in prog.forward_script else 1e-9
    for name, _, f in sym.leaves:
        if f is None or name not in expected:
            continue
        mine = R.evaluate(f.text, sym.values)
        theirs = expected[name]
        if math.isfinite(mine) and math.isfinite(theirs):
            assert abs(mine - theirs) <= rel * max(abs(mine), abs(theirs)) + 1e-12, (
                name,
                f.text,
                mine,
                theirs,
            )


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(SCALAR_PROGRAMS)
def test_formulas_match_pytorch(prog):
    check_against_pytorch(prog)


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(SCALAR_PROGRAMS)
def test_formulas_match_pytorch_long(prog):
    check_against_pytorch(prog)


def test_readme_example_matches_pytorch():
    a, b, w = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (1.0, 2.0, 0.5))
    p = torch.sin((0.5 * ((a + b) * w) ** 2 - 1) / 2 - 0.1)
    expected = [float(g) for g in torch.autograd.grad(p, [a, b, w])]
    sym, _ = formulas("x = a + b; y = x*w; p = sin((0.5*y^2-1)/2-0.1)", sets={"a": 1.0, "b": 2.0, "w": 0.5})
    got = [R.evaluate(f.text, sym.values) for _, _, f in sym.leaves]
    assert got == pytest.approx(expected, rel=1e-12)
