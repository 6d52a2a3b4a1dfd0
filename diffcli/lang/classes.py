"""Script classes at run time: the `class` statement, making instances, calling script
objects, their attributes, `super()`, and `with` over a script's context managers.

The data model is in `objects.py`; the security rules (which dunder names a class may
define and a script may read) are in `dunders.py`.
"""

from __future__ import annotations

from .. import engine
from ..engine import saved
from ..engine.context import RunContext
from . import ast
from .dunders import DEFINABLE, refuse
from .errors import ScriptError
from .exceptions import EXCEPTIONS, ExceptionValue, catchable, value_of
from .objects import (
    MISSING,
    BoundMethod,
    Builtin,
    ClassMethod,
    ClassScope,
    ClassValue,
    GradModeFunction,
    Instance,
    NativeMethod,
    Property,
    ProvidedBase,
    ScriptObject,
    StaticMethod,
    SuperProxy,
    class_mro,
    find_in_mro,
    new_instance,
)
from .values import AnomalyMode, UserFunction, type_name

GRAD_MODES = (engine.no_grad, engine.enable_grad, engine.set_grad_enabled)
# the engine's other context managers (`with torch.autograd.graph.saved_tensors_hooks(...)`)
ENGINE_CONTEXTS = (saved.saved_tensors_hooks,)


class Traceback(ScriptObject):
    """What `__exit__` gets for the traceback of an error (diffcli keeps no frames)."""

    kind = "traceback"

    def __repr__(self):
        return "<traceback object>"


TRACEBACK = Traceback()


def _error(type_name_, message, node):
    return ScriptError(type_name_, message, node.line, node.column)


# --- object's own methods (the end of every MRO) -------------------------------------------


def _object_init(interp, inst, args, kwargs, node):
    if args or kwargs:
        raise _error(
            "TypeError", "object.__init__() takes exactly one argument (the instance to initialize)", node
        )


def _object_repr(interp, inst, args, kwargs, node):
    return Instance.__repr__(inst)


_OBJECT = {
    "__init__": NativeMethod("__init__", _object_init),
    "__repr__": NativeMethod("__repr__", _object_repr),
    "__str__": NativeMethod("__str__", _object_repr),
}


def lookup(cls, name, after=None):
    """`(owner, value)` for `name` in the MRO of `cls` (past `after`, for super()), then
    object's own methods; MISSING if none has it."""
    mro = class_mro(cls.host)
    if after is not None:
        mro = mro[mro.index(after) + 1 :] if after in mro else []
    found = find_in_mro(mro, name)
    if found is not MISSING:
        return found
    if name in _OBJECT:
        return None, _OBJECT[name]
    return MISSING


# --- the class statement ---------------------------------------------------------------------


def _refused_name(name):
    return name.startswith("__") and name not in DEFINABLE


def _defined_names(body):
    for stmt in body:
        if isinstance(stmt, (ast.FuncDef, ast.ClassDef)):
            yield stmt.name, stmt
        elif isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    yield t.id, t


def _cannot_define(name, node):
    return _error(
        "TypeError",
        f"a diffcli class cannot define '{name}': names starting with '__' are "
        "limited to the special methods diffcli calls (__init__, __call__, __repr__, __str__, "
        "__len__, __getitem__, __iter__, __eq__, __hash__, __add__ and the other operators, "
        "__enter__, __exit__)",
        node,
    )


