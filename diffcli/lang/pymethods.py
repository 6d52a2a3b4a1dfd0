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


# str's methods a script may call: Python's own (none reaches beyond the string); those that
# can build a longer string than they were given are held to --max-elements first
STR_METHODS = frozenset(
    """capitalize casefold center count endswith expandtabs find index isalnum isalpha isascii
    isdecimal isdigit isidentifier islower isnumeric isspace istitle isupper join ljust lower
    lstrip partition removeprefix removesuffix replace rfind rindex rjust rpartition rsplit
    rstrip split splitlines startswith strip swapcase title upper zfill""".split()
)
_WIDTH = frozenset(("center", "ljust", "rjust", "zfill"))


def _grown_length(s, name, args, kwargs):
    """An upper bound of the length of `s.name(*args)` for the methods that may grow it."""
    if name in _WIDTH and args and isinstance(args[0], int):
        return max(len(s), args[0])
    if name == "expandtabs":
        size = args[0] if args else kwargs.get("tabsize", 8)
        return len(s) * max(int(size), 1) if isinstance(size, int) else len(s)
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        old, new = args[0], args[1]
        hits = s.count(old) if old else len(s) + 1
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            hits = min(hits, args[2])
        return len(s) + hits * max(len(new) - len(old), 0)
    return 0


def str_method(interp, s, name, node):
    """A method of a script's string, bound to it (it prints as the string's method)."""
    method = getattr(s, name)
    if name == "join":

        def join(_str, iterable):
            parts = list(interp.iterate(iterable, node)) if isinstance(iterable, ITERABLES) else iterable
            if isinstance(parts, list):
                total = sum(len(p) for p in parts if isinstance(p, str)) + len(s) * max(len(parts) - 1, 0)
                interp.check_sequence(total, str, node, 1)
            return method(parts)

        return MethodType(join, s)
    if name not in _WIDTH and name not in ("expandtabs", "replace"):
        return method

    def grow(_str, *args, **kwargs):
        interp.check_sequence(_grown_length(s, name, args, kwargs), str, node, 1)
        return method(*args, **kwargs)

    grow.__name__ = name
    return MethodType(grow, s)
