"""The Python builtins that tutorials use beyond the first few: `isinstance`, `issubclass`,
`id`, `sorted`, `reversed`, `min`/`max` with `key=`, `map`, `filter`, `repr`, `callable`,
`super`, `staticmethod`, `classmethod`, `property`, `dict`, the exception classes and
`NotImplemented`. A script function handed to a host builtin (`key=lambda x: ...`) is
called back through the interpreter (`host_callable`), under its caps.
"""

from __future__ import annotations

import builtins

from .. import engine
from ..engine.tensor import Size, Tensor
from . import cappedbuiltins, classes
from .display import show
from .errors import ScriptError
from .exceptions import EXCEPTIONS, error_of, make_exception
from .flow import ScriptExit
from .legacy import CheckedClass
from .objects import (
    BoundMethod,
    Builtin,
    ClassMethod,
    ClassValue,
    GradModeFunction,
    Instance,
    NativeMethod,
    Property,
    ProvidedBase,
    StaticMethod,
)
from .values import ITERABLES, ITERATORS, TypeValue, UserFunction, host_callable, type_name, type_of

# what `isinstance(x, T)` accepts as T besides script classes, exception classes, torch.Tensor
# and what type() returns
_HOST_TYPES = (int, float, bool, str, list, tuple, dict, set, frozenset, range, Size, type(None))
_TENSOR = engine.FUNCTIONS["Tensor"]  # `torch.Tensor`, a constructor that is also the class
_CALLABLE = (
    UserFunction,
    ClassValue,
    ProvidedBase,
    BoundMethod,
    StaticMethod,
    GradModeFunction,
    Builtin,
    NativeMethod,
)


def _arity(name, args, kwargs, n, node):
    if kwargs:
        raise TypeError(f"{name}() takes no keyword arguments")
    if len(args) != n:
        raise TypeError(f"{name} expected {n} arguments, got {len(args)}")


def _is_instance(obj, info, str_builtin=None) -> bool:
    if isinstance(info, tuple):
        return any(_is_instance(obj, i, str_builtin) for i in info)
    if info is str_builtin:  # the script's `str` (a function that prints values as diffcli does)
        info = str
    if isinstance(info, (ClassValue, ProvidedBase)):
        return isinstance(obj, info.host)
    if info is _TENSOR:
        return isinstance(obj, Tensor)
    if isinstance(info, CheckedClass):  # torch.FloatTensor (a tensor of that dtype), graph.Node
        return info.instance_check(obj)
    if isinstance(info, TypeValue):
        return type_of(obj) is info
    if isinstance(info, type) and info in _HOST_TYPES:
        return isinstance(obj, info) and not isinstance(obj, Instance)
    raise TypeError("isinstance() arg 2 must be a type, a tuple of types, or a union")


def _isinstance(interp, args, kwargs, node):
    _arity("isinstance", args, kwargs, 2, node)
    return _is_instance(*args, interp.builtins["str"])


def _class_of(value, str_builtin=None):
    if value is str_builtin:
        return str
    if isinstance(value, (ClassValue, ProvidedBase)):
        return value.host
    if value is _TENSOR:
        return Tensor
    if isinstance(value, type) and value in _HOST_TYPES:
        return value
    return None


def _issubclass(interp, args, kwargs, node):
    _arity("issubclass", args, kwargs, 2, node)
    cls, info = args
    host = _class_of(cls, interp.builtins["str"])
    if host is None:
        raise TypeError("issubclass() arg 1 must be a class")
    infos = info if isinstance(info, tuple) else (info,)
    hosts = [_class_of(i, interp.builtins["str"]) for i in infos]
    if any(h is None for h in hosts):
        raise TypeError("issubclass() arg 2 must be a class, a tuple of classes, or a union")
    return any(issubclass(host, h) for h in hosts)


def _id(interp, args, kwargs, node):
    """Small integers, one per object for the run (Python's are addresses)."""
    if kwargs or len(args) != 1:
        raise TypeError(f"id() takes exactly one argument ({len(args)} given)")
    obj = args[0]
    entry = interp.ids.get(id(obj))
    if entry is None:
        entry = interp.ids[id(obj)] = (len(interp.ids) + 1, obj)  # (kept alive: ids stay unique)
    return entry[0]


def _sorted(interp, args, kwargs, node):
    if len(args) != 1:
        raise TypeError(f"sorted expected 1 argument, got {len(args)}")
    for k in kwargs:
        if k not in ("key", "reverse"):
            raise TypeError(f"sort() got an unexpected keyword argument '{k}'")
    items = cappedbuiltins.sequence(interp, list, node)(args[0])
    items.sort(key=host_callable(interp, kwargs.get("key"), node), reverse=bool(kwargs.get("reverse", False)))
    return items


def _min_max(name, fallback):
    builtin = getattr(builtins, name)

    def fn(interp, args, kwargs, node):
        if "key" in kwargs or "default" in kwargs:
            if "key" in kwargs:
                kwargs = dict(kwargs, key=host_callable(interp, kwargs["key"], node))
            if len(args) == 1:  # a range's length is charged first, as without key=
                args = (cappedbuiltins.consume(interp, args[0], f"{name}()"),)
            return builtin(*args, **kwargs)
        return fallback(*args, **kwargs)

    return fn


