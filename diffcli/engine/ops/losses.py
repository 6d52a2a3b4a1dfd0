"""Loss functions with PyTorch's node structure: mse_loss and binary_cross_entropy are
single nodes; cross_entropy is nll_loss over log_softmax."""
from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor, record
from ..tensor import Tensor
from .reductions import log_softmax


def _reduce(loss: np.ndarray, reduction: str):
    if reduction == "mean":
        return np.asarray(loss.mean() if loss.size else np.nan)
    if reduction == "sum":
        return np.asarray(loss.sum())
    if reduction == "none":
        return loss
    raise errors.TorchValueError(f"{reduction} is not a valid value for reduction")


def _scale(g: Tensor, shape, reduction, n):
    from .shape import expand
    if reduction == "none":
        return g
    gg = expand(g, *shape) if shape else g
    return gg / n if reduction == "mean" else gg


def mse_loss(input, target, reduction="mean"):
    a, t = as_tensor(input), as_tensor(target)
    if a.data_.shape != t.data_.shape:
        from .. import errors as E
        E.warn(f"Using a target size ({t.shape}) that is different to the input size ({a.shape}). "
               "This will likely lead to incorrect results due to broadcasting. Please ensure "
               "they have the same size.")
    diff = a.data_ - t.data_
    out = _reduce(diff * diff, reduction)
    shape, n = diff.shape, diff.size

    def backward(g, p, q):
        d = (p - q) * 2
        gs = _scale(g, shape, reduction, n)
        return gs * d, -(gs * d)
    return record("MseLossBackward0", out, (a, t), backward, (a, t))


_BCE_EPSILON = float(np.float32(1e-12))


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    p, t = as_tensor(input), as_tensor(target)
    if p.data_.shape != t.data_.shape:
        raise errors.TorchValueError(
            f"Using a target size ({t.shape}) that is different to the input size ({p.shape}) is deprecated. "
            "Please ensure they have the same size.")
    x = p.data_
    if ((x < 0) | (x > 1)).any():
        raise errors.TorchRuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        logp = np.maximum(np.log(x), -100.0)
        log1mp = np.maximum(np.log1p(-x), -100.0)
    loss = -(t.data_ * logp + (1 - t.data_) * log1mp)
    if weight is not None:
        loss = loss * as_tensor(weight).data_
    out = _reduce(loss, reduction)
    shape, n = x.shape, x.size

    def backward(g, pp, tt):
        # PyTorch's binary_cross_entropy_backward: g * (p - t) / max((1 - p) * p, EPSILON),
        # times the weight, divided by numel for 'mean'; EPSILON is the float 1e-12f
        from .arithmetic import clamp
        from .shape import expand
        denom = clamp((1 - pp) * pp, min=_BCE_EPSILON)
        gx = expand(g, *shape) if reduction != "none" and shape else g
        gr = gx * (pp - tt) / denom
        if weight is not None:
            gr = gr * as_tensor(weight)
        if reduction == "mean":
            gr = gr / n
        return gr, None
    return record("BinaryCrossEntropyBackward0", out, (p, t), backward, (p, t))


def nll_loss(input, target, reduction="mean", ignore_index=-100):
    a, t = as_tensor(input), as_tensor(target)
    x = a.data_
    if t.data_.dtype.kind not in "iu":
        raise errors.TorchRuntimeError(
            f"expected scalar type Long but found {'Double' if t.data_.dtype == np.float64 else 'Float'}")
    tgt = t.data_
    if x.ndim == 1:
        xx, tt = x[None, :], tgt.reshape(1)
    else:
        xx, tt = x, tgt
    c = xx.shape[1]
    if ((tt < 0) | (tt >= c)).any() and not (tt == ignore_index).any():
        bad = int(tt[(tt < 0) | (tt >= c)][0])
        raise errors.TorchIndexError(f"Target {bad} is out of bounds.")
    valid = tt != ignore_index
    safe = np.where(valid, tt, 0)
    picked = -xx[np.arange(xx.shape[0]), safe] * valid
    n = valid.sum()
    with np.errstate(all="ignore"):
        if reduction == "mean":
            out = np.asarray(picked.sum() / n if n else np.nan, dtype=x.dtype)
        elif reduction == "sum":
            out = np.asarray(picked.sum(), dtype=x.dtype)
        else:
            out = picked if x.ndim > 1 else picked.reshape(())
    shape = x.shape

    def backward(g):
        gd = np.zeros(xx.shape, dtype=x.dtype)
        gv = np.broadcast_to(g.data_, (xx.shape[0],)) if reduction == "none" else \
            np.full(xx.shape[0], g.data_.item() / (n if reduction == "mean" else 1))
        gd[np.arange(xx.shape[0]), safe] = -gv * valid
        return (Tensor(gd.reshape(shape)),)
    return record("NllLossBackward0", out, (a,), backward)


def cross_entropy(input, target, reduction="mean", label_smoothing=0.0):
    a, t = as_tensor(input), as_tensor(target)
    dim = 0 if a.data_.ndim == 1 else 1
    ls = log_softmax(a, dim)
    if t.data_.dtype.kind == "f":
        from .reductions import sum as tsum
        loss = -tsum(ls * t) if reduction != "none" else None
        if reduction == "mean":
            n = a.data_.shape[0] if a.data_.ndim > 1 else 1
            return loss / n if n != 1 else _div1(loss, 1)
        if reduction == "sum":
            return loss
        return -tsum(ls * t, dim)
    return nll_loss(ls, t, reduction)


def _div1(x, n):
    from .arithmetic import div
    return record("DivBackward1", x.data_ / n, (x,), lambda g: (g / n,))
