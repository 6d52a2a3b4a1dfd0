"""Record PyTorch's behaviour for the engine's semantic scenarios into semantics.json.

Run by hand, with PyTorch installed, from the repository root:

    python tests/goldens/record_semantics.py            # rewrites tests/goldens/semantics.json

Every scenario is a PyTorch snippet. It runs with `torch.set_default_dtype(torch.float64)`
(our default dtype is float64) in a freshly forked process, so warn-once warnings
(create_graph, float() of a tensor requiring grad) appear in each scenario as in a new
script. We record what happened: the exception's type and text, stdout (memory addresses
normalised to 0x<ADDR>) and the warnings (category, message).

Scenario sources:
  own:<name>        the SCENARIOS below (brief item 1: the lifecycle of leaves, grads,
                    saved tensors, create_graph, grad(), in-place ops, grad modes);
  semantics:<label> every entry of reference.json's `semantics` (recorded there with
                    float32 default; re-recorded here with float64);
  errors:<label>    every entry of reference.json's `errors`, re-recorded with float64,
                    with the reference's own (float32) outcome kept alongside;
  adapted:<label>   float64-world rewrites of the errors whose point is a dtype
                    difference (ADAPTED below).

tests/engine/test_semantics.py and test_errors.py run the same snippets on the engine
(through tests/engine/torch_shim.py) and compare, without torch.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import pathlib
import re
import sys
import textwrap
import traceback
import warnings

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "semantics.json"
REFERENCE = pathlib.Path(__file__).resolve().parent / "torchref" / "reference.json"

ADDR_RE = re.compile(r"0x[0-9a-fA-F]+")

# Helpers defined in every scenario's namespace, on both sides. `graph(t)` prints a
# tensor's grad_fn graph the way reference.json does; `num(v)` prints numbers (floats,
# tensors) with 12 significant digits so that float64 results compare across libraries.
PRELUDE = """
def graph(fn):
    if not hasattr(fn, "next_functions") and hasattr(fn, "grad_fn"):
        fn = fn.grad_fn
    names = {id(v): k for k, v in list(globals().items()) if isinstance(v, TensorType)}
    def walk(f):
        if f is None:
            return "None"
        n = type(f).__name__
        if n == "AccumulateGrad":
            return "AccumulateGrad[%s]" % names.get(id(f.variable), "?")
        return "%s(%s)" % (n, ", ".join(walk(g) for g, _ in f.next_functions))
    return walk(fn)

def num(v):
    if isinstance(v, TensorType):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(num(e) for e in v) + "]"
    if isinstance(v, float):
        return "%.12g" % v
    return str(v)
"""

# --- own scenarios (torch syntax; T = leaf requiring grad, C = constant) ------------------
SCENARIOS = [
    # requires_grad propagation and is_leaf (REFERENCE §4 "is_leaf / requires_grad table")
    (
        "is_leaf requires_grad table",
        """
a = T([1.0, 2.0]); b = C([3.0, 4.0])
rows = [('a', a), ('b', b), ('a*2', a * 2), ('b*2', b * 2), ('a*b', a * b), ('b+b', b + b),
        ('a.exp()', a.exp()), ('b.exp()', b.exp()), ('a.sum()', a.sum()), ('a[0]', a[0]),
        ('a.clone()', a.clone()), ('b.clone()', b.clone()), ('(a*2).detach()', (a * 2).detach()),
        ('a.detach()', a.detach()), ('a > 1', a > 1), ('a.long()', a.long())]
for name, t in rows:
    print(name, t.is_leaf, t.requires_grad, None if t.grad_fn is None else type(t.grad_fn).__name__)
with torch.no_grad():
    n = a * 2
print('no_grad', n.is_leaf, n.requires_grad, n.grad_fn)
""",
    ),
    # accumulation: the same .grad object is mutated in place across backward calls
    (
        "accumulation same object",
        """
x = T([1.0, 2.0])
(x * x).sum().backward()
g = x.grad
v0 = g._version
print(x.grad, x.grad.grad_fn, x.grad.requires_grad, x.grad.is_leaf)
(x * 3).sum().backward()
print(x.grad, x.grad is g, g._version - v0)
x.grad.zero_()
print(x.grad, x.grad is g, g._version - v0)
(x * x).sum().backward()
print(x.grad, x.grad is g)
x.grad = None
print(x.grad)
(x * x).sum().backward()
print(x.grad, x.grad is g)
""",
    ),
    (
        "assigned grad accumulates in place",
        """
x = T([1.0, 2.0])
x.grad = torch.ones(2)
g = x.grad
v0 = g._version
(x * x).sum().backward()
print(x.grad, x.grad is g, g._version - v0)
""",
    ),
    (
        "same leaf twice and broadcast operands",
        """
x = T(3.0)
(x * x + x).backward()
print(x.grad)
a = T([[1.0], [2.0]]); b = T([10.0, 20.0, 30.0])
(a * b).sum().backward()
print(a.grad, b.grad)
""",
    ),
    # non-leaf .grad: None plus the warning, unless retain_grad()
    (
        "non-leaf grad warning",
        """
x = T([1.0, 2.0]); y = x * 2; z = y.sum()
z.backward()
print(y.grad)
print(z.grad)
print(x.grad)
""",
    ),
    (
        "non-leaf grad after assignment does not warn",
        """
x = T([1.0, 2.0]); y = x * 2
y.grad = torch.ones(2)
print(y.grad)
""",
    ),
    (
        "retain_grad",
        """
x = T([1.0, 2.0]); y = x * 3
r = y.retain_grad()
print(r, y.retains_grad, x.retains_grad)
z = (y * y).sum()
z.backward(retain_graph=True)
g = y.grad
print(y.grad, x.grad)
z.backward()
print(y.grad, y.grad is g, x.grad)
""",
    ),
    (
        "retain_grad on a leaf is a no-op",
        """
