"""Binary arithmetic, comparisons and selection: one function per op, forward + grad_fn
name + saved tensors + backward formula together. Backward formulas use Tensor ops, so
they record under create_graph and higher derivatives come free.

The scalar lane: when every operand is a 0-d float64 tensor or a Python number, an op
computes on Python floats (IEEE arithmetic, bitwise what numpy gives) and records with
`record_scalar`, adding the same formula on floats (`_f...` functions) that the engine
runs without create_graph. Where Python would raise (a zero divisor) the op takes the
ordinary path."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes, errors
from ..function import CONST, F64, OUT, as_tensor, record, record_scalar
from ..tensor import Tensor

_EXACT = 2 ** 53  # Python ints up to this convert to float64 exactly


def _lane(a, b):
    """The scalar lane's operands (a's float, b's float, b as an input: the Tensor or None
    for a Python number) when `a` is a 0-d float64 Tensor and `b` one too or a Python
    float/int; else None."""
    if a.__class__ is not Tensor:
        return None
    d = a.data_
    if d.dtype is not F64 or d.ndim:
        return None
    tb = b.__class__
    if tb is float:
        return float(d), b, None
    if tb is Tensor:
        e = b.data_
        if e.dtype is F64 and not e.ndim:
            return float(d), float(e), b
        return None
    if tb is int and -_EXACT <= b <= _EXACT:
        return float(d), float(b), None
    return None


# the lane's backward formulas: (g, *fargs) -> one gradient per input; and the ordinary
# formulas for lane nodes, which get the saved tensors and then the fargs. The first three
# serve as both (g is a float or a Tensor alike).
def _add_grads(g, *_):
    return g, g


def _sub_grads(g, *_):
    return g, -g


def _neg_grads(g, *_):  # neg, and rsub with a number
    return (-g,)


def _fmul(g, x, y):
    return g * y, g * x


def _fmul_c(g, c):
    return g * c, None


def _fdiv(g, x, y):
    return g / y, -g * x / (y * y)


def _fdiv_c(g, c):
    return g / c, None


def _mul_c_backward(g, _k, c):
    return g * c, None


def _mul_backward(g, q, p, *_):  # saved (other, self): PyTorch checks other first
    return g * q, g * p


def _mul_backward_other(g, p, *_):
    return None, g * p


def _mul_backward_self(g, q, *_):
    return g * q, None


def _div_c_backward(g, _k, c):
    return g / c, None


def _div_backward(g, p, q, *_):
    return g / q, -g * p / (q * q)


def _div_backward_other(g, p, q, *_):
    return None, -g * p / (q * q)


def _div_backward_self(g, q, *_):
    return g / q, None


def _operands(a, b):
    """Both operands as Tensors in the promoted dtype, plus the result dtype."""
    if type(a) is Tensor:  # fast paths: same dtypes, or a float tensor and a Python number
        da = a.data_.dtype
        tb = type(b)
        if tb is Tensor:
            if b.data_.dtype is da:
                return a, b, da
        elif (tb is float or tb is int) and da.kind == "f":
            return a, Tensor(np.array(b, da)), da
    rd = dtypes.result_type(a, b)
    if rd is None:
        raise errors.TorchTypeError(
            f"unsupported operand type(s): '{type(a).__name__}' and '{type(b).__name__}'")
    ta = a if isinstance(a, Tensor) else as_tensor(a, rd)
    tb = b if isinstance(b, Tensor) else as_tensor(b, rd)
    return ta, tb, rd


def _data(t, rd):
    d = t.data_
    return d if rd is None or d.dtype == rd else d.astype(rd)


def _broadcast_check(fn, x, y, rd):
    try:
        return fn(_data(x, rd), _data(y, rd))
    except ValueError:
        raise errors.broadcast_error(x.data_.shape, y.data_.shape) from None


def _scalar(x):
    return not isinstance(x, Tensor)


def add(a, b, alpha=1):
    if alpha == 1:
        lane = _lane(a, b)
        if lane is not None:
            return record_scalar("AddBackward0", lane[0] + lane[1], (a, lane[2]), _add_grads,
                                 (), _add_grads, ())
    x, y, rd = _operands(a, b)
    if alpha != 1:
        out = _broadcast_check(lambda p, q: p + alpha * q, x, y, rd)
        return record("AddBackward0", out, (x, None if _scalar(b) else y),
                      lambda g: (g, g * alpha))
    out = _broadcast_check(np.add, x, y, rd)
    return record("AddBackward0", out, (x, None if _scalar(b) else y), lambda g: (g, g))


def radd(a, b):
    """`2 + a`: PyTorch still lists the tensor first."""
    return add(a, b)


def sub(a, b, alpha=1):
    if alpha == 1:
        lane = _lane(a, b)
        if lane is not None:
            return record_scalar("SubBackward0", lane[0] - lane[1], (a, lane[2]), _sub_grads,
                                 (), _sub_grads, ())
    x, y, rd = _operands(a, b)
    if rd == np.bool_:
        raise errors.TorchRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead.")
    out = _broadcast_check(lambda p, q: p - alpha * q if alpha != 1 else p - q, x, y, rd)
    return record("SubBackward0", out, (x, None if _scalar(b) else y),
                  lambda g: (g, -g if alpha == 1 else g * -alpha))


def rsub(a, c, alpha=1):
    """`torch.rsub(a, c)` = c - alpha*a: RsubBackward1 with a single input for a Python
    number c, RsubBackward0 over (a, c) for a tensor c."""
    if alpha == 1:
        lane = _lane(a, c)
        if lane is not None and lane[2] is None:
            return record_scalar("RsubBackward1", lane[1] - lane[0], (a,), _neg_grads, (),
                                 _neg_grads, ())
    x, y, rd = _operands(a, c)
    out = _broadcast_check(lambda p, q: q - alpha * p if alpha != 1 else q - p, x, y, rd)
    if _scalar(c):
        return record("RsubBackward1", out, (x,), lambda g: (-g if alpha == 1 else g * -alpha,))
    return record("RsubBackward0", out, (x, y),
                  lambda g: (-g if alpha == 1 else g * -alpha, g))


def mul(a, b):
    lane = _lane(a, b)
    if lane is not None:
        p, q, bt = lane
        if bt is None:
            return record_scalar("MulBackward0", p * q, (a, None), _mul_c_backward, (CONST,),
                                 _fmul_c, (q,))
        # PyTorch saves `other` if self requires grad, and `self` if other does
        if a.requires_grad_flag:
            if bt.requires_grad_flag:
                return record_scalar("MulBackward0", p * q, (a, bt), _mul_backward, (bt, a),
                                     _fmul, (p, q))
            return record_scalar("MulBackward0", p * q, (a, bt), _mul_backward_self, (bt,),
                                 _fmul, (p, q))
        return record_scalar("MulBackward0", p * q, (a, bt), _mul_backward_other, (a,),
                             _fmul, (p, q))
    x, y, rd = _operands(a, b)
    out = _broadcast_check(np.multiply, x, y, rd)
    yy = None if _scalar(b) else y
    if x.requires_grad_flag and (yy is not None and yy.requires_grad_flag):
        return record("MulBackward0", out, (x, yy), _mul_backward, (y, x))
    if yy is not None and yy.requires_grad_flag:
        return record("MulBackward0", out, (x, yy), lambda g, p: (None, g * p), (x,))
    return record("MulBackward0", out, (x, yy), lambda g, q: (g * q, None), (y,))


def mul_scalar(a, s):
    """Tensor.mul(Scalar) as PyTorch's formulas use it: MulBackward1, one input."""
    out = a.data_ * s
    return record("MulBackward1", out.astype(a.data_.dtype, copy=False), (a,),
                  lambda g: (mul_scalar(g, s),))


