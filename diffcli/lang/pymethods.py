"""The methods of a script's lists and strings (dicts and sets: `pydict`): Python's own,
except those that grow a list (capped at --max-elements) and `str.format` (plain fields
only, so that a format string cannot reach into host objects)."""

from __future__ import annotations

from types import MethodType

from ..engine.tensor import Size
from . import formatting
from .errors import ScriptError
from .estimates import _length
from .values import ITERABLES, type_name


def list_method(interp, items, name, node):
    """A method of a script's list; growth stops at --max-elements. Bound to the list, so
    it prints as the list's method (`<built-in method append of list object>`)."""
    method = getattr(items, name)
    if name == "extend":

        def extend(_list, *args):
            if len(args) != 1:
                raise TypeError(f"list.extend() takes exactly one argument ({len(args)} given)")
            iterable = args[0]
            if not isinstance(iterable, ITERABLES):
                raise TypeError(f"'{type_name(iterable)}' object is not iterable")
            if isinstance(iterable, (list, tuple, range, Size, str)):
                interp.check_room(
                    len(items) + _length(iterable), list, node, 40 if iterable.__class__ is range else 8
                )  # (new ints)
            for v in interp.iterate(iterable, node):
                items.append(v)
                interp.check_length(len(items), "list", node)

        return MethodType(extend, items)
    if name in ("append", "insert"):

        def grow(_list, *args):
            interp.check_length(len(items) + 1, "list", node)
            return method(*args)

        grow.__name__ = name
        return MethodType(grow, items)
    return method


def str_format(interp, template, e):
    """`"...".format(...)` with plain fields only (see formatting.plain_fields: a field
    that reads an attribute or an item, or a nested field, is refused, so a format string
    cannot reach into host objects); the text is held to --max-elements."""

    def format_(*args, **kwargs):
        try:
            fields = formatting.plain_fields(template)
        except ValueError as err:
            raise ScriptError("ValueError", str(err), e.line, e.column) from None
        return formatting.str_format(fields, args, kwargs, interp.builtin_names, interp.limits.max_elements)

    def format(_str, *args, **kwargs):
        return format_(*args, **kwargs)

    return MethodType(format, template)  # (bound: it prints as the string's method)
