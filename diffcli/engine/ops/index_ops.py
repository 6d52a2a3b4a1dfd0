"""index_select, index_add, index_copy, index_fill (and their in-place `index_add_`,
`index_copy_`, `index_fill_`): IndexSelectBackward0, IndexAddBackward0,
IndexCopyBackward0, IndexFillBackward0/1. Each works on whole slices along `dim` picked
by a vector of indices; their gradients are each other, as in PyTorch's derivatives.yaml
(index_select's is an index_add into zeros, index_copy's an index_fill and an
index_select)."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import rows
from . import shape as S
from .formulas import mul_scalar
from .rows import expose


def _vector(index) -> Tensor:
    return index if isinstance(index, Tensor) else Tensor(np.asarray(index))


def _key(d: int, idx) -> tuple:
    return (slice(None),) * d + (idx,)


def _flat(x: np.ndarray) -> np.ndarray:
    return x.reshape(x.shape if x.ndim else (1,))


def index_select(a, dim, index):
    a = as_tensor(a)
    x = a.array
    index = _vector(index)
    i = index.array
    if i.dtype not in (np.int64, np.int32):
        raise errors.TorchRuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if i.ndim > 1:
        raise errors.TorchIndexError("index_select(): Index is supposed to be a vector")
    d = _wrap_dim(int(dim), x.ndim)
    n = _flat(x).shape[d]
    flat_i = i.reshape(-1)
    bad = (flat_i < 0) | (flat_i >= n)
    if bad.any():
        raise errors.TorchRuntimeError(
            f"INDICES element is out of DATA bounds, id={int(flat_i[bad][0])} axis_dim={n}"
        )
    out = np.take(_flat(x), flat_i, axis=d)
    if not x.ndim:
        out = out.reshape(i.shape)
    return _INDEX_SELECT.record(out, (a,), fargs=(d, index, x.shape))


def _check_index(fname, i: np.ndarray, d: int, n: int, kind_error, ndim_error):
    if i.dtype not in (np.int64, np.int32):
        raise kind_error
    if i.ndim > 1:
        raise ndim_error
    flat = i.reshape(-1)
    bad = (flat < -n) | (flat >= n) if fname == "index_fill" else (flat < 0) | (flat >= n)
    if bad.any():
        cls = errors.TorchIndexError if fname == "index_fill" else errors.TorchRuntimeError
        raise cls(f"index {int(flat[bad][0])} is out of bounds for dimension {d} with size {n}")
    return flat % n


def _source_checks(fname, x, d, flat, source):
    s = source.array
    if s.dtype != x.dtype:
        raise errors.TorchRuntimeError(
            f"{fname}_(): self ({errors.dtype_scalar_name(x.dtype)}) and source "
            f"({errors.dtype_scalar_name(s.dtype)}) must have the same scalar type"
        )
    count = s.shape[d] if s.ndim else 1
    if count != flat.size:
        raise errors.TorchRuntimeError(
            f"{fname}_(): Number of indices ({flat.size}) should be equal to source.size(dim): "
            f"({count}), for dim: {d}"
        )


def index_add(a, dim, index, source, alpha=1):
    """self with `source`'s slices (times alpha) added at `index` along `dim`."""
    a = as_tensor(a)
    x = a.array
    index = _vector(index)
    i = index.array
    d = _wrap_dim(int(dim), x.ndim)
    flat = _check_index(
        "index_add",
        i,
        d,
        _flat(x).shape[d],
        errors.TorchRuntimeError(
            f"index_add_(): Expected dtype int32/int64 for index but got: {errors.dtype_scalar_name(i.dtype)}"
        ),
        errors.TorchIndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {i.ndim} with type: "
            f"{errors.dtype_scalar_name(i.dtype)} and size: [{', '.join(map(str, i.shape))}]"
        ),
    )
    _source_checks("index_add", x, d, flat, source)
    s = source.array
    if s.ndim and (
        s.ndim != x.ndim or any(m != n for k, (m, n) in enumerate(zip(s.shape, x.shape)) if k != d)
    ):
        raise errors.TorchRuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = [{', '.join(map(str, x.shape))}] source.shape = [{', '.join(map(str, s.shape))}]"
        )
    out = _flat(x).copy()
    src = source.array if source.array.ndim else source.array.reshape((1,) * max(x.ndim, 1))
    np.add.at(out, _key(d, flat), src * alpha if alpha != 1 else src)
    return _INDEX_ADD.record(out.reshape(x.shape), (a, source), fargs=(d, index, alpha))


def index_copy(a, dim, index, source):
    """self with `source`'s slices written at `index` along `dim`."""
    a = as_tensor(a)
    x = a.array
    index = _vector(index)
    i = index.array
    d = _wrap_dim(int(dim), x.ndim)
    flat = _check_index(
        "index_copy",
        i,
        d,
        _flat(x).shape[d],
        errors.TorchRuntimeError(
            f"index_copy_(): Expected a long tensor for index, but got {errors.dtype_scalar_name(i.dtype)}"
        ),
        errors.TorchIndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {i.ndim})"),
    )
    s = source.array
    if s.ndim and x.ndim and s.ndim != x.ndim:
        raise errors.TorchIndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
            f"Source dimensionality ({s.ndim}), destination dimensionality ({x.ndim})"
        )
    if s.ndim == x.ndim:
        dest = [n for k, n in enumerate(x.shape) if k != d]
        src = [n for k, n in enumerate(s.shape) if k != d]
        if dest != src:
            raise errors.TorchRuntimeError(
                "index_copy_(): Source/destination tensor must have same slice shapes. "
                f"Destination slice shape: {' '.join(map(str, dest))} at dimension {d} and source slice "
                f"shape: {' '.join(map(str, src))} at dimension 0."
            )
    _source_checks("index_copy", x, d, flat, source)
    out = _flat(x).copy()
    out[_key(d, flat)] = s if s.ndim else s.reshape((1,) * max(x.ndim, 1))
    return _INDEX_COPY.record(out.reshape(x.shape), (a, source), fargs=(d, index))


