"""Constructors with PyTorch's defaults: tensor (dtype inferred), Tensor (always float),
zeros/ones/full/eye/arange/linspace/rand/randn and the *_like forms. Leaves, and
requires_grad=False unless asked."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..context import MAX_ELEMENTS  # the --max-elements cap (a run setting: context.py)
from ..tensor import Size, Tensor
from . import random as _random


def manual_seed(seed):
    """torch.manual_seed: reset PyTorch's CPU generator (see ops/random.py)."""
    _random.manual_seed(seed)
    return None


def _check_size(n):
    if n > MAX_ELEMENTS[0]:
        raise errors.LimitError(
            f"tensor of {n} elements exceeds the limit of {MAX_ELEMENTS[0]} elements "
            "(raise it with --max-elements)"
        )


def _leaf(arr, requires_grad, ctor=True):
    _check_size(arr.size)
    t = Tensor(arr)
    if requires_grad:
        if arr.dtype.kind != "f":
            raise errors.TorchRuntimeError(errors.INT_REQUIRES_GRAD_CTOR)
        t.needs_grad = True
    return t


_MAX_DIMS = 128  # PyTorch's limit on the nesting of the data torch.tensor reads
_NP_MAX_DIMS = 64  # numpy's limit on an array's dims


def _is_sequence(v) -> bool:
    """PySequence_Check for the data a script can pass. A Tensor does not count: an
    element Tensor is read as a scalar (unless the nesting asks for a sequence there)."""
    return isinstance(v, (list, tuple, str))


def _compute_sizes(values) -> tuple:
    """PyTorch's compute_sizes: the shape, read along the first element of each level. The
    element cap is checked on it, before any element is read (`tensor([[x] * 1000] * 1000)`
    is refused at once, not after a million conversions)."""
    sizes = []
    seq = values
    while _is_sequence(seq):
        sizes.append(len(seq))
        if len(sizes) > _MAX_DIMS:
            raise errors.TorchValueError(f"too many dimensions '{type(seq).__name__}'")
        if not sizes[-1]:
            break
        seq = seq[0]
    if len(sizes) > _NP_MAX_DIMS:
        raise errors.LimitError(f"tensors of more than {_NP_MAX_DIMS} dimensions are not supported")
    n = 1
    for s in sizes:
        n *= s
    _check_size(n)
    return tuple(sizes)


def _infer_dtype(v) -> np.dtype:
    """PyTorch's infer_scalar_type: the promoted dtype of every element (an empty list
    counts as the default float)."""
    if isinstance(v, (float, np.floating)):
        return dtypes.default_float()
    if isinstance(v, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(v, (int, np.integer)):
        return np.dtype(np.int64)
    if isinstance(v, Tensor):
        return v.array.dtype
    if isinstance(v, str):
        raise errors.TorchTypeError(f"new(): invalid data type '{type(v).__name__}'")
    if isinstance(v, (list, tuple)):
        if not v:
            return dtypes.default_float()
        d = None
        for e in v:
            d = _infer_dtype(e) if d is None else dtypes.promote(d, _infer_dtype(e))
        return d
    raise errors.TorchRuntimeError(f"Could not infer dtype of {type(v).__name__}")


class _ElementTensor(Exception):
    """Data with a Tensor inside: numpy cannot read it PyTorch's way."""


def _to_array(values, dtype, sizes, inferred=False):
    """The data as an array of `sizes`: numpy reads well-formed data; anything else goes
    through PyTorch's element-by-element store, which raises PyTorch's errors. Data whose
    dtype was not inferred is checked for elements numpy would take (None is nan)."""
    if not inferred:
        try:
            _infer_dtype(values)
        except errors.EngineError:
            return _store(values, sizes, dtype)

    def plain(v):
        if isinstance(v, (list, tuple)):
            return [plain(e) for e in v]
        if isinstance(v, Tensor):  # read element by element, as PyTorch does (float() warns)
            raise _ElementTensor
        return v

    try:
        arr = np.array(plain(values), dtype=dtype)
        if arr.shape == sizes:
            return arr
    except (ValueError, TypeError, OverflowError, _ElementTensor):
        pass
    return _store(values, sizes, dtype)


def _store(values, sizes, dtype) -> np.ndarray:
    """PyTorch's recursive_store: each level must have the length compute_sizes read off
    the first elements, and each element must convert to the dtype."""
    ndim = len(sizes)
    flat = []

    def rec(obj, dim):
        if dim == ndim:
            flat.append(_scalar(obj, dtype))
            return
        if isinstance(obj, (list, tuple, str)):
            items = obj
        elif isinstance(obj, Tensor) and obj.array.ndim:
            items = [Tensor(row, obj.needs_grad) for row in obj.array]
        else:
            raise errors.TorchTypeError("not a sequence")
        if len(items) != sizes[dim]:
            raise errors.TorchValueError(
                f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(items)})"
            )
        for e in items:
            rec(e, dim + 1)

    if 0 not in sizes:
        rec(values, 0)
        return np.array(flat, dtype=dtype).reshape(sizes)
    return np.zeros(sizes, dtype=dtype)