def div(a, b, rounding_mode=None):
    lane = _lane(a, b) if rounding_mode is None else None
    if lane is not None and lane[1] * lane[1] != 0.0:  # no zero divisor in either formula
        p, q, bt = lane
        if bt is None:
            return record_scalar("DivBackward0", p / q, (a, None), _div_c_backward, (CONST,),
                                 _fdiv_c, (q,))
        if bt.requires_grad_flag:
            return record_scalar("DivBackward0", p / q, (a, bt),
                                 _div_backward if a.requires_grad_flag else _div_backward_other,
                                 (a, bt), _fdiv, (p, q))
        return record_scalar("DivBackward0", p / q, (a, bt), _div_backward_self, (bt,),
                             _fdiv, (p, q))
    x, y, rd = _operands(a, b)
    if rd.kind != "f" and rounding_mode is None:
        rd = dtypes.default_float()
    if rounding_mode is not None:
        fn = np.floor_divide if rounding_mode == "floor" else (lambda p, q: np.trunc(p / q))
        out = _broadcast_check(fn, x, y, rd)
        return record("DivBackward2", out, (x, None if _scalar(b) else y),
                      lambda g: (g * 0, None))
    out = _broadcast_check(np.true_divide, x, y, rd)
    yy = None if _scalar(b) else y
    if yy is not None and yy.requires_grad_flag:
        if x.requires_grad_flag:
            return record("DivBackward0", out, (x, yy),
                          lambda g, p, q: (g / q, -g * p / (q * q)), (x, y))
        return record("DivBackward0", out, (x, yy),
                      lambda g, p, q: (None, -g * p / (q * q)), (x, y))
    return record("DivBackward0", out, (x, yy), lambda g, q: (g / q, None), (y,))


