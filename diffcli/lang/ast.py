"""The syntax tree of a diffcli script: one dataclass per construct.

Every node carries its source span as the keyword-only fields ``line``,
``column``, ``end_line`` and ``end_column``: 1-based, ``(line, column)`` is the
first character and ``(end_line, end_column)`` is one past the last, as Lark
reports token positions. A parenthesised expression's span includes its
parentheses. The parser builds these nodes; the interpreter evaluates them.

Shapes the interpreter should know:
- a chained comparison ``a < b <= c`` is ``BoolOp("and", [Compare("<", a, b),
  Compare("<=", b, c)])`` sharing the node ``b``;
- ``elif`` is an ``If`` alone in the ``orelse`` of the ``If`` before it;
- ``^`` and ``**`` are both ``BinOp("**", ...)``;
- operators are the source text: ``+ - * / @ // % **``, comparisons
  ``< <= > >= == != in not in is is not``, ``AugAssign.op`` is ``+`` for ``+=``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union


@dataclass(slots=True)
class Node:
    """Base of every node: where it is in the source."""
    line: int = field(default=0, kw_only=True)
    column: int = field(default=0, kw_only=True)
    end_line: int = field(default=0, kw_only=True)
    end_column: int = field(default=0, kw_only=True)


@dataclass(slots=True)
class Expr(Node):
    """Base of expression nodes."""


@dataclass(slots=True)
class Stmt(Node):
    """Base of statement nodes."""


# ----------------------------------------------------------------- expressions

@dataclass(slots=True)
class Num(Expr):
    """A number literal: ``value`` is an int when ``is_int``, else a float; ``text`` as written."""
    value: Union[int, float]
    is_int: bool
    text: str


@dataclass(slots=True)
class Str(Expr):
    """A string literal (adjacent literals joined), escapes decoded."""
    value: str


@dataclass(slots=True)
class FormattedValue(Expr):
    """One ``{expr!conversion:spec}`` field of an f-string; ``expr`` is source text."""
    expr: str
    conversion: Optional[str]
    spec: Optional[str]


@dataclass(slots=True)
class FString(Expr):
    """An f-string: ``parts`` are literal strs and FormattedValue fields, in order."""
    parts: list


@dataclass(slots=True)
class Const(Expr):
    """``True``, ``False`` or ``None``."""
    value: Optional[bool]


@dataclass(slots=True)
class Name(Expr):
    """A variable reference, ``id`` being its name."""
    id: str


@dataclass(slots=True)
class ListLit(Expr):
    """A list display ``[a, b]``."""
    items: list[Expr]


@dataclass(slots=True)
class TupleLit(Expr):
    """A tuple ``(a, b)``, ``(a,)``, ``()`` or bare ``a, b``; also ``x[i, j]``'s index."""
    items: list[Expr]


@dataclass(slots=True)
class BinOp(Expr):
    """``left op right`` for ``+ - * / @ // % **``."""
    op: str
    left: Expr
    right: Expr


@dataclass(slots=True)
class UnaryOp(Expr):
    """``-operand`` or ``+operand``."""
    op: str
    operand: Expr


@dataclass(slots=True)
class Compare(Expr):
    """``left op right`` for ``< <= > >= == != in not in is is not``."""
    op: str
    left: Expr
    right: Expr


@dataclass(slots=True)
class BoolOp(Expr):
    """``a and b and ...`` or ``a or b or ...`` (``op`` is ``"and"`` or ``"or"``)."""
    op: str
    values: list[Expr]


@dataclass(slots=True)
class Not(Expr):
    """``not operand``."""
    operand: Expr


@dataclass(slots=True)
class Call(Expr):
    """``func(*args, **dict(kwargs))``; ``kwargs`` is a list of ``(name, value)`` in source order."""
    func: Expr
    args: list[Expr]
    kwargs: list[tuple[str, Expr]]


@dataclass(slots=True)
class Attribute(Expr):
    """``obj.name``."""
    obj: Expr
    name: str


