"""The AST builder: the grammar's callbacks, one method per production alias.

`Builder` is the inline transformer of the diffscript grammar (``grammar/diffscript.lark``):
each method receives a production's children, tokens included, and returns one AST node
with its span. Both parsers call it: Lark's (`diffcli.lang.larkparse`) and the lean table
driver (`diffcli.lang.fastparse`). This module imports no Lark, so the driver can run
without it: a token is any `str` subclass with Lark's token fields (`tokens.Token`, or
`lark.Token`), and tokens are the only `str` children a method receives (comp_op's joined
text goes only to `compare`).
"""

from __future__ import annotations

from diffcli.lang import ast
from diffcli.lang.strings import string_value
from diffcli.lang.syntaxchecks import check_del_target, check_future_imports, check_target, check_value
from diffcli.lang.tokens import Token, error_at

# ---------------------------------------------------------------- transformer


def _span(node, first, last):
    """Give `node` the span from the start of `first` to the end of `last` (tokens or nodes)."""
    node.line = first.line
    node.column = first.column
    node.end_line = last.end_line
    node.end_column = last.end_column
    return node


_new = object.__new__  # the hot nodes below are built field by field: 5x faster than
# Node.__init__ followed by _span (100,000-statement scripts)


def _nodes(children) -> list:
    """The children that are not bare tokens (punctuation and keywords)."""
    return [c for c in children if not isinstance(c, str)]


def _dotted(first: Token, last: Token, value: str) -> Token:
    """One token for a dotted name, of the same class as the parser's own tokens."""
    return first.__class__(
        "DOTTED_NAME",
        value,
        first.start_pos,
        first.line,
        first.column,
        last.end_line,
        last.end_column,
        last.end_pos,
    )


class _Keyword:
    """A ``name=value`` call argument, until `Builder.call` files it."""

    __slots__ = ("name", "value", "key")

    def __init__(self, name: str, value, key=None):
        self.name, self.value, self.key = name, value, key


class _DoubleStarred:
    """A ``**mapping`` call argument or dict item, until `Builder.call`/`dict_lit` files it."""

    __slots__ = ("value", "token")

    def __init__(self, value, token):
        self.value, self.token = value, token


class _StarParam:
    """A ``*``, ``*args`` or ``**kwargs`` parameter, until `Builder.params` files it."""

    __slots__ = ("kind", "param", "token")

    def __init__(self, kind: str, param, token):
        self.kind, self.param, self.token = kind, param, token


