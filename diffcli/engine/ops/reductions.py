"""Reductions: sum, mean, prod, max/min, amax, var/std, norm, logsumexp, cumsum. `dim=None`
is the full reduction (PyTorch's ...Backward0 for sum/mean/prod, MaxBackward1 for max); a
dim gives the dim variant. (softmax and log_softmax: softmax.py; any/all/argmax/equal...,
which have no gradient: discrete.py.)"""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..function import as_tensor
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor, _wrap_dim
from . import rows
from .aten_prod import aten_cumsum, aten_prod
from .cascade_sum import aten_mean, aten_sum
from .formulas import div_scalar
from .indexing import narrow
from .rows import expose
from .shape import cat, contiguous, expand, flip, reshape, unsqueeze, view


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
    if dims is not None and not keepdim and len(shape):
        kept = tuple(1 if i in dims else s for i, s in enumerate(shape))
        g = reshape(g, kept)
    elif dims is None and len(shape):
        g = reshape(g, (1,) * len(shape))
    return expand(g, *shape) if g.array.shape != tuple(shape) else g


def sum_backward(g: Tensor, shape, dims, keepdim) -> Tensor:
    """PyTorch's sum_backward: the reduced dims unsqueezed back one by one (unless kept),
    then expanded to the input's shape (ExpandBackward0, even when nothing grows)."""
    if dims and not keepdim and len(shape):
        for d in sorted(dims):
            g = unsqueeze(g, d)
    return expand(g, *shape)


def mean_backward(g: Tensor, shape, dims, keepdim) -> Tensor:
    """PyTorch's mean_backward: sum_backward, divided by the number of elements reduced."""
    if dims is None:
        n = 1
        for s in shape:
            n *= s
    else:
        n = 1
        for d in dims:
            n *= shape[d] if shape else 1
    return div_scalar(sum_backward(g, shape, dims, keepdim), n)  # (DivBackward1: div.Scalar)


