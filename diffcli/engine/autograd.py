"""The backward pass: `backward()` and `grad()`, iterative so depth is unbounded.

One walk serves both: collect the nodes reachable from the roots (explicit stack),
count each node's incoming edges, then run nodes whose gradients are complete (Kahn's
algorithm). Gradients are summed per node before its formula runs; formulas run with
grad mode on only under create_graph, so first order records nothing.

Without create_graph, nodes of the scalar lane (see node.py) run their formula on Python
floats: a gradient stays a float from node to node and becomes a Tensor again where it
leaves the lane (a node without `fast`, a leaf's .grad, retain_grad, grad()'s results).
"""

from __future__ import annotations

import gc
import heapq

import numpy as np

from . import errors, grad_mode, hooks
from .function import edge
from .node import AccumulateGrad, Node, thaw
from .ops.conversion import copy_backwards, to_dtype
from .ops.reductions import sum_to_shape
from .ops.shape import clone
from .tensor import Tensor

# A pass calls the caller's check of its limits (errors.POLL) every POLL_EVERY nodes and
# at every node with a big gradient.
POLL_EVERY = 256
_POLL_ELEMENTS = 1 << 16
# `diffcli explain`: a function called as OBSERVE[0](node, grad, grads) for each node a
# pass runs (grads: what its formula gave per input, before the fit to the input's
# shape; None for an AccumulateGrad), and as OBSERVE[0](None, roots, None) when a pass
# starts; or None (the usual case: no cost but a test)
OBSERVE = [None]


class observing:
    """`with observing(fn):` the passes inside call `fn` as OBSERVE describes (the one way
    to set it from outside the engine); the previous observer comes back on exit."""

    __slots__ = ("observer", "prev")

    def __init__(self, observer):
        self.observer, self.prev = observer, None

    def __enter__(self):
        self.prev, OBSERVE[0] = OBSERVE[0], self.observer
        return self

    def __exit__(self, *exc):
        OBSERVE[0] = self.prev
        return False


def _tensor_or_tensors(x, n):
    """PyTorch's `_tensor_or_tensors_to_tuple`: None -> n Nones, a Tensor -> (x,), anything
    else is iterated (so a Python float raises "'float' object is not iterable")."""
    if x is None:
        return [None] * n
    if isinstance(x, Tensor):
        return [x]
    return _tensors(x)


def _root_grads(tensors, grads, create_graph):
    """Pair each output with its starting gradient, checking PyTorch's rules."""
    grads = _tensor_or_tensors(grads, len(tensors))
    out = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if not isinstance(t, Tensor):
            raise errors.TorchTypeError(
                f"tensors argument must be a Tensor or a sequence of Tensors, but got {type(t).__name__}"
            )
        if g is None:
            if t.needs_grad and t.array.size != 1:
                raise errors.TorchRuntimeError(errors.IMPLICIT_SCALAR)
            g = Tensor(np.ones_like(t.array))
        elif not isinstance(g, Tensor):
            raise errors.TorchTypeError(errors.GRADIENT_TYPE.format(t=type(g).__name__))
        elif g.array.shape != t.array.shape:
            raise errors.TorchRuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of "
                f"{errors.shape_text(g.array.shape)} and output[{i}] has a shape of "
                f"{errors.shape_text(t.array.shape)}."
            )
        out.append((t, g))
    if len(grads) < len(tensors):  # extra gradients are ignored, as zip() does in PyTorch
        raise errors.TorchRuntimeError(errors.GRAD_COUNT_MISMATCH.format(n=len(tensors), m=len(grads)))
    roots = []
    for i, (t, g) in enumerate(out):
        if not t.needs_grad:
            raise errors.TorchRuntimeError(errors.NO_GRAD_FN.format(i=i))
        if not create_graph and g.needs_grad:
            g = g.detach()
        if g.array.dtype != t.array.dtype:  # the engine casts to the output's dtype
            with grad_mode.set_grad_enabled(create_graph):
                g = to_dtype(g, t.array.dtype)
        roots.append((edge(t), g))
    return roots


