"""Simplification with its work bounded by counts, never by a clock.

SymPy's `simplify` tries everything and can take minutes on a formula a script makes in
a few lines (a nested product of sums expands exponentially). Here each rewrite has a
size bound, measured in nodes of the formula's tree (derive.tree_size, which is cheap on
shared subexpressions): a formula past a bound skips that rewrite and prints as built.
The rewrites, each kept only if it makes the formula smaller:

  factor_terms   common factors out of sums             (tree <= FACTOR_MAX)
  together       one fraction, the textbook quotient    (tree <= TOGETHER_MAX, no
                 form (1/(x + 1)^2, not -x/(x+1)^2 + ...) power above MAX_DEGREE)
  cancel         common polynomial factors cancelled    (the same bounds)
"""

from __future__ import annotations

import sympy as S
from sympy.polys.polyerrors import CoercionFailed, PolynomialError

from .derive import tree_size

FACTOR_MAX = 400
TOGETHER_MAX = 60
MAX_DEGREE = 6


def _score(e):
    return (tree_size(e), len(S.srepr(e)) if tree_size(e) <= TOGETHER_MAX else 0)


def _low_degree(e) -> bool:
    for p in e.atoms(S.Pow):
        x = p.args[1]
        if x.is_Number and abs(x) > MAX_DEGREE:
            return False
    return True


def simplify(e):
    n = tree_size(e)
    if n > FACTOR_MAX or e.is_Atom:
        return e
    best, best_score = e, _score(e)

    def consider(c):
        nonlocal best, best_score
        s = _score(c)
        if s < best_score:
            best, best_score = c, s

    try:
        consider(S.factor_terms(e))
        if n <= TOGETHER_MAX and not e.has(S.Piecewise) and _low_degree(e):
            t = S.together(e)
            consider(t)
            if tree_size(t) <= TOGETHER_MAX and _low_degree(t):
                consider(S.cancel(t))
    except (PolynomialError, CoercionFailed, NotImplementedError, TypeError, ValueError, RecursionError):
        pass
    return numbers(best)


def numbers(e):
    """Constants such as sqrt(2), pi or log(2) as floats, folded into the coefficients
    (0.3989422804014327*x, not 0.5*1.4142135623730951*x/1.772453850905516); rationals
    stay (1/(2*sqrt(x)), x^2)."""
    found, stack, seen = {}, [e], set()
    while stack:
        a = stack.pop()
        if a in seen:
            continue
        seen.add(a)
        if isinstance(a, S.Expr) and a.is_number and not a.is_Rational and not a.is_Float:
            try:
                found[a] = S.Float(float(a))
            except TypeError:
                pass
            continue
        stack.extend(a.args)
    return e.xreplace(found) if found else e
