"""Record what PyTorch prints for the nn / optim / numpy tests (tests/lang/test_nn_optim.py)
into nn_optim.json.

Run by hand, with PyTorch installed, from the repository root:

    python tests/goldens/record_nn_optim.py          # rewrites tests/goldens/nn_optim.json

Each case is a PyTorch-flavour script, run as its own program in this process with a
fresh namespace after `torch.manual_seed(0)` (a diffcli run starts from seed 0) and
`numpy.random.seed` left unseeded (the scripts seed it). Recorded: stdout, and the error
(type, message, line) if the program failed. Losses and parameters are printed with
`.item()` / `.tolist()`, whose Python float reprs identify each float32 value exactly, so
an equal text is an equal bit pattern.
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "nn_optim.json"

_LOOP = """\
import torch
import torch.nn as nn
torch.manual_seed({seed})
x = torch.randn({n}, {i})
y = x @ torch.arange(1.0, {i} + 1.0).reshape({i}, 1).repeat(1, {o}) + 0.5 + 0.1 * torch.randn({n}, {o})
model = nn.Linear({i}, {o})
loss_fn = nn.MSELoss()
optimizer = {opt}
for step in range({steps}):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
print(model.weight.tolist(), model.bias.tolist())
"""


# the same data as loop_sgd_momentum's model, trained with Adam
_LOOP2 = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.randn(5, 1)
y = 3 * x + 2 + 0.1 * torch.randn(5, 1)
model = nn.Linear(1, 1)
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
for step in range(100):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
print(model.weight.tolist(), model.bias.tolist())
"""


def loop(seed, n, i, o, opt, steps=100):
    return _LOOP.format(seed=seed, n=n, i=i, o=o, opt=opt, steps=steps)


