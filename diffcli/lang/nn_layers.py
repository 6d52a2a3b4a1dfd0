"""The module classes of `torch.nn` that diffcli provides: Linear, Sequential, the
activations (ReLU, Tanh, Sigmoid, Flatten, Identity) and the losses (MSELoss, L1Loss,
CrossEntropyLoss, BCELoss, BCEWithLogitsLoss, NLLLoss), each a `nn.ModuleClass` whose
methods are PyTorch's; `F.linear` as ATen's `linear` composes it (addmm for a 2-D input,
addmm on the flattened input then a view for the others, mm without a bias).

The losses forward to the engine's functional forms (`engine/ops/losses.py`).
"""

from __future__ import annotations

import collections

import numpy as np

from .. import engine
from ..engine import dtypes
from ..engine.function import as_tensor, record
from ..engine.ops import linalg, losses
from ..engine.ops import shape as S
from ..engine.ops.reductions import sum_to_shape
from ..engine.tensor import Tensor
from . import nn_init, nn_registry  # noqa: F401  (nn_registry: Module's buffers and hooks)
from .nn import MODULE, ModuleClass, _args, is_module, named_children
from .objects import new_instance

F = engine.FUNCTIONS


# --- F.linear -----------------------------------------------------------------------------------


def _exact(layout, m, k, n) -> bool:
    """Whether ATen's float32 gemm adds the products of an (m, k) @ (k, n) in order of k,
    unfused, for this layout ("nn", "nt": b is a transposed view, "tn": a is): the shapes
    measured against torch 2.13 on an AVX-512 CPU (MKL picks other kernels elsewhere, whose
    order is not reproduced: e.g. a (7, 40) @ (40, 3) with `a` transposed)."""
    if layout == "tn":
        return k < 8 or n == 1 or m == 1
    if layout == "nt":
        return (
            k <= 3
            or (k == 4 and (n <= 3 or m == 1))
            or (5 <= k <= 7 and (2 <= n <= 3 or (n == 1 and m <= 3)))
        )
    return k < 8 and not (n == 1 and k >= 5 and m >= 4)


def _mm_values(a, b, layout="nn"):
    """`a @ b` (numpy arrays), rounded as ATen's CPU gemm rounds it where `_exact` knows
    the order; numpy's product elsewhere (which may differ in the last bits)."""
    m, k = a.shape
    n = b.shape[1]
    if a.dtype != np.float32 or b.dtype != np.float32 or not _exact(layout, m, k, n):
        return a @ b
    acc = np.zeros((m, n), np.float32)
    for i in range(k):
        acc += a[:, i : i + 1] * b[i : i + 1, :]
    return acc


def _mm(a: Tensor, b: Tensor, layout) -> Tensor:
    out = linalg.mm(a, b)
    out.array[...] = _mm_values(a.array, b.array, layout)
    return out


