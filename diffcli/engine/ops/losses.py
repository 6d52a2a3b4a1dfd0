"""Loss functions with PyTorch's node structure: mse_loss and binary_cross_entropy are
single nodes; cross_entropy is nll_loss over log_softmax."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors, promotion
from ..function import as_tensor
from ..tensor import Tensor
from . import aten_nll, rows
from . import shape as S
from . import shape as _shape_rows  # noqa: F401 (the rows of the views nll_loss records)
from .cascade_sum import aten_mean, aten_sum
from .formulas import div_scalar, mul_scalar
from .loss_formulas import (
    binary_cross_entropy_backward,
    binary_cross_entropy_with_logits_backward,
    mse_loss_backward,
    nll_loss_backward,
)
from .masked import masked_fill
from .reductions import sum as tsum
from .rows import expose
from .shape import view
from .softmax import log_softmax


def _reduce(loss: np.ndarray, reduction: str):
    if reduction == "mean":
        return aten_mean(loss) if loss.size else np.asarray(np.nan, loss.dtype)
    if reduction == "sum":
        return aten_sum(loss)
    if reduction == "none":
        return loss
    raise errors.TorchValueError(f"{reduction} is not a valid value for reduction")


def mse_loss(input, target, reduction="mean"):
    a, t = as_tensor(input), as_tensor(target)
    if a.array.shape != t.array.shape:
        errors.warn(
            f"Using a target size ({t.shape}) that is different to the input size ({a.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure "
            "they have the same size."
        )
    errors.broadcast_shapes(a.array.shape, t.array.shape)
    rd = promotion.result_type(a, t)
    if rd.kind != "f":
        raise errors.not_implemented("mse_cpu", rd)
    diff = a.array - t.array
    out = _reduce(diff * diff, reduction)
    return _MSE.record(out, (a, t), fargs=(reduction,))


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    p, t = as_tensor(input), as_tensor(target)
    if p.array.shape != t.array.shape:
        raise errors.TorchValueError(
            f"Using a target size ({t.shape}) that is different to the input size ({p.shape}) is deprecated. "
            "Please ensure they have the same size."
        )
    x = p.array
    if t.array.dtype != x.dtype:
        raise errors.TorchRuntimeError(
            f"Found dtype {dtypes.scalar_name(t.array.dtype)} but expected {dtypes.scalar_name(x.dtype)}"
        )
    if x.dtype.kind != "f":
        raise errors.not_implemented("binary_cross_entropy", x.dtype)
    if ((x < 0) | (x > 1)).any():
        raise errors.TorchRuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        logp = np.maximum(np.log(x), -100.0)
        log1mp = np.maximum(np.log1p(-x), -100.0)
    loss = -(t.array * logp + (1 - t.array) * log1mp)
    if weight is not None:
        loss = loss * as_tensor(weight).array
    out = _reduce(loss, reduction)
    return _BCE.record(out, (p, t), fargs=(weight, reduction))


def _check_target_dtype(tgt: np.ndarray):
    if tgt.dtype != np.int64:
        raise errors.TorchRuntimeError(
            f"expected target dtype to be Long or Byte, but got {errors.dtype_scalar_name(tgt.dtype)}"
        )


def _nll_layout(x: np.ndarray, tgt: np.ndarray):
    """Input and target as (M, C) rows and (M,) labels, checking PyTorch's rules in its
    order (nll_loss_nd, then nll_loss's or nll_loss2d's checks, the target's dtype among
    them) for 1-D (C), 2-D (N, C) and K-dim (N, C, d1, ...) inputs."""
    if x.ndim < 1:
        raise errors.TorchValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    batch = tgt.shape[0] if tgt.ndim else 0
    if x.ndim != 1 and batch != x.shape[0]:
        raise errors.TorchValueError(
            f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({batch})."
        )
    if x.ndim <= 2:
        if tgt.ndim > 1:
            raise errors.TorchRuntimeError("0D or 1D target tensor expected, multi-target not supported")
        _check_target_dtype(tgt)
        if x.ndim == 2:
            return x, tgt
        if tgt.ndim == 1 and tgt.shape[0] != 1:
            raise errors.TorchValueError(
                f"For 1D input, 1D target must have size 1, but got target size: {tgt.shape[0]}"
            )
        return x[None, :], tgt.reshape(1)
    want = (x.shape[0],) + x.shape[2:]
    if x.ndim == 4:
        if tgt.ndim != 3:
            raise errors.TorchRuntimeError(
                "only batches of spatial targets supported (3D tensors) but got targets of "
                f"dimension: {tgt.ndim}"
            )
        _check_target_dtype(tgt)
        if tgt.shape != want:
            raise errors.TorchRuntimeError(
                f"size mismatch (got input: [{', '.join(map(str, x.shape))}] , target: "
                f"[{', '.join(map(str, tgt.shape))}]"
            )
    elif tgt.shape != want:
        raise errors.TorchRuntimeError(
            f"Expected target size [{', '.join(map(str, want))}], got [{', '.join(map(str, tgt.shape))}]"
        )
    _check_target_dtype(tgt)
    return np.moveaxis(x, 1, -1).reshape(-1, x.shape[1]), tgt.reshape(-1)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """PyTorch's nll_loss_nd: NllLossBackward0 for (C) and (N, C) inputs,
    NllLoss2DBackward0 for (N, C, H, W); other K-dim inputs are made contiguous and viewed
    as (N, C, 1, -1) first (and a 'none' result viewed back)."""
    a, t = as_tensor(input), as_tensor(target)
    if reduction not in ("mean", "sum", "none"):
        raise errors.TorchValueError(f"{reduction} is not a valid value for reduction")
    x = a.array
    _nll_layout(x, t.array)  # the shape and dtype checks
    if x.ndim <= 2:
        return _nll(a, t, weight, ignore_index, reduction, "NllLossBackward0")
    if x.ndim == 4:
        return _nll(a, t, weight, ignore_index, reduction, "NllLoss2DBackward0")
    n, c = x.shape[:2]
    a4 = S.view(S.contiguous(a), n, c, 1, -1)
    t3 = Tensor(np.ascontiguousarray(t.array).reshape(n, 1, -1))
    out = _nll(a4, t3, weight, ignore_index, reduction, "NllLoss2DBackward0")
    return S.view(out, *t.array.shape) if reduction == "none" else out


def _nll(a, t, weight, ignore_index, reduction, name):
    x = a.array
    tgt = t.array
    xx, tt = _nll_layout(x, tgt)
    c = xx.shape[1]
    valid = tt != ignore_index
    bad = ((tt < 0) | (tt >= c)) & valid
    if bad.any():
        raise errors.TorchIndexError(f"Target {int(tt[bad][0])} is out of bounds.")
    safe = np.where(valid, tt, 0)
    # per-sample weight: the class weight of its target, 0 where ignored
    w = valid.astype(x.dtype) if weight is None else as_tensor(weight).array[safe] * valid
    rows = np.arange(xx.shape[0])
    picked = -xx[rows, safe] * w
    total = w.sum()
    if reduction in ("mean", "sum"):  # in ATen's order of additions (aten_nll.py)
        class_weights = None if weight is None else as_tensor(weight).array[safe]
        out = np.asarray(aten_nll.reduce(xx[rows, safe], valid, class_weights, reduction, x.dtype), x.dtype)
    else:
        out = picked.reshape(tgt.shape if x.ndim > 1 else ())

    # d loss / d input is linear in the upstream gradient: g times a constant holding
    # -w_i (over total weight for 'mean') at [i, target_i]; ignored targets get nothing
    coef = np.zeros(xx.shape, dtype=x.dtype)
    with np.errstate(all="ignore"):
        scale = -(w[valid] / total if reduction == "mean" else w[valid])
    coef[rows[valid], safe[valid]] = scale
    if x.ndim > 2:
        coef = np.moveaxis(coef.reshape((x.shape[0],) + x.shape[2:] + (c,)), -1, 1)
    coef = Tensor(np.ascontiguousarray(coef).reshape(x.shape))
    return (_NLL2D if name == "NllLoss2DBackward0" else _NLL).record(
        out, (a,), fargs=(t, weight, reduction, coef)
    )


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    """PyTorch's composition: log_softmax, then nll_loss (class indices) or a weighted sum
    (class probabilities); label smoothing adds the smoothing term as PyTorch builds it."""
    a, t = as_tensor(input), as_tensor(target)
    dim = 0 if a.array.ndim == 1 else 1
    n_classes = a.array.shape[dim]
    w = None if weight is None else as_tensor(weight)
    if w is not None and a.array.ndim > 1:
        w = view(w, *[n_classes if i == dim else 1 for i in range(a.array.ndim)])
    ls = log_softmax(a, dim)
    if a.array.shape == t.array.shape:  # PyTorch reads same-shaped targets as probabilities
        if t.array.dtype.kind != "f":
            raise errors.TorchRuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{errors.dtype_scalar_name(t.array.dtype)}"
            )
        if ignore_index >= 0:
            raise errors.TorchRuntimeError("ignore_index is not supported for floating point target")
        if label_smoothing > 0:
            t = Tensor(t.array * (1 - label_smoothing) + label_smoothing / n_classes)
        prod = ls * t if w is None else ls * t * w
        if reduction == "none":
            return -tsum(prod, dim)
        loss = -tsum(prod)
        if reduction == "sum":
            return loss
        return _div1(loss, a.array.size // n_classes)
    nll = nll_loss(ls, t, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    ignored = t.array == ignore_index
    smooth = -tsum(ls if w is None else ls * w, dim)
    smooth = masked_fill(smooth, Tensor(ignored), 0.0)  # (ATen's smooth_loss.masked_fill_)
    if reduction == "mean":
        if weight is None:
            total = Tensor(np.asarray((~ignored).sum()))
        else:
            total = Tensor(np.asarray(as_tensor(weight).array[t.array[~ignored]].sum()))
        ret = tsum(smooth) / total
    elif reduction == "sum":
        ret = tsum(smooth)
    else:
        ret = smooth
    return mul_scalar(nll, 1 - label_smoothing) + mul_scalar(ret, label_smoothing / n_classes)


def _div1(x, n):
    """`Tensor / int` inside an ATen composite: DivBackward1, one input (div.Scalar's row,
    whose gradient is grad / n as a Scalar again: DivBackward1 under create_graph)."""
    return div_scalar(x, n)


# --- binary_cross_entropy_with_logits ---------------------------------------------------
_REDUCTION_ENUM = {0: "none", 1: "mean", 2: "sum"}


def _legacy_reduction(size_average, reduce) -> str:
    """torch.nn._reduction.legacy_get_string, with its deprecation warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else ("sum" if reduce else "none")
    errors.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.")
    return ret


