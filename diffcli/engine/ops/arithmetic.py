"""Binary arithmetic: one row per op (rows.py), plus the dispatchers that pick a row by
operand kind as PyTorch's overloads do (`pow(Tensor, Scalar)` is PowBackward0,
`pow(Tensor, Tensor)` PowBackward1, `pow(Scalar, Tensor)` PowBackward2).

A row whose `lane` is an expression (`"self * other"`) is in the scalar lane: when every
operand is a 0-d float64 tensor or a Python number the op computes on Python floats
(bitwise what numpy gives) and its formulas run on floats too (elementwise.py)."""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import errors, promotion
from ..function import as_tensor, record
from ..tensor import Tensor
from . import rows
from .elementwise import binary, broadcast_check, data, operands, unary
from .formulas import add_scalar, mul_scalar, zeros_like
from .rows import D, Kink, Row, expose
from .selection import where

# A formula takes `grad, self, other, result` (and the row's args); its names are looked
# up in rows.TENSOR_NS / FLOAT_NS (`pow` there is this module's pow, `log` unary's), not
# in this module, hence:
# ruff: noqa: F821


def _arith(name, grad_fn, forward, self_grad, other_grad, saves=(), **kw):
    """A two-input row (`self`, `other`) whose integer operands keep their dtype."""
    kw.setdefault("keeps_dtype", True)
    kw.setdefault("names", (name,))
    number = kw.pop("number", "edge")
    return binary(
        Row(
            name,
            grad_fn,
            forward,
            inputs=("self", "other"),
            grads=(D(*self_grad), D(*other_grad)),
            saves=saves,
            **kw,
        ),
        number,
    )


def _is_bool(v):
    return v.array.dtype == np.bool_ if isinstance(v, Tensor) else type(v) is bool


def _no_bool_sub(a, b, rd):
    """PyTorch's sub_check, on the operands as given (a Python bool is a bool operand)."""
    if _is_bool(a) and _is_bool(b):
        raise errors.TorchRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if _is_bool(a) or _is_bool(b):
        raise errors.TorchRuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


ALPHA = (("alpha", 1),)

add = _arith(
    "add",
    "AddBackward0",
    lambda p, q, alpha: p + q if alpha == 1 else p + alpha * q,
    (lambda grad, self, other, result, alpha: grad, "1"),
    (lambda grad, self, other, result, alpha: grad if alpha == 1 else grad * alpha, "alpha"),
    args=ALPHA,
    lane=operator.add,
    inplace=True,
    eager=True,
)
sub = _arith(
    "sub",
    "SubBackward0",
    lambda p, q, alpha: p - q if alpha == 1 else p - alpha * q,
    (lambda grad, self, other, result, alpha: grad, "1"),
    (lambda grad, self, other, result, alpha: -grad if alpha == 1 else grad * -alpha, "-alpha"),
    args=ALPHA,
    lane=operator.sub,
    check=_no_bool_sub,
    names=("sub", "subtract"),
    inplace=True,
    eager=True,
)
mul = _arith(
    "mul",
    "MulBackward0",
    np.multiply,
    (lambda grad, self, other, result: grad * other, "other"),
    (lambda grad, self, other, result: grad * self, "self"),
    saves=("other", "self"),
    lane=operator.mul,
    names=("mul", "multiply"),
    inplace=True,
)
div_ = _arith(
    "div.Tensor",
    "DivBackward0",
    np.true_divide,
    (lambda grad, self, other, result: grad / other, "1 / other"),
    (lambda grad, self, other, result: -grad * ((self / other) / other), "-self / other**2"),
    saves=("self", "other"),
    lane=operator.truediv,
    keeps_dtype=False,
    names=(),
)
# Scalar / Tensor inside a formula (formulas.rdiv_scalar): div.Tensor's formulas, its
# self a constant whose value travels in fargs, so the node saves `other` alone
rows.register(
    Row(
        "div.Tensor(Scalar, Tensor)",
        "DivBackward0",
        inputs=("self", "other"),
        grads=div_.row.grads,
        saves=("other",),
    )
)
_div_mode = _arith(
    "div.Tensor_mode",
    "DivBackward2",
    lambda p, q, rounding_mode: np.floor_divide(p, q) if rounding_mode == "floor" else np.trunc(p / q),
    (lambda grad, self, other, result, rounding_mode: grad * 0, "0"),
    (lambda grad, self, other, result, rounding_mode: grad * 0, "0"),
    args=(("rounding_mode", None),),
    names=(),
    kink=Kink(
        "self / other is an integer (a jump; with rounding_mode='trunc' except at 0)",
        lambda self, other, rounding_mode, **_: _quotient_is_integer(self, other, rounding_mode == "trunc"),
        "0",
    ),
)


