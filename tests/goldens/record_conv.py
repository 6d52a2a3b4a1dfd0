"""Record what PyTorch prints for the convolution / pooling / dropout / normalisation layers
and the module backward hooks (tests/lang/test_nn_conv.py) into conv.json.

Run by hand, with PyTorch 2.13 installed, from the repository root:

    PYTHONHASHSEED=0 python tests/goldens/record_conv.py   # rewrites tests/goldens/conv.json

(PYTHONHASHSEED=0: two of nn.Conv2d's messages print a Python set of strings.)

Each case is a PyTorch-flavour script run as its own program after `torch.manual_seed(0)`
(record_nn_optim's `run`): its stdout and its error (type, message, line). Values are
printed with `.tolist()` / `.item()`, whose Python float reprs identify each float32 value,
so equal text is an equal bit pattern. The `grid_*` cases print one convolution's output
and gradients for a grid of shapes, for the bit-exactness figures the test reports.
"""

from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from record_nn_optim import run  # noqa: E402

OUT = HERE / "conv.json"

_GRID = """\
import torch
import torch.nn.functional as F
torch.manual_seed({seed})
x = torch.randn({n}, {c}, {h}, {w}, requires_grad=True)
wt = torch.randn({o}, {cg}, {kh}, {kw}, requires_grad=True)
b = torch.randn({o}, requires_grad=True)
y = F.conv2d(x, wt, b, stride={s}, padding={p}, dilation={d}, groups={g})
print(y.shape)
print(y.tolist())
g = torch.randn(y.shape)
y.backward(g)
print(x.grad.tolist())
print(wt.grad.tolist())
print(b.grad.tolist())
"""

# (n, c, h, w, o, kh, kw, stride, padding, dilation, groups)
GRID = [
    (1, 1, 32, 32, 6, 5, 5, 1, 0, 1, 1),  # LeNet's first layer (oneDNN)
    (1, 1, 8, 8, 2, 3, 3, 1, 0, 1, 1),  # slow_conv2d
    (1, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1),
    (2, 1, 8, 8, 2, 3, 3, 1, 0, 1, 1),
    (4, 6, 14, 14, 16, 5, 5, 1, 0, 1, 1),  # LeNet's second layer, a batch of 4
    (1, 2, 6, 6, 3, 3, 3, 2, 1, 1, 1),
    (1, 2, 9, 9, 3, 3, 3, 1, 0, 2, 1),
    (2, 3, 10, 10, 5, 3, 3, 2, 1, 1, 1),
    (3, 2, 7, 7, 4, 2, 2, 1, 0, 1, 1),
    (1, 16, 10, 10, 8, 3, 3, 1, 1, 1, 1),
    (2, 16, 8, 8, 4, 3, 3, 1, 1, 1, 1),
    (1, 4, 6, 6, 2, 1, 1, 1, 0, 1, 1),
    (2, 4, 6, 6, 4, 3, 3, 1, 0, 1, 2),
    (2, 4, 6, 6, 8, 3, 3, 1, 0, 1, 4),
    (1, 6, 9, 9, 6, 3, 3, 1, 0, 1, 3),
    (1, 3, 7, 9, 2, 3, 2, (2, 1), (1, 0), (1, 2), 1),
    (2, 20, 8, 8, 4, 3, 3, 1, 1, 1, 1),  # more than 16 channels on oneDNN: blocked sums
    (2, 32, 6, 6, 8, 3, 3, 1, 0, 1, 1),
]


