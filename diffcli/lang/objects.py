"""The values of a script's own Python: classes, their instances, and what surrounds them.

A script class is a `ClassValue`. Its instances are objects of a host class made for it
(`ClassValue.host`, a subclass of `Instance`) that mirrors the script's inheritance, so
that Python itself works out the method resolution order (and words its errors: `duplicate
base class A`, `Cannot create a consistent method resolution order (MRO)`), and so that
the special methods a script defines (`__add__`, `__len__`, `__repr__`, ...: the fixed list
in `dunders.DEFINABLE`) serve Python's own protocols (`a + b`, `len(a)`, `print(a)`,
`sorted(xs)`, `x in a`) with Python's exact behaviour and messages. Each such method of
the host class only calls the script's function through the interpreter; nothing else
of the host class is reachable from a script (attributes go through `classes.attribute`).

A base class that diffcli provides is a `ProvidedBase`: the exception classes
(`exceptions.py`) now, `torch.autograd.Function` and `torch.nn.Module` later. It has a host
class too, so `class MyError(ValueError)` or `class Net(torch.nn.Module)` mirror the same way,
and a few hooks (`lookup`, `instance_attribute`, `set_attribute`, `subclassed`) through which
it gives its subclasses and their instances their behaviour.

This module holds data only; the interpreter's parts that use it are `classes`,
`callargs` and `exceptions`.
"""

from __future__ import annotations

MISSING = object()  # "no such attribute" (None is a value)


class Instance:
    """Base of the host classes of script classes: an instance knows its script class
    (`_cls`) and keeps its attributes in `_attrs`."""

    __slots__ = ("_cls", "_attrs")

    def __repr__(self):
        return f"<{self._cls.full_name} object>"  # Python's, without the address


def new_instance(cls) -> Instance:
    """A fresh instance of the script class or provided base `cls`, not yet initialised."""
    inst = cls.host.__new__(cls.host)
    inst._cls = cls
    inst._attrs = {}
    return inst


class ClassValue:
    """A class a script defines: its name, bases, namespace and host class."""

    __slots__ = ("name", "qualname", "bases", "ns", "host", "interp", "node", "__weakref__")

    def __init__(self, name, qualname, bases, ns, interp, node):
        self.name, self.qualname, self.bases, self.ns = name, qualname, bases, ns
        self.interp, self.node = interp, node
        self.host = None

    @property
    def full_name(self):
        return f"__main__.{self.qualname}"

    @property
    def mro(self) -> list:
        """The script's classes and provided bases in method resolution order."""
        return class_mro(self.host)

    def lookup(self, name):
        """`(owner, value)` of the first class in the MRO that has `name`, else MISSING."""
        return find_in_mro(self.mro, name)

    def __repr__(self):
        return f"<class '{self.full_name}'>"


def class_mro(host) -> list:
    """The script classes and provided bases behind a host class's MRO."""
    return [h.__dict__["_script_class"] for h in host.__mro__ if "_script_class" in h.__dict__]


class ProvidedBase:
    """A base class diffcli provides for script classes (the hook for the classes the
    engine provides: `exceptions.ExceptionClass` now; `torch.autograd.Function` and
    `torch.nn.Module` later). A subclass sets `name`, `full_name` and `host` (a subclass of
    `Instance` whose `_script_class` is this object) and overrides the hooks it needs."""

    name = full_name = "object"
    host = Instance

    @property
    def mro(self) -> list:
        return class_mro(self.host)

    def lookup(self, name):
        """A class attribute or method (`NativeMethod` for methods), or MISSING."""
        return MISSING

    def instance_attribute(self, inst, name):
        """An attribute this base gives its instances (after their own and the classes'), or MISSING."""
        return MISSING

    def set_attribute(self, interp, inst, name, value) -> bool:
        """Handle `inst.name = value` (True) or leave it to the instance's attributes (False)."""
        return False

    def subclassed(self, interp, cls, node) -> None:
        """A script class `cls` has just been made with this base among its ancestors."""

    def __repr__(self):
        return f"<class '{self.full_name}'>"


class NativeMethod:
    """A method that a provided base implements in Python: `fn(interp, self, args, kwargs, node)`."""

    kind = "builtin_function_or_method"
    __slots__ = ("name", "fn")

    def __init__(self, name, fn):
        self.name, self.fn = name, fn

    def __repr__(self):
        return f"<method '{self.name}'>"