def rdiv(a, c):
    """`c / a` for a Python number c: PyTorch computes `c * a.reciprocal()`."""
    from .unary import reciprocal
    return mul(reciprocal(a), c)


def neg(a):
    if a.__class__ is Tensor:
        d = a.data_
        if d.dtype is F64 and not d.ndim:  # the scalar lane
            return record_scalar("NegBackward0", -float(d), (a,), _neg_grads, (), _neg_grads, ())
    a = as_tensor(a)
    if a.data_.dtype == np.bool_:
        raise errors.TorchRuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return record("NegBackward0", np.negative(a.data_), (a,), lambda g: (-g,))


def pos(a):
    return a


def _power(x, y):
    """np.power, with PyTorch's rule for integer negative exponents: 1 for a base of 1,
    +-1 for -1, else 0 (numpy refuses them)."""
    if x.dtype.kind in "iu" and np.dtype(y.dtype).kind in "iu":
        neg = np.asarray(y < 0)
        if neg.any():
            ones = np.where(y % 2 == 0, 1, -1)
            alt = np.where(x == 1, 1, np.where(x == -1, ones, 0))
            return np.where(neg, alt, np.power(x, np.where(neg, 0, y))).astype(x.dtype)
    return np.power(x, y)


def pow(a, b):
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        return _pow_scalar_exponent(a, b)
    if not isinstance(a, Tensor):
        return _pow_scalar_base(a, b)
    x, y, rd = _operands(a, b)
    out = _broadcast_check(_power, x, y, rd)

    def backward(g, p, q, r):
        # PyTorch's pow_backward_self / pow_backward_exponent
        from .unary import log
        ga = gb = None
        if p.requires_grad_flag:
            ga = where(q == 0.0, 0.0, g * (q * pow(p, q - 1)))
        if q.requires_grad_flag:
            gb = g * where((p == 0) & (q >= 0), 0.0, r * log(p))
        return ga, gb

    return record("PowBackward1", out, (x, y), backward, (x, y, OUT))


def _fpow(g, x, e):
    if e == 2:
        return (g * (x * 2.0),)  # pow(x, 1.0) is x exactly
    if e == 0:
        return (0.0,)
    return (g * (float(np.power(x, e - 1.0)) * e),)


def _pow_backward(g, p, x, e):
    # PyTorch's pow_backward: zeros for a zero exponent, else g * (e * p^(e-1))
    if e == 0:
        return (Tensor(np.zeros_like(p.data_)),)
    return (g * mul_scalar(pow(p, float(e) - 1), e),)


