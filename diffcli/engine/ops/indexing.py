"""Indexing: `x[0]` (SelectBackward0), `x[1:3]` (SliceBackward0), `x[[0, 2]]` / masks
(IndexBackward0), `x[None]` (UnsqueezeBackward0), select, narrow, unbind. (`x[key] = v`:
assignment.py.)"""

from __future__ import annotations

import numpy as np

from .. import errors, multiview
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import rows
from . import shape as S
from .rows import expose


def index_put_zeros(g: Tensor, shape, key) -> Tensor:
    """Backward of a read at `key`: g scatter-added into zeros of `shape` (IndexPutBackward0,
    whose own backward is a read at `key` again: so the gradient of a gradient of an
    indexed tensor is differentiable again, third order, forward mode by the
    double-backward trick)."""
    out = np.zeros(shape, dtype=g.array.dtype)
    np.add.at(out, key, g.array)
    return _INDEX_PUT_ZEROS.record(out, (g,), fargs=(key,))


def index_read(gg: Tensor, key) -> Tensor:
    """gg[key] (IndexBackward0): index_put_zeros's gradient, and inplace.py's read of a view."""
    return _INDEX.record(np.array(gg.array[key], copy=True), (gg,), fargs=(key, gg.array.shape))


def region_backward(g: Tensor, key, region: Tensor, fill: bool):
    """x[key] = v (CopySlices, IndexPutBackward0): the old value's gradient is g with the
    written region zeroed, the value's g[key] (summed for a fill); both, always."""
    zero = Tensor(np.zeros((), dtype=g.array.dtype))
    gv = getitem(g, key)
    return rows.ops.where(region, zero, g), rows.ops.sum(gv) if fill else gv


def _key(dim, index):
    return (slice(None),) * dim + (index,)


def select_backward(g: Tensor, shape, dim, index) -> Tensor:
    return index_put_zeros(g, shape, _key(dim, index))


def slice_backward(g: Tensor, shape, dim, start, end, step) -> Tensor:
    return index_put_zeros(g, shape, _key(dim, slice(start, end, step)))


def select(a, dim, index):
    a = as_tensor(a)
    x = a.array
    if x.ndim == 0:
        raise errors.TorchIndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if not -n <= index < n:
        raise errors.TorchIndexError(f"index {index} is out of bounds for dimension {d} with size {n}")
    # `...` keeps a 0-d result a view of x (numpy's x[0] of a 1-D array is a scalar copy)
    return S._view_of(_SELECT.record(x[_key(d, index) + (Ellipsis,)], (a,), fargs=(d, index, x.shape)), a)


def unbind(a, dim=0):
    """What iterating over a tensor gives (PyTorch's __iter__ is `iter(self.unbind(0))`):
    views along `dim` whose grad_fn is UnbindBackward0. PyTorch shares one node among
    them (one output each); here each view has its own node of that name, with the same
    next_functions and gradients."""
    a = as_tensor(a)
    x = a.array
    if x.ndim == 0:
        raise errors.TorchTypeError("iteration over a 0-d tensor")
    d = _wrap_dim(dim, x.ndim)
    views = []
    poll = errors.POLL[0]  # a million views hold a gigabyte: the memory cap
    for i in range(x.shape[d]):
        if poll is not None and not (i + 1) & 4095:
            poll()
        view = S._view_of(_UNBIND.record(x[_key(d, i) + (Ellipsis,)], (a,), fargs=(d, i, x.shape)), a)
        multiview.tag(view, i, "Unbind")  # (no in-place change while grad mode is on: multiview.py)
        views.append(view)
    return tuple(views)


def narrow(a, dim, start, length):
    x = a.array
    key = _key(dim, slice(start, start + length))
    return S._view_of(_SLICE.record(x[key], (a,), fargs=(dim, start, start + length, None, x.shape)), a)


def _normalize_key(key):
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor):
            if k.array.dtype.kind == "f":
                raise errors.TorchIndexError(
                    "tensors used as indices must be long, int, byte or bool tensors"
                )
            if k.array.ndim:
                out.append(k.array)
            else:  # a 0-d bool tensor is a bool index (a mask of one), a 0-d int one an int
                out.append(bool(k.array) if k.array.dtype == np.bool_ else int(k.array))
        elif isinstance(k, list):
            arr = np.asarray(k)
            if arr.dtype.kind == "f":
                raise errors.TorchIndexError(
                    "tensors used as indices must be long, int, byte or bool tensors"
                )
            out.append(arr)
        elif isinstance(k, bool):
            out.append(k)
        elif isinstance(k, (int, slice)) or k is None or k is Ellipsis:
            out.append(k)
        else:
            raise errors.TorchIndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                "are valid indices (got %s)" % type(k).__name__
            )
    return tuple(out)


