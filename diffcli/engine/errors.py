"""Every error and warning the engine raises, with PyTorch's exception type and wording.

The engine raises these and nothing else; the CLI maps them to `TYPE: message` and exit 1.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import dtypes
from .context import POLL  # noqa: F401  (read here by the engine's loops)
from .cppnodes import CPP_NODES, qualified


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


class TorchNotImplementedError(TorchRuntimeError):
    """A kernel PyTorch lacks for a dtype (`"abs_cpu" not implemented for 'Bool'`). As in
    Python, NotImplementedError is a RuntimeError: `except RuntimeError` catches it."""

    type_name = "NotImplementedError"


class LimitError(EngineError):
    """A safety cap was exceeded (tensor size, memory, loop count...)."""

    type_name = "LimitError"


# The caller's check of its limits (time, memory): a function that raises LimitError, which
# long loops of the engine (a backward pass, unbind) call every so often. None: no check.
# POLL (a run setting: context.py)


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
NO_GRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to "
    "be tracked)."
)
VIEW_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."
INT_REQUIRES_GRAD_CTOR = "Only Tensors of floating point and complex dtype can require gradients"
INT_REQUIRES_GRAD_METHOD = "only Tensors of floating point dtype can require gradients"
INT_REQUIRES_GRAD_ATTR = "only Tensors of floating point and complex dtype can require gradients"
REQUIRES_GRAD_NOT_BOOL = "requires_grad must be a bool"
DATA_NOT_TENSOR = "Variable data has to be a tensor, but got {t}"
NONLEAF_REQUIRES_GRAD = "you can only change requires_grad flags of leaf variables."
NONLEAF_REQUIRES_GRAD_FALSE = (
    NONLEAF_REQUIRES_GRAD + " If you want to use a computed variable in a subgraph that "
    "doesn't require differentiation use var_no_grad = var.detach()."
)
UNUSED_INPUT = (
    "The differentiated Tensor at index {i} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior."
)
INPUT_NOT_REQUIRING_GRAD = "One of the differentiated Tensors does not require grad"
RETAIN_GRAD_NO_GRAD = "can't retain_grad on Tensor that has requires_grad=False"
EMPTY_INPUTS = "`inputs` argument to `{fn}()` cannot be empty."
GRAD_COUNT_MISMATCH = "got {n} tensors and {m} gradients"
GRADIENT_TYPE = "gradients can be either Tensors or None, but got {t}"
NOT_ITERABLE = "'{t}' object is not iterable"
ONE_ELEMENT_SCALAR = "only one element tensors can be converted to Python scalars"
DETACH_VIEW_INPLACE = (
    "Can't detach views in-place. Use detach() instead. If you are using "
    "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
    "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
    "be called on these gradients. To fix this error, please refer to the "
    "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)
GRAD_ASSIGN_TYPE = "assigned grad expected to be a Tensor or None but got grad of type {t}"
GRAD_ASSIGN_SIZE = (
    "attempting to assign a gradient of size '[{g}]' to a tensor of size '[{t}]'. Please "
    "ensure that the gradient and the tensor are the same size"
)
GRAD_ASSIGN_DTYPE = (
    "attempting to assign a gradient with dtype '{g}' to a tensor with grad_dtype '{t}'. The "
    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
    "the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
    "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break "
    "downstream systems that assume they match."
)

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
SCALAR_CONVERSION_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)"
)
T_NOT_2D_WARNING = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor. (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)"
)
T_ON_0D_WARNING = (
    "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4321.)"
)
MT_ON_0D_WARNING = (
    "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases. "
    "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4373.)"
)


def torch_type_name(dtype: np.dtype) -> str:
    """`torch.FloatTensor` style name used inside some RuntimeError texts."""
    return {
        "float64": "torch.DoubleTensor",
        "float32": "torch.FloatTensor",
        "int64": "torch.LongTensor",
        "int32": "torch.IntTensor",
        "bool": "torch.BoolTensor",
        "float16": "torch.HalfTensor",
    }.get(np.dtype(dtype).name, "torch.Tensor")


def shape_text(shape) -> str:
    return "torch.Size([" + ", ".join(str(int(s)) for s in shape) + "])"


def dtype_c_name(dtype) -> str:
    """The C type name PyTorch prints in some messages (`'double'`, `'long int'`)."""
    return dtypes.c_name(dtype)


def dtype_scalar_name(dtype) -> str:
    """c10's ScalarType name (`'Double'`, `'Long'`)."""
    return dtypes.scalar_name(dtype)