x = T([1.0, 2.0])
x.retain_grad()
print(x.retains_grad)
(x * 2).sum().backward()
print(x.grad)
""",
    ),
    (
        "retain_grad on a tensor without grad",
        """
c = C([1.0, 2.0])
c.retain_grad()
""",
    ),
    (
        "retain_grad under create_graph",
        """
x = T([1.0, 2.0]); y = x * 3; y.retain_grad()
(y ** 2).sum().backward(create_graph=True)
print(y.grad, x.grad)
g = y.grad
(y ** 2).sum().backward(create_graph=True)
print(y.grad, y.grad is g, x.grad)
""",
    ),
    (
        "retain_grad of a node that does not run",
        """
x = T(1.0); y = x * 2; y.retain_grad(); z = T(3.0)
(y * z).backward(inputs=[z])
print(y.grad, z.grad, x.grad)
x2 = T(1.0); y2 = x2 * 2; y2.retain_grad(); w2 = y2 * y2
print(torch.autograd.grad(w2, x2), y2.grad)
""",
    ),
    # backward's gradient argument
    (
        "scalar and one-element backward without gradient",
        """
x = T(2.0); (x * 3).backward(); print(x.grad)
x = T([2.0]); (x * 3).backward(); print(x.grad)
x = T([[2.0]]); (x * 3).backward(); print(x.grad)
x = T(2.0); x.backward(); print(x.grad)
""",
    ),
    (
        "non-scalar backward without gradient",
        """
x = T([[1.0, 2.0]]); (x * 2).backward()
""",
    ),
    (
        "gradient shape (1,1) for (1,) output",
        """
x = T([1.0]); (x * 2).backward(torch.ones(1, 1))
""",
    ),
    (
        "gradient shape (2,) for (2,1) output",
        """
x = T([[1.0], [2.0]]); (x * 2).backward(torch.ones(2))
""",
    ),
    (
        "gradient as python int",
        """
x = T(1.0); (x * 2).backward(3)
""",
    ),
    (
        "gradient as list of tensors",
        """
x = T([1.0, 2.0]); (x * 2).backward([torch.tensor([1.0, 10.0])]); print(x.grad)
""",
    ),
    (
        "gradient as list of a number for a vector",
        """
x = T([1.0, 2.0]); (x * 2).backward([1.0])
""",
    ),
    (
        "autograd.backward more tensors than gradients",
        """
x = T([1.0, 2.0]); y = x * 2
torch.autograd.backward([y, y], [torch.ones(2)])
""",
    ),
    (
        "autograd.backward extra gradients ignored",
        """
x = T([1.0, 2.0]); y = x * 2
torch.autograd.backward([y], [torch.ones(2), torch.ones(3)])
print(x.grad)
""",
    ),
    (
        "autograd.backward two roots",
        """
x = T([1.0, 2.0, 3.0])
torch.autograd.backward([x * 2, (x * x).sum()], [torch.tensor([1.0, 1.0, 1.0]), None])
print(x.grad)
""",
    ),
    (
        "gradient requiring grad without create_graph",
        """
x = T([1.0, 2.0]); g = T([1.0, 3.0])
(x * x).backward(g)
print(x.grad, x.grad.requires_grad, g.grad)
""",
    ),
    (
        "gradient requiring grad with create_graph",
        """
x = T([1.0, 2.0]); v = T([1.0, 3.0])
(x * x).backward(v, create_graph=True)
print(x.grad, graph(x.grad))
x.grad.sum().backward()
print(v.grad, x.grad)
""",
    ),
    # saved tensors are freed after backward unless retain_graph
    (
        "add twice accumulates",
        """
a = T([1.0, 2.0]); b = T([3.0, 4.0])
y = (a + b).sum(); y.backward(); y.backward()
print(a.grad, b.grad)
""",
    ),
    (
        "sub neg div-by-constant twice",
        """
a = T([1.0, 2.0])
y = (-(a - 1) / 2).sum(); y.backward(); y.backward()
print(a.grad)
""",
    ),
    (
        "mul of two leaves twice fails",
        """
a = T([1.0, 2.0]); b = T([3.0, 4.0])
y = (a * b).sum(); y.backward(); print(a.grad, b.grad); y.backward()
""",
    ),
    (
        "retain_graph allows a second backward",
        """
a = T([1.0, 2.0]); b = T([3.0, 4.0])
y = (a * b).exp().sum()
y.backward(retain_graph=True); y.backward(retain_graph=True); y.backward()
print(num(a.grad), num(b.grad))
y.backward()
""",
    ),
    (
        "grad twice with retain_graph then freed",
        """
x = T([1.0, 2.0]); y = x.sin().sum()
print(torch.autograd.grad(y, x, retain_graph=True))
print(torch.autograd.grad(y, x))
print(torch.autograd.grad(y, x))
""",
    ),
    (
        "freed graph still counts as requiring grad",
        """
x = T(1.0); y = x.exp(); y.backward()
print(y.requires_grad, type(y.grad_fn).__name__, x.grad)
z = y * 2
z.backward()
""",
    ),
    (
        "partially freed graph",
        """
x = T(2.0); h = x * x; y1 = h + 1; y2 = h * 3
y1.backward()
y2.backward()
print(x.grad)
""",
    ),
    # create_graph
    (
        "create_graph leaf grad is CopyBackwards",
        """
x = T(2.0); y = x ** 3
y.backward(create_graph=True)
print(x.grad, x.grad.requires_grad, x.grad.is_leaf, x.grad._version)
print(graph(x.grad))
print(torch.autograd.grad(x.grad, x))
""",
    ),
    (
        "create_graph twice gives AddBackward0",
        """