def _scalar(obj, dtype):
    """PyTorch's store_scalar: one element as a Python number of the dtype's kind."""
    if dtype.kind == "f":
        if isinstance(obj, (Tensor, float, int, np.number, np.bool_)):
            return float(obj)  # a Tensor of several elements raises PyTorch's ValueError
        raise errors.TorchTypeError(f"must be real number, not {type(obj).__name__}")
    if isinstance(obj, (float, np.floating)):
        return bool(obj) if dtype.kind == "b" else int(obj)
    if isinstance(obj, Tensor):
        if obj.array.size != 1 or obj.array.dtype.kind not in "biu":
            raise errors.TorchTypeError(
                "only integer tensors of a single element can be converted to an index"
            )
        obj = int(obj)
    if not isinstance(obj, (int, np.integer, np.bool_)):
        raise errors.TorchTypeError(f"'{type(obj).__name__}' object cannot be interpreted as an integer")
    if not -(2**63) <= int(obj) < 2**63:
        raise errors.TorchValueError("Overflow when unpacking long long")
    if dtype == np.int32 and not -(2**31) <= int(obj) < 2**31:
        raise errors.TorchRuntimeError("value cannot be converted to type int32 without overflow")
    return bool(obj) if dtype.kind == "b" else int(obj)


def tensor(data, dtype=None, requires_grad=False):
    if isinstance(data, Tensor):
        errors.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
        )
        arr = np.array(data.array, dtype=dtypes.to_np(dtype) or data.array.dtype, copy=True)
    elif isinstance(data, np.ndarray):
        arr = dtypes.canonical(np.array(data, dtype=dtypes.to_np(dtype), copy=True))
    else:
        if isinstance(data, str):
            raise errors.TorchTypeError(f"new(): invalid data type '{type(data).__name__}'")
        sizes = _compute_sizes(data)
        d = dtypes.to_np(dtype)
        arr = _to_array(data, d, sizes) if d is not None else _to_array(data, _infer_dtype(data), sizes, True)
    return _leaf(arr, requires_grad)


def Tensor_(*args, requires_grad=False):
    """torch.Tensor(...): a list gives float data; integers give an uninitialised size,
    no arguments an empty (0,) tensor."""
    if len(args) == 1 and isinstance(args[0], (list, tuple, Tensor)):
        v = args[0]
        if isinstance(v, Tensor):
            arr = v.array.astype(dtypes.default_float())
        else:
            arr = _to_array(v, dtypes.default_float(), _compute_sizes(v))
    elif len(args) == 1 and isinstance(args[0], float):
        raise errors.TorchTypeError("new(): data must be a sequence (got float)")
    elif not args:
        arr = np.zeros((0,), dtype=dtypes.default_float())
    else:
        arr = np.zeros(_size(args), dtype=dtypes.default_float())
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
                f"zeros(): argument 'size' must be tuple of ints, but found element of type {type(s).__name__} at pos 0"
            )
        if s < 0:
            raise errors.TorchRuntimeError(
                f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, size))}]"
            )
        out.append(s)
    n = 1
    for s in out:
        n *= s
    _check_size(n)
    return tuple(out)


def _float(dtype):
    return dtypes.to_np(dtype) or dtypes.default_float()


def zeros(*size, dtype=None, requires_grad=False):
    return _leaf(np.zeros(_size(size), dtype=_float(dtype)), requires_grad)


def ones(*size, dtype=None, requires_grad=False):
    return _leaf(np.ones(_size(size), dtype=_float(dtype)), requires_grad)


def full(size, fill_value, dtype=None, requires_grad=False):
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    d = dtypes.to_np(dtype)
    if d == np.int32 and isinstance(fill_value, int) and not -(2**31) <= fill_value < 2**31:
        raise errors.TorchRuntimeError("value cannot be converted to type int without overflow")
    return _leaf(np.full(_size((size,)), fill_value, dtype=d), requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False):
    _check_size(n * (m if m is not None else n))
    return _leaf(np.eye(n, m, dtype=_float(dtype)), requires_grad)


def _random_dtypes(dtype, like=None):
    """(the dtype PyTorch draws in, the result's dtype) of a random constructor. With no
    dtype asked for (or a *_like of a default-float tensor), values are drawn in the dtype
    the run's default stands for (`dtypes.Defaults.drawn`: the math flavour's float64
    draws PyTorch's default float32 numbers), then held in the default dtype."""
    out = dtypes.to_np(dtype)
    if out is None:
        settings = dtypes.defaults()
        out = like if like is not None else settings.float
        draw = settings.drawn if out == settings.float else out
    else:
        draw = out
    return draw, out


def _random_fill(arr: np.ndarray, draw, kind: str, kernel: str, gen=None) -> np.ndarray:
    """Fill `arr` in memory order (as ATen's serial kernels walk a fresh tensor)."""
    if arr.dtype.kind != "f":
        raise errors.not_implemented(kernel, arr.dtype)
    if arr.flags.c_contiguous:
        view = arr.reshape(-1)
    else:  # a dense permuted layout (a *_like of a transposed tensor): its memory order
        perm = sorted(range(arr.ndim), key=lambda i: -arr.strides[i])
        view = arr.transpose(perm)
    n = arr.size
    gen = gen or _random.default_generator
    if kind == "normal":
        vals = gen.normal(n, draw, contiguous=arr.flags.c_contiguous)
    else:
        vals = gen.uniform(n, draw)
    view[...] = vals.reshape(view.shape)
    return arr


