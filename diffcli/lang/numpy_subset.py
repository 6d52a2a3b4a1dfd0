"""`import numpy as np`: a safe subset of numpy beside torch.

A script gets numpy's own arrays and numpy's own arithmetic, printing and errors, but only
through a whitelist: the functions below (array creation, elementwise math, reductions,
`np.random` seeded per run), the numeric dtypes, and, on an array or a numpy scalar, the
attributes in `ARRAY_ATTRS`. Nothing that reads or writes files, maps memory or reaches
the host (`load`, `save`, `fromfile`, `tofile`, `memmap`, `ctypes`, `lib`, `frombuffer`,
`.data`, `.base`, object arrays, ...) is a member, and every array made here is checked
against `--max-elements`. `torch.from_numpy` and `Tensor.numpy()` share memory, as in
PyTorch.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..engine import errors
from ..engine.tensor import Tensor
from .objects import Builtin
from .values import Namespace

# the dtypes a script may name or make (never object, str, void, datetime)
DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "float16": np.float16,
    "int64": np.int64,
    "int32": np.int32,
    "int16": np.int16,
    "int8": np.int8,
    "uint8": np.uint8,
    "bool_": np.bool_,
    "complex64": np.complex64,
    "complex128": np.complex128,
    "double": np.float64,
    "single": np.float32,
    "half": np.float16,
}
_ALLOWED = {np.dtype(t) for t in DTYPES.values()}
_PY_TYPES = {float: np.float64, int: np.int64, bool: np.bool_, complex: np.complex128}


def _dtype(d):
    if d is None:
        return None
    d = _PY_TYPES.get(d, d)
    try:
        nd = np.dtype(d) if not isinstance(d, str) else np.dtype(DTYPES.get(d, "O"))
    except TypeError:
        raise TypeError(f"Cannot interpret '{d!r}' as a data type") from None
    if nd not in _ALLOWED:
        raise TypeError(f"diffcli's numpy supports only numeric dtypes, not '{nd}'")
    return nd


def _checked(interp, value):
    """A result that is a numpy array of an allowed dtype, within --max-elements."""
    if isinstance(value, np.ndarray):
        if value.dtype not in _ALLOWED:
            raise TypeError("diffcli's numpy makes only arrays of numbers (not of Python objects or strings)")
        cap = interp.limits.max_elements if interp is not None else None
        if cap is not None and value.size > cap:
            raise errors.LimitError(
                f"array of {value.size} elements is over the limit of {cap} elements "
                "(raise it with --max-elements)"
            )
    return value


def _plain(x):
    """A script value as numpy may take it: tensors are refused (PyTorch's numpy() is the way),
    nested lists/tuples of numbers pass."""
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, Tensor):
        return x.array if not x.needs_grad else _numpy_of(x)
    if x is None or isinstance(x, (int, float, bool, complex, np.ndarray, np.generic, slice)):
        return x
    raise TypeError(f"diffcli's numpy takes numbers, lists, tuples and arrays, not '{type(x).__name__}'")


def _wrap(name, fn, shape_arg=None, kw_dtype=True):
    """A numpy function as a Builtin: arguments made plain, dtypes checked, the size capped
    before (for a shape argument) and after the call."""

    def call(interp, args, kwargs, node):
        args = [_plain(a) for a in args]
        kwargs = {k: (_dtype(v) if k == "dtype" else _plain(v)) for k, v in kwargs.items()}
        if shape_arg is not None and len(args) > shape_arg:
            shape = args[shape_arg]
            n = 1
            for s in shape if isinstance(shape, (list, tuple)) else [shape]:
                n *= int(s)
            _checked(interp, np.zeros(0)) if n <= interp.limits.max_elements else _too_big(interp, n)
        out = fn(*args, **kwargs)
        if isinstance(out, tuple):
            return tuple(_checked(interp, o) for o in out)
        return _checked(interp, out)

    return Builtin(name, call)


def _too_big(interp, n):
    raise errors.LimitError(
        f"array of {n} elements is over the limit of {interp.limits.max_elements} elements "
        "(raise it with --max-elements)"
    )


def _array(obj, dtype=None, copy=True, ndmin=0):
    if isinstance(obj, np.ndarray):
        out = np.array(obj, dtype=dtype, copy=copy, ndmin=ndmin)
    else:
        out = np.array(obj, dtype=dtype, ndmin=ndmin)
    if out.dtype.kind in "OUSV":
        raise TypeError("diffcli's numpy makes only arrays of numbers (not of Python objects or strings)")
    return out


def _arange(*args, **kwargs):
    start, stop, step = (
        (0, args[0], 1) if len(args) == 1 else (args + (1,))[:3] if len(args) >= 2 else (0, 0, 1)
    )
    n = max(0, int(np.ceil((stop - start) / step))) if step else 0
    if n > 10**9:
        raise errors.LimitError(f"array of {n} elements is over the limit")
    return np.arange(*args, **kwargs)


_FUNCS = {
    "array": _array,
    "asarray": lambda a, dtype=None: _array(a, dtype, copy=False),
    "zeros": np.zeros,
    "ones": np.ones,
    "full": np.full,
    "eye": np.eye,
    "identity": np.identity,
    "arange": _arange,
    "linspace": np.linspace,
    "zeros_like": np.zeros_like,
    "ones_like": np.ones_like,
    "full_like": np.full_like,
    "concatenate": np.concatenate,
    "stack": np.stack,
    "vstack": np.vstack,
    "hstack": np.hstack,
    "reshape": np.reshape,
    "transpose": np.transpose,
    "squeeze": np.squeeze,
    "expand_dims": np.expand_dims,
    "dot": np.dot,
    "matmul": np.matmul,
    "outer": np.outer,
    "sum": np.sum,
    "mean": np.mean,
    "std": np.std,
    "var": np.var,
    "min": np.min,
    "max": np.max,
    "amin": np.amin,
    "amax": np.amax,
    "argmax": np.argmax,
    "argmin": np.argmin,
    "prod": np.prod,
    "cumsum": np.cumsum,
    "abs": np.abs,
    "absolute": np.absolute,
    "sqrt": np.sqrt,
    "square": np.square,
    "exp": np.exp,
    "log": np.log,
    "log1p": np.log1p,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "sign": np.sign,
    "power": np.power,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "where": np.where,
    "clip": np.clip,
    "round": np.round,
    "floor": np.floor,
    "ceil": np.ceil,
    "allclose": np.allclose,
    "isclose": np.isclose,
    "array_equal": np.array_equal,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "shape": np.shape,
    "ndim": np.ndim,
    "size": np.size,
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
}
_SHAPED = {"zeros": 0, "ones": 0, "full": 0}


def _random_state(interp):
    state = _STATES.get(interp)
    if state is None:
        state = _STATES[interp] = np.random.RandomState()
    return state


_STATES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _random_fn(name, shaped=False):
    def call(interp, args, kwargs, node):
        args = [_plain(a) for a in args]
        kwargs = {k: _plain(v) for k, v in kwargs.items()}
        if shaped:
            n = 1
            for s in args:
                n *= int(s)
            if n > interp.limits.max_elements:
                _too_big(interp, n)
        size = kwargs.get("size")
        if size is not None:
            n = 1
            for s in size if isinstance(size, (list, tuple)) else [size]:
                n *= int(s)
            if n > interp.limits.max_elements:
                _too_big(interp, n)
        if name == "seed":
            _STATES[interp] = np.random.RandomState(*args, **kwargs)
            return None
        return _checked(interp, getattr(_random_state(interp), name)(*args, **kwargs))

    return Builtin(name, call)


RANDOM = Namespace(
    "numpy.random",
    {
        "seed": _random_fn("seed"),
        "rand": _random_fn("rand", True),
        "randn": _random_fn("randn", True),
        "randint": _random_fn("randint"),
        "uniform": _random_fn("uniform"),
        "normal": _random_fn("normal"),
        "random": _random_fn("random_sample"),
        "random_sample": _random_fn("random_sample"),
        "permutation": _random_fn("permutation"),
        "choice": _random_fn("choice"),
    },
)

NUMPY = Namespace(
    "numpy",
    {
        **{k: _wrap(k, f, _SHAPED.get(k)) for k, f in _FUNCS.items()},
        **DTYPES,
        "pi": np.pi,
        "e": np.e,
        "inf": np.inf,
        "nan": np.nan,
        "newaxis": None,
        "random": RANDOM,
    },
)

# what a script may read on a numpy array or scalar: data, not the host
ARRAY_ATTRS = frozenset(
    (
        "shape",
        "ndim",
        "size",
        "dtype",
        "T",
        "itemsize",
        "nbytes",
        "real",
        "imag",
        "reshape",
        "astype",
        "sum",
        "mean",
        "std",
        "var",
        "min",
        "max",
        "argmax",
        "argmin",
        "prod",
        "cumsum",
        "tolist",
        "item",
        "copy",
        "flatten",
        "ravel",
        "transpose",
        "dot",
        "squeeze",
        "clip",
        "round",
        "all",
        "any",
        "fill",
        "swapaxes",
    )
)


def attribute(interp, obj, name):
    """`arr.name` for a numpy array or scalar (None: not a member of the subset)."""
    if name not in ARRAY_ATTRS:
        return None
    value = getattr(obj, name)
    if name == "astype":
        return Builtin(
            "astype", lambda i, a, k, n: _checked(i, obj.astype(_dtype(a[0] if a else k.get("dtype"))))
        )
    if callable(value):

        def method(interp_, args, kwargs, node, fn=value):
            return _checked(
                interp_, fn(*[_plain(a) for a in args], **{k: _plain(v) for k, v in kwargs.items()})
            )

        return Builtin(name, method)
    return value


# --- torch.from_numpy, Tensor.numpy -----------------------------------------------------------

_TORCH_OK = {np.dtype(t) for t in (np.float64, np.float32, np.int64, np.int32, np.bool_)}


def from_numpy(ndarray):
    """`torch.from_numpy(a)`: a tensor sharing a's memory."""
    if not isinstance(ndarray, np.ndarray):
        raise errors.TorchTypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype not in _TORCH_OK:
        raise errors.TorchTypeError(
            f"can't convert np.ndarray of type numpy.{ndarray.dtype.name}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
            "uint16, uint8, and bool."
        )
    return Tensor(ndarray)


def _numpy_of(t: Tensor):
    if t.needs_grad:
        raise errors.TorchRuntimeError(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
        )
    return t.array


def numpy_method(t: Tensor) -> Builtin:
    """`t.numpy` (bound): `t.numpy(force=False)` gives the tensor's memory as an array
    (PyTorch's error if it requires grad; `force=True` gives a copy of a detached one)."""

    def numpy(interp, args, kwargs, node):
        if len(args) > 1 or set(kwargs) - {"force"}:
            raise TypeError("numpy() takes at most 1 argument (force=False)")
        force = args[0] if args else kwargs.get("force", False)
        return t.array.copy() if force else _numpy_of(t)

    return Builtin("numpy", numpy)