def _pow_scalar_exponent(a, e):
    te = e.__class__
    if (te is float or te is int) and a.__class__ is Tensor:
        d = a.data_
        if d.dtype is F64 and not d.ndim and -_EXACT <= e <= _EXACT:  # the scalar lane
            x = float(d)
            value = x * x if e == 2 else np.power(d, np.asarray(e, dtype=F64))
            return record_scalar("PowBackward0", value, (a,), _pow_backward, (a,), _fpow, (x, e))
    if isinstance(e, bool):
        e = int(e)
    da = a.data_.dtype
    rd = da if da.kind == "f" and e.__class__ in (float, int) else dtypes.result_type(a, e)
    if a.data_.dtype.kind in "iub" and isinstance(e, int) and e < 0:
        raise errors.TorchRuntimeError("Integers to negative integer powers are not allowed.")
    out = np.power(a.data_.astype(rd, copy=False), np.asarray(e, dtype=rd))

    def backward(g, p):
        # PyTorch's pow_backward: zeros for a zero exponent, else g * (e * p^(e-1))
        if e == 0:
            return (Tensor(np.zeros_like(p.data_)),)
        return (g * mul_scalar(pow(p, float(e) - 1), e),)

    return record("PowBackward0", out, (a,), backward, (a,))


def _pow_scalar_base(c, a):
    rd = dtypes.result_type(c, a)
    out = _power(np.asarray(c, dtype=rd), a.data_.astype(rd, copy=False))

    def backward(g, e, r):
        # PyTorch's pow_backward_exponent for a scalar base: g * (r * log(c)), masked to 0
        # where c == 0 and the exponent is >= 0
        log_c = math.log(c) if c > 0 else (float("-inf") if c == 0 else float("nan"))
        if c == 0:
            return (g * where(e >= 0, 0.0, mul_scalar(r, log_c)),)
        return (g * mul_scalar(r, log_c),)

    # PowBackward2 saves the exponent and the result (an in-place op on either fails it)
    return record("PowBackward2", out, (a,), backward, (a, OUT))


def square(a):
    return _pow_scalar_exponent(as_tensor(a), 2)


def _compare(fn):
    def op(a, b):
        x, y, rd = _operands(a, b)
        return Tensor(_broadcast_check(fn, x, y, rd))
    return op


lt = _compare(np.less)
le = _compare(np.less_equal)
gt = _compare(np.greater)
ge = _compare(np.greater_equal)
eq = _compare(np.equal)
ne = _compare(np.not_equal)


def logical_and(a, b):
    x, y, _ = _operands(a, b)
    return Tensor(_broadcast_check(np.logical_and, x, y, None))


def logical_or(a, b):
    x, y, _ = _operands(a, b)
    return Tensor(_broadcast_check(np.logical_or, x, y, None))


def logical_not(a):
    return Tensor(np.logical_not(as_tensor(a).data_))


def _tie_split(name, better):
    fname = name[:7].lower()  # maximum / minimum

    def op(a, b, _method=False):
        # torch.maximum(input, other) and Tensor.maximum(other) take Tensors only
        for v, arg, pos in ((a, "input", 1), (b, "other", 1 if _method else 2)):
            if not isinstance(v, Tensor):
                raise errors.TorchTypeError(
                    f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}")
        x, y, rd = _operands(a, b)
        out = _broadcast_check(better, x, y, rd)

        def backward(g, p, q):
            from .arithmetic import where
            tie = p == q
            half = g / 2
            wins = better(p.data_, q.data_) == p.data_
            ga = where(tie, half, where(Tensor(wins & (p.data_ != q.data_)), g, 0.0))
            gb = where(tie, half, where(Tensor(~wins & (p.data_ != q.data_)), g, 0.0))
            return ga, gb
        return record(name, out, (x, y), backward, (x, y))
    return op


maximum = _tie_split("MaximumBackward0", np.maximum)
minimum = _tie_split("MinimumBackward0", np.minimum)