x = T([1.0, 2.0])
(x ** 3).sum().backward(create_graph=True)
g = x.grad
print(x.grad)
(x ** 3).sum().backward(create_graph=True)
print(x.grad, x.grad is g)
print(graph(x.grad))
""",
    ),
    (
        "create_graph then plain backward accumulates in place",
        """
x = T(2.0); y = x ** 3
y.backward(create_graph=True)
g = x.grad
y.backward()
print(x.grad, x.grad is g, g._version)
""",
    ),
    (
        "create_graph with a constant gradient",
        """
x = T([1.0, 2.0])
(x * 2).sum().backward(create_graph=True)
print(x.grad, x.grad.requires_grad, x.grad.grad_fn)
""",
    ),
    (
        "create_graph then backward on the grad",
        """
a = torch.tensor(1., requires_grad=True)
b = torch.tensor(2., requires_grad=True)
w = torch.tensor(0.5, requires_grad=True)
x = a + b
y = x * w
z = 0.5 * y ** 2
m = (z - 1) / 2
n = m - 0.1
p = torch.sin(n)
p.backward(create_graph=True)
g = a.grad
print(num(a.grad), num(b.grad), num(w.grad))
g.backward()
print(num(a.grad), a.grad is g, num(w.grad), num(b.grad))
""",
    ),
    (
        "grad create_graph chain x**3",
        """
x = T(2.0)
d1, = torch.autograd.grad(x ** 3, x, create_graph=True)
d2, = torch.autograd.grad(d1, x, create_graph=True)
d3, = torch.autograd.grad(d2, x, create_graph=True)
d4, = torch.autograd.grad(d3, x, allow_unused=True)
print(d1, graph(d1))
print(d2, graph(d2))
print(d3, graph(d3))
print(d4, x.grad)
""",
    ),
    (
        "higher order sin",
        """
x = T(0.7)
d = x.sin()
for k in range(4):
    d, = torch.autograd.grad(d, x, create_graph=True)
    print(k + 1, num(d), type(d.grad_fn).__name__)
""",
    ),
    (
        "higher order exp chain",
        """
x = T([0.3, -0.2])
y = (x * 2).exp().exp().sum()
d = y
for k in range(3):
    d, = torch.autograd.grad(d, x, create_graph=True)
    print(k + 1, num(d))
    d = d.sum()
""",
    ),
    (
        "higher order mixed polynomial",
        """
x = T(1.5); y = T(-0.5)
f = x ** 3 * y + (x * y).sin() + y.exp() * x
gx, gy = torch.autograd.grad(f, [x, y], create_graph=True)
gxx, gxy = torch.autograd.grad(gx, [x, y], create_graph=True)
gxxx, = torch.autograd.grad(gxx, x)
print(num(gx), num(gy), num(gxx), num(gxy), num(gxxx))
""",
    ),
    (
        "second derivative via backward twice",
        """
x = T([0.5, 1.0])
y = (x.sin() * x).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
g.sum().backward()
print(num(x.grad))
""",
    ),
    (
        "execution order: newest node first",
        """
x = T([0.5]); v1 = x.abs(); v1.retain_grad(); t = x * 1
t.reshape(-1)[0:1].mul_(t.reshape(-1)[-1:].sin())
try:
    (t + v1).backward()
except RuntimeError as e:
    print(e)
print(v1.grad, x.grad)
a = T(1.0); b = T(2.0)
p = a * 3; q = b.exp(); r = (p + q) * a
r.backward()
print(a.grad, num(b.grad))
""",
    ),
    (
        "nodes are freed as they run: a retry after an error",
        """
x = T([1.0, 2.0]); h = x * 1; y = h.sin(); z = y.exp().sum(); h.add_(1)
for k in range(2):
    try:
        z.backward()
    except RuntimeError as e:
        print(str(e)[:70])
print(x.grad)
""",
    ),
    (
        "a single output's node always runs",
        """
x = T(2.0); z = T(1.0); y = x.exp(); y.retain_grad()
y.backward(inputs=[z], retain_graph=True)
print(y.grad, x.grad, z.grad)
y.backward(inputs=[z])
print(y.grad)
try:
    y.backward(inputs=[z])
except RuntimeError as e:
    print(e)
x2 = T(2.0); z2 = T(1.0); y2 = x2.exp(); y2.retain_grad()
torch.autograd.backward([y2, y2 * 1], inputs=[z2], retain_graph=True)
print(y2.grad, x2.grad)
print(torch.autograd.grad(y2, [z2], allow_unused=True))
print(torch.autograd.grad(y2, [z2], allow_unused=True))
""",
    ),
    # torch.autograd.grad
    (
        "grad returns a tuple and leaves grad alone",
        """
x = T([1.0, 2.0]); z = T(3.0)
y = (x * x).sum() * z
r = torch.autograd.grad(y, [x, z])
print(type(r).__name__, r, x.grad, z.grad)
""",
    ),
    (
        "grad with grad_outputs",
        """
x = T([1.0, 2.0, 3.0])
print(torch.autograd.grad(x * x, x, grad_outputs=torch.tensor([1.0, 0.5, 0.25])))
print(torch.autograd.grad([x * 2, x.sum()], x, grad_outputs=[torch.ones(3), torch.tensor(2.0)]))
""",
    ),
    (
        "grad allow_unused and materialize",
        """
x = T([1.0, 2.0]); z = T(3.0)
y = (x * 2).sum()
print(torch.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True))
print(torch.autograd.grad(y, [z, x], materialize_grads=True, retain_graph=True))
torch.autograd.grad(y, [z, x])
""",
    ),
    (
        "grad on non-leaf inputs does not run their grad_fn",
        """