def grid_script(seed, case):
    n, c, h, w, o, kh, kw, s, p, d, g = case
    return _GRID.format(seed=seed, n=n, c=c, h=h, w=w, o=o, cg=c // g, kh=kh, kw=kw, s=s, p=p, d=d, g=g)


_LENET = """\
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)

torch.manual_seed(1)
net = Net()
print(net)
params = list(net.parameters())
print(len(params), params[0].size())
x = torch.randn(1, 1, 32, 32)
out = net(x)
print(out.grad_fn.name())
print(out.tolist())
target = torch.randn(10).view(1, -1)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
optimizer.zero_grad()
loss = criterion(out, target)
print(loss.item())
print(loss.grad_fn.name())
print(loss.grad_fn.next_functions[0][0].name())
print(loss.grad_fn.next_functions[0][0].next_functions[0][0].name())
loss.backward()
print(net.conv1.bias.grad.tolist())
print(net.conv2.weight.grad[0, 0].tolist())
optimizer.step()
print(net.conv1.weight[0, 0].tolist())
print(criterion(net(x), target).item())
"""

_LENET_BATCH = """\
import torch
import torch.nn as nn
torch.manual_seed(3)
model = nn.Sequential(
    nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(4, 8, 3), nn.ReLU(), nn.AvgPool2d(2),
    nn.Flatten(), nn.Dropout(0.25), nn.Linear(8, 3))
print(model)
x = torch.randn(4, 1, 8, 8)
y = torch.tensor([0, 2, 1, 2])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
for step in range(5):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    print(step, loss.item())
model.eval()
print(model(x).argmax(1).tolist())
print(model[0].weight[0, 0].tolist())
"""

CASES = [
    (
        "conv_modules_print",
        """\
import torch
import torch.nn as nn
print(nn.Conv2d(1, 6, 5))
print(nn.Conv2d(1, 6, (3, 5), stride=2, padding=1, dilation=2, bias=False))
print(nn.Conv1d(4, 8, 3, padding='same', groups=2, padding_mode='reflect'))
print(nn.Conv1d(2, 3, 4, stride=2))
m = nn.Conv2d(1, 2, 3)
print(m.kernel_size, m.stride, m.padding, m.dilation, m.groups, m.padding_mode, m.in_channels, m.out_channels)
print(m.weight.shape, m.bias.shape, [n for n, _ in m.named_parameters()])
print(nn.MaxPool2d(2), nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, return_indices=True, ceil_mode=True))
print(nn.AvgPool2d(2), nn.AvgPool2d(3, 2, 1, True, False, 2))
print(nn.Dropout(), nn.Dropout(0.2, inplace=True))
""",
    ),
    (
        "conv2d_init_and_values",
        """\
import torch
import torch.nn as nn
torch.manual_seed(0)
conv = nn.Conv2d(2, 3, 3, padding=1)
print(conv.weight.tolist())
print(conv.bias.tolist())
x = torch.randn(1, 2, 4, 4, requires_grad=True)
y = conv(x)
print(y)
y.sum().backward()
print(x.grad.tolist())
print(conv.weight.grad.tolist())
print(conv.bias.grad.tolist())
""",
    ),
    (
        "conv1d_values",
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
conv = nn.Conv1d(3, 4, 3, stride=2, padding=1)
x = torch.randn(2, 3, 7, requires_grad=True)
y = conv(x)
print(y.shape, y.grad_fn.name(), [type(f).__name__ for f, _ in y.grad_fn.next_functions])
print(y.tolist())
(y * y).sum().backward()
print(x.grad.tolist())
print(conv.weight.grad.tolist(), conv.bias.grad.tolist())
z = F.conv1d(torch.randn(3, 5), torch.randn(2, 3, 2), dilation=2)
print(z.shape, z.tolist())
""",
    ),
    (
        "conv_graph",
        """\
import torch
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(1, 1, 5, 5, requires_grad=True)
w = torch.randn(2, 1, 3, 3, requires_grad=True)
y = F.conv2d(x, w)
print(y.grad_fn.name(), [f if f is None else f.name() for f, _ in y.grad_fn.next_functions])
u = F.conv2d(x[0], w, padding='same')
print(u.shape, u.grad_fn.name(), u.grad_fn.next_functions[0][0].name())
v = torch.conv2d(x, w, None, 2, 1)
print(v.shape, v.tolist())
v.sum().backward()
print(x.grad.tolist())
print(w.grad.tolist())
""",
    ),
    (
        "conv_err_dims",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(8, 8), torch.randn(2, 1, 3, 3))\n",
    ),
    (
        "conv_err_channels",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(1, 3, 8, 8), torch.randn(2, 1, 3, 3))\n",
    ),
    (
        "conv_err_kernel",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(1, 1, 2, 2), torch.randn(2, 1, 3, 3))\n",
    ),
    (
        "conv_err_bias",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(1, 1, 8, 8), torch.randn(2, 1, 3, 3), torch.randn(3))\n",
    ),
    (
        "conv_err_stride",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(1, 1, 8, 8), torch.randn(2, 1, 3, 3), stride=0)\n",
    ),
    (
        "conv_err_groups",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(1, 1, 8, 8), torch.randn(2, 1, 3, 3), groups=2)\n",
    ),
    (
        "conv_err_padding",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(1, 1, 8, 8), torch.randn(2, 1, 3, 3), padding='foo')\n",
    ),
    (
        "conv_err_same_strided",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(1, 1, 8, 8), torch.randn(2, 1, 3, 3), padding='same', stride=2)\n",
    ),
    (
        "conv_err_dtype",
        "import torch.nn.functional as F\nimport torch\nF.conv2d(torch.randn(1, 1, 8, 8), torch.randn(2, 1, 3, 3).double())\n",
    ),
    (
        "conv1d_err_dims",
        "import torch.nn.functional as F\nimport torch\nF.conv1d(torch.randn(2, 3, 5, 5), torch.randn(4, 3, 2))\n",
    ),
    ("conv_module_err_groups", "import torch.nn as nn\nnn.Conv2d(3, 6, 5, groups=2)\n"),
    ("conv_module_err_out_groups", "import torch.nn as nn\nnn.Conv2d(4, 6, 5, groups=4)\n"),
    ("conv_module_err_groups0", "import torch.nn as nn\nnn.Conv2d(4, 6, 5, groups=0)\n"),
    ("conv_module_err_padding", "import torch.nn as nn\nnn.Conv2d(4, 6, 5, padding='bad')\n"),
    ("conv_module_err_mode", "import torch.nn as nn\nnn.Conv2d(4, 6, 5, padding_mode='bad')\n"),
    (
        "pool_values",
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(1, 2, 5, 5, requires_grad=True)
m, idx = F.max_pool2d(x, 2, return_indices=True)
print(m, idx)
c = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)
print(c.shape, c.tolist())
a = F.avg_pool2d(x, 2)
print(a)
b = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
print(b.tolist())
e = F.avg_pool2d(x, 2, ceil_mode=True, divisor_override=3)
print(e.tolist())
u = nn.MaxPool2d((2, 3), stride=1, dilation=(1, 2))(x[0])
print(u.shape, u.grad_fn.name())
(m.sum() + (c * c).sum() + (a * 2).sum() + b.sum() + e.sum() + u.sum()).backward()
print(x.grad.tolist())
""",
    ),
    (
        "pool_ties_and_ints",
        """\
import torch
import torch.nn.functional as F
x = torch.tensor([[[1.0, 1.0, 0.0], [1.0, 0.0, 2.0], [2.0, 2.0, 2.0]]], requires_grad=True)
y = F.max_pool2d(x, 2, stride=1)
print(y)
y.sum().backward()
print(x.grad)
print(F.max_pool2d(torch.arange(16).view(1, 4, 4), 2))
print(F.avg_pool2d(torch.arange(16.0).view(1, 1, 4, 4), 2, stride=1))
""",
    ),
    (
        "pool_err_pad",
        "import torch.nn.functional as F\nimport torch\nF.max_pool2d(torch.randn(1, 2, 5, 5), 3, padding=2)\n",
    ),
    (
        "pool_err_small",
        "import torch.nn.functional as F\nimport torch\nF.max_pool2d(torch.randn(1, 2, 5, 5), 6)\n",
    ),
    ("pool_err_dims", "import torch.nn.functional as F\nimport torch\nF.max_pool2d(torch.randn(5, 5), 2)\n"),
    (
        "pool_err_stride",
        "import torch.nn.functional as F\nimport torch\nF.avg_pool2d(torch.randn(1, 2, 5, 5), 2, stride=0)\n",
    ),
    (
        "pool_err_divisor",
        "import torch.nn.functional as F\nimport torch\nF.avg_pool2d(torch.randn(1, 2, 5, 5), 2, divisor_override=0)\n",
    ),
    (
        "dropout_values",
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.ones(20, requires_grad=True)
y = F.dropout(x, 0.5)
print(y, y.grad_fn.name())
y.sum().backward()
print(x.grad)
torch.manual_seed(3)
z = torch.randn(3, 4, 5)
print(F.dropout(z, 0.2).tolist())
d = nn.Dropout(0.3)
print(d(torch.ones(2, 8)))
d.eval()
print(d(torch.ones(2, 8)))
print(F.dropout(x, 0.0) is x, F.dropout(x, 0.5, training=False) is x)
print(F.dropout(x, 1.0))
print(torch.rand(3))
""",
    ),
    ("dropout_err_p", "import torch.nn.functional as F\nimport torch\nF.dropout(torch.ones(3), 1.5)\n"),
    ("dropout_module_err_p", "import torch.nn as nn\nnn.Dropout(-0.1)\n"),
    (
        "norm_modules_print",
        """\
import torch.nn as nn
print(nn.LayerNorm(10), nn.LayerNorm([3, 4], eps=1e-3, elementwise_affine=False), nn.LayerNorm(4, bias=False))
print(nn.BatchNorm1d(3), nn.BatchNorm2d(6, eps=1e-3, momentum=None, affine=False, track_running_stats=False))
b = nn.BatchNorm2d(2)
print(list(b.state_dict().keys()), b.num_batches_tracked, b.running_var)
print([n for n, _ in b.named_buffers()], [n for n, _ in b.named_parameters()])
""",
    ),
    (
        "layer_norm_values",
        """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
ln = nn.LayerNorm(4)
x = torch.randn(2, 3, 4, requires_grad=True)
y = ln(x)
print(y.grad_fn.name(), [f if f is None else f.name() for f, _ in y.grad_fn.next_functions])
print(y.tolist())
(y * torch.randn(2, 3, 4)).sum().backward()
print(x.grad.tolist())
print(ln.weight.grad.tolist(), ln.bias.grad.tolist())
z = F.layer_norm(x, (3, 4), eps=1e-3)
print(z.grad_fn.name(), [f if f is None else f.name() for f, _ in z.grad_fn.next_functions])
print(z.tolist())
""",
    ),
    (
        "batch_norm_values",
        """\
import torch
import torch.nn as nn
torch.manual_seed(0)
bn = nn.BatchNorm2d(3)
x = torch.randn(4, 3, 2, 2, requires_grad=True)
y = bn(x)
print(y.grad_fn.name(), [f if f is None else f.name() for f, _ in y.grad_fn.next_functions])
print(y.tolist())
(y * torch.randn(4, 3, 2, 2)).sum().backward()
print(x.grad.tolist())
print(bn.weight.grad.tolist(), bn.bias.grad.tolist())
print(bn.running_mean.tolist(), bn.running_var.tolist(), bn.num_batches_tracked)
bn(x * 2)
print(bn.running_mean.tolist(), bn.running_var.tolist(), bn.num_batches_tracked)
bn.eval()
e = bn(x)
print(e.grad_fn.name(), e.tolist())
x.grad = None
e.sum().backward()
print(x.grad.tolist())
b1 = nn.BatchNorm1d(3, momentum=None, affine=False)
v = torch.randn(5, 3, requires_grad=True)
o = b1(v)
print(o.grad_fn.name(), [f if f is None else f.name() for f, _ in o.grad_fn.next_functions])
b1(v + 1)
print(b1.running_mean.tolist(), b1.running_var.tolist(), b1.num_batches_tracked)
(o * torch.randn(5, 3)).sum().backward()
print(v.grad.tolist())
print(nn.BatchNorm1d(2)(torch.randn(3, 2, 4)).shape)
""",
    ),
    ("bn_err_one_value", "import torch\nimport torch.nn as nn\nnn.BatchNorm1d(3)(torch.randn(1, 3))\n"),
    ("bn_err_channels", "import torch\nimport torch.nn as nn\nnn.BatchNorm1d(3)(torch.randn(2, 4))\n"),
    ("bn_err_dims", "import torch\nimport torch.nn as nn\nnn.BatchNorm1d(3)(torch.randn(2, 3, 4, 5))\n"),
    ("bn2d_err_dims", "import torch\nimport torch.nn as nn\nnn.BatchNorm2d(3)(torch.randn(2, 3, 4))\n"),
    ("ln_err_shape", "import torch\nimport torch.nn as nn\nnn.LayerNorm(4)(torch.randn(2, 3))\n"),
    (
        "module_full_backward_hooks",
        """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(3, 2)
def hook(module, grad_input, grad_output):
    print("hook", type(module).__name__, grad_input, grad_output)
def pre(module, grad_output):
    print("pre", grad_output)
    return (grad_output[0] * 2,)
h1 = lin.register_full_backward_hook(hook)
h2 = lin.register_full_backward_pre_hook(pre)
x = torch.randn(4, 3, requires_grad=True)
y = lin(x)
print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
y.sum().backward()
print(x.grad)
h2.remove()
x.grad = None
lin(x).sum().backward()
print(x.grad)
y = lin(torch.randn(2, 3))
y.sum().backward()
def double(module, grad_input, grad_output):
    return (grad_input[0] * 10,)
h1.remove()
lin.register_full_backward_hook(double)
x.grad = None
lin(x).sum().backward()
print(x.grad)
conv = nn.Conv2d(1, 1, 2)
conv.register_full_backward_hook(lambda m, gi, go: print("conv", [g.shape for g in gi], [g.shape for g in go]))
conv(torch.randn(1, 1, 3, 3, requires_grad=True)).sum().backward()
""",
    ),
    (
        "module_hooks_err_mixed",
        """\
import torch
import torch.nn as nn
lin = nn.Linear(3, 2)
lin.register_backward_hook(lambda m, gi, go: None)
lin.register_full_backward_hook(lambda m, gi, go: None)
lin(torch.randn(1, 3, requires_grad=True))
""",
    ),
    ("lenet", _LENET),
    ("lenet_batch_training", _LENET_BATCH),
    *[(f"grid_{i}", grid_script(i, case)) for i, case in enumerate(GRID)],
]


def main() -> None:
    import torch

    cases = [{"name": name, "script": script, **run(script)} for name, script in CASES]
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)", file=sys.stderr)


if __name__ == "__main__":
    main()
