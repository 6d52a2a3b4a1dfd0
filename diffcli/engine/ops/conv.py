"""ATen's convolution (conv1d / conv2d, not transposed): one ConvolutionBackward0 node with
edges to the input, the weight and the bias (`(None, 0)` without a bias), saving the input
and the weight, as PyTorch's node does.

A 1-D convolution is the 2-D one over a height of 1, as ATen views it (`view1d_as_2d`).

Values. float32 is summed as ATen's CPU kernels sum it, term by term with a fused
multiply-add (one rounding per term), then the bias is added:
- oneDNN (`mkldnn`; ATen's `use_mkldnn`: groups > 1, a kernel larger than 3x3, a batch of
  more than one, or a large input) sums over the kernel's rows and columns, and inside
  each over the input channels (measured against torch 2.13 on an AVX-512 CPU: bit for bit
  up to 16 input channels; more are summed in blocks of 16 whose order is not reproduced);
- the others (`slow_conv2d`: im2col and a gemm, and oneDNN's grouped kernel) over the
  channels, then the kernel's rows and columns.
float64 and the gradients are numpy's sums, within rounding of PyTorch's.

Double backward (create_graph through a convolution) is not provided: PyTorch records
ConvolutionBackwardBackward0 there, and diffcli raises instead of giving a wrong gradient.
"""

from __future__ import annotations

import numpy as np

from .. import errors
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from . import rows
from .cascade_sum import aten_sum
from .random import _fma

BLOCK = 16  # oneDNN's input-channel block (float32, AVX-512)


def _windows(x: np.ndarray, k, stride, dilation, out):
    """The slice of the padded input `x` (N, C, H, W) each kernel tap (i, j) reads."""
    (sh, sw), (dh, dw), (oh, ow) = stride, dilation, out

    def at(i, j):
        return x[:, :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw]

    return at


def out_size(size, k, stride, padding, dilation):
    return (size + 2 * padding - dilation * (k - 1) - 1) // stride + 1


def uses_mkldnn(x, w, stride, dilation, groups) -> bool:
    """ATen's ConvParams::use_mkldnn for a float32 CPU tensor (with more than one thread)."""
    n = x.shape[0]
    return groups > 1 or (w.shape[-1] > 3 and w.shape[-2] > 3) or n > 1 or x.size > 20480


def _taps(c, kh, kw, mkldnn):
    if mkldnn:
        return [(ci, i, j) for i in range(kh) for j in range(kw) for ci in range(c)]
    return [(ci, i, j) for ci in range(c) for i in range(kh) for j in range(kw)]


def _group_forward(xp, w, stride, dilation, out, mkldnn):
    """One group's sum (no bias), xp: (N, C, H, W) padded, w: (O, C, kh, kw)."""
    o, c, kh, kw = w.shape
    at = _windows(xp, (kh, kw), stride, dilation, out)
    if xp.dtype != np.float32:
        acc = np.zeros((xp.shape[0], o, *out), xp.dtype)
        for i in range(kh):
            for j in range(kw):
                acc += np.einsum("nchw,oc->nohw", at(i, j), w[:, :, i, j])
        return acc
    if mkldnn and c > BLOCK:  # partial sums per block of channels, then added
        total = None
        for c0 in range(0, c, BLOCK):
            part = _group_forward(xp[:, c0 : c0 + BLOCK], w[:, c0 : c0 + BLOCK], stride, dilation, out, True)
            total = part if total is None else (total + part).astype(np.float32)
        return total
    acc = np.zeros((xp.shape[0], o, *out), np.float32)
    for ci, i, j in _taps(c, kh, kw, mkldnn):
        acc = _fma(at(i, j)[:, ci : ci + 1], w[:, ci, i, j][None, :, None, None], acc)
    return acc


def _pad(x, padding):
    (ph, pw) = padding
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))) if ph or pw else x


def convolution_values(x, w, b, stride, padding, dilation, groups) -> np.ndarray:
    """The forward on numpy arrays: x (N, C, H, W), w (O, C/groups, kh, kw), b (O,) or None."""
    out = tuple(
        out_size(x.shape[2 + d], w.shape[2 + d], stride[d], padding[d], dilation[d]) for d in range(2)
    )
    xp = _pad(x, padding)
    # (oneDNN's grouped kernel sums as slow_conv2d does: channels, then the taps)
    mkldnn = x.dtype == np.float32 and groups == 1 and uses_mkldnn(x, w, stride, dilation, groups)
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    parts = [
        _group_forward(xp[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og], stride, dilation, out, mkldnn)
        for g in range(groups)
    ]
    acc = parts[0] if groups == 1 else np.concatenate(parts, axis=1)
    if b is not None:
        acc = (acc + b[None, :, None, None]).astype(x.dtype, copy=False)
    return acc