def _addmm(bias: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    """ATen's addmm(bias, mat1, mat2) with beta = alpha = 1 (the product, then + bias):
    AddmmBackward0."""
    linalg._dtype_check(mat1, mat2, "expected m1 and m2 to have the same dtype")
    if mat1.array.shape[1] != mat2.array.shape[0]:
        raise engine.errors.TorchRuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({mat1.array.shape[0]}x{mat1.array.shape[1]} "
            f"and {mat2.array.shape[0]}x{mat2.array.shape[1]})"
        )
    out = (_mm_values(mat1.array, mat2.array, "nt") + bias.array).astype(mat1.array.dtype, copy=False)
    bshape = bias.array.shape
    need1, need2 = mat2.needs_grad, mat1.needs_grad  # mat1 is saved for mat2's grad

    def backward(g, *saved):
        held = list(saved)
        m1 = held.pop(0) if need1 else None
        m2 = held.pop(0) if need2 else None
        gb = sum_to_shape(g, bshape) if g.array.shape != bshape else g
        return (
            gb,
            _mm(g, S.t(m2), "nn") if m2 is not None else None,
            _mm(S.t(m1), g, "tn") if m1 is not None else None,
        )

    saved = tuple(t for t, k in ((mat1, need1), (mat2, need2)) if k)
    return record("AddmmBackward0", out, (bias, mat1, mat2), backward, saved)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """`torch.addmm(input, mat1, mat2)` (beta = alpha = 1 only)."""
    if beta != 1 or alpha != 1:
        raise engine.errors.TorchRuntimeError("diffcli supports torch.addmm with beta=1 and alpha=1 only")
    m1, m2 = as_tensor(mat1), as_tensor(mat2)
    for name, m in (("mat1", m1), ("mat2", m2)):
        if m.array.ndim != 2:
            raise engine.errors.TorchRuntimeError(f"{name} must be a matrix, got {m.array.ndim}-D tensor")
    return _addmm(as_tensor(input), m1, m2)


def linear(input, weight, bias=None):
    """`F.linear(input, weight, bias=None)` as ATen's linear."""
    x, w = as_tensor(input), as_tensor(weight)
    wt = S.t(w)
    if bias is None:
        return linalg.matmul(x, wt)
    b = as_tensor(bias)
    if x.array.ndim == 2:
        return _addmm(b, x, wt)
    if x.array.ndim == 0:
        raise engine.errors.TorchRuntimeError(
            "both arguments to linear need to be at least 1D, but they are 0D and 2D"
        )
    shape = x.array.shape
    flat = 1
    for s in shape[:-1]:
        flat *= s
    out = _addmm(b, S.reshape(x, (flat, shape[-1])), wt)
    return S.view(out, (*shape[:-1], out.array.shape[1]))


# --- Linear -------------------------------------------------------------------------------------


def _linear_init(interp, self, args, kwargs, node):
    in_f, out_f, bias, _device, dtype = _args(
        "Linear.__init__",
        args,
        kwargs,
        ["in_features", "out_features", "bias", "device", "dtype"],
        [True, None, None],
    )
    for v in (in_f, out_f):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(
                f"empty(): argument 'size' failed to unpack the object at pos 2 with error "
                f'"type must be tuple of ints,but got {type(v).__name__}"'
            )
    if in_f < 0 or out_f < 0:
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(in_f, out_f)}: [{out_f}, {in_f}]"
        )
    MODULE.methods["__init__"].fn(interp, self, [], {}, node)
    np_dtype = dtypes.to_np(dtype) or dtypes.defaults().float
    self._attrs["in_features"], self._attrs["out_features"] = in_f, out_f
    self._attrs["weight"] = nn_init.empty_parameter((out_f, in_f), np_dtype)
    self._attrs["bias"] = nn_init.empty_parameter((out_f,), np_dtype) if bias else None
    _linear_reset(interp, self, [], {}, node)


def _linear_reset(interp, self, args, kwargs, node):
    """Linear.reset_parameters: kaiming_uniform_(weight, a=sqrt(5)), bias ~ U(-1/sqrt(fan_in), ...)."""
    w, b = self._attrs["weight"], self._attrs.get("bias")
    nn_init.kaiming_uniform_(w, a=5**0.5)
    if b is not None:
        fan_in, _ = nn_init.fans(w)
        bound = 1 / fan_in**0.5 if fan_in > 0 else 0
        nn_init.uniform_(b, -bound, bound)


def _linear_forward(interp, self, args, kwargs, node):
    (x,) = _args("Linear.forward", args, kwargs, ["input"], [])
    return linear(x, self._attrs["weight"], self._attrs.get("bias"))


def _linear_extra(interp, self, args, kwargs, node):
    a = self._attrs
    return (
        f"in_features={a['in_features']}, out_features={a['out_features']}, bias={a.get('bias') is not None}"
    )


LINEAR = ModuleClass(
    "Linear",
    "torch.nn.modules.linear",
    {
        "__init__": _linear_init,
        "forward": _linear_forward,
        "extra_repr": _linear_extra,
        "reset_parameters": _linear_reset,
    },
    MODULE,
)


# --- Sequential ---------------------------------------------------------------------------------


