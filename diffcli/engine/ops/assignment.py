"""`x[key] = v`, in place, as PyTorch's set_item composes it: copy_ or fill_ on x itself
(CopyBackwards, FillBackward3), into a view of x (CopySlices), or index_put_
(IndexPutBackward0)."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from . import shape as S
from .formulas import zeros_like
from .indexing import (
    _INDEX_PUT,
    _check_zero_dim,
    _expand_ellipsis,
    _normalize_key,
    _whole_slice,
    check_masks,
    region_backward,
)
from .inplace import check_inplace, commit_inplace


def _setitem_kind(shape, key, nkey):
    """How PyTorch's set_item writes `x[key]`: returns (advanced, view). The key's basic
    part (ints, slices, None) picks `sliced`, a view unless every slice covers its dim
    (`view`); then either the value is copied into it (copy_to) or, when the key has
    list/tensor/mask/bool parts (`advanced`), index_put_ writes it."""
    ndim = len(shape)
    if not isinstance(key, tuple) and not isinstance(nkey[0], np.ndarray):
        k = nkey[0]  # set_item's shortcuts for a lone index
        if k is Ellipsis:
            return False, False
        if k is None or k is True:
            return False, True  # x.unsqueeze(0)
        if ndim == 0:
            _check_zero_dim(k)
        if isinstance(k, int):
            if not -shape[0] <= k < shape[0]:
                raise errors.TorchIndexError(
                    f"index {k} is out of bounds for dimension 0 with size {shape[0]}"
                )
            return False, True
        if k.step is not None and k.step <= 0:
            raise errors.TorchValueError("step must be greater than zero")
        return False, not _whole_slice(k, shape[0])
    nkey, positions = _expand_ellipsis(nkey, ndim)
    advanced = view = False
    src = 0  # the dim of `shape` the next index consumes
    for k, pos in zip(nkey, positions):
        if k is None:
            view = True
        elif isinstance(k, bool):
            view = advanced = True
        elif isinstance(k, int):
            size = shape[src]
            if not -size <= k < size:
                raise errors.TorchIndexError(
                    f"index {k} is out of bounds for dimension {pos} with size {size}"
                )
            view = True
            src += 1
        elif isinstance(k, np.ndarray):
            advanced = True
            src += k.ndim if k.dtype == np.bool_ else 1
        else:
            if k.step is not None and k.step <= 0:
                raise errors.TorchValueError("step must be greater than zero")
            view = view or not _whole_slice(k, shape[src])
            src += 1
    return advanced, view


def _strip_leading_ones(v: Tensor) -> Tensor:
    """PyTorch's `value.view(slicePrefix1sSize(value.sizes()))` (ViewBackward0)."""
    shape = v.array.shape
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return S.view(v, shape[i:])


def _copy_source(v: Tensor, shape):
    """PyTorch's copy_to(dst, src): (source, fill). The same shape is copied as it is, a
    0-d value fills; anything else is viewed without its leading 1s and expanded to the
    destination's shape, with expand's errors."""
    if v.array.shape == shape:
        return v, False
    if v.array.ndim == 0:
        return v, True
    src = _strip_leading_ones(v)
    if src.array.shape != shape:
        src = S.expand(src, *shape)
    return src, False


