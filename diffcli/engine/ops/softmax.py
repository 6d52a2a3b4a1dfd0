"""softmax and log_softmax (SoftmaxBackward0, LogSoftmaxBackward0), with PyTorch's
backward ops for them (_softmax_backward_data...), so that their gradients record what
PyTorch records under create_graph."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import aten_softmax, rows
from .conversion import to_dtype
from .reductions import sum
from .rows import expose
from .unary import exp


def softmax(a, dim=None, dtype=None):
    a = as_tensor(a)
    if dtype is not None:
        a = to_dtype(a, dtype)
    d = _softmax_dim(dim, a.array.ndim)
    x = _softmax_input(a, d, "softmax")
    if x.size == 0:
        return _SOFTMAX.record(x.copy(), (a,), fargs=(d,))
    out = aten_softmax.forward(x, d, log=False)
    if out is None:
        with np.errstate(all="ignore"):
            e = np.exp(x - np.max(x, axis=d, keepdims=True)) if x.ndim else np.ones_like(x)
            out = np.ascontiguousarray(e / np.sum(e, axis=d, keepdims=True)) if x.ndim else e

    return _SOFTMAX.record(out, (a,), fargs=(d,))


def _sum_keep(t: Tensor, d: int) -> Tensor:
    """t.sum(d, keepdim=True) (SumBackward1, also for a 0-d t and d 0)."""
    return sum(t, d, keepdim=True)


def _softmax_backward_data(g: Tensor, y: Tensor, d: int) -> Tensor:
    """PyTorch's _softmax_backward_data(grad, output) (SoftmaxBackwardDataBackward0,
    saving both): y (g - sum(g y)). Its derivatives: this op again in the gradient,
    softmax_double_backward in the output."""
    gd, yd = g.array, y.array
    out = aten_softmax.backward_data(gd, yd, d, log=False)
    if out is None:
        with np.errstate(all="ignore"):
            out = yd * (gd - (np.sum(gd * yd, axis=d, keepdims=True) if yd.ndim else gd * yd))
    return _SOFTMAX_DATA.record(out.astype(gd.dtype, copy=False), (g, y), fargs=(d,))


def softmax_data_backward(gg: Tensor, go: Tensor, o: Tensor, d: int):
    """_softmax_backward_data's derivatives, both (as diffcli has computed them): this op
    again for the gradient, softmax_double_backward(grad, grad_output, dim, output) for
    the output."""
    return (
        _softmax_backward_data(gg, o, d),
        go * gg - _sum_keep(o * go, d) * gg - go * _sum_keep(o * gg, d),
    )


def log_softmax(a, dim=None, dtype=None):
    a = as_tensor(a)
    if dtype is not None:
        a = to_dtype(a, dtype)
    d = _softmax_dim(dim, a.array.ndim, "log_softmax")
    x = _softmax_input(a, d, "log_softmax")
    if x.size == 0:
        return _LOG_SOFTMAX.record(x.copy(), (a,), fargs=(d,))
    out = aten_softmax.forward(x, d, log=True)
    if out is None:
        with np.errstate(all="ignore"):
            if x.ndim:
                m = np.max(x, axis=d, keepdims=True)
                out = np.ascontiguousarray(x - m - np.log(np.sum(np.exp(x - m), axis=d, keepdims=True)))
            else:
                out = x - x

    return _LOG_SOFTMAX.record(out, (a,), fargs=(d,))


def _log_softmax_backward_data(g: Tensor, y: Tensor, d: int) -> Tensor:
    """PyTorch's _log_softmax_backward_data(grad, output) (LogSoftmaxBackwardDataBackward0,
    saving both): g - exp(y) sum(g), with PyTorch's formulas for its derivatives."""
    gd, yd = g.array, y.array
    out = aten_softmax.backward_data(gd, yd, d, log=True)
    if out is None:
        with np.errstate(all="ignore"):
            out = gd - np.exp(yd) * (np.sum(gd, axis=d, keepdims=True) if yd.ndim else gd)
    return _LOG_SOFTMAX_DATA.record(out.astype(gd.dtype, copy=False), (g, y), fargs=(d,))