def index_fill(a, dim, index, value):
    """self with the slices at `index` along `dim` set to `value` (a number, or a 0-d
    tensor: IndexFillBackward1, whose value gets the sum of those slices' gradient)."""
    a = as_tensor(a)
    x = a.array
    index = _vector(index)
    i = index.array
    d = _wrap_dim(int(dim), x.ndim)
    if isinstance(value, Tensor) and value.array.ndim:
        raise errors.TorchRuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.array.ndim} dimension(s)."
        )
    flat = _check_index(
        "index_fill",
        i,
        d,
        _flat(x).shape[d],
        errors.TorchIndexError("index_fill_(): Expected dtype int64 for index."),
        errors.TorchRuntimeError("Index has to be a vector/scalar"),
    )
    out = _flat(x).copy()
    v = value.array if isinstance(value, Tensor) else np.asarray(value)
    out[_key(d, flat)] = v.astype(x.dtype)
    out = out.reshape(x.shape)
    if isinstance(value, Tensor):
        return _INDEX_FILL_TENSOR.record(out, (a, value), fargs=(d, index))
    return _INDEX_FILL.record(out, (a,), fargs=(d, index, value))


def index_select_backward(g: Tensor, sizes, dim, index) -> Tensor:
    """PyTorch's index_select_backward: `zeros(sizes).index_add_(dim, index, grad)`."""
    return index_add(Tensor(np.zeros(sizes, dtype=g.array.dtype)), dim, index, g)


def index_add_source_backward(g: Tensor, source: Tensor, dim, index, alpha) -> Tensor:
    """derivatives.yaml's `maybe_multiply(grad.index_select(dim, index).expand_as(source),
    alpha)` (a 0-d source: the index squeezed)."""
    if source.array.ndim:
        out = S.expand(index_select(g, dim, index), *source.array.shape)
    else:
        out = index_select(g, dim, Tensor(index.array.reshape(())))
    return out if alpha == 1 else mul_scalar(out, alpha)


def index_fill_value_backward(g: Tensor, dim, index) -> Tensor:
    """`grad.index_select(dim, std::get<0>(at::_unique(index, false))).sum()`."""
    return rows.ops.sum(index_select(g, dim, Tensor(np.unique(index.array))))


# --- the rows (derivatives.yaml: index_select, index_add, index_copy, index_fill) ----------

_INDEX_SELECT = rows.text_row(
    "index_select",
    "IndexSelectBackward0",
    ("zeros(self.shape).index_add(dim, index, grad)",),
    args=(("dim", None), ("index", None), ("self_sym_sizes", None)),
    saves=("index",),
    formulas=(
        lambda grad, self, result, dim, index, self_sym_sizes: index_select_backward(
            grad, self_sym_sizes, dim, index
        ),
    ),
)
_INDEX_ADD = rows.text_row(
    "index_add",
    "IndexAddBackward0",
    ("grad", "grad.index_select(dim, index).expand_as(source) * alpha"),
    inputs=("self", "source"),
    args=(("dim", None), ("index", None), ("alpha", 1)),
    saves=("index", "source"),
    formulas=(
        lambda grad, self, source, result, dim, index, alpha: grad,
        lambda grad, self, source, result, dim, index, alpha: index_add_source_backward(
            grad, source, dim, index, alpha
        ),
    ),
)
_INDEX_COPY = rows.text_row(
    "index_copy",
    "IndexCopyBackward0",
    ("grad.index_fill(dim, index, 0)", "grad.index_select(dim, index)"),
    inputs=("self", "source"),
    args=(("dim", None), ("index", None)),
    saves=("index", "source"),
    formulas=(
        lambda grad, self, source, result, dim, index: index_fill(grad, dim, index, 0),
        lambda grad, self, source, result, dim, index: index_add_source_backward(grad, source, dim, index, 1),
    ),
)
_INDEX_FILL = rows.text_row(
    "index_fill.int_Scalar",
    "IndexFillBackward0",
    ("grad.index_fill(dim, index, 0)",),
    args=(("dim", None), ("index", None), ("value", None)),
    saves=("index",),
    formulas=(lambda grad, self, result, dim, index, value: index_fill(grad, dim, index, 0),),
)
_INDEX_FILL_TENSOR = rows.text_row(
    "index_fill.int_Tensor",
    "IndexFillBackward1",
    ("grad.index_fill(dim, index, 0)", "grad.index_select(dim, index.unique()).sum()"),
    inputs=("self", "value"),
    args=(("dim", None), ("index", None)),
    saves=("index",),
    formulas=(
        lambda grad, self, value, result, dim, index: index_fill(grad, dim, index, 0),
        lambda grad, self, value, result, dim, index: index_fill_value_backward(grad, dim, index),
    ),
)

expose(index_select, _INDEX_SELECT, names=("index_select",))
expose(index_add, _INDEX_ADD, names=("index_add",), inplace=True)
expose(index_copy, _INDEX_COPY, names=("index_copy",), inplace=True)
expose(index_fill, _INDEX_FILL, _INDEX_FILL_TENSOR, names=("index_fill",), inplace=True)
rows.helpers(
    tensor={
        f.__name__: f
        for f in (
            index_select,
            index_add,
            index_copy,
            index_fill,
            index_select_backward,
            index_add_source_backward,
            index_fill_value_backward,
        )
    }
)