def maximum_method(self, other):
    return maximum(self, other, _method=True)


def minimum_method(self, other):
    return minimum(self, other, _method=True)


def atan2(a, b):
    x, y, rd = _operands(a, b)
    if rd.kind != "f":
        rd = dtypes.default_float()
    out = _broadcast_check(np.arctan2, x, y, rd)

    def backward(g, p, q):
        # PyTorch's atan2_backward: recip = (self*self + other*other).reciprocal(), with
        # its infinities (the origin) set to 0 in place (MaskedFillBackward0). Under
        # create_graph the reciprocal's derivative there is -0 * inf = nan, as in PyTorch.
        from .unary import reciprocal
        recip = reciprocal(p * p + q * q)
        recip = _atan2_masked_fill_zero(recip, np.isinf(recip.data_))
        return g * q * recip, g * -p * recip
    return record("Atan2Backward0", out, (x, y), backward, (x, y))


def _atan2_masked_fill_zero(t, mask):
    """t.masked_fill(mask, 0) (MaskedFillBackward0, whose gradient is the same op on the
    incoming gradient), for atan2's backward formula."""
    data = np.where(mask, np.zeros((), dtype=t.data_.dtype), t.data_)
    return record("MaskedFillBackward0", data, (t,),
                  lambda g: (_atan2_masked_fill_zero(g, mask),))


def where(cond, a, b):
    cond = as_tensor(cond)
    if cond.data_.dtype != np.bool_:
        raise errors.TorchRuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{errors.dtype_scalar_name(cond.data_.dtype) if cond.data_.dtype.kind != 'f' else 'Double'}")
    x, y, rd = _operands(a, b)
    errors.broadcast_shapes(cond.data_.shape, x.data_.shape, y.data_.shape)
    out = np.where(cond.data_, _data(x, rd), _data(y, rd))

    def backward(g, c):
        zero = Tensor(np.zeros((), dtype=g.data_.dtype))
        return where(c, g, zero), where(c, zero, g)

    # PyTorch saves the condition (so a second backward without retain_graph raises)
    return record("WhereBackward0", out, (None if _scalar(a) else x, None if _scalar(b) else y),
                  backward, (cond,))


def clamp(a, min=None, max=None):
    a = as_tensor(a)
    if min is None and max is None:
        raise errors.TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = as_tensor(min) if min is not None else None
        hi = as_tensor(max) if max is not None else None
        errors.broadcast_shapes(*(t.data_.shape for t in (a, lo, hi) if t is not None))
        out = a.data_
        if lo is not None:
            out = np.maximum(out, lo.data_)
        if hi is not None:
            out = np.minimum(out, hi.data_)

        def backward(g, p, *bounds):
            # PyTorch's clamp_backward_min_max: the input where it lies within the bounds,
            # min where the input is below it (and min < max), max where above (or max < min)
            lo_d = None if lo is None else lo.data_
            hi_d = None if hi is None else hi.data_
            x = p.data_
            if lo_d is not None and hi_d is not None:
                m_self = (x >= lo_d) & (x <= hi_d)
                m_lo = (x < lo_d) & (lo_d < hi_d)
                m_hi = (x > hi_d) | (hi_d < lo_d)
            elif lo_d is not None:
                m_self, m_lo, m_hi = x >= lo_d, x < lo_d, None
            else:
                m_self, m_lo, m_hi = x <= hi_d, None, x > hi_d
            pick = lambda m, t: None if m is None or not t.requires_grad_flag else where(Tensor(m), g, 0.0)
            return (pick(m_self, a), None if lo is None else pick(m_lo, lo),
                    None if hi is None else pick(m_hi, hi))
        saved = tuple(t for t in (a, lo, hi) if t is not None)
        return record("ClampBackward0", out, (a, lo, hi), backward, saved)
    rd = dtypes.result_type(a, *(v for v in (min, max) if v is not None))
    out = a.data_.astype(rd, copy=False)
    if min is not None:
        out = np.maximum(out, min)
    if max is not None:
        out = np.minimum(out, max)
    out = np.asarray(out, dtype=rd)

    def backward(g, p):
        m = np.ones(p.data_.shape, dtype=bool)
        if min is not None:
            m &= p.data_ >= min
        if max is not None:
            m &= p.data_ <= max
        return (where(Tensor(m), g, 0.0),)
    return record("ClampBackward1", out, (a,), backward, (a,))


