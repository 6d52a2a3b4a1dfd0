"""Binary ops beside the four operations: atan2, maximum/minimum (a tie splits the
gradient), hypot and logaddexp, one row each (rows.py), made by arithmetic.py's `_arith`."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import rows
from .arithmetic import _arith
from .formulas import add_scalar
from .rows import Kink

# the formulas' names (exp, where, ...) are looked up in rows.TENSOR_NS / FLOAT_NS:
# ruff: noqa: F821


def masked_fill_zero(t, mask):
    """t.masked_fill_(mask, 0) (MaskedFillBackward0, whose gradient is the same op on the
    incoming gradient), for atan2's backward formula."""
    out = np.where(mask, np.zeros((), dtype=t.array.dtype), t.array)
    return _MASKED_FILL_.record(out, (t,), fargs=(mask,))


# (losses.py's masked_fill.Scalar row has a where() for its gradient: a node of its own)
_MASKED_FILL_ = rows.text_row(
    "masked_fill_.Scalar",
    "MaskedFillBackward0",
    ("grad.masked_fill(mask, 0.0)",),
    args=(("mask", None),),
    formulas=(lambda grad, self, result, mask: masked_fill_zero(grad, mask),),
)


def atan2_backward(g, p, q, needs):
    """PyTorch's atan2_backward: recip = (self*self + other*other).reciprocal(), with its
    infinities (the origin) set to 0 in place (MaskedFillBackward0). Under create_graph the
    reciprocal's derivative there is -0 * inf = nan, as in PyTorch."""
    recip = rows.TENSOR_NS["reciprocal"](p * p + q * q)
    recip = masked_fill_zero(recip, np.isinf(recip.array))
    return (g * q * recip if needs[0] else None), (g * -p * recip if needs[1] else None)


def tie_split_backward(g, p, q, better):
    """maximum/minimum: the gradient goes to the better operand, half to each on a tie."""
    where = rows.TENSOR_NS["where"]
    tie = p == q
    half = g / 2
    wins = better(p.array, q.array) == p.array
    ga = where(tie, half, where(Tensor(wins & (p.array != q.array)), g, 0.0))
    gb = where(tie, half, where(Tensor(~wins & (p.array != q.array)), g, 0.0))
    return ga, gb


rows.helpers(
    tensor={
        "atan2_backward": atan2_backward,
        "masked_fill_zero": masked_fill_zero,
        "tie_split_backward": tie_split_backward,
        "np_maximum": np.maximum,
        "np_minimum": np.minimum,
    }
)

atan2 = _arith(
    "atan2",
    "Atan2Backward0",
    np.arctan2,
    (None, "other / (self**2 + other**2)"),
    (None, "-self / (self**2 + other**2)"),
    saves=("self", "other"),
    joint=lambda grad, self, other, result, needs: atan2_backward(grad, self, other, needs),
    keeps_dtype=False,
    eager=True,
    kink=Kink("self == 0 and other == 0", lambda self, other, **_: (self == 0) & (other == 0), "0"),
    names=("atan2", "arctan2"),
    tensor_only=True,  # atan2(Tensor, Tensor) is its only overload
    number=None,
)
KINK_TIES = Kink(
    "self == other (a tie: the gradient is split)", lambda self, other, **_: self == other, "0.5"
)
maximum = _arith(
    "maximum",
    "MaximumBackward0",
    np.maximum,
    (None, "where(self == other, 0.5, where(self > other, 1.0, 0.0))"),
    (None, "where(self == other, 0.5, where(other > self, 1.0, 0.0))"),
    saves=("self", "other"),
    joint=lambda grad, self, other, result, needs: tie_split_backward(grad, self, other, np_maximum),
    eager=True,
    kink=KINK_TIES,
    tensor_only=True,
    number=None,
)
minimum = _arith(
    "minimum",
    "MinimumBackward0",
    np.minimum,
    (None, "where(self == other, 0.5, where(self < other, 1.0, 0.0))"),
    (None, "where(self == other, 0.5, where(other < self, 1.0, 0.0))"),
    saves=("self", "other"),
    joint=lambda grad, self, other, result, needs: tie_split_backward(grad, self, other, np_minimum),
    eager=True,
    kink=KINK_TIES,
    tensor_only=True,
    number=None,
)
maximum_method, minimum_method = maximum.method, minimum.method
hypot = _arith(
    "hypot",
    "HypotBackward0",
    np.hypot,
    (lambda grad, self, other, result: grad * self / result, "self / hypot(self, other)"),
    (lambda grad, self, other, result: grad * other / result, "other / hypot(self, other)"),
    saves=("self", "other", "result"),
    keeps_dtype=False,
    no_kernel=("hypot_cpu", "biu"),
    tensor_only=True,
    number=None,
    kink=Kink("self == 0 and other == 0", lambda self, other, **_: (self == 0) & (other == 0), "nan (0 / 0)"),
    inplace=True,
)


def _logaddexp(p, q):
    """PyTorch's kernel: max + log1p(exp(-|p - q|)), and p itself for equal infinities."""
    m = np.maximum(p, q)
    out = m + np.log1p(np.exp(-np.abs(p - q)))
    return np.where(np.isinf(p) & (p == q), p, out)


logaddexp = _arith(
    "logaddexp",
    "LogaddexpBackward0",
    _logaddexp,
    (
        lambda grad, self, other, result: grad / add_scalar(exp(other - self), 1),
        "1 / (1 + exp(other - self))",
    ),
    (
        lambda grad, self, other, result: grad / add_scalar(exp(self - other), 1),
        "1 / (1 + exp(self - other))",
    ),
    saves=("self", "other"),
    keeps_dtype=False,
    no_kernel=("logaddexp_cpu", "biu"),
    tensor_only=True,
    number=None,
)
