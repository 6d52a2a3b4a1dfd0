"""dtype conversions (ToCopyBackward0), detach, and the CopyBackwards node that a leaf's
.grad carries after backward(create_graph=True)."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from .rows import expose


def to_dtype(a, dtype):
    a = as_tensor(a)
    d = dtypes.to_np(dtype)
    if a.array.dtype == d:
        return a
    out = a.array.astype(d)
    if d.kind != "f":
        return Tensor(out)
    return _TO.record(out, (a,), fargs=(d, a.array.dtype))


def to(a, *args, dtype=None, **kwargs):
    for x in args:
        if isinstance(x, dtypes.DType):
            dtype = x
    if dtype is None:
        return a
    return to_dtype(a, dtype)


def double(a):
    return to_dtype(a, np.float64)


def float_(a):
    return to_dtype(a, np.float32)


def long(a):
    return to_dtype(a, np.int64)


def int_(a):
    return to_dtype(a, np.int32)


def bool_(a):
    return to_dtype(a, np.bool_)


def detach(a):
    return as_tensor(a).detach()


def copy_backwards(g: Tensor) -> Tensor:
    """What AccumulateGrad stores on first create_graph backward: CopyBackwards(None, g)."""
    return _COPY_GRAD.record(np.array(g.array, copy=True), (None, g), fargs=(None,))  # (self: no value)


# copy_backwards' node: copy_ (assignment.py's row) onto a fresh tensor, not an input
_COPY_GRAD = rows.text_row(
    "copy_.grad",
    "CopyBackwards",
    ("0", "grad"),
    inputs=("self", "src"),
    formulas=(None, lambda grad, self, src, result: grad),
)


def type_as(a, other):
    return to_dtype(a, other.array.dtype)


# the row: ToCopyBackward0 (the gradient goes back to the input's dtype)
_TO = rows.text_row(
    "to",
    "ToCopyBackward0",
    ("grad.to(self.dtype)",),
    args=(("dtype", None), ("self_dtype", None)),  # (PyTorch saves self's options)
    formulas=(lambda grad, self, result, dtype, self_dtype: to_dtype(grad, self_dtype),),
)
rows.helpers(tensor={"to_dtype": to_dtype})
for _fn, _name in (
    (to, "to"),
    (double, "double"),
    (float_, "float"),
    (long, "long"),
    (int_, "int"),
    (bool_, "bool"),
    (type_as, "type_as"),
):
    expose(_fn, _TO, names=(_name,), function_too=False)
expose(detach, names=("detach",))