def _collect(roots):
    """The nodes reachable from the roots (roots first), and for each node how many edges
    point into it. Nodes hash by identity."""
    stack = []
    for n, _ in roots:
        if n is not None and n not in stack:
            stack.append(n)
    order = list(stack)
    root_set = set(stack)
    deps = {}
    get = deps.get
    while stack:
        for nxt in stack.pop().next_nodes:
            if nxt is None:
                continue
            c = get(nxt)
            if c is None:
                deps[nxt] = 1
                if nxt not in root_set:
                    order.append(nxt)
                    stack.append(nxt)
            else:
                deps[nxt] = c + 1
    return order, deps


def _needed(order, deps, targets):
    """The target nodes and every node from which a target is reachable."""
    indeg = dict(deps)
    topo = []
    ready = [n for n in order if n not in indeg]
    while ready:
        n = ready.pop()
        topo.append(n)
        for nxt in n.next_nodes:
            if nxt is not None:
                indeg[nxt] -= 1
                if indeg[nxt] == 0:
                    ready.append(nxt)
    need = set(targets)
    for n in reversed(topo):
        if n not in need:
            for nxt in n.next_nodes:
                if nxt is not None and nxt in need:
                    need.add(n)
                    break
    return need


def _run(roots, retain_graph, create_graph, capture=None, accumulate=True, restrict=None, collected=None):
    """Execute the graph (Kahn's algorithm: a node runs once all its incoming gradients
    are summed). `capture`: nodes whose incoming gradient is returned (grad()).
    `restrict`: the nodes to execute (None: all). As in PyTorch, a node that is neither
    executed nor captured is not evaluated, so its retain_grad does not fire.

    Python's cyclic GC is paused during the walk: the pass makes no reference cycles, and
    generation-2 collections over a million-node graph would dominate the run time."""
    order, deps = collected if collected is not None else _collect(roots)
    buffers = {}
    for node, g in roots:
        if node is not None:
            buffers[node] = buffers[node] + g if node in buffers else g
    captured = {}
    # ready nodes run newest first (PyTorch's ready queue orders by sequence number), so
    # errors, retained grads and partial accumulation happen in PyTorch's order
    ready = [(-n.seq, i, n) for i, n in enumerate(order) if n not in deps and n in buffers]
    heapq.heapify(ready)
    tie = len(ready)
    prev_mode = grad_mode._state[0]
    grad_mode._state[0] = bool(create_graph)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    hooked = hooks.ACTIVE[0] and hooks.begin_pass(order, restrict, capture) and hooks.hooked
    try:
        pop_buffer = buffers.pop
        heappop, heappush = heapq.heappop, heapq.heappush
        direct = None  # the one ready node, when the heap is empty (a chain): no heap
        plain = restrict is None and capture is None  # every node runs, none is captured
        poll, polled = errors.POLL[0], 0
        observe = OBSERVE[0]
        if observe is not None:
            observe(None, roots, None)
        while True:
            if direct is not None:
                node = direct
                direct = None
            elif ready:
                node = heappop(ready)[2]
            else:
                break
            g = pop_buffer(node, None)
            if poll is not None:
                polled += 1
                if not polled & (POLL_EVERY - 1) or (
                    g.__class__ is Tensor and g.array.size >= _POLL_ELEMENTS
                ):
                    poll()
            fast = node.fast
            if g.__class__ is float and (
                fast is None or create_graph or node.retained or capture is not None
            ):
                g = Tensor(np.array(g))  # leaving the scalar lane
            has_hooks = hooked and hooked(node)
            if has_hooks:
                g = hooks.tensor_pre(node, g)
            if plain:
                run_it = True
                if node.retained and g is not None:
                    _retain(node, g, create_graph)
            else:
                run_it = restrict is None or node in restrict
                if capture is not None and node in capture:
                    captured[node] = g
                    if node.retained and g is not None:
                        _retain(node, g, create_graph)
                elif node.retained and g is not None and run_it:
                    _retain(node, g, create_graph)
            if has_hooks:
                g = hooks.pre(node, g)
            if node.__class__ is AccumulateGrad:
                if accumulate and run_it and g is not None:
                    if observe is not None:
                        observe(node, g, None)
                    _accumulate(node.variable, g, create_graph)
                    if has_hooks:
                        hooks.accumulated(node)
                continue
            grads = None
            if run_it and g is not None:
                # PyTorch computes (and unpacks saved tensors for) only outputs that lead
                # somewhere; a node run only for its retain_grad computes nothing
                if restrict is None or _feeds(node, restrict, capture):
                    if fast is not None and not create_graph:  # the scalar lane
                        saved = node.saved  # (check_saved's common cases, inline: the hot path)
                        if (
                            node.released
                            or saved
                            and (len(saved) != 1 or saved[0]._version[0] != node.saved_versions[0])
                        ):
                            node.check_saved()
                        gf = g if g.__class__ is float else g.array.item()
                        try:
                            grads = fast(gf, *node.fargs)
                            if grads.__class__ is not tuple:  # a float: the first input's
                                grads = (grads,)
                        except (ArithmeticError, ValueError):  # Python refuses; numpy won't
                            grads = node.backward_fn(Tensor(np.array(gf)), *node.unpack_saved())
                    else:
                        grads = node.backward_fn(g, *node.unpack_saved())
                if observe is not None and grads is not None:
                    observe(node, g, grads)
                if not retain_graph and (node.saved or node.__class__ is not Node):
                    node.release()  # freed once the node has run, as in PyTorch
                if has_hooks and grads is not None:
                    grads = hooks.post(node, grads, g, _fit)
            i = -1
            first = more = None  # the nodes this one made ready
            for nxt in node.next_nodes:
                i += 1
                if nxt is None:
                    continue
                if grads is not None:
                    gi = grads[i]
                    if gi is not None:
                        if gi.__class__ is not float:
                            gi = _fit(gi, node.input_meta[i])
                        prev = buffers.get(nxt)
                        buffers[nxt] = gi if prev is None else prev + gi
                c = deps[nxt] - 1
                deps[nxt] = c
                if c == 0:
                    if first is None:
                        first = nxt
                    elif more is None:
                        more = [first, nxt]
                    else:
                        more.append(nxt)
            if first is not None:
                if more is None and not ready:
                    direct = first
                else:
                    for nxt in more or (first,):
                        tie += 1
                        heappush(ready, (-nxt.seq, tie, nxt))
    finally:
        grad_mode._state[0] = prev_mode
        if hooked:
            hooks.end_pass()
        thaw()
        if gc_was_enabled:
            gc.enable()
    return captured