def _check_zero_dim(key):
    """A lone int or slice on a 0-d tensor: PyTorch's select/slice errors."""
    if isinstance(key, int) and not isinstance(key, bool):
        if key != 0:  # (PyTorch's select on the 0-d tensor's one element: only 0 is "invalid")
            raise errors.TorchIndexError(f"index {key} is out of bounds for dimension 0 with size 0")
        raise errors.TorchIndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    if isinstance(key, Tensor) and key.array.dtype.kind in "iu":
        raise errors.TorchIndexError("too many indices for tensor of dimension 0")
    if isinstance(key, slice):
        raise errors.TorchIndexError("slice() cannot be applied to a 0-dim tensor.")


def _expand_ellipsis(key, ndim):
    """The key with `...` replaced by full slices, and for each item its position in the
    key as written, which PyTorch's out-of-bounds errors call its dimension."""
    n_real = sum(
        k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
        for k in key
        if k is not None and k is not Ellipsis and not isinstance(k, bool)
    )
    if n_real > ndim:
        raise errors.TorchIndexError(f"too many indices for tensor of dimension {ndim}")
    ellipses = [i for i, k in enumerate(key) if k is Ellipsis]
    if len(ellipses) > 1:
        raise errors.TorchIndexError("an index can only have a single ellipsis ('...')")
    positions = list(range(len(key)))
    if ellipses:
        i = ellipses[0]
        fill = ndim - n_real
        key = key[:i] + (slice(None),) * fill + key[i + 1 :]
        positions = positions[:i] + [i] * fill + positions[i + 1 :]
    return key, positions


def _whole_slice(k: slice, size: int) -> bool:
    """ATen's slice shortcut: [0:>=size:1] is the tensor itself, not a SliceBackward0."""
    return (k.start or 0) == 0 and (k.stop is None or k.stop >= size) and (k.step or 1) == 1


def getitem(a, key):
    """x[key] the way PyTorch's indexing composes it: a lone slice is always a
    SliceBackward0; in a tuple, ints select (SelectBackward0), None unsqueezes, slices
    that cover the whole dimension are skipped and the others slice (SliceBackward0),
    then list/tensor/mask indices apply together as one IndexBackward0. A key that
    leaves the tensor unchanged (`x[...]`, `x[:, :]`) gives an alias."""
    a = as_tensor(a)
    lone_slice = isinstance(key, slice)
    if not isinstance(key, tuple) and a.array.ndim == 0:
        _check_zero_dim(key)
    key, positions = _expand_ellipsis(_normalize_key(key), a.array.ndim)
    out = a
    dim = 0
    advanced = []  # (dim, index array) applied last
    for k, pos in zip(key, positions):
        if k is None:
            out = S.unsqueeze(out, dim)
            dim += 1
        elif isinstance(k, bool):
            out = S.unsqueeze(out, dim)
            advanced.append((dim, np.asarray([k])))
            dim += 1
        elif isinstance(k, int):
            size = out.array.shape[dim]
            if not -size <= k < size:
                raise errors.TorchIndexError(
                    f"index {k} is out of bounds for dimension {pos} with size {size}"
                )
            out = select(out, dim, k)
        elif isinstance(k, np.ndarray):
            advanced.append((dim, k))
            dim += k.ndim if k.dtype == np.bool_ else 1
        else:
            if k.step is not None and k.step <= 0:
                raise errors.TorchValueError("step must be greater than zero")
            # ATen skips a slice of a tuple key when it is literally [0:>=size:1]
            if lone_slice or not _whole_slice(k, out.array.shape[dim]):
                x = out.array
                fargs = (dim, k.start, k.stop, k.step, x.shape)
                out = S._view_of(_SLICE.record(x[_key(dim, k)], (out,), fargs=fargs), out)
            dim += 1
    if advanced:
        return _advanced(out, advanced)
    if out is a:
        out = S._view_of(_ALIAS.record(a.array[...], (a,)), a)
    return out


def _check_mask(mask, shape, d):
    """PyTorch's check of a boolean mask against the dims it indexes, from dim d."""
    for j, m in enumerate(mask.shape):
        if d + j < len(shape) and m != shape[d + j]:
            raise errors.TorchIndexError(
                f"The shape of the mask {list(mask.shape)} at index {j} does not match the shape "
                f"of the indexed tensor {list(shape)} at index {d + j}"
            )


def check_masks(shape, key) -> None:
    """The boolean masks of a (normalized) key against the dims they index, as PyTorch
    checks them (for x[key] = v; x[key] checks in _advanced)."""
    key = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, np.ndarray) and k.dtype == np.bool_ for k in key):
        return
    key, _ = _expand_ellipsis(key, len(shape))
    shape, d = list(shape), 0
    for k in key:
        if k is None or isinstance(k, bool):
            shape.insert(d, 1)
            d += 1
        elif isinstance(k, (int, np.integer)):
            del shape[d : d + 1]
        elif isinstance(k, slice):
            if d < len(shape):
                shape[d] = len(range(*k.indices(shape[d])))
            d += 1
        elif isinstance(k, np.ndarray) and k.dtype == np.bool_:
            _check_mask(k, shape, d)
            d += k.ndim
        else:
            d += 1