def _value_tensor(value, dtype) -> Tensor:
    """PyTorch's valueToTensor: a Tensor as it is, a Python number in the target's dtype."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)):
        return as_tensor(value, dtype)
    raise errors.TorchTypeError(f"can't assign a {type(value).__name__} to a {errors.torch_type_name(dtype)}")


def setitem(a, key, value):
    """x[key] = value, in place, composed the way PyTorch's set_item does it:

    - a key that leaves the whole tensor (`x[...]`, `x[:]`, `x[0:n]`): copy_ or, for a 0-d
      value, fill_ on x itself -- CopyBackwards / FillBackward3;
    - ints, slices, None (a view of x): copy_/fill_ into the view -- CopySlices;
    - lists, tensors, masks: index_put_ -- IndexPutBackward0 on x itself, CopySlices
      when the key's basic part took a view first.

    A value of another shape is viewed without its leading 1s (ViewBackward0) and, for a
    copy, expanded (ExpandBackward0), so those nodes undo the broadcast. The backward is
    written in Tensor ops (differentiable under create_graph): the old value's gradient is
    g with the written region zeroed, the value's is g[key] (summed for a fill). CopySlices
    and IndexPutBackward0 keep the region as a saved tensor, so, as in PyTorch, a second
    backward through them without retain_graph raises."""
    a = as_tensor(a)
    dtype = a.array.dtype
    v = _value_tensor(value, dtype)
    if key is False:  # PyTorch does nothing
        return a
    nkey = _normalize_key(key)
    advanced, view = _setitem_kind(a.array.shape, key, nkey)
    check_masks(a.array.shape, nkey)
    try:
        region = a.array[nkey]
    except IndexError as e:
        raise errors.TorchIndexError(str(e).replace("axis", "dimension")) from None
    if advanced:
        check_inplace(a, view=view)
        if v.array.dtype != dtype:
            raise errors.TorchRuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{errors.dtype_scalar_name(dtype)} for the destination and "
                f"{errors.dtype_scalar_name(v.array.dtype)} for the source."
            )
        src = _strip_leading_ones(v) if v.array.ndim and v.array.shape[0] == 1 else v
        fill = False
        try:
            np.broadcast_to(src.array, region.shape)
        except ValueError:
            raise errors.TorchRuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, src.array.shape))}] "
                f"cannot be broadcast to indexing result of shape [{', '.join(map(str, region.shape))}]"
            ) from None
    else:
        src, fill = _copy_source(v, region.shape)
        check_inplace(a, view=view)
    new = a.array.copy()
    new[nkey] = src.array.astype(dtype, copy=False)
    old = Tensor(a.array)  # the history before the write: a's grad_fn or accumulator
    old.grad_fn, old.needs_grad = a.grad_fn, a.needs_grad
    old._accumulator = a._accumulator
    inputs = (old, src)
    if dtype.kind != "f":  # an integer or bool tensor records no history
        res = Tensor(new)
    elif not advanced and not view:
        res = (_FILL_TENSOR if fill else _COPY).record(new, inputs)
    else:
        mask = np.zeros(a.array.shape, dtype=bool)
        mask[nkey] = True
        row = _INDEX_PUT if advanced and not view else _COPY_SLICES
        res = row.record(new, inputs, fargs=(key, Tensor(mask), fill))
    commit_inplace(a, res)
    return a


# --- the rows: per node PyTorch's name and, per input, the vector-Jacobian product an
# explanation shows -------------------------------------------------------------------

_COPY = rows.text_row(
    "copy_",
    "CopyBackwards",
    ("0", "grad"),
    inputs=("self", "src"),
    formulas=(lambda grad, self, src, result: zeros_like(grad), lambda grad, self, src, result: grad),
    eager=True,  # (both, whichever requires grad: as diffcli has computed them)
)
_FILL_TENSOR = rows.ROWS["fill_.Tensor"]  # (x[...] = 0-dim v is fill_(v): inplace.py's row)
_COPY_SLICES = rows.text_row(
    "copy_.view",
    "CopySlices",
    ("where(region, 0.0, grad)", "grad[key]"),
    inputs=("self", "src"),
    args=(("key", None), ("region", None), ("fill", False)),
    saves=("region",),  # (so a second backward without retain_graph raises, as in PyTorch)
    joint=lambda grad, self, src, result, key, region, fill, needs: region_backward(grad, key, region, fill),
)

# (Tensor.__setitem__ in table.py)
setitem.rows = (_COPY, _FILL_TENSOR, _INDEX_PUT, _COPY_SLICES, rows.ROWS["view"], rows.ROWS["expand"])