def exec_class(interp, s: ast.ClassDef, scope):
    decorators = [interp.eval(d, scope) for d in s.decorators]
    if s.keywords:
        name, value = s.keywords[0]
        raise _error("TypeError", f"diffcli classes take no keyword arguments ('{name}=')", value)
    bases = []
    for b in s.bases:
        if b.__class__ is ast.Name and b.id == "object" and b.id not in scope and b.id not in interp.env:
            continue  # `class A(object):` is `class A:`
        base = interp.eval(b, scope)
        if not isinstance(base, (ClassValue, ProvidedBase)):
            raise _error(
                "TypeError",
                f"class {s.name} cannot derive from {_describe(base)}: a diffcli class "
                "derives only from classes of the script and the classes diffcli provides "
                "(Exception and its subclasses)",
                b,
            )
        bases.append(base)
    for name, node in _defined_names(s.body):
        if _refused_name(name):
            raise _cannot_define(name, node)
    if isinstance(scope, ClassScope):
        qualname = f"{scope.qualname}.{s.name}"
    elif interp.frames:
        qualname = f"{interp.frames[-1][0].qualname}.<locals>.{s.name}"
    else:
        qualname = s.name
    ns = ClassScope(scope, qualname)
    interp.exec_block(s.body, ns)
    own = dict(ns.items())
    for name in own:
        if _refused_name(name):
            raise _cannot_define(name, s)
    cls = ClassValue(s.name, qualname, bases, own, interp, s)
    host_ns = {"__slots__": (), "_script_class": cls, "__module__": "__main__", "__qualname__": qualname}
    for name, value in own.items():
        if name in DEFINABLE and name != "__init__":
            host_ns[name] = None if value is None else _special(cls, name)
    try:
        cls.host = type(s.name, tuple(b.host for b in bases) or (Instance,), host_ns)
    except TypeError as err:  # Python's words: duplicate base, inconsistent MRO
        raise _error("TypeError", str(err), s) from None
    ns.cls = cls
    for klass in cls.mro:
        if isinstance(klass, ProvidedBase):
            klass.subclassed(interp, cls, s)
    value = cls
    for deco, node in zip(reversed(decorators), reversed(s.decorators)):
        value = interp.call_value(deco, [value], {}, node)
    scope[s.name] = value


def _describe(value):
    if isinstance(value, type):
        return f"the host type '{value.__name__}'"
    return f"a value of type '{type_name(value)}'"


_STOP = EXCEPTIONS["StopIteration"].host
_INDEX = EXCEPTIONS["IndexError"].host


def _special(cls, name):
    """The host class's method `name`: it calls the script's function of that name (so
    Python's protocols reach it). In `__next__`, StopIteration ends Python's iteration; in
    `__getitem__`, IndexError ends the old sequence protocol (`for x in obj`)."""
    interp = cls.interp

    def special(self, *args):
        fn = cls.ns[name]
        try:
            return interp.call_value(fn, [self, *args], {}, getattr(fn, "node", cls.node))
        except ScriptError as err:
            if catchable(err) and name in ("__next__", "__getitem__"):
                value = value_of(err)
                if name == "__next__" and isinstance(value, _STOP):
                    raise StopIteration from None
                if name == "__getitem__" and isinstance(value, _INDEX):
                    raise IndexError(str(value)) from None
            raise

    special.__name__ = special.__qualname__ = name
    return special


# --- instances and calls -----------------------------------------------------------------------


def instantiate(interp, cls, args, kwargs, e):
    """`Cls(*args, **kwargs)`: a new instance, initialised by the first `__init__` in its MRO."""
    inst = new_instance(cls)
    if isinstance(inst, ExceptionValue):  # as BaseException.__new__: args kept even if
        inst._args, inst._text = tuple(args), None  # a script __init__ does not pass them on
    owner, init = lookup(cls, "__init__")
    if owner is None:  # object's: no arguments
        if args or kwargs:
            raise _error("TypeError", f"{cls.name}() takes no arguments", e)
        return inst
    result = call(interp, _bind(init, inst, cls), args, kwargs, e)
    if result is not None:
        raise _error("TypeError", f"__init__() should return None, not '{type_name(result)}'", e)
    return inst


def _bind(value, obj, cls):
    """A class attribute as read off an instance (or, for classmethods, off the class)."""
    if isinstance(value, (UserFunction, NativeMethod, GradModeFunction)):
        return BoundMethod(obj, value)
    if isinstance(value, StaticMethod):
        return value.func
    if isinstance(value, ClassMethod):
        return BoundMethod(cls, value.func)
    return value