def _advanced(a, indices):
    """One IndexBackward0 for the list/tensor/mask indices, at their dims."""
    x = a.array
    key, dim = [], 0
    for d, k in indices:
        if k.dtype == np.bool_:
            _check_mask(k, x.shape, d)
        key += [slice(None)] * (d - dim) + [k]
        dim = d + (k.ndim if k.dtype == np.bool_ else 1)
    key = tuple(key)
    try:
        out = x[key]
    except IndexError as e:
        msg = str(e)
        if "boolean" in msg:
            raise errors.TorchIndexError(msg) from None
        raise errors.TorchIndexError(msg.replace("axis", "dimension")) from None
    return _INDEX.record(np.array(out, copy=True), (a,), fargs=(key, x.shape))


# --- the rows: per op PyTorch's node, its args and, per input, the gradient formula (the
# helpers above) and the vector-Jacobian product an explanation shows.
# x[key] is PyTorch's select/slice/index (and unsqueeze for None); x[key] = v its
# copy_/fill_/index_put_ on x or a view of it. -----------------------------------------

_SIZES = ("self_sym_sizes", None)  # the input's shape (PyTorch saves it, not the input)
_SELECT = rows.text_row(
    "select.int",
    "SelectBackward0",
    ("zeros_like(self).select_scatter(grad, dim, index)",),
    args=(("dim", None), ("index", None), _SIZES),
    formulas=(
        lambda grad, self, result, dim, index, self_sym_sizes: select_backward(
            grad, self_sym_sizes, dim, index
        ),
    ),
)
_SLICE = rows.text_row(
    "slice.Tensor",
    "SliceBackward0",
    ("zeros_like(self).slice_scatter(grad, dim, start, end, step)",),
    args=(("dim", 0), ("start", None), ("end", None), ("step", 1), _SIZES),
    formulas=(
        lambda grad, self, result, dim, start, end, step, self_sym_sizes: slice_backward(
            grad, self_sym_sizes, dim, start, end, step
        ),
    ),
)
_INDEX = rows.text_row(
    "index.Tensor",
    "IndexBackward0",
    ("zeros_like(self).index_put(indices, grad, accumulate=True)",),
    args=(("indices", None), _SIZES),
    formulas=(
        lambda grad, self, result, indices, self_sym_sizes: index_put_zeros(grad, self_sym_sizes, indices),
    ),
)
_ALIAS = rows.text_row("alias", "AliasBackward0", ("grad",), formulas=(lambda grad, self, result: grad,))
_UNBIND = rows.text_row(
    "unbind.int",
    "UnbindBackward0",
    ("stack(grads, dim)",),
    args=(("dim", 0), ("index", None), _SIZES),  # (one node per view: `index`, its place)
    formulas=(
        lambda grad, self, result, dim, index, self_sym_sizes: select_backward(
            grad, self_sym_sizes, dim, index
        ),
    ),
)
_INDEX_PUT = rows.text_row(
    "index_put",
    "IndexPutBackward0",
    ("grad.index_put(indices, 0.0)", "grad[indices]"),
    inputs=("self", "values"),
    args=(("indices", None), ("region", None), ("fill", False)),
    saves=("region",),
    # x[indices] = values (assignment.py); the node inside a read's backward (one edge,
    # the gradient's) is index_put_.accumulate's (index_put_zeros)
    joint=lambda grad, self, values, result, indices, region, fill, needs: region_backward(
        grad, indices, region, fill
    ),
)
# index_put_zeros: zeros(shape).index_put_(indices, values, accumulate=True), one edge
# (the values'; the zeros are no input): the node of IndexBackward0's formula
_INDEX_PUT_ZEROS = rows.text_row(
    "index_put_.accumulate",
    "IndexPutBackward0",
    ("grad[indices]",),
    inputs=("values",),
    args=(("indices", None),),
    formulas=(lambda grad, values, result, indices: index_read(grad, indices),),
)

expose(select, _SELECT, names=("select",))
rows.helpers(
    tensor={
        f.__name__: f
        for f in (
            select,
            narrow,
            select_backward,
            slice_backward,
            index_put_zeros,
            index_read,
            region_backward,
        )
    }
)
# (Tensor.__getitem__ in table.py: getitem carries its rows)
getitem.rows = (_SELECT, _SLICE, _INDEX, _ALIAS, rows.ROWS["unsqueeze"])
unbind.rows = (_UNBIND,)