x = T([1.0, 2.0]); h = x.exp(); y = (h * h).sum()
print(num(torch.autograd.grad(y, h)[0]))
h.sum().backward()
print(num(x.grad))
""",
    ),
    (
        "grad on non-leaf and leaf inputs",
        """
x = T([1.0, 2.0]); h = x * 2; y = (h ** 2).sum()
print(torch.autograd.grad(y, [x, h]))
print(x.grad, h.grad)
""",
    ),
    (
        "grad of an output wrt itself",
        """
x = T([1.0, 2.0]); y = x * 2
print(torch.autograd.grad(y, y, grad_outputs=torch.tensor([3.0, 4.0])))
""",
    ),
    (
        "grad with empty inputs",
        """
x = T([1.0, 2.0]); torch.autograd.grad(x.sum(), [])
""",
    ),
    (
        "grad wrt non-requiring and output not requiring",
        """
c = C([1.0, 2.0]); torch.autograd.grad(c.sum(), c)
""",
    ),
    # backward(inputs=...)
    (
        "backward inputs restricts accumulation",
        """
x = T([1.0, 2.0]); z = T([3.0, 4.0])
y = (x * z).sum()
y.backward(inputs=[x], retain_graph=True)
print(x.grad, z.grad)
y.backward(inputs=z)
print(x.grad, z.grad)
""",
    ),
    (
        "backward inputs non-leaf",
        """
x = T([1.0, 2.0]); h = x * 2; y = (h * h).sum()
y.backward(inputs=[h])
print(h.grad, h.retains_grad, x.grad)
""",
    ),
    (
        "backward inputs unused leaf",
        """
x = T([1.0, 2.0]); z = T([1.0])
(x * 2).sum().backward(inputs=[z])
print(x.grad, z.grad)
""",
    ),
    (
        "backward inputs not requiring grad",
        """
x = T([1.0, 2.0]); c = C([1.0, 2.0])
(x * c).sum().backward(inputs=[c])
""",
    ),
    (
        "backward inputs empty",
        """
x = T([1.0, 2.0]); (x * 2).sum().backward(inputs=[])
""",
    ),
    # grad modes
    (
        "no_grad enable_grad set_grad_enabled",
        """
x = T([1.0])
with torch.no_grad():
    a = x * 2
    with torch.enable_grad():
        b = x * 2
    with torch.set_grad_enabled(True):
        c = x * 2
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
for t in (a, b, c):
    print(t.requires_grad, t.is_leaf, t.grad_fn is None)
torch.set_grad_enabled(False)
d = x * 2
print(torch.is_grad_enabled(), d.requires_grad, d.is_leaf)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled(), (x * 2).requires_grad)
""",
    ),
    (
        "grad mode decorators",
        """
@torch.no_grad()
def f(t):
    return t * 2, torch.is_grad_enabled()
@torch.enable_grad()
def g(t):
    return t * 2
@torch.set_grad_enabled(False)
def h(t):
    return t * 2
x = T([1.0])
print(torch.is_grad_enabled())
y, mode = f(x)
print(y.requires_grad, y.is_leaf, mode, torch.is_grad_enabled())
with torch.no_grad():
    print(g(x).requires_grad)
print(h(x).requires_grad, torch.is_grad_enabled())
""",
    ),
    (
        "no_grad result in a later graph",
        """
x = T([1.0, 2.0])
with torch.no_grad():
    c = x * 3
y = (c * x).sum()
y.backward()
print(x.grad, c.grad, c.requires_grad)
""",
    ),
    # detach, .data, detach_, requires_grad_
    (
        "detach shares data and version counter",
        """
x = T([1.0, 2.0])
d = x.detach()
print(d.requires_grad, d.is_leaf, d.grad_fn)
d.add_(1)
print(x, x._version, d._version)
y = x * 2
e = y.detach()
e.mul_(10)
print(y, y._version, e._version)
""",
    ),
    (
        "data does not share the version counter",
        """
x = T([1.0, 2.0])
d = x.data
d.add_(1)
print(x, x._version, d._version, d.requires_grad)
y = x.exp()
y.data.mul_(2)
y.sum().backward()
print(num(x.grad))
""",
    ),
    (
        "detach then in-place on saved input",
        """
x = T([1.0, 2.0]); y = x.sin()
x.detach().mul_(2)
y.sum().backward()
""",
    ),
    (
        "detach_",
        """
x = T([1.0, 2.0]); y = x * 2
r = y.detach_()
print(r is y, y.requires_grad, y.is_leaf, y.grad_fn, y._version)
y.requires_grad_()
(y * y).sum().backward()
print(y.grad, x.grad)
""",
    ),
    (
        "detach_ on a view of a leaf",
        """
x = T([1.0, 2.0]); x[0:1].detach_()
""",
    ),
    (
        "detach_ on a view of a constant",
        """
c = C([1.0, 2.0]); c[0:1].detach_()
""",
    ),
    (
        "requires_grad_ variants",
        """
x = C([1.0, 2.0])
r = x.requires_grad_()
print(r is x, x.requires_grad, x.is_leaf)
x.requires_grad_(False)
print(x.requires_grad)
x.requires_grad = True
print(x.requires_grad)
y = x * 2
y.requires_grad_(True)
y.requires_grad = True
print(y.requires_grad, y.is_leaf)
y.requires_grad_(False)
""",
    ),
    (
        "requires_grad_ int tensor method",
        """
torch.tensor([1, 2]).requires_grad_()
""",
    ),
    (
        "requires_grad_ False on int tensor",
        """
t = torch.tensor([1, 2]); t.requires_grad_(False); t.requires_grad = False
print(t.requires_grad)
""",
    ),
    (
        "requires_grad attribute on int tensor",
        """
t = torch.tensor([1, 2]); t.requires_grad = True
""",
    ),
    (
        "requires_grad constructor int and bool",
        """
