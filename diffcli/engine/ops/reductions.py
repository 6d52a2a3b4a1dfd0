"""Reductions and normalisations: sum, mean, prod, max/min, var/std, norm, logsumexp,
softmax, log_softmax, cumsum. `dim=None` is the full reduction (PyTorch's ...Backward0
for sum/mean/prod, MaxBackward1 for max); a dim gives the dim variant."""
from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes, errors
from ..function import OUT, as_tensor, record
from ..tensor import Tensor, _wrap_dim
from .arithmetic import where
from .cascade_sum import aten_mean, aten_sum

_TYPE_NAMES = {"float64": "Double", "float32": "Float", "int64": "Long", "int32": "Int", "bool": "Bool"}


def _dims(dim, ndim):
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)) and not dim:
        return tuple(range(ndim))  # an empty dim list reduces over every dim
    if isinstance(dim, (list, tuple)):
        dims = tuple(sorted(_wrap_dim(int(d), ndim) for d in dim))
        if len(set(dims)) != len(dims):
            raise errors.TorchRuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
        return dims
    if isinstance(dim, Tensor):
        dim = int(dim.item())
    return (_wrap_dim(int(dim), ndim),)


def _axes(dims, ndim):
    """numpy axis argument; 0-d tensors accept dim 0/-1 as a no-op."""
    if ndim == 0:
        return ()
    return dims


def _expand_back(g: Tensor, shape, dims, keepdim):
    """Broadcast a reduced gradient back to the input's shape (differentiable)."""
    from .shape import expand, reshape
    if dims is not None and not keepdim and len(shape):
        kept = tuple(1 if i in dims else s for i, s in enumerate(shape))
        g = reshape(g, kept)
    elif dims is None and len(shape):
        g = reshape(g, (1,) * len(shape))
    return expand(g, *shape) if g.data_.shape != tuple(shape) else g


def _sum_backward(g: Tensor, shape, dims, keepdim) -> Tensor:
    """PyTorch's sum_backward: the reduced dims unsqueezed back one by one (unless kept),
    then expanded to the input's shape (ExpandBackward0, even when nothing grows)."""
    from .shape import expand, unsqueeze
    if dims and not keepdim and len(shape):
        for d in sorted(dims):
            g = unsqueeze(g, d)
    return expand(g, *shape)


def _div_scalar(t: Tensor, n) -> Tensor:
    """Tensor / Scalar inside a PyTorch formula (mean's / numel): DivBackward1, one input."""
    with np.errstate(all="ignore"):
        out = (t.data_ / n if n else t.data_ / np.float64(0.0)).astype(t.data_.dtype, copy=False)
    return record("DivBackward1", out, (t,), lambda g: (_div_scalar(g, n),))


