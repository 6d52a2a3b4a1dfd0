"""What a script can reach: the torch / F / autograd / math namespaces, the few Python
builtins, and the attributes and methods allowed on each kind of value.

Everything is a whitelist; the interpreter never calls `getattr` with a name that is not
listed here, so a script cannot reach Python internals (`x.__class__`, `__import__`...).
"""
from __future__ import annotations

import math

from .. import engine
from ..engine import dtypes
from ..engine.node import Node
from ..engine.ops import losses, reductions
from ..engine.tensor import Size, Tensor


class Namespace:
    """A module-like value (`torch`, `F`, `math`) with a fixed set of members."""

    def __init__(self, name: str, members: dict):
        self.name = name
        self.members = members

    def __repr__(self):
        return f"<module '{self.name}'>"


class TypeValue:
    """What `type(x)` returns: only `__name__` is readable."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<class '{self.name}'>"


class ExceptionValue:
    """A caught error, bound by `except ... as e`."""

    def __init__(self, type_name: str, message: str):
        self.type_name = type_name
        self.message = message

    def __str__(self):
        return self.message

    def __repr__(self):
        return f"{self.type_name}({self.message!r})"


class UserFunction:
    """A `def` in the script."""

    def __init__(self, node, closure):
        self.node = node
        self.closure = closure

    def __repr__(self):
        return f"<function {self.node.name}>"


def _autograd_members():
    return {"grad": engine.grad, "backward": engine.backward, "no_grad": engine.no_grad,
            "enable_grad": engine.enable_grad, "set_grad_enabled": engine.set_grad_enabled}


F_NAMES = ("relu", "gelu", "softplus", "elu", "leaky_relu", "silu", "sigmoid", "tanh",
           "mse_loss", "binary_cross_entropy", "cross_entropy", "nll_loss", "softmax",
           "log_softmax", "normalize", "linear", "binary_cross_entropy_with_logits")

_F = Namespace("torch.nn.functional", {k: engine.FUNCTIONS[k] for k in F_NAMES if k in engine.FUNCTIONS})
_AUTOGRAD = Namespace("torch.autograd", _autograd_members())
_NN = Namespace("torch.nn", {"functional": _F})

TORCH = Namespace("torch", {
    **engine.FUNCTIONS,
    **_autograd_members(),
    "autograd": _AUTOGRAD, "nn": _NN, "is_grad_enabled": engine.is_grad_enabled,
    "float64": dtypes.float64, "double": dtypes.float64, "float32": dtypes.float32,
    "float": dtypes.float32, "int64": dtypes.int64, "long": dtypes.int64, "bool": dtypes.bool_,
    "pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "Size": Size,
    # the ATen op: int reduction, 0 ('none') unless given -- not F's signature
    "binary_cross_entropy_with_logits": losses.binary_cross_entropy_with_logits_aten,
})

MATH = Namespace("math", {
    k: getattr(math, k) for k in (
        "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp",
        "expm1", "log", "log2", "log10", "log1p", "sqrt", "fabs", "floor", "ceil", "pow",
        "pi", "e", "inf", "nan", "isnan", "isinf", "isfinite", "isclose", "hypot", "erf")
})

# import lines: module path -> the namespace it binds
MODULES = {
    "torch": TORCH, "torch.nn": _NN, "torch.nn.functional": _F, "torch.autograd": _AUTOGRAD,
    "math": MATH,
}

TENSOR_ATTRS = {"data", "grad", "requires_grad", "is_leaf", "grad_fn", "shape", "dtype",
                "ndim", "T", "_version", "retains_grad", "mT"}
TENSOR_SETTABLE = {"data", "grad", "requires_grad"}
TENSOR_METHODS = (set(engine.METHODS) | set(engine.INPLACE)
                  | {"backward", "retain_grad", "requires_grad_", "detach", "detach_",
                     "zero_", "fill_", "item", "tolist", "size", "dim", "numel",
                     "is_floating_point", "type_as", "view_as", "reshape_as"})
NODE_ATTRS = {"next_functions", "name", "variable"}


def type_name(value) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, Node):
        return value.name()
    if isinstance(value, ExceptionValue):
        return value.type_name
    if isinstance(value, Size):
        return "Size"
    if isinstance(value, reductions.ReturnTypes):
        return value.kind
    if isinstance(value, Namespace):
        return "module"
    if isinstance(value, dtypes.DType):
        return "dtype"
    if isinstance(value, UserFunction):
        return "function"
    if isinstance(value, TypeValue):
        return "type"
    return type(value).__name__


# --- how values print (`print`, `str`) ------------------------------------------------
# Python's own reprs of functions, methods and graph nodes carry memory addresses and
# internal names (`<function Interpreter._builtins.<locals>._print at 0x7f...>`); a
# script sees PyTorch-style, reproducible text instead.

_FUNCTION_NAMES = {id(f): n for n, f in engine.FUNCTIONS.items()}


def display(value, builtin_names=None) -> str:
    """`str(value)` as a script sees it."""
    if isinstance(value, (str, ExceptionValue)):
        return str(value)
    return show(value, builtin_names)


def show(value, builtin_names=None) -> str:
    """`repr(value)` as a script sees it: no addresses, no diffcli internals."""
    import types
    if isinstance(value, (Tensor, Size, reductions.ReturnTypes, dtypes.DType, Namespace, TypeValue,
                          ExceptionValue, UserFunction, str, int, float, bool, type(None),
                          range)):
        return repr(value)
    if isinstance(value, Node):
        return f"<{value.name()} object>"
    if isinstance(value, tuple):
        inner = ", ".join(show(v, builtin_names) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(show(v, builtin_names) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show(k, builtin_names)}: {show(v, builtin_names)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, type):
        return "<class 'torch.Size'>" if value is Size else f"<class '{value.__name__}'>"
    if isinstance(value, types.MethodType):
        owner = value.__self__
        name = getattr(value, "__name__", "method")
        of = "Tensor" if isinstance(owner, Tensor) else (
            owner.name() if isinstance(owner, Node) else type_name(owner))
        if name.endswith("_") and name[:-1] in ("float", "int", "bool", "long", "double"):
            name = name[:-1]           # methods renamed so they do not shadow builtins
        return f"<built-in method {name} of {of} object>"
    if callable(value):
        name = (builtin_names or {}).get(id(value)) or _FUNCTION_NAMES.get(id(value)) \
            or getattr(value, "__name__", None) or type_name(value)
        if isinstance(value, (engine.no_grad, engine.enable_grad, engine.set_grad_enabled)):
            return f"<torch.autograd.grad_mode.{type(value).__name__} object>"
        return f"<built-in function {name}>"
    if isinstance(value, (engine.no_grad, engine.enable_grad, engine.set_grad_enabled)):
        return f"<torch.autograd.grad_mode.{type(value).__name__} object>"
    if isinstance(value, (enumerate, zip)):
        return f"<{type(value).__name__} object>"
    return f"<{type_name(value)} object>"
