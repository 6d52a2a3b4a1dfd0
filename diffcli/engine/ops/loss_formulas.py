"""The losses' backward formulas (PyTorch's FunctionsManual helpers for mse_loss,
binary_cross_entropy[_with_logits] and nll_loss), which their rows in losses.py call."""

from __future__ import annotations

import numpy as np

from ..function import as_tensor
from ..tensor import Tensor
from . import rows
from . import selection as SE
from . import unary as U
from .selection import clamp, where
from .shape import expand, unsqueeze

_BCE_EPSILON = float(np.float32(1e-12))


def _scale(g: Tensor, shape, reduction, n):
    if reduction == "none":
        return g
    gg = expand(g, *shape) if shape else g
    return gg / n if reduction == "mean" else gg


def mse_loss_backward(g: Tensor, p: Tensor, q: Tensor, reduction):
    """PyTorch's mse_loss_backward, for both inputs at once (they share 2 * (self - target))."""
    shape = np.broadcast_shapes(p.array.shape, q.array.shape)
    d = (p - q) * 2
    gs = _scale(g, shape, reduction, int(np.prod(shape, dtype=np.int64)))
    return gs * d, -(gs * d)


def binary_cross_entropy_backward(g: Tensor, pp: Tensor, tt: Tensor, weight, reduction) -> Tensor:
    """PyTorch's binary_cross_entropy_backward: g * (p - t) / max((1 - p) * p, EPSILON),
    times the weight, divided by numel for 'mean'; EPSILON is the float 1e-12f."""
    shape = pp.array.shape
    denom = clamp((1 - pp) * pp, min=_BCE_EPSILON)
    gx = expand(g, *shape) if reduction != "none" and shape else g
    gr = gx * (pp - tt) / denom
    if weight is not None:
        gr = gr * as_tensor(weight)
    if reduction == "mean":
        gr = gr / pp.array.size
    return gr


def nll_loss_backward(g: Tensor, reduction, d_self: Tensor) -> Tensor:
    """nll_loss's gradient: g times d_self (the forward's d loss / d input, -w_i over the
    total weight for 'mean' at [i, target_i], 0 where the target is ignored)."""
    if reduction == "none" and d_self.array.ndim > 1:
        g = unsqueeze(g, 1)
    return g * d_self


def where_zero(mask, g: Tensor) -> Tensor:
    """g with zeros where `mask` (a numpy bool array) is set (differentiable)."""
    return where(Tensor(np.asarray(mask)), 0.0, g)


def _log_sigmoid_t(x: Tensor) -> Tensor:
    """log_sigmoid of a Tensor, from differentiable ops (the target's backward formula)."""
    return SE.clamp_max(x, 0.0) - U.log1p(U.exp(-U.abs(x)))


def binary_cross_entropy_with_logits_backward(g, xx, tt, w, pw, reduction, needs):
    """PyTorch's derivatives of binary_cross_entropy_with_logits (see above): the input's
    always (as diffcli has computed it), the target's when it requires grad."""
    n = xx.array.size
    if pw is not None:
        tp = pw * tt
        gi = ((tp + 1) - tt) * U.sigmoid(xx) - tp
    else:
        gi = U.sigmoid(xx) - tt
    gi = gi * g
    if w is not None:
        gi = gi * w
    if reduction == "mean":
        gi = gi / n
    gt = None
    if needs[1]:
        if pw is not None:
            gt = (_log_sigmoid_t(-xx) - _log_sigmoid_t(xx) * pw) * g
        else:
            gt = -xx * g
        if w is not None:
            gt = gt * w
        if reduction == "mean":
            gt = gt / n
    return gi, gt


rows.helpers(
    tensor={
        f.__name__: f
        for f in (
            mse_loss_backward,
            binary_cross_entropy_backward,
            nll_loss_backward,
            binary_cross_entropy_with_logits_backward,
            where_zero,
        )
    }
)
