"""index_put / index_put_ (`x.index_put_((rows, cols), values, accumulate=False)`):
IndexPutBackward0, the node `x[idx] = v` records too (assignment.py). Without accumulate
the written elements get no gradient for x, and the values get `grad[indices]`; with
accumulate (the values are added in, repeats summed) x gets the whole gradient."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from .indexing import _INDEX_PUT, index_read
from .rows import expose


def _key(indices) -> tuple:
    if not isinstance(indices, (tuple, list)):
        raise errors.TorchTypeError(
            f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, not {type(indices).__name__}"
        )
    key = []
    for t in indices:
        arr = t.array if isinstance(t, Tensor) else np.asarray(t)
        if arr.dtype.kind not in "biu":
            raise errors.TorchIndexError("tensors used as indices must be long, int, byte or bool tensors")
        key.append(arr)
    return tuple(key)


def index_put(a, indices, values, accumulate=False):
    a = as_tensor(a)
    values = as_tensor(values)
    x = a.array
    key = _key(indices)
    if values.array.dtype != x.dtype:
        raise errors.TorchRuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{errors.dtype_scalar_name(x.dtype)} for the destination and "
            f"{errors.dtype_scalar_name(values.array.dtype)} for the source."
        )
    try:
        region = x[key]
    except IndexError as e:
        raise errors.TorchIndexError(str(e).replace("axis", "dimension")) from None
    try:
        v = np.broadcast_to(values.array, region.shape)
    except ValueError:
        raise errors.TorchRuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, values.array.shape))}] "
            f"cannot be broadcast to indexing result of shape [{', '.join(map(str, region.shape))}]"
        ) from None
    out = x.copy()
    if accumulate:
        np.add.at(out, key, v)
        return _INDEX_PUT_ACC.record(out, (a, values), fargs=(key,))
    out[key] = v
    mask = np.zeros(x.shape, dtype=bool)
    mask[key] = True
    script_key = tuple(Tensor(k) for k in key)  # (the key as `x[key] = v` holds it)
    return _INDEX_PUT.record(out, (a, values), fargs=(script_key, Tensor(mask), values.array.ndim == 0))


_INDEX_PUT_ACC = rows.text_row(
    "index_put.accumulate",
    "IndexPutBackward0",
    ("grad", "grad[indices]"),
    inputs=("self", "values"),
    args=(("indices", None),),
    formulas=(
        lambda grad, self, values, result, indices: grad,
        lambda grad, self, values, result, indices: index_read(grad, indices),
    ),
)

expose(index_put, _INDEX_PUT, _INDEX_PUT_ACC, names=("index_put",), inplace=True)
