"""The spellings older tutorials use: `torch.autograd.Variable`, the typed tensor classes
(`torch.FloatTensor([1, 2])`, `torch.DoubleTensor(2, 3)`...), `t.type()` /
`t.type(torch.DoubleTensor)`, and `torch.inference_mode` / `t.is_inference()`.
"""

from __future__ import annotations

import numpy as np

from .. import engine
from ..engine import dtypes, errors, inference
from ..engine.ops.conversion import to_dtype
from ..engine.tensor import Tensor
from .objects import Builtin

# torch.XTensor: its dtype, and the name `t.type()` gives
TYPED = {
    "FloatTensor": dtypes.float32,
    "DoubleTensor": dtypes.float64,
    "LongTensor": dtypes.int64,
    "IntTensor": dtypes.int32,
    "BoolTensor": dtypes.bool_,
    "HalfTensor": dtypes.float16,
}
_TYPE_NAMES = {d.np: f"torch.{name}" for name, d in TYPED.items()}


class CheckedClass(Builtin):
    """A torch class a script can call and give to isinstance() (`instance_check`)."""

    __slots__ = ()

    def instance_check(self, obj) -> bool:
        raise NotImplementedError


class TypedTensorClass(CheckedClass):
    """`torch.FloatTensor` & co.: called with data (`[1, 2]`) or sizes (`2, 3`)."""

    __slots__ = ("dtype", "qualname")

    def instance_check(self, obj) -> bool:
        return isinstance(obj, Tensor) and obj.array.dtype == self.dtype.np

    def __init__(self, name, dtype):
        super().__init__(name, self._make)
        self.dtype, self.qualname = dtype, f"torch.{name}"

    def _make(self, interp, args, kwargs, node):
        if kwargs:
            key = next(iter(kwargs))
            raise errors.TorchTypeError(
                f"new() received an invalid combination of arguments - got ({_types(args)}, {key}="
                f"{type(kwargs[key]).__name__}), but expected one of:\n * (*, torch.device device = None)\n"
                f"      didn't match because some of the keywords were incorrect: {key}\n"
                " * (torch.Storage storage)\n * (Tensor other)\n"
                " * (tuple of ints size, *, torch.device device = None)\n"
                " * (object data, *, torch.device device = None)\n"
            )
        np_dtype = self.dtype.np
        if not args:
            return Tensor(np.zeros(0, dtype=np_dtype))
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args):
            # uninitialised memory in PyTorch; zeros here (reproducible)
            interp.check_size(int(np.prod(args, dtype=np.int64)), node)
            return Tensor(np.zeros(tuple(args), dtype=np_dtype))
        if len(args) == 1 and isinstance(args[0], Tensor):
            return to_dtype(args[0], np_dtype) if args[0].array.dtype != np_dtype else args[0]
        if len(args) == 1:
            return engine.FUNCTIONS["tensor"](args[0], dtype=self.dtype)
        raise errors.TorchTypeError(
            f"new() received an invalid combination of arguments - got ({_types(args)})"
        )

    def __repr__(self):
        return f"<class '{self.qualname}'>"


def _types(args):
    return ", ".join(type(a).__name__ for a in args)


TYPED_CLASSES = {name: TypedTensorClass(name, d) for name, d in TYPED.items()}


def tensor_type(t: Tensor, dtype=None, non_blocking=False):
    """`t.type()` -> 'torch.FloatTensor'; `t.type(torch.DoubleTensor)`, `t.type('torch.LongTensor')`
    or `t.type(torch.float64)` -> the converted tensor (t itself when already of that type)."""
    if dtype is None:
        return _TYPE_NAMES.get(t.array.dtype, "torch.Tensor")
    if isinstance(dtype, TypedTensorClass):
        target = dtype.dtype
    elif isinstance(dtype, str):
        name = dtype[len("torch.") :] if dtype.startswith("torch.") else None
        if name not in TYPED:
            raise errors.TorchValueError(f"invalid type: '{dtype}'")
        target = TYPED[name]
    elif isinstance(dtype, dtypes.DType):
        target = dtype
    else:
        raise errors.TorchTypeError(
            f"type() received an invalid combination of arguments - got ({type(dtype).__name__})"
        )
    return t if t.array.dtype == target.np else to_dtype(t, target.np)


class VariableClass(Builtin):
    """`torch.autograd.Variable(t, requires_grad=False, volatile=False)`: a new leaf sharing
    `t`'s data (PyTorch returns a plain Tensor)."""

    __slots__ = ()

    def __init__(self):
        super().__init__("Variable", _variable)

    def __repr__(self):
        return "<class 'torch.autograd.variable.Variable'>"


def _variable(interp, args, kwargs, node):
    args = list(args)
    requires_grad = kwargs.pop("requires_grad", args.pop(1) if len(args) > 1 else False)
    volatile = kwargs.pop("volatile", args.pop(1) if len(args) > 1 else False)
    if kwargs or len(args) > 1:
        raise errors.TorchTypeError("Variable() takes at most 3 arguments (data, requires_grad, volatile)")
    if volatile:
        errors.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.")
    if not args:
        return Tensor(np.zeros(0, dtype=dtypes.default_float()))
    data = args[0]
    if not isinstance(data, Tensor):
        raise errors.TorchTypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    if not isinstance(requires_grad, bool):
        raise errors.TorchTypeError(
            f"Variable(): argument 'requires_grad' must be bool, not {type(requires_grad).__name__}"
        )
    out = data.detach()
    if requires_grad:
        out.requires_grad_(True)
    return out


VARIABLE = VariableClass()


def is_inference(t: Tensor):
    return inference.is_inference(t)


def tensor_method(t, name):
    if name == "half":

        def half(memory_format=None):
            return to_dtype(t, np.float16)

        return half
    if name == "type":

        def type_(dtype=None, non_blocking=False, **kwargs):
            return tensor_type(t, dtype, non_blocking)

        type_.__name__ = "type"
        return type_

    def is_inference_():
        return is_inference(t)

    is_inference_.__name__ = "is_inference"
    return is_inference_


TENSOR_METHODS = ("type", "is_inference", "half")
TORCH_MEMBERS = {
    **TYPED_CLASSES,
    "float16": dtypes.float16,
    "half": dtypes.float16,
    "inference_mode": inference.inference_mode,
    "is_inference_mode_enabled": inference.is_inference_mode_enabled,
}
AUTOGRAD_MEMBERS = {"Variable": VARIABLE, "inference_mode": inference.inference_mode}
