"""Attribute access in a script: `obj.name` on tensors, numpy values, autograd objects,
a script's classes and objects, dicts, sets, lists, namespaces and torch's small types,
reached only through the whitelists (`values.py`, `whitelists.py`; dunder names: the
audited list in `dunders.py`). A mixin of `Interpreter`."""

from __future__ import annotations

from types import MethodType

import numpy as np

from .. import engine
from ..engine import custom_function, multiview
from ..engine.ops import reductions
from ..engine.ops.random import Generator
from ..engine.tensor import Size, Tensor
from . import autograd_ext, classes, dunders, generators, numpy_subset, pydict, pymethods
from .errors import ScriptError
from .lookups import DEVICE_ATTRS, attribute_hint, attribute_position
from .nn import StateDict
from .objects import Instance, ScriptObject
from .pyfunctools import ATTRS as PARTIAL_ATTRS
from .pyfunctools import Partial
from .values import (
    CPU,
    DICT_METHODS,
    LIST_METHODS,
    SET_METHODS,
    TENSOR_ATTRS,
    TENSOR_METHODS,
    Device,
    Namespace,
    require_cpu,
    type_name,
    type_of,
)


class Attributes:
    def attribute(self, obj, e):
        name = e.name
        if name.startswith("__"):
            if name in dunders.DEFINABLE and isinstance(obj, dunders.DUNDER_OWNERS):
                return classes.attribute(self, obj, e)
            return dunders.read(self, obj, e)  # the audited few, or the refusal
        if isinstance(obj, Tensor):
            if name in DEVICE_ATTRS:
                return self._device_attribute(obj, name)
            if name in TENSOR_ATTRS:
                if name == "_version":
                    return obj._version[0]
                if name == "grad_fn" and obj.grad_fn.__class__ is custom_function.OutputSlot:
                    return obj.grad_fn.main  # the outputs of a Function share its node, as in PyTorch
                if name in ("grad_fn", "is_leaf") and obj.grad_fn is multiview.INVALID:
                    return self.guard(e, lambda: multiview.check(obj))  # (PyTorch's error)
                return self.guard(e, lambda: getattr(obj, name))
            if name in TENSOR_METHODS:
                return getattr(obj, name)
            if name in autograd_ext.TENSOR_METHODS:
                return autograd_ext.tensor_method(self, obj, name, e)
            if name == "numpy":
                return numpy_subset.numpy_method(obj)
        elif isinstance(obj, (np.ndarray, np.generic)):
            found = numpy_subset.attribute(self, obj, name)
            if found is not None:
                return found
        elif isinstance(obj, autograd_ext.OBJECTS):  # grad_fn nodes (a custom Function's ctx), hook handles
            found = autograd_ext.attribute(self, obj, e)
            if found is not autograd_ext.MISSING:
                return found
        elif isinstance(obj, Partial) and name in PARTIAL_ATTRS:  # functools.partial
            return getattr(obj, name)
        elif isinstance(obj, (Instance, ScriptObject, classes.ClassValue, classes.ProvidedBase)):
            return classes.attribute(self, obj, e)
        elif (obj.__class__ is dict or obj.__class__ is StateDict) and name in DICT_METHODS:
            return pydict.method(self, obj, name, e)
        elif obj.__class__ in (set, frozenset) and name in SET_METHODS:
            return pydict.set_method(self, obj, name, e)
        elif isinstance(obj, Namespace):
            if name in obj.members:
                return obj.members[name]
            raise ScriptError(
                "AttributeError",
                f"module '{obj.name}' has no attribute '{name}'" + attribute_hint(obj, name),
                *attribute_position(e),
            )
        elif isinstance(obj, reductions.ReturnTypes) and name in ("values", "indices"):
            return getattr(obj, name)
        elif isinstance(obj, Size) and name == "numel":
            return obj.numel
        elif isinstance(obj, engine.dtypes.DType) and name == "is_floating_point":
            return obj.is_floating_point
        elif isinstance(obj, Device) and name in ("type", "index"):
            return getattr(obj, name)
        elif isinstance(obj, Generator) and name in ("device", *generators.METHODS):
            return generators.attribute(obj, name)
        elif obj.__class__ is list and name in LIST_METHODS:
            return pymethods.list_method(self, obj, name, e)
        elif obj.__class__ is str and name == "format":
            return pymethods.str_format(self, obj, e)
        elif obj.__class__ is str and name in pymethods.STR_METHODS:
            return pymethods.str_method(self, obj, name, e)
        # torch's classes that name their module (`'torch.Size' object has no attribute`)
        of = (
            type_of(obj).qualname
            if isinstance(obj, (Size, engine.dtypes.DType, reductions.ReturnTypes))
            else type_name(obj)
        )
        raise ScriptError(
            "AttributeError",
            f"'{of}' object has no attribute '{name}'" + attribute_hint(obj, name),
            *attribute_position(e),
        )

    def _device_attribute(self, t, name):
        """`x.device`, `x.is_cuda`, `x.cpu()`, `x.cuda()` and `x.to(...)`, whose device
        arguments must name the CPU."""
        if name == "device":
            return CPU
        if name == "is_cuda":
            return False
        if name == "cpu":  # bound methods, so they print as methods
            return MethodType(_cpu, t)
        if name == "cuda":
            return MethodType(_cuda, t)

        def to(_tensor, *args, **kwargs):
            if "device" in kwargs:
                require_cpu(kwargs.pop("device"))
            rest = []
            for a in args:
                if isinstance(a, (str, Device)):
                    require_cpu(a)
                else:
                    rest.append(a)
            return t.to(*rest, **kwargs)

        return MethodType(to, t)


def _cpu(self, memory_format=None):
    return self


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    raise AssertionError("Torch not compiled with CUDA enabled")


_cpu.__name__, _cuda.__name__ = "cpu", "cuda"
