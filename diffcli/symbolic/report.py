"""`grad --symbolic` and `check --symbolic`: the engine's run, the script's formulas, and
the checks between them.

The engine runs the script as `grad` does; free variables that no --set gives get a
stand-in value (`stand_ins`), so a script of free names runs. The formulas come from the
script itself (from_ast.SymbolicRun): each leaf's gradient is the derivative of the
target's expression (derive.derivative), simplified within bounds (simplify.py) and
printed (printer.py). Before anything is printed, the target's formula is evaluated by
diffcli at the run's values and must give the engine's value: a script that does what
--symbolic does not follow fails there, with a message, rather than print a wrong formula.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as S

from ..engine import dtypes
from ..engine.tensor import Tensor
from ..lang.errors import ScriptError
from ..lang.freevars import free_names
from ..lang.interpreter import Interpreter
from ..session import Options, execute
from ..source import Source
from . import printer
from .derive import derivative
from .from_ast import SymbolicRun
from .simplify import simplify

# distinct values away from the kinks (0, whole numbers, halves) for variables without one
_STAND_IN = 0.6180339887498949
RESULT_NAME = "formula_value_"


def stand_ins(script, sets) -> dict:
    """A value for each free variable of the script that --set does not give."""
    known = Interpreter().builtins
    names = [n for n in free_names(script, known) if n not in sets]
    return {n: round(_STAND_IN + 0.1 * i, 12) for i, n in enumerate(names)}


class Formula:
    def __init__(self, expr):
        self.expr = expr
        self.text = printer.formula(expr)
        self.latex = printer.latex(expr)


class SymbolicReport:
    """The formulas of a grad report: `target` (its expression), `leaves` [(name, tensor,
    Formula of d target / d name, or None for a leaf that needs no gradient)], `free`
    (the names whose values were stand-ins: their numbers are not reported)."""

    def __init__(self, report, target, leaves, free, values):
        self.report = report
        self.values = values  # every variable's value in the run (stand-ins too)
        self.target_name = report.target_name
        self.target = target
        self.leaves = leaves
        self.free = free

    @property
    def values_known(self):
        return not self.free


def evaluate(text, values: dict) -> float:
    """A printed formula (with its temporaries), evaluated by diffcli at `values`."""
    lines = text.split("\n")
    head = [f"{k} = {v!r}" for k, v in values.items()]
    src = Source("\n".join([*head, *lines[:-1], f"{RESULT_NAME} = {lines[-1]}"]), "<formula>")
    with dtypes.using(dtypes.defaults()):  # (the command's run keeps its dtype settings)
        run = execute(src, Options(), write=lambda s: None)
        v = run.env[RESULT_NAME]
    return float(v.array.reshape(-1)[0]) if isinstance(v, Tensor) else float(v)


def close(a: float, b: float, rtol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rtol * max(abs(a), abs(b)) + 1e-300 + rtol * 1e-12


def _scalar(t, name):
    if t.array.size != 1:
        raise ScriptError(
            "TypeError",
            f"--symbolic is for scalar variables: '{name}' has shape "
            f"{list(t.array.shape)} (give one-element tensors, or drop --symbolic)",
        )
    return float(t.array.reshape(-1)[0])


def check_scope(run, target_name):
    """Before the backward pass: every leaf that requires grad, and the target, has one element."""
    for name, t in run.leaves():
        if t.needs_grad:
            _scalar(t, name)
    t = run.env.get(target_name)
    if isinstance(t, Tensor) and t.array.size != 1:
        raise ScriptError(
            "TypeError", f"--symbolic is for scalar targets: '{target_name}' has shape {list(t.array.shape)}"
        )


def build(script, run, report, stand_in_names=()) -> SymbolicReport:
    """The formulas of `report` (a session.GradReport of `run`)."""
    srun = SymbolicRun(script, run.result.flavour, run.limits.max_statements).run()
    name = report.target_name
    if name not in srun.env or not isinstance(srun.env[name], (S.Basic, int, float)):
        raise ScriptError("NotImplementedError", f"--symbolic does not follow how '{name}' is made")
    texpr = S.sympify(srun.env[name])
    if not isinstance(texpr, S.Expr):
        raise ScriptError("TypeError", f"'{name}' is a condition, not a number: it has no gradient")
    values = {}
    for v in srun.variables:
        t = run.env.get(v)
        if not isinstance(t, Tensor) or t.grad_fn is not None:
            raise ScriptError(
                "NotImplementedError",
                f"--symbolic does not follow '{v}': it is bound to a variable and then to something else",
            )
        values[v] = _scalar(t, v)
    target = Formula(simplify(texpr))
    _consistent(target, texpr, values, report.target, name)
    leaves = []
    for leaf_name, t in report.leaves:
        if not (t.needs_grad and t.array.dtype.kind == "f"):
            leaves.append((leaf_name, t, None))
            continue
        _scalar(t, leaf_name)
        sym = srun.variables.get(leaf_name)
        bound = srun.env.get(leaf_name)
        if isinstance(bound, S.Symbol) and bound in srun.variables.values():
            sym = bound  # (`out = a`: another name of the same leaf)
        if sym is None:  # (`n = positive(a)` under no_grad: PyTorch's positive returns a itself)
            sym = next((s for v, s in srun.variables.items() if run.env.get(v) is t), None)
        if sym is None:
            raise ScriptError(
                "NotImplementedError", f"--symbolic does not follow how the leaf '{leaf_name}' is made"
            )
        leaves.append((leaf_name, t, Formula(simplify(derivative(texpr, sym)))))
    free = [n for n in stand_in_names if n in values or n in srun.variables]
    return SymbolicReport(report, target, leaves, free, values)


def build_bounded(script, run, report, stand_in_names=()) -> SymbolicReport:
    """build(), with a formula nested deeper than SymPy's recursion reaches refused in words."""
    try:
        return build(script, run, report, stand_in_names)
    except RecursionError:
        raise ScriptError(
            "RecursionError",
            "--symbolic: the formula is nested too deeply to build or "
            "print (a chain of thousands of operations); drop --symbolic",
        ) from None


