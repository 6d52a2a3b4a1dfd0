"""tril / triu (TrilBackward0 / TriuBackward0): the lower / upper triangle of the last two
dims, from `diagonal` on; the gradient is the same triangle of the incoming gradient."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from . import rows
from .rows import expose


def _triangle(name, a, diagonal, keep):
    a = as_tensor(a)
    x = a.array
    if x.ndim < 2:
        raise errors.TorchRuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return a, keep(x, int(diagonal))


def tril(a, diagonal=0):
    a, out = _triangle("tril", a, diagonal, np.tril)
    return _TRIL.record(out, (a,), fargs=(int(diagonal),))


def triu(a, diagonal=0):
    a, out = _triangle("triu", a, diagonal, np.triu)
    return _TRIU.record(out, (a,), fargs=(int(diagonal),))


_TRIL = rows.text_row(
    "tril",
    "TrilBackward0",
    ("grad.tril(diagonal)",),
    args=(("diagonal", 0),),
    formulas=(lambda grad, self, result, diagonal: tril(grad, diagonal),),
)
_TRIU = rows.text_row(
    "triu",
    "TriuBackward0",
    ("grad.triu(diagonal)",),
    args=(("diagonal", 0),),
    formulas=(lambda grad, self, result, diagonal: triu(grad, diagonal),),
)

expose(tril, _TRIL, names=("tril",), inplace=True)
expose(triu, _TRIU, names=("triu",), inplace=True)
rows.helpers(tensor={"tril": tril, "triu": triu})
