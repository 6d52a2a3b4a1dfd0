"""The activations of torch.nn.functional beyond relu/gelu/elu, one row each (rows.py says
what a row holds): hardtanh (and relu6, hardtanh(x, 0, 6), as PyTorch computes it),
selu (EluBackward0 with SELU's alpha and scale), celu (CeluBackward0), threshold,
hardsigmoid, hardswish, mish, hardshrink, softshrink and log_sigmoid; softsign and
tanhshrink are PyTorch's Python compositions (x / (|x| + 1), x - tanh(x)), composed the
same way. Their backward ops are in activation_backward.py.

F's `inplace=True` runs the op in place (the in-place machinery), as F does."""

from __future__ import annotations

import numpy as np

from . import arithmetic as A
from . import inplace as IP
from . import rows
from . import unary as U
from .activation_backward import (
    hardshrink_backward,
    hardsigmoid_backward,
    hardswish_backward,
    hardtanh_backward,
    log_sigmoid_backward,
    mish_backward,
    softshrink_backward,
)
from .rows import Kink, expose
from .unary import _row
from .unary_args import elu
from .unary_backward import elu_backward, threshold_backward

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def celu_input_scale(alpha):
    """CeluBackward0's input_scale: PyTorch's `1.0 / alpha.toFloat()` (alpha rounded to
    float32 first)."""
    return 1.0 / float(np.float32(alpha))


rows.helpers(tensor={"celu_input_scale": celu_input_scale})

AT_BOUNDS = Kink(
    "self == min_val or self == max_val",
    lambda self, min_val, max_val, **_: (self == min_val) | (self == max_val),
    "0",
)
AT_LAMBDA = Kink("abs(self) == lambd", lambda self, lambd, **_: np.abs(self) == lambd, "0")
AT_THRESHOLD = Kink("self == threshold", lambda self, threshold, **_: self == threshold, "0")
AT_THREES = Kink("self == -3 or self == 3", lambda self, **_: np.abs(self) == 3, "0")


def _keep(x, out):
    return np.asarray(out).astype(x.dtype, copy=False)


def _hardtanh_kernel(a, min_val, max_val):
    x = a.array
    return _keep(x, np.minimum(np.maximum(x, min_val), max_val))


def _celu_kernel(a, alpha):
    x = a.array
    return _keep(x, np.where(x > 0, x, np.expm1(x * (1.0 / alpha)) * alpha))


def _threshold_kernel(a, threshold, value):
    x = a.array
    return _keep(x, np.where(x > threshold, x, value))


def _hardsigmoid_kernel(a):
    x = a.array
    return _keep(x, np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0)


def _hardswish_kernel(a):
    x = a.array
    return _keep(x, x * np.minimum(np.maximum(x + 3.0, 0.0), 6.0) / 6.0)


def _mish_kernel(a):
    x = a.array
    return _keep(x, x * np.tanh(np.log1p(np.exp(x))))


def _shrink_kernel(soft):
    def kernel(a, lambd):
        x = a.array
        inside = (x >= -lambd) & (x <= lambd)
        if soft:
            return _keep(x, np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0.0)))
        return _keep(x, np.where(inside, 0.0, x))

    return kernel


def _log_sigmoid_kernel(a):
    x = a.array
    return _keep(x, np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x))))


