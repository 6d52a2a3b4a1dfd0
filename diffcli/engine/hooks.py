"""Backward hooks: `Tensor.register_hook`, `register_post_accumulate_grad_hook`,
`Node.register_hook` / `register_prehook`, `torch.autograd.graph.register_multi_grad_hook`,
and the handles that remove them.

Where PyTorch runs them, in its order (engine.cpp `call_function`): a node's tensor
pre-hooks (those of `t.register_hook` for a non-leaf t whose grad_fn it is; for a leaf, its
AccumulateGrad runs the leaf's), then retain_grad, then the node's pre-hooks; the node's
formula; then its post-hooks (`hook(grad_inputs, grad_outputs)`), which may replace the
gradients; after an AccumulateGrad, the leaf's post-accumulate-grad hooks. Hooks are held
by weak keys, so a tensor or node that dies takes its hooks with it. The backward pass
asks `hooked(node)` only when some hook exists (`ACTIVE`), so a script without hooks pays
one list lookup per node.
"""

from __future__ import annotations

import itertools
import weakref

import numpy as np

from . import errors
from .inference import TensorMap
from .node import AccumulateGrad
from .tensor import Tensor

ACTIVE = [False]
_ids = itertools.count()
_tensor_hooks = TensorMap()  # leaf Tensor -> {id: (fn, name)}
_post_accumulate = TensorMap()  # leaf Tensor -> {id: fn}
_node_hooks = weakref.WeakKeyDictionary()  # Node -> NodeHooks


class NodeHooks:
    __slots__ = ("tensor_pre", "pre", "post")

    def __init__(self):
        self.tensor_pre, self.pre, self.post = {}, {}, {}


class RemovableHandle:
    """`torch.utils.hooks.RemovableHandle`: `remove()` takes its hook out (twice is harmless)."""

    __slots__ = ("_store", "id")

    def __init__(self, store):
        self._store = weakref.ref(store) if store is not None else None
        self.id = next(_ids)

    def remove(self):
        store = self._store() if self._store is not None else None
        if store is not None:
            store.pop(self.id, None)

    def __repr__(self):
        return "<torch.utils.hooks.RemovableHandle object>"


class _Store(dict):
    """A dict that can be referenced weakly (by its handles)."""

    __slots__ = ("__weakref__",)


def _handle(store, fn):
    handle = RemovableHandle(store)
    store[handle.id] = fn
    ACTIVE[0] = True
    return handle


def _node_store(node, kind):
    hooks = _node_hooks.get(node)
    if hooks is None:
        hooks = _node_hooks[node] = NodeHooks()
        hooks.tensor_pre, hooks.pre, hooks.post = _Store(), _Store(), _Store()
    return getattr(hooks, kind)


# --- registering ------------------------------------------------------------------------


def register_tensor_hook(t: Tensor, fn, name="hook"):
    """`t.register_hook(fn)`: `fn(grad)` may return a new gradient of the same size and type."""
    if not t.needs_grad:
        raise errors.TorchRuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t.grad_fn is not None:
        store = _node_store(t.grad_fn, "tensor_pre")
    else:
        store = _tensor_hooks.get(t)
        if store is None:
            store = _tensor_hooks[t] = _Store()
    return _handle(store, (fn, name))


def register_post_accumulate_grad_hook(t: Tensor, fn):
    if t.grad_fn is not None:
        raise errors.TorchRuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not t.needs_grad:
        raise errors.TorchRuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    store = _post_accumulate.get(t)
    if store is None:
        store = _post_accumulate[t] = _Store()
    return _handle(store, fn)


def register_node_hook(node, fn):
    """`grad_fn.register_hook(fn)`: `fn(grad_inputs, grad_outputs)` after the node ran."""
    return _handle(_node_store(node, "post"), fn)


def register_node_prehook(node, fn):
    """`grad_fn.register_prehook(fn)`: `fn(grad_outputs)` before the node runs."""
    return _handle(_node_store(node, "pre"), fn)


class _MultiHandle:
    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __repr__(self):
        return "<torch.utils.hooks.RemovableHandle object>"


PASS = [0, None]  # the current backward pass: its number, and the nodes it will run
_multi = [0]  # multi-grad hooks registered (only they need PASS's node set)