def _log_sigmoid_np(x: np.ndarray) -> np.ndarray:
    """ATen's log_sigmoid CPU kernel: min(x, 0) - log1p(exp(-|x|))."""
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """F.binary_cross_entropy_with_logits: one BinaryCrossEntropyWithLogitsBackward0 node
    with edges to the input and the target. ATen's forward,
        loss = (1 - t) * x - log_sigmoid(x) * ((pos_weight - 1) * t + 1)   [* weight],
    and derivatives (FunctionsManual.cpp): d/dx = (sigmoid(x) - t) * g, with pos_weight
    ((pw t + 1 - t) sigmoid(x) - pw t) * g; d/dt = -x * g, with pos_weight
    (log_sigmoid(-x) - log_sigmoid(x) pw) * g; each times weight, over numel for 'mean'."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    a, t = as_tensor(input), as_tensor(target)
    if a.array.shape != t.array.shape:
        raise errors.TorchValueError(f"Target size ({t.shape}) must be the same as input size ({a.shape})")
    if reduction not in ("mean", "sum", "none"):
        raise errors.TorchValueError(f"{reduction} is not a valid value for reduction")
    return _bce_with_logits(a, t, weight, pos_weight, reduction)


def binary_cross_entropy_with_logits_aten(input, target, weight=None, pos_weight=None, reduction=0):
    """torch.binary_cross_entropy_with_logits, the ATen op: the reduction is an int
    (0 none, 1 mean, 2 sum), and PyTorch's binding leaves it at 0 when not given."""
    if not isinstance(reduction, int) or isinstance(reduction, bool):
        raise errors.TorchTypeError(
            "binary_cross_entropy_with_logits(): argument 'reduction' must be int, "
            f"not {type(reduction).__name__}"
        )
    a, t = as_tensor(input), as_tensor(target)
    if reduction not in _REDUCTION_ENUM:
        raise errors.TorchValueError(f"{reduction} is not a valid reduction")
    return _bce_with_logits(a, t, weight, pos_weight, _REDUCTION_ENUM[reduction])


