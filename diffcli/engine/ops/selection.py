"""Selection and comparison: where, the clamp family, comparisons and logical ops. The
comparisons have no gradient; where and clamp are written by hand (their bounds and
conditions are not inputs of an elementwise row) and carry their rows for the texts."""

from __future__ import annotations

import numpy as np

from .. import errors, promotion
from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from .elementwise import broadcast_check, data, operands, tensor_args
from .rows import D, Kink, Row, expose


def _number(x):
    return not isinstance(x, Tensor)


def _compare(fn):
    def op(a, b):
        x, y, rd = operands(a, b)
        return Tensor(broadcast_check(fn, x, y, rd))

    return op


lt = _compare(np.less)
le = _compare(np.less_equal)
gt = _compare(np.greater)
ge = _compare(np.greater_equal)
eq = _compare(np.equal)
ne = _compare(np.not_equal)


def logical_and(a, b):
    tensor_args("logical_and", a, b, False)  # (PyTorch has no Scalar overload)
    x, y, _ = operands(a, b)
    return Tensor(broadcast_check(np.logical_and, x, y, None))


def logical_or(a, b):
    tensor_args("logical_or", a, b, False)
    x, y, _ = operands(a, b)
    return Tensor(broadcast_check(np.logical_or, x, y, None))


def logical_not(a):
    return Tensor(np.logical_not(as_tensor(a).array))


def where(cond, a, b):
    cond = as_tensor(cond)
    if cond.array.dtype != np.bool_:
        raise errors.TorchRuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{errors.dtype_scalar_name(cond.array.dtype) if cond.array.dtype.kind != 'f' else 'Double'}"
        )
    x, y, rd = operands(a, b)
    errors.broadcast_shapes(cond.array.shape, x.array.shape, y.array.shape)
    out = np.where(cond.array, data(x, rd), data(y, rd))
    numbers = tuple(v for v in (a, b) if _number(v))
    return _WHERE.record(out, (None if _number(a) else x, None if _number(b) else y), fargs=(*numbers, cond))


def where_backward(g: Tensor, c: Tensor):
    """Both sides' gradients (always both): g where the condition picks the side, else 0."""
    zero = Tensor(np.zeros((), dtype=g.array.dtype))
    return where(c, g, zero), where(c, zero, g)


def clamp(a, min=None, max=None):
    a = as_tensor(a)
    if min is None and max is None:
        raise errors.TorchRuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        lo = as_tensor(min) if min is not None else None
        hi = as_tensor(max) if max is not None else None
        errors.broadcast_shapes(*(t.array.shape for t in (a, lo, hi) if t is not None))
        rd = promotion.result_type(*(t for t in (a, lo, hi) if t is not None))  # (0-d bounds too)
        out = a.array.astype(rd, copy=False)
        if lo is not None:
            out = np.maximum(out, lo.array.astype(rd, copy=False))
        if hi is not None:
            out = np.minimum(out, hi.array.astype(rd, copy=False))

        def backward(g, p, *bounds):
            # PyTorch's clamp_backward_min_max: the input where it lies within the bounds,
            # min where the input is below it (and min < max), max where above (or max < min)
            lo_d = None if lo is None else lo.array
            hi_d = None if hi is None else hi.array
            x = p.array
            if lo_d is not None and hi_d is not None:
                m_self = (x >= lo_d) & (x <= hi_d)
                m_lo = (x < lo_d) & (lo_d < hi_d)
                m_hi = (x > hi_d) | (hi_d < lo_d)
            elif lo_d is not None:
                m_self, m_lo, m_hi = x >= lo_d, x < lo_d, None
            else:
                m_self, m_lo, m_hi = x <= hi_d, None, x > hi_d
            pick = lambda m, t: None if m is None or not t.needs_grad else where(Tensor(m), g, 0.0)
            return (
                pick(m_self, a),
                None if lo is None else pick(m_lo, lo),
                None if hi is None else pick(m_hi, hi),
            )

        saved = tuple(t for t in (a, lo, hi) if t is not None)
        return _CLAMP.record(out, (a, lo, hi), backward, saved)
    rd = promotion.result_type(a, *(v for v in (min, max) if v is not None))
    out = a.array.astype(rd, copy=False)
    if min is not None:
        out = np.maximum(out, min)
    if max is not None:
        out = np.minimum(out, max)
    out = np.asarray(out, dtype=rd)
    return _CLAMP_SCALAR.record(out, (a,), fargs=(min, max))


def clamp_backward(g: Tensor, p: Tensor, min, max) -> Tensor:
    """PyTorch's clamp_backward: g where min <= self <= max, else 0."""
    m = np.ones(p.array.shape, dtype=bool)
    if min is not None:
        m &= p.array >= min
    if max is not None:
        m &= p.array <= max
    return where(Tensor(m), g, 0.0)


def clamp_min_backward(g: Tensor, p: Tensor, m) -> Tensor:
    return where(Tensor(p.array >= m), g, 0.0)


def clamp_max_backward(g: Tensor, p: Tensor, m) -> Tensor:
    return where(Tensor(p.array <= m), g, 0.0)


def _clamp_bound(a, m, pick, bound_row, tensor_row):
    """clamp_min / clamp_max (`pick`: np.maximum / np.minimum): a Tensor bound is an input
    too (the .Tensor overload's row); a Python number is an argument, promoted as PyTorch
    promotes it (int64 with a Python float is float32)."""
    a = as_tensor(a)
    if isinstance(m, Tensor):
        errors.broadcast_shapes(a.array.shape, m.array.shape)
        rd = promotion.result_type(a, m)
        return tensor_row.record(pick(a.array.astype(rd, copy=False), m.array.astype(rd, copy=False)), (a, m))
    rd = promotion.result_type(a, m)
    return bound_row.record(pick(a.array.astype(rd, copy=False), np.asarray(m).astype(rd)), (a,), fargs=(m,))


