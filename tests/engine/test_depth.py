"""Graph depth, the saved-tensor lifecycle, and memory (SPEC §2, STYLE lesson 6).

* A chain of 1,000,000 ops backpropagates with no RecursionError (the walk in
  autograd.py is iterative), and so does deleting it (CPython's trashcan).
* After backward without retain_graph every executed node has released its saved
  tensors (`node.saved == ()`, `node.released`); with retain_graph they are kept.
* No reference cycle keeps a big tensor alive once the user drops it: nodes keep their
  own outputs as data-only shells, leaves hold their AccumulateGrad weakly, and
  retain_grad registrations are weak. (`backward(create_graph=True)` is the exception
  PyTorch warns about: leaf -> .grad -> graph -> AccumulateGrad -> leaf; gc frees it.)

Timings are printed (`pytest -s`) and attached to the report as user properties.
"""

import gc
import math
import time
import weakref

import numpy as np
import pytest

from diffcli.engine import EngineError, Tensor, backward, errors, grad, tensor

DEPTH = 1_000_000
BIG = 13_107_200  # float64 elements in 100 MiB


def _nodes(fn):
    """Every node reachable from `fn` (iteratively)."""
    seen, stack, out = set(), [fn], []
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        stack.extend(n.next_nodes)
    return out


def test_million_op_chain(record_property):
    x = tensor(1.0, requires_grad=True)
    t0 = time.perf_counter()
    y = x
    for _ in range(DEPTH):
        y = y * 1.0000001
    t1 = time.perf_counter()
    y.backward()
    t2 = time.perf_counter()
    assert math.isclose(x.grad.item(), 1.0000001**DEPTH, rel_tol=1e-9)
    node = weakref.ref(y.grad_fn)
    del y
    t3 = time.perf_counter()
    assert node() is None  # the whole chain went with its last reference
    record_property("forward_s", round(t1 - t0, 2))
    record_property("backward_s", round(t2 - t1, 2))
    record_property("delete_s", round(t3 - t2, 2))
    print(f"\n1M-op chain: build {t1 - t0:.1f} s, backward {t2 - t1:.1f} s, delete {t3 - t2:.1f} s")
    assert t2 - t1 < 120, "backward over a 1M-node chain is far slower than expected"


def test_deep_mixed_chain_grad_and_create_graph():
    """add / exp / log / sin, 40k deep: grad() and a second-order pass stay iterative."""
    n = 40_000
    x = tensor(0.5, requires_grad=True)
    y = x
    for i in range(n):
        k = i % 4
        y = y + 1e-6 if k == 0 else y.exp() if k == 1 else y.log() if k == 2 else y.sin() + y
    (g,) = grad(y, x, create_graph=True)
    v, d = 0.5, 1.0  # the chain rule in plain Python
    for i in range(n):
        k = i % 4
        if k == 0:
            v += 1e-6
        elif k == 1:
            v = math.exp(v)
            d *= v
        elif k == 2:
            d /= v
            v = math.log(v)
        else:
            d *= math.cos(v) + 1
            v = math.sin(v) + v
    assert math.isclose(g.item(), d, rel_tol=1e-8)
    assert g.requires_grad
    g.backward()  # second order through the gradient's own deep graph
    assert x.grad is not None and math.isfinite(x.grad.item())


def _chain(retain):
    x = tensor([0.5, 1.5], requires_grad=True)
    c = tensor([2.0, 3.0])
    y = x
    for _ in range(300):
        y = (y * c).sin() * 0.5 + y.exp() * 0.01
    out = y.sum()
    out.backward(retain_graph=retain)
    return out, [n for n in _nodes(out.grad_fn) if n.name() != "AccumulateGrad"]


def test_backward_releases_saved_tensors():
    out, nodes = _chain(retain=False)
    saving = [n for n in nodes if n.released]
    assert len(saving) > 900  # every MulBackward0 / SinBackward0 / ExpBackward0
    assert all(n.saved == () for n in nodes)
    assert {n.name() for n in saving} == {"MulBackward0", "SinBackward0", "ExpBackward0"}
    assert {n.name() for n in nodes if not n.released} == {"AddBackward0", "SumBackward0"}


def test_retain_graph_keeps_saved_tensors():
    out, nodes = _chain(retain=True)
    assert not any(n.released for n in nodes)
    kept = [n for n in nodes if n.saved]
    assert len(kept) > 900
    out.backward()  # and they are usable
    assert all(n.saved == () for n in nodes)


def test_grad_releases_and_retains_like_backward():
    x = tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).exp().sum()
    grad(y, x, retain_graph=True)
    assert all(not n.released for n in _nodes(y.grad_fn))
    grad(y, x)
    assert any(n.released for n in _nodes(y.grad_fn))


# --- memory: no cycle keeps a 100 MB tensor alive ------------------------------------------


def _big():
    return Tensor(np.ones(BIG), requires_grad=True)


def _exp_saved_output():
    x = _big()
    y = x.exp()
    y.sum().backward()
    return [x, y]


def _mul_saved_input():
    x = _big()
    y = x * x
    y.sum().backward()
    return [x, y]


def _graph_without_backward():
    x = _big()
    y = x.exp()
    return [x, y]


def _retain_grad():
    x = _big()
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward()
    assert h.grad is not None
    return [x, h, h.grad]


def _in_place_on_view():
    x = _big()
    y = x * 1
    y[0:10].mul_(2)
    v = y[5:]
    y.exp_()
    y.sum().backward()
    return [x, y, v]


def _autograd_grad_create_graph():
    x = _big()
    (g,) = grad((x**2).sum(), x, create_graph=True)
    g.sum().backward()
    return [x, g, x.grad]


def _retained_graph():
    x = _big()
    y = x.sin()
    y.sum().backward(retain_graph=True)
    return [x, y]


@pytest.mark.parametrize(
    "make",
    [
        _exp_saved_output,
        _mul_saved_input,
        _graph_without_backward,
        _retain_grad,
        _in_place_on_view,
        _autograd_grad_create_graph,
        _retained_graph,
    ],
    ids=lambda f: f.__name__.strip("_"),
)
def test_no_reference_cycle_keeps_big_tensors(make):
    gc.collect()
    gc.disable()  # prove that reference counting alone frees everything
    try:
        refs = [weakref.ref(t) for t in make()]
        alive = [r for r in refs if r() is not None]
        assert not alive, f"{len(alive)} tensors survive their last reference"
    finally:
        gc.enable()


def test_create_graph_cycle_is_collected():
    """PyTorch's documented leak: x.grad's graph leads back to x. gc breaks it."""
    gc.collect()
    x = _big()
    errors.reset_warn_once()
    with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle"):
        (x**2).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None
    ref = weakref.ref(x)
    del x
    gc.collect()
    assert ref() is None


def test_backward_restores_gc_state():
    x = tensor([1.0], requires_grad=True)
    gc.disable()
    try:
        (x * 2).sum().backward()
        assert not gc.isenabled()
    finally:
        gc.enable()
    (x * 2).sum().backward()
    assert gc.isenabled()
    y = x.exp()
    y.add_(1)
    with pytest.raises(EngineError, match="modified by an inplace operation"):
        backward([y])  # raised inside the walk
    assert gc.isenabled()