hardtanh_row = _row(
    "hardtanh",
    "HardtanhBackward0",
    None,
    lambda grad, self, result, min_val, max_val: hardtanh_backward(grad, self, min_val, max_val),
    "where(self <= min_val, 0.0, where(self >= max_val, 0.0, 1.0))",
    ("self",),
    args=(("min_val", -1.0), ("max_val", 1.0)),
    kink=AT_BOUNDS,
    kernel=_hardtanh_kernel,
    keeps_dtype=True,
    method=False,
    names=(),
)
celu_row = _row(
    "celu",
    "CeluBackward0",
    None,
    lambda grad, self, result, alpha: elu_backward(grad, self, alpha, 1.0, celu_input_scale(alpha)),
    "where(self > 0, 1.0, exp(self / alpha))",
    ("self",),
    args=(("alpha", 1.0),),
    kernel=_celu_kernel,
    no_kernel=("elu_cpu", "biu"),
    method=False,
    names=(),
)
threshold_row = _row(
    "threshold",
    "ThresholdBackward0",
    None,
    lambda grad, self, result, threshold, value: threshold_backward(grad, self, threshold),
    "where(self > threshold, 1.0, 0.0)",
    ("self",),
    args=(("threshold", 0.0), ("value", 0.0)),
    kink=AT_THRESHOLD,
    kernel=_threshold_kernel,
    keeps_dtype=True,
    method=False,
    names=(),
)
hardsigmoid_row = _row(
    "hardsigmoid",
    "HardsigmoidBackward0",
    None,
    lambda grad, self, result: hardsigmoid_backward(grad, self),
    "where(abs(self) < 3, 0.1666666716337204, 0.0)",  # (1/6 as PyTorch's float 1.0f / 6.0f)
    ("self",),
    kink=AT_THREES,
    kernel=_hardsigmoid_kernel,
    no_kernel=("hardsigmoid_cpu", "biu"),
    method=False,
    names=(),
)
hardswish_row = _row(
    "hardswish",
    "HardswishBackward0",
    None,
    lambda grad, self, result: hardswish_backward(grad, self),
    "where(self <= -3, 0.0, where(self < 3, self / 3 + 0.5, 1.0))",
    ("self",),
    kink=Kink("self == -3 or self == 3", AT_THREES.where, "where(self < 0, 0, 1)"),
    kernel=_hardswish_kernel,
    no_kernel=("hardswish_cpu", "biu"),
    method=False,
    names=(),
)
mish_row = _row(
    "mish",
    "MishBackward0",
    None,
    lambda grad, self, result: mish_backward(grad, self),
    "tanh(softplus(self)) + self * sigmoid(self) * (1 - tanh(softplus(self))**2)",
    ("self",),
    kernel=_mish_kernel,
    no_kernel=("mish_cpu", "biu"),
    method=False,
    names=(),
)
hardshrink_row = _row(
    "hardshrink",
    "HardshrinkBackward0",
    None,
    lambda grad, self, result, lambd: hardshrink_backward(grad, self, lambd),
    "where(abs(self) <= lambd, 0.0, 1.0)",
    ("self",),
    args=(("lambd", 0.5),),
    kink=AT_LAMBDA,
    kernel=_shrink_kernel(False),
    no_kernel=("hardshrink_cpu", "biu"),
    method=True,
    names=("hardshrink",),
)
softshrink_row = _row(
    "softshrink",
    "SoftshrinkBackward0",
    None,
    lambda grad, self, result, lambd: softshrink_backward(grad, self, lambd),
    "where(abs(self) <= lambd, 0.0, 1.0)",
    ("self",),
    args=(("lambd", 0.5),),
    kink=AT_LAMBDA,
    kernel=_shrink_kernel(True),
    no_kernel=("softshrink_check", "biu"),
    method=False,
    names=("softshrink",),
)
log_sigmoid_row = _row(
    "log_sigmoid",
    "LogSigmoidBackward0",
    None,
    lambda grad, self, result: log_sigmoid_backward(grad, self),
    "1 - sigmoid(self)",
    ("self",),
    kernel=_log_sigmoid_kernel,
    no_kernel=("log_sigmoid_cpu", "biu"),
    method=False,
    names=(),
)


def _maybe_inplace(fn, input, inplace, *args):
    return IP.apply(input, fn, *args) if inplace else fn(input, *args)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _maybe_inplace(hardtanh_row, input, inplace, min_val, max_val)


def relu6(input, inplace=False):
    """F.relu6: hardtanh(input, 0, 6), HardtanhBackward0."""
    return _maybe_inplace(hardtanh_row, input, inplace, 0.0, 6.0)


def selu(input, inplace=False):
    """F.selu / torch.selu: PyTorch's elu with SELU's alpha and scale (EluBackward0)."""
    return _maybe_inplace(elu, input, inplace, SELU_ALPHA, SELU_SCALE, 1.0)


def celu(input, alpha=1.0, inplace=False):
    return _maybe_inplace(celu_row, input, inplace, alpha)


def threshold(input, threshold, value, inplace=False):
    return _maybe_inplace(threshold_row, input, inplace, threshold, value)


def hardsigmoid(input, inplace=False):
    return _maybe_inplace(hardsigmoid_row, input, inplace)


def hardswish(input, inplace=False):
    return _maybe_inplace(hardswish_row, input, inplace)


def mish(input, inplace=False):
    return _maybe_inplace(mish_row, input, inplace)


def logsigmoid(input):
    return log_sigmoid_row(input)


def softsign(input):
    """F.softsign: input / (input.abs() + 1), PyTorch's composition (DivBackward0)."""
    return A.div(input, A.add(U.abs(input), 1))


def tanhshrink(input):
    """F.tanhshrink: input - input.tanh() (SubBackward0)."""
    return A.sub(input, U.tanh(input))


expose(hardtanh, hardtanh_row.row, names=("hardtanh",), method=False)
expose(
    relu6,
    hardtanh_row.row,
    names=("relu6",),
    method=False,
    sym="where(input <= 0, 0, where(input >= 6, 6, input))",
)
expose(
    selu,
    elu.row,
    names=("selu",),
    method=False,
    sym=f"where(input > 0, {SELU_SCALE!r} * input, {SELU_ALPHA * SELU_SCALE!r} * (exp(input) - 1))",
)
expose(celu, celu_row.row, names=("celu",), method=False)
expose(threshold, threshold_row.row, names=("threshold",), method=False)
expose(hardsigmoid, hardsigmoid_row.row, names=("hardsigmoid",), method=False)
expose(hardswish, hardswish_row.row, names=("hardswish",), method=False)
expose(mish, mish_row.row, names=("mish",), method=False)
expose(logsigmoid, log_sigmoid_row.row, names=("logsigmoid",), method=False)
expose(
    softsign,
    rows.ROWS["abs"],
    rows.ROWS["add"],
    rows.ROWS["div.Tensor"],
    names=("softsign",),
    method=False,
    sym="input / (abs(input) + 1)",
)
expose(
    tanhshrink,
    rows.ROWS["tanh"],
    rows.ROWS["sub"],
    names=("tanhshrink",),
    method=False,
    sym="input - tanh(input)",
)
