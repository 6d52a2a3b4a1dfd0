"""Graph nodes: the grad_fn objects PyTorch users see (`MulBackward0`, `AccumulateGrad`...).

A Node holds the edges to the nodes of its inputs (`next_nodes`, None for inputs that do
not require grad), the backward formula, and the tensors it saved for it. Saved tensors are
released by `release()` after a backward pass without retain_graph; using them afterwards
raises PyTorch's "backward through the graph a second time" error.

A node that saves its own output (exp, tanh, sigmoid...) keeps only a data-and-version
"shell" of it, not the output Tensor, so output -> grad_fn -> output is no reference cycle
(PyTorch's SavedVariable does the same); `unpack_saved` rebuilds the output with this node
as its grad_fn, which is what create_graph needs.

The scalar lane (function.record_scalar): a node made by an op on 0-d float64 tensors also
has `fast`, the same formula on Python floats, and `fargs`, the floats it needs. Without
create_graph the engine runs `fast(g, *fargs)` on a float gradient (it returns a tuple of
gradients, or a float: the first input's); the saved tensors are still kept and checked
(release, versions) exactly as for any node.
"""

from __future__ import annotations

import gc
import itertools
import sys

from . import errors
from . import saved as saved_hooks
from .cppnodes import qualified
from .tensor import Tensor

_sequence = itertools.count()

# Python's cyclic collector has nothing to find in the graph (it is acyclic and freed by
# reference counting), yet each of its full collections rescans every node and tensor:
# at 100,000 nodes that was half the time of building the graph. So every 1,024 nodes the
# engine moves what exists into the collector's permanent generation (gc.freeze, O(1)),
# and gives it back (gc.unfreeze) when a backward pass ends. Young objects are collected
# as usual meanwhile; cyclic garbage that existed at a freeze waits for the thaw.
_FREEZE_EVERY = (1 << 10) - 1
_frozen = [False]


def _freeze():
    gc.freeze()
    _frozen[0] = True


def thaw():
    """Undo the graph's freezes (autograd calls this when a backward pass ends)."""
    if _frozen[0]:
        _frozen[0] = False
        gc.unfreeze()


class Node:
    __slots__ = (
        "_name",
        "next_nodes",
        "backward_fn",
        "saved",
        "saved_versions",
        "saved_outputs",
        "input_meta",
        "retained",
        "released",
        "seq",
        "fast",
        "fargs",
        "__weakref__",
    )

    def __init__(
        self, name, next_nodes, backward_fn, saved, input_meta, saved_outputs=(), fast=None, fargs=()
    ):
        seq = self.seq = next(_sequence)  # creation order: the engine runs newest first
        if not seq & _FREEZE_EVERY:
            _freeze()
        self._name = name
        self.next_nodes = next_nodes  # tuple[Node | None]
        self.backward_fn = backward_fn  # (grad, *saved) -> tuple of grads per input
        self.saved = saved  # tuple[Tensor]
        if not saved:
            self.saved_versions = ()
        elif len(saved) == 1:
            self.saved_versions = (saved[0]._version[0],)
        else:
            self.saved_versions = tuple([t._version[0] for t in saved])
        self.saved_outputs = saved_outputs  # indices into `saved` holding output shells
        self.input_meta = input_meta  # tuple[(shape, dtype) | None] per input
        self.retained = None  # weakrefs to tensors whose retain_grad() hangs here
        self.released = False
        self.fast = fast  # the scalar lane's formula, on Python floats
        self.fargs = fargs  # Python floats both formulas get after `saved`

    def name(self) -> str:
        """The class name, as a tensor's repr and the graph show it (`CopySlices`)."""
        return self._name

    def torch_name(self) -> str:
        """What PyTorch's `grad_fn.name()` returns: the nodes PyTorch writes by hand in C++
        keep their namespace (`torch::autograd::CopySlices`)."""
        return qualified(self._name)

    @property
    def next_functions(self):
        return tuple((n, 0) for n in self.next_nodes)

    def check_saved(self):
        """Raise PyTorch's error if the saved tensors were released or modified in place."""
        if self.released:
            raise errors.TorchRuntimeError(errors.BACKWARD_TWICE)
        saved = self.saved
        if len(saved) == 1 and saved[0]._version[0] == self.saved_versions[0]:
            return  # the common case, on the backward's hot path
        outputs = self.saved_outputs
        for i, (t, v) in enumerate(zip(saved, self.saved_versions)):
            if t._version[0] != v:
                raise errors.version_error(t, v, self._name if i in outputs else None)

    def unpack_saved(self):
        """The saved tensors, checked for release and in-place modification, then the
        scalar lane's `fargs` (the backward formula's arguments after the gradient)."""
        self.check_saved()
        saved = self.saved
        outputs = self.saved_outputs
        if outputs:
            saved = tuple(self._rebuild_output(t) if i in outputs else t for i, t in enumerate(saved))
        if saved_hooks.USED[0]:  # saved_tensors_hooks packed some node's tensors
            saved = saved_hooks.unpacked(saved)
        return saved + self.fargs if self.fargs else saved

    def _rebuild_output(self, shell):
        t = Tensor(shell.array)
        t._version = shell._version
        t.grad_fn = self
        t.needs_grad = True
        return t

    def release(self):
        if self.saved:
            self.saved = ()
            self.released = True

    def __repr__(self):
        # SPEC §1 "Printing": no address (PyTorch adds ` at 0x...`), so output is reproducible
        return f"<{self._name} object>"


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad; `variable` is the leaf."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__("AccumulateGrad", (), None, (), ())
        self.seq = sys.maxsize  # as in PyTorch: a ready AccumulateGrad runs first
        self.variable = variable
