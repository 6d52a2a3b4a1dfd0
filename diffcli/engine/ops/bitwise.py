"""Bitwise ops: `&`, `|` and `~` of a tensor are PyTorch's bitwise_and, bitwise_or and
bitwise_not (not the logical ops): integer and bool dtypes only, promoted as arithmetic
is (`tensor(True) & 3` is int64), no gradient. `^` stays the power of the script language."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor
from .elementwise import broadcast_check, check_kernel, operands


def _bitwise(name, fn):
    kernel = (f"{name}_cpu", "fc")

    def op(a, b):
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            raise errors.TorchTypeError(
                f"{name}() received an invalid combination of arguments - got "
                f"({type(a).__name__}, {type(b).__name__})"
            )
        x, y, rd = operands(a, b)
        check_kernel(kernel, rd)
        return Tensor(np.asarray(broadcast_check(fn, x, y, rd)).astype(rd, copy=False))

    op.__name__ = name
    return op


bitwise_and = _bitwise("bitwise_and", np.bitwise_and)
bitwise_or = _bitwise("bitwise_or", np.bitwise_or)
bitwise_xor = _bitwise("bitwise_xor", np.bitwise_xor)


def bitwise_not(a):
    x = as_tensor(a).array
    check_kernel(("bitwise_not_cpu", "fc"), x.dtype)
    return Tensor(np.asarray(np.invert(x)))


def invert(a):
    """`~a` (operator.invert): PyTorch refuses it on a float tensor in its own words."""
    if a.array.dtype.kind in "fc":
        raise errors.TorchTypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return bitwise_not(a)


BITWISE = {
    "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or,
    "bitwise_xor": bitwise_xor,
    "bitwise_not": bitwise_not,
}
