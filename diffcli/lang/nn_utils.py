"""`torch.nn.utils` as tutorials use it: `clip_grad_norm_` and `clip_grad_value_` (also
under `torch.nn.utils.clip_grad`), `parameters_to_vector` and `vector_to_parameters`, as
PyTorch computes them (the total norm is the norm of the per-gradient norms, the clip
coefficient `max_norm / (total + 1e-6)` clamped at 1 multiplies every gradient in place,
all without recording a graph)."""

from __future__ import annotations

import math

from .. import engine
from ..engine.context import RunContext
from ..engine.errors import TorchRuntimeError, TorchTypeError
from ..engine.ops.creation import tensor as make_tensor
from ..engine.tensor import Tensor

F = engine.FUNCTIONS


def _params(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    max_norm, norm_type = float(max_norm), float(norm_type)
    with RunContext(grad_enabled=False):
        if not grads:
            return make_tensor(0.0)
        norms = [F["norm"](g, norm_type) for g in grads]
        total = F["norm"](F["stack"](norms), norm_type)
        value = total.item()
        if error_if_nonfinite and (math.isnan(value) or math.isinf(value)):
            raise TorchRuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                "anyway, set `error_if_nonfinite=False`"
            )
        coef = F["clamp"](max_norm / (total + 1e-6), None, 1.0)
        for g in grads:
            g.mul_(coef)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    with RunContext(grad_enabled=False):
        for p in _params(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    return F["cat"]([p.view(-1) for p in _params(parameters)])


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, Tensor):
        raise TorchTypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in _params(parameters):
        n = p.numel()
        p.data = vec[pointer : pointer + n].view_as(p).data
        pointer += n


CLIP_GRAD = {"clip_grad_norm_": clip_grad_norm_, "clip_grad_value_": clip_grad_value_}
FUNCTIONS = {
    **CLIP_GRAD,
    "clip_grad_norm": clip_grad_norm_,
    "parameters_to_vector": parameters_to_vector,
    "vector_to_parameters": vector_to_parameters,
}
