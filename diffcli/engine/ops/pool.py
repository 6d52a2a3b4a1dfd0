"""2-D pooling as ATen's CPU kernels compute it: max_pool2d_with_indices (one
MaxPool2DWithIndicesBackward0 node saving the input and the indices) and avg_pool2d
(AvgPool2DBackward0, saving the input), over a (C, H, W) or (N, C, H, W) input.

Values: the max is exact (the first maximum in window order, a NaN wins, as ATen's
`val > maxval || isnan(val)`); the average sums the window in order in the input's dtype,
then divides by the divisor, as ATen's loop does. The gradients scatter (max) or spread
(average) the incoming gradient; their second derivative (create_graph) is not provided.
"""

from __future__ import annotations

import numpy as np

from .. import errors
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from . import rows


def out_size(size, k, pad, stride, dilation, ceil_mode):
    """ATen's pooling_output_shape."""
    n = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = n // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _padded(x, pad, extra, fill):
    """x (B, H, W) padded by `pad` on each side and `extra` more at the bottom/right."""
    (ph, pw), (eh, ew) = pad, extra
    return np.pad(x, ((0, 0), (ph, ph + eh), (pw, pw + ew)), constant_values=fill)


def _tap(x, i, j, stride, dilation, out):
    (sh, sw), (dh, dw), (oh, ow) = stride, dilation, out
    return x[:, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw]


def _extra(size, k, pad, stride, dilation, out):
    """How far the last window reaches past the padded input (ceil_mode)."""
    return [
        max(0, (o - 1) * s + d * (kk - 1) + 1 - (n + 2 * p))
        for n, kk, p, s, d, o in zip(size, k, pad, stride, dilation, out)
    ]


def _no_double_backward(name):
    if is_grad_enabled():
        raise errors.TorchRuntimeError(
            f"diffcli does not support double backward through {name} (create_graph=True)"
        )


# --- max_pool2d -----------------------------------------------------------------------------


def max_pool2d_values(x, k, stride, pad, dilation, out):
    """(values, indices) over x (B, H, W); indices are flat over (H, W), as ATen's."""
    size = x.shape[1:]
    low = -np.inf if x.dtype.kind == "f" else (False if x.dtype == np.bool_ else np.iinfo(x.dtype).min)
    xp = _padded(x, pad, _extra(size, k, pad, stride, dilation, out), low)
    best = idx = None
    oh = np.arange(out[0])[:, None] * stride[0] - pad[0]
    ow = np.arange(out[1])[None, :] * stride[1] - pad[1]
    for i in range(k[0]):
        for j in range(k[1]):
            v = _tap(xp, i, j, stride, dilation, out)
            where = (oh + i * dilation[0]) * size[1] + (ow + j * dilation[1])
            if best is None:
                best, idx = v.copy(), np.broadcast_to(where, v.shape).copy()
                continue
            take = v > best
            if x.dtype.kind == "f":
                take |= np.isnan(v)
            best = np.where(take, v, best)
            idx = np.where(take, where, idx)
    return best, idx.astype(np.int64)


def max_pool2d_backward(grad, self, indices):
    _no_double_backward("max_pool2d")
    g, x = grad.array, self.array
    lead = x.shape[:-2]
    flat = np.zeros((int(np.prod(lead, dtype=np.int64)), x.shape[-2] * x.shape[-1]), g.dtype)
    gi = g.reshape(flat.shape[0], -1)
    np.add.at(flat, (np.arange(flat.shape[0])[:, None], indices.array.reshape(flat.shape[0], -1)), gi)
    return Tensor(flat.reshape(x.shape))


_MAX_POOL = rows.text_row(
    "max_pool2d_with_indices",
    "MaxPool2DWithIndicesBackward0",
    ("zeros_like(self).flatten(-2).scatter_add(-1, indices.flatten(-2), grad.flatten(-2)).view_as(self)",),
    saves=("self", "indices"),
    args=(("indices", None),),
    formulas=(lambda grad, self, result, indices: max_pool2d_backward(grad, self, indices),),
)
rows.helpers(tensor={"max_pool2d_backward": max_pool2d_backward})