def rand(*size, dtype=None, requires_grad=False, generator=None):
    gen = _random.generator_or_default(generator, "rand")
    draw, out = _random_dtypes(dtype)
    arr = np.empty(_size(size), dtype=out)
    return _leaf(_random_fill(arr, draw, "uniform", "check_uniform_bounds", gen), requires_grad)


def randn(*size, dtype=None, requires_grad=False, generator=None):
    gen = _random.generator_or_default(generator, "randn")
    draw, out = _random_dtypes(dtype)
    arr = np.empty(_size(size), dtype=out)
    return _leaf(_random_fill(arr, draw, "normal", "normal_kernel_cpu", gen), requires_grad)


def randperm(n, dtype=None, requires_grad=False, generator=None):
    """torch.randperm(n): 0..n-1 in a random order (int64 unless `dtype`)."""
    gen = _random.generator_or_default(generator, "randperm")
    if not isinstance(n, int) or isinstance(n, bool):
        raise errors.TorchTypeError(
            f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    if n < 0:
        raise errors.TorchRuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    _check_size(n)
    out = dtypes.to_np(dtype) or np.int64
    return _leaf(_random.randperm_values(n, gen).astype(out), requires_grad)


def randint(*args, size=None, low=None, high=None, dtype=None, requires_grad=False, generator=None):
    """torch.randint(high, size) / randint(low, high, size): ATen's random_from_to kernel,
    serial in memory order: low + (a 32-bit draw % range), a 64-bit draw if range >= 2**32."""
    if size is None and args and isinstance(args[-1], (tuple, list, Size)):
        size, args = args[-1], args[:-1]
    bounds = [*args, *(v for v in (low, high) if v is not None)]
    if size is None or not 1 <= len(bounds) <= 2:
        raise errors.TorchTypeError(
            "randint() received an invalid combination of arguments - expected (int high, tuple of ints "
            "size) or (int low, int high, tuple of ints size)"
        )
    lo, hi = (0, bounds[0]) if len(bounds) == 1 else bounds
    if lo >= hi:
        raise errors.TorchRuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}"
        )
    out = dtypes.to_np(dtype) or np.int64
    arr = np.empty(_size((tuple(size),)), dtype=out)
    span = hi - lo
    n = arr.size
    gen = _random.generator_or_default(generator, "randint")
    draws = gen.random64(n) if span >= 1 << 32 else gen.random(n)
    arr.reshape(-1)[...] = (draws % np.uint64(span)).astype(np.int64) + lo
    return _leaf(arr, requires_grad)


def _dense_order(x: np.ndarray):
    """The dims of `x` from the slowest to the fastest varying in memory, as PyTorch's
    preserve_format lays out a *_like tensor: `x`'s own order when it is dense, else
    ATen's infer_dense_strides (a stable insertion sort by stride, where a 0 stride --
    an expanded dim -- keeps the contiguous order)."""
    shape, strides = x.shape, x.strides
    perm = list(range(x.ndim - 1, -1, -1))  # fastest first

    def after(d0, d1):  # dim d0 should come after (be slower than) d1
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return 1 if s0 > s1 else -1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, x.ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = after(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm[::-1]


def _like(fill):
    """A *_like constructor: `fill(shape, dtype)` makes a C-ordered array, which is laid
    out (its values in memory order) with the dims of `a` in a's memory order."""

    def op(a, dtype=None, requires_grad=False):
        d = dtypes.to_np(dtype) or a.array.dtype
        x = a.array
        order = _dense_order(x) if x.ndim > 1 else list(range(x.ndim))
        out = fill(tuple(x.shape[i] for i in order), d)
        if order != sorted(order):
            out = out.transpose(np.argsort(order))
        return _leaf(out, requires_grad)

    return op


zeros_like = _like(lambda s, d: np.zeros(s, dtype=d))
ones_like = _like(lambda s, d: np.ones(s, dtype=d))


def _random_like(kind, kernel):
    def op(a, dtype=None, requires_grad=False):
        draw, out = _random_dtypes(dtype, like=a.array.dtype)
        if out.kind != "f":
            raise errors.not_implemented(kernel, out)
        t = _like(lambda s, d: np.empty(s, dtype=d))(a, out, requires_grad)  # empty_like
        _random_fill(t.array, draw, kind, kernel)
        return t

    return op


rand_like = _random_like("uniform", "check_uniform_bounds")
randn_like = _random_like("normal", "normal_kernel_cpu")


def full_like(a, fill_value, dtype=None, requires_grad=False):
    d = dtypes.to_np(dtype) or a.array.dtype
    return _like(lambda s, dt: np.full(s, fill_value, dtype=dt))(a, d, requires_grad)
