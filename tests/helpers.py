"""Helpers the tests import (`from tests.helpers import replay, ...`): replaying the
PyTorch goldens of tests/goldens/ on diffcli's engine.

tests/goldens/record_ops.py runs snippets such as `a = T([0.5, 1.5]); torch.sin(a)` on
PyTorch and stores what it saw in ops.json. `replay` runs the same snippet text on our
engine, with `torch` and `F` bound to a stand-in namespace that resolves names through
the op table (FUNCTIONS), and returns a record with the same keys, so a test compares
the two dictionaries field by field.
"""

from __future__ import annotations

import json
import math
import signal
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from diffcli.engine import FUNCTIONS, EngineError, Tensor, dtypes, errors
from diffcli.engine import autograd as _autograd
from diffcli.engine.ops.functional import LINALG, SPECIAL_ALIASES
from diffcli.render.jsonout import json_number as fnum

GOLDENS = Path(__file__).parent / "goldens"


class _Namespace:
    """`torch.sin`, `F.relu`, `torch.nn.functional.softmax`: names resolved through the
    op table; anything else is an AttributeError, i.e. an op diffcli does not have."""

    def __init__(self, extra):
        self._extra = extra

    def __getattr__(self, name):
        if name in self._extra:
            return self._extra[name]
        if name in FUNCTIONS:
            return FUNCTIONS[name]
        raise AttributeError(f"diffcli has no op {name!r}")


F_NS = _Namespace({})
TORCH_NS = _Namespace(
    {
        "float64": dtypes.float64,
        "double": dtypes.float64,
        "float32": dtypes.float32,
        "float": dtypes.float32,
        "int64": dtypes.int64,
        "long": dtypes.int64,
        "int32": dtypes.int32,
        "bool": dtypes.bool_,
        "nn": _Namespace({"functional": F_NS}),
        "autograd": _Namespace({"grad": _autograd.grad, "backward": _autograd.backward}),
        "linalg": _Namespace(dict(LINALG)),
        "special": _Namespace({k: FUNCTIONS[v] for k, v in SPECIAL_ALIASES.items() if v in FUNCTIONS}),
    }
)


def _has_float(v):
    if isinstance(v, (list, tuple)):
        return any(_has_float(x) for x in v)
    return isinstance(v, float)


def snippet_namespace(default_float=None):
    """Globals for a snippet. `default_float` (a dtype) plays torch's default dtype for
    float data, so float32 goldens (REFERENCE.md) can be replayed as well."""
    tensor = FUNCTIONS["tensor"]

    def _dtype(v, dtype):
        if dtype is None and default_float is not None and _has_float(v):
            return default_float
        return dtype

    def T(v, dtype=None):
        return tensor(v, requires_grad=True, dtype=_dtype(v, dtype))

    def C(v, dtype=None):
        return tensor(v, dtype=_dtype(v, dtype))

    return {"torch": TORCH_NS, "F": F_NS, "T": T, "C": C, "math": math}


def values_of(t: Tensor):
    def rec(x):
        return [rec(y) for y in x] if isinstance(x, list) else fnum(x)

    return rec(t.array.tolist())


def as_array(values) -> np.ndarray:
    """Golden values (nested lists, "nan"/"inf" strings) as a float64 array."""

    def rec(x):
        if isinstance(x, list):
            return [rec(y) for y in x]
        if isinstance(x, str):
            return float(x)
        return x

    return np.asarray(rec(values), dtype=np.float64)


def graph_text(fn, names) -> str:
    if fn is None:
        return "None"
    name = fn.name()
    if name == "AccumulateGrad":
        return "AccumulateGrad[%s]" % names.get(id(fn.variable), "?")
    return "%s(%s)" % (name, ", ".join(graph_text(f, names) for f, _ in fn.next_functions))


def upstream_gradient(out: Tensor, group: str) -> Tensor:
    """The recorder's upstream gradient, built with numpy."""
    if group == "edge_point_gradients":
        return Tensor(np.ones_like(out.array))
    n = out.array.size
    g = (np.arange(n, dtype=np.float64) % 4 + 1) * 0.5
    return Tensor(g.reshape(out.array.shape).astype(out.array.dtype))


