"""What a script can reach: the torch / F / autograd / math namespaces, the few Python
builtins, and the attributes and methods allowed on each kind of value.

Everything is a whitelist; the interpreter never calls `getattr` with a name that is not
listed here, so a script cannot reach Python internals (`x.__class__`, `__import__`...).
"""

from __future__ import annotations

import collections
import functools
import math
from types import FunctionType, MethodType

import numpy as np

from .. import engine
from ..engine import dtypes, printoptions
from ..engine import functional as _functional
from ..engine.custom_function import FUNCTION_NODES
from ..engine.node import Node
from ..engine.ops import losses, reductions
from ..engine.parameter import Parameter
from ..engine.tensor import Size, Tensor
from .anomaly import AnomalyMode, detect_anomaly, set_detect_anomaly  # noqa: F401  (re-exported)
from .exceptions import ExceptionValue  # noqa: F401  (re-exported)
from .objects import Builtin, ClassValue, Instance, NativeMethod, ProvidedBase, ScriptObject
from .pyfunctools import PARTIAL
from .torchfunc import FUNC, FUNCTIONAL
from .whitelists import (  # noqa: F401  (re-exported: what a script may read of each kind)
    _DICT_VIEWS,
    DICT_METHODS,
    ITERATORS,
    LIST_METHODS,
    NODE_ATTRS,
    SET_METHODS,
    TENSOR_ATTRS,
    TENSOR_METHODS,
    TENSOR_SETTABLE,
)


class Namespace:
    """A module-like value (`torch`, `F`, `math`) with a fixed set of members."""

    def __init__(self, name: str, members: dict):
        self.name = name
        self.members = members

    def __repr__(self):
        return f"<module '{self.name}'>"


class TypeValue:
    """What `type(x)` returns: only `__name__` is readable. It prints with its module as
    PyTorch's classes do (`<class 'torch.Tensor'>`); one object per class, so `type(a) is
    type(b)` and `==` hold for values of the same class."""

    _made: dict = {}

    def __new__(cls, name: str, qualname: str | None = None):
        key = (name, qualname or name)
        made = cls._made.get(key)
        if made is None:
            made = cls._made[key] = object.__new__(cls)
            made.name, made.qualname = key
        return made

    def __repr__(self):
        if self.qualname.startswith("typing."):  # typing's names print bare, as in Python
            return self.qualname
        return f"<class '{self.qualname}'>"


_QUALIFIED = {
    "Tensor": "torch.Tensor",
    "Parameter": "torch.nn.parameter.Parameter",
    "Size": "torch.Size",
    "dtype": "torch.dtype",
    "device": "torch.device",
    "RemovableHandle": "torch.utils.hooks.RemovableHandle",
    "SavedTensor": "torch._C._autograd.SavedTensor",
}


def type_of(value) -> TypeValue:
    """`type(value)` as a script sees it (a script class for its instances)."""
    if isinstance(value, Instance):
        return value._cls
    name = type_name(value)
    if isinstance(value, FUNCTION_NODES):
        return TypeValue(name, f"torch.autograd.function.{name}")
    if isinstance(value, reductions.ReturnTypes):
        return TypeValue(name, f"torch.return_types.{name}")
    if isinstance(value, (engine.no_grad, engine.enable_grad, engine.set_grad_enabled)):
        return TypeValue(name, f"torch.autograd.grad_mode.{name}")
    if isinstance(value, collections.OrderedDict):  # (state_dict()'s)
        return TypeValue("OrderedDict", "collections.OrderedDict")
    if isinstance(value, (np.ndarray, np.generic)):  # numpy's classes name their module
        return TypeValue(name, f"numpy.{type(value).__name__}")
    return TypeValue(name, _QUALIFIED.get(name))


_functional.name_types_with(lambda value: repr(type_of(value)))  # error texts name script types


class UserFunction:
    """A `def` or a `lambda` of the script: its node, the scope it closes over, its
    parameters' default values (evaluated where it was defined, as in Python), its
    qualified name (`A.f`, `outer.<locals>.inner`) and, for a function written in a class
    body (or nested in one), that class's scope (zero-argument `super()` reads it)."""

    __slots__ = ("node", "closure", "defaults", "qualname", "class_scope", "name", "plain", "sig", "shown")

    def __init__(self, node, closure, defaults=None, qualname=None, class_scope=None):
        self.node = node
        params = node.params
        # (positional names, *args name, keyword-only names, **kwargs name, names taken by keyword)
        self.sig = (
            tuple(p.name for p in params if p.kind == ""),
            next((p.name for p in params if p.kind == "*"), None),
            tuple(p.name for p in params if p.kind == "kw"),
            next((p.name for p in params if p.kind == "**"), None),
            frozenset(p.name for p in params if p.kind in ("", "kw")),
        )
        self.plain = self.sig[0] if len(self.sig[0]) == len(params) else None  # only plain ones
        self.shown = None  # (name, qualname) it shows after functools.wraps
        self.closure = closure
        self.defaults = defaults if defaults is not None else {}
        self.name = getattr(node, "name", "<lambda>")
        self.qualname = qualname or self.name
        self.class_scope = class_scope

    def __repr__(self):
        return f"<function {self.shown[1] if self.shown else self.qualname}>"