class ScriptObject:
    """Base of the small wrapper values below; `kind` is the Python type name a script sees."""

    __slots__ = ()
    kind = "object"


class BoundMethod(ScriptObject):
    """A function bound to its first argument: `obj.method` (or `Class.classmethod`)."""

    kind = "method"
    __slots__ = ("owner", "func")

    def __init__(self, owner, func):
        self.owner, self.func = owner, func

    def __repr__(self):
        name = getattr(self.func, "qualname", None) or getattr(self.func, "name", "?")
        return f"<bound method {name} of {self.owner!r}>"


class StaticMethod(ScriptObject):
    kind = "staticmethod"
    __slots__ = ("func",)

    def __init__(self, func):
        self.func = func

    def __repr__(self):
        return f"<staticmethod({self.func!r})>"


class ClassMethod(ScriptObject):
    kind = "classmethod"
    __slots__ = ("func",)

    def __init__(self, func):
        self.func = func

    def __repr__(self):
        return f"<classmethod({self.func!r})>"


class Property(ScriptObject):
    """`@property` (with `.setter`): a computed attribute of the instances."""

    kind = "property"
    __slots__ = ("fget", "fset", "name")

    def __init__(self, fget=None, fset=None, name=None):
        self.fget, self.fset = fget, fset
        self.name = name if name is not None else getattr(getattr(fget, "node", None), "name", None)

    def __repr__(self):
        return "<property object>"


class SuperProxy(ScriptObject):
    """`super()` / `super(C, obj)`: attribute lookup in `obj`'s MRO after `start`."""

    kind = "super"
    __slots__ = ("start", "obj")

    def __init__(self, start, obj):
        self.start, self.obj = start, obj

    @property
    def obj_class(self):
        return self.obj if isinstance(self.obj, (ClassValue, ProvidedBase)) else self.obj._cls

    def __repr__(self):
        what = f"<{self.obj_class.name} object>" if isinstance(self.obj, Instance) else repr(self.obj)
        return f"<super: <class '{self.start.name}'>, {what}>"


class GradModeFunction(ScriptObject):
    """A script function decorated with `@torch.no_grad()`, `@torch.enable_grad()` or
    `@torch.set_grad_enabled(b)`: calling it runs the function in that grad mode."""

    kind = "function"
    __slots__ = ("mode", "func")

    def __init__(self, mode, func):
        self.mode, self.func = mode, func

    def __repr__(self):
        return repr(self.func)  # as functools.wraps leaves it


class Builtin(ScriptObject):
    """A builtin function that needs the interpreter: `fn(interp, args, kwargs, node)`."""

    kind = "builtin_function_or_method"
    __slots__ = ("name", "fn")

    def __init__(self, name, fn):
        self.name, self.fn = name, fn

    def __repr__(self):
        return f"<built-in function {self.name}>"


# --- scopes -------------------------------------------------------------------------------


class FunctionScope(dict):
    """The local names of a call of a nested function (or of a comprehension): its own, then,
    for reading, those of the scope it was defined in (Python's closures, by reference)."""

    __slots__ = ("outer",)

    def __init__(self, outer):
        super().__init__()
        self.outer = outer

    def __contains__(self, name):
        return dict.__contains__(self, name) or name in self.outer

    def __missing__(self, name):
        return self.outer[name]


class ClassScope(FunctionScope):
    """The namespace a class body runs in; its functions close over the scope around the
    class (`outer`), not over the class body, as in Python."""

    __slots__ = ("qualname", "cls")

    def __init__(self, outer, qualname):
        super().__init__(outer)
        self.qualname = qualname
        self.cls = None  # the ClassValue, once made (zero-argument super() needs it)


def find_in_mro(mro, name):
    """`(owner, value)` of the first class in `mro` that has `name` (a script class in its
    namespace, a provided base through its own lookup), else MISSING."""
    for klass in mro:
        if isinstance(klass, ClassValue):
            if name in klass.ns:
                return klass, klass.ns[name]
        else:
            value = klass.lookup(name)
            if value is not MISSING:
                return klass, value
    return MISSING
