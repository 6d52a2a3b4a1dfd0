"""How values print (`print`, `str`, `repr`) as a script sees them."""

from __future__ import annotations

import sys
import types

import numpy as np

from .. import engine
from ..engine import dtypes, errors
from ..engine.inference import inference_mode
from ..engine.node import Node
from ..engine.ops import reductions
from ..engine.ops.random import Generator
from ..engine.tensor import Size, Tensor
from .exceptions import ExceptionValue
from .nn import StateDict
from .objects import ClassValue, Instance, NativeMethod, ProvidedBase, ScriptObject
from .values import (
    _DICT_VIEWS,
    AnomalyMode,
    Device,
    Namespace,
    TypeValue,
    UserFunction,
    detect_anomaly,
    set_detect_anomaly,
    type_name,
)

# --- how values print (`print`, `str`) ------------------------------------------------
# Python's own reprs of functions, methods and graph nodes carry memory addresses and
# internal names (`<function Interpreter._builtins.<locals>._print at 0x7f...>`); a
# script sees PyTorch-style, reproducible text instead.

FUNCTION_NAMES = {id(f): n for n, f in engine.FUNCTIONS.items()}


class TextBudget:
    """The room left for the text one operation builds (`str()`, `print`, a format):
    the --max-elements cap, charged piece by piece as the text is made, so an oversized
    text stops as soon as it passes the cap instead of after it was built."""

    def __init__(self, cap):
        self.cap = cap
        self.room = cap

    def take(self, n):
        self.room -= n
        if self.room < 0:
            raise errors.LimitError(
                f"string longer than the limit of {self.cap} elements (raise it with --max-elements)"
            )


_NUMPY = (np.ndarray, np.generic, np.dtype)  # numpy's own printing (the numpy subset's values)


def display(value, builtin_names=None, budget=None) -> str:
    """`str(value)` as a script sees it (within `budget`, a TextBudget, if given)."""
    if isinstance(value, (str, ExceptionValue, Instance, Device, *_NUMPY)):
        text = str(value)  # (a script class's __str__, or its __repr__)
        if budget is not None:
            budget.take(len(text))
        return text
    return show(value, builtin_names, budget)


def show(value, builtin_names=None, budget=None) -> str:
    """`repr(value)` as a script sees it: no addresses, no diffcli internals. With a
    `budget`, the text is charged to it as it is made (Python's own repr of a list
    builds all of it first: `[[0] * 10**6] * 10**6` would be 3 TB)."""
    out = []
    _show(value, builtin_names, out, budget or TextBudget(sys.maxsize), set(), {})
    return "".join(out)


_LEAVES = (
    Tensor,
    Size,
    reductions.ReturnTypes,
    dtypes.DType,
    Namespace,
    TypeValue,
    ExceptionValue,
    UserFunction,
    int,
    float,
    bool,
    complex,
    type(None),
    range,
    Device,
    AnomalyMode,
    Instance,
    ClassValue,
    ProvidedBase,
    ScriptObject,
    NativeMethod,
    StateDict,
    *_NUMPY,
)  # (a script class's __repr__)
_NUMBERS = frozenset((int, float, bool, type(None)))  # reprs of bounded size: printed by slices
_SLICE = 1024