class Builder:
    """Inline transformer: one method per grammar alias, each building one AST node.

    A method receives the production's children, tokens included, and returns the
    node with its span. Helper productions return lists or tuples.
    """

    # --------------------------------------------------------- script, blocks
    def script(self, c):
        body = []
        for item in c:
            if isinstance(item, list):
                body.extend(item)
            elif not isinstance(item, str):
                body.append(item)
        check_future_imports(body)
        return ast.Script(body)

    def simple_stmt(self, c):
        return [s for s in c if isinstance(s, ast.Stmt)]

    def suite(self, c):
        if len(c) == 1:
            return c[0]
        return self.script(c).body

    # ----------------------------------------------------- simple statements
    def expr_stmt(self, c):
        value = c[0]
        check_value(value)
        return _span(ast.ExprStmt(value), value, value)

    def assign(self, c):
        targets = c[0:-1:2]
        for target in targets:
            check_target(target)
        check_value(c[-1])
        node = _new(ast.Assign)
        node.targets = targets
        node.value = c[-1]
        return _span(node, c[0], c[-1])

    def aug_assign(self, c):
        target, op, value = c
        check_target(target, augmented_op=op[:-1])
        check_value(value)
        return _span(ast.AugAssign(target, op.value[:-1], value), target, value)

    def ann_assign(self, c):
        """`target: annotation [= value]`: the annotation is not evaluated (as for a def's
        parameters); without a value nothing is bound, as in Python."""
        target = c[0]
        if isinstance(target, (ast.TupleLit, ast.ListLit)):
            kind = "tuple" if isinstance(target, ast.TupleLit) else "list"
            raise error_at(target, f"only single target (not {kind}) can be annotated")
        if not isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
            raise error_at(target, "illegal target for annotation")
        if "=" not in c:
            return _span(ast.Pass(), target, c[2])
        node = _new(ast.Assign)
        node.targets = [target]
        node.value = c[-1]
        check_value(node.value)
        return _span(node, target, c[-1])

    def pass_stmt(self, c):
        return _span(ast.Pass(), c[0], c[0])

    def break_stmt(self, c):
        return _span(ast.Break(), c[0], c[0])

    def continue_stmt(self, c):
        return _span(ast.Continue(), c[0], c[0])

    def return_stmt(self, c):
        value = c[1] if len(c) > 1 else None
        check_value(value)
        return _span(ast.Return(value), c[0], c[-1])

    def raise_stmt(self, c):
        exc = c[1] if len(c) > 1 else None
        cause = c[3] if len(c) > 3 else None
        return _span(ast.Raise(exc, cause), c[0], c[-1])

    def del_stmt(self, c):
        targets = c[1].items if isinstance(c[1], ast.TupleLit) else [c[1]]
        for t in targets:
            check_del_target(t)
        return _span(ast.Delete(list(targets)), c[0], c[-1])

    def assert_stmt(self, c):
        msg = c[3] if len(c) == 4 else None
        return _span(ast.Assert(c[1], msg), c[0], c[-1])

    def import_stmt(self, c):
        return _span(ast.Import(_nodes(c)), c[0], c[-1])

    def from_import(self, c):
        module = c[1]
        return _span(ast.FromImport(module.value, _nodes(c[2:])), c[0], c[-1])

    def alias(self, c):
        asname = c[2].value if len(c) == 3 else None
        return _span(ast.Alias(c[0].value, asname), c[0], c[-1])

    def dotted_name(self, c):
        return _dotted(c[0], c[-1], "".join(c))

    # --------------------------------------------------- compound statements
    def if_stmt(self, c):
        orelse = []
        last_block = c[-1] if isinstance(c[-1], list) else c[-1][2]  # else, elif or if body
        if isinstance(c[-3], str) and c[-3].type == "ELSE":
            orelse, c = c[-1], c[:-3]
        for keyword, test, body in reversed(c[4:]):  # the elif clauses, innermost first
            orelse = [_span(ast.If(test, body, orelse), keyword, last_block[-1])]
        return _span(ast.If(c[1], c[3], orelse), c[0], last_block[-1])

    def elif_clause(self, c):
        return (c[0], c[1], c[3])

    def while_stmt(self, c):
        return _span(ast.While(c[1], c[3]), c[0], c[3][-1])

    def for_stmt(self, c):
        check_target(c[1])
        check_value(c[3])
        return _span(ast.For(c[1], c[3], c[5]), c[0], c[5][-1])

    def with_stmt(self, c):
        items = [item for item in c[1:-2] if isinstance(item, tuple)]
        return _span(ast.With(items, c[-1]), c[0], c[-1][-1])

    def with_item(self, c):
        return (c[0], c[2].value if len(c) == 3 else None)

    def try_stmt(self, c):
        handlers = [h for h in c if isinstance(h, ast.ExceptHandler)]
        blocks = {"TRY": [], "ELSE": [], "FINALLY": []}
        for i, item in enumerate(c):
            if isinstance(item, str) and item.type in blocks:
                blocks[item.type] = c[i + 2]
        node = ast.Try(blocks["TRY"], handlers, blocks["ELSE"], blocks["FINALLY"])
        last = c[-1]
        return _span(node, c[0], last[-1] if isinstance(last, list) else last)

    def except_handler(self, c):
        exc_type = c[1] if len(c) > 3 else None
        name = c[3].value if len(c) == 6 else None
        return _span(ast.ExceptHandler(exc_type, name, c[-1]), c[0], c[-1][-1])

    def func_def(self, c):
        params = c[3] if isinstance(c[3], list) else []
        return _span(ast.FuncDef(c[1].value, params, c[-1], []), c[0], c[-1][-1])

    def class_def(self, c):
        bases, keywords = [], []
        if len(c) > 4 and isinstance(c[3], list):  # `class A(...)`: its arguments
            for item in c[3]:
                if isinstance(item, _Keyword):
                    keywords.append((item.name, item.value))
                elif isinstance(item, (ast.Starred, _DoubleStarred)):
                    where = item.token if isinstance(item, _DoubleStarred) else item
                    raise error_at(where, "a class's bases cannot be unpacked in diffcli scripts")
                elif keywords:
                    raise error_at(item, "positional argument follows keyword argument")
                else:
                    bases.append(item)
        return _span(ast.ClassDef(c[1].value, bases, keywords, c[-1], []), c[0], c[-1][-1])

    def decorated(self, c):
        node = c[-1]  # the def or class keeps its own span (as in Python's ast)
        node.decorators = list(c[:-1])
        return node

    def decorator(self, c):
        return c[1]

    def params(self, c):
        """Python's order, checked: plain parameters (no default after a default), then
        `*args` or `*`, keyword-only ones (any defaults), then `**kwargs`."""
        out, seen = [], set()
        kind = ""  # the kind of the next plain parameter
        star_at = None  # the bare `*` that still needs a keyword-only parameter
        after_varkw = False
        for item in _nodes(c):
            param = item.param if isinstance(item, _StarParam) else item
            where = item.token if isinstance(item, _StarParam) else item
            if after_varkw:
                raise error_at(where, "arguments cannot follow var-keyword argument")
            if isinstance(item, _StarParam) and item.kind == "*":
                if kind == "kw":
                    raise error_at(where, "* argument may appear only once")
                kind = "kw"
                if param is None:
                    star_at = item.token
                    continue
                param.kind = "*"
            elif isinstance(item, _StarParam):
                param.kind = "**"
                after_varkw = True
            else:
                param.kind = kind
                star_at = None
                if (
                    kind == ""
                    and param.default is None
                    and out
                    and out[-1].kind == ""
                    and out[-1].default is not None
                ):
                    raise error_at(param, "a parameter without a default follows one with a default")
            if param.name in seen:
                raise error_at(param, f"duplicate argument '{param.name}' in function definition")
            seen.add(param.name)
            out.append(param)
        if star_at is not None:
            raise error_at(star_at, "named arguments must follow bare *")
        return out

    def param(self, c):
        default = c[c.index("=") + 1] if "=" in c[1:] else None
        return _span(ast.Param(c[0].value, default, ""), c[0], c[-1])

    def star_param(self, c):
        star = c[0]
        param = _span(ast.Param(c[1].value, None, star.value), star, c[1]) if len(c) > 1 else None
        return _StarParam(star.value, param, star)

    def lambda_def(self, c):
        params = c[1] if isinstance(c[1], list) else []
        return _span(ast.Lambda(params, c[-1]), c[0], c[-1])

    # ------------------------------------------------------------ expressions
    def tuple_lit(self, c):
        return _span(ast.TupleLit(_nodes(c)), c[0], c[-1])

    def list_lit(self, c):
        return _span(ast.ListLit(_nodes(c)), c[0], c[-1])

    def starred(self, c):
        return _span(ast.Starred(c[1]), c[0], c[1])

    def double_starred(self, c):
        return _DoubleStarred(c[1], c[0])

    def dict_item(self, c):
        return (c[0], c[2])

    def dict_lit(self, c):
        keys, values = [], []
        for item in c:
            if isinstance(item, tuple):
                keys.append(item[0])
                values.append(item[1])
            elif isinstance(item, _DoubleStarred):
                keys.append(None)
                values.append(item.value)
        return _span(ast.DictLit(keys, values), c[0], c[-1])

    def set_lit(self, c):
        return _span(ast.SetLit(_nodes(c)), c[0], c[-1])

    def set_comp(self, c):
        return _span(ast.SetComp(c[1], c[2:-1]), c[0], c[-1])

    def dict_comp(self, c):
        return _span(ast.DictComp(c[1], c[3], c[4:-1]), c[0], c[-1])

    def generator_exp(self, c):
        return _span(ast.GeneratorExp(c[1], c[2:-1]), c[0], c[-1])

    def paren(self, c):
        return _span(c[1], c[0], c[2])

    def if_exp(self, c):
        return _span(ast.IfExp(c[2], c[0], c[4]), c[0], c[4])

    def bool_op(self, c):
        return _span(ast.BoolOp(c[1].value, c[0::2]), c[0], c[-1])

    def not_(self, c):
        return _span(ast.Not(c[1]), c[0], c[1])

    def comp_op(self, c):
        return " ".join(c)

    def compare(self, c):
        if len(c) == 3:
            return _span(ast.Compare(c[1], c[0], c[2]), c[0], c[2])
        links = [
            _span(ast.Compare(c[i], c[i - 1], c[i + 1]), c[i - 1], c[i + 1]) for i in range(1, len(c), 2)
        ]
        return _span(ast.BoolOp("and", links), c[0], c[-1])

    def bin_op(self, c):
        left, op, right = c
        node = _new(ast.BinOp)
        node.op = "**" if op == "^" else op.value
        node.left = left
        node.right = right
        return _span(node, left, right)

    def unary_op(self, c):
        return _span(ast.UnaryOp(c[0].value, c[1]), c[0], c[1])

    def call(self, c):
        args, kwargs = [], []
        unpacks = False  # a `*` or `**` argument: a StarCall
        mapping = False  # a `**` argument came already
        for item in c[2] if len(c) == 4 else ():
            if isinstance(item, _Keyword):
                if any(name == item.name for name, _ in kwargs):
                    raise error_at(item.key, f"keyword argument repeated: {item.name}")
                kwargs.append((item.name, item.value))
            elif isinstance(item, _DoubleStarred):
                kwargs.append((None, item.value))
                unpacks = mapping = True
            elif isinstance(item, ast.Starred):
                if mapping:
                    raise error_at(item, "iterable argument unpacking follows keyword argument unpacking")
                args.append(item)
                unpacks = True
            elif mapping:
                raise error_at(item, "positional argument follows keyword argument unpacking")
            elif kwargs:
                raise error_at(item, "positional argument follows keyword argument")
            else:
                args.append(item)
        node = _new(ast.StarCall if unpacks else ast.Call)
        node.func = c[0]
        node.args = args
        node.kwargs = kwargs
        return _span(node, c[0], c[-1])

    def genexp_call(self, c):
        """`f(x for x in xs)`: a call of one generator expression (without its own brackets)."""
        generator = _span(ast.GeneratorExp(c[2], c[3:-1]), c[2], c[-2])
        node = _new(ast.Call)
        node.func = c[0]
        node.args = [generator]
        node.kwargs = []
        return _span(node, c[0], c[-1])

    def arguments(self, c):
        return _nodes(c)

    def keyword(self, c):
        key, _, value = c
        if not isinstance(key, ast.Name):
            raise error_at(key, "a keyword argument must be a name (use '==' to compare)")
        return _Keyword(key.id, value, key)

    def subscript(self, c):
        return _span(ast.Subscript(c[0], c[2]), c[0], c[3])

    def slice(self, c):
        parts: list = [None, None, None]
        colons = 0
        for item in c:
            if isinstance(item, str):
                colons += 1
            else:
                parts[colons] = item
        return _span(ast.Slice(*parts), c[0], c[-1])

    def attribute(self, c):
        return _span(ast.Attribute(c[0], c[2].value), c[0], c[2])

    def name(self, c):
        token = c[0]
        node = _new(ast.Name)
        node.id = token.value
        return _span(node, token, token)

    def num(self, c):
        token = c[0]
        text = token.value
        is_int = text.isdigit()
        try:
            value = int(text) if is_int else float(text)
        except ValueError:  # more digits than Python converts
            raise error_at(token, "number literal too long") from None
        node = _new(ast.Num)
        node.value = value
        node.is_int = is_int
        node.text = text
        return _span(node, token, token)

    def str(self, c):
        values = [string_value(t) for t in c]
        if all(v.__class__ is str for v in values):
            return _span(ast.Str("".join(values)), c[0], c[-1])
        parts = []
        for v in values:  # adjacent literals make one f-string
            for p in v if isinstance(v, list) else [v]:
                if p.__class__ is str and parts and parts[-1].__class__ is str:
                    parts[-1] += p
                elif p != "":
                    parts.append(p)
        return _span(ast.FString(parts), c[0], c[-1])

    def const(self, c):
        token = c[0]
        value = {"True": True, "False": False, "None": None}[token.value]
        return _span(ast.Const(value), token, token)

    def ellipsis_lit(self, c):
        return _span(ast.EllipsisLit(), c[0], c[0])

    def list_comp(self, c):
        return _span(ast.ListComp(c[1], c[2:-1]), c[0], c[-1])

    def comprehension(self, c):
        check_target(c[1])
        return _span(ast.Comprehension(c[1], c[3], c[5::2]), c[0], c[-1])
