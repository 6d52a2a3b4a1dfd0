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

from . import errors, grad_mode
from . import saved as saved_hooks
from .function import edge, output_shell
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

    def unpack_saved(self):
        return ()  # unpacked lazily, by ctx.saved_tensors

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
        once = self.once and grad_mode._state[0]
        if once:
            with grad_mode.no_grad():
                result = self.call_backward(self, g)
        else:
            result = self.call_backward(self, g)
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
                if meta is not None and not _expandable(meta[0], r.data_.shape):
                    raise errors.TorchRuntimeError(
                        f"Function {self._name} returned an invalid gradient at index {k} - got "
                        f"{_dims(r.data_.shape)} but expected shape compatible with {_dims(meta[0])}"
                    )
                if self.next_nodes[k] is None:
                    r = None
                elif once and r.requires_grad_flag is False and _any_requires_grad(g):
                    r = _delayed_error(r)
            grads.append(r)
            k += 1
        return tuple(grads)

    def __repr__(self):
        return f"<torch.autograd.function.{self._name} object>"


_NONE = saved_hooks.NONE_SAVED  # stands for a None given to save_for_backward


def _any_requires_grad(g):
    return isinstance(g, Tensor) and g.requires_grad_flag


def _delayed_error(r):
    """A gradient computed by a once_differentiable backward under create_graph: its grad_fn
    raises PyTorch's error if differentiated again."""

    def fail(g, *_):
        raise errors.TorchRuntimeError(ONCE_DIFF_ERROR)

    out = Tensor(r.data_)
    out.grad_fn = Node("DelayedError", (None,), fail, (), ((r.data_.shape, r.data_.dtype),))
    out.requires_grad_flag = True
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
    needs = tuple(bool(isinstance(a, Tensor) and a.requires_grad_flag) for a in args)
    edges = tuple(edge(t) if grad_on else None for t in tensors)
    meta = tuple((t.data_.shape, t.data_.dtype) for t in tensors)
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
    if differentiable and sum(isinstance(o, Tensor) for o in outs) > 1:
        raise errors.TorchRuntimeError(
            "diffcli supports custom Functions with one tensor output (this forward returned "
            f"{sum(isinstance(o, Tensor) for o in outs)})"
        )
    wrapped = []
    for o in outs:
        if not isinstance(o, Tensor):
            wrapped.append(o)
            continue
        wrapped.append(_wrap_output(node, o, tensors, versions, differentiable))
    if differentiable:
        _save(node, wrapped)
        if saved_hooks.HOOKS:
            saved_hooks.pack(node, next(o for o in wrapped if isinstance(o, Tensor)))
    return wrapped[0] if single else tuple(wrapped)


def _is_in(t, seq):
    return any(t is s for s in seq)


def _wrap_output(node, o, inputs, versions, differentiable):
    dirty = _is_in(o, node.dirty)
    if _is_in(o, node.non_differentiable):
        if o.grad_fn is None and not _is_in(o, inputs):
            o.requires_grad_flag = False
        return o
    if not differentiable:
        if _is_in(o, inputs) and not dirty:
            return o.detach() if not o.requires_grad_flag else o
        return o
    if dirty:
        if o.grad_fn is None and o.requires_grad_flag:
            raise errors.TorchRuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
        o._version[0] += 1            # (PyTorch bumps a dirty tensor's version once more)
        o.grad_fn = node
        o.requires_grad_flag = True
        return o
    if _is_in(o, inputs):  # returned unchanged: a view of the input (view_as)
        view = Tensor(o.data_)
        view._version = o._version
        view._base = o if o._view_base is None else o._view_base
        o = view
    o.grad_fn = node
    o.requires_grad_flag = True
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
            saved.append(output_shell(t))
        else:
            saved.append(t)
    node.to_save = ()
    node.saved = tuple(saved)
    node.saved_versions = tuple(t._version[0] for t in saved)
    node.saved_outputs = tuple(outs)
