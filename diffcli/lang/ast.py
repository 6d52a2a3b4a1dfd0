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
- operators are the source text: ``+ - * / @ // % ** & |`` (unary ``- + ~``), comparisons
  ``< <= > >= == != in not in is is not``, ``AugAssign.op`` is ``+`` for ``+=``;
- a call with ``*args`` or ``**kwargs`` is a ``StarCall`` (a Call whose ``args`` may hold
  ``Starred`` items and whose ``kwargs`` names are None for ``**mapping``); a plain call
  is a ``Call``; ``f(x for x in xs)`` is a Call of one ``GeneratorExp``;
- ``Starred`` also stands in list and tuple displays and assignment targets
  (``a, *rest = xs``); ``DictLit.keys`` holds None for a ``**mapping`` item;
- a parameter's ``kind`` is ``""`` (positional or keyword), ``"*"`` (``*args``), ``"kw"``
  (keyword-only, after ``*`` or ``*args``) or ``"**"`` (``**kwargs``); a bare ``*`` leaves
  no Param, only the ``"kw"`` kind of those after it.
"""

from __future__ import annotations

from typing import Optional, Union

_POSITION = ("line", "column", "end_line", "end_column")


class _NodeType(type):
    """Makes each class annotation a slot and a positional field, like a slotted
    dataclass, without generating code per class (that took ~20 ms of every start)."""

    def __new__(mcls, name, bases, ns):
        own = tuple(k for k in ns.get("__annotations__", {}) if k not in _POSITION)
        ns["__slots__"] = own if bases else _POSITION
        cls = super().__new__(mcls, name, bases, ns)
        cls._fields = (
            tuple(f for b in reversed(cls.__mro__[1:]) for f in getattr(b, "_fields", ()) if f not in own)
            + own
            if bases
            else ()
        )
        return cls


class Node(metaclass=_NodeType):
    """Base of every node: where it is in the source (keyword-only ``line``, ``column``,
    ``end_line``, ``end_column``, 1-based; the end is one past the last character)."""

    __hash__ = None

    def __init__(self, *args, line=0, column=0, end_line=0, end_column=0, **kw):
        names = self._fields
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} positional arguments")
        for k, v in zip(names, args):
            setattr(self, k, v)
        for k in names[len(args) :]:
            if k not in kw:
                raise TypeError(f"{type(self).__name__}() missing argument: '{k}'")
            setattr(self, k, kw.pop(k))
        if kw:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument '{next(iter(kw))}'")
        self.line, self.column, self.end_line, self.end_column = line, column, end_line, end_column

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self._fields + _POSITION)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)!r}" for k in _POSITION + self._fields]
        return f"{type(self).__name__}({', '.join(items)})"


def fields(node) -> tuple:
    """Every field name of a node, its position included."""
    return _POSITION + type(node)._fields


class Expr(Node):
    """Base of expression nodes."""


class Stmt(Node):
    """Base of statement nodes."""


# ----------------------------------------------------------------- expressions


class Num(Expr):
    """A number literal: ``value`` is an int when ``is_int``, else a float; ``text`` as written."""

    value: Union[int, float]
    is_int: bool
    text: str


class Str(Expr):
    """A string literal (adjacent literals joined), escapes decoded."""

    value: str


class FormattedValue(Expr):
    """One ``{expr!conversion:spec}`` field of an f-string; ``expr`` is source text."""

    expr: str
    conversion: Optional[str]
    spec: Optional[str]


class FString(Expr):
    """An f-string: ``parts`` are literal strs and FormattedValue fields, in order."""

    parts: list


class Const(Expr):
    """``True``, ``False`` or ``None``."""

    value: Optional[bool]


class Name(Expr):
    """A variable reference, ``id`` being its name."""

    id: str


class ListLit(Expr):
    """A list display ``[a, b]``."""

    items: list[Expr]


class TupleLit(Expr):
    """A tuple ``(a, b)``, ``(a,)``, ``()`` or bare ``a, b``; also ``x[i, j]``'s index."""

    items: list[Expr]


class BinOp(Expr):
    """``left op right`` for ``+ - * / @ // % ** & |``."""

    op: str
    left: Expr
    right: Expr


class UnaryOp(Expr):
    """``-operand``, ``+operand`` or ``~operand``."""

    op: str
    operand: Expr


class Compare(Expr):
    """``left op right`` for ``< <= > >= == != in not in is is not``."""

    op: str
    left: Expr
    right: Expr


class BoolOp(Expr):
    """``a and b and ...`` or ``a or b or ...`` (``op`` is ``"and"`` or ``"or"``)."""

    op: str
    values: list[Expr]


class Not(Expr):
    """``not operand``."""

    operand: Expr


class Call(Expr):
    """``func(*args, **dict(kwargs))``; ``kwargs`` is a list of ``(name, value)`` in source order."""

    func: Expr
    args: list[Expr]
    kwargs: list[tuple[str, Expr]]


class StarCall(Call):
    """A call that unpacks: ``args`` may hold ``Starred`` (``*xs``) and a ``kwargs`` item
    ``(None, value)`` is ``**value``."""


class Starred(Expr):
    """``*value``: unpacked into a call's arguments, a display, or an assignment target."""

    value: Expr


