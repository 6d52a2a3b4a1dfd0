"""Record what PyTorch prints for the tutorial-feature tests (issue 11, "Done when" 4: the
features that stopped real tutorial code in the sweep of public snippets) into
tutorials.json; tests/lang/test_tutorial_features.py runs the same scripts through diffcli.

Run by hand, with PyTorch installed, from the repository root:

    python tests/goldens/record_tutorials.py      # rewrites tests/goldens/tutorials.json

Each case is a PyTorch-flavour script written for these tests (not a copied snippet) that is
also a Python + torch program. It runs in this process with a fresh namespace after
`torch.manual_seed(0)` (a diffcli run starts from seed 0). Recorded: stdout with memory
addresses taken out (`<function f at 0x7f..>` -> `<function f>`, as diffcli prints them),
the warnings' messages, and the error (type, message) if the program failed.
"""

from __future__ import annotations

import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "tutorials.json"

CASES = {
    # `name: annotation = value` (and a bare `name: annotation`, which binds nothing)
    "annotated_assignment": """\
import torch
x: torch.Tensor = torch.tensor([1.0, 2.0], requires_grad=True)
scale: float = 3.0
steps: int
total: float = 0.0
for i in range(3):
    total += scale * i
y: torch.Tensor = (x * scale).sum()
y.backward()
print(x.grad, total)

class P:
    k: int = 4
    name: str
    def __init__(self):
        self.w: torch.Tensor = torch.ones(2)
    def f(self) -> int:
        n: int = self.k
        return n

p = P()
print(p.f(), P.k, p.w)
d = {}
d["a"]: int = 5
print(d)

def g(v: torch.Tensor) -> torch.Tensor:
    out: torch.Tensor
    out = v * 2
    return out

print(g(torch.tensor(1.5)))
try:
    print(steps)
except NameError as e:
    print("NameError", e)
""",
    # a module whose forward is a staticmethod (or a classmethod) is called without self
    "module_static_and_class_forward": """\
import torch
import torch.nn as nn

class Mul3(nn.Module):
    @staticmethod
    def forward(a, b, c):
        return a * b * c

class Scaled(nn.Module):
    factor = 2.0
    @classmethod
    def forward(cls, x):
        return x * cls.factor

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
d = Mul3()(a, b, torch.tensor(4.0))
d.backward()
print(d, a.grad, b.grad)
print(Scaled()(torch.tensor([1.0, 2.0])), Mul3(), Mul3.forward(1, 2, 3))
""",
    "functools_partial": """\
import torch
import functools
from functools import partial

def scaled(x, k, shift=0.0):
    return x * k + shift

x = torch.tensor([1.0, 2.0], requires_grad=True)
double = partial(scaled, k=2.0)
p = functools.partial(scaled, x, 3.0)
print(double(x), p(shift=1.0))
print(double.func is scaled, double.args, double.keywords, p.args[1], p.keywords)
double(x).sum().backward()
print(x.grad)
f2 = partial(double, shift=5.0)
print(f2(torch.tensor(1.0)), f2.keywords, f2.func is scaled)
print(partial(torch.mul, 2)(torch.tensor(4.0)))
print(list(map(partial(scaled, k=10), [1, 2])))
print(double, p)
print(type(double).__name__, callable(double))
for bad in [lambda: partial(), lambda: partial(3), lambda: double()]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
""",
    "default_device": """\
import torch
torch.set_default_device("cpu")
print(torch.ones(2), torch.get_default_device())
torch.set_default_device(torch.device("cpu"))
t = torch.zeros(1, requires_grad=True)
print(t.device, t.is_leaf)
torch.set_default_device(None)
print(torch.get_default_device())
""",
    "module_buffers": """\
import torch
import torch.nn as nn

class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor([2.0]))
        self.register_buffer("mean", torch.tensor([0.5, 1.5]))
        self.register_buffer("count", torch.tensor(0))
        self.register_buffer("tmp", torch.ones(1), persistent=False)
        self.register_buffer("empty", None)

    def forward(self, x):
        self.count += 1
        return self.scale * (x - self.mean)

m = Norm()
x = torch.tensor([1.0, 2.0], requires_grad=True)
out = m(x).sum()
out.backward()
print(out, m.scale.grad, x.grad, m.count, m.mean.requires_grad, m.empty)
print(list(m.buffers()))
for name, b in m.named_buffers():
    print(name, b)
print(m.state_dict())
print(m)
seq = nn.Sequential(Norm(), nn.Linear(2, 1))
print([n for n, _ in seq.named_buffers()], list(seq.state_dict().keys()))
print([n for n, _ in seq.named_buffers(prefix="net")], len(list(seq.buffers(recurse=False))))
m.mean = torch.zeros(2)
print(list(m.named_buffers()), [n for n, _ in m.named_parameters()])
m2 = Norm()
print(m2.load_state_dict(m.state_dict()), m2.mean, m2.count)
for bad in ["a.b", "", "scale"]:
    try:
        m.register_buffer(bad, torch.ones(1))
    except KeyError as e:
        print("KeyError", e)
try:
    m.register_buffer("w", 3)
except TypeError as e:
    print("TypeError", e)
try:
    m.mean = 5
except TypeError as e:
    print("TypeError", e)
print(m.mean)
""",
    "module_forward_hooks": """\
import torch
import torch.nn as nn

class Twice(nn.Module):
    def forward(self, a, b):
        return (a * b) * 2

m = Twice()
calls = []
def pre(mod, args):
    calls.append(("pre", len(args)))
    return (args[0] + 1, args[1])
def post(mod, args, out):
    calls.append(("post", out.shape))
    return out * 10
h1 = m.register_forward_pre_hook(pre)
h2 = m.register_forward_hook(post)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
y = m(a, b)
print(y, calls, h1)
y.sum().backward()
print(a.grad, b.grad)
h1.remove()
h2.remove()
h2.remove()
print(m(a, b))
seen = []
relu = nn.ReLU()
relu.register_forward_pre_hook(lambda mod, args: args[0] * 2)
relu.register_forward_hook(lambda mod, args, out: seen.append((mod, args, out)))
print(relu(torch.tensor([-1.0, 3.0])), seen)
net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
shapes = []
for name, mod in net.named_children():
    mod.register_forward_hook(lambda mod, args, out: shapes.append((type(mod).__name__, tuple(out.shape))))
net(torch.ones(3, 2))
print(shapes)
""",
    "module_backward_hook_legacy": """\
import torch
import torch.nn as nn

def legacy(mod, grad_input, grad_output):
    print("legacy", mod, grad_input, grad_output)

lin = nn.Linear(2, 1)
lin.weight.data = torch.tensor([[0.5, -1.0]])
lin.bias.data.fill_(0.25)
hb = lin.register_backward_hook(legacy)
out = lin(torch.tensor([[1.0, 2.0]], requires_grad=True))
print(out)
out.sum().backward()
hb.remove()
lin(torch.tensor([[1.0, 2.0]])).sum().backward()
print(lin.weight.grad, lin.bias.grad)

relu = nn.ReLU()
relu.register_backward_hook(lambda mod, gi, go: (gi[0] * 3,))
x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
relu(x).sum().backward()
print(x.grad)

class Prod(nn.Module):
    def forward(self, a, b, c):
        return (a * b) * c

p = Prod()
p.register_backward_hook(lambda mod, gi, go: print("prod", gi, go))
a = torch.tensor(2.0, requires_grad=True)
t = p(a, torch.tensor(3.0, requires_grad=True), torch.tensor(4.0, requires_grad=True))
t.backward()
print(a.grad)
""",
    # a Parameter as the right operand of an elementwise op (`x * self.w + self.b`)
    "parameter_right_operand": """\
import torch
import torch.nn as nn
w = nn.Parameter(torch.tensor([2.0, -1.0]))
b = nn.Parameter(torch.tensor(0.5))
x = torch.tensor([1.0, 3.0], requires_grad=True)
y = (x * w + b).sum()
y.backward()
print(w.grad, b.grad, x.grad)
""",
    "softmax_and_activation_modules": """\
import torch
import torch.nn as nn
x = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
sm = nn.Softmax(dim=1)
lsm = nn.LogSoftmax(dim=-1)
print(sm, lsm, nn.Softmax(), nn.Softmin(dim=0))
p = sm(x)
print(p)
print(lsm(x))
print(nn.Softmax()(x))
print(nn.Softmax()(torch.tensor([1.0, 2.0])), nn.Softmin(dim=1)(x))
(p[:, 0].sum() + lsm(x)[1, 2]).backward()
print(x.grad)
net = nn.Sequential(nn.Linear(3, 2), nn.LeakyReLU(0.2), nn.ELU(), nn.Softplus(), nn.GELU(), nn.Softmax(dim=1))
print(net)
print(net(torch.ones(1, 3)))
print(nn.LeakyReLU()(torch.tensor([-2.0, 2.0])), nn.ELU(alpha=0.5)(torch.tensor([-1.0])))
print(nn.Softplus(beta=2.0)(torch.tensor([0.5])), nn.GELU(approximate="tanh")(torch.tensor([1.0])))
""",
    "step_lr": """\
import torch
from torch.optim.lr_scheduler import StepLR
import torch.optim as optim
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = optim.SGD([w], lr=0.1)
sched = StepLR(opt, step_size=2, gamma=0.5)
print(sched.get_last_lr(), opt.param_groups[0]["lr"], sched.last_epoch)
for epoch in range(5):
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    opt.step()
    sched.step()
    print(epoch, loss.item(), sched.get_last_lr(), opt.param_groups[0]["lr"], w.tolist())
print(sched.get_lr())
s2 = optim.lr_scheduler.StepLR(optim.SGD([torch.ones(1, requires_grad=True)], lr=1.0), 1)
print(s2.get_last_lr(), s2.step_size, s2.gamma, s2.base_lrs)
print(sorted(opt.param_groups[0].keys()), opt.param_groups[0]["initial_lr"], sched.optimizer is opt)


class Halve(optim.lr_scheduler.LRScheduler):
    def get_lr(self):
        return [base * 0.5**self.last_epoch for base in self.base_lrs]


o3 = optim.SGD([torch.ones(1, requires_grad=True)], lr=0.8)
h = Halve(o3)
for _ in range(3):
    o3.step()
    h.step()
    print(h.last_epoch, h.get_last_lr(), o3.param_groups[0]["lr"])
""",
    # torch.randint: ATen's random_from_to on the same mt19937 stream as rand/randn
    "randint": """\
import torch
import torch.nn.functional as F
for args in [(5, (3,)), (0, 2, (2, 2)), (-3, 3, (4,)), (0, 2**33, (2,)), (3, (2,))]:
    print(torch.randint(*args))
print(torch.randint(0, 10, (3,), dtype=torch.float32), torch.randint(10, size=(2,)))
print(torch.randint(low=1, high=4, size=(2,)), torch.rand(2), torch.randint(1000, (2, 3)))
for bad in [lambda: torch.randint(5, 5, (2,)), lambda: torch.randint(5, (2,), requires_grad=True)]:
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)
x = torch.randint(0, 3, (2,), dtype=torch.float64, requires_grad=True)
print(x, torch.randint(3, (2,), dtype=torch.int32), torch.randint(2, (0,)), torch.randint(4, ()))
logits = torch.randn(4, 3, requires_grad=True)
target = torch.randint(3, (4,))
loss = F.cross_entropy(logits, target)
loss.backward()
print(target, loss, logits.grad)
print(torch.randint(0, 2**40, (3,)), torch.randint(7, (20,)))
""",
    # in-place index/mask methods on a non-leaf: the version counter, the node they record,
    # and on a view its base's CopySlices (the view: AsStridedBackward0)
    "inplace_index_methods": """\
import torch
a = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
y = a * 2
print(y._version)
y.scatter_(1, torch.tensor([[0], [2]]), 0.0)
print(y._version, y.grad_fn)
y.masked_fill_(y < 0, 1.0)
print(y._version, y.grad_fn)
y.index_fill_(0, torch.tensor([1]), 5.0)
print(y._version, y.grad_fn, y.grad_fn.next_functions)
y.sum().backward()
print(a.grad)
b = a.clone()
row = b[0]
row.masked_fill_(row > 0, 0.0)
print(b.grad_fn, row.grad_fn, b._version, row._version)
print(b)
z = torch.zeros(2, 3)
z[1].copy_(a[0])
print(z.grad_fn, z.requires_grad, z)
(b.sum() + (z * z).sum()).backward()
print(a.grad)
acc = torch.zeros(3)
acc.index_add_(0, torch.tensor([0, 0, 2]), a[1])
print(acc, acc.grad_fn, acc._version)
try:
    a.scatter_add_(0, torch.tensor([[0, 1, 1]]), a.detach())
except RuntimeError as e:
    print("RuntimeError", e)
""",
    # a node keeps its index: changing it in place, or a second backward, fails as in PyTorch
    "saved_index_and_second_backward": """\
import torch
a = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
i = torch.tensor([[0], [1]])
y = a.gather(1, i)
i.add_(1)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
s = a.sort(dim=1)
s.values.sum().backward(retain_graph=True)
print(a.grad, s.indices)
s.values.sum().backward()
try:
    s.values.sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
m = a.masked_select(a > 0)
print(m, m.grad_fn)
m.sum().backward()
print(a.grad)
""",
    # the methods real tutorials use: one-hot by scatter_, a causal mask from tril and
    # masked_fill, topk, LSTM-style gates by chunk, a target network by copy_, new_zeros
    "tutorial_methods": """\
import torch
import torch.nn.functional as F
torch.manual_seed(0)
labels = torch.tensor([2, 0, 1])
onehot = torch.zeros(3, 3).scatter_(1, labels.unsqueeze(1), 1.0)
print(onehot)
scores = torch.randn(3, 3, requires_grad=True)
mask = torch.tril(torch.ones(3, 3)) == 0
att = scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
print(att)
att[:, 0].sum().backward()
print(scores.grad)
q = torch.randn(4, 5, requires_grad=True)
actions = torch.tensor([1, 0, 4, 2])
chosen = q.gather(1, actions.unsqueeze(-1)).squeeze(-1)
print(chosen, chosen.grad_fn)
best, where = q.topk(2, dim=1)
print(best, where)
loss = F.mse_loss(chosen, best[:, 0].detach())
loss.backward()
print(q.grad)
h = torch.randn(2, 8, requires_grad=True)
i_gate, f_gate, g_gate, o_gate = h.chunk(4, dim=1)
c = torch.sigmoid(f_gate) * torch.tanh(g_gate) + torch.sigmoid(i_gate)
out = torch.sigmoid(o_gate) * torch.tanh(c)
out.sum().backward()
print(out, h.grad)
online = torch.randn(3, requires_grad=True)
target = torch.zeros(3)
with torch.no_grad():
    target.copy_(online)
    online.index_fill_(0, torch.tensor([0]), 0.0)
print(target, online, target.requires_grad)
pad = online.new_zeros(2)
print(pad, pad.dtype, online.new_full((2,), 7.0), online.new_tensor([1, 2]))
vals, order = torch.sort(torch.tensor([3.0, 1.0, 2.0]), descending=True)
print(vals, order, torch.argsort(vals))
parts = torch.arange(6.0).split([2, 4])
print(parts, torch.arange(6.0).narrow(0, 1, 3), torch.arange(4.0).unbind())
print(torch.sort(q, dim=1))
""",
    # the layout queries tutorials print (strides of a transpose, a row's storage offset)
    "layout_queries": """\
import torch
a = torch.tensor([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])
t = a.t()
print(a.stride(), t.stride(), a.stride(1), t.stride(-1), a.is_contiguous(), t.is_contiguous())
print(t.contiguous().is_contiguous(), t.contiguous().stride(), a[1].storage_offset(), a[:, 1:].storage_offset())
print(a.element_size(), a.float().element_size(), a.long().element_size(), (a > 0).element_size())
print(a[None].stride(), a.unsqueeze(-1).stride(), torch.tensor(2.0).stride(), a.view(3, 2).stride())
e = torch.empty_like(a)
print(e.shape, e.dtype, torch.logspace(0, 2, 3), torch.logspace(0, 1, 2, base=2))
""",
    # ops without a derivative: heaviside's NotImplemented node fails the backward; the
    # integer and bool results of argsort, nonzero, isnan... never require grad
    "no_derivative_ops": """\
import torch
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
h = torch.heaviside(x, torch.tensor([0.5]))
print(h, h.grad_fn)
try:
    h.sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
for r in (x.argsort(), (x > 0).nonzero(), x.isnan(), torch.isclose(x, x), x.count_nonzero(), x.sort().indices):
    print(r, r.requires_grad, r.dtype)
w = torch.tensor([[3.0, 1.0], [3.0, 1.0], [0.0, 2.0]], requires_grad=True)
for u in (w.unique(), torch.unique(w, dim=0), w.unique(return_inverse=True, return_counts=True)[0]):
    print(u, u.grad_fn)
    try:
        u.sum().backward()
    except NotImplementedError as e:
        print("NotImplementedError", e)
print(torch.bincount(torch.tensor([0, 2, 2])), torch.searchsorted(torch.tensor([1.0, 2.0]), 1.5))
""",
    # the views of split/chunk/unbind: no in-place change in grad mode, and an in-place
    # change of their base invalidates them (grad_fn <Invalid>, PyTorch's error when used)
    "multi_output_views": """\
import torch
def t(label, f):
    try:
        r = f(); print(label, "->", r)
    except RuntimeError as e:
        print(label, "!!", str(e)[:70])
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 1
v = b.split(1)[0]
with torch.no_grad():
    t("1 nograd inplace on view", lambda: v.mul_(2))
t("1b grad_fn after", lambda: v.grad_fn)
x = torch.ones(3); w = x.split(1)[0]
x.add_(1); t("2 no-grad base", lambda: w.grad_fn)
b = a * 1; v = b.unbind()[1]
with torch.no_grad():
    b.add_(1)
t("3 base modified under no_grad: grad_fn", lambda: v.grad_fn)
t("3b use in op", lambda: v * 2)
b = a * 1; v = b.unbind()[1]; b.add_(1)
t("4 use in op after grad-mode base inplace", lambda: (v * 2).grad_fn)
t("4b print", lambda: v)
t("4c requires_grad", lambda: v.requires_grad)
t("is_leaf", lambda: v.is_leaf)
t("backward", lambda: v.backward()); t("grad()", lambda: torch.autograd.grad(v, a))
t("v.sum()", lambda: v.sum())
b = a * 1; v = b.chunk(3)[2]; b.add_(1)
with torch.no_grad():
    t("5 use under no_grad", lambda: v * 2)
t("5b detach", lambda: v.detach())
b = a * 1; v = b.split(1)[0]; v2 = v.view(1)
t("6 inplace on view of view", lambda: v2.mul_(2))
b = a * 1; v = b.unbind()[0]; c = v.clone()
t("7 clone then base inplace", lambda: (b.add_(1), c.grad_fn.name())[1])
l = torch.ones(3, requires_grad=True); v = l.unbind()[0]
t("8 leaf view inplace", lambda: v.add_(1))
with torch.no_grad():
    l.add_(1)
t("8b leaf base inplace nograd: grad_fn", lambda: v.grad_fn)
b = a * 1; w = b.split([1, 2])[1]; b.mul_(2); t("sws", lambda: w.grad_fn)
b = a * 1; w = b.tensor_split(2)[1]; t("tensor_split inplace", lambda: w.mul_(2))
b = a * 1; w = b.unbind()[1]; u = w.unsqueeze(0); t("unsq of unbind inplace", lambda: u.mul_(2))
for r in b.unbind():
    print(r)
""",
}

from record_autograd_ext import run  # noqa: E402 (the same way of running a case)


def main():
    import torch

    cases = {name: run(script) for name, script in CASES.items()}
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