def sum(a, dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.array
    if x.dtype.kind in "bi" and dtype is None:
        x = x.astype(np.int64)
    if dtype is not None:
        x = x.astype(dtypes.to_np(dtype))
    dims = _dims(dim, x.ndim)
    if dims is None:
        out = aten_sum(x) if x.dtype.kind == "f" else np.asarray(x.sum(), dtype=x.dtype)  # (int32: not int64)
        return _SUM.record(out, (a,), fargs=(a.array.shape,))
    out = (
        aten_sum(x, dims, keepdim)
        if x.dtype.kind == "f" and x.ndim
        else np.asarray(x.sum(axis=_axes(dims, x.ndim), keepdims=keepdim), dtype=x.dtype)
    )
    return _SUM_DIM.record(out, (a,), fargs=(dims, keepdim, a.array.shape))


def mean(a, dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.array
    if dtype is not None:
        x = x.astype(dtypes.to_np(dtype))
    if x.dtype.kind != "f":
        raise errors.TorchRuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating "
            f"point or complex dtype. Got: {errors.dtype_scalar_name(x.dtype)}"
        )
    dims = _dims(dim, x.ndim)
    shape = a.array.shape
    with np.errstate(all="ignore"):
        if dims is None:
            out = aten_mean(x) if x.size else np.asarray(np.nan, dtype=x.dtype)
            return _MEAN.record(out, (a,), fargs=(shape,))
        out = (
            aten_mean(x, dims, keepdim)
            if x.ndim
            else np.asarray(x.mean(axis=_axes(dims, x.ndim), keepdims=keepdim), dtype=x.dtype)
        )
    return _MEAN_DIM.record(out, (a,), fargs=(dims, keepdim, shape))


def prod(a, dim=None, keepdim=False, dtype=None):
    a = as_tensor(a)
    x = a.array
    if x.dtype.kind in "bi":
        x = x.astype(np.int64)
    if dim is None:
        out = aten_prod(x)  # ATen's order (aten_prod.py), or numpy's
        out = np.asarray(x.prod()) if out is None else out
        return _PROD.record(out, (a,))
    dims = _dims(dim, x.ndim)
    axis = dims[0] if x.ndim else None
    out = aten_prod(x, axis, keepdim)
    out = np.asarray(x.prod(axis=axis, keepdims=keepdim) if x.ndim else x.prod()) if out is None else out
    return _PROD_DIM.record(out, (a,), fargs=(axis, keepdim))


def prod_backward(g: Tensor, p: Tensor, r: Tensor, axis, keepdim) -> Tensor:
    """PyTorch's prod_backward (FunctionsManual.cpp), in Tensor ops so that it records
    what PyTorch records under create_graph: g * (result / input) when no element is
    zero, else the product of the others by exclusive cumulative products
    (prod_safe_zeros_backward), over the flattened input (then ViewBackward0) for the
    full product."""
    x = p.array
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
    shape = inp.array.shape
    n = shape[dim]
    if inp.array.size == 0:
        return expand(g, *shape)
    if n == 1:
        return g
    ones_size = list(shape)
    ones_size[dim] = 1
    ones = Tensor(np.ones(ones_size, dtype=g.array.dtype))
    exclusive_normal = _cumprod(cat([ones, narrow(inp, dim, 0, n - 1)], dim), dim)
    narrow_reverse = flip(narrow(inp, dim, 1, n - 1), dim)
    exclusive_reverse = flip(_cumprod(cat([ones, narrow_reverse], dim), dim), dim)
    return g * (exclusive_normal * exclusive_reverse)


def _cumprod(a: Tensor, dim: int) -> Tensor:
    """cumprod along `dim` (CumprodBackward0, saving the input and the result), for
    prod's backward formula."""
    return _CUMPROD.record(np.cumprod(a.array, axis=dim), (a,), fargs=(dim,))


def cumprod_backward(g: Tensor, inp: Tensor, dim: int, out: Tensor) -> Tensor:
    """PyTorch's cumprod_backward: with no zero in the input, reversed_cumsum(out * g) /
    input; else for each k the sum over j >= k of g_j times the product of inp[:j+1]
    without inp[k] (PyTorch's O(n^2) formula, the one it differentiates)."""
    x = inp.array
    if x.size <= 1 or x.shape[dim] == 1:
        return g
    if not (x == 0).any():
        w = out * g
        return flip(cumsum(flip(w, dim), dim), dim) / inp
    n = x.shape[dim]
    ones_size = list(x.shape)
    ones_size[dim] = 1
    ones = Tensor(np.ones(ones_size, dtype=g.array.dtype))
    grad_input = None
    for k in range(n):
        if k == 0:
            omitted = cat([ones, _cumprod(narrow(inp, dim, k + 1, n - k - 1), dim)], dim)
        elif k == n - 1:
            omitted = prod(narrow(inp, dim, 0, k), dim, keepdim=True)
        else:
            until_k = prod(narrow(inp, dim, 0, k), dim, keepdim=True)
            from_k1 = _cumprod(narrow(inp, dim, k + 1, n - k - 1), dim)
            omitted = cat([until_k, expand(until_k, *from_k1.array.shape) * from_k1], dim)
        grad_slice = unsqueeze(sum(narrow(g, dim, k, n - k) * omitted, dim), dim)
        grad_input = grad_slice if k == 0 else cat([grad_input, grad_slice], dim)
    return grad_input


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
        return f"torch.return_types.{self.kind}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def cumsum(a, dim, dtype=None):
    a = as_tensor(a)
    x = a.array if dtype is None else a.array.astype(dtypes.to_np(dtype))
    d = _wrap_dim(int(dim), x.ndim)
    out = aten_cumsum(x, d) if x.ndim else x.copy()
    if out.dtype.kind in "bi":
        out = out.astype(np.int64)
    return _CUMSUM.record(out, (a,), fargs=(d,))


def cumsum_backward(g: Tensor, d: int) -> Tensor:
    """PyTorch's cumsum_backward: the reversed cumulative sum of the gradient."""
    if not g.array.ndim:
        return g
    return flip(cumsum(flip(g, d), d), d)


def sum_to_shape(g: Tensor, shape) -> Tensor:
    """Undo broadcasting: sum `g` down to `shape` (differentiable, so it records under
    create_graph). The only place in the engine that reduces broadcast gradients."""
    if g.array.shape == shape:
        return g
    if not shape:  # PyTorch's sum_to: a 0-dim target is the full sum (SumBackward0)
        return sum(g)
    lead = g.array.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and g.array.shape[i + lead] != 1
    )
    if dims:
        g = sum(g, dims, keepdim=True)
    if g.array.shape != tuple(shape):
        g = reshape(g, tuple(shape))
    assert g.array.shape == tuple(shape), (g.array.shape, shape)
    return g