def _bce_with_logits(a: Tensor, t: Tensor, weight, pos_weight, reduction: str):
    w = None if weight is None else as_tensor(weight)
    pw = None if pos_weight is None else as_tensor(pos_weight)
    for name, v in (("weight", w), ("pos_weight", pw)):
        if v is not None and v.needs_grad:
            raise errors.TorchRuntimeError(
                "The function 'binary_cross_entropy_with_logits' is not differentiable with "
                f"respect to argument '{name}'. This input cannot have requires_grad True."
            )
    x, y = a.array, t.array
    if y.dtype == np.bool_:  # 1 - target
        raise errors.TorchRuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if y.dtype.kind != "f" and x.dtype.kind == "f":
        # (1 - target).mul_(input): the in-place product keeps the target's dtype
        raise errors.TorchRuntimeError(
            f"result type {errors.dtype_scalar_name(x.dtype)} can't be cast to the desired "
            f"output type {errors.dtype_scalar_name(y.dtype)}"
        )
    if x.dtype.kind != "f":
        raise errors.not_implemented("log_sigmoid_cpu", x.dtype)
    shape = x.shape

    def into(v: np.ndarray):  # an in-place product cannot grow the loss's shape
        try:
            full = np.broadcast_shapes(v.shape, shape)
        except ValueError:
            raise errors.broadcast_error(shape, v.shape) from None
        if full != shape:
            raise errors.TorchRuntimeError(
                f"output with shape [{', '.join(map(str, shape))}] doesn't match the broadcast "
                f"shape [{', '.join(map(str, full))}]"
            )
        return v

    with np.errstate(over="ignore"):
        ls = _log_sigmoid_np(x)
        if pw is not None:
            ls = ls * into((pw.array - 1) * y + 1)
        loss = (1 - y) * x - ls
        if w is not None:
            loss = loss * into(w.array)
    with np.errstate(invalid="ignore"):
        out = _reduce(np.asarray(loss, dtype=y.dtype), reduction)
    return _BCE_LOGITS.record(out, (a, t), fargs=(w, pw, reduction))


