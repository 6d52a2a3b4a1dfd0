"""Record what PyTorch prints for the sweep-feature tests (the constructs and library pieces
that stopped real tutorial code in the second sweep of public autograd snippets) into
sweep.json; tests/lang/test_sweep_features.py runs the same scripts through diffcli.

Run by hand, with PyTorch installed, from the repository root:

    python3 tests/goldens/record_sweep.py      # rewrites tests/goldens/sweep.json

Each case is a PyTorch-flavour script written for these tests (not a copied snippet), run
as record_tutorials.py runs its cases (record_autograd_ext.run: a fresh namespace after
`torch.manual_seed(0)`; stdout without addresses, the warnings, the error if any).
"""

from __future__ import annotations

import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "sweep.json"

CASES = {
    # nn.ModuleList / ModuleDict / ParameterList / ParameterDict: building, indexing, len,
    # iteration, `in`, the parameters' names, printing (runs of equal children folded)
    "nn_containers": """\
import torch
import torch.nn as nn

class Stack(nn.Module):
    def __init__(self, widths):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(widths[:-1], widths[1:])])
        self.acts = nn.ModuleList()
        for _ in range(len(widths) - 1):
            self.acts.append(nn.Tanh())
        self.heads = nn.ModuleDict({"mu": nn.Linear(2, 1), "sigma": nn.Linear(2, 1)})
        self.gains = nn.ParameterList([nn.Parameter(torch.full((2,), 0.5)) for _ in range(2)])
        self.shift = nn.ParameterDict({"b": nn.Parameter(torch.zeros(1))})

    def forward(self, x):
        for layer, act in zip(self.layers, self.acts):
            x = act(layer(x))
        x = x * self.gains[0] * self.gains[-1]
        return {k: h(x) + self.shift["b"] for k, h in self.heads.items()}

net = Stack([3, 5, 4, 2])
print(net)
print(len(net.layers), len(net.heads), len(net.gains), net.layers[-1])
print(net.layers[1:])
print("mu" in net.heads, "pi" in net.heads, list(net.heads.keys()), [k for k in net.heads])
print(net.heads.keys(), len(list(net.heads.values())))
out = net(torch.linspace(-1, 1, 12).reshape(4, 3))
print(out["mu"], out["sigma"].grad_fn)
(out["mu"].sum() + out["sigma"].sum()).backward()
for name, p in net.named_parameters():
    print(name, tuple(p.shape), p.grad.abs().sum().item() > 0)
print(list(net.state_dict().keys()))
print(net.gains)
print(net.shift)

ml = nn.ModuleList([nn.ReLU(), nn.ReLU()])
ml.extend([nn.Sigmoid()])
ml.insert(0, nn.Linear(1, 1))
ml[1] = nn.Tanh()
print(ml)
ml = ml[1:]
for i, m in enumerate(ml):
    print(i, m)
ml += [nn.ReLU(), nn.ReLU(), nn.ReLU()]
print(ml, len(ml))
print(ml[:2] + nn.ModuleList([nn.Identity()]))
md = nn.ModuleDict()
md["x"] = nn.ReLU()
md.update({"y": nn.Tanh()})
md.update([("z", nn.Sigmoid())])
popped = md.pop("x")
print(md, popped, len(md))
pl = nn.ParameterList()
pl.append(nn.Parameter(torch.ones(3, 4)))
pl.append(torch.zeros(2))
pl.extend([torch.ones(1, dtype=torch.float64)])
print(pl, pl[1].requires_grad, type(pl[1]), len(pl))
pd = nn.ParameterDict()
pd["w"] = torch.ones(2, 2)
pd.update({"v": nn.Parameter(torch.ones(3))})
print(pd, sorted(pd.keys()), "w" in pd)
print(sum(p.numel() for p in nn.ModuleList([nn.Linear(2, 3), nn.Linear(3, 1)]).parameters()))
for probe in (lambda: ml[10], lambda: ml(torch.ones(1)), lambda: nn.ModuleList([1]),
              lambda: md["nope"], lambda: nn.ModuleList(3), lambda: md.update(5)):
    try:
        probe()
    except (IndexError, NotImplementedError, TypeError, KeyError) as e:
        print(type(e).__name__, e)
""",
    # Optimizer.state_dict() / load_state_dict(): state keyed by parameter index, groups
    # with `params` as indices, the saved hyperparameters and state taken over, the checks
    "optimizer_state_dict": """\
import torch
w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
b = torch.nn.Parameter(torch.tensor(0.5))
opt = torch.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1)
print(opt.state_dict())
for _ in range(2):
    opt.zero_grad()
    ((w ** 2).sum() + b ** 2).backward()
    opt.step()
sd = opt.state_dict()
print(sd["state"][0]["exp_avg"], sd["state"][1]["step"], sd["param_groups"][1]["lr"], sd["param_groups"][1]["params"])
print(sd)
opt2 = torch.optim.Adam([{"params": [w]}, {"params": [b]}], lr=0.5)
opt2.load_state_dict(sd)
print(opt2.param_groups[1]["lr"], opt2.state[b])
opt2.step()
print(w, b)
s = torch.optim.SGD([w], lr=0.1, momentum=0.9)
s.zero_grad(); (w ** 2).sum().backward(); s.step()
print(s.state_dict())
try:
    torch.optim.SGD([w, b], lr=0.1).load_state_dict(s.state_dict())
except ValueError as e:
    print("ValueError", e)
try:
    torch.optim.SGD([{"params": [w]}, {"params": [b]}], lr=0.1).load_state_dict(s.state_dict())
except ValueError as e:
    print("ValueError", e)
""",
    # `del`: names, items of lists / dicts / nn containers, attributes of script objects,
    # tensor.grad; Python's errors for what is not there
    "del_statement": """\
import torch
import torch.nn as nn
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 3).sum()
y.backward()
print(x.grad)
del x.grad
print(x.grad)
tmp = x * 2
del tmp
try:
    print(tmp)
except NameError as e:
    print("NameError", e)
xs = [1, 2, 3, 4, 5]
del xs[0], xs[-1]
print(xs)
del xs[1:]
print(xs)
d = {"a": 1, "b": 2}
del d["a"]
print(d)
try:
    del d["zz"]
except KeyError as e:
    print("KeyError", e)
class Box:
    def __init__(self):
        self.v = 1
        self.w = 2
b = Box()
del b.v
print(hasattr(b, "v"), b.w)
ml = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.Sigmoid()])
del ml[0]
print(ml)
md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Tanh()})
del md["a"]
print(md)
a, c = 1, 2
del a, c
try:
    del a
except NameError as e:
    print("NameError", e)
def f():
    z = torch.ones(2)
    del z
    return "ok"
print(f())
try:
    del x[0]
except TypeError as e:
    print("TypeError", e)
try:
    del (1).real
except AttributeError as e:
    print("AttributeError")
""",
    # str's methods (replace, split, strip, join, center...), as tutorials format their output
    "str_methods": """\
import torch
import torch.nn as nn
net = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
text = str(net)
print(text.replace("\\n", " / "))
print(text.splitlines()[1].strip(), text.count("("), text.startswith("Seq"), text.endswith(")"))
name = "  Layer_One  "
print(name.strip().lower(), name.upper(), name.lstrip() + "|", "|" + name.rstrip(), name.title())
print("a,b,,c".split(","), "a b  c".split(), "k=v=w".split("=", 1), "k=v=w".rsplit("=", 1))
print("-".join(["x", "y", "z"]), ", ".join(str(v) for v in torch.tensor([1, 2]).tolist()))
print("loss".center(10, "*"), "7".zfill(3), "ab".ljust(4, ".") + "|", "ab".rjust(4) + "|")
print("abcabc".find("c"), "abcabc".rfind("c"), "abcabc".index("b"), "abc".find("z"))
print("x1".isalnum(), "12".isdigit(), "ab".isalpha(), " ".isspace(), "Ab".islower(), "AB".isupper())
print("a:b:c".partition(":"), "a:b:c".rpartition(":"), "pre_x".removeprefix("pre_"), "x.py".removesuffix(".py"))
print("Hello".swapcase(), "hello world".capitalize(), "ß".casefold(), "a\\tb".expandtabs(4))
for probe in (lambda: "abc".index("z"), lambda: "a".center("x"), lambda: "-".join([1, 2])):
    try:
        probe()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
""",
    # type() of numpy's values names numpy's module, as Python prints it
    "numpy_types": """\
import torch
import numpy as np
a = np.linspace(0, 1, 3)
t = torch.from_numpy(a)
print(type(a), type(a[0]), type(a.sum()), type(np.float32(1)), type(np.int64(3)), type(t))
print(type(a) == type(np.zeros(2)), type(a) is type(t), type(a).__name__, type(t.numpy()))
""",
    # torch.nn.utils: clip_grad_norm_ (2, inf, 1 norms; a single tensor; no grads; the
    # non-finite check), clip_grad_value_, parameters_to_vector, vector_to_parameters
    "nn_utils_clip_grad": """\
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_, parameters_to_vector, vector_to_parameters
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
x = torch.linspace(-2, 2, 15).reshape(5, 3)
(net(x) ** 2).sum().backward()
total = clip_grad_norm_(net.parameters(), max_norm=0.5)
print(total, total.requires_grad, net[2].bias.grad)
print(torch.nn.utils.clip_grad_norm_(net.parameters(), 100.0, norm_type=float("inf")))
print(torch.nn.utils.clip_grad_norm_(net[0].weight, 0.1, norm_type=1), net[0].weight.grad)
torch.nn.utils.clip_grad_value_(net.parameters(), clip_value=0.01)
print(net[2].weight.grad)
print(torch.nn.utils.clip_grad_norm_([torch.zeros(2, requires_grad=True)], 1.0))
vec = parameters_to_vector(net.parameters())
print(vec.shape, vec.grad_fn)
vector_to_parameters(torch.arange(26.0), net.parameters())
print(net[2].bias, net[0].weight[0])
w = torch.tensor([1.0, 2.0], requires_grad=True)
w.grad = torch.tensor([float("nan"), 1.0])
try:
    clip_grad_norm_([w], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", e)
print(clip_grad_norm_(w, 1.0), w.grad)
""",
    # collections.OrderedDict (nn.Sequential(OrderedDict([...])) names its children);
    # state_dict() is one: odict_keys, type() OrderedDict
    "ordered_dict": """\
import torch
import torch.nn as nn
from collections import OrderedDict
model = nn.Sequential(OrderedDict([
    ("fc1", nn.Linear(3, 4)),
    ("act", nn.ReLU()),
    ("fc2", nn.Linear(4, 1)),
]))
print(model)
print(model.fc1, model[2], [n for n, _ in model.named_parameters()])
d = OrderedDict(a=1)
d["b"] = 2
d.update({"c": 3})
print(d, list(d.keys()), type(d), d == OrderedDict([("a", 1), ("b", 2), ("c", 3)]))
import collections
print(collections.OrderedDict([(1, "x")]))
y = model(torch.ones(2, 3))
print(y.shape, y.grad_fn)
try:
    nn.Sequential(OrderedDict([("a.b", nn.ReLU())]))
except KeyError as e:
    print("KeyError", e)
sd = model.state_dict()
print(sd.keys(), type(sd), len(sd.items()), list(sd.values())[1].shape)
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
