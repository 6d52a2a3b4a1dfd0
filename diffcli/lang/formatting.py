"""A script's values made into text within the caps: f-string fields, `str.format` and
`%`-formatting.

A format spec or a `%` directive asks for a width or a precision (`f"{1:>300000000}"`,
`'%.2000000000f' % 1.5`), and `str()` of a container would build all of its text before
anything could look at its size. Here the size of each result is estimated from the
numbers in the spec and the value's own bound before Python formats it, and the text of
containers is made by `display.show`, which stops at the cap; either way a text longer
than --max-elements characters is a LimitError, not gigabytes.
"""

from __future__ import annotations

import re
import string

from ..engine import errors
from ..engine.tensor import Tensor
from .display import TextBudget, display, show
from .values import type_name

_FORMATS = (str, int, float, bool, complex, Tensor)  # values whose own __format__ reads a spec
_DIGITS = re.compile(r"\d+")


def too_long(n, cap):
    return errors.LimitError(
        f"string of {n} elements exceeds the limit of {cap} elements (raise it with --max-elements)"
    )


def _bound(value) -> int:
    """The most characters `format(value, spec)` can give besides the spec's own width and
    precision (digits, sign, grouping, exponent)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, int):  # (bool too) 'b' with '_' grouping is the longest
        return abs(value).bit_length() * 5 // 4 + 8
    if isinstance(value, complex):
        return 904
    return 450  # a float ('f' of 1e308 with grouping), a 0-d tensor


_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(?P<width>\d*)[,_]?(?:\.(?P<precision>\d+))?[a-zA-Z%]?", re.S)


def _number(digits) -> int:
    return int(digits) if len(digits) <= 15 else 10**15


def _spec_size(spec: str, value) -> int:
    """The most characters `format(value, spec)` gives: the width, or the content (at most
    the precision plus the value's own bound) if longer. A spec of another shape (Python
    refuses it) counts every number in it."""
    m = _SPEC.fullmatch(spec)
    if m is None:
        return sum(_number(d) for d in _DIGITS.findall(spec)) + _bound(value)
    return max(_number(m.group("width") or "0"), _number(m.group("precision") or "0") + _bound(value))


def converted(value, conversion, names, cap):
    """`!r`, `!s`, `!a` as a script sees them (no addresses), within the cap."""
    if conversion == "s":
        return display(value, names, TextBudget(cap))
    text = show(value, names, TextBudget(cap))
    if conversion == "a":
        text = text.encode("ascii", "backslashreplace").decode("ascii")
        if len(text) > cap:
            raise too_long(len(text), cap)
    return text


def format_field(value, conversion, spec, names, cap):
    """One `{value!conversion:spec}` field."""
    if conversion:
        value = converted(value, conversion, names, cap)
    elif not isinstance(value, _FORMATS):
        if not spec:  # format(x, "") is str(x)
            return display(value, names, TextBudget(cap))
        # Python's object.__format__ refuses a spec; its message names the script's type
        raise TypeError(f"unsupported format string passed to {type_name(value)}.__format__")
    if spec:
        n = _spec_size(spec, value)
        if n > cap:
            raise too_long(n, cap)
    return format(value, spec)


def joined(parts, cap):
    """The pieces of one string, joined once their total is known to fit."""
    n = sum(len(p) for p in parts)
    if n > cap:
        raise too_long(n, cap)
    return "".join(parts)


def plain_fields(template):
    """The fields of a `str.format` template, which must be plain (`{}`, `{0}`, `{name}`,
    with !r/!s/!a and a spec): a field that reads an attribute or an item (`{0.x}`,
    `{0[1]}`) or a nested field is refused, so a format string cannot reach into host
    objects. A ValueError for a malformed or refused template."""
    fields = list(string.Formatter().parse(template))
    for _, field, spec, _ in fields:
        if field is None:
            continue
        if not (field == "" or field.isdigit() or field.isidentifier()) or "{" in (spec or ""):
            raise ValueError(
                f"diffcli formats plain fields only ('{{}}', '{{0}}', '{{name}}'), not '{{{field}}}'"
            )
    return fields


def str_format(fields, args, kwargs, names, cap):
    """`template.format(*args, **kwargs)` for the `plain_fields` of a template, numbered
    by Python's rules and with its errors."""
    out, auto, following = [], None, 0
    for literal, field, spec, conversion in fields:
        out.append(literal)
        if field is None:
            continue
        if field == "" or field.isdigit():
            if auto is (field != ""):  # a switch between the two numberings
                raise ValueError(
                    "cannot switch from automatic field numbering to manual field specification"
                    if auto
                    else "cannot switch from manual field specification to automatic field numbering"
                )
            auto = field == ""
            index = following if auto else int(field)
            following += auto
            if index >= len(args):
                raise IndexError(f"Replacement index {index} out of range for positional args tuple")
            value = args[index]
        else:
            if field not in kwargs:
                raise KeyError(field)
            value = kwargs[field]
        out.append(format_field(value, conversion, spec or "", names, cap))
    return joined(out, cap)


_DIRECTIVE = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[-#0 +]*)(?P<width>\*|\d+)?"
    r"(?:\.(?P<precision>\*|\d+)?)?[hlL]?(?P<type>.?)",
    re.S,
)


def percent(template, values, names, cap):
    """`template % values` (printf-style). Each directive's size is estimated before
    Python formats anything; %s, %r and %a take the text `str()`/`repr()` give a script
    (within the cap, and without addresses); the rest is Python's own `%`, with its
    errors ("not enough arguments for format string", ...)."""
    single = not isinstance(values, tuple)
    args = [values] if single else list(values)
    rebuilt, size, k, at, changed, mapping = [], 0, 0, 0, False, False

    def star():
        nonlocal k
        if k < len(args) and isinstance(args[k], int):
            k += 1
            return abs(args[k - 1])
        return 0

    for m in _DIRECTIVE.finditer(template):
        size += m.start() - at
        rebuilt.append(template[at : m.start()])
        at = m.end()
        width, precision, kind = m.group("width"), m.group("precision"), m.group("type")
        mapping = mapping or m.group("key") is not None
        width = star() if width == "*" else _number(width or "0")
        precision = star() if precision == "*" else _number(precision or "0")
        text = m.group(0)
        if kind == "%":
            size += width + 1
        elif kind in ("s", "r", "a") and not mapping and k < len(args):
            piece = converted(args[k], kind, names, cap)
            args[k] = piece
            k += 1
            changed = True
            size += max(width, len(piece))
            text = text[:-1] + "s"
        elif kind:
            if not mapping and k < len(args):
                size += max(width, precision + _bound(args[k]))
                k += 1
            else:
                size += width + precision + 450
        rebuilt.append(text)
        if size > cap:
            raise too_long(size, cap)
    size += len(template) - at
    rebuilt.append(template[at:])
    if size > cap:
        raise too_long(size, cap)
    if mapping or not changed:
        return template % values
    return "".join(rebuilt) % tuple(args)