def _feeds(node, restrict, capture):
    for nxt in node.next_nodes:
        if nxt is not None and (nxt in restrict or capture is not None and nxt in capture):
            return True
    return False


def _fit(gi, meta):
    """A formula's gradient for one input, as a Tensor of that input's shape and dtype."""
    if meta is None:  # an edge that takes any gradient as it is (custom_function.OutputSlot)
        return gi
    if gi.__class__ is not Tensor:
        gi = Tensor(np.asarray(gi))
    shape, dtype = meta
    if gi.array.shape != shape:
        gi = sum_to_shape(gi, shape)
    if gi.array.dtype != dtype:
        gi = to_dtype(gi, dtype)
    return gi


def _retain(node, g, create_graph):
    """retain_grad's hook: the first gradient is cloned (CloneBackward0 under
    create_graph), later ones are added out of place (a new .grad object)."""
    for ref in node.retained:
        t = ref()
        if t is None or t.grad_fn is not node:
            continue
        if t._grad is None:
            t._grad = clone(g) if create_graph else Tensor(np.array(g.array, copy=True))
        else:
            t._grad = t._grad + g if create_graph else Tensor(t._grad.array + g.array)


def _accumulate(var, g, create_graph):
    """AccumulateGrad: PyTorch's rules for a leaf's .grad. First gradient: a copy (under
    create_graph, CopyBackwards over the gradient's graph, at version 1 like PyTorch's
    copy_); later ones: in place without create_graph (same object, version bumped),
    out of place with it (a new object with grad_fn AddBackward0)."""
    if var._grad is None:
        if create_graph and g.needs_grad:
            var._grad = copy_backwards(g)
            var._grad._version[0] = 1
        else:
            var._grad = Tensor(np.array(g.array, dtype=var.array.dtype, copy=True))
    elif create_graph:
        var._grad = var._grad + g
    else:
        gd = var._grad.array
        if gd.flags.writeable and gd.shape == g.array.shape:
            np.add(gd, g.array, out=gd, casting="unsafe")
            var._grad._version[0] += 1
        else:
            var._grad = Tensor(gd + g.array)


