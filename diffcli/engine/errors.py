"""Every error and warning the engine raises, with PyTorch's exception type and wording.

The engine raises these and nothing else; the CLI maps them to `TYPE: message` and exit 1.
"""
from __future__ import annotations

import numpy as np


class EngineError(Exception):
    """An error the script caused; `type_name` is the PyTorch/Python exception type."""

    type_name = "RuntimeError"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TorchRuntimeError(EngineError):
    type_name = "RuntimeError"


class TorchTypeError(EngineError):
    type_name = "TypeError"


class TorchIndexError(EngineError):
    type_name = "IndexError"


class TorchValueError(EngineError):
    type_name = "ValueError"


class LimitError(EngineError):
    """A safety cap was exceeded (tensor size, memory, loop count...)."""

    type_name = "LimitError"


# --- messages -----------------------------------------------------------------

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
NO_GRAD_FN = "element {i} of tensors does not require grad and does not have a grad_fn"
IMPLICIT_SCALAR = "grad can be implicitly created only for scalar outputs"
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
INT_REQUIRES_GRAD_CTOR = "Only Tensors of floating point and complex dtype can require gradients"
INT_REQUIRES_GRAD_METHOD = "only Tensors of floating point dtype can require gradients"
INT_REQUIRES_GRAD_ATTR = "only Tensors of floating point and complex dtype can require gradients"
NONLEAF_REQUIRES_GRAD_FALSE = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
)
UNUSED_INPUT = (
    "One of the differentiated Tensors appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
INPUT_NOT_REQUIRING_GRAD = "One of the differentiated Tensors does not require grad"

NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
    "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)
CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)"
)


def torch_type_name(dtype: np.dtype) -> str:
    """`torch.FloatTensor` style name used inside some RuntimeError texts."""
    return {
        "float64": "torch.DoubleTensor",
        "float32": "torch.FloatTensor",
        "int64": "torch.LongTensor",
        "bool": "torch.BoolTensor",
    }.get(np.dtype(dtype).name, "torch.Tensor")


def shape_text(shape) -> str:
    return "torch.Size([" + ", ".join(str(int(s)) for s in shape) + "])"


def version_error(tensor, saved_version: int) -> TorchRuntimeError:
    desc = f"[{torch_type_name(tensor.data_.dtype)} [{', '.join(str(s) for s in tensor.shape)}]]"
    fn = tensor.grad_fn
    if fn is not None:
        name = fn.name()
        if name.endswith("Backward0") or name.endswith("Backward1"):
            name = name[: -len("Backward0")]
        elif name == "CopySlices":
            name = "torch::autograd::CopySlices"
        desc += f", which is output 0 of {name}"
    return TorchRuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {desc}, is at version {tensor._version[0]}; expected version {saved_version} "
        "instead. Hint: enable anomaly detection to find the operation that failed to compute "
        "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def broadcast_error(a_shape, b_shape) -> TorchRuntimeError:
    """PyTorch's text for two shapes that do not broadcast."""
    a, b = list(a_shape), list(b_shape)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    for i in range(n - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1 and b[i] != 1:
            return TorchRuntimeError(
                f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) "
                f"at non-singleton dimension {i}"
            )
    return TorchRuntimeError("shapes cannot be broadcast")


# --- warnings -----------------------------------------------------------------

_warning_sink = None


def set_warning_sink(sink):
    """Install `sink(category, message)`; returns the previous one. None = Python warnings."""
    global _warning_sink
    previous, _warning_sink = _warning_sink, sink
    return previous


def warn(message: str, category: str = "UserWarning") -> None:
    if _warning_sink is not None:
        _warning_sink(category, message)
    else:
        import warnings

        warnings.warn(message, UserWarning, stacklevel=3)