def sum(a, dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.data_
    if x.dtype.kind in "bi" and dtype is None:
        x = x.astype(np.int64)
    if dtype is not None:
        x = x.astype(dtypes.to_np(dtype))
    dims = _dims(dim, x.ndim)
    if dims is None:
        out = aten_sum(x) if x.dtype.kind == "f" else np.asarray(x.sum(), dtype=x.dtype)  # (int32: not int64)
        shape = a.data_.shape
        return record("SumBackward0", out, (a,), lambda g: (_sum_backward(g, shape, None, False),))
    out = (aten_sum(x, dims, keepdim) if x.dtype.kind == "f" and x.ndim else
           np.asarray(x.sum(axis=_axes(dims, x.ndim), keepdims=keepdim), dtype=x.dtype))
    shape = a.data_.shape
    return record("SumBackward1", out, (a,), lambda g: (_sum_backward(g, shape, dims, keepdim),))


def mean(a, dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.data_
    if dtype is not None:
        x = x.astype(dtypes.to_np(dtype))
    if x.dtype.kind != "f":
        raise errors.TorchRuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {errors.dtype_scalar_name(x.dtype)}")
    dims = _dims(dim, x.ndim)
    shape = a.data_.shape
    with np.errstate(all="ignore"):
        if dims is None:
            out = aten_mean(x) if x.size else np.asarray(np.nan, dtype=x.dtype)
            n = x.size
            return record("MeanBackward0", out, (a,),
                          lambda g: (_div_scalar(_sum_backward(g, shape, None, False), n),))
        out = (aten_mean(x, dims, keepdim) if x.ndim else
               np.asarray(x.mean(axis=_axes(dims, x.ndim), keepdims=keepdim), dtype=x.dtype))
    n = 1
    for d in dims:
        n *= shape[d] if shape else 1
    return record("MeanBackward1", out, (a,), lambda g: (_div_scalar(_sum_backward(g, shape, dims, keepdim), n),))


def prod(a, dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.data_
    if x.dtype.kind in "bi":
        x = x.astype(np.int64)
    if dim is None:
        out = np.asarray(x.prod())
        name, axis = "ProdBackward0", None
    else:
        dims = _dims(dim, x.ndim)
        axis = dims[0] if x.ndim else None
        out = np.asarray(x.prod(axis=axis, keepdims=keepdim) if x.ndim else x.prod())
        name = "ProdBackward1"

    def backward(g, p, r):
        return (_prod_backward(g, p, r, axis, keepdim),)
    return record(name, out, (a,), backward, (a, OUT))


def _prod_backward(g: Tensor, p: Tensor, r: Tensor, axis, keepdim) -> Tensor:
    """PyTorch's prod_backward (FunctionsManual.cpp), in Tensor ops so that it records
    what PyTorch records under create_graph: g * (result / input) when no element is
    zero, else the product of the others by exclusive cumulative products
    (prod_safe_zeros_backward), over the flattened input (then ViewBackward0) for the
    full product."""
    from ..grad_mode import is_grad_enabled
    from .shape import contiguous, unsqueeze, view
    x = p.data_
    if not x.ndim:
        return g
    if axis is None:
        zeros = int(np.count_nonzero(x == 0))
        if zeros == 0:
            return g * (r / p)
        if not is_grad_enabled() and zeros > 1:
            return Tensor(np.zeros_like(x))  # at::zeros_like(input)
        return view(_prod_safe_zeros_backward(g, view(contiguous(p), -1), 0), *x.shape)
    if not keepdim:
        g = unsqueeze(g, axis)
        r = unsqueeze(r, axis)
    if not (x == 0).any():
        return g * (r / p)
    return _prod_safe_zeros_backward(g, p, axis)


def _prod_safe_zeros_backward(g: Tensor, inp: Tensor, dim: int) -> Tensor:
    """PyTorch's prod_safe_zeros_backward: g times, for each element, the product of the
    elements before it (cumprod of [1, inp[:-1]]) times that of those after it."""
    from .indexing import narrow
    from .shape import cat, expand, flip
    shape = inp.data_.shape
    n = shape[dim]
    if inp.data_.size == 0:
        return expand(g, *shape)
    if n == 1:
        return g
    ones_size = list(shape)
    ones_size[dim] = 1
    ones = Tensor(np.ones(ones_size, dtype=g.data_.dtype))
    exclusive_normal = _cumprod(cat([ones, narrow(inp, dim, 0, n - 1)], dim), dim)
    narrow_reverse = flip(narrow(inp, dim, 1, n - 1), dim)
    exclusive_reverse = flip(_cumprod(cat([ones, narrow_reverse], dim), dim), dim)
    return g * (exclusive_normal * exclusive_reverse)


def _cumprod(a: Tensor, dim: int) -> Tensor:
    """cumprod along `dim` (CumprodBackward0, saving the input and the result), for
    prod's backward formula."""
    return record("CumprodBackward0", np.cumprod(a.data_, axis=dim), (a,),
                  lambda g, p, r: (_cumprod_backward(g, p, dim, r),), (a, OUT))


def _cumprod_backward(g: Tensor, inp: Tensor, dim: int, out: Tensor) -> Tensor:
    """PyTorch's cumprod_backward: with no zero in the input, reversed_cumsum(out * g) /
    input; else for each k the sum over j >= k of g_j times the product of inp[:j+1]
    without inp[k] (PyTorch's O(n^2) formula, the one it differentiates)."""
    from .indexing import narrow
    from .shape import cat, expand, flip, unsqueeze
    x = inp.data_
    if x.size <= 1 or x.shape[dim] == 1:
        return g
    if not (x == 0).any():
        w = out * g
        return flip(cumsum(flip(w, dim), dim), dim) / inp
    n = x.shape[dim]
    ones_size = list(x.shape)
    ones_size[dim] = 1
    ones = Tensor(np.ones(ones_size, dtype=g.data_.dtype))
    grad_input = None
    for k in range(n):
        if k == 0:
            omitted = cat([ones, _cumprod(narrow(inp, dim, k + 1, n - k - 1), dim)], dim)
        elif k == n - 1:
            omitted = prod(narrow(inp, dim, 0, k), dim, keepdim=True)
        else:
            until_k = prod(narrow(inp, dim, 0, k), dim, keepdim=True)
            from_k1 = _cumprod(narrow(inp, dim, k + 1, n - k - 1), dim)
            omitted = cat([until_k, expand(until_k, *from_k1.data_.shape) * from_k1], dim)
        grad_slice = unsqueeze(sum(narrow(g, dim, k, n - k) * omitted, dim), dim)
        grad_input = grad_slice if k == 0 else cat([grad_input, grad_slice], dim)
    return grad_input


def _extreme(a, dim, keepdim, is_max):
    a = as_tensor(a)
    x = a.data_
    kind = "Max" if is_max else "Min"
    if dim is None:
        if x.size == 0:
            raise errors.TorchRuntimeError(
                f"{kind.lower()}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.")
        out = np.asarray(x.max() if is_max else x.min())

        def backward(g, p, r):
            mask = (p.data_ == r.data_)
            if np.isnan(r.data_).any():
                mask = np.isnan(p.data_)
            count = int(mask.sum())
            return (where(Tensor(mask), g / count, 0.0),)
        return record(f"{kind}Backward1", out, (a,), backward, (a, OUT))
    d = _dims(dim, x.ndim)[0]
    if x.ndim and x.shape[d] == 0:
        raise errors.TorchIndexError(
            f"{kind.lower()}(): Expected reduction dim {d} to have non-zero size.")
    if x.ndim == 0:
        idx = np.asarray(0)
        vals = x.copy()
    else:
        idx = np.asarray(x.argmax(axis=d) if is_max else x.argmin(axis=d))
        vals = np.take_along_axis(x, np.expand_dims(idx, d), axis=d)
        if not keepdim:
            vals = vals.squeeze(d)
        else:
            idx = np.expand_dims(idx, d)
    shape = x.shape
    indices = Tensor(idx.astype(np.int64))

    def backward(g, i):
        # the returned indices are saved (PyTorch's MaxBackward0 saves `indices`): freed
        # after a backward, and an in-place op on them fails the backward
        if not shape:
            return (g,)
        from .indexing import scatter_to
        ii = i.data_ if keepdim else np.expand_dims(i.data_, d)
        return (scatter_to(g if keepdim else _unsq(g, d), shape, d, ii),)
    values = record(f"{kind}Backward0", vals, (a,), backward, (indices,))
    return ReturnTypes(values, indices, kind.lower())


def _unsq(g, d):
    from .shape import unsqueeze
    return unsqueeze(g, d)


class ReturnTypes(tuple):
    """torch.return_types.max: a (values, indices) pair with attribute access."""

    def __new__(cls, values, indices, kind):
        self = super().__new__(cls, (values, indices))
        self.kind = kind
        return self

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self):
        return (f"torch.return_types.{self.kind}(\nvalues={self[0]!r},\nindices={self[1]!r})")


def max(a, dim=None, keepdim=False, other=None):
    if isinstance(dim, Tensor) and dim.data_.ndim >= 0 and isinstance(a, Tensor) and other is None \
            and (dim.data_.dtype.kind == "f" or dim.data_.ndim > 0):
        from .arithmetic import maximum
        return maximum(a, dim)
    if other is not None:
        from .arithmetic import maximum
        return maximum(a, other)
    return _extreme(a, dim, keepdim, True)


def min(a, dim=None, keepdim=False, other=None):
    if isinstance(dim, Tensor) and isinstance(a, Tensor) and other is None \
            and (dim.data_.dtype.kind == "f" or dim.data_.ndim > 0):
        from .arithmetic import minimum
        return minimum(a, dim)
    if other is not None:
        from .arithmetic import minimum
        return minimum(a, other)
    return _extreme(a, dim, keepdim, False)


def amax(a, dim=(), keepdim=False):
    a = as_tensor(a)
    x = a.data_
    dims = _dims(dim, x.ndim) if dim not in ((), None) else tuple(range(x.ndim))
    if x.size == 0:
        if dim in ((), None):
            raise errors.TorchRuntimeError(
                "amax(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.")
        for d in dims:
            if x.shape[d] == 0:
                raise errors.TorchIndexError(
                    f"amax(): Expected reduction dim {d} to have non-zero size.")
    axes = _axes(dims, x.ndim)
    out = np.asarray(x.max(axis=axes, keepdims=keepdim))
    shape = x.shape

    def backward(g, p, r):
        # PyTorch's scale_grad_by_count(restore_reduced_dims(grad), restore_reduced_dims(
        # result) == self, dims): (grad / mask.sum(dims, keepdim=True)) * mask
        from .shape import reshape
        gg, rd = g, r.data_
        if not keepdim:
            target = tuple(1 if i in dims else n for i, n in enumerate(shape)) if shape else (1,) * len(dims)
            gg = reshape(g, target)
            rd = rd.reshape(target)
        mask = p.data_ == rd
        count = np.sum(mask, axis=tuple(dims) if dims and mask.ndim else None, keepdims=True)
        dt = g.data_.dtype
        out = gg / Tensor(np.asarray(count, dtype=dt)) * Tensor(mask.astype(dt))
        if out.data_.shape != shape:  # a 0-d input reduced over dim 0: the engine sums
            out = sum(out)
        return (out,)
    return record("AmaxBackward0", out, (a,), backward, (a, OUT))


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


def var(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return _var_std(a, dim, unbiased, keepdim, correction, False)


def std(a, dim=None, unbiased=None, keepdim=False, correction=None):
    return _var_std(a, dim, unbiased, keepdim, correction, True)


def _var_std(a, dim, unbiased, keepdim, correction, is_std):
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    a = as_tensor(a)
    x = a.data_
    if x.dtype.kind != "f":
        raise errors.TorchRuntimeError("std and var only support floating point and complex dtypes")
    c = _correction(unbiased, correction)
    dims = _dims(dim, x.ndim)
    axes = tuple(range(x.ndim)) if dims is None else _axes(dims, x.ndim)
    n = 1
    for d in axes:
        n *= x.shape[d]
    name = "std" if is_std else "var"
    if n - c <= 0:
        from .. import errors as E
        E.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than "
               "the reduction factor (input numel divided by output numel). (Triggered internally "
               "at /__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)")
    dof = n - c
    kd = keepdim
    with np.errstate(all="ignore"):
        # PyTorch divides the sum of squares by max(dof, 0): inf (or nan for a constant
        # input) when the correction leaves no degrees of freedom
        centered = x - x.mean(axis=axes, keepdims=True)
        v = np.asarray((centered * centered).sum(axis=axes, keepdims=kd) / builtins.max(dof, 0))
        out = np.sqrt(v) if is_std else v
    shape = x.shape
    full = dims is None or x.ndim == 0

    def backward(g, p, r=None):
        # PyTorch's std_backward / var_backward (FunctionsManual.cpp); VarBackward0 saves
        # only the input, StdBackward0 its result too
        if is_std:
            g = where(r == 0, 0.0, g / (r * 2))
        gb = _expand_back(g, shape, None if full else axes, kd)
        if full and dof <= 0:
            return (gb * where(p == mean(p), float("nan"), float("inf")),)
        m = mean(p) if full else mean(p, axes, keepdim=True)
        scale = 2.0 / dof if dof != 0 else float("inf")
        return (gb * scale * (p - m),)
    return record("StdBackward0" if is_std else "VarBackward0", out.astype(x.dtype), (a,),
                  backward, (a, OUT) if is_std else (a,))


def norm(a, p="fro", dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.data_
    if x.dtype.kind != "f":
        raise errors.TorchRuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {_TYPE_NAMES[x.dtype.name]}")
    if p in ("fro", None):
        p = 2
    dims = _dims(dim, x.ndim)
    axes = tuple(range(x.ndim)) if dims is None else _axes(dims, x.ndim)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        if p == float("inf"):
            out = ax.max(axis=axes, keepdims=keepdim)
        elif p == float("-inf"):
            out = ax.min(axis=axes, keepdims=keepdim)
        elif p == 0:
            out = (ax != 0).sum(axis=axes, keepdims=keepdim).astype(x.dtype)
        elif p == 2:
            out = np.sqrt((x * x).sum(axis=axes, keepdims=keepdim))
        else:
            out = (ax ** p).sum(axis=axes, keepdims=keepdim) ** (1.0 / p)
    shape = x.shape
    kd = keepdim

    def backward(g, q, r):
        # PyTorch's norm_backward (FunctionsManual.cpp), case by case
        from .unary import abs as tabs
        from .unary import sign
        gb = _expand_back(g, shape, dims, kd)
        rb = _expand_back(r, shape, dims, kd)
        if p == 0:
            return (None,)  # PyTorch returns an undefined gradient: .grad stays None
        if p == 1:
            return (sign(q) * gb,)
        if p == 2:
            return (gb * where(rb == 0, 0.0, q / rb),)
        if p in (float("inf"), float("-inf")):
            qa = np.abs(q.data_)
            mask = (qa == rb.data_) | np.isnan(qa)
            count = Tensor(mask.sum(axis=axes, keepdims=True).astype(q.data_.dtype))
            return (sign(q) * ((gb / count) * Tensor(mask.astype(q.data_.dtype))),)
        if p < 1:
            scaled = sign(q) * where(q == 0, 0.0, tabs(q) ** (p - 1))
            return (scaled * gb * rb ** (1 - p),)
        scaled = sign(q) * tabs(q) ** (p - 1) if p < 2 else q * tabs(q) ** (p - 2)
        return (scaled * where(rb == 0, 0.0, gb / rb ** (p - 1)),)
    return record("LinalgVectorNormBackward0", np.asarray(out, dtype=x.dtype), (a,), backward, (a, OUT))


def logsumexp(a, dim, keepdim=False):
    a = as_tensor(a)
    x = a.data_.astype(dtypes.default_float()) if a.data_.dtype.kind != "f" else a.data_
    dims = _dims(dim, x.ndim)
    axes = _axes(dims, x.ndim)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((1,) * x.ndim)
        m = np.where(np.isfinite(m), m, 0)
        out = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
        if not keepdim:
            out = out.reshape(tuple(s for i, s in enumerate(x.shape) if i not in dims)) if x.ndim else out.reshape(())
    shape = x.shape

    def backward(g, p, r):
        from .unary import exp
        return (_expand_back(g, shape, dims, keepdim) * exp(p - _expand_back(r, shape, dims, keepdim)),)
    return record("LogsumexpBackward0", np.asarray(out), (a,), backward, (a, OUT))


def softmax(a, dim=None, dtype=None):
    a = as_tensor(a)
    if dtype is not None:
        from .conversion import to_dtype
        a = to_dtype(a, dtype)
    d = _softmax_dim(dim, a.data_.ndim)
    x = _softmax_input(a, d, "softmax")
    if x.size == 0:
        return record("SoftmaxBackward0", x.copy(), (a,), lambda g, y: (g * y,), (OUT,))
    with np.errstate(all="ignore"):
        e = np.exp(x - np.max(x, axis=d, keepdims=True)) if x.ndim else np.ones_like(x)
        out = np.ascontiguousarray(e / np.sum(e, axis=d, keepdims=True)) if x.ndim else e

    return record("SoftmaxBackward0", out, (a,), lambda g, y: (_softmax_backward_data(g, y, d),), (OUT,))


def _sum_keep(t: Tensor, d: int) -> Tensor:
    """t.sum(d, keepdim=True) (SumBackward1, also for a 0-d t and d 0)."""
    return sum(t, d, keepdim=True)


def _softmax_backward_data(g: Tensor, y: Tensor, d: int) -> Tensor:
    """PyTorch's _softmax_backward_data(grad, output) (SoftmaxBackwardDataBackward0,
    saving both): y (g - sum(g y)). Its derivatives: this op again in the gradient,
    softmax_double_backward in the output."""
    gd, yd = g.data_, y.data_
    with np.errstate(all="ignore"):
        out = yd * (gd - (np.sum(gd * yd, axis=d, keepdims=True) if yd.ndim else gd * yd))

    def backward(gg, go, o):
        # softmax_double_backward(grad, grad_output, dim, output)
        return (_softmax_backward_data(gg, o, d),
                go * gg - _sum_keep(o * go, d) * gg - go * _sum_keep(o * gg, d))
    return record("SoftmaxBackwardDataBackward0", out.astype(gd.dtype, copy=False), (g, y), backward, (g, y))


def log_softmax(a, dim=None, dtype=None):
    a = as_tensor(a)
    if dtype is not None:
        from .conversion import to_dtype
        a = to_dtype(a, dtype)
    d = _softmax_dim(dim, a.data_.ndim, "log_softmax")
    x = _softmax_input(a, d, "log_softmax")
    if x.size == 0:
        return record("LogSoftmaxBackward0", x.copy(), (a,), lambda g, y: (g * 1,), (OUT,))
    with np.errstate(all="ignore"):
        if x.ndim:
            m = np.max(x, axis=d, keepdims=True)
            out = np.ascontiguousarray(x - m - np.log(np.sum(np.exp(x - m), axis=d, keepdims=True)))
        else:
            out = x - x

    return record("LogSoftmaxBackward0", out, (a,), lambda g, y: (_log_softmax_backward_data(g, y, d),),
                  (OUT,))


def _log_softmax_backward_data(g: Tensor, y: Tensor, d: int) -> Tensor:
    """PyTorch's _log_softmax_backward_data(grad, output) (LogSoftmaxBackwardDataBackward0,
    saving both): g - exp(y) sum(g), with PyTorch's formulas for its derivatives."""
    from .unary import exp
    gd, yd = g.data_, y.data_
    with np.errstate(all="ignore"):
        out = gd - np.exp(yd) * (np.sum(gd, axis=d, keepdims=True) if yd.ndim else gd)

    def backward(gg, go, o):
        return gg - _sum_keep(gg * exp(o), d), -_sum_keep(go, d) * exp(o) * gg
    return record("LogSoftmaxBackwardDataBackward0", out.astype(gd.dtype, copy=False), (g, y), backward,
                  (g, y))


def _softmax_input(a: Tensor, d: int, name: str) -> np.ndarray:
    """The data softmax/log_softmax work on: PyTorch has no integer or bool kernel (its
    "lastdim" kernel serves the last dim and 0-d tensors); an empty tensor is returned as
    it is, without a kernel."""
    x = a.data_
    if x.dtype.kind != "f" and x.size:
        last = x.ndim == 0 or d == x.ndim - 1
        raise errors.not_implemented(f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl",
                                     x.dtype)
    return x


def _softmax_dim(dim, ndim, name="softmax"):
    if dim is None:
        dim = 0 if ndim in (0, 1, 3) else 1
        from .. import errors as E
        E.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.")
    return _wrap_dim(int(dim), ndim)


def cumsum(a, dim, dtype=None):
    a = as_tensor(a)
    x = a.data_ if dtype is None else a.data_.astype(dtypes.to_np(dtype))
    d = _wrap_dim(int(dim), x.ndim)
    out = np.cumsum(x, axis=d) if x.ndim else x.copy()
    if out.dtype.kind in "bi":
        out = out.astype(np.int64)

    def backward(g):
        from .shape import flip
        if not g.data_.ndim:
            return (g,)
        return (flip(cumsum(flip(g, d), d), d),)
    return record("CumsumBackward0", out, (a,), backward)


# --- any / all, argmax / argmin, equal / allclose: results without gradients ----------------

def _bool_reduce(np_fn):
    def op(a, dim=None, keepdim=False):
        a = as_tensor(a)
        x = a.data_
        if dim is None:
            out = np.asarray(np_fn(x))
            if keepdim:
                out = out.reshape((1,) * x.ndim)
            return Tensor(out)
        dims = _dims(dim, x.ndim)
        out = np.asarray(np_fn(x, axis=_axes(dims, x.ndim), keepdims=keepdim))
        return Tensor(out)
    return op


any = _bool_reduce(np.any)
all = _bool_reduce(np.all)


def _arg_extreme(name, is_max):
    def op(a, dim=None, keepdim=False):
        a = as_tensor(a)
        x = a.data_
        if x.dtype == np.bool_:
            raise errors.TorchRuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            if x.size == 0:
                raise errors.TorchIndexError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            idx = np.asarray(x.argmax() if is_max else x.argmin(), dtype=np.int64)
            return Tensor(idx.reshape((1,) * x.ndim) if keepdim else idx)
        d = _dims(dim, x.ndim)[0]
        if x.ndim == 0:
            return Tensor(np.asarray(0, dtype=np.int64))
        if x.shape[d] == 0:
            raise errors.TorchIndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        idx = np.asarray(x.argmax(axis=d) if is_max else x.argmin(axis=d), dtype=np.int64)
        return Tensor(np.expand_dims(idx, d) if keepdim else idx)
    return op


argmax = _arg_extreme("argmax", True)
argmin = _arg_extreme("argmin", False)


def _tensor_args(fname, a, b, method):
    for v, arg, pos in ((a, "input", 1), (b, "other", 1 if method else 2)):
        if not isinstance(v, Tensor):
            raise errors.TorchTypeError(
                f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}")


def equal(a, b, _method=False):
    """torch.equal: a Python bool, True when the shapes and the values (after promotion)
    are the same; nan equals nothing."""
    _tensor_args("equal", a, b, _method)
    x, y = a.data_, b.data_
    if x.shape != y.shape:
        return False
    rd = dtypes.promote(x.dtype, y.dtype)
    return bool(np.array_equal(x.astype(rd, copy=False), y.astype(rd, copy=False)))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False, _method=False):
    """torch.allclose: isclose(...).all() as a Python bool. The dtypes must match; integer
    tensors compare in the default float dtype. |a - b| <= atol + |rtol * b| where finite,
    or a == b (or both nan, with equal_nan)."""
    _tensor_args("allclose", a, b, _method)
    x, y = a.data_, b.data_
    if x.dtype != y.dtype:
        raise errors.TorchRuntimeError(
            f"{errors.dtype_scalar_name(x.dtype)} did not match {errors.dtype_scalar_name(y.dtype)}")
    errors.broadcast_shapes(x.shape, y.shape)
    with np.errstate(all="ignore"):
        close = x == y
        if equal_nan:
            close = close | (np.isnan(x) & np.isnan(y))
        if rtol != 0 or atol != 0:
            if x.dtype.kind != "f":
                x, y = x.astype(dtypes.default_float()), y.astype(dtypes.default_float())
            allowed = atol + np.abs(rtol * y)
            actual = np.abs(x - y)
            close = close | (np.isfinite(actual) & (actual <= allowed))
    return bool(np.all(close))


def equal_method(self, other):
    return equal(self, other, _method=True)


def allclose_method(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return allclose(self, other, rtol, atol, equal_nan, _method=True)
