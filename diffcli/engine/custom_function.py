"""Custom autograd Functions (`torch.autograd.Function`): `apply`, the ctx, and the node.

PyTorch's model, kept here: the ctx *is* the grad_fn (`MyFnBackward`, a subclass of
FunctionCtx), so `ctx.k = 3` in forward is `y.grad_fn.k` afterwards. `apply(*args)` runs
forward with grad mode off, then, when grad mode is on and a tensor input requires grad,
gives the outputs this node as grad_fn, with one edge per *tensor* input (non-tensor
arguments get none). The tensors given to `save_for_backward` become the node's saved
tensors, so the version checks and their release after a backward are the engine's own
(node.py); `ctx.saved_tensors` unpacks them (PyTorch's errors when freed or modified).

The language layer gives the two script calls as host callables: `forward(ctx, *args)`
(or `forward(*args)` then `setup_context(ctx, inputs, output)`) and `backward(ctx,
*grads)`. The backward runs with the engine's grad mode (on only under create_graph), so a
backward written in differentiable ops supports double backward; `once_differentiable`
runs it with grad mode off and makes its results fail a second differentiation.
"""

from __future__ import annotations

import numpy as np

from . import errors, grad_mode
from . import saved as saved_hooks
from .function import TRACE, edge, output_shell
from .node import Node
from .tensor import Tensor

ONCE_DIFF_ERROR = "trying to differentiate twice a function that was marked with @once_differentiable"


class FunctionNode(Node):
    """The grad_fn (and ctx) of one call of a custom Function."""

    __slots__ = (
        "attrs",
        "needs_input_grad",
        "to_save",
        "dirty",
        "non_differentiable",
        "materialize",
        "call_backward",
        "arg_is_tensor",
        "once",
        "function_name",
        "out_meta",
        "shell_fn",
    )

    def __init__(self, name, next_nodes, input_meta, arg_is_tensor, needs_input_grad):
        super().__init__(name, next_nodes, None, (), input_meta)
        self.backward_fn = self._backward
        self.attrs = {}  # what the script sets on ctx
        self.needs_input_grad = needs_input_grad
        self.to_save = ()
        self.dirty = ()
        self.non_differentiable = ()
        self.materialize = True
        self.call_backward = None  # (ctx, *grads) -> the script backward's result
        self.arg_is_tensor = arg_is_tensor
        self.once = False
        self.function_name = name[: -len("Backward")]
        self.out_meta = None  # per output (shape, dtype) when forward returned a tuple
        self.shell_fn = None  # saved output shell id -> the grad_fn it is rebuilt with

    def unpack_saved(self):
        return ()  # unpacked lazily, by ctx.saved_tensors

    def _rebuild_output(self, shell):
        t = Node._rebuild_output(self, shell)
        if self.shell_fn is not None:  # a tuple-returning forward: the output's own grad_fn
            t.grad_fn = self.shell_fn.get(id(shell), self)
        return t

    @property
    def saved_tensors(self):
        if self.released:
            raise errors.TorchRuntimeError(errors.BACKWARD_TWICE)
        saved = Node.unpack_saved(self)
        return tuple(None if t is _NONE else t for t in saved)

    # --- ctx methods ------------------------------------------------------------------
    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise errors.TorchTypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type {_type_name(t)}"
                )
        self.to_save = tensors

    def mark_dirty(self, *tensors):
        self.dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize = bool(value)

    # --- the backward -----------------------------------------------------------------
    def _backward(self, g, *_):
        grads = (g,) if self.out_meta is None else self._output_grads(g)
        once = self.once and grad_mode._state[0]
        if once:
            with grad_mode.no_grad():
                result = self.call_backward(self, *grads)
        else:
            result = self.call_backward(self, *grads)
        g = next((x for x in grads if isinstance(x, Tensor) and x.needs_grad), g)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.arg_is_tensor)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]  # PyTorch allows trailing Nones
            else:
                raise errors.TorchRuntimeError(
                    f"function {self._name} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(result)})"
                )
        grads = []
        k = 0
        for i, (r, is_tensor) in enumerate(zip(result, self.arg_is_tensor)):
            if not is_tensor:
                if r is not None:
                    raise errors.TorchRuntimeError(
                        f"function {self._name} returned a gradient different than None at position "
                        f"{i + 1}, but the corresponding forward input was not a Variable"
                    )
                continue
            if r is not None:
                if not isinstance(r, Tensor):
                    raise errors.TorchTypeError(f"expected Variable or None (got {_type_name(r)})")
                meta = self.input_meta[k]
                if meta is not None and not _expandable(meta[0], r.array.shape):
                    raise errors.TorchRuntimeError(
                        f"Function {self._name} returned an invalid gradient at index {k} - got "
                        f"{_dims(r.array.shape)} but expected shape compatible with {_dims(meta[0])}"
                    )
                if self.next_nodes[k] is None:
                    r = None
                elif once and r.needs_grad is False and _any_requires_grad(g):
                    r = _delayed_error(r)
            grads.append(r)
            k += 1
        return tuple(grads)

    def _output_grads(self, g):
        """One gradient per output of a tuple-returning forward; those that did not arrive
        are zeros (None after set_materialize_grads(False))."""
        got = g.grads if isinstance(g, SlotGrads) else [None] * len(self.out_meta)
        out = []
        for gi, meta in zip(got, self.out_meta):
            if gi is None and self.materialize and meta is not None:
                gi = Tensor(np.zeros(meta[0], dtype=meta[1]))
            out.append(gi)
        return tuple(out)

    def __repr__(self):
        return f"<torch.autograd.function.{self._name} object>"


