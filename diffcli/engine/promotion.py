"""PyTorch's type promotion over an op's operands, tensors and Python numbers alike (the
dtype table and the promotion of two dtypes: dtypes.py)."""

from __future__ import annotations

import numpy as np

from . import dtypes
from .tensor import Tensor


def result_type(*operands) -> np.dtype:
    """PyTorch's type promotion: dimensioned tensors > 0-d tensors > Python scalars,
    a lower group only wins when its category (bool < int < float) is higher."""
    groups = ([], [], [])
    for x in operands:
        if isinstance(x, Tensor):
            groups[0 if x.array.ndim else 1].append(x.array.dtype)
        elif isinstance(x, bool):
            groups[2].append(np.dtype(np.bool_))
        elif isinstance(x, int):
            groups[2].append(np.dtype(np.int64))
        elif isinstance(x, float):
            groups[2].append(dtypes.default_float())
    result = None
    for g in groups:
        if not g:
            continue
        d = g[0]
        for e in g[1:]:
            d = dtypes.promote(d, e)
        if result is None or dtypes.category(d) > dtypes.category(result):
            result = d
    return result
