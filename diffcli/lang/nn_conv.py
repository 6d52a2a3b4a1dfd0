"""The convolution, pooling and dropout layers of `torch.nn` (Conv1d, Conv2d, MaxPool2d,
AvgPool2d, Dropout) and their functional forms (`F.conv1d`, `F.conv2d`, `F.max_pool2d`,
`F.avg_pool2d`, `F.dropout`), with PyTorch's argument checks, error messages, parameter
initialisation (from the seeded generator, as nn.Linear) and printing.

The nodes are the engine's (`engine/ops/conv.py`, `engine/ops/pool.py`); dropout is
ATen's CPU `_dropout`: a noise tensor drawn by `bernoulli_(1 - p)` (ATen's serial CPU
kernel: one double uniform from 53 bits of random64() per element, `u < 1 - p`), divided by
`1 - p`, times the input (MulBackward0).
"""

from __future__ import annotations

import numpy as np

from .. import engine
from ..engine import dtypes
from ..engine.errors import TorchRuntimeError
from ..engine.function import as_tensor
from ..engine.ops import conv, pool
from ..engine.ops import random as _random
from ..engine.ops import shape as S
from ..engine.tensor import Tensor
from . import nn_init
from .nn import MODULE, ModuleClass, _args


def _ints(value, n, name, what):
    """An int or a list of `n` ints (PyTorch's expand_param_if_needed)."""
    if isinstance(value, (list, tuple)):
        vals = list(value)
        if len(vals) == 1:
            vals = vals * n
    else:
        vals = [value] * n
    if len(vals) != n or not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        got = list(value) if isinstance(value, (list, tuple)) else [value] * 2
        raise TorchRuntimeError(
            f"expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={_list(got)}"
        )
    return tuple(vals)


def _list(vals):
    return "[" + ", ".join(str(v) for v in vals) + "]"


def _size(shape):
    return _list(shape)


# --- F.conv1d / F.conv2d --------------------------------------------------------------------


def _conv(nd, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    x, w = as_tensor(input), as_tensor(weight)
    name = f"conv{nd}d"
    if x.array.ndim not in (nd + 1, nd + 2):
        raise TorchRuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of "
            f"size: {_size(x.array.shape)}"
        )
    k = w.array.ndim - 2
    unbatched = x.array.ndim == nd + 1
    if unbatched:
        x = S.unsqueeze(x, 0)
    stride = _ints(stride, k, "stride", name)
    dilation = _ints(dilation, k, "dilation", name)
    ws = w.array.shape
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0,) * k
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise TorchRuntimeError("padding='same' is not supported for strided convolutions")
            total = [d * (kk - 1) for d, kk in zip(dilation, ws[2:])]
            if any(t % 2 for t in total):
                raise TorchRuntimeError(
                    "diffcli supports padding='same' only where the padding is symmetric "
                    "(an odd kernel size, or an even dilation)"
                )
            padding = tuple(t // 2 for t in total)
        else:
            raise TorchRuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _ints(padding, k, "padding", name)
    _check_forward(x, w, bias, stride, padding, dilation, groups)
    b = None if bias is None else as_tensor(bias)
    out = conv.convolution(x, w, b, stride, padding, dilation, groups)
    return S.squeeze(out, 0) if unbatched else out


def _check_forward(x, w, bias, stride, padding, dilation, groups):
    """ATen's check_shape_forward, in its order."""
    xs, ws = x.array.shape, w.array.shape
    if any(s <= 0 for s in stride):
        raise TorchRuntimeError("non-positive stride is not supported")
    if any(p < 0 for p in padding):
        raise TorchRuntimeError("negative padding is not supported")
    if any(d <= 0 for d in dilation):
        raise TorchRuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise TorchRuntimeError("non-positive groups is not supported")
    if len(ws) != len(xs):
        raise TorchRuntimeError(
            f"Expected {len(ws)}-dimensional input for {len(ws)}-dimensional weight {_size(ws)}, but got "
            f"{len(xs)}-dimensional input of size {_size(xs)} instead"
        )
    if ws[0] < groups:
        raise TorchRuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
            f"weight of size {_size(ws)} instead"
        )
    if ws[0] % groups:
        raise TorchRuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
            f"weight of size {_size(ws)} instead"
        )
    if xs[1] != ws[1] * groups:
        raise TorchRuntimeError(
            f"Given groups={groups}, weight of size {_size(ws)}, expected input{_size(xs)} to have "
            f"{ws[1] * groups} channels, but got {xs[1]} channels instead"
        )
    if bias is not None:
        bs = as_tensor(bias).array.shape
        if len(bs) != 1 or bs[0] != ws[0]:
            raise TorchRuntimeError(
                f"Given weight of size {_size(ws)}, expected bias to be 1-dimensional with {ws[0]} "
                f"elements, but got bias of size {_size(bs)} instead"
            )
    padded = [s + 2 * p for s, p in zip(xs[2:], padding)]
    kernel = [(kk - 1) * d + 1 for kk, d in zip(ws[2:], dilation)]
    if any(k > p for k, p in zip(kernel, padded)):
        raise TorchRuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual input size"
        )
    if x.array.dtype != w.array.dtype:
        raise TorchRuntimeError(
            f"expected scalar type {dtypes.scalar_name(x.array.dtype)} but found "
            f"{dtypes.scalar_name(w.array.dtype)}"
        )


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