def clamp_min(a, m):
    a = as_tensor(a)
    if isinstance(m, Tensor):
        errors.broadcast_shapes(a.data_.shape, m.data_.shape)
    out = np.maximum(a.data_, m)
    return record("ClampMinBackward0", out, (a,),
                  lambda g, p: (where(Tensor(p.data_ >= m), g, 0.0),), (a,))


def clamp_max(a, m):
    a = as_tensor(a)
    if isinstance(m, Tensor):
        errors.broadcast_shapes(a.data_.shape, m.data_.shape)
    out = np.minimum(a.data_, m)
    return record("ClampMaxBackward0", out, (a,),
                  lambda g, p: (where(Tensor(p.data_ <= m), g, 0.0),), (a,))


# --- floor_divide (//) and remainder (%) --------------------------------------------------

def _not_implemented_node(op_name, out, inputs):
    """PyTorch's NotImplemented node: an op without a derivative formula; backward through
    it raises."""
    def backward(g):
        raise errors.TorchRuntimeError(f"derivative for aten::{op_name} is not implemented")
    return record("NotImplemented", out, tuple(t for t in inputs if t is not None),
                  lambda g, *_: backward(g))


def _int_zero_check(rd, y):
    if rd.kind in "iu" and not np.all(_data(y, rd)):
        raise errors.TorchRuntimeError("ZeroDivisionError")


def _divide_like(a, b, kernel, fn):
    """What floor_divide and remainder share: the promoted operands, PyTorch's refusals
    (bool inputs, unbroadcastable shapes, an integer zero divisor) and fn's result."""
    x, y, rd = _operands(a, b)
    if rd.kind == "b":
        raise errors.not_implemented(kernel, rd)
    errors.broadcast_shapes(x.data_.shape, y.data_.shape)
    _int_zero_check(rd, y)
    with np.errstate(all="ignore"):
        out = np.asarray(fn(_data(x, rd), _data(y, rd)), dtype=rd)
    return x, y, out


def floor_divide(a, b):
    """torch.floor_divide / `a // b`: the floor of the quotient (ATen's div_floor: IEEE
    results for a zero float divisor, RuntimeError for an integer one); no derivative."""
    x, y, out = _divide_like(a, b, "div_floor_cpu", np.floor_divide)
    return _not_implemented_node("floor_divide", out, (None if _scalar(a) else x, None if _scalar(b) else y))


def _remainder_np(p, q):
    if p.dtype.kind == "f":  # ATen: fmod, moved into the divisor's sign (no copysign of 0)
        mod = np.fmod(p, q)
        fix = (mod != 0) & ((q < 0) != (mod < 0))
        return np.where(fix, mod + q, mod)
    return np.remainder(p, q)


def remainder(a, b):
    """torch.remainder / `a % b`: the remainder with the divisor's sign. RemainderBackward0
    (a Scalar divisor: the gradient passes), RemainderBackward1 (a Tensor divisor:
    -grad * self.div(other, rounding_mode='floor') for it); a Scalar dividend has no
    derivative (NotImplemented)."""
    x, y, out = _divide_like(a, b, "remainder_cpu", _remainder_np)
    if _scalar(a):
        return _not_implemented_node("remainder", out, (y,))
    if _scalar(b):
        return record("RemainderBackward0", out, (x,), lambda g: (g,))

    def backward(g, p, q):
        gq = -g * div(p, q, rounding_mode="floor") if y.requires_grad_flag else None
        return (g if x.requires_grad_flag else None), gq
    return record("RemainderBackward1", out, (x, y), backward, (x, y))
