"""gather, scatter and scatter_add (`x.gather(1, idx)`, `x.scatter(1, idx, src)`,
`x.scatter(1, idx, 0.5)`, `x.scatter_add(0, idx, src)`, and their in-place `scatter_`,
`scatter_add_`): GatherBackward0, ScatterBackward0/1, ScatterAddBackward0. The gradients
are each other, as in PyTorch's derivatives.yaml: a scatter's source gets
`grad.gather(dim, index)`, a gather's input `zeros.scatter_add(dim, index, grad)`.
max(dim)'s and sort's gradient (`scatter_to`) is a scatter into zeros, as PyTorch's
value_selecting_reduction_backward is."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import rows
from .rows import expose


def _index(fname, index, kinds="int32/int64") -> np.ndarray:
    """The index tensor's values (PyTorch refuses a float or bool index)."""
    arr = index.array if isinstance(index, Tensor) else np.asarray(index)
    if arr.dtype not in (np.int64, np.int32):
        raise errors.TorchRuntimeError(f"{fname}(): Expected dtype {kinds} for index")
    return arr.astype(np.int64, copy=False)


def _key(idx: np.ndarray, d: int) -> tuple:
    """The numpy key that reads, along dim `d`, the elements `idx` names (the other dims:
    the index's own positions)."""
    grid = np.indices(idx.shape, sparse=True)
    return tuple(idx if k == d else grid[k] for k in range(idx.ndim))


def _bounds(idx: np.ndarray, d: int, n: int) -> None:
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        v = int(idx[bad].reshape(-1)[0])
        raise errors.TorchRuntimeError(f"index {v} is out of bounds for dimension {d} with size {n}")


def _prepare(fname, x: np.ndarray, dim, index, src_shape=None):
    """(d, idx, key) for a gather/scatter of `x`; the checks and messages of ATen's
    scatter_gather_dtype_check / gather_shape_check / scatter_shape_check."""
    idx = _index(fname if fname == "gather" else "scatter", index)
    d = _wrap_dim(int(dim), x.ndim)
    if max(idx.ndim, 1) != max(x.ndim, 1):
        what = "input" if fname == "gather" else "self"
        raise errors.TorchRuntimeError(
            f"Index tensor must have the same number of dimensions as {what} tensor"
        )
    shape = x.shape if x.ndim else (1,)
    idx = idx.reshape(idx.shape if idx.ndim else (1,))
    too_big = any(i > s for k, (i, s) in enumerate(zip(idx.shape, shape)) if k != d)
    if src_shape is not None:
        src = src_shape if len(src_shape) else (1,)
        if too_big or any(i > s for i, s in zip(idx.shape, src)):
            raise errors.TorchRuntimeError(
                f"Expected index {list(idx.shape)} to be no larger than self {list(x.shape)} apart from "
                f"dimension {d} and to be no larger size than src {list(src_shape)}"
            )
    elif too_big:
        k = next(k for k, (i, s) in enumerate(zip(idx.shape, shape)) if k != d and i > s)
        raise errors.TorchRuntimeError(
            f"Size does not match at dimension {k} expected index {list(idx.shape)} to be no larger "
            f"than self {list(x.shape)} apart from dimension {d}"
        )
    if idx.size:
        _bounds(idx, d, shape[d])
    return d, idx, _key(idx, d)