class Lambda(Expr):
    """``lambda params: body``."""

    params: list[Param]
    body: Expr


class SetLit(Expr):
    """A set display ``{a, b, *c}``."""

    items: list[Expr]


class DictLit(Expr):
    """A dict display ``{k: v, **m}``; ``keys[i]`` is None where ``values[i]`` is ``**m``."""

    keys: list[Optional[Expr]]
    values: list[Expr]


class Attribute(Expr):
    """``obj.name``."""

    obj: Expr
    name: str


class Subscript(Expr):
    """``obj[index]``; ``index`` is an expression, a ``Slice`` or a ``TupleLit`` of them."""

    obj: Expr
    index: Expr


class Slice(Expr):
    """``lo:hi:step`` inside brackets; absent parts are ``None``."""

    lo: Optional[Expr]
    hi: Optional[Expr]
    step: Optional[Expr]


class EllipsisLit(Expr):
    """``...``."""


class IfExp(Expr):
    """``body if test else orelse``."""

    test: Expr
    body: Expr
    orelse: Expr


class Comprehension(Node):
    """One ``for target in iter if cond ...`` clause of a comprehension."""

    target: Expr
    iter: Expr
    conds: list[Expr]


class ListComp(Expr):
    """``[element for ... in ... if ...]``; nested ``for`` clauses in source order."""

    element: Expr
    generators: list[Comprehension]


class GeneratorExp(ListComp):
    """``(element for ... in ...)``, also as a call's only argument; evaluated as a list."""


class SetComp(ListComp):
    """``{element for ... in ... if ...}``."""


class DictComp(Expr):
    """``{key: value for ... in ... if ...}``."""

    key: Expr
    value: Expr
    generators: list[Comprehension]


# ------------------------------------------------------------------ statements


class Assign(Stmt):
    """``t1 = t2 = value``; each target is a Name, Attribute, Subscript or Tuple/ListLit of them."""

    targets: list[Expr]
    value: Expr


class AugAssign(Stmt):
    """``target op= value`` (in place); ``op`` is the binary operator, e.g. ``+``."""

    target: Expr
    op: str
    value: Expr


class ExprStmt(Stmt):
    """An expression evaluated for its effect, e.g. ``z.backward()``."""

    value: Expr


class With(Stmt):
    """``with ctx [as name], ...: body``; ``items`` is a list of ``(ctx, name or None)``."""

    items: list[tuple[Expr, Optional[str]]]
    body: list[Stmt]


class For(Stmt):
    """``for target in iter: body``."""

    target: Expr
    iter: Expr
    body: list[Stmt]


class While(Stmt):
    """``while test: body``."""

    test: Expr
    body: list[Stmt]


class If(Stmt):
    """``if test: body else: orelse`` (``orelse`` is empty, or holds one If for ``elif``)."""

    test: Expr
    body: list[Stmt]
    orelse: list[Stmt]


class ExceptHandler(Node):
    """``except [exc_type [as name]]: body``."""

    exc_type: Optional[Expr]
    name: Optional[str]
    body: list[Stmt]


class Try(Stmt):
    """``try: body`` with handlers, an optional ``else`` and an optional ``finally``."""

    body: list[Stmt]
    handlers: list[ExceptHandler]
    orelse: list[Stmt]
    finalbody: list[Stmt]


class Param(Node):
    """One parameter of a ``def`` or lambda: ``name`` or ``name=default``; ``kind`` says
    which sort (see the module docstring). Annotations are not kept."""

    name: str
    default: Optional[Expr]
    kind: str


class FuncDef(Stmt):
    """``def name(params): body``, with the ``@decorator`` expressions above it (outermost first)."""

    name: str
    params: list[Param]
    body: list[Stmt]
    decorators: list[Expr]


class ClassDef(Stmt):
    """``class name(bases, **keywords): body`` with its decorators (outermost first);
    ``keywords`` is a list of ``(name, value)``."""

    name: str
    bases: list[Expr]
    keywords: list[tuple[str, Expr]]
    body: list[Stmt]
    decorators: list[Expr]


class Raise(Stmt):
    """``raise [exc [from cause]]``."""

    exc: Optional[Expr]
    cause: Optional[Expr]


class Return(Stmt):
    """``return [value]``; a bare return has ``value`` None."""

    value: Optional[Expr]


class Assert(Stmt):
    """``assert test[, msg]``."""

    test: Expr
    msg: Optional[Expr]


class Pass(Stmt):
    """``pass``."""


class Delete(Stmt):
    """``del target, ...``: names, attributes, subscripts (tuples and lists of them)."""

    targets: list


class Break(Stmt):
    """``break``."""


class Continue(Stmt):
    """``continue``."""


class Alias(Node):
    """``name [as asname]`` in an import; ``name`` may be dotted (``torch.nn.functional``)."""

    name: str
    asname: Optional[str]


class Import(Stmt):
    """``import a.b [as c], ...``."""

    names: list[Alias]


class FromImport(Stmt):
    """``from module import a [as b], ...``."""

    module: str
    names: list[Alias]


class Script(Node):
    """A whole script: its statements in order."""

    body: list[Stmt]