for args in ([1, 2], [True]):
    try:
        torch.tensor(args, requires_grad=True)
    except RuntimeError as e:
        print(e)
torch.zeros(2, dtype=torch.long, requires_grad=True)
""",
    ),
    # in-place ops
    (
        "in-place bumps version",
        """
x = C([1.0, 2.0, 3.0])
print(x._version)
x.add_(1); x.mul_(2); x.sub_(1); x.div_(2)
print(x._version, x)
x += 1; x -= 1; x *= 3; x /= 3
print(x._version, x)
x.exp_(); x.zero_(); x.fill_(2.0)
print(x._version, x)
x[0] = 7.0; x[1:] = torch.tensor([8.0, 9.0])
print(x._version, x)
v = x[1:]; v.mul_(2)
print(x._version, v._version, x)
""",
    ),
    (
        "in-place on non-leaf replaces grad_fn",
        """
a = T([1.0, 2.0, 3.0]); b = T([0.5, 0.25])
cases = []
y = a * 2; y.exp_(); cases.append(('exp_', y))
y = a * 2; y.add_(1); cases.append(('add_(1)', y))
y = a * 2; y.mul_(3); cases.append(('mul_(3)', y))
y = a * 2; y += 1; cases.append(('+= 1', y))
y = a * 2; y.sigmoid_(); cases.append(('sigmoid_', y))
y = a * 2; y.tanh_(); cases.append(('tanh_', y))
y = a * 2; y.relu_(); cases.append(('relu_', y))
y = a.clone(); y.exp_(); cases.append(('clone exp_', y))
y = a * 2; y[0] = 0.0; cases.append(('setitem', y))
y = a * 2; y[1:] = b; cases.append(('setitem grad source', y))
y = a * 2; y.zero_(); cases.append(('zero_', y))
y = a * 2; y[1:].mul_(10); cases.append(('view mul_', y))
for name, y in cases:
    print(name, y._version, graph(y))
""",
    ),
    (
        "in-place on non-leaf gradients",
        """
a = T([1.0, 2.0, 3.0]); b = T([0.5, 0.25])
for name, f in [('exp_', lambda y: y.exp_()), ('add_', lambda y: y.add_(1)),
                ('mul_', lambda y: y.mul_(3)), ('sigmoid_', lambda y: y.sigmoid_()),
                ('tanh_', lambda y: y.tanh_()), ('pow_', lambda y: y.pow_(2)),
                ('sqrt_', lambda y: y.sqrt_()), ('div_', lambda y: y.div_(4))]:
    a.grad = None
    y = a * 2
    r = f(y)
    y.sum().backward()
    print(name, r is y, num(a.grad))
a.grad = None
y = a * 2; y[1:] = b * 3; y.sum().backward(); print('setitem', a.grad, b.grad)
a.grad = None
y = a * 2; y[1:].mul_(10); (y * y).sum().backward(); print('view mul_', a.grad)
""",
    ),
    (
        "views see in-place changes of their base",
        """
a = T([1.0, 2.0, 3.0]); y = a * 2; v = y[1:]
print(graph(v))
y.mul_(3)
print(graph(v), v._version)
(v * v).sum().backward()
print(a.grad)
a.grad = None
y = a * 2; v = y[1:]; w = y[0:2]
w.mul_(3)
print(graph(v)); print(graph(w)); print(graph(y))
(v * v).sum().backward()
print(a.grad)
""",
    ),
    (
        "in-place on a view of a constant with a grad operand",
        """
c = C([1.0, 2.0, 3.0]); wt = T([5.0, 6.0]); v = c[1:]
v.mul_(wt)
print(c, graph(c), graph(v), v.requires_grad)
(c * c).sum().backward()
print(wt.grad)
""",
    ),
    (
        "in-place on strided views",
        """
a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); y = a * 1
v = y.t()[1:, 0]
v.exp_()
print(graph(y))
(y * y).sum().backward()
print(num(a.grad))
a.grad = None
y = a * 2; v = y[1]; v2 = v[0:2]
v2.mul_(v2)
y.sum().backward()
print(a.grad)
""",
    ),
    (
        "in-place on a view then backward twice",
        """
a = T([1.0, 2.0, 3.0]); y = a.exp(); y[1:].mul_(2)
s = y.sum()
s.backward(retain_graph=True); print(num(a.grad))
s.backward(); print(num(a.grad))
s.backward()
""",
    ),
    (
        "in-place with an operand requiring grad",
        """
a = T([1.0, 2.0]); z = T([3.0, 4.0])
y = a * 2
y.mul_(z)
y.sum().backward()
print(a.grad, z.grad)
c = C([1.0, 2.0]); w = T([5.0, 6.0])
c.mul_(w)
c.sum().backward()
print(c.grad_fn is not None, c.is_leaf, w.grad)
""",
    ),
    (
        "in-place op returns self and chains",
        """
x = T([1.0, 2.0]); y = x * 1
print(y.add_(1).mul_(2) is y, y._version, type(y.grad_fn).__name__)
y.sum().backward(); print(x.grad)
""",
    ),
    (
        "in-place on a leaf requiring grad",
        """
x = T([1.0, 2.0])
for name, f in [('add_', lambda: x.add_(1)), ('+=', None), ('setitem', lambda: x.__setitem__(0, 5.0)),
                ('exp_', lambda: x.exp_()), ('view mul_', lambda: x[0].mul_(2)),
                ('slice zero_', lambda: x[1:].zero_()), ('zero_', lambda: x.zero_())]:
    try:
        if f is None:
            x += 1
        else:
            f()
        print(name, 'ok')
    except RuntimeError as e:
        print(name, e)
print(x, x._version)
""",
    ),
    (
        "in-place on a leaf under no_grad",
        """