def _src_values(src: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The source's elements a scatter writes: its leading corner of the index's shape."""
    s = src.reshape(src.shape if src.ndim else (1,))
    return s[tuple(slice(0, n) for n in idx.shape)]


def _same_dtype(fname, x, src):
    if src.array.dtype != x.dtype:
        raise errors.TorchRuntimeError(f"{fname}(): Expected self.dtype to be equal to src.dtype")


def gather(a, dim, index, sparse_grad=False):
    """torch.gather: out[i][j] = a[i][index[i][j]] along `dim` (GatherBackward0)."""
    a = as_tensor(a)
    x = a.array
    index = index if isinstance(index, Tensor) else Tensor(np.asarray(index))
    d, idx, key = _prepare("gather", x, dim, index)
    flat = x.reshape(x.shape if x.ndim else (1,))
    out = np.array(flat[key], copy=True).reshape(index.array.shape)
    return _GATHER.record(out, (a,), fargs=(d, index, bool(sparse_grad)))


def scatter(a, dim, index, src=None, value=None, reduce=None):
    """torch.scatter: a copy of `a` with `src`'s elements (or `value`) written at `index`
    along `dim`: ScatterBackward0 (a src tensor) or ScatterBackward1 (a number)."""
    a = as_tensor(a)
    x = a.array
    if reduce is not None:
        raise errors.TorchNotImplementedError(
            "scatter(reduce=...) is not supported by diffcli; use scatter_add"
        )
    if src is None:
        src = value
    if src is None:
        raise errors.TorchTypeError('scatter() missing 1 required positional arguments: "src"')
    index = index if isinstance(index, Tensor) else Tensor(np.asarray(index))
    if isinstance(src, Tensor):
        d, idx, key = _prepare("scatter", x, dim, index, src.array.shape)
        _same_dtype("scatter", x, src)
        out = x.reshape(x.shape if x.ndim else (1,)).copy()
        out[key] = _src_values(src.array, idx)
        return _SCATTER.record(out.reshape(x.shape), (a, src), fargs=(d, index))
    d, idx, key = _prepare("scatter", x, dim, index)
    out = x.reshape(x.shape if x.ndim else (1,)).copy()
    out[key] = np.asarray(src).astype(x.dtype)
    return _SCATTER_VALUE.record(out.reshape(x.shape), (a,), fargs=(d, index, src))


def scatter_add(a, dim, index, src):
    """torch.scatter_add: `a` plus `src`'s elements summed in at `index` along `dim`
    (ScatterAddBackward0)."""
    a = as_tensor(a)
    x = a.array
    if not isinstance(src, Tensor):
        raise errors.TorchTypeError(
            f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}"
        )
    index = index if isinstance(index, Tensor) else Tensor(np.asarray(index))
    d, idx, key = _prepare("scatter", x, dim, index, src.array.shape)
    _same_dtype("scatter_add", x, src)
    out = x.reshape(x.shape if x.ndim else (1,)).copy()
    np.add.at(out, key, _src_values(src.array, idx))
    return _SCATTER_ADD.record(out.reshape(x.shape), (a, src), fargs=(d, index))


def gather_backward(g: Tensor, self: Tensor, dim, index) -> Tensor:
    """PyTorch's gather_backward: the gradient summed into zeros of the input's shape
    (`grad.new_zeros(self.sizes()).scatter_add_(dim, index, grad)`)."""
    zeros = Tensor(np.zeros(self.array.shape, dtype=g.array.dtype))
    return scatter_add(zeros, dim, index, g)


def scatter_to(g: Tensor, shape, dim, idx) -> Tensor:
    """A zero tensor of `shape` with `g` written at `idx` along `dim` (max/min's and
    sort's gradient, PyTorch's value_selecting_reduction_backward): ScatterBackward0, its
    first edge the zeros' (None)."""
    zeros = Tensor(np.zeros(shape, dtype=g.array.dtype))
    return scatter(zeros, dim, Tensor(np.asarray(idx, dtype=np.int64)), g)


# --- the rows (derivatives.yaml: gather, scatter.src, scatter.value, scatter_add) ----------

_GATHER = rows.text_row(
    "gather",
    "GatherBackward0",
    ("zeros_like(self).scatter_add(dim, index, grad)",),
    args=(("dim", None), ("index", None), ("sparse_grad", False)),
    saves=("index", "self"),
    formulas=(lambda grad, self, result, dim, index, sparse_grad: gather_backward(grad, self, dim, index),),
)
_SCATTER = rows.text_row(
    "scatter.src",
    "ScatterBackward0",
    ("grad.scatter(dim, index, 0)", "grad.gather(dim, index)"),
    inputs=("self", "src"),
    args=(("dim", None), ("index", None)),
    saves=("index",),
    formulas=(
        lambda grad, self, src, result, dim, index: scatter(grad, dim, index, 0),
        lambda grad, self, src, result, dim, index: gather(grad, dim, index),
    ),
)
_SCATTER_VALUE = rows.text_row(
    "scatter.value",
    "ScatterBackward1",
    ("grad.scatter(dim, index, 0)",),
    args=(("dim", None), ("index", None), ("value", None)),
    saves=("index",),
    formulas=(lambda grad, self, result, dim, index, value: scatter(grad, dim, index, 0),),
)
_SCATTER_ADD = rows.text_row(
    "scatter_add",
    "ScatterAddBackward0",
    ("grad", "grad.gather(dim, index)"),
    inputs=("self", "src"),
    args=(("dim", None), ("index", None)),
    saves=("index",),
    formulas=(
        lambda grad, self, src, result, dim, index: grad,
        lambda grad, self, src, result, dim, index: gather(grad, dim, index),
    ),
)

expose(gather, _GATHER, names=("gather",))
expose(scatter, _SCATTER, _SCATTER_VALUE, names=("scatter",), inplace=True)
expose(scatter_add, _SCATTER_ADD, names=("scatter_add",), inplace=True)
rows.helpers(tensor={f.__name__: f for f in (gather, scatter, scatter_add, gather_backward, scatter_to)})
