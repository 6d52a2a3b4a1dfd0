"""Run PyTorch-syntax snippets against diffcli's engine.

The reference catalogue (`tests/goldens/torchref/reference.json`) and our goldens
(`tests/goldens/semantics.json`) hold snippets written against `torch`. This module
executes the same text with `torch` bound to a thin facade over `diffcli.engine`, and
captures what the torch recorder captured: the exception type name and `str()`, stdout,
and warnings (category, message). Both sides then compare as plain data.

The facade only renames; it adds no behaviour. What it cannot express is rewritten in
the snippet text by `REWRITES` (each with its reason), and snippets needing features the
engine deliberately lacks are listed by the tests with a skip reason.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import io
import json
import math
import pathlib
import re
import types
import warnings

import numpy

from diffcli import engine
from diffcli.engine import dtypes, errors
from diffcli.engine.node import Node

ADDR_RE = re.compile(r"0x[0-9a-fA-F]+")

# (pattern, replacement, why)
REWRITES = [
    (r"\._version\b", "._version[0]", "the engine keeps the version counter as a shared one-element list"),
    (
        r"\.data_ptr\(\)",
        ".array.__array_interface__['data'][0]",
        "no data_ptr(); the numpy buffer address is the same notion",
    ),
]


def rewrite(code: str) -> str:
    for pattern, repl, _why in REWRITES:
        code = re.sub(pattern, repl, code)
    return code


def _type(obj):
    """`type(x).__name__` as the snippets use it: grad_fn class names and PyTorch
    exception type names."""
    if isinstance(obj, Node):
        return types.new_class(obj.name())
    if isinstance(obj, errors.EngineError):
        return types.new_class(obj.type_name)
    return builtins.type(obj)


def make_torch():
    F = engine.FUNCTIONS
    torch = types.SimpleNamespace(**{k: v for k, v in F.items()})
    torch.Tensor = F["Tensor"]
    torch.autograd = types.SimpleNamespace(grad=engine.grad, backward=engine.backward)
    torch.nn = types.SimpleNamespace(functional=types.SimpleNamespace(**F))
    torch.no_grad = engine.no_grad
    torch.enable_grad = engine.enable_grad
    torch.set_grad_enabled = engine.set_grad_enabled
    torch.is_grad_enabled = engine.is_grad_enabled
    torch.float64 = torch.double = dtypes.float64
    torch.float32 = torch.float = dtypes.float32
    torch.int64 = torch.long = dtypes.int64
    torch.int32 = torch.int = dtypes.int32
    torch.bool = dtypes.bool_
    torch.get_default_dtype = lambda: dtypes.float64
    return torch


def base_ns():
    torch = make_torch()

    def T(v, dtype=None):
        return torch.tensor(v, requires_grad=True, dtype=dtype)

    def C(v, dtype=None):
        return torch.tensor(v, dtype=dtype)

    ns = {
        "torch": torch,
        "T": T,
        "C": C,
        "math": math,
        "numpy": numpy,
        "type": _type,
        "TensorType": engine.Tensor,
    }
    # `except RuntimeError:` in a snippet must catch the engine's errors, which are
    # EngineError subclasses carrying PyTorch's type name (not Python's builtins).
    for cls in (
        errors.TorchRuntimeError,
        errors.TorchTypeError,
        errors.TorchIndexError,
        errors.TorchValueError,
        errors.TorchNotImplementedError,
    ):
        builtin = getattr(builtins, cls.type_name)
        ns[cls.type_name] = (builtin, cls)
    return ns


def normalise(text: str) -> str:
    """Addresses out of reprs: PyTorch's `<MulBackward0 object at 0x7f..>` and the engine's
    `<MulBackward0 object>` (SPEC §1 Printing: no address) both become the latter."""
    return ADDR_RE.sub("0x<ADDR>", text).replace(" object at 0x<ADDR>>", " object>")


def exc_info(e):
    if isinstance(e, errors.EngineError):
        return {"type": e.type_name, "str": str(e)}
    return {"type": builtins.type(e).__name__, "str": str(e), "foreign": True}


def run_snippet(code: str, ns=None):
    """Execute `code` as a fresh process would (warn-once state reset); return
    ({raised, exception?, stdout, warnings}, namespace).

    Warnings go through Python's `warnings` here (no sink installed), so a snippet's own
    `warnings.simplefilter('ignore')` works as it does with torch."""
    ns = base_ns() if ns is None else ns
    buf = io.StringIO()
    prev = errors.set_warning_sink(None)
    errors.reset_warn_once()
    res = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(buf):
                exec(rewrite(code), ns)
            res["raised"] = False
        except Exception as e:  # noqa: BLE001 - every outcome is data here
            res["raised"] = True
            res["exception"] = exc_info(e)
        finally:
            errors.set_warning_sink(prev)
            engine.set_grad_enabled(True)  # a snippet that raised inside no_grad
    res["stdout"] = normalise(buf.getvalue())
    res["warnings"] = [{"category": w.category.__name__, "message": str(w.message)} for w in caught]
    return res, ns


# --- goldens and the reference catalogue ------------------------------------------------

GOLDENS = pathlib.Path(__file__).resolve().parents[1] / "goldens" / "semantics.json"
REFERENCE = pathlib.Path(__file__).resolve().parents[1] / "goldens" / "torchref" / "reference.json"


@functools.cache
def load_goldens() -> dict:
    return json.loads(GOLDENS.read_text())


def golden_scenarios(prefix: str) -> list:
    return [s for s in load_goldens()["scenarios"] if s["id"].startswith(prefix)]


def run_golden(scenario: dict) -> dict:
    """Run a golden scenario's snippet on the engine, with the goldens' prelude."""
    ns = base_ns()
    exec(load_goldens()["prelude"], ns)
    res, _ = run_snippet(scenario["code"], ns)
    return res


def outcome(res: dict):
    """The comparable part of a run: (exception type, text) or None, stdout, warnings."""
    exc = (res["exception"]["type"], res["exception"]["str"]) if res["raised"] else None
    warns = [(w["category"], w["message"]) for w in res["warnings"]]
    return exc, normalise(res["stdout"]), warns


def adapt(text: str) -> str:
    """A float32-default PyTorch text as the float64-default engine prints it."""
    return text.replace("torch.FloatTensor", "torch.DoubleTensor").replace("torch.float32", "torch.float64")