def max_pool2d_with_indices(x: Tensor, k, stride, pad, dilation, out):
    a = x.array
    b = a.reshape(-1, *a.shape[-2:])
    vals, idx = max_pool2d_values(b, k, stride, pad, dilation, out)
    shape = (*a.shape[:-2], *out)
    indices = Tensor(idx.reshape(shape))
    return _MAX_POOL.record(vals.reshape(shape), (x,), fargs=(indices,)), indices


# --- avg_pool2d -----------------------------------------------------------------------------


def _divisors(size, k, stride, pad, out, count_include_pad, divisor_override):
    """Each output's divisor (oh, ow), as ATen's avg_pool2d computes it."""
    if divisor_override:
        return np.full(out, divisor_override, np.int64)
    spans = []
    for n, kk, s, p, o in zip(size, k, stride, pad, out):
        start = np.arange(o) * s - p
        end = np.minimum(start + kk, n + p)
        whole = end - start
        clipped = np.minimum(end, n) - np.maximum(start, 0)
        spans.append(whole if count_include_pad else clipped)
    return spans[0][:, None] * spans[1][None, :]


def avg_pool2d_values(x, k, stride, pad, out, ceil_mode, count_include_pad, divisor_override):
    size = x.shape[1:]
    xp = _padded(x, pad, _extra(size, k, pad, stride, (1, 1), out), 0)
    acc = np.zeros((x.shape[0], *out), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            acc += _tap(xp, i, j, stride, (1, 1), out)
    div = _divisors(size, k, stride, pad, out, count_include_pad, divisor_override)
    if x.dtype.kind == "f":
        return (acc / div.astype(x.dtype)).astype(x.dtype)
    return (acc // div).astype(x.dtype)


def avg_pool2d_backward(
    grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
):
    _no_double_backward("avg_pool2d")
    g, x = grad.array, self.array
    size, out = x.shape[-2:], g.shape[-2:]
    k = kernel_size
    div = _divisors(size, k, stride, padding, out, count_include_pad, divisor_override)
    delta = (g.reshape(-1, *out) / div.astype(g.dtype)).astype(g.dtype)
    b = x.reshape(-1, *size)
    extra = _extra(size, k, padding, stride, (1, 1), out)
    gp = _padded(np.zeros(b.shape, g.dtype), padding, extra, 0)
    for i in range(k[0]):
        for j in range(k[1]):
            _tap(gp, i, j, stride, (1, 1), out)[...] += delta
    ph, pw = padding
    return Tensor(np.ascontiguousarray(gp[:, ph : ph + size[0], pw : pw + size[1]]).reshape(x.shape))


_AVG_POOL = rows.text_row(
    "avg_pool2d",
    "AvgPool2DBackward0",
    (
        "avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)",
    ),
    saves=("self",),
    args=(
        ("kernel_size", None),
        ("stride", None),
        ("padding", (0, 0)),
        ("ceil_mode", False),
        ("count_include_pad", True),
        ("divisor_override", None),
    ),
    formulas=(
        lambda grad, self, result, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override: (
            avg_pool2d_backward(
                grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
            )
        ),
    ),
)
rows.helpers(tensor={"avg_pool2d_backward": avg_pool2d_backward})


def avg_pool2d(x: Tensor, k, stride, pad, out, ceil_mode, count_include_pad, divisor_override):
    a = x.array
    b = a.reshape(-1, *a.shape[-2:])
    vals = avg_pool2d_values(b, k, stride, pad, out, ceil_mode, count_include_pad, divisor_override)
    fargs = (k, stride, pad, ceil_mode, count_include_pad, divisor_override)
    return _AVG_POOL.record(vals.reshape(*a.shape[:-2], *out), (x,), fargs=fargs)