# --- the rows: per op PyTorch's node and, per input, the vector-Jacobian product an
# explanation shows (rows.text_row; the backward formulas are in the functions above) -----

_MEAN_SCALED = "(grad / self.numel() if reduction == 'mean' else grad)"
_MSE = rows.text_row(
    "mse_loss",
    "MseLossBackward0",
    (f"2 * (self - target) * {_MEAN_SCALED}", f"-2 * (self - target) * {_MEAN_SCALED}"),
    inputs=("self", "target"),
    saves=("self", "target"),
    args=(("reduction", "mean"),),
    joint=lambda grad, self, target, result, reduction, needs: mse_loss_backward(
        grad, self, target, reduction
    ),
)
_BCE = rows.text_row(
    "binary_cross_entropy",
    "BinaryCrossEntropyBackward0",
    (
        f"weight * (self - target) / (self * (1 - self)) * {_MEAN_SCALED}",
        f"weight * (log(1 - self) - log(self)) * {_MEAN_SCALED}",
    ),
    inputs=("self", "target"),
    saves=("self", "target"),
    args=(("weight", 1.0), ("reduction", "mean")),
    # (one function: the target's gradient is undefined, yet the node saves both, always)
    joint=lambda grad, self, target, result, weight, reduction, needs: (
        binary_cross_entropy_backward(grad, self, target, weight, reduction),
        None,
    ),
)
_NLL_TEXT = (
    "-weight * (arange(self.shape[1]) == target.unsqueeze(1))"
    " * (grad / target.numel() if reduction == 'mean' else grad.unsqueeze(1))"
)
# (diffcli's node saves no tensor: the forward's d loss / d input, `d_self`, is an arg)
_NLL_ARGS = (("target", None), ("weight", 1.0), ("reduction", "mean"), ("d_self", None))
_NLL = rows.text_row(
    "nll_loss",
    "NllLossBackward0",
    (_NLL_TEXT,),
    args=_NLL_ARGS,
    formulas=(
        lambda grad, self, result, target, weight, reduction, d_self: nll_loss_backward(
            grad, reduction, d_self
        ),
    ),
)
_NLL2D = rows.text_row(
    "nll_loss2d",
    "NllLoss2DBackward0",
    (_NLL_TEXT,),
    args=_NLL_ARGS,
    formulas=(
        lambda grad, self, result, target, weight, reduction, d_self: nll_loss_backward(
            grad, reduction, d_self
        ),
    ),
)
_BCE_LOGITS = rows.text_row(
    "binary_cross_entropy_with_logits",
    "BinaryCrossEntropyWithLogitsBackward0",
    (f"weight * (sigmoid(self) - target) * {_MEAN_SCALED}", f"-weight * self * {_MEAN_SCALED}"),
    inputs=("self", "target"),
    saves=("self", "target"),
    args=(("weight", 1.0), ("pos_weight", None), ("reduction", "mean")),
    joint=lambda grad, self, target, result, weight, pos_weight, reduction, needs: (
        binary_cross_entropy_with_logits_backward(grad, self, target, weight, pos_weight, reduction, needs)
    ),
)
_DIV_SCALAR = rows.ROWS["div.Scalar"]

expose(mse_loss, _MSE, names=("mse_loss",), method=False)
expose(binary_cross_entropy, _BCE, names=("binary_cross_entropy",), method=False)
expose(nll_loss, _NLL, _NLL2D, rows.ROWS["view"], names=("nll_loss",), method=False)
expose(
    binary_cross_entropy_with_logits, _BCE_LOGITS, names=("binary_cross_entropy_with_logits",), method=False
)
# a composite: nll_loss over log_softmax, with label smoothing's sum and masked fill
expose(
    cross_entropy,
    _NLL,
    _NLL2D,
    rows.ROWS["log_softmax"],
    rows.ROWS["sum"],
    rows.ROWS["sum.dim_IntList"],
    rows.ROWS["neg"],
    rows.ROWS["masked_fill.Scalar"],
    _DIV_SCALAR,
    rows.ROWS["div.Tensor"],
    rows.ROWS["mul.Scalar"],
    rows.ROWS["add"],
    names=("cross_entropy",),
    method=False,
    sym=False,
)
