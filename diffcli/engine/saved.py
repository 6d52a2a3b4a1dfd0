"""Saved tensors as PyTorch shows them: `torch.autograd.graph.saved_tensors_hooks`
(pack/unpack), `save_on_cpu`, and the `grad_fn._saved_*` / `_raw_saved_*` attributes.

Hooks: while a `saved_tensors_hooks(pack, unpack)` context is active, every node made
gets `pack(t)` called (grad mode off, as in PyTorch) on each tensor it saves, in the
order the node saves them (for an output, the output itself, grad_fn and all), and keeps
what pack returned; the backward pass (and `_saved_*`) then gets `unpack(packed)`. As in
PyTorch, a hooked saved tensor is not version-checked. The scalar lane is left for such
nodes, since its formula would not use the unpacked tensors.

Attributes: `SAVED[name]` lists, per grad_fn name, PyTorch's `_saved_*` attributes (names
recorded from torch 2.13 by tests/goldens/record_autograd_ext.py) and where each comes
from in diffcli's node: a saved tensor by index, an input's sizes or numel, a constant,
or a number the op's backward formula closes over.
"""

from __future__ import annotations

import numpy as np

from . import errors, grad_mode
from .tensor import Tensor

HOOKS = []  # the stack of active (pack, unpack) pairs; the innermost is used
USED = [False]  # some node holds a packed tensor (Node.unpack_saved then unpacks)
MISSING = object()
NONE_SAVED = Tensor(np.zeros(0))  # stands in a node's saved tensors for a None saved by a custom Function


class saved_tensors_hooks:
    """`torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook)`."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        HOOKS.append((self.pack_hook, self.unpack_hook))
        return None

    def __exit__(self, *exc):
        HOOKS.pop()
        return False

    def __repr__(self):
        return "<torch.autograd.graph.saved_tensors_hooks object>"


class save_on_cpu(saved_tensors_hooks):
    """`torch.autograd.graph.save_on_cpu(pin_memory=False)`: on a CPU-only build, pack and
    unpack give the tensor back as it is."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(_identity, _identity)

    def __repr__(self):
        return "<torch.autograd.graph.save_on_cpu object>"


def _identity(t):
    return t


class Packed:
    """One saved tensor packed by a hook: what pack returned, and the unpack to call."""

    __slots__ = ("value", "unpack")
    _version = (0,)  # never version-checked (PyTorch checks no hooked saved tensor)

    def __init__(self, value, unpack):
        self.value, self.unpack = value, unpack


def pack(node, out):
    """Called right after `node` became `out`'s grad_fn, inside a saved_tensors_hooks context."""
    if not node.saved:
        return
    pack_hook, unpack_hook = HOOKS[-1]
    packed = []
    with grad_mode.no_grad():
        for i, t in enumerate(node.saved):
            if t is NONE_SAVED:
                packed.append(t)
                continue
            packed.append(Packed(pack_hook(out if i in node.saved_outputs else t), unpack_hook))
    node.saved = tuple(packed)
    node.saved_versions = (0,) * len(packed)
    node.saved_outputs = ()
    node.fast = None
    USED[0] = True


def unpacked(saved):
    """Node.unpack_saved's tensors with the packed ones unpacked."""
    return tuple(unpack(t) if t.__class__ is Packed else t for t in saved)


def unpack(p):
    value = p.unpack(p.value)
    if not isinstance(value, Tensor):
        raise errors.TorchTypeError(
            "Output of saved tensor unpack_hook expected to be a Tensor but got "
            f"result of type {type(value).__name__}"
        )
    return value


# --- grad_fn._saved_* --------------------------------------------------------------------


def _s(i):
    return ("saved", i)


def _sizes(k):
    return ("sizes", k)


