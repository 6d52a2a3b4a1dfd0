"""The backward pass: `backward()` and `grad()`, iterative so depth is unbounded.

One walk serves both: collect the nodes reachable from the roots (explicit stack),
count each node's incoming edges, then run nodes whose gradients are complete (Kahn's
algorithm). Gradients are summed per node before its formula runs; formulas run with
grad mode on only under create_graph, so first order records nothing.
"""
from __future__ import annotations

import numpy as np

from . import errors, grad_mode
from .function import edge, sum_to_shape
from .node import AccumulateGrad
from .tensor import Tensor


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _tensor_or_tensors(x, n):
    """PyTorch's `_tensor_or_tensors_to_tuple`: None -> n Nones, a Tensor -> (x,), anything
    else is iterated (so a Python float raises "'float' object is not iterable")."""
    if x is None:
        return [None] * n
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
        if isinstance(x, str):
            return list(x)
        raise errors.TorchTypeError(errors.NOT_ITERABLE.format(t=type(x).__name__))
    return list(x)


def _root_grads(tensors, grads, create_graph):
    """Pair each output with its starting gradient, checking PyTorch's rules."""
    grads = _tensor_or_tensors(grads, len(tensors))
    out = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if not isinstance(t, Tensor):
            raise errors.TorchTypeError(
                f"tensors argument must be a Tensor or a sequence of Tensors, but got {type(t).__name__}")
        if g is None:
            if t.requires_grad_flag and t.data_.size != 1:
                raise errors.TorchRuntimeError(errors.IMPLICIT_SCALAR)
            g = Tensor(np.ones_like(t.data_))
        elif not isinstance(g, Tensor):
            raise errors.TorchTypeError(errors.GRADIENT_TYPE.format(t=type(g).__name__))
        elif g.data_.shape != t.data_.shape:
            raise errors.TorchRuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of "
                f"{errors.shape_text(g.data_.shape)} and output[{i}] has a shape of "
                f"{errors.shape_text(t.data_.shape)}.")
        out.append((t, g))
    if len(grads) < len(tensors):  # extra gradients are ignored, as zip() does in PyTorch
        raise errors.TorchRuntimeError(
            errors.GRAD_COUNT_MISMATCH.format(n=len(tensors), m=len(grads)))
    roots = []
    for i, (t, g) in enumerate(out):
        if not t.requires_grad_flag:
            raise errors.TorchRuntimeError(errors.NO_GRAD_FN.format(i=i))
        if not create_graph and g.requires_grad_flag:
            g = g.detach()
        if g.data_.dtype != t.data_.dtype:  # the engine casts to the output's dtype
            from .ops.conversion import to_dtype
            with grad_mode.set_grad_enabled(create_graph):
                g = to_dtype(g, t.data_.dtype)
        roots.append((edge(t), g))
    return roots


def _collect(roots):
    """Nodes reachable from roots, and how many edges point into each."""
    deps = {}
    stack = [n for n, _ in roots if n is not None]
    seen = set(map(id, stack))
    order = list(stack)
    while stack:
        node = stack.pop()
        for nxt in node.next_nodes:
            if nxt is None:
                continue
            k = id(nxt)
            deps[k] = deps.get(k, 0) + 1
            if k not in seen:
                seen.add(k)
                order.append(nxt)
                stack.append(nxt)
    return order, deps


def _needed(order, targets):
    """ids of the target nodes and of every node from which a target is reachable."""
    need = set(targets)
    indeg = {}
    for n in order:
        for nxt in n.next_nodes:
            if nxt is not None:
                indeg[id(nxt)] = indeg.get(id(nxt), 0) + 1
    topo = []
    ready = [n for n in order if indeg.get(id(n), 0) == 0]
    while ready:
        n = ready.pop()
        topo.append(n)
        for nxt in n.next_nodes:
            if nxt is not None:
                indeg[id(nxt)] -= 1
                if indeg[id(nxt)] == 0:
                    ready.append(nxt)
    for n in reversed(topo):
        if id(n) in need:
            continue
        for nxt in n.next_nodes:
            if nxt is not None and id(nxt) in need:
                need.add(id(n))
                break
    return need


def _run(roots, retain_graph, create_graph, capture=None, accumulate=True, restrict=None):
    """Execute the graph (Kahn's algorithm: a node runs once all its incoming gradients
    are summed). `capture`: ids of nodes whose incoming gradient is returned (grad()).
    `restrict`: ids of the nodes to execute (None: all). As in PyTorch, a node that is
    neither executed nor captured is not evaluated, so its retain_grad does not fire."""
    order, deps = _collect(roots)
    buffers = {}
    for node, g in roots:
        if node is None:
            continue
        k = id(node)
        buffers[k] = buffers[k] + g if k in buffers else g
    captured = {}
    ready = []
    seen_root = set()
    for node, _ in roots:
        if node is not None and deps.get(id(node), 0) == 0 and id(node) not in seen_root:
            seen_root.add(id(node))
            ready.append(node)
    executed = []
    prev_mode = grad_mode._state[0]
    grad_mode._state[0] = bool(create_graph)
    try:
        while ready:
            node = ready.pop()
            k = id(node)
            g = buffers.pop(k, None)
            run_it = restrict is None or k in restrict
            is_capture = capture is not None and k in capture
            if is_capture:
                captured[k] = g
            if node.retained and g is not None and (run_it or is_capture):
                _retain(node, g, create_graph)
            if isinstance(node, AccumulateGrad):
                if accumulate and run_it and g is not None:
                    _accumulate(node.variable, g, create_graph)
                continue
            grads = None
            if run_it and g is not None:
                saved = node.unpack_saved()
                grads = node.backward_fn(g, *saved)
                executed.append(node)
            for i, nxt in enumerate(node.next_nodes):
                if nxt is None:
                    continue
                kn = id(nxt)
                if grads is not None:
                    gi = grads[i]
                    if gi is not None:
                        if not isinstance(gi, Tensor):
                            gi = Tensor(np.asarray(gi))
                        shape, dtype = node.input_meta[i]
                        if gi.data_.shape != shape:
                            gi = sum_to_shape(gi, shape)
                        if gi.data_.dtype != dtype:
                            from .ops.conversion import to_dtype
                            gi = to_dtype(gi, dtype)
                        prev = buffers.get(kn)
                        buffers[kn] = gi if prev is None else prev + gi
                deps[kn] -= 1
                if deps[kn] == 0:
                    ready.append(nxt)
    finally:
        grad_mode._state[0] = prev_mode
    if not retain_graph:
        for node in executed:
            node.release()
    return captured