def _seq_init(interp, self, args, kwargs, node):
    if kwargs:
        raise TypeError(f"Sequential.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")
    MODULE.methods["__init__"].fn(interp, self, [], {}, node)
    if len(args) == 1 and isinstance(args[0], collections.OrderedDict):  # Sequential(OrderedDict(...))
        for key, m in args[0].items():
            MODULE.methods["add_module"].fn(interp, self, [key, m], {}, node)
        return
    for i, m in enumerate(args):
        if not is_module(m):
            raise TypeError(f"{_type_of(m)} is not a Module subclass")
        self._attrs[str(i)] = m


def _type_of(value):
    return "torch.FloatTensor" if isinstance(value, Tensor) else type(value).__name__


def _seq_forward(interp, self, args, kwargs, node):
    (x,) = _args("Sequential.forward", args, kwargs, ["input"], [])
    for _, m in named_children(self):
        x = interp.call_value(m, [x], {}, node)
    return x


def _seq_append(interp, self, args, kwargs, node):
    (m,) = _args("Sequential.append", args, kwargs, ["module"], [])
    if not is_module(m):
        raise TypeError(f"{_type_of(m)} is not a Module subclass")
    self._attrs[str(len(named_children(self)))] = m
    return self


def _seq_getitem(self, idx):
    named = named_children(self)
    children = [m for _, m in named]
    if isinstance(idx, slice):
        seq = new_instance(SEQUENTIAL)
        _seq_init(None, seq, [], {}, None)
        seq._attrs.update(named[idx])  # as PyTorch: the slice keeps the children's keys
        return seq
    if not isinstance(idx, int):
        raise TypeError(f"list indices must be integers or slices, not {type(idx).__name__}")
    n = len(children)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return children[idx]


SEQUENTIAL = ModuleClass(
    "Sequential",
    "torch.nn.modules.container",
    {"__init__": _seq_init, "forward": _seq_forward, "append": _seq_append},
    MODULE,
)
SEQUENTIAL.host.__getitem__ = _seq_getitem
SEQUENTIAL.host.__len__ = lambda self: len(named_children(self))
SEQUENTIAL.host.__iter__ = lambda self: iter([m for _, m in named_children(self)])


# --- activations --------------------------------------------------------------------------------


def _activation(name, fn, path="torch.nn.modules.activation", inplace=False):
    def init(interp, self, args, kwargs, node):
        names, defaults = (["inplace"], [False]) if inplace else ([], [])
        vals = _args(f"{name}.__init__", args, kwargs, names, defaults)
        MODULE.methods["__init__"].fn(interp, self, [], {}, node)
        if inplace:
            self._attrs["inplace"] = vals[0]

    def forward(interp, self, args, kwargs, node):
        (x,) = _args(f"{name}.forward", args, kwargs, ["input"], [])
        if inplace and self._attrs.get("inplace"):
            return engine.INPLACE[f"{fn}_"](x) if f"{fn}_" in engine.INPLACE else F[fn](x)
        return F[fn](x) if fn else x

    def extra(interp, self, args, kwargs, node):
        return "inplace=True" if self._attrs.get("inplace") else ""

    methods = {"__init__": init, "forward": forward}
    if inplace:
        methods["extra_repr"] = extra
    return ModuleClass(name, path, methods, MODULE)


RELU = _activation("ReLU", "relu", inplace=True)
TANH = _activation("Tanh", "tanh")
SIGMOID = _activation("Sigmoid", "sigmoid")
IDENTITY = _activation("Identity", None, "torch.nn.modules.linear")


def _flatten_init(interp, self, args, kwargs, node):
    start, end = _args("Flatten.__init__", args, kwargs, ["start_dim", "end_dim"], [1, -1])
    MODULE.methods["__init__"].fn(interp, self, [], {}, node)
    self._attrs["start_dim"], self._attrs["end_dim"] = start, end


def _flatten_forward(interp, self, args, kwargs, node):
    (x,) = _args("Flatten.forward", args, kwargs, ["input"], [])
    return F["flatten"](x, self._attrs["start_dim"], self._attrs["end_dim"])