def call(interp, fn, args, kwargs, e):
    """Call one of the script-level values that are not plain functions."""
    if isinstance(fn, BoundMethod):
        func = fn.func
        if isinstance(func, NativeMethod):
            return interp.guard(e, lambda: func.fn(interp, fn.owner, args, kwargs, e))
        return interp.call_value(func, [fn.owner, *args], kwargs, e)
    if isinstance(fn, (ClassValue, ProvidedBase)):
        return instantiate(interp, fn, args, kwargs, e)
    if isinstance(fn, Builtin):  # (Python's errors of the builtin become ScriptErrors here)
        return interp.guard(e, lambda: fn.fn(interp, args, kwargs, e), fn.name)
    if isinstance(fn, StaticMethod):
        return interp.call_value(fn.func, args, kwargs, e)
    if isinstance(fn, GradModeFunction):
        with RunContext(grad_enabled=fn.mode):
            return interp.call_value(fn.func, args, kwargs, e)
    if isinstance(fn, Instance):
        found = lookup(fn._cls, "__call__")
        if found is not MISSING:
            return call(interp, _bind(found[1], fn, fn._cls), args, kwargs, e)
    elif isinstance(fn, NativeMethod):  # `Base.__init__(self, ...)`
        if not args:
            raise _error("TypeError", f"descriptor '{fn.name}' needs an argument", e)
        return interp.guard(e, lambda: fn.fn(interp, args[0], list(args[1:]), kwargs, e))
    raise _error("TypeError", f"'{type_name(fn)}' object is not callable", e)


def grad_mode_decorator(ctx, fn):
    """`@torch.no_grad()` (or `@torch.no_grad`, `@torch.enable_grad()`, `@torch.set_grad_enabled(b)`)
    on a script function."""
    if isinstance(ctx, engine.set_grad_enabled):
        RunContext(grad_enabled=ctx.prev).apply()  # as a decorator, making it must not change the mode
    return GradModeFunction(ctx.mode, fn)


# --- attributes ----------------------------------------------------------------------------------


def attribute(interp, obj, e):
    name = e.name
    if isinstance(obj, Instance):
        cls = obj._cls
        found = lookup(cls, name)
        if found is not MISSING and isinstance(found[1], Property):
            prop = found[1]
            if prop.fget is None:
                raise _error("AttributeError", f"property '{name}' of '{cls.name}' object has no getter", e)
            return interp.call_value(prop.fget, [obj], {}, e)
        if name in obj._attrs:
            return obj._attrs[name]
        if found is not MISSING:
            return _bind(found[1], obj, cls)
        for klass in cls.mro:
            if isinstance(klass, ProvidedBase):
                value = klass.instance_attribute(obj, name)
                if value is not MISSING:
                    return value
        raise _error("AttributeError", f"'{cls.name}' object has no attribute '{name}'", e)
    if isinstance(obj, (ClassValue, ProvidedBase)):
        found = lookup(obj, name)
        if found is MISSING or (found[0] is None and not name.startswith("__")):
            raise _error("AttributeError", f"type object '{obj.name}' has no attribute '{name}'", e)
        value = found[1]
        if isinstance(value, StaticMethod):
            return value.func
        if isinstance(value, ClassMethod):
            return BoundMethod(obj, value.func)
        return value
    if isinstance(obj, SuperProxy):
        found = lookup(obj.obj_class, name, after=obj.start)
        if found is MISSING:
            raise _error("AttributeError", f"'super' object has no attribute '{name}'", e)
        value = found[1]
        if isinstance(obj.obj, Instance):
            return _bind(value, obj.obj, obj.obj_class)
        if isinstance(value, ClassMethod):
            return BoundMethod(obj.obj, value.func)
        return value.func if isinstance(value, StaticMethod) else value
    if isinstance(obj, Property) and name in ("setter", "getter"):

        def accessor(interp_, args, kwargs, node, which=name):
            if len(args) != 1 or kwargs:
                raise _error("TypeError", f"{which}() takes exactly one argument", node)
            return Property(obj.fget, args[0], obj.name) if which == "setter" else Property(args[0], obj.fset)

        return Builtin(name, accessor)
    raise _error("AttributeError", f"'{type_name(obj)}' object has no attribute '{name}'", e)


SETTABLE = (Instance, ClassValue)