class Device:
    """`torch.device`: diffcli runs on the CPU, so only "cpu" devices can hold tensors."""

    TYPES = (
        "cpu",
        "cuda",
        "ipu",
        "xpu",
        "mkldnn",
        "opengl",
        "opencl",
        "ideep",
        "hip",
        "ve",
        "fpga",
        "maia",
        "xla",
        "lazy",
        "vulkan",
        "mps",
        "meta",
        "hpu",
        "mtia",
        "privateuseone",
    )

    def __init__(self, type: str, index=None):
        self.type, self.index = type, index

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, Device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


def device(spec, index=None):
    """`torch.device("cpu")`, `torch.device("cuda:0")`, `torch.device("cuda", 1)`."""
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool):
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if not isinstance(spec, str):
        raise TypeError(f"device(): argument 'type' must be str, not {type_name(spec)}")
    kind, _, number = spec.partition(":")
    if kind not in Device.TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(Device.TYPES)} device type at start of device string: {spec}"
        )
    if number:
        if not number.isdigit():
            raise RuntimeError(f"Invalid device string: '{spec}'")
        index = int(number)
    return Device(kind, index)


def require_cpu(where, callee="to") -> None:
    """A `device=` argument or `.to(...)` target: the CPU passes; CUDA fails as on PyTorch's
    CPU-only build; other devices diffcli does not have."""
    if not isinstance(where, (Device, str, int)) or isinstance(where, bool):
        raise TypeError(f"{callee}(): argument 'device' must be torch.device, not {type_name(where)}")
    kind = device(where).type
    if kind == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if kind != "cpu":
        raise RuntimeError(f"diffcli runs on the CPU only: device '{kind}' is not available")


CPU = Device("cpu")


def set_default_device(device):  # the CPU is the only device (CUDA fails as on a CPU-only build)
    if device is not None:
        require_cpu(device, "set_default_device")


def get_default_device():
    return CPU


def _set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    printoptions.set_printoptions(precision, threshold, edgeitems, linewidth, profile, sci_mode)


_set_printoptions.__name__ = "set_printoptions"


def _false():
    return False


def _zero():
    return 0


def _autograd_members():
    return {
        "grad": engine.grad,
        "backward": engine.backward,
        "no_grad": engine.no_grad,
        "enable_grad": engine.enable_grad,
        "set_grad_enabled": engine.set_grad_enabled,
        "set_detect_anomaly": set_detect_anomaly,
        "detect_anomaly": detect_anomaly,
    }


F_NAMES = (
    "relu",
    "gelu",
    "softplus",
    "elu",
    "leaky_relu",
    "silu",
    "sigmoid",
    "tanh",
    "mse_loss",
    "binary_cross_entropy",
    "cross_entropy",
    "nll_loss",
    "softmax",
    "log_softmax",
    "normalize",
    "linear",
    "binary_cross_entropy_with_logits",
    "hardtanh",
    "relu6",
    "selu",
    "celu",
    "threshold",
    "hardsigmoid",
    "hardswish",
    "mish",
    "hardshrink",
    "softshrink",
    "logsigmoid",
    "softsign",
    "tanhshrink",
    "l1_loss",
    "one_hot",
    "cosine_similarity",
)

_F = Namespace("torch.nn.functional", {k: engine.FUNCTIONS[k] for k in F_NAMES if k in engine.FUNCTIONS})
_FUNCTIONAL = Namespace("torch.autograd.functional", FUNCTIONAL)
_AUTOGRAD = Namespace("torch.autograd", {**_autograd_members(), "functional": _FUNCTIONAL})
_FUNC = Namespace("torch.func", FUNC)
_NN = Namespace("torch.nn", {"functional": _F})
# a CPU-only build: `device = "cuda" if torch.cuda.is_available() else "cpu"` picks the CPU
_CUDA = Namespace("torch.cuda", {"is_available": _false, "device_count": _zero})
_BACKENDS = Namespace(
    "torch.backends", {"mps": Namespace("torch.backends.mps", {"is_available": _false, "is_built": _false})}
)

# the PyTorch release whose behaviour diffcli reproduces (`torch.__version__`)
TORCH_VERSION = "2.13.0+cpu"  # the CPU-only build diffcli reproduces (CUDA fails as there)