def _quotient_is_integer(p, q, but_zero=False):
    with np.errstate(all="ignore"):
        r = np.true_divide(p, q)
    at = np.isfinite(r) & (np.floor(r) == r)
    return at & (r != 0) if but_zero else at


def div(a, b, rounding_mode=None):
    """a / b (DivBackward0), or with `rounding_mode` ('floor', 'trunc') DivBackward2."""
    if rounding_mode is None:
        return div_(a, b)
    return _div_mode(a, b, rounding_mode)


expose(div, div_.row, _div_mode.row, names=("div", "divide", "true_divide"), inplace=True)

_rsub_tensor = _arith(
    "rsub.Tensor",
    "RsubBackward0",
    lambda p, q, alpha: q - p if alpha == 1 else q - alpha * p,
    (lambda grad, self, other, result, alpha: -grad if alpha == 1 else grad * -alpha, "-alpha"),
    (lambda grad, self, other, result, alpha: grad, "1"),
    args=ALPHA,
    number=None,
    names=(),
    eager=True,
)


def _rsub_scalar_kernel(a, other, alpha):
    x, y, rd = operands(a, other)
    return broadcast_check(lambda p, q: q - alpha * p if alpha != 1 else q - p, x, y, rd)


_rsub_scalar = unary(
    Row(
        "rsub.Scalar",
        "RsubBackward1",
        None,
        grads=(D(lambda grad, self, result, other, alpha: -grad if alpha == 1 else grad * -alpha, "-alpha"),),
        args=(("other", 0), ("alpha", 1)),
        kernel=_rsub_scalar_kernel,
        lane=lambda x, c: c - x,
    )
)


def rsub(a, c, alpha=1):
    """`torch.rsub(a, c)` = c - alpha*a: RsubBackward1 with a single input for a Python
    number c, RsubBackward0 over (a, c) for a tensor c."""
    _no_bool_sub(c, a, None)
    if isinstance(c, Tensor):
        return _rsub_tensor(a, c, alpha)
    return _rsub_scalar(a, c, alpha)


expose(rsub, _rsub_tensor.row, _rsub_scalar.row, names=("rsub",), method=False)


def _no_bool_neg(a):
    if a.dtype == np.bool_:
        raise errors.TorchRuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return np.negative(a)


neg = unary(
    Row(
        "neg",
        "NegBackward0",
        _no_bool_neg,
        grads=(D(lambda grad, self, result: -grad, "-1"),),
        lane=operator.neg,
        keeps_dtype=True,
        names=("neg", "negative"),
        inplace=True,
    )
)


# --- pow ---------------------------------------------------------------------------------


def power(x, y):
    """np.power, with PyTorch's rule for integer negative exponents: 1 for a base of 1,
    +-1 for -1, else 0 (numpy refuses them)."""
    if x.dtype.kind in "iu" and np.dtype(y.dtype).kind in "iu":
        neg = np.asarray(y < 0)
        if neg.any():
            ones = np.where(y % 2 == 0, 1, -1)
            alt = np.where(x == 1, 1, np.where(x == -1, ones, 0))
            return np.where(neg, alt, np.power(x, np.where(neg, 0, y))).astype(x.dtype)
    return np.power(x, y)