def set_attribute(interp, obj, target, value):
    """`obj.name = value` on an instance (its attributes, a property's setter, or the hook
    of a provided base) or on a script class (a class attribute)."""
    name = target.name
    if name.startswith("__"):
        raise refuse(name, target)
    if isinstance(obj, ClassValue):
        obj.ns[name] = value
        return
    cls = obj._cls
    found = lookup(cls, name)
    if found is not MISSING and isinstance(found[1], Property):
        if found[1].fset is None:
            raise _error("AttributeError", f"property '{name}' of '{cls.name}' object has no setter", target)
        interp.call_value(found[1].fset, [obj, value], {}, target)
        return
    for klass in cls.mro:
        if isinstance(klass, ProvidedBase) and klass.set_attribute(interp, obj, name, value):
            return
    obj._attrs[name] = value


# --- super() --------------------------------------------------------------------------------------


def make_super(interp, args, kwargs, node):
    if kwargs:
        raise _error("TypeError", "super() takes no keyword arguments", node)
    if not args:
        if not interp.frames:
            raise _error("RuntimeError", "super(): no arguments", node)
        fn, local = interp.frames[-1]
        params = fn.node.params
        if not params or (params[0].kind == "*" and not local[params[0].name]):
            raise _error("RuntimeError", "super(): no arguments", node)
        scope = fn.class_scope
        if scope is None or scope.cls is None:
            raise _error("RuntimeError", "super(): __class__ cell not found", node)
        first = params[0]
        obj = local[first.name]
        if first.kind == "*":
            obj = obj[0]
        start = scope.cls
    elif len(args) == 2:
        start, obj = args
        if not isinstance(start, (ClassValue, ProvidedBase)):
            what = f"the host type '{start.__name__}'" if isinstance(start, type) else type_name(start)
            raise _error("TypeError", f"super() argument 1 must be a class of the script, not {what}", node)
    else:
        raise _error("TypeError", "diffcli supports super() and super(Class, obj)", node)
    ok = isinstance(obj, start.host) or (
        isinstance(obj, (ClassValue, ProvidedBase)) and issubclass(obj.host, start.host)
    )
    if not ok:
        raise _error("TypeError", "super(type, obj): obj must be an instance or subtype of type", node)
    return SuperProxy(start, obj)


# --- with -----------------------------------------------------------------------------------------


def exec_with(interp, s: ast.With, scope, i=0):
    """`with a as x, b as y: body`, as nested withs: torch's grad-mode managers, and
    instances of script classes with `__enter__` and `__exit__` (an error in the body goes
    to `__exit__(type, value, None)`, which may swallow it)."""
    if i == len(s.items):
        interp.exec_block(s.body, scope)
        return
    ctx_expr, name = s.items[i]
    ctx = interp.eval(ctx_expr, scope)
    if isinstance(ctx, (*GRAD_MODES, AnomalyMode, *ENGINE_CONTEXTS)):
        ctx.__enter__()
        value = None  # what torch's managers give `as`
        try:
            if name:
                scope[name] = value
            exec_with(interp, s, scope, i + 1)
        finally:
            ctx.__exit__(None, None, None)
        return
    enter = lookup(ctx._cls, "__enter__") if isinstance(ctx, Instance) else MISSING
    leave = lookup(ctx._cls, "__exit__") if isinstance(ctx, Instance) else MISSING
    if enter is MISSING or leave is MISSING:
        raise _error(
            "TypeError", f"'{type_name(ctx)}' object does not support the context manager protocol", ctx_expr
        )
    enter, leave = _bind(enter[1], ctx, ctx._cls), _bind(leave[1], ctx, ctx._cls)
    value = call(interp, enter, [], {}, ctx_expr)
    if name:
        scope[name] = value
    try:
        exec_with(interp, s, scope, i + 1)
    except ScriptError as err:
        if not catchable(err):
            raise
        exc = value_of(err)
        interp.handling.append(err)
        try:
            swallow = interp.truth(call(interp, leave, [exc._cls, exc, TRACEBACK], {}, ctx_expr), ctx_expr)
        finally:
            interp.handling.pop()
        if not swallow:
            raise
    except BaseException:  # return, break, continue leave the block too
        call(interp, leave, [None, None, None], {}, ctx_expr)
        raise
    else:
        call(interp, leave, [None, None, None], {}, ctx_expr)