def _show(value, names, out, budget, active, memo):
    if isinstance(value, str):
        budget.take(len(value) + 2)  # (escapes make the repr longer, at most 10x)
        text = repr(value)
        budget.take(len(text) - len(value) - 2)
        out.append(text)
        return
    if isinstance(value, _LEAVES):
        text = memo.get(id(value)) if isinstance(value, Tensor) else None
        if text is None:
            text = repr(value)
            if isinstance(value, Tensor):  # (one tensor listed a million times prints once)
                memo[id(value)] = text
        budget.take(len(text))
        out.append(text)
        return
    if isinstance(value, (list, tuple)):
        opening, closing = ("[", "]") if isinstance(value, list) else ("(", ")")
        if id(value) in active:  # a list that holds itself: [[...]]
            budget.take(5)
            out.append(opening + "..." + closing)
            return
        active.add(id(value))
        budget.take(2)
        out.append(opening)
        n = len(value)
        i = 0
        while i < n:
            if i:
                budget.take(2)
                out.append(", ")
            part = value[i : i + _SLICE]
            if set(map(type, part)) <= _NUMBERS:
                text = repr(list(part))[1:-1]
                budget.take(len(text))
                out.append(text)
                i += len(part)
                continue
            _show(value[i], names, out, budget, active, memo)
            i += 1
        if n == 1 and closing == ")":
            budget.take(1)
            out.append(",")
        out.append(closing)
        active.discard(id(value))
        return
    if isinstance(value, dict):
        budget.take(2)
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            if i:
                budget.take(2)
                out.append(", ")
            _show(k, names, out, budget, active, memo)
            budget.take(2)
            out.append(": ")
            _show(v, names, out, budget, active, memo)
        out.append("}")
        return
    text = _other(value, names)
    budget.take(len(text))
    out.append(text)


def _other(value, builtin_names):
    if value is NotImplemented or value is Ellipsis:
        return repr(value)
    if isinstance(value, _DICT_VIEWS):
        return f"{type(value).__name__}([{', '.join(show(v, builtin_names) for v in value)}])"
    if isinstance(value, engine.set_grad_enabled):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={value.mode})"
    if isinstance(value, Node):
        return repr(value)  # `<MulBackward0 object>`, `<torch.autograd.function.FBackward object>`
    if isinstance(value, (set, frozenset)):
        inner = "{" + ", ".join(show(v, builtin_names) for v in value) + "}"
        if isinstance(value, frozenset):
            return f"frozenset({inner})" if value else "frozenset()"
        return inner if value else "set()"
    if isinstance(value, type):
        if value in (engine.no_grad, engine.enable_grad, engine.set_grad_enabled, inference_mode):
            return f"<class 'torch.autograd.grad_mode.{value.__name__}'>"
        return "<class 'torch.Size'>" if value is Size else f"<class '{value.__name__}'>"
    if value is set_detect_anomaly or value is detect_anomaly:  # classes in torch
        return f"<class 'torch.autograd.anomaly_mode.{value.__name__}'>"
    if isinstance(value, types.MethodType):
        owner = value.__self__
        name = getattr(value, "__name__", "method")
        of = (
            "Tensor"
            if isinstance(owner, Tensor)
            else (owner.name() if isinstance(owner, Node) else type_name(owner))
        )
        if name.endswith("_") and name[:-1] in ("float", "int", "bool", "long", "double"):
            name = name[:-1]  # methods renamed so they do not shadow builtins
        return f"<built-in method {name} of {of} object>"
    owner = getattr(value, "__self__", None)
    if isinstance(value, types.BuiltinMethodType) and isinstance(owner, (list, str)):
        return f"<built-in method {value.__name__} of {type(owner).__name__} object>"
    if callable(value):
        name = (
            (builtin_names or {}).get(id(value))
            or FUNCTION_NAMES.get(id(value))
            or getattr(value, "__name__", None)
            or type_name(value)
        )
        if isinstance(value, (engine.no_grad, engine.enable_grad, engine.set_grad_enabled)):
            return f"<torch.autograd.grad_mode.{type(value).__name__} object>"
        return f"<built-in function {name}>"
    if isinstance(value, (engine.no_grad, engine.enable_grad, engine.set_grad_enabled)):
        return f"<torch.autograd.grad_mode.{type(value).__name__} object>"
    if isinstance(value, (enumerate, zip)):
        return f"<{type(value).__name__} object>"
    if isinstance(value, Generator):
        return repr(value)  # <torch._C.Generator object>
    return f"<{type_name(value)} object>"