def _pow_float(x, e):
    """pow(float, number) on the scalar lane, as the op computes it on a 0-d tensor (x^1
    is x exactly, x^2 is x * x: no numpy call for the common cases)."""
    if e == 2:
        return x * x
    if e == 1:
        return x
    return float(np.power(x, e))


def _pow_scalar_kernel(a, e):
    da = a.array.dtype
    rd = da if da.kind == "f" and e.__class__ in (float, int) else promotion.result_type(a, e)
    if isinstance(e, bool):
        if rd == np.bool_:  # bool ** True is the tensor, bool ** False ones (PyTorch's pow_out)
            return a.array.copy() if e else np.ones_like(a.array)
        e = int(e)
    if da.kind in "iub" and isinstance(e, int) and e < 0:
        raise errors.TorchRuntimeError("Integers to negative integer powers are not allowed.")
    return np.power(a.array.astype(rd, copy=False), np.asarray(e, dtype=rd))


rows.helpers(tensor={}, floats={"pow": _pow_float})
# PyTorch's pow_backward: zeros for a zero exponent, else grad * (exponent * self^(exponent-1))
_pow_scalar = unary(
    Row(
        "pow.Tensor_Scalar",
        "PowBackward0",
        None,
        grads=(
            D(
                lambda grad, self, result, exponent: (
                    zeros_like(self)
                    if exponent == 0
                    else grad * mul_scalar(pow(self, exponent - 1.0), exponent)
                ),
                "exponent * self**(exponent - 1)",
            ),
        ),
        saves=("self",),
        args=(("exponent", 2),),
        kernel=_pow_scalar_kernel,
        lane=_pow_float,
    )
)
# pow_backward_self / pow_backward_exponent
_pow_tensor = _arith(
    "pow.Tensor_Tensor",
    "PowBackward1",
    power,
    (
        lambda grad, self, other, result: where(other == 0.0, 0.0, grad * (other * pow(self, other - 1))),
        "other * self**(other - 1)",
    ),
    (
        lambda grad, self, other, result: grad * where((self == 0) & (other >= 0), 0.0, result * log(self)),
        "self**other * log(self)",
    ),
    saves=("self", "other", "result"),
    number=None,
    names=(),
    no_kernel=("pow", "b"),  # bool ** bool: PyTorch's pow has no Bool kernel
)


def _log_number(c):
    return math.log(c) if c > 0 else (float("-inf") if c == 0 else float("nan"))


def _pow_base_kernel(a, c):
    rd = promotion.result_type(c, a)
    if rd == np.bool_:
        raise errors.not_implemented("pow", rd)
    return power(np.asarray(c, dtype=rd), a.array.astype(rd, copy=False))


rows.helpers(tensor={"log_number": _log_number})
# pow_backward_exponent for a Number base: grad * (result * log(self)), masked to 0 where
# self == 0 and the exponent is >= 0. It saves the exponent and the result.
_pow_base = unary(
    Row(
        "pow.Scalar",
        "PowBackward2",
        None,
        inputs=("exponent",),
        grads=(
            D(
                lambda grad, exponent, result, self: (
                    grad * where(exponent >= 0, 0.0, mul_scalar(result, log_number(self)))
                    if self == 0
                    else grad * mul_scalar(result, log_number(self))
                ),
                "self**exponent * log(self)",
            ),
        ),
        saves=("exponent", "result"),
        args=(("self", 2.0),),
        kernel=_pow_base_kernel,
    )
)


def pow(a, b):
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        r = _pow_scalar.lane(a, b)  # (the row's lane, called here: `y ** 2` is the hottest pow)
        if r is not None:
            return r
        return _pow_scalar(a, b)
    if not isinstance(a, Tensor):
        if not isinstance(b, Tensor):  # (the script layer words it as torch's parser does)
            raise errors.TorchTypeError("pow(): expected a Tensor as self or exponent")
        return _pow_base(b, a)
    return _pow_tensor(a, b)


def square(a):
    return _pow_scalar(as_tensor(a), 2)


expose(pow, _pow_scalar.row, _pow_tensor.row, _pow_base.row, names=("pow",), inplace=True)
expose(square, _pow_scalar.row, names=("square",), inplace=True)
rows.helpers(tensor={"pow": pow, "div": div})
del where  # (the formulas' `where` is TENSOR_NS's)