def _consistent(target, texpr, values, tensor, name):
    if tensor is None or tensor.array.size != 1:
        raise ScriptError(
            "TypeError",
            f"--symbolic is for scalar targets: '{name}' has shape "
            f"{[] if tensor is None else list(tensor.array.shape)}",
        )
    engine = float(tensor.array.reshape(-1)[0])
    try:
        mine = evaluate(target.text, values)
    except ScriptError as e:
        raise ScriptError(
            "NotImplementedError",
            f"--symbolic could not evaluate the formula of '{name}': {e.type_name}: {e.message}",
        ) from None
    rtol = 1e-4 if tensor.array.dtype == np.float32 else 1e-9
    if not close(mine, engine, rtol):
        raise ScriptError(
            "NotImplementedError",
            f"--symbolic cannot give '{name}' as a formula: its formula "
            f"gives {mine!r} at the run's values, the script {engine!r} (the script does "
            "something the symbolic form does not follow)",
        )


def check_rows(sym: SymbolicReport, row_class):
    """`check --symbolic`: each leaf's formula at the run's values against the engine's
    gradient there (rows of `row_class`, session.CheckRow, named 'NAME (symbolic)')."""
    values = sym.values
    rows = []
    for name, t, f in sym.leaves:
        if f is None:
            continue
        mine = evaluate(f.text, values)
        g = t._grad
        engine = 0.0 if g is None else float(g.array.reshape(-1)[0])
        diff = (
            abs(mine - engine)
            if math.isfinite(mine) and math.isfinite(engine)
            else (0.0 if close(mine, engine, 0) else math.inf)
        )
        rel = diff / max(abs(engine), 1e-12)
        rows.append(
            row_class(
                f"{name} (symbolic)",
                1,
                diff,
                rel,
                close(mine, engine, 1e-7),
                np.asarray(engine),
                np.asarray(mine),
            )
        )
    return rows
