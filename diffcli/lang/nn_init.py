"""`torch.nn.init`: the initialisers, drawing from the engine's copy of PyTorch's CPU
generator (`engine/ops/random.py`) exactly as ATen's kernels do, so that after
`torch.manual_seed(s)` a `Linear`'s weights are PyTorch's bit for bit.

- `uniform_(t, a, b)`: ATen's uniform_kernel: `from`, `to` cast to the tensor's dtype; per
  element (memory order) `x = (random() & (2^24 - 1)) * 2^-24` (float32; 53 bits of
  random64() for float64) in double, then `x * (to - from) + from` in double, cast.
- `normal_(t, mean, std)`: ATen's normal_kernel: 16 or more contiguous float32 values take
  the AVX2 normal_fill (`fmadd(n, std, mean)` on the standard values); fewer take the
  serial `normal_distribution<double>` (`z * std + mean` in double, cast).
- kaiming/xavier: PyTorch's fan and gain arithmetic in Python floats, then the above.
Every initialiser works under no_grad and bumps the version counter, as an in-place op.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..engine import errors
from ..engine.ops import random as _random
from ..engine.ops.random import _fma
from ..engine.parameter import Parameter
from ..engine.tensor import Tensor

_MASK24 = np.uint64((1 << 24) - 1)
_MASK53 = np.uint64((1 << 53) - 1)


def empty_parameter(shape, dtype) -> Parameter:
    return Parameter(np.zeros(shape, dtype), requires_grad=True)


def _check(t):
    if not isinstance(t, Tensor):
        raise errors.TorchTypeError(f"expected a Tensor, got {type(t).__name__}")
    if t.array.dtype.kind != "f":
        raise errors.not_implemented("check_uniform_bounds", t.array.dtype)


def _write(t: Tensor, values: np.ndarray) -> Tensor:
    t.array[...] = values.reshape(t.array.shape)
    t._version[0] += 1
    return t


def _uniform_values(n, dtype, low, high) -> np.ndarray:
    gen = _random.default_generator
    fr, to = dtype.type(low), dtype.type(high)
    if dtype == np.float64:
        x = (gen.random64(n) & _MASK53).astype(np.float64) * 2.0**-53
    else:
        x = (gen.random(n) & _MASK24).astype(np.float64) * 2.0**-24
    span = float(dtype.type(to - fr))
    if dtype == np.float64 and n <= 1 << 16:  # x * span + from, fused (one rounding), as compiled
        s, f = Fraction(span), Fraction(float(fr))
        return np.array([float(Fraction(v) * s + f) for v in x.tolist()], np.float64)
    return (x * span + float(fr)).astype(dtype)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    _check(tensor)
    if a > b:
        raise errors.TorchRuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}"
        )
    return _write(tensor, _uniform_values(tensor.array.size, tensor.array.dtype, a, b))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    _check(tensor)
    if std < 0:
        raise errors.TorchRuntimeError(f"normal expects std >= 0.0, but found std {std}")
    n, dtype = tensor.array.size, tensor.array.dtype
    z = _random.default_generator.normal(n, dtype if n >= 16 else np.float64)
    if n >= 16 and dtype == np.float32:
        vals = _fma(z, np.float32(std), np.float32(mean))
    else:
        vals = (z.astype(np.float64) * std + mean).astype(dtype)
    return _write(tensor, vals)


def constant_(tensor, val):
    _check(tensor)
    return _write(tensor, np.full(tensor.array.size, val, tensor.array.dtype))


def zeros_(tensor):
    return constant_(tensor, 0)


def ones_(tensor):
    return constant_(tensor, 1)


def fans(tensor):
    """_calculate_fan_in_and_fan_out."""
    shape = tensor.array.shape
    if len(shape) < 2:
        raise errors.TorchValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def calculate_gain(nonlinearity, param=None):
    linear = (
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    )
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise errors.TorchValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise errors.TorchValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise errors.TorchValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.array.shape:
        errors.warn("Initializing zero-element tensors is a no-op")
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tensor.array.shape:
        errors.warn("Initializing zero-element tensors is a no-op")
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0, std)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std)


FUNCTIONS = {
    f.__name__: f
    for f in (
        uniform_,
        normal_,
        constant_,
        zeros_,
        ones_,
        calculate_gain,
        kaiming_uniform_,
        kaiming_normal_,
        xavier_uniform_,
        xavier_normal_,
    )
}