# the FunctionsManual helpers the rows' formulas call (looked up in rows.TENSOR_NS)
rows.helpers(
    tensor={
        "sum": sum,
        "sum_to_shape": sum_to_shape,
        **{
            f.__name__: f
            for f in (sum_backward, mean_backward, prod_backward, cumsum_backward, cumprod_backward)
        },
    }
)

# --- the rows: per op PyTorch's node, its args (what the node keeps) and per input the
# gradient formula (calling the helpers above) and the vector-Jacobian product an
# explanation shows -------------------------------------------------------------------------

_DIM, _KEEPDIM = ("dim", None), ("keepdim", False)
_UNREDUCE = "(grad if keepdim else grad.unsqueeze(dim))"  # grad with the reduced dim back
_RESULT_BACK = "(result if keepdim else result.unsqueeze(dim))"


_SIZES = ("self_sym_sizes", None)  # the input's shape (PyTorch saves it, not the input)
_SUM = rows.text_row(
    "sum",
    "SumBackward0",
    ("grad.expand_as(self)",),
    args=(_SIZES,),
    formulas=(lambda grad, self, result, self_sym_sizes: sum_backward(grad, self_sym_sizes, None, False),),
)
_SUM_DIM = rows.text_row(
    "sum.dim_IntList",
    "SumBackward1",
    (f"{_UNREDUCE}.expand_as(self)",),
    args=(_DIM, _KEEPDIM, _SIZES),
    formulas=(
        lambda grad, self, result, dim, keepdim, self_sym_sizes: sum_backward(
            grad, self_sym_sizes, dim, keepdim
        ),
    ),
)
_MEAN = rows.text_row(
    "mean",
    "MeanBackward0",
    ("grad.expand_as(self) / self.numel()",),
    args=(_SIZES,),
    formulas=(lambda grad, self, result, self_sym_sizes: mean_backward(grad, self_sym_sizes, None, False),),
)
_MEAN_DIM = rows.text_row(
    "mean.dim",
    "MeanBackward1",
    (f"{_UNREDUCE}.expand_as(self) / self.shape[dim]",),
    args=(_DIM, _KEEPDIM, _SIZES),
    formulas=(
        lambda grad, self, result, dim, keepdim, self_sym_sizes: mean_backward(
            grad, self_sym_sizes, dim, keepdim
        ),
    ),
)
_PROD = rows.text_row(
    "prod",
    "ProdBackward0",
    ("grad * result / self",),
    saves=("self", "result"),
    formulas=(lambda grad, self, result: prod_backward(grad, self, result, None, False),),
)
_PROD_DIM = rows.text_row(
    "prod.dim_int",
    "ProdBackward1",
    (f"{_UNREDUCE} * {_RESULT_BACK} / self",),
    saves=("self", "result"),
    args=(_DIM, _KEEPDIM),
    formulas=(lambda grad, self, result, dim, keepdim: prod_backward(grad, self, result, dim, keepdim),),
)
_CUMSUM = rows.text_row(
    "cumsum",
    "CumsumBackward0",
    ("grad.flip(dim).cumsum(dim).flip(dim)",),
    args=(_DIM,),
    formulas=(lambda grad, self, result, dim: cumsum_backward(grad, dim),),
)
_CUMPROD = rows.text_row(
    "cumprod",
    "CumprodBackward0",
    ("(result * grad).flip(dim).cumsum(dim).flip(dim) / self",),
    saves=("self", "result"),
    args=(_DIM,),
    formulas=(lambda grad, self, result, dim: cumprod_backward(grad, self, dim, result),),
)

expose(sum, _SUM, _SUM_DIM, names=("sum",))
expose(mean, _MEAN, _MEAN_DIM, names=("mean",))
expose(prod, _PROD, _PROD_DIM, names=("prod",))
expose(cumsum, _CUMSUM, names=("cumsum",))