def register_multi_grad_hook(tensors, fn, mode="all"):
    """`torch.autograd.graph.register_multi_grad_hook`: mode "all" calls `fn(grads)` once per
    backward pass when every tensor of the pass has its gradient (None for those the pass
    does not reach); mode "any" calls `fn(grad)` with the first gradient of a pass."""
    if mode not in ("all", "any"):
        raise errors.TorchValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = list(tensors)
    _multi[0] += 1
    state = {"pass": None, "grads": None, "count": 0}

    def expected():
        nodes = PASS[1]
        n = 0
        for t in tensors:
            target = t.grad_fn
            if target is None and t._accumulator is not None:
                target = t._accumulator()
            if nodes is None or (target is not None and target in nodes):
                n += 1
        return n

    def make(i):
        def hook(g):
            if state["pass"] != PASS[0]:
                state["pass"], state["grads"], state["count"] = PASS[0], [None] * len(tensors), 0
            if mode == "any":
                if state["count"] == 0:
                    state["count"] = 1
                    fn(g)
                return None
            state["grads"][i] = g
            state["count"] += 1
            if state["count"] == expected():
                fn(list(state["grads"]))
            return None

        return hook

    return _MultiHandle([register_tensor_hook(t, make(i), "hook") for i, t in enumerate(tensors)])


# --- running (called by autograd._run) ---------------------------------------------------


def begin_pass(order, restrict, capture) -> bool:
    """A backward pass starts over the nodes `order` (of which it runs `restrict`, or all,
    and captures `capture`). False when no hook is left (then the pass asks no more)."""
    if not _any_hook():
        ACTIVE[0] = False
        return False
    PASS[0] += 1
    if _multi[0]:  # the nodes this pass runs, for register_multi_grad_hook
        nodes = set(order) if restrict is None else set(restrict)
        if capture:
            nodes |= set(capture)
        PASS[1] = nodes
    return True


def _any_hook() -> bool:
    for h in list(_node_hooks.values()):
        if h.tensor_pre or h.pre or h.post:
            return True
    return any(
        entry[1] for entry in list(_tensor_hooks._data.values()) + list(_post_accumulate._data.values())
    )


def end_pass():
    PASS[1] = None  # (a pass's node set must not outlive it)


def hooked(node) -> bool:
    if node in _node_hooks:
        return True
    if node.__class__ is AccumulateGrad:
        v = node.variable
        return v in _tensor_hooks or v in _post_accumulate
    return False


def _as_tensor(g):
    return Tensor(np.array(g)) if g.__class__ is float else g


def _checked(value, g, name):
    if value is None:
        return g
    if not isinstance(value, Tensor):
        raise errors.TorchTypeError(f"expected Variable, but hook returned '{_type_name(value)}'")
    if value.array.shape != g.array.shape:
        raise errors.TorchRuntimeError(f"hook '{name}' has changed the size of value")
    if value.array.dtype != g.array.dtype:
        raise errors.TorchRuntimeError(
            f"hook '{name}' has changed the type of value (was {errors.torch_type_name(g.array.dtype)} "
            f"got {errors.torch_type_name(value.array.dtype)})"
        )
    return value


def _type_name(v):
    return "Tensor" if isinstance(v, Tensor) else type(v).__name__


def tensor_pre(node, g):
    """The tensor hooks for the gradient arriving at `node` (a leaf's, at its AccumulateGrad)."""
    if g is None:
        return g
    g = _as_tensor(g)
    if node.__class__ is AccumulateGrad:
        store = _tensor_hooks.get(node.variable)
    else:
        hooks = _node_hooks.get(node)
        store = hooks.tensor_pre if hooks is not None else None
    if store:
        for fn, name in list(store.values()):
            g = _checked(fn(g), g, name)
    return g


def pre(node, g):
    hooks = _node_hooks.get(node)
    if hooks is None or not hooks.pre or g is None:
        return g
    g = _as_tensor(g)
    for fn in list(hooks.pre.values()):
        out = fn((g,))
        if out is not None:
            out = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            if len(out) != 1:
                raise errors.TorchRuntimeError(
                    f"hook 'hook' that returns a tuple of length {len(out)} but expected 1"
                )
            g = _checked(out[0], g, "hook") if out[0] is not None else g
    return g


def post(node, grads, g, fit):
    """The node's post-hooks over its gradients (`fit` makes each input's shape and dtype)."""
    hooks = _node_hooks.get(node)
    if hooks is None or not hooks.post:
        return grads
    grads = tuple(
        None if (gi is None or nxt is None) else fit(_as_tensor(gi), meta)
        for gi, nxt, meta in zip(grads or (None,) * len(node.next_nodes), node.next_nodes, node.input_meta)
    )
    outs = (_as_tensor(g),) if g is not None else (None,)
    for fn in list(hooks.post.values()):
        new = fn(grads, outs)
        if new is not None:
            new = tuple(new)
            if len(new) != len(grads):
                raise errors.TorchRuntimeError(
                    f"hook 'hook' that returns a tuple of length {len(new)} but expected {len(grads)}"
                )
            grads = new
    return grads


def accumulated(node):
    store = _post_accumulate.get(node.variable)
    if store:
        for fn in list(store.values()):
            fn(node.variable)