x = T([1.0, 2.0])
with torch.no_grad():
    x.add_(1)
    x[0] = 5.0
    x.mul_(2)
print(x, x.is_leaf, x.grad_fn, x._version)
(x * x).sum().backward()
print(x.grad)
""",
    ),
    (
        "modified saved tensors raise",
        """
def attempt(label, code):
    try:
        exec(code, globals())
        print(label, 'ok', x.grad)
    except RuntimeError as e:
        print(label, e)
attempt('exp output', 'x = T([1.0, 2.0]); y = x.exp(); y.add_(1); y.sum().backward()')
attempt('sin input leaf', 'x = T([1.0, 2.0]); y = x.sin()\\nwith torch.no_grad(): x.mul_(2)\\ny.sum().backward()')
attempt('mul input', 'x = T([1.0, 2.0]); a = x * 1; y = a * a; a.add_(1); y.sum().backward()')
attempt('mul constant', 'x = T([1.0, 2.0]); c = C([3.0, 4.0]); y = x * c; c.add_(1); y.sum().backward()')
attempt('scalar mul', 'x = T([1.0, 2.0]); y = x * 2; y.add_(1); y.sum().backward()')
attempt('sigmoid output', 'x = T([1.0, 2.0]); y = torch.sigmoid(x); y.mul_(2); y.sum().backward()')
attempt('tanh then exp_', 'x = T([1.0, 2.0]); y = x.tanh(); y.exp_(); y.sum().backward()')
attempt('exp via view', 'x = T([1.0, 2.0]); y = x.exp(); y[0:1].mul_(2); y.sum().backward()')
attempt('input via view', 'x = T([1.0, 2.0]); a = x * 1; y = a.sin(); a[0:1].mul_(2); y.sum().backward()')
attempt('input exp_', 'x = T([1.0, 2.0]); a = x * 1; y = a * a; a.exp_(); y.sum().backward()')
attempt('pow input', 'x = T([1.0, 2.0]); a = x + 0; y = a ** 2; a.sub_(1); y.sum().backward()')
attempt('2-D', 'x = T([[1.0, 2.0], [3.0, 4.0]]); y = x.exp(); y.add_(1); y.sum().backward()')
attempt('0-dim twice', 'x = T(1.0); y = x.exp(); y.add_(1); y.add_(1); y.backward()')
attempt('float32', 'x = T([1.0, 2.0], dtype=torch.float32); y = x.exp(); y.add_(1); y.sum().backward()')
attempt('not saved', 'x = T([1.0, 2.0]); a = x * 2; y = a + 1; a.add_(1); y.sum().backward()')
attempt('detach of saved output', 'x = T([1.0, 2.0]); y = x.exp(); y.detach().mul_(2); y.sum().backward()')
attempt('in-place saved output then retain', 'x = T([1.0, 2.0]); y = x * 2; y.exp_(); y.add_(1); y.sum().backward()')
""",
    ),
    # create_graph through ops whose backward masks the gradient: the gradient requires grad
    # exactly when PyTorch's does (relu's ThresholdBackwardBackward0 depends on the saved
    # result), and the second derivative matches at the kinks
    (
        "create_graph through relu and its relatives",
        """
F = torch.nn.functional
x = T([0.5, -1.0, 0.0, 2.0]); w = C([1.0, -2.0, 0.5, 3.0])
ops = [('relu', torch.relu), ('leaky_relu', lambda v: F.leaky_relu(v, 0.1)),
       ('elu', lambda v: F.elu(v, 1.3)), ('softplus', lambda v: F.softplus(v, 2.0, 1.0)),
       ('clamp', lambda v: v.clamp(-0.7, 0.7)), ('clamp_min', lambda v: v.clamp_min(0.0)),
       ('maximum', lambda v: torch.maximum(v, C([0.0, 0.0, 0.3, 0.0]))),
       ('where', lambda v: torch.where(v > 0, v * v, -v))]
for name, f in ops:
    for upstream in ('constant', 'depends on x'):
        u = C([1.0, 2.0, 3.0, 4.0]) if upstream == 'constant' else x * x
        g, = torch.autograd.grad((f(x) * u).sum(), x, create_graph=True)
        print(name, upstream, num(g), g.requires_grad)
        if g.requires_grad:
            h, = torch.autograd.grad((g * w).sum(), x, allow_unused=True)
            print('  second', None if h is None else num(h))
x = T([0.5, -1.0])
g, = torch.autograd.grad(x.relu().sum(), x, create_graph=True)
print(g.requires_grad, type(g.grad_fn).__name__)
g.sum().backward()
print(x.grad)
""",
    ),
    (
        "create_graph through setitem",
        """
def second(label, make, inputs):
    g = torch.autograd.grad((make() ** 2).sum(), inputs, create_graph=True, allow_unused=True)
    g = [e for e in g if e is not None]
    print(label, *[num(e) for e in g], [e.requires_grad for e in g])
    sum(e.sum() for e in g).backward()
    print('  ', *[None if e.grad is None else num(e.grad) for e in inputs])
x = T([1.0, 2.0, 3.0]); v = T(2.0)
def element():
    t = x.clone(); t[0] = t[2] * 3; return t
def whole():
    t = x.clone(); t[...] = x * v; return t
def fill():
    t = x.clone(); t[...] = v * x[1]; return t
def part_fill():
    t = x.clone(); t[0:2] = v * x[2]; return t
def index():
    t = x.clone(); t[[0, 2]] = x[1:] * v; return t
def broadcast():
    t = torch.stack([x, x]); t[:, 1:] = x[:2] * v; return t
for label, make in [('element', element), ('whole', whole), ('fill', fill),
                    ('part fill', part_fill), ('index', index), ('broadcast', broadcast)]:
    x.grad = None; v.grad = None
    second(label, make, [x, v])
