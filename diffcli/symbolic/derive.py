"""Derivatives of SymPy expressions that share subexpressions, in time linear in them.

A script's expression is a DAG: `y = y + sin(y)`, forty times, names each `y` once, but
the tree it stands for has 2**40 leaves. SymPy's own `diff` (and `free_symbols`, `has`)
walks the tree; `derivative` walks the DAG, each distinct subexpression once (memoized on
the subexpression), with the chain rule over SymPy's `fdiff`. `tree_size` counts the
tree without walking it, so the printer knows when to name shared parts.
"""

from __future__ import annotations

import sympy as S


def depends(x):
    """A memoized `e depends on x` test."""
    memo = {}

    def dep(e):
        r = memo.get(e)
        if r is None:
            r = memo[e] = e == x or any(dep(a) for a in e.args)
        return r

    return dep


def derivative(expr, x):
    dep = depends(x)
    memo = {}

    def d(e):
        r = memo.get(e)
        if r is not None:
            return r
        if not dep(e):
            r = S.Integer(0)
        elif e == x:
            r = S.Integer(1)
        elif e.is_Add:
            r = S.Add(*[d(a) for a in e.args if dep(a)])
        elif e.is_Mul:
            args = e.args
            r = S.Add(*[S.Mul(*args[:i], d(a), *args[i + 1 :]) for i, a in enumerate(args) if dep(a)])
        elif e.is_Pow:
            b, p = e.args
            if not dep(p):
                r = p * b ** (p - 1) * d(b)
            elif not dep(b):
                r = e * S.log(b) * d(p)
            else:
                r = e * (d(p) * S.log(b) + p * d(b) / b)
        elif isinstance(e, S.Piecewise):
            r = S.Piecewise(*[(d(v), c) for v, c in e.args])
        elif isinstance(e, S.Function) or isinstance(e, S.Abs):
            r = S.Add(*[e.fdiff(i + 1) * d(a) for i, a in enumerate(e.args) if dep(a)])
        else:
            r = S.diff(e, x)
        memo[e] = r
        return r

    return d(expr)


def tree_size(expr) -> int:
    """The number of nodes of the tree `expr` stands for (shared parts counted each time)."""
    memo = {}

    def size(e):
        r = memo.get(e)
        if r is None:
            r = memo[e] = 1 + sum(size(a) for a in e.args)
        return r

    return size(expr)
