"""The checks the builder makes that the grammar cannot: assignment targets, starred
expressions where a value is wanted, and `from __future__` imports."""

from __future__ import annotations

from diffcli.lang import ast
from diffcli.lang.tokens import error_at

_ASSIGNABLE = (ast.Name, ast.Attribute, ast.Subscript)


def _describe(node) -> str:
    names = {
        ast.Call: "a function call",
        ast.StarCall: "a function call",
        ast.Num: "a literal",
        ast.Str: "a literal",
        ast.Const: "a literal",
        ast.EllipsisLit: "a literal",
        ast.Compare: "a comparison",
        ast.TupleLit: "a tuple",
        ast.ListLit: "a list",
        ast.ListComp: "a list comprehension",
        ast.IfExp: "a conditional expression",
        ast.Slice: "a slice",
        ast.Lambda: "a lambda",
        ast.DictLit: "a dict literal",
        ast.DictComp: "a dict comprehension",
        ast.GeneratorExp: "a generator expression",
        ast.SetLit: "a set display",
        ast.SetComp: "a set comprehension",
        ast.Starred: "a starred expression",
    }
    return names.get(type(node), "an expression")


def check_del_target(target) -> None:
    """Raise unless `del` can delete `target`, with Python's words (`cannot delete literal`)."""
    pending = [target]
    while pending:
        node = pending.pop()
        if isinstance(node, _ASSIGNABLE):
            continue
        if isinstance(node, (ast.TupleLit, ast.ListLit)):
            pending.extend(node.items)
            continue
        what = "starred" if isinstance(node, ast.Starred) else _describe(node).split(" ", 1)[1]
        raise error_at(node, f"cannot delete {what}")


def check_target(target, augmented_op: str | None = None) -> None:
    """Raise unless `target` can be assigned to (tuples and lists unpack, one item of each
    may be starred; not for +=)."""
    if isinstance(target, ast.Starred) and augmented_op is None:
        raise error_at(target, "starred assignment target must be in a list or tuple")
    pending = [target]
    while pending:
        node = pending.pop()
        if isinstance(node, _ASSIGNABLE):
            continue
        if augmented_op is not None:
            raise error_at(node, f"cannot use '{augmented_op}=' on {_describe(node)}")
        if isinstance(node, (ast.TupleLit, ast.ListLit)):
            starred = [item for item in node.items if isinstance(item, ast.Starred)]
            if len(starred) > 1:
                raise error_at(starred[1], "multiple starred expressions in assignment")
            pending.extend(item.value if isinstance(item, ast.Starred) else item for item in node.items)
            continue
        hint = " (use '==' to compare)" if isinstance(node, ast.Compare) else ""
        raise error_at(node, f"cannot assign to {_describe(node)}{hint}")


def check_value(node) -> None:
    """A starred expression stands alone where Python has no place for it (`x = *a`)."""
    if isinstance(node, ast.Starred):
        raise error_at(node, "can't use starred expression here")


# `from __future__ import NAME`: the features Python 3 knows (all on already, or, like
# `annotations`, without effect in a script diffcli runs)
FUTURE_FEATURES = frozenset(
    (
        "nested_scopes",
        "generators",
        "division",
        "absolute_import",
        "with_statement",
        "print_function",
        "unicode_literals",
        "barry_as_FLUFL",
        "generator_stop",
        "annotations",
    )
)


def check_future_imports(body: list) -> None:
    """Python's rules for `from __future__ import ...`: known features only, and only at
    the top of the file (after a docstring and other future imports)."""
    at_top = True
    for i, stmt in enumerate(body):
        future = isinstance(stmt, ast.FromImport) and stmt.module == "__future__"
        if future:
            if not at_top:
                raise error_at(stmt, "from __future__ imports must occur at the beginning of the file")
            for alias in stmt.names:
                if alias.name == "braces":
                    raise error_at(alias, "not a chance")
                if alias.name not in FUTURE_FEATURES:
                    raise error_at(alias, f"future feature {alias.name} is not defined")
        elif not (i == 0 and isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Str)):
            at_top = False
