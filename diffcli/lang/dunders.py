"""The dunder names a script may use: a fixed, audited list (README "Security").

A script reaches nothing of the host language, so every attribute whose name starts with
`__` is refused (`access to '__x' is not allowed in diffcli scripts`) except:

- `__name__` and `__qualname__` of a class or a function (a string);
- `__class__` of an instance of a script class or of an exception: its class, the value
  `type(x)` gives (`self.__class__.__name__` in a `__repr__`);
- `__version__` of the torch module: the PyTorch version whose behaviour diffcli
  reproduces (`TORCH_VERSION`);
- the special methods of `DEFINABLE`, read off a script class, one of its instances or
  `super()`: they resolve only to the script's own functions, to a provided base's
  methods, or to `object`'s `__init__`/`__repr__`/`__str__` (`super().__init__(...)`,
  `Base.__init__(self, ...)`, `super().__repr__()`).

And the module-level name `__name__` is `"__main__"` (`if __name__ == "__main__":`).

A class body may define the special methods of `DEFINABLE` and no other dunder. Each of
them is called only through Python's own protocols (`a + b`, `len(a)`, `a[i]`, `print(a)`,
`with a:`, `a(...)`, `x in a`, `hash(a)` as a dict key, iteration) on the script's own
instances, as a script function under the interpreter's caps. What a class cannot define
are the hooks that would change how the host finds attributes or makes, copies, pickles or
frees objects, or how torch dispatches (`__getattribute__`, `__getattr__`, `__setattr__`,
`__delattr__`, `__new__`, `__init_subclass__`, `__class_getitem__`, `__set_name__`,
`__del__`, `__reduce__`, `__copy__`, `__slots__`, `__dict__`, `__index__`, `__array__`,
`__torch_function__`, ...).
"""

from __future__ import annotations

from ..engine.node import Node
from .errors import ScriptError
from .objects import BoundMethod, Builtin, ClassValue, GradModeFunction, Instance, ProvidedBase, SuperProxy
from .values import TORCH, TORCH_VERSION, TypeValue, UserFunction, type_of

DEFINABLE = frozenset(
    """
__init__ __call__ __repr__ __str__ __len__ __getitem__ __setitem__ __contains__ __iter__
__next__ __bool__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __hash__ __float__ __int__
__neg__ __pos__ __abs__ __enter__ __exit__
__add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__ __rmul__ __imul__
__truediv__ __rtruediv__ __itruediv__ __floordiv__ __rfloordiv__ __ifloordiv__
__mod__ __rmod__ __pow__ __rpow__ __matmul__ __rmatmul__
""".split()
)

# the objects whose special methods (DEFINABLE) a script may read: `classes.attribute`
DUNDER_OWNERS = (Instance, ClassValue, ProvidedBase, SuperProxy)

READABLE = frozenset({"__name__", "__qualname__", "__class__", "__version__"}) | DEFINABLE


def refuse(name, node):
    return ScriptError(
        "AttributeError", f"access to '{name}' is not allowed in diffcli scripts", node.line, node.column
    )


def _name_of(obj, qualified):
    if isinstance(obj, TypeValue):
        return obj.name
    if isinstance(obj, ClassValue):
        return obj.qualname if qualified else obj.name
    if isinstance(obj, ProvidedBase):
        return obj.name
    while isinstance(obj, (BoundMethod, GradModeFunction)):
        obj = obj.func
    if isinstance(obj, UserFunction):
        if obj.shown:  # after functools.wraps
            return obj.shown[1] if qualified else obj.shown[0]
        return obj.qualname if qualified else obj.name
    if isinstance(obj, Builtin):
        return obj.name
    return None


def read(interp, obj, e):
    """`obj.__name` for a dunder name that is not a special method a script's class
    defines (`DUNDER_OWNERS`, read by `classes.attribute`): one of the audited few, or the
    refusal."""
    name = e.name
    if name in ("__name__", "__qualname__"):
        value = _name_of(obj, name == "__qualname__")
        if value is not None:
            return value
    elif name == "__class__":
        if isinstance(obj, Instance):
            return obj._cls
        if isinstance(obj, Node):  # `y.grad_fn.__class__`: what type() gives (a TypeValue)
            return type_of(obj)
    elif name == "__version__":
        if obj is TORCH:
            return TORCH_VERSION
    raise refuse(name, e)  # (a special method of a script's class: `classes.attribute`)