def _tensors(x):
    if isinstance(x, Tensor):
        return [x]
    if not hasattr(x, "__iter__"):
        raise errors.TorchTypeError(errors.NOT_ITERABLE.format(t=type(x).__name__))
    return list(x)


def _root_runs(roots, restrict):
    """With a single output, PyTorch's engine starts from that output's node itself (no
    GraphRoot), which always executes: its retain_grad fires and its saved tensors are
    freed even when no requested input lies below it. A leaf output's AccumulateGrad is
    the exception: it accumulates only when the leaf is among the inputs."""
    if len(roots) == 1 and roots[0][0] is not None and roots[0][0].__class__ is not AccumulateGrad:
        restrict.add(roots[0][0])


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """torch.autograd.backward."""
    tensors = _tensors(tensors)
    if inputs is not None:
        inputs = _tensors(inputs)
        if not inputs:
            raise errors.TorchRuntimeError(errors.EMPTY_INPUTS.format(fn="backward"))
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_grads(tensors, grad_tensors, create_graph)
    restrict = None
    collected = None
    if inputs is not None:
        targets = set()
        for t in inputs:
            t.retain_grad()  # PyTorch: raises for a tensor not requiring grad
            targets.add(edge(t))
        collected = _collect(roots)
        # every target runs (a non-leaf input's grad_fn too), plus what leads to one
        restrict = _needed(collected[0], collected[1], targets)
        _root_runs(roots, restrict)
    if create_graph:
        errors.warn_once(errors.CREATE_GRAPH_WARNING)
    _run(roots, retain_graph, create_graph, restrict=restrict, collected=collected)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph=None,
    create_graph=False,
    allow_unused=None,
    materialize_grads=False,
):
    """torch.autograd.grad: gradients of outputs w.r.t. inputs, leaving .grad alone."""
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
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
                f"grad(): argument 'inputs' must be tuple of Tensors, not {type(t).__name__}"
            )
        if not t.needs_grad:
            raise errors.TorchRuntimeError(errors.INPUT_NOT_REQUIRING_GRAD)
    targets = [edge(t) for t in inputs]
    order, deps = _collect(roots)
    need = _needed(order, deps, targets)
    # A target node is only captured, not executed, unless another target lies below it.
    restrict = {n for n in order if any(c is not None and c in need for c in n.next_nodes)}
    _root_runs(roots, restrict)
    captured = _run(
        roots,
        retain_graph,
        create_graph,
        capture=set(targets),
        accumulate=False,
        restrict=restrict,
        collected=(order, deps),
    )
    result = []
    for i, (t, n) in enumerate(zip(inputs, targets)):
        g = captured.get(n)
        if g is None:
            if materialize_grads:
                g = Tensor(np.zeros_like(t.array))
            elif not allow_unused:
                raise errors.TorchRuntimeError(errors.UNUSED_INPUT.format(i=i))
        elif not create_graph and g.needs_grad:
            g = Tensor(g.array)
        result.append(g)
    return tuple(result)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """`Tensor.backward`: torch.autograd.backward on this tensor."""
    backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)


# the tensor module is below this one (tensor -> autograd would be a cycle): the method is
# put on the class here, as ops/table.py puts the ops' methods
_tensor_backward.__name__, _tensor_backward.__qualname__ = "backward", "Tensor.backward"
Tensor.backward = _tensor_backward
