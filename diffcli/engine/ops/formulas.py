"""The small ops PyTorch's C++ formulas are made of (its FunctionsManual.cpp), each with
its float version for the scalar lane. In C++ `x + 1` is add(Tensor, Scalar), recorded as
AddBackward1 with one input; a script's `x + 1` is AddBackward0 with a wrapped number. The
rows' formulas (rows.py) use these names so that a gradient computed under create_graph
records PyTorch's nodes."""

from __future__ import annotations

import operator

import numpy as np

from ..tensor import Tensor
from . import rows


def add_scalar(t: Tensor, c) -> Tensor:
    """Tensor + Scalar: AddBackward1, one input."""
    out = (t.array + c).astype(t.array.dtype, copy=False)
    return _ADD_SCALAR.record(out, (t,), fargs=(c,))


def sub_scalar(t: Tensor, c) -> Tensor:
    """Tensor - Scalar: SubBackward1, one input."""
    out = (t.array - c).astype(t.array.dtype, copy=False)
    return _SUB_SCALAR.record(out, (t,), fargs=(c,))


def rsub_scalar(c, t: Tensor) -> Tensor:
    """Scalar - Tensor (ATen fills a tensor with the scalar and subtracts in place):
    SubBackward0, its first input a constant: the sub row (arithmetic.py) with alpha 1."""
    out = (c - t.array).astype(t.array.dtype, copy=False)
    return rows.ROWS["sub"].record(out, (None, t), fargs=(c, 1))


def mul_scalar(t: Tensor, c) -> Tensor:
    """Tensor * Scalar: MulBackward1, one input."""
    out = t.array * c
    return _MUL_SCALAR.record(out.astype(t.array.dtype, copy=False), (t,), fargs=(c,))


def div_scalar(t: Tensor, n) -> Tensor:
    """Tensor / Scalar (mean's / numel): DivBackward1, one input."""
    out = (t.array / n if n else t.array / np.float64(0.0)).astype(t.array.dtype, copy=False)
    return _DIV_SCALAR.record(out, (t,), fargs=(n,))


def rdiv_scalar(c, t: Tensor) -> Tensor:
    """Scalar / Tensor: DivBackward0, its first input a constant (the row: arithmetic.py)."""
    out = (c / t.array).astype(t.array.dtype, copy=False)
    return rows.ROWS["div.Tensor(Scalar, Tensor)"].record(out, (None, t), fargs=(c,))


def zeros_like(t: Tensor) -> Tensor:
    """zeros_like(grad) in a formula: a constant, so it never requires grad (floor, sign...:
    +0. everywhere and no grad_fn even under create_graph, as in PyTorch)."""
    return Tensor(np.zeros_like(t.array))


rows.helpers(
    tensor={
        "add_scalar": add_scalar,
        "sub_scalar": sub_scalar,
        "rsub_scalar": rsub_scalar,
        "mul_scalar": mul_scalar,
        "div_scalar": div_scalar,
        "rdiv_scalar": rdiv_scalar,
        "zeros_like": zeros_like,
    },
    floats={
        "add_scalar": operator.add,
        "sub_scalar": operator.sub,
        "rsub_scalar": operator.sub,
        "mul_scalar": operator.mul,
        "div_scalar": operator.truediv,
        "rdiv_scalar": operator.truediv,
        "zeros_like": lambda t: 0.0,
    },
)


def _row(name, grad_fn, text, formula):
    """The row of a helper op: a Scalar overload (one input, the number an arg)."""
    return rows.register(rows.Row(name, grad_fn, grads=(rows.D(formula, text),), args=(("other", None),)))


_ADD_SCALAR = _row("add.Scalar", "AddBackward1", "1", lambda grad, self, result, other: grad)
_SUB_SCALAR = _row("sub.Scalar", "SubBackward1", "1", lambda grad, self, result, other: grad)
_MUL_SCALAR = _row(
    "mul.Scalar", "MulBackward1", "other", lambda grad, self, result, other: mul_scalar(grad, other)
)
_DIV_SCALAR = _row(
    "div.Scalar", "DivBackward1", "1 / other", lambda grad, self, result, other: div_scalar(grad, other)
)
