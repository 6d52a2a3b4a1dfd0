"""`torch.nn.Parameter`: a leaf Tensor that a Module registers as one of its parameters.

As `torch.Tensor._make_subclass(cls, data, requires_grad)`: it shares the data's storage
and version counter (a change through either is seen by both), and prints as PyTorch's
`Parameter containing:` followed by the tensor. The results of operations on it are plain
Tensors (the engine makes `Tensor`s), as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from . import errors
from .tensor import Tensor


class Parameter(Tensor):
    __slots__ = ()

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


def make_parameter(data=None, requires_grad=True) -> Parameter:
    """`nn.Parameter(data=None, requires_grad=True)`."""
    if data is None:
        data = Tensor(np.empty(0, np.float32))
    if not isinstance(data, Tensor):
        raise errors.TorchTypeError(
            f"_make_subclass(): argument 'data' (position 2) must be Tensor, not {type(data).__name__}"
        )
    requires_grad = bool(requires_grad)
    if requires_grad and data.array.dtype.kind not in "fc":
        raise errors.TorchRuntimeError(
            "Only Tensors of floating point and complex dtype can require gradients"
        )
    p = Parameter(data.array, requires_grad=requires_grad)
    p._version = data._version
    return p
