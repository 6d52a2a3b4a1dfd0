"""Python's dicts and sets in scripts: displays (`{k: v, **m}`, `{a, b}`), comprehensions,
`dict(...)`/`set(...)`, item assignment and the methods a script may call
(`values.DICT_METHODS`, `values.SET_METHODS`). Growth stops at --max-elements, as for lists."""

from __future__ import annotations

from . import callargs
from .errors import ScriptError
from .objects import FunctionScope
from .values import ITERABLES, type_name


def eval_dict(interp, e, scope):
    d = {}
    for k, v in zip(e.keys, e.values):
        if k is None:
            mapping = interp.eval(v, scope)
            if not isinstance(mapping, dict):
                raise ScriptError(
                    "TypeError", f"'{type_name(mapping)}' object is not a mapping", v.line, v.column
                )
            interp.check_length(len(d) + len(mapping), "dict", e)
            d.update(mapping)
            continue
        key = interp.eval(k, scope)
        value = interp.eval(v, scope)
        interp.guard(k, lambda: d.__setitem__(key, value))
    return d


def comprehension_scopes(interp, generators, scope):
    """The scope of each pass of a comprehension's `for ... in ... if ...` clauses: its own
    names (the loop variables), reading through to `scope`."""
    local = FunctionScope(scope)

    def passes(i):
        if i == len(generators):
            yield local
            return
        g = generators[i]
        it = interp.eval(g.iter, local)
        if isinstance(it, range):
            try:
                interp.check_iterations(len(it), g.iter)
            except OverflowError:  # longer than any cap
                interp.check_iterations(interp.limits.max_iterations + 1, g.iter)
        for v in interp.iterate(it, g.iter):
            interp.tick(g)
            interp.assign(g.target, v, local)
            if all(interp.truth(interp.eval(c, local), c) for c in g.conds):
                yield from passes(i + 1)

    return passes(0)


def eval_dict_comp(interp, e, scope):
    d = {}
    for local in comprehension_scopes(interp, e.generators, scope):
        key = interp.eval(e.key, local)
        value = interp.eval(e.value, local)
        setitem(interp, d, key, value, e)
    return d


def setitem(interp, d, key, value, node):
    """`d[key] = value`, within --max-elements."""
    interp.guard(node, lambda: hash(key))
    if key not in d:
        interp.check_length(len(d) + 1, "dict", node)
    d[key] = value


def merge(interp, d, other, node):
    """dict.update's argument: a dict, or an iterable of key/value pairs, with Python's errors."""
    if isinstance(other, dict):
        for k, v in other.items():
            setitem(interp, d, k, v, node)
        return
    if not isinstance(other, ITERABLES):
        raise TypeError(f"'{type_name(other)}' object is not iterable")
    for i, item in enumerate(interp.iterate(other, node)):
        if not isinstance(item, ITERABLES):
            raise TypeError(f"cannot convert dictionary update sequence element #{i} to a sequence")
        pair = []
        for v in interp.iterate(item, node):
            pair.append(v)
            if len(pair) > 2:
                break
        if len(pair) != 2:
            n = len(pair) if len(pair) < 3 else sum(1 for _ in interp.iterate(item, node))
            raise ValueError(f"dictionary update sequence element #{i} has length {n}; 2 is required")
        setitem(interp, d, pair[0], pair[1], node)


def constructor(interp, node):
    """`dict()`, `dict(mapping_or_pairs)`, `dict(**kwargs)`."""

    def make(*args, **kwargs):
        if len(args) > 1:
            raise TypeError(f"dict expected at most 1 argument, got {len(args)}")
        d = {}
        if args:
            merge(interp, d, args[0], node)
        for k, v in kwargs.items():
            setitem(interp, d, k, v, node)
        return d

    return make


def method(interp, d, name, node):
    """A method of a script's dict; `update` and `setdefault` grow it within the cap."""
    if name == "update":

        def update(*args, **kwargs):
            if len(args) > 1:
                raise TypeError(f"update expected at most 1 argument, got {len(args)}")
            if args:
                merge(interp, d, args[0], node)
            for k, v in kwargs.items():
                setitem(interp, d, k, v, node)

        return update
    if name == "setdefault":

        def setdefault(*args):
            if not 1 <= len(args) <= 2:
                raise TypeError(
                    f"setdefault expected at least 1 argument, got {len(args)}"
                    if not args
                    else f"setdefault expected at most 2 arguments, got {len(args)}"
                )
            key = args[0]
            if key not in d:
                setitem(interp, d, key, args[1] if len(args) == 2 else None, node)
            return d[key]

        return setdefault
    return getattr(d, name)


# --- sets -----------------------------------------------------------------------------------


def _grow(interp, s, items, node):
    """Add `items` (a script iterable) to the set `s`, within the cap."""
    if not isinstance(items, ITERABLES):
        raise TypeError(f"'{type_name(items)}' object is not iterable")
    for v in interp.iterate(items, node):
        interp.guard(node, lambda: hash(v))
        s.add(v)
        interp.check_length(len(s), "set", node)


def eval_set(interp, e, scope):
    s = set()
    _grow(interp, s, callargs.expand(interp, e.items, scope, "set"), e)
    return s


def eval_set_comp(interp, e, scope):
    s = set()
    for local in comprehension_scopes(interp, e.generators, scope):
        _grow(interp, s, [interp.eval(e.element, local)], e)
    return s


def set_constructor(interp, kind, node):
    def make(*args, **kwargs):
        if kwargs:
            raise TypeError(f"{kind.__name__}() takes no keyword arguments")
        if len(args) > 1:
            raise TypeError(f"{kind.__name__} expected at most 1 argument, got {len(args)}")
        s = set()
        if args:
            _grow(interp, s, args[0], node)
        return s if kind is set else frozenset(s)

    return make


def set_method(interp, s, name, node):
    """A method of a script's set: `add` and `update` within the cap; the rest are Python's."""
    if name == "add":

        def add(*args):
            if len(args) != 1:
                raise TypeError(f"set.add() takes exactly one argument ({len(args)} given)")
            _grow(interp, s, args, node)

        return add
    if name == "update":

        def update(*others):
            for other in others:
                _grow(interp, s, other, node)

        return update
    if name in ("union", "intersection", "difference", "symmetric_difference"):
        method = getattr(s, name)

        def combine(*others):
            if name == "union":
                interp.check_length(
                    len(s) + sum(len(o) if hasattr(o, "__len__") else 0 for o in others), "set", node
                )
            return method(
                *[
                    o
                    if isinstance(o, (set, frozenset, dict, list, tuple, str, range))
                    else set_constructor(interp, set, node)(o)
                    for o in others
                ]
            )

        combine.__name__ = name
        return combine
    return getattr(s, name)