def clamp_min(a, m):
    return _clamp_bound(a, m, np.maximum, _CLAMP_MIN, _CLAMP_MIN_T)


def clamp_max(a, m):
    return _clamp_bound(a, m, np.minimum, _CLAMP_MAX, _CLAMP_MAX_T)


def _text_row(name, grad_fn, inputs, texts, saves=(), args=(), kink=None, formulas=(), joint=None):
    """An elementwise row (its texts are local derivatives) whose forward is written here."""
    return rows.register(
        Row(
            name,
            grad_fn,
            inputs=inputs,
            grads=tuple(D(f, t) for f, t in zip(formulas or (None,) * len(texts), texts)),
            saves=saves,
            args=args,
            kink=kink,
            joint=joint,
        )
    )


def _at_bounds(self, min=None, max=None, **_):
    at = np.zeros(np.shape(self), dtype=bool)
    if min is not None:
        at = at | (self == min)
    if max is not None:
        at = at | (self == max)
    return at


# clamp passes the gradient at its bounds (>= min, <= max); where's kink is where its
# condition flips, which its inputs do not show
_CLAMP_KINK = Kink("self == min or self == max", _at_bounds, "1")


_WHERE = _text_row(
    "where",
    "WhereBackward0",
    ("self", "other"),
    ("where(condition, 1.0, 0.0)", "where(condition, 0.0, 1.0)"),
    ("condition",),
    (("condition", None),),
    Kink(
        "where condition flips (its boundary: not seen from the inputs)",
        None,
        "1 for the side the condition picks",
    ),
    # (both sides' gradients at once, as diffcli has computed them; it saves the condition,
    # so a second backward without retain_graph raises, as in PyTorch)
    joint=lambda grad, self, other, result, condition, needs: where_backward(grad, condition),
)
_CLAMP = _text_row(
    "clamp.Tensor",
    "ClampBackward0",
    ("self", "min", "max"),
    (
        "where((self >= min) & (self <= max), 1.0, 0.0)",
        "where((self < min) & (min < max), 1.0, 0.0)",
        "where((self > max) | (max < min), 1.0, 0.0)",
    ),
    ("self", "min", "max"),
    kink=_CLAMP_KINK,
)
_CLAMP_SCALAR = _text_row(
    "clamp",
    "ClampBackward1",
    ("self",),
    ("where((self >= min) & (self <= max), 1.0, 0.0)",),
    ("self",),
    (("min", None), ("max", None)),
    _CLAMP_KINK,
    formulas=(lambda grad, self, result, min, max: clamp_backward(grad, self, min, max),),
)
_CLAMP_MIN = _text_row(
    "clamp_min",
    "ClampMinBackward0",
    ("self",),
    ("where(self >= min, 1.0, 0.0)",),
    ("self",),
    (("min", None),),
    _CLAMP_KINK,
    formulas=(lambda grad, self, result, min: clamp_min_backward(grad, self, min),),
)
_CLAMP_MAX = _text_row(
    "clamp_max",
    "ClampMaxBackward0",
    ("self",),
    ("where(self <= max, 1.0, 0.0)",),
    ("self",),
    (("max", None),),
    _CLAMP_KINK,
    formulas=(lambda grad, self, result, max: clamp_max_backward(grad, self, max),),
)


_CLAMP_MIN_T = _text_row(
    "clamp_min.Tensor",
    "ClampMinBackward1",
    ("self", "min"),
    ("where(self >= min, 1.0, 0.0)", "where(self < min, 1.0, 0.0)"),
    ("self", "min"),
    formulas=(
        lambda grad, self, min, result: where(self >= min, grad, 0.0),
        lambda grad, self, min, result: where(self < min, grad, 0.0),
    ),
)
_CLAMP_MAX_T = _text_row(
    "clamp_max.Tensor",
    "ClampMaxBackward1",
    ("self", "max"),
    ("where(self <= max, 1.0, 0.0)", "where(self > max, 1.0, 0.0)"),
    ("self", "max"),
    formulas=(
        lambda grad, self, max, result: where(self <= max, grad, 0.0),
        lambda grad, self, max, result: where(self > max, grad, 0.0),
    ),
)


def where_method(a, condition, other):
    """x.where(condition, y): torch.where(condition, x, y)."""
    return where(condition, a, other)


expose(where, _WHERE, names=("where",), method=where_method)
where_method.rows = (_WHERE,)
# clamp_(min=0) on a bool tensor: PyTorch's Scalar overloads name the output type as C does
clamp.scalar_cast_c_names = clamp_min.scalar_cast_c_names = clamp_max.scalar_cast_c_names = True
expose(clamp, _CLAMP, _CLAMP_SCALAR, names=("clamp", "clip"), inplace=True)
expose(clamp_min, _CLAMP_MIN, _CLAMP_MIN_T, names=("clamp_min",), inplace=True)
expose(clamp_max, _CLAMP_MAX, _CLAMP_MAX_T, names=("clamp_max",), inplace=True)
rows.helpers(
    tensor={
        f.__name__: f for f in (where, where_backward, clamp_backward, clamp_min_backward, clamp_max_backward)
    }
)