def _map(interp, args, kwargs, node):
    if kwargs:
        raise TypeError("map() takes no keyword arguments")
    if len(args) < 2:
        raise TypeError("map() must have at least two arguments.")
    return map(host_callable(interp, args[0], node), *args[1:])


def _filter(interp, args, kwargs, node):
    if kwargs:
        raise TypeError("filter() takes no keyword arguments")
    if len(args) != 2:
        raise TypeError(f"filter expected 2 arguments, got {len(args)}")
    return filter(host_callable(interp, args[0], node), args[1])


def _iter(interp, args, kwargs, node):
    if kwargs or len(args) != 1:
        raise TypeError(
            f"iter expected 1 argument, got {len(args)}"
            if not kwargs
            else "iter() takes no keyword arguments"
        )
    obj = args[0]
    if not isinstance(obj, ITERABLES):
        raise TypeError(f"'{type_name(obj)}' object is not iterable")
    return iter(obj)  # (a script class's __iter__, through its host class)


def _next(interp, args, kwargs, node):
    if kwargs or not 1 <= len(args) <= 2:
        raise TypeError(
            f"next expected at least 1 argument, got {len(args)}"
            if not args
            else f"next expected at most 2 arguments, got {len(args)}"
        )
    it = args[0]
    if not isinstance(it, ITERATORS) and not (
        isinstance(it, Instance) and classes.lookup(it._cls, "__next__") is not classes.MISSING
    ):
        raise TypeError(f"'{type_name(it)}' object is not an iterator")
    try:
        return next(it)
    except StopIteration:
        if len(args) == 2:
            return args[1]
        raise interp_stop(node) from None


def interp_stop(node):
    return error_of(make_exception(EXCEPTIONS["StopIteration"], ()), node)


def _hash(interp, args, kwargs, node):
    if kwargs or len(args) != 1:
        raise TypeError(f"hash() takes exactly one argument ({len(args)} given)")
    return hash(args[0])  # (a script class's __hash__, through its host class)


def _repr(interp, args, kwargs, node):
    if kwargs or len(args) != 1:
        raise TypeError(f"repr() takes exactly one argument ({len(args)} given)")
    return show(args[0], interp.builtin_names)


def _callable(interp, args, kwargs, node):
    if kwargs or len(args) != 1:
        raise TypeError(f"callable() takes exactly one argument ({len(args)} given)")
    v = args[0]
    if isinstance(v, Instance):
        return classes.lookup(v._cls, "__call__") is not classes.MISSING
    if isinstance(v, (ClassMethod, Property)) or isinstance(v, (Tensor, TypeValue)):
        return False
    return isinstance(v, _CALLABLE) or callable(v)


def _one(name, make):
    def fn(interp, args, kwargs, node):
        if kwargs or len(args) != 1:
            raise TypeError(f"{name} expected 1 argument, got {len(args)}")
        return make(args[0])

    return fn


def _exit(name):
    def fn(interp, args, kwargs, node):
        """Python's exit()/quit(): no code (or 0, None) ends the script as a success; any
        other code fails it (exit status 1, as a script that raised)."""
        if kwargs or len(args) > 1:
            raise TypeError(f"{name}() takes from 0 to 1 positional arguments but {len(args)} were given")
        code = args[0] if args else None
        if code is None or code is False or (type(code) is int and code == 0):
            raise ScriptExit
        text = code if isinstance(code, str) else show(code, interp.builtin_names)
        raise ScriptError("SystemExit", text, node.line, node.column)

    return fn


def _property(interp, args, kwargs, node):
    allowed = ("fget", "fset", "fdel", "doc")
    for k in kwargs:
        if k not in allowed:
            raise TypeError(f"property() got an unexpected keyword argument '{k}'")
    values = dict(zip(allowed, args), **kwargs)
    return Property(values.get("fget"), values.get("fset"))


def install(interp, b: dict) -> None:
    """Add these builtins to the table `b` (the interpreter's)."""
    table = {
        "isinstance": _isinstance,
        "issubclass": _issubclass,
        "id": _id,
        "sorted": _sorted,
        "map": _map,
        "filter": _filter,
        "repr": _repr,
        "callable": _callable,
        "iter": _iter,
        "next": _next,
        "hash": _hash,
        "super": classes.make_super,
        "property": _property,
        "exit": _exit("exit"),
        "quit": _exit("quit"),
        "staticmethod": _one("staticmethod", StaticMethod),
        "classmethod": _one("classmethod", ClassMethod),
        "min": _min_max("min", b["min"]),
        "max": _min_max("max", b["max"]),
    }
    for name, fn in table.items():
        b[name] = Builtin(name, fn)
    b["reversed"] = reversed
    b["dict"] = dict
    b["set"] = set
    b["frozenset"] = frozenset
    b["NotImplemented"] = NotImplemented
    b.update(EXCEPTIONS)