@dataclass(slots=True)
class Subscript(Expr):
    """``obj[index]``; ``index`` is an expression, a ``Slice`` or a ``TupleLit`` of them."""
    obj: Expr
    index: Expr


@dataclass(slots=True)
class Slice(Expr):
    """``lo:hi:step`` inside brackets; absent parts are ``None``."""
    lo: Optional[Expr]
    hi: Optional[Expr]
    step: Optional[Expr]


@dataclass(slots=True)
class EllipsisLit(Expr):
    """``...``."""


@dataclass(slots=True)
class IfExp(Expr):
    """``body if test else orelse``."""
    test: Expr
    body: Expr
    orelse: Expr


@dataclass(slots=True)
class Comprehension(Node):
    """One ``for target in iter if cond ...`` clause of a comprehension."""
    target: Expr
    iter: Expr
    conds: list[Expr]


@dataclass(slots=True)
class ListComp(Expr):
    """``[element for ... in ... if ...]``; nested ``for`` clauses in source order."""
    element: Expr
    generators: list[Comprehension]


# ------------------------------------------------------------------ statements

@dataclass(slots=True)
class Assign(Stmt):
    """``t1 = t2 = value``; each target is a Name, Attribute, Subscript or Tuple/ListLit of them."""
    targets: list[Expr]
    value: Expr


@dataclass(slots=True)
class AugAssign(Stmt):
    """``target op= value`` (in place); ``op`` is the binary operator, e.g. ``+``."""
    target: Expr
    op: str
    value: Expr


@dataclass(slots=True)
class ExprStmt(Stmt):
    """An expression evaluated for its effect, e.g. ``z.backward()``."""
    value: Expr


@dataclass(slots=True)
class With(Stmt):
    """``with ctx [as name], ...: body``; ``items`` is a list of ``(ctx, name or None)``."""
    items: list[tuple[Expr, Optional[str]]]
    body: list[Stmt]


@dataclass(slots=True)
class For(Stmt):
    """``for target in iter: body``."""
    target: Expr
    iter: Expr
    body: list[Stmt]


@dataclass(slots=True)
class While(Stmt):
    """``while test: body``."""
    test: Expr
    body: list[Stmt]


@dataclass(slots=True)
class If(Stmt):
    """``if test: body else: orelse`` (``orelse`` is empty, or holds one If for ``elif``)."""
    test: Expr
    body: list[Stmt]
    orelse: list[Stmt]


@dataclass(slots=True)
class ExceptHandler(Node):
    """``except [exc_type [as name]]: body``."""
    exc_type: Optional[Expr]
    name: Optional[str]
    body: list[Stmt]


@dataclass(slots=True)
class Try(Stmt):
    """``try: body`` with handlers, an optional ``else`` and an optional ``finally``."""
    body: list[Stmt]
    handlers: list[ExceptHandler]
    orelse: list[Stmt]
    finalbody: list[Stmt]


@dataclass(slots=True)
class Param(Node):
    """One parameter of a ``def``: ``name`` or ``name=default``."""
    name: str
    default: Optional[Expr]


@dataclass(slots=True)
class FuncDef(Stmt):
    """``def name(params): body``."""
    name: str
    params: list[Param]
    body: list[Stmt]


@dataclass(slots=True)
class Return(Stmt):
    """``return [value]``; a bare return has ``value`` None."""
    value: Optional[Expr]


@dataclass(slots=True)
class Pass(Stmt):
    """``pass``."""


@dataclass(slots=True)
class Break(Stmt):
    """``break``."""


@dataclass(slots=True)
class Continue(Stmt):
    """``continue``."""


@dataclass(slots=True)
class Alias(Node):
    """``name [as asname]`` in an import; ``name`` may be dotted (``torch.nn.functional``)."""
    name: str
    asname: Optional[str]


@dataclass(slots=True)
class Import(Stmt):
    """``import a.b [as c], ...``."""
    names: list[Alias]


@dataclass(slots=True)
class FromImport(Stmt):
    """``from module import a [as b], ...``."""
    module: str
    names: list[Alias]


@dataclass(slots=True)
class Script(Node):
    """A whole script: its statements in order."""
    body: list[Stmt]