def not_implemented(kernel: str, dtype) -> TorchNotImplementedError:
    """PyTorch's text for a CPU kernel that has no version for `dtype`."""
    return TorchNotImplementedError(f"\"{kernel}\" not implemented for '{dtype_scalar_name(dtype)}'")


def node_display_name(name: str) -> str:
    """A grad_fn's name as the version-counter error prints it: `ExpBackward0` -> `Exp`,
    `PowBackward1` -> `Pow1`, `CopySlices` -> `torch::autograd::CopySlices` (the nodes
    written by hand in PyTorch's C++ keep their namespace)."""
    if name in CPP_NODES:
        return qualified(name)
    i = name.rfind("Backward")
    suffix = name[i + len("Backward") :]
    if i > 0 and (suffix.isdigit() or not suffix):  # (a custom Function's `FBackward`: `F`)
        return name[:i] + ("" if suffix in ("0", "") else suffix)
    return name


def version_error(tensor, saved_version: int, producer=None) -> TorchRuntimeError:
    """PyTorch's text for a saved tensor modified in place. `producer` is the name of the
    node that saved `tensor` as its own output; for a saved input the tensor's current
    grad_fn is named, and a leaf (no grad_fn) gets no ", which is output ..." part."""
    desc = f"[{torch_type_name(tensor.array.dtype)} [{', '.join(str(s) for s in tensor.shape)}]]"
    name = (
        producer if producer is not None else (tensor.grad_fn.name() if tensor.grad_fn is not None else None)
    )
    if name is not None:
        desc += f", which is output 0 of {node_display_name(name)},"
    return TorchRuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {desc} is at version {tensor._version[0]}; expected version {saved_version} "
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


def broadcast_shapes(*shapes) -> tuple:
    """The broadcast of `shapes`, folded left to right as a TensorIterator does (the shape
    so far is tensor a, the next operand tensor b), raising PyTorch's RuntimeError."""
    out = tuple(shapes[0])
    for s in shapes[1:]:
        s = tuple(s)
        n = max(len(out), len(s))
        a = (1,) * (n - len(out)) + out
        b = (1,) * (n - len(s)) + s
        if any(x != y and x != 1 and y != 1 for x, y in zip(a, b)):
            raise broadcast_error(out, s)
        out = tuple(y if x == 1 else x for x, y in zip(a, b))
    return out


# --- warnings -----------------------------------------------------------------

_warning_sink = None
_warned_once = set()


def set_warning_sink(sink):
    """Install `sink(category, message)`; returns the previous one. None = Python warnings."""
    global _warning_sink
    previous, _warning_sink = _warning_sink, sink
    return previous


def warn_once(message: str, category: str = "UserWarning") -> None:
    """PyTorch's TORCH_WARN_ONCE (the create_graph warning, float() of a tensor requiring
    grad): emitted the first time per process. A host that runs several scripts in one
    process calls `reset_warn_once()` before each, so each behaves like a fresh process."""
    if message in _warned_once:
        return
    _warned_once.add(message)
    warn(message, category)


def reset_warn_once() -> None:
    _warned_once.clear()


def warn(message: str, category: str = "UserWarning") -> None:
    if _warning_sink is not None:
        _warning_sink(category, message)
    else:
        warnings.warn(message, UserWarning, stacklevel=3)