# --- Conv1d / Conv2d ------------------------------------------------------------------------

# (PyTorch names them as a Python set prints: the order of the messages is torch's under
# PYTHONHASHSEED=0, as record_conv.py records them)
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
_CONV_ARGS = [
    "in_channels",
    "out_channels",
    "kernel_size",
    "stride",
    "padding",
    "dilation",
    "groups",
    "bias",
    "padding_mode",
    "device",
    "dtype",
]


def _ntuple(value, n):
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


def _conv_class(nd):
    name = f"Conv{nd}d"

    def init(interp, self, args, kwargs, node):
        vals = _args(f"{name}.__init__", args, kwargs, _CONV_ARGS, [1, 0, 1, 1, True, "zeros", None, None])
        cin, cout, k, stride, padding, dilation, groups, bias, mode, _device, dtype = vals
        k, stride, dilation = _ntuple(k, nd), _ntuple(stride, nd), _ntuple(dilation, nd)
        padding = padding if isinstance(padding, str) else _ntuple(padding, nd)
        if not isinstance(groups, int) or groups <= 0:
            raise ValueError("groups must be a positive integer")
        if cin % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if cout % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if mode not in _PADDING_MODES:
            raise ValueError(
                "padding_mode must be one of {'replicate', 'reflect', 'zeros', 'circular'}, but got "
                f"padding_mode='{mode}'"
            )
        MODULE.methods["__init__"].fn(interp, self, [], {}, node)
        a = self._attrs
        a.update(in_channels=cin, out_channels=cout, kernel_size=k, stride=stride, padding=padding)
        a.update(dilation=dilation, transposed=False, output_padding=(0,) * nd, groups=groups)
        a["padding_mode"] = mode
        np_dtype = dtypes.to_np(dtype) or dtypes.defaults().float
        a["weight"] = nn_init.empty_parameter((cout, cin // groups, *k), np_dtype)
        a["bias"] = nn_init.empty_parameter((cout,), np_dtype) if bias else None
        reset(interp, self, [], {}, node)

    def reset(interp, self, args, kwargs, node):
        """_ConvNd.reset_parameters: kaiming_uniform_(weight, a=sqrt(5)), bias ~ U(+-1/sqrt(fan_in))."""
        w, b = self._attrs["weight"], self._attrs.get("bias")
        nn_init.kaiming_uniform_(w, a=5**0.5)
        if b is not None:
            fan_in, _ = nn_init.fans(w)
            if fan_in != 0:
                bound = 1 / fan_in**0.5
                nn_init.uniform_(b, -bound, bound)

    def forward(interp, self, args, kwargs, node):
        (x,) = _args(f"{name}.forward", args, kwargs, ["input"], [])
        a = self._attrs
        if a["padding_mode"] != "zeros":
            raise TorchRuntimeError(
                f"diffcli supports padding_mode='zeros' only (got padding_mode='{a['padding_mode']}')"
            )
        return _conv(nd, x, a["weight"], a.get("bias"), a["stride"], a["padding"], a["dilation"], a["groups"])

    def extra(interp, self, args, kwargs, node):
        a = self._attrs
        s = f"{a['in_channels']}, {a['out_channels']}, kernel_size={a['kernel_size']}, stride={a['stride']}"
        pad = a["padding"]
        if pad != (0,) * nd:
            s += f", padding={pad}"
        if a["dilation"] != (1,) * nd:
            s += f", dilation={a['dilation']}"
        if a["groups"] != 1:
            s += f", groups={a['groups']}"
        if a.get("bias") is None:
            s += ", bias=False"
        if a["padding_mode"] != "zeros":
            s += f", padding_mode={a['padding_mode']}"
        return s

    methods = {"__init__": init, "forward": forward, "extra_repr": extra, "reset_parameters": reset}
    return ModuleClass(name, "torch.nn.modules.conv", methods, MODULE)


# --- pooling --------------------------------------------------------------------------------


def _pair(value, what, fn):
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return (value[0], value[0])
        if len(value) != 2:
            raise TorchRuntimeError(f"{fn}: {what} must either be a single int, or a tuple of two ints")
        return tuple(value)
    return (value, value)


def _pool_args(fn, x, kernel_size, stride, padding, dilation):
    x = as_tensor(x)
    k = _pair(kernel_size, "kernel_size", fn)
    s = (
        k
        if stride is None or (isinstance(stride, (list, tuple)) and not stride)
        else _pair(stride, "stride", fn)
    )
    what = "stride" if fn == "max_pool2d" else "stride"
    p = _pair(padding, "padding", fn)
    d = _pair(dilation, "dilation", fn)
    del what
    return x, k, s, p, d


def _pool_checks(x, k, s, p, d, ceil_mode, max_pool):
    if any(v == 0 for v in s):
        raise TorchRuntimeError("stride should not be zero")
    if any(v <= 0 for v in k):
        raise TorchRuntimeError("stride should not be zero")
    if any(v <= 0 for v in d):
        raise TorchRuntimeError(
            f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}"
        )
    if x.array.ndim not in (3, 4) or 0 in x.array.shape[-3:]:
        raise TorchRuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    for kk, pp, dd in zip(k, p, d):
        if pp > ((kk - 1) * dd + 1) // 2:
            raise TorchRuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={pp}, kernel_size={kk} "
                f"and dilation={dd}"
            )
    size = x.array.shape[-2:]
    out = tuple(pool.out_size(n, kk, pp, ss, dd, ceil_mode) for n, kk, pp, ss, dd in zip(size, k, p, s, d))
    if out[0] < 1 or out[1] < 1:
        c = x.array.shape[-3]
        raise TorchRuntimeError(
            f"Given input size: ({c}x{size[0]}x{size[1]}). Calculated output size: "
            f"({c}x{max(out[0], 0)}x{max(out[1], 0)}). Output size is too small"
        )
    return out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    x, k, s, p, d = _pool_args("max_pool2d", input, kernel_size, stride, padding, dilation)
    out = _pool_checks(x, k, s, p, d, ceil_mode, True)
    values, indices = pool.max_pool2d_with_indices(x, k, s, p, d, out)
    return (values, indices) if return_indices else values


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    x = as_tensor(input)
    if x.array.ndim < 3:
        raise TorchRuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    x, k, s, p, d = _pool_args("avg_pool2d", x, kernel_size, stride, padding, 1)
    if divisor_override is not None and divisor_override == 0:
        raise TorchRuntimeError("divisor must be not zero")
    out = _pool_checks(x, k, s, p, d, ceil_mode, False)
    return pool.avg_pool2d(x, k, s, p, out, ceil_mode, count_include_pad, divisor_override)


