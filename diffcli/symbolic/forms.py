"""The SymPy side of the rows' symbolic forms (`Row.sym`, engine/ops/symforms.py).

`PRIMITIVES` are the functions a form may call, as SymPy builds them; `form(row)` parses a
row's text once (with diffcli's own parser) and `apply(row, params)` evaluates it with the
row's parameters bound to SymPy expressions or Python values.

The discontinuous functions (floor, ceil, round, trunc, sign) and `detach` are SymPy
functions of our own whose derivative is 0, as PyTorch's gradient is; `where` is a
Piecewise, so SymPy's derivative of it is the derivative of the branch the condition picks
(and a tie or a kink takes the branch PyTorch's gradient takes there, by how each form is
written).
"""

from __future__ import annotations

import functools

import sympy as S
from sympy.core.function import Function

from ..lang import ast as A
from ..lang.errors import ScriptError


class _Flat(Function):
    """A function whose derivative is 0 everywhere it is taken (PyTorch's convention for
    floor, round, sign...: the jumps are not seen)."""

    def fdiff(self, argindex=1):
        return S.Integer(0)

    def _latex(self, printer, exp=None):
        return _power(rf"\operatorname{{{self.script_name}}}\left({printer._print(self.args[0])}\right)", exp)


def _power(tex, exp):
    """`tex` raised to `exp` (SymPy's LaTeX printer hands a power's exponent to the base)."""
    return tex if exp is None else rf"{tex}^{{{exp}}}"


def _flat(name, numeric):
    def eval_(cls, x):
        if x.is_Number:
            return numeric(x)
        return None

    return type(
        name.capitalize() + "_", (_Flat,), {"script_name": name, "eval": classmethod(eval_), "nargs": 1}
    )


def _round_half_even(x):
    return S.Integer(round(float(x)))


Floor = _flat("floor", lambda x: S.floor(x))
Ceil = _flat("ceil", lambda x: S.ceiling(x))
Trunc = _flat("trunc", lambda x: S.Integer(int(float(x))))
Round = _flat("round", _round_half_even)
Sign = _flat("sign", lambda x: S.sign(x))
Detach = _flat("detach", lambda x: x)
Floor._latex = lambda self, p, exp=None: _power(rf"\left\lfloor {p._print(self.args[0])} \right\rfloor", exp)
Ceil._latex = lambda self, p, exp=None: _power(rf"\left\lceil {p._print(self.args[0])} \right\rceil", exp)
FLAT = (Floor, Ceil, Trunc, Round, Sign, Detach)


def as_expr(v):
    """A SymPy expression for a number, a boolean or an expression."""
    if isinstance(v, S.Basic):
        if isinstance(v, S.logic.boolalg.Boolean) and not isinstance(v, S.Expr):
            return S.Piecewise((S.Integer(1), v), (S.Integer(0), True))
        return v
    if isinstance(v, bool):
        return S.Integer(int(v))
    if isinstance(v, int):
        return S.Integer(v)
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 2**53:
            return S.Integer(int(v))  # (1.0 * x is x: a default beta=1.0 does not show)
        return S.Float(v)
    raise TypeError(f"not a number: {v!r}")


def as_condition(v):
    if isinstance(v, (bool, S.logic.boolalg.BooleanAtom)):
        return S.true if v else S.false
    if isinstance(v, S.logic.boolalg.Boolean):
        return v
    return S.Ne(as_expr(v), 0)


def where(cond, a, b):
    if isinstance(cond, bool):
        return a if cond else b
    c = as_condition(cond)
    if c is S.true:
        return as_expr(a)
    if c is S.false:
        return as_expr(b)
    return S.Piecewise((as_expr(a), c), (as_expr(b), True))


def clamp(x, lo, hi):
    x = as_expr(x)
    if lo is not None and hi is not None:
        lo, hi = as_expr(lo), as_expr(hi)
        return S.Piecewise((lo, x < lo), (hi, x > hi), (x, True))
    if lo is not None:
        lo = as_expr(lo)
        return S.Piecewise((lo, x < lo), (x, True))
    hi = as_expr(hi)
    return S.Piecewise((hi, x > hi), (x, True))


