"""The words of a failed name or attribute lookup in a script: whether the attribute is one
PyTorch or Python has that diffcli does not support, or a typo of one it does ("Did you
mean", suggest.py), and where the caret goes (under the attribute's name)."""

from __future__ import annotations

import math
from types import BuiltinFunctionType, FunctionType, MethodType

from .. import engine
from ..engine.node import Node
from ..engine.ops import reductions
from ..engine.tensor import Size, Tensor
from .suggest import name_hint
from .values import (
    LIST_METHODS,
    NODE_ATTRS,
    TENSOR_ATTRS,
    TENSOR_METHODS,
    ExceptionValue,
    Namespace,
    TypeValue,
    UserFunction,
)

DEVICE_ATTRS = frozenset(("device", "is_cuda", "cpu", "cuda", "to"))
PYTHON_TYPES = (int, float, bool, str, list, tuple, range, type(None), dict, enumerate, zip, slice)


def unsupported_hint(obj, name):
    """ " (or diffcli does not support it)" for an attribute that `obj` has in Python or
    PyTorch 2.13 but a script cannot reach; "" where Python's own error says it all
    (`'NoneType' object has no attribute 'zero_'`)."""
    from .torchnames import NAMES  # (PyTorch's names: read only when an attribute is missing)

    if isinstance(obj, Tensor):
        known = NAMES["Tensor"]
    elif isinstance(obj, Node):
        known = NAMES["Node"] | ({name} if name.startswith(("_saved_", "_raw_saved_")) else set())
    elif isinstance(obj, Namespace):
        known = NAMES.get(obj.name) or (set(dir(math)) if obj.name == "math" else ())
    elif isinstance(obj, Size):
        known = NAMES["Size"]
    elif isinstance(obj, reductions.ReturnTypes):
        known = NAMES["return_types"]
    elif isinstance(obj, engine.dtypes.DType):
        known = NAMES["dtype"]
    elif isinstance(obj, ExceptionValue):
        known = dir(Exception)
    elif isinstance(obj, UserFunction):
        known = dir(FunctionType)
    elif isinstance(obj, TypeValue):
        known = dir(type)
    elif isinstance(obj, (FunctionType, MethodType, BuiltinFunctionType)):
        known = dir(BuiltinFunctionType)
    elif isinstance(obj, PYTHON_TYPES):
        known = dir(type(obj))
    else:
        known = ()
    return " (or diffcli does not support it)" if name in known else ""


def attribute_hint(obj, name):
    """Why `obj.name` is missing: an attribute of torch or Python that diffcli does not
    support, or a typo of one it does (`. Did you mean: 'backward'?`)."""
    unsupported = unsupported_hint(obj, name)
    if unsupported:
        return unsupported
    if isinstance(obj, Tensor):
        reach = TENSOR_ATTRS | TENSOR_METHODS | DEVICE_ATTRS
    elif isinstance(obj, Namespace):
        reach = obj.members
    elif isinstance(obj, Node):
        reach = NODE_ATTRS
    elif obj.__class__ is list:
        reach = LIST_METHODS
    else:
        reach = ()
    return name_hint(name, reach)


def attribute_position(e):
    """(line, column) of the name in `obj.name`, where an AttributeError's caret goes."""
    if e.end_column > len(e.name):
        return e.end_line, e.end_column - len(e.name)
    return e.line, e.column


def names_in_reach(scope, env, builtins):
    """Every name a bare name could have meant: the scope's (a comprehension's chain of
    scopes included), the script's globals, the builtins and the op table."""
    names = set(env) | set(builtins)
    while hasattr(scope, "outer"):  # the interpreter's _Chain
        names.update(scope.local)
        scope = scope.outer
    names.update(scope)
    return names
