"""The dtypes a script can name (`torch.float32`...), mapped onto numpy dtypes."""
from __future__ import annotations

import numpy as np


class DType:
    __slots__ = ("name", "np", "is_floating_point")

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"

    def __repr__(self):
        return f"torch.{self.name}"


float64 = DType("float64", np.float64)
float32 = DType("float32", np.float32)
int64 = DType("int64", np.int64)
int32 = DType("int32", np.int32)
bool_ = DType("bool", np.bool_)

DEFAULT_FLOAT = np.dtype(np.float64)

BY_NAME = {
    "float64": float64, "double": float64, "float32": float32, "float": float32,
    "int64": int64, "long": int64, "int32": int32, "int": int32, "bool": bool_,
}
_BY_NP = {d.np: d for d in (float64, float32, int64, int32, bool_)}


def of(np_dtype) -> DType:
    d = _BY_NP.get(np.dtype(np_dtype))
    if d is None:
        raise TypeError(f"unsupported dtype {np_dtype}")
    return d


def to_np(dtype) -> np.dtype:
    if dtype is None:
        return None
    if isinstance(dtype, DType):
        return dtype.np
    return np.dtype(dtype)


def category(d: np.dtype) -> int:
    return {"b": 0, "i": 1, "u": 1, "f": 2}[d.kind]


def canonical(arr: np.ndarray) -> np.ndarray:
    """Map numpy results onto the five dtypes the engine knows."""
    k = arr.dtype.kind
    if k == "f":
        return arr if arr.dtype in (np.float64, np.float32) else arr.astype(np.float64)
    if k in "iu":
        return arr if arr.dtype in (np.int64, np.int32) else arr.astype(np.int64)
    if k == "b":
        return arr
    return arr.astype(np.float64)


def promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types: a float beats any int (int64 * float32 is float32)."""
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)


def result_type(*operands) -> np.dtype:
    """PyTorch's type promotion: dimensioned tensors > 0-d tensors > Python scalars,
    a lower group only wins when its category (bool < int < float) is higher."""
    from .tensor import Tensor

    groups = ([], [], [])
    for x in operands:
        if isinstance(x, Tensor):
            groups[0 if x.data_.ndim else 1].append(x.data_.dtype)
        elif isinstance(x, bool):
            groups[2].append(np.dtype(np.bool_))
        elif isinstance(x, int):
            groups[2].append(np.dtype(np.int64))
        elif isinstance(x, float):
            groups[2].append(DEFAULT_FLOAT)
    result = None
    for g in groups:
        if not g:
            continue
        d = g[0]
        for e in g[1:]:
            d = promote(d, e)
        if result is None or category(d) > category(result):
            result = d
    return result