# name -> ((attribute, source), ...); sources: ("saved", i), ("sizes", k) input k's shape,
# ("numel", k), ("strides", k), ("const", v), ("closure", freevar, farg index)
SAVED = {
    "AddBackward0": (("_saved_alpha", ("const", 1)),),
    "SubBackward0": (("_saved_alpha", ("const", 1)),),
    "MulBackward0": (("_saved_other", ("mul", 0)), ("_saved_self", ("mul", 1))),
    "DivBackward0": (("_saved_other", ("div", 1)), ("_saved_self", ("div", 0))),
    "PowBackward0": (("_saved_exponent", ("closure", "e", 0)), ("_saved_self", _s(0))),
    "PowBackward1": (("_saved_exponent", _s(1)), ("_saved_result", _s(2)), ("_saved_self", _s(0))),
    "PowBackward2": (
        ("_saved_exponent", _s(0)),
        ("_saved_result", _s(1)),
        ("_saved_self", ("closure", "c", 0)),
    ),
    "ExpBackward0": (("_saved_result", _s(0)),),
    "TanhBackward0": (("_saved_result", _s(0)),),
    "SigmoidBackward0": (("_saved_result", _s(0)),),
    "SqrtBackward0": (("_saved_result", _s(0)),),
    "ReluBackward0": (("_saved_result", _s(0)),),
    "SinBackward0": (("_saved_self", _s(0)),),
    "CosBackward0": (("_saved_self", _s(0)),),
    "LogBackward0": (("_saved_self", _s(0)),),
    "AbsBackward0": (("_saved_self", _s(0)),),
    "NegBackward0": (),
    "SumBackward0": (("_saved_self_sym_sizes", _sizes(0)),),
    "SumBackward1": (
        ("_saved_dim", ("closure", "dims", 0)),  # (the row's args: its node's fargs)
        ("_saved_keepdim", ("closure", "keepdim", 1)),
        ("_saved_self_sym_sizes", _sizes(0)),
    ),
    "MeanBackward0": (("_saved_self_sym_numel", ("numel", 0)), ("_saved_self_sym_sizes", _sizes(0))),
    "MmBackward0": (
        ("_saved_mat2", _s(0)),
        ("_saved_mat2_sym_sizes", _sizes(1)),
        ("_saved_mat2_sym_strides", ("strides", 1)),
        ("_saved_self", _s(1)),
        ("_saved_self_sym_sizes", _sizes(0)),
        ("_saved_self_sym_strides", ("strides", 0)),
    ),
    "DotBackward0": (("_saved_self", _s(1)), ("_saved_tensor", _s(0))),
    "ProdBackward0": (("_saved_result", _s(1)), ("_saved_self", _s(0))),
    "MaxBackward1": (("_saved_result", _s(1)), ("_saved_self", _s(0))),
}


def names(node):
    """The `_saved_*` and `_raw_saved_*` attribute names of `node` (those PyTorch has)."""
    rows = SAVED.get(node.name())
    if rows is None:
        return None
    out = [a for a, _ in rows]
    out += ["_raw" + a for a, src in rows if _is_tensor_source(node, src)]
    return out


def _is_tensor_source(node, src):
    return src[0] in ("saved", "mul", "div")


def _saved_tensor(node, i):
    if node.released:
        raise errors.TorchRuntimeError(errors.BACKWARD_TWICE)
    t = node.saved[i]
    if isinstance(t, Packed):
        return unpack(t)
    if i in node.saved_outputs:
        return node._rebuild_output(t)
    return t


def _strides(shape):
    out, step = [], 1
    for s in reversed(shape):
        out.append(step)
        step *= max(s, 1)
    return tuple(reversed(out))


def _farg(node, i):
    """The node's farg `i` as the ordinary path lays them out, (*numbers, *args). A scalar
    lane node (one with `fast`) keeps (*inputs, result, *lane args) (rows.lane_fargs): its
    numbers are the inputs without an edge's meta."""
    if node.fast is None:
        return node.fargs[i]
    numbers = [k for k, meta in enumerate(node.input_meta) if meta is None]
    return node.fargs[numbers[i] if i < len(numbers) else len(node.input_meta) + 1 + i - len(numbers)]