def _grad_values(g, x, w, stride, padding, dilation, groups, needs):
    """(grad_input, grad_weight, grad_bias) arrays: the adjoints of the forward's sums."""
    o, cg, kh, kw = w.shape
    og = o // groups
    out = g.shape[2:]
    xp = _pad(x, padding)
    gi = gw = gb = None
    if needs[0]:
        gxp = np.zeros(xp.shape, x.dtype)
        at = _windows(gxp, (kh, kw), stride, dilation, out)
        for grp in range(groups):
            gs, ws = g[:, grp * og : (grp + 1) * og], w[grp * og : (grp + 1) * og]
            for i in range(kh):
                for j in range(kw):
                    at(i, j)[:, grp * cg : (grp + 1) * cg] += np.einsum("nohw,oc->nchw", gs, ws[:, :, i, j])
        (ph, pw) = padding
        gi = gxp[:, :, ph : ph + x.shape[2], pw : pw + x.shape[3]]
    if needs[1]:
        gw = np.zeros(w.shape, w.dtype)
        at = _windows(xp, (kh, kw), stride, dilation, out)
        for grp in range(groups):
            gs = g[:, grp * og : (grp + 1) * og]
            for i in range(kh):
                for j in range(kw):
                    xs = at(i, j)[:, grp * cg : (grp + 1) * cg]
                    gw[grp * og : (grp + 1) * og, :, i, j] = np.einsum("nohw,nchw->oc", gs, xs)
    if len(needs) > 2 and needs[2]:
        gb = aten_sum(g, (0, 2, 3))  # ATen's sum, in its order
    return gi, gw, gb


def convolution_backward(grad, input, weight, stride, padding, dilation, groups, needs):
    """ATen's convolution_backward: the gradients of the input, the weight and the bias."""
    _no_double_backward()
    g, x, w = grad.array, input.array, weight.array
    one_d = len(stride) == 1  # conv1d: the 2-D gradients over a height of 1
    if one_d:
        g, x, w = g[:, :, None, :], x[:, :, None, :], w[:, :, None, :]
        stride, padding, dilation = _as_2d(stride, padding, dilation)
    gi, gw, gb = _grad_values(g, x, w, stride, padding, dilation, groups, needs)
    if one_d:
        gi, gw = (None if v is None else v[:, :, 0, :] for v in (gi, gw))
    return tuple(None if v is None else Tensor(np.ascontiguousarray(v)) for v in (gi, gw, gb))


def _no_double_backward():
    if is_grad_enabled():
        raise errors.TorchRuntimeError(
            "diffcli does not support double backward through a convolution (create_graph=True "
            "through ConvolutionBackward0)"
        )


_CONV = rows.text_row(
    "convolution",
    "ConvolutionBackward0",
    (
        "conv_transpose2d(grad, weight, None, stride, padding, 0, groups, dilation)",
        "conv2d(input.transpose(0, 1), grad.transpose(0, 1), None, dilation, padding, stride).transpose(0, 1)",
        "grad.sum((0, 2, 3))",
    ),
    inputs=("input", "weight", "bias"),
    saves=("input", "weight"),
    args=(
        ("bias_sym_sizes", None),
        ("stride", (1, 1)),
        ("padding", (0, 0)),
        ("dilation", (1, 1)),
        ("groups", 1),
    ),
    joint=lambda grad, input, weight, bias, result, bias_sym_sizes, stride, padding, dilation, groups, needs: (
        convolution_backward(grad, input, weight, stride, padding, dilation, groups, needs)
    ),
)
rows.helpers(tensor={"convolution_backward": convolution_backward})


def _as_2d(stride, padding, dilation):
    return (1, *stride), (0, *padding), (1, *dilation)


def convolution(x: Tensor, w: Tensor, b, stride, padding, dilation, groups) -> Tensor:
    """The ConvolutionBackward0 node over 3-D (conv1d) or 4-D x and w, stride, padding and
    dilation one entry per spatial dim (the caller checked the shapes)."""
    bias = None if b is None else b.array
    if len(stride) == 1:
        xa, wa = x.array[:, :, None, :], w.array[:, :, None, :]
        out = convolution_values(xa, wa, bias, *_as_2d(stride, padding, dilation), groups)[:, :, 0, :]
    else:
        out = convolution_values(x.array, w.array, bias, stride, padding, dilation, groups)
    fargs = (None,) if b is None else ()
    bias_sizes = None if b is None else b.array.shape
    return _CONV.record(out, (x, w, b), fargs=(*fargs, bias_sizes, stride, padding, dilation, groups))