def _pool_class(name, names, defaults, call, shown):
    def init(interp, self, args, kwargs, node):
        vals = _args(f"{name}.__init__", args, kwargs, names, defaults)
        MODULE.methods["__init__"].fn(interp, self, [], {}, node)
        a = dict(zip(names, vals))
        if a["stride"] is None:
            a["stride"] = a["kernel_size"]
        self._attrs.update(a)

    def forward(interp, self, args, kwargs, node):
        (x,) = _args(f"{name}.forward", args, kwargs, ["input"], [])
        return call(x, self._attrs)

    def extra(interp, self, args, kwargs, node):
        return ", ".join(f"{k}={self._attrs[k]}" for k in shown)

    methods = {"__init__": init, "forward": forward, "extra_repr": extra}
    return ModuleClass(name, "torch.nn.modules.pooling", methods, MODULE)


MAX_POOL2D = _pool_class(
    "MaxPool2d",
    ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"],
    [None, 0, 1, False, False],
    lambda x, a: max_pool2d(
        x, a["kernel_size"], a["stride"], a["padding"], a["dilation"], a["ceil_mode"], a["return_indices"]
    ),
    ["kernel_size", "stride", "padding", "dilation", "ceil_mode"],
)
AVG_POOL2D = _pool_class(
    "AvgPool2d",
    ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"],
    [None, 0, False, True, None],
    lambda x, a: avg_pool2d(
        x,
        a["kernel_size"],
        a["stride"],
        a["padding"],
        a["ceil_mode"],
        a["count_include_pad"],
        a["divisor_override"],
    ),
    ["kernel_size", "stride", "padding"],
)