CASES = [
    (
        "print_modules",
        """\
import torch
import torch.nn as nn
m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1, bias=False), nn.Sigmoid()),
                  nn.Flatten(), nn.Identity(), nn.Tanh(), nn.ReLU(inplace=True), nn.Flatten(0, 2))
print(m)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.head = nn.Linear(8, 2)
        self.scale = nn.Parameter(torch.ones(2))
    def forward(self, x):
        return self.head(self.body(x)) * self.scale
class Tagged(nn.Linear):
    def extra_repr(self):
        return "tagged"
net = Net()
print(net)
print(Tagged(2, 2))
print(nn.MSELoss(), nn.L1Loss(), nn.CrossEntropyLoss(), nn.BCELoss(), nn.BCEWithLogitsLoss(), nn.NLLLoss())
print(nn.Module())
print(type(net.head), type(net.scale), type(net), type(m))
print(net.scale)
print(len(m), m[0], m[-1])
print(m[1:3])
""",
    ),
    (
        "init_after_seed",
        """\
import torch
import torch.nn as nn
torch.manual_seed(0)
a = nn.Linear(3, 4)
print(a.weight.tolist(), a.bias.tolist())
b = nn.Linear(10, 7)
print(b.weight.sum().item(), b.bias.tolist())
print(nn.Linear(1, 1).weight.item(), nn.Linear(100, 30).weight[3].tolist()[:5])
w = torch.zeros(4, 5)
nn.init.xavier_uniform_(w)
print(w.tolist())
nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')
print(w.tolist())
v = torch.zeros(3)
nn.init.normal_(v, 0.5, 2.0)
print(v.tolist())
nn.init.uniform_(v, -1, 1)
print(v.tolist())
nn.init.constant_(v, 0.25)
print(v)
nn.init.ones_(w)
print(w.sum())
nn.init.zeros_(w)
print(w.sum())
big = torch.zeros(5, 7)
nn.init.xavier_normal_(big, gain=nn.init.calculate_gain('tanh'))
print(big.tolist()[0])
print(nn.init.calculate_gain('relu'), nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('tanh'))
d = nn.Linear(2, 2, dtype=torch.float64)
print(d.weight.dtype, d.weight.tolist())
""",
    ),
    (
        "losses",
        """\
import torch
import torch.nn as nn
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
t = torch.randn(4, 3)
for fn in (nn.MSELoss(), nn.L1Loss(), nn.MSELoss(reduction='sum'), nn.L1Loss(reduction='none')):
    loss = fn(x, t)
    print(loss)
    loss.sum().backward()
    print(x.grad.tolist())
    x.grad = None
labels = torch.tensor([0, 2, 1, 2])
ce = nn.CrossEntropyLoss()(x, labels)
print(ce)
ce.backward()
print(x.grad)
nll = nn.NLLLoss()(torch.log_softmax(x, dim=1), labels)
print(nll)
p = torch.sigmoid(torch.randn(5, requires_grad=True))
y = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
print(nn.BCELoss()(p, y))
z = torch.randn(5, requires_grad=True)
l = nn.BCEWithLogitsLoss()(z, y)
print(l, l.item())
l.backward()
print(z.grad.tolist())
print(nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]))(z, y).item())
print(nn.CrossEntropyLoss(label_smoothing=0.1)(x, labels))
""",
    ),
    (
        "module_api",
        """\
import torch
import torch.nn as nn
torch.manual_seed(1)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 1)
        self.note = "plain attribute"
    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))
net = Net()
print([n for n, p in net.named_parameters()])
print(sum(p.numel() for p in net.parameters()))
print([type(c).__name__ for c in net.children()])
print([n for n, m in net.named_modules()])
print(net.training, net.fc1.training)
net.eval()
print(net.training, net.fc1.training)
net.train()
print(net.training, net.note)
sd = net.state_dict()
print(list(sd.keys()))
print(sd['fc2.bias'])
out = net(torch.ones(2, 3))
print(out)
out.sum().backward()
print(net.fc2.weight.grad)
net.zero_grad(set_to_none=False)
print(net.fc2.weight.grad)
net.zero_grad()
print(net.fc2.weight.grad)
other = Net()
print(other.load_state_dict(sd))
print(other.fc1.weight.tolist() == net.fc1.weight.tolist())
net.requires_grad_(False)
print([p.requires_grad for p in net.parameters()])
def show(m):
    print(type(m).__name__)
net.apply(show)
print(nn.Parameter(torch.tensor([1.0, 2.0])))
print(nn.Parameter(torch.ones(2), requires_grad=False))
y = nn.Linear(3, 2)(torch.ones(3))
print(y.grad_fn.name(), y.shape)
z = nn.Linear(3, 2)(torch.ones(2, 5, 3))
print(z.grad_fn.name(), z.shape)
print(nn.Linear(3, 2, bias=False)(torch.ones(4, 3)).grad_fn.name())
""",
    ),
    (
        "sgd_variants",
        """\
import torch
torch.manual_seed(0)
target = torch.randn(3, 2)
for kw in ({}, {'momentum': 0.9}, {'momentum': 0.9, 'dampening': 0.5}, {'momentum': 0.9, 'nesterov': True},
           {'weight_decay': 0.1}, {'momentum': 0.8, 'weight_decay': 0.01, 'nesterov': True}, {'maximize': True}):
    w = torch.ones(3, 2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1, **kw)
    for _ in range(7):
        opt.zero_grad()
        loss = ((w - target) ** 2).sum()
        loss.backward()
        opt.step()
    print(kw, w.tolist())
""",
    ),
    (
        "adam_variants",
        """\
import torch
torch.manual_seed(0)
target = torch.randn(3, 2)
for cls, kw in ((torch.optim.Adam, {}), (torch.optim.Adam, {'amsgrad': True}), (torch.optim.Adam, {'weight_decay': 0.1}),
                (torch.optim.Adam, {'betas': (0.5, 0.9), 'eps': 1e-6}), (torch.optim.AdamW, {}),
                (torch.optim.AdamW, {'weight_decay': 0.5, 'amsgrad': True}), (torch.optim.Adam, {'maximize': True})):
    w = torch.ones(3, 2, requires_grad=True)
    b = torch.zeros(2, requires_grad=True)
    opt = cls([w, b], lr=0.05, **kw)
    for _ in range(9):
        opt.zero_grad()
        loss = ((w + b - target) ** 2).mean()
        loss.backward()
        opt.step()
    print(cls.__name__, kw, w, b)
""",
    ),
    (
        "rmsprop_variants",
        """\
import torch
torch.manual_seed(0)
target = torch.randn(3, 2)
for kw in ({}, {'momentum': 0.9}, {'centered': True}, {'weight_decay': 0.1, 'alpha': 0.9}):
    w = torch.ones(3, 2, requires_grad=True)
    opt = torch.optim.RMSprop([w], lr=0.01, **kw)
    for _ in range(6):
        opt.zero_grad()
        loss = ((w - target) ** 2).sum()
        loss.backward()
        opt.step()
    print(kw, w)
print(torch.optim.RMSprop([w]))
print(torch.addmm(torch.ones(2), torch.ones(3, 4), torch.ones(4, 2)))
""",
    ),
    (
        "optimizer_api",
        """\
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
print(opt)
print(torch.optim.AdamW(model.parameters(), lr=0.01))
print(len(opt.param_groups), opt.param_groups[0]['lr'], len(opt.param_groups[0]['params']))
x = torch.randn(8, 2)
y = torch.randn(8, 1)
for epoch in range(6):
    if epoch == 3:
        for g in opt.param_groups:
            g['lr'] = 0.01
    def closure():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        return loss
    loss = opt.step(closure)
    print(epoch, loss.item())
opt.zero_grad(set_to_none=False)
print(model.weight.grad)
opt.zero_grad()
print(model.weight.grad)
two = torch.optim.SGD([{'params': [model.weight]}, {'params': [model.bias], 'lr': 0.5}], lr=0.1)
print(two)
""",
    ),
    (
        "loop_sgd_momentum",
        _LOOP2.replace(
            "torch.optim.Adam(model.parameters(), lr=0.1)",
            "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)",
        ),
    ),
    ("loop_adam", _LOOP2),
    (
        "loop_sgd_batch16",
        loop(3, 16, 3, 2, "torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, nesterov=True)"),
    ),
    ("loop_adamw_batch32", loop(4, 32, 2, 1, "torch.optim.AdamW(model.parameters(), lr=0.05)")),
    (
        "numpy_subset",
        """\
import numpy as np
import torch
np.random.seed(0)
a = np.array([[1.0, 2.0], [3.0, 4.0]])
print(a, a.dtype, a.shape, a.T)
print(repr(a * 2 + 1), a.sum(), a.mean(axis=0))
b = np.zeros((2, 3), dtype=np.float32)
print(repr(b), np.ones(3), np.arange(5), np.linspace(0, 1, 5))
print(np.random.rand(3))
print(np.random.randn(2, 2))
print(np.random.randint(0, 10, size=5))
t = torch.from_numpy(a)
print(t)
t[0, 0] = 100.0
print(a[0, 0])
u = torch.ones(3)
n = u.numpy()
n[1] = 5.0
print(u, n)
print(torch.tensor(np.array([1.5, 2.5])), torch.tensor(np.arange(3)))
print(np.dot(a, a), np.sqrt(a), np.exp(np.array([0.0, 1.0])), np.maximum(a, 2.5))
print(a.reshape(4), a.astype(np.int64), np.float32(1.5), np.pi)
x = torch.from_numpy(np.linspace(-1, 1, 5).astype(np.float32))
print(x, x.dtype)
print(u.detach().numpy(), torch.tensor([1.0, 2.0], requires_grad=True).detach().numpy())
""",
    ),
    (
        "numpy_of_requires_grad",
        """\
import torch
w = torch.ones(2, requires_grad=True)
print(w.numpy())
""",
    ),
    (
        "forward_missing",
        """\
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
net = Net()
net(1)
""",
    ),
    (
        "parameter_before_init",
        """\
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        self.w = nn.Parameter(torch.ones(1))
        super().__init__()
Net()
""",
    ),
    (
        "empty_parameter_list",
        """\
import torch
torch.optim.SGD([], lr=0.1)
""",
    ),
    (
        "invalid_lr",
        """\
import torch
torch.optim.Adam([torch.ones(1, requires_grad=True)], lr=-1.0)
""",
    ),
    (
        "invalid_nesterov",
        """\
import torch
torch.optim.SGD([torch.ones(1, requires_grad=True)], lr=0.1, nesterov=True)
""",
    ),
]


def run(script: str) -> dict:
    import torch

    torch.manual_seed(0)
    buf = io.StringIO()
    error = None
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(script, "<script>", "exec"), {"__name__": "__main__"})
        except Exception as e:  # noqa: BLE001 - the error is what is recorded
            line, tb = 0, e.__traceback__
            while tb is not None:
                if tb.tb_frame.f_code.co_filename == "<script>":
                    line = tb.tb_lineno
                tb = tb.tb_next
            error = [type(e).__name__, str(e), line]
    return {"stdout": buf.getvalue(), "error": error}


def main() -> None:
    import torch

    cases = [{"name": name, "script": script, **run(script)} for name, script in CASES]
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