class SlotGrads:
    """The gradients of a tuple-returning Function's outputs, gathered in the engine's
    buffer for its node: each output's OutputSlot contributes its own."""

    __slots__ = ("grads",)

    def __init__(self, grads):
        self.grads = grads

    def __add__(self, other):
        return SlotGrads(
            [a if b is None else b if a is None else a + b for a, b in zip(self.grads, other.grads)]
        )


class OutputSlot(Node):
    """The grad_fn of output `index` of a tuple-returning Function: it hands its gradient to
    the Function's node (`main`) in that output's place. It shows as the main node does."""

    __slots__ = ("main", "index", "_n")

    def __init__(self, main, index, n):
        super().__init__(main._name, (main,), self._pass, (), (None,))
        self.main, self.index = main, index
        self.fast = None
        self._n = n

    def _pass(self, g, *_):
        grads = [None] * self._n
        grads[self.index] = g
        return (SlotGrads(grads),)

    @property
    def next_functions(self):
        return self.main.next_functions

    def __repr__(self):
        return repr(self.main)


_NONE = saved_hooks.NONE_SAVED  # stands for a None given to save_for_backward


def _any_requires_grad(g):
    return isinstance(g, Tensor) and g.needs_grad


def _delayed_error(r):
    """A gradient computed by a once_differentiable backward under create_graph: its grad_fn
    raises PyTorch's error if differentiated again."""

    def fail(g, *_):
        raise errors.TorchRuntimeError(ONCE_DIFF_ERROR)

    out = Tensor(r.array)
    out.grad_fn = Node("DelayedError", (None,), fail, (), ((r.array.shape, r.array.dtype),))
    out.needs_grad = True
    return out


