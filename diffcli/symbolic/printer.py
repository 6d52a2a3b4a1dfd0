"""Formulas as text: diffcli's own math syntax (`formula`), and LaTeX (`latex`).

The diffcli text is a script expression that diffcli evaluates as it stands: `^` for
powers, `where(c, a, b)` for Piecewise, `abs`, `sign`, `floor`, `detach`... Numbers
without a variable in them print as their float (`log(2)` is 0.6931471805599453: diffcli's
`log` takes a tensor, not a Python number), with Python's shortest repr.

A formula whose tree is large because it repeats shared parts (`y = y + sin(y)` forty
times) prints with temporaries: lines `t1 = ...` before the expression, one per shared
part, so the text stays as large as the DAG, not the tree; the whole is still a diffcli
script (its last line is the formula).
"""

from __future__ import annotations

import sympy as S
from sympy.printing.precedence import PRECEDENCE, precedence
from sympy.printing.str import StrPrinter

from . import forms
from .derive import tree_size

TREE_LIMIT = 2_000  # a larger tree prints with temporaries for its shared parts
DEPTH_LIMIT = 40  # ... and so does a deeper one, every DEPTH_LIMIT levels
_FUNCTION_NAMES = {"Abs": "abs", "ceiling": "ceil", "sign": "sign", "floor": "floor"}


def _number(v: float) -> str:
    if v != v:
        return "float('nan')"
    if v in (float("inf"), float("-inf")):
        return "float('inf')" if v > 0 else "-float('inf')"
    return repr(v)


class DiffcliPrinter(StrPrinter):
    def __init__(self, temps=None):
        super().__init__()
        self.temps = temps or {}

    def _print(self, expr, **kw):
        name = self.temps.get(expr)
        if name is not None:
            return name
        if isinstance(expr, S.Expr) and expr.is_number and not expr.is_Rational and not expr.is_Float:
            try:
                return _number(float(expr))
            except TypeError:
                return _number(float("nan"))
        return super()._print(expr, **kw)

    def _print_Float(self, expr):
        return _number(float(expr))

    def _print_Infinity(self, expr):
        return "float('inf')"

    def _print_NegativeInfinity(self, expr):
        return "-float('inf')"

    def _print_NaN(self, expr):
        return "float('nan')"

    _print_ComplexInfinity = _print_NaN

    def _print_Pow(self, expr, rational=False):
        b, e = expr.args
        if e == S.Rational(1, 2):
            return f"sqrt({self._print(b)})"
        if e == -1:
            return f"1/{self.parenthesize(b, PRECEDENCE['Mul'], strict=True)}"
        if e == S.Rational(-1, 2):
            return f"1/sqrt({self._print(b)})"
        if e.is_Rational and e < 0:
            return f"1/{self.parenthesize(S.Pow(b, -e, evaluate=False), PRECEDENCE['Mul'], strict=True)}"
        base = self.parenthesize(b, PRECEDENCE["Pow"], strict=True)
        if b.is_Number and b < 0:
            base = f"({self._print(b)})"
        exp = self._print(e)
        if not (e.is_Integer and e >= 0) and not (e.is_Symbol or e.is_Float and e >= 0):
            exp = f"({exp})"
        return f"{base}^{exp}"

    def _print_Piecewise(self, expr):
        out = "float('nan')"
        for value, cond in reversed(expr.args):
            if cond is S.true:
                out = self._print(value)
            else:
                out = f"where({self._print(cond)}, {self._print(value)}, {out})"
        return out

    def _print_Relational(self, expr):
        op = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}[expr.rel_op]
        p = precedence(expr)
        return f"{self.parenthesize(expr.lhs, p)} {op} {self.parenthesize(expr.rhs, p)}"

    def _print_Not(self, expr):
        return f"~({self._print(expr.args[0])})"

    def _print_And(self, expr):
        return " & ".join(f"({self._print(a)})" for a in expr.args)

    def _print_Or(self, expr):
        return " | ".join(f"({self._print(a)})" for a in expr.args)

    def _print_ITE(self, expr):
        c, a, b = expr.args
        if a in (S.true, S.false) or b in (S.true, S.false):  # (no bare True/False beside a tensor)
            return self._print(S.Or(S.And(c, a), S.And(S.Not(c), b)))
        c, a, b = (self._print(x) for x in expr.args)
        return f"(({c}) & ({a})) | (~({c}) & ({b}))"

    def _print_BooleanTrue(self, expr):
        return "True"

    def _print_BooleanFalse(self, expr):
        return "False"

    def _print_Heaviside(self, expr):
        x = self._print(expr.args[0])
        h0 = expr.args[1] if len(expr.args) > 1 else S.Rational(1, 2)
        return f"where({x} > 0, 1.0, where({x} == 0, {self._print(h0)}, 0.0))"

    def _print_Function(self, expr):
        if isinstance(expr, forms.FLAT):
            name = expr.script_name
        else:
            name = _FUNCTION_NAMES.get(expr.func.__name__, expr.func.__name__)
        return f"{name}({', '.join(self._print(a) for a in expr.args)})"

    _print_Abs = _print_sign = _print_floor = _print_ceiling = _print_Function
    _print_atan2 = _print_erf = _print_exp = _print_log = _print_Function


def _shared(expr):
    """The subexpressions to name: those the DAG of `expr` uses more than once (and are not
    tiny), and every DEPTH_LIMIT-th level of a deep chain (a script's parser takes 200
    nested brackets); inputs first."""
    uses, order, seen = {}, [], set()
    stack = [(expr, False)]
    while stack:
        e, done = stack.pop()
        if done:
            order.append(e)
            continue
        uses[e] = uses.get(e, 0) + 1
        if e in seen:
            continue
        seen.add(e)
        stack.append((e, True))
        stack.extend((a, False) for a in e.args)
    named, depth = [], {}
    for e in order:
        d = 1 + max((depth[a] for a in e.args), default=0)
        nameable = e.args and not e.is_number and isinstance(e, S.Expr) and e is not expr
        if nameable and (uses[e] > 1 and tree_size(e) > 4 or d >= DEPTH_LIMIT):
            named.append(e)
            d = 1
        depth[e] = d
    return named


def _too_deep(expr) -> bool:
    depth = {}
    stack = [(expr, False)]
    while stack:
        e, done = stack.pop()
        if done:
            depth[e] = 1 + max((depth[a] for a in e.args), default=0)
            if depth[e] >= DEPTH_LIMIT:
                return True
        elif e not in depth:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if a not in depth)
    return False


def formula(expr) -> str:
    """`expr` in diffcli syntax (with `t1 = ...` lines first when it is a large or deep DAG)."""
    if tree_size(expr) <= TREE_LIMIT and not _too_deep(expr):
        return DiffcliPrinter()._print(expr)
    temps = {}
    lines = []
    for i, e in enumerate(_shared(expr), 1):
        text = DiffcliPrinter(temps)._print(e)
        temps[e] = f"t{i}"
        lines.append(f"t{i} = {text}")
    lines.append(DiffcliPrinter(temps)._print(expr))
    return "\n".join(lines)


def latex(expr) -> str:
    """`expr` in LaTeX (SymPy's printer; a large DAG is not spelt out: its formula is)."""
    if tree_size(expr) > TREE_LIMIT or _too_deep(expr):
        return r"\text{(too large for LaTeX: see the formula)}"
    return S.latex(expr)