# --- dropout --------------------------------------------------------------------------------


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def bernoulli_values(n: int, p: float) -> np.ndarray:
    """ATen's serial CPU bernoulli_(p): per element, a double uniform < p (1.0 or 0.0)."""
    u = _random.default_generator.uniform(n, np.float64)
    return (u < p).astype(np.float64)


def dropout(input, p=0.5, training=True, inplace=False):
    """F.dropout as ATen's CPU `_dropout`: input * (bernoulli_(1 - p) / (1 - p))."""
    _check_p(p)
    x = as_tensor(input)
    if not training or p == 0:
        return x
    if p == 1:
        noise = np.zeros(x.array.shape, x.array.dtype)
    else:
        keep = bernoulli_values(x.array.size, 1 - p).reshape(x.array.shape)
        noise = (keep.astype(x.array.dtype) / x.array.dtype.type(1 - p)).astype(x.array.dtype)
    if x.array.dtype.kind != "f":
        raise TorchRuntimeError(
            f"result type Float can't be cast to the desired output type {dtypes.scalar_name(x.array.dtype)}"
        )
    noise_t = Tensor(noise)
    if inplace:
        return engine.INPLACE["mul_"](x, noise_t)
    return engine.FUNCTIONS["mul"](x, noise_t)


def _dropout_init(interp, self, args, kwargs, node):
    p, inplace = _args("Dropout.__init__", args, kwargs, ["p", "inplace"], [0.5, False])
    _check_p(p)
    MODULE.methods["__init__"].fn(interp, self, [], {}, node)
    self._attrs["p"], self._attrs["inplace"] = p, inplace


def _dropout_forward(interp, self, args, kwargs, node):
    (x,) = _args("Dropout.forward", args, kwargs, ["input"], [])
    a = self._attrs
    return dropout(x, a["p"], a["training"], a["inplace"])


DROPOUT = ModuleClass(
    "Dropout",
    "torch.nn.modules.dropout",
    {
        "__init__": _dropout_init,
        "forward": _dropout_forward,
        "extra_repr": lambda interp, self, a, k, n: f"p={self._attrs['p']}, inplace={self._attrs['inplace']}",
    },
    MODULE,
)

CLASSES = {
    "Conv1d": _conv_class(1),
    "Conv2d": _conv_class(2),
    "MaxPool2d": MAX_POOL2D,
    "AvgPool2d": AVG_POOL2D,
    "Dropout": DROPOUT,
}
FUNCTIONS = {
    "conv1d": conv1d,
    "conv2d": conv2d,
    "max_pool2d": max_pool2d,
    "avg_pool2d": avg_pool2d,
    "dropout": dropout,
}