def _type_name(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def _dims(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _expandable(shape, desired):
    """at::is_expandable_to(shape, desired): `shape` broadcasts to `desired`."""
    if len(shape) > len(desired):
        return False
    for s, d in zip(reversed(shape), reversed(desired)):
        if s != d and s != 1:
            return False
    return True


def apply(name, args, forward, backward, setup_context=None, once=False):
    """`MyFn.apply(*args)`. `forward(ctx, *args)` (or, with `setup_context`, `forward(*args)`
    and then `setup_context(ctx, args, output)`) and `backward(ctx, *grads)` are the
    script's static methods as host callables."""
    args = tuple(args)
    is_tensor = tuple(isinstance(a, Tensor) for a in args)
    tensors = [a for a in args if isinstance(a, Tensor)]
    grad_on = grad_mode._state[0]
    needs = tuple(bool(isinstance(a, Tensor) and a.needs_grad) for a in args)
    edges = tuple(edge(t) if grad_on else None for t in tensors)
    meta = tuple((t.array.shape, t.array.dtype) for t in tensors)
    node = FunctionNode(name + "Backward", edges, meta, is_tensor, needs)
    node.call_backward = backward
    node.once = once
    versions = [t._version[0] for t in tensors]
    with grad_mode.no_grad():
        if setup_context is None:
            output = forward(node, *args)
        else:
            output = forward(*args)
            setup_context(node, args, output)
    differentiable = grad_on and any(needs)
    single = not isinstance(output, tuple)
    outs = (output,) if single else output
    if not single and differentiable:
        node.out_meta = tuple((o.array.shape, o.array.dtype) if isinstance(o, Tensor) else None for o in outs)
    wrapped = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            wrapped.append(o)
            continue
        fn = node if node.out_meta is None else OutputSlot(node, i, len(outs))
        wrapped.append(_wrap_output(node, o, tensors, versions, differentiable, fn))
    if TRACE[0] is not None:  # `diffcli graph`: the outputs are nodes of the graph
        for o in wrapped:
            if isinstance(o, Tensor) and o.grad_fn is not None:
                TRACE[0].append((o, tuple(tensors), o.grad_fn, np.array(o.array, copy=True)))
    if differentiable:
        _save(node, wrapped)
        if saved_hooks.HOOKS:
            saved_hooks.pack(node, next(o for o in wrapped if isinstance(o, Tensor)))
    return wrapped[0] if single else tuple(wrapped)


def _is_in(t, seq):
    return any(t is s for s in seq)


def _wrap_output(node, o, inputs, versions, differentiable, fn):
    dirty = _is_in(o, node.dirty)
    if _is_in(o, node.non_differentiable):
        if o.grad_fn is None and not _is_in(o, inputs):
            o.needs_grad = False
        return o
    if not differentiable:
        if _is_in(o, inputs) and not dirty:
            return o.detach() if not o.needs_grad else o
        return o
    if dirty:
        if o.grad_fn is None and o.needs_grad:
            raise errors.TorchRuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation."
            )
        o._version[0] += 1  # (PyTorch bumps a dirty tensor's version once more)
        o.grad_fn = fn
        o.needs_grad = True
        return o
    if _is_in(o, inputs):  # returned unchanged: a view of the input (view_as)
        view = Tensor(o.array)
        view._version = o._version
        view._base = o if o._view_base is None else o._view_base
        o = view
    o.grad_fn = fn
    o.needs_grad = True
    return o


def _save(node, outputs):
    """The tensors given to save_for_backward become the node's saved tensors (outputs as
    shells, as any node keeps its own output), with their versions at the end of forward."""
    saved, outs = [], []
    for i, t in enumerate(node.to_save):
        if t is None:
            saved.append(_NONE)
            continue
        if _is_in(t, outputs):
            outs.append(i)
            shell = output_shell(t)
            if node.out_meta is not None:
                if node.shell_fn is None:
                    node.shell_fn = {}
                node.shell_fn[id(shell)] = t.grad_fn
            saved.append(shell)
        else:
            saved.append(t)
    node.to_save = ()
    node.saved = tuple(saved)
    node.saved_versions = tuple(t._version[0] for t in saved)
    node.saved_outputs = tuple(outs)


FUNCTION_NODES = (FunctionNode, OutputSlot)  # the grad_fns a custom Function gives its outputs