# --- floor_divide (//) and remainder (%) --------------------------------------------------


def _not_implemented_node(op_name, out, inputs):
    """PyTorch's NotImplemented node: an op without a derivative formula; backward through
    it raises."""

    def backward(g):
        raise errors.TorchRuntimeError(f"derivative for aten::{op_name} is not implemented")

    return record("NotImplemented", out, tuple(t for t in inputs if t is not None), lambda g, *_: backward(g))


def _int_zero_check(rd, y):
    if rd.kind in "iu" and not np.all(data(y, rd)):
        raise errors.TorchRuntimeError("ZeroDivisionError")


def _divide_like(a, b, kernel, fn):
    """What floor_divide and remainder share: the promoted operands, PyTorch's refusals
    (bool inputs, unbroadcastable shapes, an integer zero divisor) and fn's result."""
    x, y, rd = operands(a, b)
    errors.broadcast_shapes(x.array.shape, y.array.shape)  # (before the kernel, as TensorIterator)
    if rd.kind == "b":
        raise errors.not_implemented(kernel, rd)
    _int_zero_check(rd, y)
    out = np.asarray(fn(data(x, rd), data(y, rd)), dtype=rd)
    return x, y, out


def floor_divide(a, b):
    """torch.floor_divide / `a // b`: the floor of the quotient (ATen's div_floor: IEEE
    results for a zero float divisor, RuntimeError for an integer one); no derivative."""
    x, y, out = _divide_like(a, b, "div_floor_cpu", np.floor_divide)
    return _not_implemented_node("floor_divide", out, (None if _number(a) else x, None if _number(b) else y))


def _remainder_np(p, q):
    if p.dtype.kind == "f":  # ATen: fmod, moved into the divisor's sign (no copysign of 0)
        mod = np.fmod(p, q)
        fix = (mod != 0) & ((q < 0) != (mod < 0))
        return np.where(fix, mod + q, mod)
    return np.remainder(p, q)


def _number(x):
    return not isinstance(x, Tensor)


_remainder_scalar = unary(
    Row(
        "remainder.Scalar",
        "RemainderBackward0",
        None,
        grads=(D(lambda grad, self, result, other: grad, "1"),),
        args=(("other", 1),),
        kink=Kink(
            "self / other is an integer (a jump)",
            lambda self, other, **_: _quotient_is_integer(self, other),
            "1",
        ),
        kernel=lambda a, b: _divide_like(a, b, "remainder_cpu", _remainder_np)[2],
    )
)
_remainder_tensor = _arith(
    "remainder.Tensor",
    "RemainderBackward1",
    None,
    (lambda grad, self, other, result: grad, "1"),
    (
        lambda grad, self, other, result: -grad * div(self, other, rounding_mode="floor"),
        "-floor(self / other)",
    ),
    saves=("self", "other"),
    kernel=lambda x, y, rd: _divide_like(x, y, "remainder_cpu", _remainder_np)[2],
    number=None,
    names=(),
    kink=Kink(
        "self / other is an integer (a jump)", lambda self, other, **_: _quotient_is_integer(self, other), "1"
    ),
)


def remainder(a, b):
    """torch.remainder / `a % b`: the remainder with the divisor's sign. RemainderBackward0
    (a Scalar divisor: the gradient passes), RemainderBackward1 (a Tensor divisor:
    -grad * self.div(other, rounding_mode='floor') for it); a Scalar dividend has no
    derivative (NotImplemented)."""
    if _number(a):
        _, y, out = _divide_like(a, b, "remainder_cpu", _remainder_np)
        return _not_implemented_node("remainder", out, (y,))
    if _number(b):
        return _remainder_scalar(a, b)
    return _remainder_tensor(a, b)


expose(remainder, _remainder_scalar.row, _remainder_tensor.row, names=("remainder",))
expose(floor_divide, names=("floor_divide",))
del zeros_like, add_scalar, mul_scalar