def _unary(f):
    return lambda x: f(as_expr(x))


PRIMITIVES = {
    **{
        n: _unary(getattr(S, n))
        for n in "sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp erf".split()
    },
    "log": _unary(S.log),
    "sqrt": _unary(S.sqrt),
    "abs": _unary(S.Abs),
    "atan2": lambda y, x: S.atan2(as_expr(y), as_expr(x)),
    "floor": _unary(Floor),
    "ceil": _unary(Ceil),
    "trunc": _unary(Trunc),
    "round": _unary(Round),
    "sign": _unary(Sign),
    "detach": _unary(Detach),
    "where": where,
    "clamp": clamp,
}
CONSTANTS = {"pi": S.pi, "None": None}

_ARITH = {
    "+": lambda a, b: as_expr(a) + as_expr(b),
    "-": lambda a, b: as_expr(a) - as_expr(b),
    "*": lambda a, b: as_expr(a) * as_expr(b),
    "/": lambda a, b: as_expr(a) / as_expr(b),
    "**": lambda a, b: as_expr(a) ** as_expr(b),
}
_CMP = {"<": S.Lt, "<=": S.Le, ">": S.Gt, ">=": S.Ge, "==": S.Eq, "!=": S.Ne}


def arith(op, a, b):
    """a OP b on Python numbers (exactly as Python) or SymPy expressions."""
    if not isinstance(a, S.Basic) and not isinstance(b, S.Basic):
        if op == "**":
            return a**b
        return {"+": a + b, "-": a - b, "*": a * b}.get(op) if op != "/" else a / b
    return _ARITH[op](a, b)


def compare(op, a, b):
    if not isinstance(a, S.Basic) and not isinstance(b, S.Basic):
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]
    r = _CMP[op](as_expr(a), as_expr(b))
    return r


def logical(op, a, b=None):
    if op == "~":
        return (not a) if isinstance(a, bool) else S.Not(as_condition(a))
    if isinstance(a, bool) and isinstance(b, bool):
        return (a and b) if op == "&" else (a or b)
    return (S.And if op == "&" else S.Or)(as_condition(a), as_condition(b))


# --- the rows' forms -----------------------------------------------------------------


@functools.cache
def form(text: str):
    """The parsed expression of a form's text."""
    from ..lang.parse import parse

    return parse(text, "<symbolic form>").body[0].value


def apply(row, params: dict):
    """The row's forward with its parameters bound (SymPy expressions or Python values)."""
    return evaluate(form(row.sym), params)


def evaluate(e, env):
    """A form's expression (numbers, names, arithmetic, comparisons, calls of PRIMITIVES)."""
    cls = e.__class__
    if cls is A.Num:
        return e.value
    if cls is A.Str:
        return e.value
    if cls is A.Name:
        if e.id in env:
            return env[e.id]
        return CONSTANTS[e.id]
    if cls is A.Const:
        return e.value
    if cls is A.BinOp:
        a, b = evaluate(e.left, env), evaluate(e.right, env)
        if e.op in ("&", "|"):
            return logical(e.op, a, b)
        return arith(e.op, a, b)
    if cls is A.UnaryOp:
        v = evaluate(e.operand, env)
        if e.op == "-":
            return -v if not isinstance(v, S.Basic) else -as_expr(v)
        if e.op == "~":
            return logical("~", v)
        return v
    if cls is A.Compare:
        return compare(e.op, evaluate(e.left, env), evaluate(e.right, env))
    if cls is A.Call and e.func.__class__ is A.Name and e.func.id in PRIMITIVES:
        return PRIMITIVES[e.func.id](*[evaluate(a, env) for a in e.args])
    raise ScriptError("NotImplementedError", f"a symbolic form uses {cls.__name__}", e.line, e.column)
