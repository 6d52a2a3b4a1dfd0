"""Record what PyTorch prints for the autograd-extension tests (issue 12 items 1-3:
custom Functions, gradcheck, hooks, saved tensors, legacy spellings) into
autograd_ext.json; tests/lang/test_autograd_ext.py runs the same scripts through diffcli.

Run by hand, with PyTorch installed, from the repository root:

    python tests/goldens/record_autograd_ext.py      # rewrites tests/goldens/autograd_ext.json

Each case is a PyTorch-flavour script that is also a Python + torch program. It runs in
this process with a fresh namespace after `torch.manual_seed(0)` (a diffcli run starts
from seed 0). Recorded: stdout with memory addresses taken out (`<MulBackward0 object at
0x7f..>` -> `<MulBackward0 object>`, as diffcli prints them), the warnings' messages,
and the error (type, message) if the program failed.

The `saved_*` cases are generated: for each expression, the script prints every
`_saved_*` attribute torch's node has (its names from `dir()`), and whether a saved
tensor is the input itself.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re
import warnings

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "autograd_ext.json"

FUNCTIONS = {
    "exp_save_output": """\
import torch
class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = MyExp.apply(x)
print(y, y.grad_fn, type(y.grad_fn), y.grad_fn.next_functions, y.grad_fn.name())
print(MyExp, MyExp.apply)
y.sum().backward()
print(x.grad)
try:
    print(y.grad_fn.saved_tensors)
except RuntimeError as e:
    print(type(e).__name__, e)
""",
    "ctx_attributes_and_non_tensor_args": """\
import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.save_for_backward(x)
        print("needs", ctx.needs_input_grad)
        return x * k
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * ctx.k, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Scale.apply(x, 3)
print(y, y.grad_fn.k, len(y.grad_fn.next_functions))
y.backward(torch.tensor([1.0, 0.5]))
print(x.grad)
with torch.no_grad():
    z = Scale.apply(x, 2)
print(z, z.requires_grad)
print(Scale.apply(torch.tensor([1.0]), 2))
""",
    "errors_gradient_count_shape_inplace": """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
