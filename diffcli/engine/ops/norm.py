"""Layer and batch normalisation as ATen's nodes: native_layer_norm (NativeLayerNormBackward0)
and native_batch_norm (NativeBatchNormBackward0), each one node with edges to the input,
the weight and the bias (`(None, 0)` where absent).

Values are computed in float64 and rounded to the input's dtype: within a rounding of
ATen's float32 kernels (whose Welford / vectorised sums are not reproduced), exact in
spirit for float64. The gradients are ATen's formulas (layer_norm_backward,
batch_norm_backward); their second derivative (create_graph) is not provided.
"""

from __future__ import annotations

import numpy as np

from .. import errors
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from . import rows


def _no_double_backward(name):
    if is_grad_enabled():
        raise errors.TorchRuntimeError(
            f"diffcli does not support double backward through {name} (create_graph=True)"
        )


def _present(w, b, shape, dtype):
    """An absent weight (bias) is ones (zeros) that do not require grad: the node's edge is
    then `(None, 0)`, as PyTorch's, and the formulas read a tensor."""
    w = Tensor(np.ones(shape, dtype)) if w is None else w
    b = Tensor(np.zeros(shape, dtype)) if b is None else b
    return w, b


def _out(v, like):
    return None if v is None else Tensor(np.ascontiguousarray(v.astype(like.dtype)))


# --- layer norm -----------------------------------------------------------------------------


def layer_norm_values(x, n_axes, w, b, eps):
    """(output, mean, rstd) over the last `n_axes` dims of x."""
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    y = (x64 - mean) * rstd
    if w is not None:
        y = y * w.astype(np.float64)
    if b is not None:
        y = y + b.astype(np.float64)
    return y.astype(x.dtype), mean, rstd


def layer_norm_backward(grad, input, weight, normalized_shape, mean, rstd, needs):
    _no_double_backward("layer_norm")
    g, x = grad.array.astype(np.float64), input.array.astype(np.float64)
    n_axes = len(normalized_shape)
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    lead = tuple(range(x.ndim - n_axes))
    xhat = (x - mean) * rstd
    gx = gw = gb = None
    if needs[0]:
        dxhat = g if weight is None else g * weight.array.astype(np.float64)
        gx = rstd * (
            dxhat
            - dxhat.mean(axis=axes, keepdims=True)
            - xhat * (dxhat * xhat).mean(axis=axes, keepdims=True)
        )
    if needs[1]:
        gw = (g * xhat).sum(axis=lead)
    if needs[2]:
        gb = g.sum(axis=lead)
    return _out(gx, input.array), _out(gw, input.array), _out(gb, input.array)


_LAYER_NORM = rows.text_row(
    "native_layer_norm",
    "NativeLayerNormBackward0",
    (
        "rstd * (grad * weight - (grad * weight).mean(-1, True) - xhat * (grad * weight * xhat).mean(-1, True))",
        "(grad * xhat).sum(0)",
        "grad.sum(0)",
    ),
    inputs=("input", "weight", "bias"),
    saves=("input", "weight"),
    args=(("normalized_shape", None), ("mean", None), ("rstd", None)),
    joint=lambda grad, input, weight, bias, result, normalized_shape, mean, rstd, needs: layer_norm_backward(
        grad, input, weight, normalized_shape, mean, rstd, needs
    ),
)
rows.helpers(tensor={"layer_norm_backward": layer_norm_backward})


def native_layer_norm(x: Tensor, normalized_shape, w, b, eps) -> Tensor:
    out, mean, rstd = layer_norm_values(
        x.array, len(normalized_shape), None if w is None else w.array, None if b is None else b.array, eps
    )
    w, b = _present(w, b, normalized_shape, x.array.dtype)
    return _LAYER_NORM.record(out, (x, w, b), fargs=(tuple(normalized_shape), mean, rstd))


# --- batch norm -----------------------------------------------------------------------------


def _channel_shape(x):
    return (1, x.shape[1]) + (1,) * (x.ndim - 2)


def batch_norm_values(x, w, b, mean, invstd, eps):
    shape = _channel_shape(x)
    y = (x.astype(np.float64) - mean.reshape(shape)) * invstd.reshape(shape)
    if w is not None:
        y = y * w.astype(np.float64).reshape(shape)
    if b is not None:
        y = y + b.astype(np.float64).reshape(shape)
    return y.astype(x.dtype)


def batch_stats(x):
    """Per channel: (mean, biased var) in float64."""
    axes = (0, *range(2, x.ndim))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes)
    var = ((x64 - mean.reshape(_channel_shape(x))) ** 2).mean(axis=axes)
    return mean, var


def batch_norm_backward(grad, input, weight, training, mean, invstd, needs):
    _no_double_backward("batch_norm")
    g, x = grad.array.astype(np.float64), input.array.astype(np.float64)
    shape = _channel_shape(x)
    axes = (0, *range(2, x.ndim))
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    w = np.ones(x.shape[1]) if weight is None else weight.array.astype(np.float64)
    gx = gw = gb = None
    if needs[0]:
        scale = (w * invstd).reshape(shape)
        if training:
            gx = scale * (
                g - g.mean(axis=axes, keepdims=True) - xhat * (g * xhat).mean(axis=axes, keepdims=True)
            )
        else:
            gx = g * scale
    if needs[1]:
        gw = (g * xhat).sum(axis=axes)
    if needs[2]:
        gb = g.sum(axis=axes)
    return _out(gx, input.array), _out(gw, input.array), _out(gb, input.array)


_BATCH_NORM = rows.text_row(
    "native_batch_norm",
    "NativeBatchNormBackward0",
    (
        "weight * invstd * (grad - grad.mean(0) - xhat * (grad * xhat).mean(0))",
        "(grad * xhat).sum(0)",
        "grad.sum(0)",
    ),
    inputs=("input", "weight", "bias"),
    saves=("input", "weight"),
    args=(("training", True), ("mean", None), ("invstd", None)),
    joint=lambda grad, input, weight, bias, result, training, mean, invstd, needs: batch_norm_backward(
        grad, input, weight, training, mean, invstd, needs
    ),
)
rows.helpers(tensor={"batch_norm_backward": batch_norm_backward})


def native_batch_norm(x: Tensor, w, b, training, mean, invstd) -> Tensor:
    """The node, given the statistics used (float64 per channel mean and 1/sqrt(var + eps))."""
    out = batch_norm_values(
        x.array, None if w is None else w.array, None if b is None else b.array, mean, invstd, 0
    )
    w, b = _present(w, b, (x.array.shape[1],), x.array.dtype)
    return _BATCH_NORM.record(out, (x, w, b), fargs=(training, mean, invstd))