def _closure(node, var, farg):
    fn = node.backward_fn
    if farg is not None and node.fargs:
        return _farg(node, farg)
    code = getattr(fn, "__code__", None)
    if code is None or var not in code.co_freevars:
        return MISSING
    value = fn.__closure__[code.co_freevars.index(var)].cell_contents
    if isinstance(value, (list, np.ndarray)):
        value = tuple(value)
    return value


def attribute(node, name):
    """`node._saved_X` / `node._raw_saved_X` (a SavedTensor), or MISSING."""
    raw = name.startswith("_raw_saved_")
    key = name[4:] if raw else name
    for attr, src in SAVED.get(node.name(), ()):
        if attr == key:
            value = _value(node, src)
            if raw:
                return SavedTensor(node, src) if value is not None else None
            return value
    return MISSING


def _value(node, src):
    kind = src[0]
    if kind == "saved":
        return _saved_tensor(node, src[1])
    if kind in ("mul", "div"):
        return _binary_saved(node, kind, src[1])
    if kind == "sizes":
        return tuple(node.input_meta[src[1]][0])
    if kind == "strides":
        return _strides(node.input_meta[src[1]][0])
    if kind == "numel":
        return int(np.prod(node.input_meta[src[1]][0], dtype=np.int64))
    if kind == "const":
        return src[1]
    value = _closure(node, src[1], src[2])
    if value is MISSING:
        raise errors.TorchRuntimeError(f"diffcli does not keep this attribute of {node.name()}")
    return value


def _binary_saved(node, kind, index):
    """mul saves `other` when self needs a gradient and `self` when other does: diffcli's
    node keeps (other, self), or the one it needs; div keeps (self, other), or `other` alone
    when only self needs a gradient. `index` is the attribute's place in the pair. A Python
    number operand is shown as PyTorch's wrapped number (int64 if integral, else float64)."""
    if len(node.saved_versions) == 2:
        return _saved_tensor(node, index)
    if kind == "mul":
        saved_is_other, want_other = node.next_nodes[0] is not None, index == 0
    else:
        saved_is_other, want_other = True, index == 1
    if want_other != saved_is_other:
        return None
    t = _saved_tensor(node, 0)
    if saved_is_other and node.input_meta[1] is None:  # `a * 2`: a wrapped number
        value = _farg(node, 0) if node.fargs else t.array.item()  # (the row keeps it in fargs)
        return Tensor(
            np.array(
                int(value) if float(value).is_integer() else value,
                dtype=np.int64 if float(value).is_integer() else np.float64,
            )
        )
    return t


class SavedTensor:
    """`grad_fn._raw_saved_X`: `register_hooks(pack, unpack)` packs the saved tensor now."""

    __slots__ = ("node", "src")

    def __init__(self, node, src):
        self.node, self.src = node, src

    def register_hooks(self, pack_hook, unpack_hook):
        node = self.node
        if self.src[0] != "saved":
            raise errors.TorchRuntimeError("diffcli can register hooks only on this node's own saved tensors")
        i = self.src[1]
        t = node.saved[i]
        if isinstance(t, Packed):
            raise errors.TorchRuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already "
                "been set. Hint: only one pair of hooks is allowed at a time."
            )
        with grad_mode.no_grad():
            packed = Packed(pack_hook(t if i not in node.saved_outputs else Tensor(t.array)), unpack_hook)
        saved, versions = list(node.saved), list(node.saved_versions)
        saved[i], versions[i] = packed, 0
        node.saved, node.saved_versions = tuple(saved), tuple(versions)
        node.saved_outputs = tuple(k for k in node.saved_outputs if k != i)
        node.fast = None
        USED[0] = True

    def __repr__(self):
        return "<torch._C._autograd.SavedTensor object>"
