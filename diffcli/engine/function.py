"""Recording an op into the graph, and the one place broadcasting is undone.

`record(name, data, inputs, backward, saved)` makes the output tensor and, when grad mode
is on and an input requires grad, the Node that PyTorch would show as its grad_fn.
`inputs` lists one entry per next_function, in PyTorch's order: a Tensor, or None for a
Python scalar operand that PyTorch still lists as `(None, 0)`.
"""

from __future__ import annotations

import weakref

import numpy as np

from . import dtypes, errors, inference
from . import saved as saved_hooks
from .context import TRACE
from .grad_mode import _state as _grad_state
from .multiview import INVALID, invalid_error
from .node import AccumulateGrad, Node
from .tensor import Tensor


def edge(t):
    """The node a gradient for `t` flows into, or None."""
    if t is None or not t.needs_grad:
        return None
    fn = t.grad_fn
    if fn is not None:
        if fn is INVALID:
            raise invalid_error(t)
        return fn
    if t._no_grad_view:  # requires grad, yet leads nowhere (shape.py _view_of)
        return None
    # The leaf holds its AccumulateGrad weakly (as PyTorch does): the graph keeps it
    # alive, and leaf <-> accumulator is no reference cycle.
    ref = t._accumulator
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._accumulator = weakref.ref(acc)
    return acc


OUT = object()  # in `saved`: stands for the op's own output
# TRACE: a list to append (output, inputs, node, value) of every op to, for `diffcli graph` (a run setting)


def record(name, data, inputs, backward, saved=(), fargs=()):
    """`fargs`: what the backward formula gets after the saved tensors (an op's scalar
    arguments, a Python-number operand's value)."""
    out = Tensor(data)
    if TRACE[0] is not None:
        return _traced(out, name, data, inputs, backward, saved, fargs)
    if not _grad_state[0]:
        if inference.ACTIVE[0]:  # inside torch.inference_mode: an inference tensor
            inference.mark(out)
        return out
    # one pass over the inputs: the edges (next_functions) and each input's shape/dtype
    edges = []
    meta = []
    wanted = False
    for t in inputs:
        if t is None:
            edges.append(None)
            meta.append(None)
            continue
        if t.needs_grad:
            wanted = True
            fn = t.grad_fn
            if fn is INVALID:
                raise invalid_error(t)
            edges.append(fn if fn is not None else edge(t))
        else:
            edges.append(None)
        d = t.array
        meta.append((d.shape, d.dtype))
    if not wanted:
        return out
    outputs = ()
    if saved and inference.USED[0]:
        inference.check_saved(saved)
    if saved:
        for s in saved:
            if s is OUT:
                outputs = tuple([i for i, s in enumerate(saved) if s is OUT])
                saved = tuple([output_shell(out) if s is OUT else s for s in saved])
                break
    out.grad_fn = Node(name, tuple(edges), backward, saved, tuple(meta), outputs, None, fargs)
    out.needs_grad = True
    if saved_hooks.HOOKS:  # inside torch.autograd.graph.saved_tensors_hooks
        saved_hooks.pack(out.grad_fn, out)
    return out


F64 = np.dtype(np.float64)
_META = ((), F64)
_META1, _META2, _META_C = (_META,), (_META, _META), (_META, None)
# stands in `saved` for a Python-number operand (PyTorch saves it as a wrapped-number
# tensor, so a second backward fails); the number itself travels in the node's fargs
CONST = Tensor(np.array(0.0))


def record_scalar(name, value, inputs, backward, saved, fast, fargs):
    """record() for the scalar lane: every Tensor in `inputs` is 0-d float64 (None stands
    for a Python number), `value` is the result as a float. The node gets `fast`, the
    backward formula on Python floats, and `fargs`, the floats both formulas get after the
    saved tensors. Same names, edges, saved tensors and errors as record()."""
    arr = np.array(value)
    if TRACE[0] is not None or not _grad_state[0]:
        out = record(name, arr, inputs, backward, saved)
        fn = out.grad_fn
        if fn is not None:
            fn.fast, fn.fargs = fast, fargs
        return out
    out = Tensor(arr)
    a = inputs[0]
    ea = (a.grad_fn or edge(a)) if a.needs_grad else None
    if ea is INVALID:
        raise invalid_error(a)
    if len(inputs) == 1:
        if ea is None:
            return out
        edges = (ea,)
        meta = _META1
    else:
        b = inputs[1]
        if b is None:
            if ea is None:
                return out
            edges = (ea, None)
            meta = _META_C
        else:
            eb = (b.grad_fn or edge(b)) if b.needs_grad else None
            if eb is INVALID:
                raise invalid_error(b)
            if ea is None and eb is None:
                return out
            edges = (ea, eb)
            meta = _META2
    outputs = ()
    if saved and saved[-1] is OUT:  # the scalar lane saves its output last, if at all
        outputs = (len(saved) - 1,)
        saved = saved[:-1] + (output_shell(out),)
    out.grad_fn = Node(name, edges, backward, saved, meta, outputs, fast, fargs)
    out.needs_grad = True
    if saved_hooks.HOOKS:
        saved_hooks.pack(out.grad_fn, out)
    return out


def _traced(out, name, data, inputs, backward, saved, fargs=()):
    """record() for `diffcli graph`: also log (output, inputs, node, value at creation)."""
    trace = TRACE[0]
    TRACE[0] = None
    try:
        res = record(name, data, inputs, backward, saved, fargs)
    finally:
        TRACE[0] = trace
    trace.append((res, inputs, res.grad_fn, np.array(res.array, copy=True)))
    return res


def output_shell(out: Tensor) -> Tensor:
    """What a node keeps of its own output: the data and the shared version counter,
    without the grad_fn link back to the node (see node.py)."""
    shell = Tensor(out.array)
    shell._version = out._version
    return shell


def as_tensor(x, dtype=None) -> Tensor:
    """A Tensor for an operand: Tensors pass through, numbers become 0-d constants."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, bool):
        arr = np.array(x, dtype=dtype or np.bool_)
    elif isinstance(x, int):
        arr = np.array(x, dtype=dtype or np.int64)
    elif isinstance(x, float):
        arr = np.array(x, dtype=dtype or dtypes.default_float())
    else:
        raise errors.TorchTypeError(f"expected Tensor as element 0 in argument 0, but got {type(x).__name__}")
    return Tensor(arr)
