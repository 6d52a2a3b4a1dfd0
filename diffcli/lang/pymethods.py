"""The methods of a script's lists and strings (dicts and sets: `pydict`): Python's own,
except those that grow a list (capped at --max-elements) and `str.format` (plain fields
only, so that a format string cannot reach into host objects)."""
from __future__ import annotations

from .errors import ScriptError
from .values import ITERABLES, type_name


def list_method(interp, items, name, node):
    """A method of a script's list; growth stops at --max-elements."""
    method = getattr(items, name)
    if name == "extend":
        def extend(*args):
            if len(args) != 1:
                raise TypeError(f"list.extend() takes exactly one argument ({len(args)} given)")
            iterable = args[0]
            if not isinstance(iterable, ITERABLES):
                raise TypeError(f"'{type_name(iterable)}' object is not iterable")
            for v in interp.iterate(iterable, node):
                items.append(v)
                interp.check_length(len(items), "list", node)
        return extend
    if name in ("append", "insert"):
        def grow(*args):
            interp.check_length(len(items) + 1, "list", node)
            return method(*args)
        grow.__name__ = name
        return grow
    return method


def str_format(template, e):
    """`"...".format(...)` with plain fields only (`{}`, `{0}`, `{name}`, with !r/!s/!a
    and a format spec): a field that reads an attribute or an item (`{0.x}`, `{0[1]}`)
    or a nested field is refused, so a format string cannot reach into host objects."""
    import string

    def format_(*args, **kwargs):
        try:
            fields = list(string.Formatter().parse(template))
        except ValueError as err:
            raise ScriptError("ValueError", str(err), e.line, e.column) from None
        for _, field, spec, _ in fields:
            if field is None:
                continue
            if not (field == "" or field.isdigit() or field.isidentifier()) or "{" in (spec or ""):
                raise ScriptError("ValueError", f"diffcli formats plain fields only ('{{}}', "
                                  f"'{{0}}', '{{name}}'), not '{{{field}}}'", e.line, e.column)
        return template.format(*args, **kwargs)
    return format_