class TooFew(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y
    @staticmethod
    def backward(ctx, g):
        return g
try:
    TooFew.apply(x, x).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
class BadShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return torch.ones(3)
try:
    BadShape.apply(x).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
class Saves(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        ctx.save_for_backward(x, y)
        return y
    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * 2
z = x * 1
w = Saves.apply(z)
z.mul_(2)
try:
    w.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
w = Saves.apply(z)
w.mul_(2)
try:
    w.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
class Broadcast(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()
    @staticmethod
    def backward(ctx, g):
        return torch.ones(3, 2)
b = Broadcast.apply(x)
b.backward()
print(x.grad)
""",
    "double_backward_and_once_differentiable": """\
import torch
from torch.autograd.function import once_differentiable
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Cube.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
class Once(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2
y = Once.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(g, g.requires_grad)
try:
    g.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
y = Once.apply(x)
y.sum().backward()
print(x.grad)
""",
    "mark_dirty_non_differentiable_setup_context": """\
import torch
class AddOne(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.tensor([1.0, 2.0], requires_grad=True)
a = x * 1
b = AddOne.apply(a)
print(b is a, a, a._version)
b.sum().backward()
print(x.grad)
try:
    AddOne.apply(x)
except RuntimeError as e:
    print(type(e).__name__, e)
class Ident(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, g):
        return g * 2
a = x * 1
b = Ident.apply(a)
print(b is a, b.grad_fn)
class Round(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        r = x.round()
        ctx.mark_non_differentiable(r)
        return r
    @staticmethod
    def backward(ctx, g):
        return g
r = Round.apply(x * 1.3)
print(r, r.requires_grad, r.grad_fn)
class Mul(torch.autograd.Function):
    @staticmethod
    def forward(x, y):
        return x * y
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y = inputs
        ctx.save_for_backward(x, y)
        print("setup", len(inputs), output)
    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return g * y, g * x
c = torch.tensor([3.0, 4.0])
m = Mul.apply(x, c)
print(m, m.grad_fn.next_functions)
m.sum().backward()
print(x.grad)
class Mat(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        return g
print(Mat.apply(x))
""",
    "needs_input_grad_and_retain": """\
import torch
class MulC(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y
    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        print(ctx.needs_input_grad)
        gx = g * y if ctx.needs_input_grad[0] else None
        gy = g * x if ctx.needs_input_grad[1] else None
        return gx, gy
x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.tensor([3.0, 4.0])
z = MulC.apply(x, c)
z.sum().backward(retain_graph=True)
z.sum().backward()
print(x.grad)
try:
    z.sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
w = MulC.apply(c, x)
w.retain_grad()
(w * w).sum().backward()
print(w.grad, x.grad)
""",
}

FUNCTIONS["outputs_share_the_node"] = """\
import torch
class Two(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2 * 3
x = torch.tensor([1.0, -2.0], requires_grad=True)
u, v = Two.apply(x)
print(u.grad_fn is v.grad_fn, u.grad_fn == v.grad_fn, u.grad_fn.name(), v.grad_fn.next_functions)
nodes = {u.grad_fn, v.grad_fn}
print(len(nodes))
(u.sum() + v.sum()).backward()
print(x.grad)
"""

FUNCTIONS["apply_keywords"] = """\
import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale=2.0, shift=0.0):
        ctx.scale = scale
        return x * scale + shift
    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale, None, None
class Bound(torch.autograd.Function):
    @staticmethod
    def forward(x, scale=2.0):
        return x * scale
    @staticmethod
    def setup_context(ctx, inputs, output):
        print("inputs", len(inputs), inputs[1:])
        ctx.scale = inputs[1]
    @staticmethod
    def backward(ctx, g):
        return g * ctx.scale, None
x = torch.tensor([1.0, 3.0], requires_grad=True)
y = Scale.apply(x, scale=5.0)
y2 = Scale.apply(x, 4.0, shift=1.0)
z = Bound.apply(x, scale=3.0)
w = Bound.apply(x)
(y.sum() + y2.sum() + z.sum() + w.sum()).backward()
print(y, y2, z, w, x.grad)
try:
    Bound.apply(x, 1.0, scale=2.0)
except TypeError as e:
    print(type(e).__name__, e)
"""

FUNCTIONS["tuple_outputs"] = """\
import torch
class Sinh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        expx = torch.exp(x)
        expnegx = torch.exp(-x)
        ctx.save_for_backward(expx, expnegx)
        return (expx - expnegx) / 2, expx, expnegx
    @staticmethod
    def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
        print("bw", grad_out, _grad_out_exp, _grad_out_negexp)
        expx, expnegx = ctx.saved_tensors
        grad_input = grad_out * (expx + expnegx) / 2
        grad_input += _grad_out_exp * expx
        grad_input -= _grad_out_negexp * expnegx
        return grad_input
x = torch.tensor([0.5, 1.0], requires_grad=True, dtype=torch.double)
a, b, c = Sinh.apply(x)
print(a, b, c, a.grad_fn, b.grad_fn, a.grad_fn.next_functions, type(b.grad_fn))
g, = torch.autograd.grad(a.sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
x.grad = None
(a.sum() + 2 * c.sum()).backward()
print(x.grad)
class Sort(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        v, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return v, idx
    @staticmethod
    def backward(ctx, g, gi):
        print("sort bw", g, gi)
        idx, = ctx.saved_tensors
        out = torch.zeros_like(g)
        out[idx] = g
        return out
y = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
v, i = Sort.apply(y)
print(v, i, i.requires_grad, i.grad_fn)
(v * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(y.grad)
class Pair(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3
    @staticmethod
    def backward(ctx, g1, g2):
        print("pair bw", g1, g2)
        return g1 * 2 if g2 is None else g1 * 2 + g2 * 3
p, q = Pair.apply(y)
p.sum().backward()
print(y.grad)
"""


GRADCHECK = {
    "gradcheck_pass_fail": """\
import torch
from torch.autograd import gradcheck, gradgradcheck
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x
class Good(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x.cos()
x = torch.tensor([0.5, 1.5], dtype=torch.double, requires_grad=True)
print(gradcheck(Good.apply, (x,)))
print(gradcheck(Good.apply, x, eps=1e-6, atol=1e-4))
print(gradcheck(Bad.apply, (x,), raise_exception=False))
try:
    gradcheck(Bad.apply, (x,))
except RuntimeError as e:
    print(type(e).__name__, e)
print(gradgradcheck(Good.apply, (x,)))
print(gradgradcheck(Bad.apply, (x,)))
""",
    "gradcheck_lambdas_warnings_random": """\
import torch
xf = torch.tensor([0.5, 1.5], requires_grad=True)
print(torch.autograd.gradcheck(torch.sin, (xf,), eps=1e-3, atol=1e-2))
try:
    torch.autograd.gradcheck(torch.sin, (torch.tensor([1.0, 2.0], dtype=torch.double),))
except ValueError as e:
    print(type(e).__name__, e)
W = torch.randn(2, 3, dtype=torch.double, requires_grad=True)
v = torch.randn(3, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(lambda a, b: a @ b, (W, v)))
print(torch.autograd.gradgradcheck(lambda a, b: (a @ b).tanh(), (W, v)))
print(torch.randn(2))
def f(a, b):
    return (a * b).sum(), a.exp()
print(torch.autograd.gradcheck(f, (W, W.detach().clone().requires_grad_())))
print(torch.autograd.gradcheck(lambda a: a.abs() * 0 + a.sign() * a, (v,), raise_exception=False))
""",
}

HOOKS = {
    "tensor_hooks": """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x.register_hook(lambda g: print("leaf hook", g))
print(h, type(h))
y = x * 2
def yh(g):
    print("y hook", g)
    return g * 10
hy = y.register_hook(yh)
y.retain_grad()
y.sum().backward()
print(x.grad, y.grad)
h.remove()
hy.remove()
h.remove()
x.grad = None
y = x * 2
y.sum().backward()
print(x.grad)
try:
    torch.tensor([1.0]).register_hook(print)
except RuntimeError as e:
    print(type(e).__name__, e)
for bad in (lambda g: torch.ones(3), lambda g: 5, lambda g: g.double()):
    a = x * 3
    a.register_hook(bad)
    try:
        a.sum().backward()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
x.grad = None
x.register_post_accumulate_grad_hook(lambda p: print("post", p, p.grad))
(x * 2).sum().backward()
try:
    (x * 2).register_post_accumulate_grad_hook(print)
except RuntimeError as e:
    print(type(e).__name__, e)
w = torch.tensor(3.0, requires_grad=True)
w.register_hook(lambda g: g * 2)
dw, = torch.autograd.grad(w * w, w)
print(dw, w.grad)
""",
    "node_hooks_metadata": """\
import torch
w = torch.tensor(2.0, requires_grad=True)
q = w.exp() * 3
def post(gi, go):
    print("post hook", gi, go)
def pre(go):
    print("pre hook", go)
    return (go[0] * 2,)
h1 = q.grad_fn.register_hook(post)
h2 = q.grad_fn.register_prehook(pre)
print(h1, h2)
q.backward()
print(w.grad)
print(q.grad_fn.metadata, type(q.grad_fn.metadata))
q.grad_fn.metadata["k"] = 1
print(q.grad_fn.metadata)
print(isinstance(q.grad_fn, torch.autograd.graph.Node), torch.autograd.graph.Node)
print(q.grad_fn.next_functions[0][0].next_functions)
acc = q.grad_fn.next_functions[0][0].next_functions[0][0]
print(acc, acc.variable is w, acc.next_functions, acc.metadata)
w.grad = None
r = w * w
r.grad_fn.register_hook(lambda gi, go: (gi[0] * 0, gi[1]))
r.backward()
print(w.grad)
h1.remove()
h2.remove()
""",
    "multi_grad_hook": """\
import torch
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
hh = torch.autograd.graph.register_multi_grad_hook((a, b), lambda grads: print("multi", grads))
(a * b).backward()
(a * 3).backward()
hh.remove()
(a * b).backward()
hh = torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: print("any", g), mode="any")
(a * b).backward()
print(a.grad, b.grad)
""",
    "saved_tensors_hooks": """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
def pack(t):
    print("pack", t)
    return t * 1
def unpack(t):
    print("unpack", t)
    return t
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = x.pow(2)
    z = x * y
    e = z.exp()
print("fwd done")
e.sum().backward()
print(x.grad)
y = x.pow(2)
print(y.grad_fn._saved_self is x, y.grad_fn._raw_saved_self, y.grad_fn._saved_exponent)
e = x.exp()
print(e.grad_fn._saved_result is e, e.grad_fn._saved_result.equal(e), e.grad_fn._saved_result)
e.grad_fn._raw_saved_result.register_hooks(pack, unpack)
e.sum().backward()
try:
    print(e.grad_fn._saved_result)
except RuntimeError as er:
    print(type(er).__name__, er)
with torch.autograd.graph.save_on_cpu():
    p = x.sin()
print(p.grad_fn._saved_self)
with torch.autograd.graph.saved_tensors_hooks(lambda t: 5, lambda t: torch.zeros(2)):
    y = x.sin()
y.sum().backward()
print(x.grad)
x.grad = None
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
    y = x * 1
    y2 = y.sin()
y.mul_(2)
y2.sum().backward()
print(x.grad)
print(torch.autograd.graph.saved_tensors_hooks)
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
    y = x.sin()
try:
    y.sum().backward()
except TypeError as er:
    print(type(er).__name__, er)
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    s = Sq.apply(x)
s.sum().backward()
""",
}

LEGACY = {
    "variable_and_typed_tensors": """\
import torch
from torch.autograd import Variable
t = torch.tensor([1.0, 2.0])
v = Variable(t, requires_grad=True)
print(v, v is t, type(v), Variable)
w = Variable(torch.ones(2))
print(w, w.requires_grad)
(v * v).sum().backward()
print(v.grad, t.grad)
a = torch.FloatTensor([1, 2, 3])
print(a, a.dtype, a.type(), type(a))
print(torch.DoubleTensor([1, 2]), torch.LongTensor([1, 2]), torch.IntTensor([1, 2]), torch.BoolTensor([True, False]))
print(torch.FloatTensor(2, 3).shape, torch.FloatTensor(), torch.FloatTensor([[1, 2], [3, 4]]))
print(a.type(torch.DoubleTensor), a.type('torch.LongTensor'), a.type(torch.float64), a.type(torch.FloatTensor) is a)
print(isinstance(a, torch.FloatTensor), isinstance(a, torch.DoubleTensor), torch.FloatTensor)
print(a.double().type(), a.long().type(), a.int().type(), a.bool().type(), a.float().type())
try:
    torch.FloatTensor([1.0], requires_grad=True)
except TypeError as e:
    print(type(e).__name__, e)
v2 = Variable(torch.tensor([1.0]), volatile=True)
print(v2)
""",
    "attribute_assignment_and_modes": """\
import torch
x = torch.tensor([1.0, 2.0])
x.requires_grad = True
y = (x * x).sum()
y.backward()
print(x.grad, torch.is_grad_enabled())
x.grad = None
print(x.grad)
x.data = torch.tensor([3.0, 4.0])
(x * x).sum().backward()
print(x, x.grad)
with torch.no_grad():
    print(torch.is_grad_enabled())
x.grad.zero_()
print(x.grad)
""",
    "inference_mode": """\
import torch
x = torch.ones(2, requires_grad=True)
with torch.inference_mode():
    y = x * 2
    print(torch.is_grad_enabled(), torch.is_inference_mode_enabled())
print(y, y.requires_grad, y.is_inference(), x.is_inference(), torch.is_inference_mode_enabled())
try:
    (y * x).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    y.add_(1)
except RuntimeError as e:
    print(type(e).__name__, e)
@torch.inference_mode()
def f(z):
    return z * 3
print(f(x), f(x).requires_grad)
with torch.inference_mode(False):
    q = x * 2
print(q, torch.is_grad_enabled())
print(torch.inference_mode)
with torch.inference_mode():
    with torch.enable_grad():
        print(torch.is_grad_enabled())
""",
}

LEGACY["half"] = """\
import torch
x = torch.tensor([1.0, 2.5, 3.3333], requires_grad=True)
h = x.half()
print(h, h.dtype, h.type(), h.grad_fn)
y = h * 2 + 1.5
print(y, y * y, (h / 3).sum(), h.float(), h.double())
z = (h * h).sum()
z.backward()
print(x.grad, torch.tensor([0.1, 1e-3], dtype=torch.float16), torch.ones(2, dtype=torch.half))
print(h + torch.ones(3), torch.HalfTensor([1, 2]), (h * 1000).exp(), h.type(torch.FloatTensor))
print(torch.tensor([65504.0, 1e-8]).half(), (h > 2).sum(), h[1:].mean())
"""

# `_saved_*` attributes: (label, setup, expression)
_S = "s = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)"
SAVED_EXPRS = [
    ("add", "", "a + b"),
    ("sub", "", "a - b"),
    ("mul", "", "a * b"),
    ("mul_scalar", "", "a * 2"),
    ("mul_const", "c = torch.tensor([2.0, 3.0, 4.0])", "c * b"),
    ("div", "", "a / b"),
    ("div_scalar", "", "a / 2"),
    ("div_const", "c = torch.tensor([2.0, 3.0, 4.0])", "c / b"),
    ("pow_scalar", "", "a ** 2"),
    ("pow_tensor", "", "a ** b"),
    ("pow_base", "", "2 ** a"),
    ("exp", "", "a.exp()"),
    ("sin", "", "a.sin()"),
    ("cos", "", "a.cos()"),
    ("tanh", "", "a.tanh()"),
    ("sigmoid", "", "a.sigmoid()"),
    ("log", "", "a.log()"),
    ("sqrt", "", "a.sqrt()"),
    ("relu", "", "torch.relu(a)"),
    ("sum", "", "a.sum()"),
    ("sum_dim", "", "M.sum(0)"),
    ("mean", "", "a.mean()"),
    ("mm", "", "torch.mm(M, N)"),
    ("neg", "", "-a"),
    ("abs", "", "a.abs()"),
    ("pow_3", "", "torch.pow(a, 3)"),
    ("dot", "", "torch.dot(a, b)"),
    ("prod", "", "a.prod()"),
    ("max", "", "a.max()"),
    ("square", "", "a.square()"),
    # 0-d float64 tensors: diffcli's scalar lane, which keeps a Python number's value apart
    ("lane_mul_int", _S, "s * 2"),
    ("lane_mul_float", _S, "s * 2.5"),
    ("lane_rmul", _S, "3 * s"),
    ("lane_div_int", _S, "s / 4"),
    ("lane_add", _S, "s + 0.5"),
    ("lane_sub", _S, "s - 0.5"),
    ("lane_mul", _S + "; t = torch.tensor(-2.0, dtype=torch.float64, requires_grad=True)", "s * t"),
    ("lane_pow_int", _S, "s ** 2"),
    ("lane_pow_float", _S, "s ** 2.5"),
    ("lane_pow_base", _S, "2 ** s"),
    ("lane_sin", _S, "s.sin()"),
    ("lane_exp", _S, "s.exp()"),
]
SAVED_SETUP = """\
import torch
a = torch.tensor([1.5, 2.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, -1.0, 4.0], requires_grad=True)
M = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
N = torch.tensor([[0.5, 1.0], [2.0, -1.0]], requires_grad=True)
"""


def _saved_script(setup, expr):
    import torch

    ns = {"torch": torch}
    exec(SAVED_SETUP + setup, ns)
    node = eval(expr, ns).grad_fn
    names = sorted(n for n in dir(node) if n.startswith("_saved_"))
    lines = [SAVED_SETUP + (setup + "\n" if setup else "") + f"out = {expr}", "n = out.grad_fn", "print(n)"]
    for name in names:
        value = getattr(node, name)
        if isinstance(value, torch.Tensor):
            lines.append(f"v = n.{name}")
            lines.append(f"print('{name}', v, v is a, v is b, v is M, v is N, v.equal(out), v is out)")
        else:
            lines.append(f"print('{name}', n.{name})")
    lines.append("out.sum().backward()")
    lines.append(
        "try:\n    print(n." + (names[0] if names else "name()") + ")\nexcept RuntimeError as e:\n"
        "    print(type(e).__name__, e)"
    )
    return "\n".join(lines) + "\n"


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def run(script):
    import torch

    torch.manual_seed(0)
    prev = torch.get_default_dtype()
    out = io.StringIO()
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(script, "<script>", "exec"), {"__name__": "__main__"})
        except Exception as e:  # the script's own failure is part of the golden
            error = [type(e).__name__, str(e)]
        finally:
            torch.set_default_dtype(prev)
            torch.set_default_device(None)
    return {
        "script": script,
        "stdout": _ADDRESS.sub("", out.getvalue()),
        "error": error,
        "warnings": [str(w.message) for w in caught if w.category is not DeprecationWarning],
    }


def main():
    import torch

    cases = {}
    for group in (FUNCTIONS, GRADCHECK, HOOKS, LEGACY):
        for name, script in group.items():
            cases[name] = run(script)
    for label, setup, expr in SAVED_EXPRS:
        cases[f"saved_{label}"] = run(_saved_script(setup, expr))
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