TORCH = Namespace(
    "torch",
    {
        **engine.FUNCTIONS,
        **_autograd_members(),
        "autograd": _AUTOGRAD,
        "nn": _NN,
        "is_grad_enabled": engine.is_grad_enabled,
        "func": _FUNC,
        "vmap": FUNC["vmap"],
        "cuda": _CUDA,
        "backends": _BACKENDS,
        "device": device,
        "set_default_dtype": dtypes.set_default_dtype,
        "set_default_device": set_default_device,
        "get_default_device": get_default_device,
        "get_default_dtype": dtypes.get_default_dtype,
        "float64": dtypes.float64,
        "double": dtypes.float64,
        "float32": dtypes.float32,
        "float": dtypes.float32,
        "int64": dtypes.int64,
        "long": dtypes.int64,
        "bool": dtypes.bool_,
        "int32": dtypes.int32,
        "int": dtypes.int32,
        "pi": math.pi,
        "e": math.e,
        "inf": math.inf,
        "nan": math.nan,
        "Size": Size,
        # the ATen op: int reduction, 0 ('none') unless given -- not F's signature
        "binary_cross_entropy_with_logits": losses.binary_cross_entropy_with_logits_aten,
        "set_printoptions": _set_printoptions,
    },
)

MATH = Namespace(
    "math",
    {
        k: getattr(math, k)
        for k in (
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "atan2",
            "sinh",
            "cosh",
            "tanh",
            "exp",
            "expm1",
            "log",
            "log2",
            "log10",
            "log1p",
            "sqrt",
            "fabs",
            "floor",
            "ceil",
            "pow",
            "pi",
            "e",
            "inf",
            "nan",
            "isnan",
            "isinf",
            "isfinite",
            "isclose",
            "hypot",
            "erf",
        )
    },
)


def _wraps(wrapped, assigned=None, updated=None):
    """functools.wraps: the wrapper shows the wrapped function's name (nothing else is copied)."""

    def decorate(wrapper):
        if isinstance(wrapper, UserFunction):
            copy = UserFunction(
                wrapper.node, wrapper.closure, wrapper.defaults, wrapper.qualname, wrapper.class_scope
            )
            shown = wrapped.shown if isinstance(wrapped, UserFunction) else None
            name = getattr(wrapped, "name", None)
            if shown or isinstance(name, str):
                copy.shown = shown or (name, getattr(wrapped, "qualname", name))
            return copy
        return wrapper

    return decorate


def _reduce(interp, args, kwargs, node):
    """functools.reduce (its function, a script's, is called back through the interpreter)."""
    if kwargs:
        raise TypeError("reduce() takes no keyword arguments")
    if not 2 <= len(args) <= 3:
        raise TypeError(
            f"reduce expected at least 2 arguments, got {len(args)}"
            if len(args) < 2
            else f"reduce expected at most 3 arguments, got {len(args)}"
        )
    if not isinstance(args[1], ITERABLES):
        raise TypeError("reduce() arg 2 must support iteration")
    return functools.reduce(host_callable(interp, args[0], node), *args[1:])


_FUNCTOOLS = Namespace(
    "functools", {"wraps": _wraps, "reduce": Builtin("reduce", _reduce), "partial": PARTIAL}
)
# the names of `typing` (annotations are not evaluated: these only need to import)
_TYPING = Namespace(
    "typing",
    {
        n: TypeValue(n, f"typing.{n}")
        for n in (
            "Any",
            "Optional",
            "Union",
            "List",
            "Dict",
            "Tuple",
            "Callable",
            "Sequence",
            "Iterable",
            "Iterator",
            "Mapping",
            "Set",
            "Type",
            "TypeVar",
            "Generic",
            "NamedTuple",
            "Literal",
            "Final",
            "ClassVar",
        )
    },
)

# import lines: module path -> the namespace it binds
MODULES = {
    "torch": TORCH,
    "torch.nn": _NN,
    "torch.nn.functional": _F,
    "torch.autograd": _AUTOGRAD,
    "math": MATH,
    "functools": _FUNCTOOLS,
    "typing": _TYPING,
    "torch.func": _FUNC,
    "torch.autograd.functional": _FUNCTIONAL,
}

# what a script can iterate over (`for`, unpacking, `*xs`, list(), sorted()...)
ITERABLES = (Tensor, list, tuple, range, Size, str, dict, set, frozenset, *_DICT_VIEWS, *ITERATORS, Instance)


def type_name(value) -> str:
    if isinstance(value, Tensor):
        return "Parameter" if isinstance(value, Parameter) else "Tensor"
    if isinstance(value, (ClassValue, ProvidedBase)):
        return "type"
    if isinstance(value, (ScriptObject, NativeMethod)):
        return value.kind
    if isinstance(value, Node):
        return value.name()
    if isinstance(value, Size):
        return "Size"
    if isinstance(value, reductions.ReturnTypes):
        return value.kind
    if isinstance(value, Namespace):
        return "module"
    if isinstance(value, dtypes.DType):
        return "dtype"
    if isinstance(value, Device):
        return "device"
    if isinstance(value, AnomalyMode):
        return value.name
    if isinstance(value, UserFunction):
        return "function"
    if isinstance(value, TypeValue):
        return "type"
    if isinstance(value, (FunctionType, MethodType)):
        return "builtin_function_or_method"  # the op table's functions, tensor methods
    return type(value).__name__


def host_callable(interp, fn, node):
    """`fn` as a Python callable for a host builtin: it calls back into the interpreter."""
    if fn is None:
        return None

    def call(*args, **kwargs):
        return interp.call_value(fn, list(args), kwargs, node)

    return call
