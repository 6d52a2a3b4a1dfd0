"""Graph nodes: the grad_fn objects PyTorch users see (`MulBackward0`, `AccumulateGrad`...).

A Node holds the edges to the nodes of its inputs (`next_nodes`, None for inputs that do
not require grad), the backward formula, and the tensors it saved for it. Saved tensors are
released by `release()` after a backward pass without retain_graph; using them afterwards
raises PyTorch's "backward through the graph a second time" error.
"""
from __future__ import annotations

from . import errors


class Node:
    __slots__ = ("_name", "next_nodes", "backward_fn", "saved", "saved_versions",
                 "input_meta", "retained", "released", "__weakref__")

    def __init__(self, name, next_nodes, backward_fn, saved, input_meta):
        self._name = name
        self.next_nodes = next_nodes          # tuple[Node | None]
        self.backward_fn = backward_fn        # (grad, *saved) -> tuple of grads per input
        self.saved = saved                    # tuple[Tensor]
        self.saved_versions = tuple(t._version[0] for t in saved) if saved else ()
        self.input_meta = input_meta          # tuple[(shape, dtype) | None] per input
        self.retained = None                  # tensors whose retain_grad() hangs here
        self.released = False

    def name(self) -> str:
        return self._name

    @property
    def next_functions(self):
        return tuple((n, 0) for n in self.next_nodes)

    def unpack_saved(self):
        """The saved tensors, checked for release and in-place modification."""
        if self.released:
            raise errors.TorchRuntimeError(errors.BACKWARD_TWICE)
        saved = self.saved
        for t, v in zip(saved, self.saved_versions):
            if t._version[0] != v:
                raise errors.version_error(t, v)
        return saved

    def release(self):
        if self.saved:
            self.saved = ()
            self.released = True

    def __repr__(self):
        return f"<{self._name} object>"


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad; `variable` is the leaf."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        super().__init__("AccumulateGrad", (), None, (), ())
        self.variable = variable
