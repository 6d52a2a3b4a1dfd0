"""PyTorch's keyword names for diffcli's functions and tensor methods (issue 11, item 3).

The engine's functions name their parameters for the engine (`matmul(a, b)`,
`randn(*size)`); a script writes PyTorch's (`torch.matmul(input=a, other=b)`,
`torch.randn(size=(2, 3))`, `x.pow(exponent=2)`). `adapt` maps a call's keyword arguments
that the engine function does not know onto its parameters, by their position in
PyTorch's own signature (recorded from torch in `torch_signatures.py`), and takes `out=` where
PyTorch has it: the result is then written into that tensor, with PyTorch's checks.
A keyword PyTorch does not have either is left for the engine function to refuse, in
Python's words.
"""

from __future__ import annotations

import inspect

from .. import engine
from ..engine import errors as engine_errors
from ..engine import grad_mode
from ..engine.tensor import Tensor
from .display import FUNCTION_NAMES
from .torch_signatures import FUNCTION_PARAMETERS, METHOD_PARAMETERS
from .values import type_name

ONLY_INPUTS_WARNING = (
    "only_inputs argument is deprecated and is ignored now (defaults to True). To "
    "accumulate gradient for other parts of the graph, please use torch.autograd.backward."
)
_ENGINE = {}  # (id(function), bound) -> (function, positional names, var-positional index or None,
# the names it takes by keyword)


def _engine_params(fn):
    func = getattr(fn, "__func__", fn)
    key = (id(func), func is not fn)  # a bound method has no `self` parameter
    entry = _ENGINE.get(key)
    if entry is None or entry[0] is not func:
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            params = None
        if params is None or any(p.kind is p.VAR_KEYWORD for p in params):
            entry = (func, None, None, None)
        else:
            positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            varpos = next((i for i, p in enumerate(params) if p.kind is p.VAR_POSITIONAL), None)
            entry = (func, positional, varpos, {p.name for p in params if p.kind is not p.VAR_POSITIONAL})
        _ENGINE[key] = entry
    return entry[1:]


def _position(overloads, name):
    """`name`'s index among the positional parameters of the first overload that has it
    there, or None."""
    for sig in overloads:
        for i, p in enumerate(sig):
            if p == "*" or (p.startswith("*") and p != "*" + name):
                break
            if p.rstrip("=") == name or p == "*" + name:
                return i
    return None


def _conflict(name, overloads, k, given, kwargs):
    """PyTorch's words when `k` names a parameter also given by position: its parser
    reports the required parameters still missing (`matmul() missing 1 required positional
    arguments: "other"`)."""
    for sig in overloads:
        names = [p for p in sig if not p.startswith("*")]
        if k in (p.rstrip("=") for p in names):
            positional = sig[: sig.index("*")] if "*" in sig else sig
            missing = [
                p
                for p in positional[given:]
                if not p.endswith("=") and not p.startswith("*") and p not in kwargs and p != k
            ]
            if missing:
                quoted = ", ".join(f'"{p}"' for p in missing)
                return TypeError(f"{name}() missing {len(missing)} required positional arguments: {quoted}")
            break
    return TypeError(f"{name}() got multiple values for argument '{k}'")


def adapt(fn, args, kwargs, callee):
    """`(args, kwargs, finish)` for calling the engine's `fn` (an op-table function, or a
    tensor method written as `.callee(...)`) with PyTorch's keyword names; `finish` is None,
    or what turns the result into the `out=` tensor."""
    if fn is engine.grad and "only_inputs" in kwargs:
        kwargs = dict(kwargs)
        if not kwargs.pop("only_inputs"):
            engine_errors.warn(ONLY_INPUTS_WARNING, "FutureWarning")
        return args, kwargs, None
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, Tensor):
        name, overloads = callee, METHOD_PARAMETERS.get(callee, ())
    else:
        name = FUNCTION_NAMES.get(id(fn))
        overloads = FUNCTION_PARAMETERS.get(name, ())
    if not overloads:
        return args, kwargs, None
    positional, varpos, names = _engine_params(fn)
    if names is None:
        return args, kwargs, None
    unknown = [k for k in kwargs if k not in names]
    if not unknown:
        return args, kwargs, None
    args, kwargs, finish = list(args), dict(kwargs), None
    placed = []
    for k in unknown:
        if k == "out" and any("out" in sig for sig in overloads):
            finish = _out_writer(name, kwargs.pop(k), args, kwargs)
            continue
        i = _position(overloads, k)
        if i is None:
            continue  # (the engine function refuses it, in Python's words)
        placed.append((i, k))
    for i, k in sorted(placed):
        if i < len(positional) and (varpos is None or i < varpos):
            target = positional[i]
            if len(args) > i or target in kwargs:
                raise _conflict(name, overloads, k, len(args), kwargs)
            kwargs[target] = kwargs.pop(k)
        elif varpos is not None and i == varpos:
            for j, p in enumerate(positional[:varpos]):  # the ones before go positionally
                if len(args) == j and p in kwargs:
                    args.append(kwargs.pop(p))
            if len(args) != varpos:
                raise _conflict(name, overloads, k, len(args), kwargs)
            args.append(kwargs.pop(k))
    return args, kwargs, finish


_TORCH_TYPES = {
    "float32": "Float",
    "float64": "Double",
    "int64": "Long",
    "int32": "Int",
    "bool": "Bool",
    "float16": "Half",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
}


def _out_writer(name, out, args, kwargs):
    """PyTorch's `out=`: no autograd through it; the result cast to `out`'s dtype (never
    from floating point to an integer or bool); `out` resized (with PyTorch's warning if it
    had elements) and returned."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type_name(out)}")
    inputs = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
    if grad_mode.is_grad_enabled() and any(t.requires_grad for t in (*inputs, out)):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )

    def finish(result):
        if not isinstance(result, Tensor):
            return result
        got, want = result.array.dtype, out.array.dtype
        if (got.kind == "f" and want.kind in "iub") or (got.kind in "iu" and want.kind == "b"):
            raise RuntimeError(
                f"result type {_TORCH_TYPES.get(got.name, got.name)} can't be cast to the "
                f"desired output type {_TORCH_TYPES.get(want.name, want.name)}"
            )
        if out.array.shape != result.array.shape and out.array.size:
            engine_errors.warn(
                f"An output with one or more elements was resized since it had shape {list(out.array.shape)}, "
                f"which does not match the required output shape {list(result.array.shape)}. This behavior "
                "is deprecated, and in a future PyTorch release outputs will not be resized unless they have "
                "zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                "elements with t.resize_(0). (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)"
            )
        if out.array.shape == result.array.shape:
            out.array[...] = result.array  # in place: views of `out` see it
        else:
            out.array = result.array.astype(want, copy=True)
        out._version[0] += 1
        return out

    return finish
