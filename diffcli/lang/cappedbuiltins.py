"""The Python builtins of a script that consume iterables or build text, held to the caps.

Python's own `sum(range(10**12))`, `max(range(10**12))`, `all(...)` or `0.5 in
range(10**12)` are C loops that no counter sees, and `print`/`str` of a container build
all of its text first. Here:
- a builtin that consumes a whole range (or a tensor's rows) charges its length to
  --max-iterations before it starts (`sum`, `max`, `min`, `list`, `tuple`); one that may
  stop early (`any`, `all`, `in`) or reads a lazy iterator (`zip`, `enumerate`) counts
  each item as it goes. Lists, tuples and strings are already bounded by --max-elements
  and are read at C speed, uncounted.
- `x in range(...)` is O(1) for any number, as Python is for an int.
- `sum` of lists or tuples concatenates in linear time (Python's is quadratic), with the
  result's length checked against --max-elements at each step.
- `print` and `str` make their text within --max-elements characters (see
  display.TextBudget).

Errors are the engine's (positionless); the interpreter places them at the call.
"""

from __future__ import annotations

import builtins
import math

from ..engine.tensor import Size, Tensor
from .display import TextBudget, display
from .estimates import _length
from .values import type_name

_ITERATORS = (zip, enumerate)


def _rows(value) -> bool:
    """A range, or a tensor (with at least one dimension) iterated by rows."""
    return value.__class__ is range or (isinstance(value, Tensor) and value.array.ndim > 0)


def consume(caps, value, what):
    """`value` as a builtin that reads all of it gets it: a range or a tensor charged in
    full first, a lazy iterator counted item by item, anything else unchanged."""
    if _rows(value):
        n = _length(value)
        caps.charge(n, None, f"{what} over {n} items")
        return value
    if isinstance(value, _ITERATORS):
        return caps.counted(value)
    return value


def consume_lazily(caps, value):
    """`value` for a builtin that may stop early (`any`, `all`, `in`): each item counted."""
    if _rows(value) or isinstance(value, _ITERATORS):
        return caps.counted(value)
    return value


def contains(caps, container, x):
    """`x in container`."""
    if container.__class__ is range:
        return _in_range(container, x)
    if isinstance(container, _ITERATORS):
        return x in caps.counted(container)
    return x in container


def _in_range(r, x):
    """Python's answer without its linear scan (which it makes for anything but an int):
    only a number equal to an integer can equal an element."""
    if x.__class__ in (int, bool):
        return x in r
    if isinstance(x, Tensor):
        if len(r) == 0:
            return False
        if x.array.size != 1:
            return bool(r[0] == x)  # PyTorch's "Boolean value of Tensor with ..."
        x = x.item()
    if isinstance(x, float):
        return math.isfinite(x) and x.is_integer() and int(x) in r
    if isinstance(x, (int, bool)):
        return int(x) in r
    return False  # no int equals a string, a list, None...


def make(caps, write, names):
    """The builtins (name -> function) for an interpreter (`caps`: its limits and counters)
    that prints with `write`; `names` maps builtins' ids to their names, for printing."""

    def cap():
        return caps.limits.max_elements

    def _print(*args, sep=" ", end="\n"):
        sep = " " if sep is None else sep
        end = "\n" if end is None else end
        for v, which in ((sep, "sep"), (end, "end")):
            if not isinstance(v, str):
                raise TypeError(f"{which} must be None or a string, not {type_name(v)}")
        budget = TextBudget(cap())
        budget.take(len(end) + len(sep) * max(len(args) - 1, 0))
        write(sep.join([display(a, names, budget) for a in args]) + end)

    def _str(value=""):
        return display(value, names, TextBudget(cap()))

    def _sum(*args, **kwargs):
        if not args or len(args) > 2 or set(kwargs) - {"start"}:
            return builtins.sum(*args, **kwargs)  # Python's error
        start = args[1] if len(args) > 1 else kwargs.get("start", 0)
        items = consume(caps, args[0], "sum()")
        if start.__class__ in (list, tuple):
            return _concatenated(items, start)
        return builtins.sum(items, start)

    def _concatenated(items, start):
        """`sum(lists, [])` in linear time: what Python's repeated `+` gives."""
        kind = start.__class__
        out = list(start)
        it = iter(items)
        for v in it:
            if not (v.__class__ is kind or kind is tuple and isinstance(v, tuple)):
                return builtins.sum((v, *it), kind(out))  # Python's `+` from here on
            caps.check_sequence(len(out) + len(v), kind, None)
            out.extend(v)
        return kind(out)

    def extreme(builtin, name):
        def fn(*args, **kwargs):
            if len(args) == 1:
                args = (consume(caps, args[0], f"{name}()"),)
            return builtin(*args, **kwargs)

        fn.__name__ = name
        return fn

    def lazy(builtin, name):
        def fn(*args, **kwargs):
            if len(args) == 1 and not kwargs:
                return builtin(consume_lazily(caps, args[0]))
            return builtin(*args, **kwargs)

        fn.__name__ = name
        return fn

    return {
        "print": _print,
        "str": _str,
        "sum": _sum,
        "max": extreme(builtins.max, "max"),
        "min": extreme(builtins.min, "min"),
        "any": lazy(builtins.any, "any"),
        "all": lazy(builtins.all, "all"),
    }


def sequence(caps, kind, node):
    """`list(...)`/`tuple(...)` that stop at --max-elements (and count a range's or lazy
    iterator's items as iterations) instead of eating memory."""
    what = kind.__name__

    def make(it=()):
        if isinstance(it, (range, list, tuple, str, Size)) or _rows(it):
            n = _length(it)
            # (a range's items are new ints; a tensor's rows, views with a graph node each)
            per = 40 if it.__class__ is range else 1024 if isinstance(it, Tensor) else 8
            caps.check_sequence(n, kind, node, per)
            if _rows(it):
                caps.charge(n, node, f"{what}() over {n} items")
            return kind(it)
        out = []
        for v in caps.counted(it, node) if isinstance(it, _ITERATORS) else it:
            out.append(v)
            caps.check_length(len(out), what, node)
        return kind(out)

    return make