def log_softmax_data_backward(gg: Tensor, go: Tensor, o: Tensor, d: int):
    """_log_softmax_backward_data's derivatives, both (as diffcli has computed them)."""
    return gg - _sum_keep(gg * exp(o), d), -_sum_keep(go, d) * exp(o) * gg


def _softmax_input(a: Tensor, d: int, name: str) -> np.ndarray:
    """The data softmax/log_softmax work on: PyTorch has no integer or bool kernel (its
    "lastdim" kernel serves the last dim and 0-d tensors); an empty tensor is returned as
    it is, without a kernel."""
    x = a.array
    if x.dtype.kind != "f" and x.size:
        last = x.ndim == 0 or d == x.ndim - 1
        raise errors.not_implemented(
            f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl", x.dtype
        )
    return x


def _softmax_dim(dim, ndim, name="softmax"):
    if dim is None:
        dim = 0 if ndim in (0, 1, 3) else 1
        errors.warn(
            f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument."
        )
    return _wrap_dim(int(dim), ndim)


def softmax_backward(g: Tensor, y: Tensor, d: int) -> Tensor:
    """SoftmaxBackward0's formula: _softmax_backward_data (an empty tensor: g * y)."""
    return g * y if y.array.size == 0 else _softmax_backward_data(g, y, d)


def log_softmax_backward(g: Tensor, y: Tensor, d: int) -> Tensor:
    """LogSoftmaxBackward0's formula: _log_softmax_backward_data (an empty tensor: g * 1)."""
    return g * 1 if y.array.size == 0 else _log_softmax_backward_data(g, y, d)


rows.helpers(
    tensor={
        f.__name__: f
        for f in (softmax_backward, log_softmax_backward, softmax_data_backward, log_softmax_data_backward)
    }
)

# --- the rows: per op PyTorch's node and, per input, the gradient formula and the
# vector-Jacobian product an explanation shows -----------------------------------------

_DIM = ("dim", None)
_SOFTMAX = rows.text_row(
    "softmax",
    "SoftmaxBackward0",
    ("result * (grad - (grad * result).sum(dim, keepdim=True))",),
    saves=("result",),
    args=(_DIM,),
    formulas=(lambda grad, self, result, dim: softmax_backward(grad, result, dim),),
)
_LOG_SOFTMAX = rows.text_row(
    "log_softmax",
    "LogSoftmaxBackward0",
    ("grad - exp(result) * grad.sum(dim, keepdim=True)",),
    saves=("result",),
    args=(_DIM,),
    formulas=(lambda grad, self, result, dim: log_softmax_backward(grad, result, dim),),
)
# the backward ops (nodes only the rows above record, under create_graph): both inputs'
# gradients in one formula, computed and saved whichever requires grad
_DATA_INPUTS = ("grad_output", "output")
_SOFTMAX_DATA = rows.text_row(
    "_softmax_backward_data",
    "SoftmaxBackwardDataBackward0",
    (
        "output * (grad - (grad * output).sum(dim, keepdim=True))",
        "grad_output * grad - (output * grad_output).sum(dim, keepdim=True) * grad"
        " - grad_output * (output * grad).sum(dim, keepdim=True)",
    ),
    inputs=_DATA_INPUTS,
    saves=_DATA_INPUTS,
    args=(_DIM,),
    joint=lambda grad, grad_output, output, result, dim, needs: softmax_data_backward(
        grad, grad_output, output, dim
    ),
)
_LOG_SOFTMAX_DATA = rows.text_row(
    "_log_softmax_backward_data",
    "LogSoftmaxBackwardDataBackward0",
    (
        "grad - (grad * exp(output)).sum(dim, keepdim=True)",
        "-grad_output.sum(dim, keepdim=True) * exp(output) * grad",
    ),
    inputs=_DATA_INPUTS,
    saves=_DATA_INPUTS,
    args=(_DIM,),
    joint=lambda grad, grad_output, output, result, dim, needs: log_softmax_data_backward(
        grad, grad_output, output, dim
    ),
)

expose(softmax, _SOFTMAX, names=("softmax",))
expose(log_softmax, _LOG_SOFTMAX, names=("log_softmax",))