FLATTEN = ModuleClass(
    "Flatten",
    "torch.nn.modules.flatten",
    {
        "__init__": _flatten_init,
        "forward": _flatten_forward,
        "extra_repr": lambda interp, self, a, k, n: (
            f"start_dim={self._attrs['start_dim']}, end_dim={self._attrs['end_dim']}"
        ),
    },
    MODULE,
)


# --- losses ---------------------------------------------------------------------------------------


def _l1_loss(input, target, reduction="mean"):
    diff = F["abs"](F["sub"](input, target))
    if reduction == "mean":
        return F["mean"](diff)
    if reduction == "sum":
        return F["sum"](diff)
    if reduction == "none":
        return diff
    raise ValueError(f"{reduction} is not a valid value for reduction")


_LOSSES = {  # name: (constructor parameters after size_average/reduce, defaults, call)
    "MSELoss": ([], [], lambda a, x, y: losses.mse_loss(x, y, reduction=a["reduction"])),
    "L1Loss": ([], [], lambda a, x, y: _l1_loss(x, y, reduction=a["reduction"])),
    "BCELoss": (
        ["weight"],
        [None],
        lambda a, x, y: losses.binary_cross_entropy(x, y, weight=a["weight"], reduction=a["reduction"]),
    ),
    "BCEWithLogitsLoss": (
        ["weight", "pos_weight"],
        [None, None],
        lambda a, x, y: losses.binary_cross_entropy_with_logits(
            x, y, weight=a["weight"], reduction=a["reduction"], pos_weight=a["pos_weight"]
        ),
    ),
    "NLLLoss": (
        ["weight", "ignore_index"],
        [None, -100],
        lambda a, x, y: losses.nll_loss(
            x, y, weight=a["weight"], ignore_index=a["ignore_index"], reduction=a["reduction"]
        ),
    ),
    "CrossEntropyLoss": (
        ["weight", "ignore_index", "label_smoothing"],
        [None, -100, 0.0],
        lambda a, x, y: losses.cross_entropy(
            x,
            y,
            weight=a["weight"],
            ignore_index=a["ignore_index"],
            reduction=a["reduction"],
            label_smoothing=a["label_smoothing"],
        ),
    ),
}
# PyTorch's positional order: weight (if any), size_average, reduce, [ignore_index,] reduction, ...
_ORDER = {
    "MSELoss": ["size_average", "reduce", "reduction"],
    "L1Loss": ["size_average", "reduce", "reduction"],
    "BCELoss": ["weight", "size_average", "reduce", "reduction"],
    "BCEWithLogitsLoss": ["weight", "size_average", "reduce", "reduction", "pos_weight"],
    "NLLLoss": ["weight", "size_average", "ignore_index", "reduce", "reduction"],
    "CrossEntropyLoss": ["weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"],
}


def _loss_class(name, extra, defaults, call):
    order = _ORDER[name]
    default = dict(zip(extra, defaults), size_average=None, reduce=None, reduction="mean")

    def init(interp, self, args, kwargs, node):
        vals = _args(f"{name}.__init__", args, kwargs, order, [default[k] for k in order])
        MODULE.methods["__init__"].fn(interp, self, [], {}, node)
        a = dict(zip(order, vals))
        if a["size_average"] is not None or a["reduce"] is not None:
            a["reduction"] = losses._legacy_reduction(a["size_average"], a["reduce"])
        self._attrs["reduction"] = a["reduction"]
        for k in extra:
            self._attrs[k] = a[k]

    def forward(interp, self, args, kwargs, node):
        x, y = _args(f"{name}.forward", args, kwargs, ["input", "target"], [])
        return call(self._attrs, x, y)

    return ModuleClass(name, "torch.nn.modules.loss", {"__init__": init, "forward": forward}, MODULE)


LOSSES = {name: _loss_class(name, *spec) for name, spec in _LOSSES.items()}

CLASSES = {
    "Module": MODULE,
    "Linear": LINEAR,
    "Sequential": SEQUENTIAL,
    "ReLU": RELU,
    "Tanh": TANH,
    "Sigmoid": SIGMOID,
    "Identity": IDENTITY,
    "Flatten": FLATTEN,
    **LOSSES,
}