x = T([1.0, 2.0, 3.0]); t = x.clone(); t[0] = 5.0
g, = torch.autograd.grad(t.sum(), x, create_graph=True)
print(num(g), g.requires_grad)
""",
    ),
    (
        "a saved tensor overwritten by setitem or fill_ names the node",
        """
def attempt(code):
    x = T([1.0, 2.0, 3.0]); v = T(2.0); t = x.clone(); y = t * t
    exec(code, {'x': x, 'v': v, 't': t, 'C': C})
    try:
        y.sum().backward()
        print(code, 'ok')
    except RuntimeError as e:
        print(code, e)
for code in ['t[...] = 5.0', 't[...] = x * 2', 't[[0]] = 5.0', 't[0] = 5.0', 't[None] = x * 2',
             't.zero_()', 't.fill_(2.0)', 't.fill_(v)', 't[1:].zero_()']:
    attempt(code)
a = T([1.0, 2.0]); b = T([2.0, 3.0])
for label, make in [('a ** b', lambda: a ** b), ('2 ** a', lambda: 2 ** a), ('a.exp()', lambda: a.exp())]:
    y = make(); y.add_(1)
    try:
        y.sum().backward()
    except RuntimeError as e:
        print(label, e)
""",
    ),
    (
        "fill_ with a number or a 0-d tensor",
        """
x = T([1.0, 2.0]); v = T(3.0)
t = x.clone(); t.fill_(2.0); print(graph(t))
t = x.clone(); t.fill_(v * 2); print(graph(t)); t.backward(C([1.0, 2.0])); print(x.grad, v.grad)
t = x.clone(); t.fill_(C(2)); print(graph(t), t)
try:
    x.clone().fill_(C([2.0]))
except RuntimeError as e:
    print(e)
""",
    ),
    (
        "backward twice through where, setitem and in-place views",
        """
def twice(label, code):
    try:
        exec(code, globals())
        print(label, 'ok', num(x.grad))
    except RuntimeError as e:
        print(label, e)
twice('where', 'x = T([1.0, -1.0]); y = torch.where(x > 0, x, C([5.0, 5.0])).sum(); y.backward(); y.backward()')
twice('where scalar', 'x = T([1.0, -1.0]); y = torch.where(x > 0, 2.0, x).sum(); y.backward(); y.backward()')
twice('where retain_graph', 'x = T([1.0, -1.0]); y = torch.where(x > 0, x, 0.0).sum(); y.backward(retain_graph=True); y.backward()')
twice('setitem element', 'x = T([1.0, 2.0, 3.0]); t = x.clone(); t[0] = 5.0; s = t.sum(); s.backward(); s.backward()')
twice('setitem slice', 'x = T([1.0, 2.0, 3.0]); t = x.clone(); t[1:] = x[:2]; s = t.sum(); s.backward(); s.backward()')
twice('setitem whole fill', 'x = T([1.0, 2.0, 3.0]); t = x.clone(); t[...] = 5.0; s = t.sum(); s.backward(); s.backward()')
twice('setitem whole copy', 'x = T([1.0, 2.0, 3.0]); t = x.clone(); t[:] = x.clone(); s = t.sum(); s.backward(); s.backward()')
twice('setitem index', 'x = T([1.0, 2.0, 3.0]); t = x.clone(); t[[0]] = 5.0; s = t.sum(); s.backward(); s.backward()')
twice('view zero_', 'x = T([1.0, 2.0, 3.0]); y = x.clone(); y[1:].zero_(); s = y.sum(); s.backward(); s.backward()')
twice('view add_ through a view', 'x = T([1.0, 2.0, 3.0]); y = x.clone(); y[1:].add_(2); s = y[0:2].sum(); s.backward(); s.backward()')
""",
    ),
    (
        "Tensor.data and requires_grad assignment checks",
        """
x = T([1.0, 2.0])
for v in [5, 5.0, None, [1.0, 2.0], True]:
    try:
        x.data = v
    except TypeError as e:
        print(e)
for v in ['yes', 1, 0, 1.0, None, C(True), True, False]:
    c = C([1.0, 2.0])
    try:
        c.requires_grad = v
        print(repr(v), c.requires_grad)
    except RuntimeError as e:
        print(repr(v) if not isinstance(v, TensorType) else 'tensor', e)
for t, v in [(x * 2, 'yes'), (x * 2, True), (C([1, 2]), 1), (C([1, 2]), True)]:
    try:
        t.requires_grad = v
    except RuntimeError as e:
        print(e)
x.data = C([3.0, 4.0, 5.0])
print(x, x.shape, x.requires_grad)
""",
    ),
    (
        "in operator",
        """
t = C([1.0, 2.0, 3.0])
for el in [2, 2.0, 5, True, False, C(2.0), C([[1.0, 2.0, 3.0]]), C([9.0, 9.0, 2.0]), float('nan')]:
    print(num(el), el in t)
for el in ['a', None, [2.0], (2,), C([2.0, 9.0]), C([])]:
    try:
        print(el in t)
    except RuntimeError as e:
        print(e)
print(1 in C([True, False]), 1.5 in C([1, 2]), 1.0 in C([1, 2]), 2 in C(2.0), 2.0 in T([1.0, 2.0]))
print(float('nan') in C([float('nan')]))
""",
    ),
    (
        "T and mT: deprecation warnings once each, mT on 1-D refused",
        """
a = T([1.0, 2.0]); b = T([[[1.0, 2.0], [3.0, 4.0]]]); z = T(1.5); m = T([[1.0, 2.0], [3.0, 4.0]])
print(graph(a.T), graph(b.T), b.T.shape)
a.T
print(graph(z.T), z.T.shape)
print(z.mT is z, z.mT.shape)
print(graph(m.mT), m.mT.shape, graph(b.mT), b.mT.shape, m.T.shape)
try:
    a.mT