def _retain(node, g, create_graph):
    """retain_grad's hook: the first gradient is cloned (CloneBackward0 under
    create_graph), later ones are added out of place (a new .grad object)."""
    from .ops.shape import clone
    for ref in node.retained:
        t = ref()
        if t is None or t.grad_fn is not node:
            continue
        if t._grad is None:
            t._grad = clone(g) if create_graph else Tensor(np.array(g.data_, copy=True))
        else:
            t._grad = t._grad + g if create_graph else Tensor(t._grad.data_ + g.data_)


def _accumulate(var, g, create_graph):
    """AccumulateGrad: PyTorch's rules for a leaf's .grad. First gradient: a copy (under
    create_graph, CopyBackwards over the gradient's graph, at version 1 like PyTorch's
    copy_); later ones: in place without create_graph (same object, version bumped),
    out of place with it (a new object with grad_fn AddBackward0)."""
    if var._grad is None:
        if create_graph and g.requires_grad_flag:
            from .ops.conversion import copy_backwards
            var._grad = copy_backwards(g)
            var._grad._version[0] = 1
        else:
            var._grad = Tensor(np.array(g.data_, dtype=var.data_.dtype, copy=True))
    elif create_graph:
        var._grad = var._grad + g
    else:
        gd = var._grad.data_
        if gd.flags.writeable and gd.shape == g.data_.shape:
            np.add(gd, g.data_, out=gd, casting="unsafe")
            var._grad._version[0] += 1
        else:
            var._grad = Tensor(gd + g.data_)


def _tensors(x, what):
    if isinstance(x, Tensor):
        return [x]
    if not hasattr(x, "__iter__"):
        raise errors.TorchTypeError(errors.NOT_ITERABLE.format(t=type(x).__name__))
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """torch.autograd.backward."""
    tensors = _tensors(tensors, "tensors")
    if inputs is not None:
        inputs = _tensors(inputs, "inputs")
        if not inputs:
            raise errors.TorchRuntimeError(errors.EMPTY_INPUTS.format(fn="backward"))
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_grads(tensors, grad_tensors, create_graph)
    restrict = None
    if inputs is not None:
        targets = set()
        for t in inputs:
            t.retain_grad()  # PyTorch: raises for a tensor not requiring grad
            targets.add(id(edge(t)))
        order, _ = _collect(roots)
        # every target runs (a non-leaf input's grad_fn too), plus what leads to one
        restrict = _needed(order, targets)
    if create_graph:
        errors.warn_once(errors.CREATE_GRAPH_WARNING)
    _run(roots, retain_graph, create_graph, restrict=restrict)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=None, materialize_grads=False):
    """torch.autograd.grad: gradients of outputs w.r.t. inputs, leaving .grad alone."""
    outputs = _tensors(outputs, "outputs")
    inputs = _tensors(inputs, "inputs")
    if not inputs:
        raise errors.TorchRuntimeError(errors.EMPTY_INPUTS.format(fn="grad"))
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_grads(outputs, grad_outputs, create_graph)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise errors.TorchTypeError(
                f"grad(): argument 'inputs' must be tuple of Tensors, not {type(t).__name__}")
        if not t.requires_grad_flag:
            raise errors.TorchRuntimeError(errors.INPUT_NOT_REQUIRING_GRAD)
    targets = [edge(t) for t in inputs]
    order, _ = _collect(roots)
    need = _needed(order, {id(n) for n in targets})
    # A target node is only captured, not executed, unless another target lies below it.
    restrict = {id(n) for n in order
                if any(c is not None and id(c) in need for c in n.next_nodes)}
    captured = _run(roots, retain_graph, create_graph,
                    capture={id(n) for n in targets}, accumulate=False, restrict=restrict)
    result = []
    for i, (t, n) in enumerate(zip(inputs, targets)):
        g = captured.get(id(n))
        if g is None:
            if materialize_grads:
                g = Tensor(np.zeros_like(t.data_))
            elif not allow_unused:
                raise errors.TorchRuntimeError(errors.UNUSED_INPUT.format(i=i))
        elif not create_graph and g.requires_grad_flag:
            g = Tensor(g.data_)
        result.append(g)
    return tuple(result)
