"""More elementwise ops, one row each: exp2 (Exp2Backward0), erfc (ErfcBackward0), frac
(FracBackward0), sgn (SgnBackward0; on real tensors sign), nan_to_num (NanToNumBackward0: no gradient at
the replaced values), fmod (FmodBackward0 for a number divisor, FmodBackward1 for a
tensor), and heaviside (no derivative: PyTorch's NotImplemented node)."""

from __future__ import annotations

import math

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from .arithmetic import _arith, _divide_like, _not_implemented_node, _number, _quotient_is_integer
from .elementwise import unary
from .formulas import mul_scalar
from .predicates import isfinite
from .rows import D, Kink, Row, expose
from .unary import JUMP_SIGN, JUMP_TRUNC, _row, _sign, _zero
from .unary_backward import LN2

# the formulas' names (div, ...) are looked up in rows.TENSOR_NS:
# ruff: noqa: F821

exp2 = _row(
    "exp2",
    "Exp2Backward0",
    np.exp2,
    lambda grad, self, result: mul_scalar(grad * result, LN2),
    "exp2(self) * log(2)",
    ("result",),
    inplace=True,
)
_erfc_vec = np.vectorize(math.erfc, otypes=[np.float64])


def _erfc(x):
    """The C library's erfc (PyTorch's CPU kernel), rounded to x's dtype."""
    return _erfc_vec(x).astype(x.dtype, copy=False)


erfc = _row(
    "erfc",
    "ErfcBackward0",
    _erfc,
    lambda grad, self, result: mul_scalar(exp(-pow(self, 2)), -TWO_OVER_SQRT_PI) * grad,
    "-2 / sqrt(pi) * exp(-self**2)",
    ("self",),
    lane=math.erfc,
    inplace=True,
)
frac = _row(
    "frac",
    "FracBackward0",
    lambda x: x - np.trunc(x),
    lambda grad, self, result: grad,
    "1",
    kink=Kink("self is a nonzero integer (a jump)", JUMP_TRUNC.where, "1"),
    keeps_dtype=True,
    no_kernel=("frac_cpu", "biu"),
    inplace=True,
)
sgn = _row("sgn", "SgnBackward0", _sign, _zero, "0", kink=JUMP_SIGN, keeps_dtype=True, inplace=True)


def _nan_to_num_kernel(a, nan, posinf, neginf):
    x = a.array
    if x.dtype.kind != "f":
        return x.copy()
    info = np.finfo(x.dtype)
    return np.nan_to_num(
        x,
        nan=0.0 if nan is None else nan,
        posinf=info.max if posinf is None else posinf,
        neginf=info.min if neginf is None else neginf,
    )


nan_to_num = _row(
    "nan_to_num",
    "NanToNumBackward0",
    None,
    lambda grad, self, result, nan, posinf, neginf: grad * isfinite(self),
    "isfinite(self)",
    ("self",),
    args=(("nan", None), ("posinf", None), ("neginf", None)),
    kernel=_nan_to_num_kernel,
    keeps_dtype=True,
    inplace=True,
)
rows.helpers(tensor={"isfinite": isfinite})


def _fmod_np(p, q):
    return np.fmod(p, q)


_FMOD_JUMP = Kink(
    "self / other is a nonzero integer (a jump)",
    lambda self, other, **_: _quotient_is_integer(self, other, but_zero=True),
    "1",
)
_fmod_scalar = unary(
    Row(
        "fmod.Scalar",
        "FmodBackward0",
        None,
        grads=(D(lambda grad, self, result, other: grad, "1"),),
        args=(("other", 1),),
        kink=_FMOD_JUMP,
        kernel=lambda a, b: _divide_like(a, b, "fmod_cpu", _fmod_np)[2],
    )
)
_fmod_tensor = _arith(
    "fmod.Tensor",
    "FmodBackward1",
    None,
    (lambda grad, self, other, result: grad, "1"),
    (
        lambda grad, self, other, result: -grad * div(self, other, rounding_mode="trunc"),
        "-trunc(self / other)",
    ),
    saves=("self", "other"),
    kernel=lambda x, y, rd: _divide_like(x, y, "fmod_cpu", _fmod_np)[2],
    number=None,
    names=(),
    kink=_FMOD_JUMP,
)


def fmod(a, b):
    """torch.fmod: the remainder with the dividend's sign (C's fmod). FmodBackward0 (a
    number divisor), FmodBackward1 (a tensor divisor)."""
    if _number(b):
        return _fmod_scalar(a, b)
    return _fmod_tensor(a, b)


def heaviside(a, values):
    """0 below zero, 1 above, `values` at zero; no derivative (NotImplemented)."""
    a = as_tensor(a)
    if not isinstance(values, Tensor):
        raise errors.TorchTypeError(
            f"heaviside(): argument 'values' (position 1) must be Tensor, not {type(values).__name__}"
        )
    x, v = a.array, values.array
    if x.dtype != v.dtype:
        raise errors.TorchRuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    shape = errors.broadcast_shapes(x.shape, v.shape)
    out = np.broadcast_to(np.where(x == 0, v, (x > 0).astype(x.dtype)), shape).astype(x.dtype)
    return _not_implemented_node("heaviside", out, (a, values))


expose(fmod, _fmod_scalar.row, _fmod_tensor.row, names=("fmod",), inplace=True)
expose(heaviside, names=("heaviside",))
