"""The normalisation layers of `torch.nn`: LayerNorm, BatchNorm1d and BatchNorm2d (training
statistics, running statistics as buffers, eval mode), and `F.layer_norm`, `F.batch_norm`,
with PyTorch's checks, errors and printing. The nodes are the engine's
(`engine/ops/norm.py`)."""

from __future__ import annotations

import numpy as np

from ..engine import dtypes
from ..engine.errors import TorchRuntimeError
from ..engine.function import as_tensor
from ..engine.grad_mode import no_grad
from ..engine.ops import norm
from ..engine.parameter import Parameter
from ..engine.tensor import Tensor
from .nn import MODULE, ModuleClass, _args
from .nn_registry import _register_buffer


def _size(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    x = as_tensor(input)
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    n = len(shape)
    if n == 0 or x.array.ndim < n or tuple(x.array.shape[-n:]) != shape:
        raise TorchRuntimeError(
            f"Given normalized_shape={_size(shape)}, expected input with shape [*, {', '.join(map(str, shape))}], "
            f"but got input of size{_size(x.array.shape)}"
        )
    w = None if weight is None else as_tensor(weight)
    b = None if bias is None else as_tensor(bias)
    return norm.native_layer_norm(x, shape, w, b, eps)


def batch_norm(
    input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5
):
    x = as_tensor(input)
    a = x.array
    if training:
        size = a.shape[0] * int(np.prod(a.shape[2:], dtype=np.int64))
        if size == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size torch.Size({_size(a.shape)})"
            )
    c = a.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.array.size != c:
            raise TorchRuntimeError(f"{name} should contain {c} elements not {t.array.size}")
    w = None if weight is None else as_tensor(weight)
    b = None if bias is None else as_tensor(bias)
    if training or running_mean is None:
        mean, var = norm.batch_stats(a)
        if training and running_mean is not None:
            n = a.size // c
            _update(running_mean, mean, momentum)
            _update(running_var, var * n / max(n - 1, 1), momentum)
    else:
        mean = running_mean.array.astype(np.float64)
        var = running_var.array.astype(np.float64)
    invstd = 1.0 / np.sqrt(var + eps)
    return norm.native_batch_norm(x, w, b, bool(training or running_mean is None), mean, invstd)


def _update(buf: Tensor, stat, momentum):
    """running = (1 - momentum) * running + momentum * stat, in place."""
    dt = buf.array.dtype
    buf.array[...] = ((1 - momentum) * buf.array.astype(np.float64) + momentum * stat).astype(dt)
    buf._version[0] += 1


# --- LayerNorm ------------------------------------------------------------------------------


def _ln_init(interp, self, args, kwargs, node):
    shape, eps, affine, bias, _device, dtype = _args(
        "LayerNorm.__init__",
        args,
        kwargs,
        ["normalized_shape", "eps", "elementwise_affine", "bias", "device", "dtype"],
        [1e-5, True, True, None, None],
    )
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    MODULE.methods["__init__"].fn(interp, self, [], {}, node)
    np_dtype = dtypes.to_np(dtype) or dtypes.defaults().float
    a = self._attrs
    a.update(normalized_shape=shape, eps=eps, elementwise_affine=affine)
    a["weight"] = Parameter(np.ones(shape, np_dtype), requires_grad=True) if affine else None
    a["bias"] = Parameter(np.zeros(shape, np_dtype), requires_grad=True) if affine and bias else None


def _ln_forward(interp, self, args, kwargs, node):
    (x,) = _args("LayerNorm.forward", args, kwargs, ["input"], [])
    a = self._attrs
    return layer_norm(x, a["normalized_shape"], a.get("weight"), a.get("bias"), a["eps"])


def _ln_extra(interp, self, args, kwargs, node):
    a = self._attrs
    return (
        f"{a['normalized_shape']}, eps={a['eps']}, elementwise_affine={a['elementwise_affine']}, "
        f"bias={a.get('bias') is not None}"
    )


LAYER_NORM = ModuleClass(
    "LayerNorm",
    "torch.nn.modules.normalization",
    {"__init__": _ln_init, "forward": _ln_forward, "extra_repr": _ln_extra},
    MODULE,
)


# --- BatchNorm1d / BatchNorm2d --------------------------------------------------------------


def _bn_class(name, dims, message):
    def init(interp, self, args, kwargs, node):
        c, eps, momentum, affine, track, bias, _device, dtype = _args(
            f"{name}.__init__",
            args,
            kwargs,
            ["num_features", "eps", "momentum", "affine", "track_running_stats", "bias", "device", "dtype"],
            [1e-5, 0.1, True, True, True, None, None],
        )
        MODULE.methods["__init__"].fn(interp, self, [], {}, node)
        np_dtype = dtypes.to_np(dtype) or dtypes.defaults().float
        a = self._attrs
        a.update(num_features=c, eps=eps, momentum=momentum, affine=affine, track_running_stats=track)
        a["weight"] = Parameter(np.ones(c, np_dtype), requires_grad=True) if affine else None
        a["bias"] = Parameter(np.zeros(c, np_dtype), requires_grad=True) if affine and bias else None
        if track:
            _register_buffer(interp, self, ["running_mean", Tensor(np.zeros(c, np_dtype))], {}, node)
            _register_buffer(interp, self, ["running_var", Tensor(np.ones(c, np_dtype))], {}, node)
            _register_buffer(interp, self, ["num_batches_tracked", Tensor(np.array(0, np.int64))], {}, node)
        else:
            for k in ("running_mean", "running_var", "num_batches_tracked"):
                _register_buffer(interp, self, [k, None], {}, node)

    def forward(interp, self, args, kwargs, node):
        (x,) = _args(f"{name}.forward", args, kwargs, ["input"], [])
        x = as_tensor(x)
        if x.array.ndim not in dims:
            raise ValueError(message.format(x.array.ndim))
        a = self._attrs
        momentum = a["momentum"]
        factor = 0.0 if momentum is None else momentum
        if a["training"] and a["track_running_stats"] and a.get("num_batches_tracked") is not None:
            count = a["num_batches_tracked"]
            with no_grad():
                count.array[...] += 1
                count._version[0] += 1
            factor = 1.0 / float(count.array) if momentum is None else momentum
        rm, rv = a.get("running_mean"), a.get("running_var")
        training = a["training"] or (rm is None and rv is None)
        use_stats = not a["training"] or a["track_running_stats"]
        return batch_norm(
            x,
            rm if use_stats else None,
            rv if use_stats else None,
            a.get("weight"),
            a.get("bias"),
            training,
            factor,
            a["eps"],
        )

    def extra(interp, self, args, kwargs, node):
        a = self._attrs
        return (
            f"{a['num_features']}, eps={a['eps']}, momentum={a['momentum']}, affine={a['affine']}, "
            f"bias={a.get('bias') is not None}, track_running_stats={a['track_running_stats']}"
        )

    methods = {"__init__": init, "forward": forward, "extra_repr": extra}
    return ModuleClass(name, "torch.nn.modules.batchnorm", methods, MODULE)


CLASSES = {
    "LayerNorm": LAYER_NORM,
    "BatchNorm1d": _bn_class("BatchNorm1d", (2, 3), "expected 2D or 3D input (got {}D input)"),
    "BatchNorm2d": _bn_class("BatchNorm2d", (4,), "expected 4D input (got {}D input)"),
}
FUNCTIONS = {"layer_norm": layer_norm, "batch_norm": batch_norm}
