"""Constructors with PyTorch's defaults: tensor (dtype inferred), Tensor (always float),
zeros/ones/full/eye/arange/linspace/rand/randn and the *_like forms. Leaves, and
requires_grad=False unless asked."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..tensor import Tensor

_rng = [np.random.default_rng(0)]
MAX_ELEMENTS = [10_000_000]


def manual_seed(seed):
    _rng[0] = np.random.default_rng(int(seed))
    return None


def _check_size(n):
    if n > MAX_ELEMENTS[0]:
        raise errors.LimitError(
            f"tensor of {n} elements exceeds the limit of {MAX_ELEMENTS[0]} elements "
            "(raise it with --max-elements)")


def _leaf(arr, requires_grad, ctor=True):
    _check_size(arr.size)
    t = Tensor(arr)
    if requires_grad:
        if arr.dtype.kind != "f":
            raise errors.TorchRuntimeError(errors.INT_REQUIRES_GRAD_CTOR)
        t.requires_grad_flag = True
    return t


def _infer_dtype(values):
    """dtype torch.tensor infers from nested Python data."""
    kinds = set()

    def walk(v):
        if isinstance(v, Tensor):
            kinds.add(v.data_.dtype.kind)
        elif isinstance(v, (list, tuple)):
            for e in v:
                walk(e)
        elif isinstance(v, bool):
            kinds.add("b")
        elif isinstance(v, int):
            kinds.add("i")
        elif isinstance(v, float):
            kinds.add("f")
        else:
            raise errors.TorchTypeError(f"Could not infer dtype of {type(v).__name__}")
    walk(values)
    if "f" in kinds:
        return dtypes.DEFAULT_FLOAT
    if "i" in kinds:
        return np.dtype(np.int64)
    if "b" in kinds:
        return np.dtype(np.bool_)
    return dtypes.DEFAULT_FLOAT


def _to_array(values, dtype):
    def plain(v):
        if isinstance(v, Tensor):
            return v.data_.tolist()
        if isinstance(v, (list, tuple)):
            return [plain(e) for e in v]
        return v
    try:
        arr = np.array(plain(values), dtype=dtype)
    except (ValueError, TypeError):
        raise errors.TorchValueError(
            "expected sequence of length %d at dim 1 (got %s)" % _ragged(values)) from None
    if arr.dtype == object:
        raise errors.TorchValueError("expected sequence of equal lengths")
    return arr


def _ragged(values):
    try:
        first = len(values[0])
        for v in values[1:]:
            if len(v) != first:
                return first, len(v)
    except TypeError:
        pass
    return (0, "?")


def tensor(data, dtype=None, requires_grad=False):
    if isinstance(data, Tensor):
        from .. import errors as E
        E.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
               "or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")
        arr = np.array(data.data_, dtype=dtypes.to_np(dtype) or data.data_.dtype, copy=True)
    elif isinstance(data, np.ndarray):
        arr = dtypes.canonical(np.array(data, dtype=dtypes.to_np(dtype), copy=True))
    else:
        d = dtypes.to_np(dtype) or _infer_dtype(data)
        arr = _to_array(data, d)
    return _leaf(arr, requires_grad)


def Tensor_(*args, requires_grad=False):
    """torch.Tensor(...): a list gives float data; integers give an uninitialised size."""
    if len(args) == 1 and isinstance(args[0], (list, tuple, Tensor)):
        v = args[0]
        arr = _to_array(v, dtypes.DEFAULT_FLOAT) if not isinstance(v, Tensor) else v.data_.astype(dtypes.DEFAULT_FLOAT)
    elif len(args) == 1 and isinstance(args[0], float):
        raise errors.TorchTypeError(
            "new(): data must be a sequence (got float)")
    else:
        arr = np.zeros(_size(args), dtype=dtypes.DEFAULT_FLOAT)
    return _leaf(arr, requires_grad)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, int) or isinstance(s, bool):
            raise errors.TorchTypeError(
                f"zeros(): argument 'size' must be tuple of ints, but found element of type {type(s).__name__} at pos 0")
        if s < 0:
            raise errors.TorchRuntimeError(
                f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]")
        out.append(s)
    n = 1
    for s in out:
        n *= s
    _check_size(n)
    return tuple(out)


def _float(dtype):
    return dtypes.to_np(dtype) or dtypes.DEFAULT_FLOAT


def zeros(*size, dtype=None, requires_grad=False):
    return _leaf(np.zeros(_size(size), dtype=_float(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    return _leaf(np.ones(_size(size), dtype=_float(dtype)), requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False):
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    return _leaf(np.full(_size((size,)), fill_value, dtype=dtypes.to_np(dtype)), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False):
    _check_size(n * (m if m is not None else n))
    return _leaf(np.eye(n, m, dtype=_float(dtype)), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise errors.TorchRuntimeError("step must be nonzero")
    if dtype is None:
        dtype = dtypes.DEFAULT_FLOAT if any(isinstance(v, float) for v in vals) else np.int64
    n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
    _check_size(max(n, 0))
    return _leaf(np.arange(*vals, dtype=dtypes.to_np(dtype)), requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    _check_size(int(steps))
    return _leaf(np.linspace(start, end, int(steps), dtype=_float(dtype)), requires_grad)


def rand(*size, dtype=None, requires_grad=False):
    return _leaf(_rng[0].random(_size(size)).astype(_float(dtype)), requires_grad)


def randn(*size, dtype=None, requires_grad=False):
    return _leaf(_rng[0].standard_normal(_size(size)).astype(_float(dtype)), requires_grad)


def _like(fill):
    def op(a, dtype=None, requires_grad=False):
        d = dtypes.to_np(dtype) or a.data_.dtype
        return _leaf(fill(a.data_.shape, d), requires_grad)
    return op


zeros_like = _like(lambda s, d: np.zeros(s, dtype=d))
ones_like = _like(lambda s, d: np.ones(s, dtype=d))
rand_like = _like(lambda s, d: _rng[0].random(s).astype(d))
randn_like = _like(lambda s, d: _rng[0].standard_normal(s).astype(d))


def full_like(a, fill_value, dtype=None, requires_grad=False):
    d = dtypes.to_np(dtype) or a.data_.dtype
    return _leaf(np.full(a.data_.shape, fill_value, dtype=d), requires_grad)