def replay(setup, expr, group, default_float=None) -> dict:
    """Run one snippet on diffcli's engine; a record shaped like the recorder's."""
    ns = snippet_namespace(default_float)
    rec = {}
    errors.reset_warn_once()  # warn-once warnings (x.T on 1-D...) as in the recorder's run
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(setup, ns)
        leaves = {k: v for k, v in ns.items() if isinstance(v, Tensor)}
        names = {id(v): k for k, v in leaves.items()}
        try:
            out = eval(expr, ns)
        except EngineError as e:
            rec["error"] = {"type": e.type_name, "message": e.message}
            rec["warnings"] = [str(w.message) for w in caught]
            return rec
        fn = out.grad_fn
        rec["output"] = {
            "values": values_of(out),
            "shape": list(out.shape),
            "dtype": repr(out.dtype),
            "requires_grad": out.requires_grad,
            "is_leaf": out.is_leaf,
            "grad_fn": None if fn is None else fn.name(),
        }
        rec["output_is_input"] = any(out is v for v in leaves.values())
        rec["next_functions"] = (
            None if fn is None else [[None if f is None else f.name(), i] for f, i in fn.next_functions]
        )
        rec["graph"] = graph_text(fn, names)
        rec["upstream_gradient"] = None
        rec["grads"] = None
        if out.requires_grad:
            if out.ndim == 0:
                out.backward()
            else:
                g = upstream_gradient(out, group)
                rec["upstream_gradient"] = values_of(g)
                out.backward(g)
            rec["grads"] = {
                k: None
                if v._grad is None
                else {
                    "values": values_of(v._grad),
                    "shape": list(v._grad.shape),
                    "dtype": repr(v._grad.dtype),
                }
                for k, v in leaves.items()
                if v.is_leaf and v.requires_grad
            }
    rec["warnings"] = [str(w.message) for w in caught]
    return rec


def load_ops_goldens() -> list[dict]:
    with open(GOLDENS / "ops.json") as f:
        return json.load(f)["records"]


def run_script(script):
    """Run a PyTorch-flavour script in process, as the golden tests compare it with what
    torch printed: (stdout, the warnings' messages, [error type, message] or None)."""
    from diffcli.lang.errors import ScriptError
    from diffcli.lang.interpreter import Interpreter
    from diffcli.lang.parse import parse

    out, warned = [], []
    interp = Interpreter(write=out.append, warn=lambda category, message, line: warned.append(message))
    error = None
    try:
        interp.run(parse(script))
    except ScriptError as e:
        error = [e.type_name, e.message]
    return "".join(out), warned, error


# the ops of the table with nothing to differentiate: creation (leaves), bool/int results,
# the graph cut (tests/engine/test_ops.py and test_rows.py)
NOT_DIFFERENTIABLE = {
    "greater",  # (the comparisons' aliases: bool results)
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
    "one_hot",  # (int64 result)
    "positive",  # (returns its input itself: no node)
    "argsort",
    "unique",
    "bincount",
    "searchsorted",
    "bucketize",
    "heaviside",
    "stride",
    "is_contiguous",
    "element_size",
    "storage_offset",
    "empty_like",
    "logspace",
    "isnan",
    "isinf",
    "isfinite",
    "isposinf",
    "isneginf",
    "signbit",
    "isclose",
    "logical_xor",
    "nonzero",
    "count_nonzero",
    "new_zeros",
    "new_ones",
    "new_empty",
    "new_full",
    "new_tensor",
    "tensor",
    "Tensor",
    "zeros",
    "ones",
    "full",
    "eye",
    "arange",
    "linspace",
    "rand",
    "randn",
    "randint",
    "randperm",
    "zeros_like",
    "ones_like",
    "full_like",
    "rand_like",
    "randn_like",
    "manual_seed",  # leaves
    "lt",
    "le",
    "gt",
    "ge",
    "eq",
    "ne",
    "logical_and",
    "logical_or",
    "logical_not",  # bool out
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "bitwise_and_",
    "bitwise_or_",
    "bitwise_xor_",
    "bitwise_not_",  # integer and bool results
    "detach",  # cuts the graph (goldens check grad_fn None)
    "floor_divide",  # no derivative (NotImplemented: test_regressions)
    "any",
    "all",
    "argmax",
    "argmin",
    "equal",
    "allclose",  # bool/int64/Python bool out
}


class Hang(BaseException):
    """Raised by `hang_guard`'s alarm; a BaseException so that no `except Exception` in
    diffcli eats it."""


@contextmanager
def hang_guard(seconds):
    """A block that must end within `seconds` (a hang detector, never a speed margin)."""

    def on_alarm(signum, frame):
        raise Hang(f"no result after {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