except RuntimeError as e:
    print(e)
(m.mT * C([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(m.grad)
""",
    ),
    (
        "NotImplementedError for dtypes without a kernel",
        """
F = torch.nn.functional
b = C([True, False]); i = C([1, -2])
cases = [('abs', lambda: b.abs()), ('floor', lambda: torch.floor(b)), ('round', lambda: b.round()),
         ('round decimals', lambda: torch.round(i, decimals=1)), ('gelu', lambda: F.gelu(i)),
         ('silu', lambda: F.silu(b)), ('elu', lambda: F.elu(i)), ('softplus', lambda: F.softplus(i)),
         ('leaky_relu', lambda: F.leaky_relu(b)), ('softmax', lambda: torch.softmax(i, 0)),
         ('log_softmax', lambda: torch.log_softmax(C([[1, 2]]), 0)), ('var', lambda: i.var()),
         ('relu', lambda: torch.relu(b))]
for name, f in cases:
    try:
        f()
        print(name, 'ok')
    except NotImplementedError as e:
        print(name, 'NotImplementedError', e)
    except RuntimeError as e:
        print(name, type(e).__name__, e)
try:
    b.abs()
except RuntimeError as e:
    print('caught as RuntimeError:', type(e).__name__)
print(i.abs(), i.floor(), torch.round(i), torch.softmax(i, 0, dtype=torch.float64))
""",
    ),
]

# float64-world rewrites of reference errors whose point is a dtype difference
ADAPTED = [
    (
        "backward(gradient=...) with float32 gradient for float64 output",
        "x = T([1.0, 2.0]); y = x * 2; y.backward(torch.ones(2, dtype=torch.float32)); print(x.grad, x.grad.dtype)",
    ),
    (
        "backward(gradient=...) with float64 gradient for float32 output",
        "x = T([1.0, 2.0], dtype=torch.float32); y = x * 2; y.backward(torch.ones(2)); print(x.grad, x.grad.dtype)",
    ),
    ("matmul dtype mismatch float32 @ float64", "torch.ones(2, 2, dtype=torch.float32) @ torch.ones(2, 2)"),
    (
        "assign .grad with wrong dtype (float32 onto float64)",
        "x = T([1.0, 2.0]); x.grad = torch.ones(2, dtype=torch.float32)",
    ),
    (
        "assign .grad with wrong dtype (float64 onto float32)",
        "x = T([1.0, 2.0], dtype=torch.float32); x.grad = torch.ones(2)",
    ),
    (
        "assign .grad with wrong dtype and shape",
        "x = T([1.0, 2.0]); x.grad = torch.ones(3, dtype=torch.float32)",
    ),
    ("assign .grad of type int", "x = T([1.0, 2.0]); x.grad = 3"),
    (
        "version error formatting: float32",
        "x = T([1.0, 2.0], dtype=torch.float32); y = x.exp(); y.add_(1); y.sum().backward()",
    ),
]


# --- recording ----------------------------------------------------------------------------
def _run_in_child(code: str) -> dict:
    import numpy
    import torch

    torch.set_default_dtype(torch.float64)

    def T(v, dtype=None):
        return torch.tensor(v, requires_grad=True, dtype=dtype)

    def C(v, dtype=None):
        return torch.tensor(v, dtype=dtype)

    ns = {"torch": torch, "T": T, "C": C, "math": math, "numpy": numpy, "TensorType": torch.Tensor}
    exec(PRELUDE, ns)
    buf = io.StringIO()
    res = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(buf):
                exec(code, ns)
            res["raised"] = False
        except Exception as e:  # noqa: BLE001
            res["raised"] = True
            res["exception"] = {"type": type(e).__name__, "str": str(e)}
    res["stdout"] = ADDR_RE.sub("0x<ADDR>", buf.getvalue())
    res["warnings"] = [{"category": w.category.__name__, "message": str(w.message)} for w in caught]
    return res


def run_fresh(code: str) -> dict:
    """Run `code` in a forked child (fresh warn-once state); return its record."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            payload = json.dumps(_run_in_child(code))
        except BaseException:  # noqa: BLE001
            payload = json.dumps({"recorder_error": traceback.format_exc()})
        with os.fdopen(w, "w") as f:
            f.write(payload)
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        data = f.read()
    os.waitpid(pid, 0)
    out = json.loads(data)
    if "recorder_error" in out:
        raise RuntimeError(out["recorder_error"])
    return out


def main():
    import torch  # noqa: F401  (imported once before forking)

    ref = json.loads(REFERENCE.read_text())
    scenarios = []
    for name, code in SCENARIOS:
        scenarios.append({"id": "own:" + name, "code": textwrap.dedent(code).strip("\n")})
    for e in ref["semantics"]:
        scenarios.append({"id": "semantics:" + e["label"], "code": e["code"]})
    for e in ref["errors"]:
        item = {
            "id": "errors:" + e["label"],
            "code": e["code"],
            "reference": {k: e[k] for k in ("raised", "stdout", "warnings")},
        }
        if e["raised"]:
            item["reference"]["exception"] = {"type": e["exception"]["type"], "str": e["exception"]["str"]}
        scenarios.append(item)
    for label, code in ADAPTED:
        scenarios.append({"id": "adapted:" + label, "code": code})
    for s in scenarios:
        s["torch"] = run_fresh(s["code"])
        print(("RAISED " if s["torch"]["raised"] else "ok     ") + s["id"], file=sys.stderr)
    doc = {
        "generated_by": "tests/goldens/record_semantics.py",
        "torch_version": torch.__version__,
        "default_dtype": "torch.float64",
        "prelude": PRELUDE,
        "scenarios": scenarios,
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {len(scenarios)} scenarios to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
