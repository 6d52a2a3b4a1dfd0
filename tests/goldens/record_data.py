"""Record what PyTorch prints for torch.utils.data (Dataset, TensorDataset, Subset,
random_split, DataLoader), torch.Generator and randperm into data.json;
tests/lang/test_data.py runs the same scripts through diffcli. Each case is a script
written for these tests. Run by hand, with PyTorch installed, from the repository root:

    python tests/goldens/record_data.py      # rewrites tests/goldens/data.json
"""

from __future__ import annotations

import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "data.json"

CASES = {
    # batches in order and shuffled, epochs, generator=, a script Dataset, random_split,
    # a training loop over a loader; the global generator's state after each loop
    "loaders": """\
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, random_split

torch.manual_seed(0)
x = torch.arange(10, dtype=torch.float32).reshape(5, 2)
y = torch.tensor([0, 1, 0, 1, 1])
ds = TensorDataset(x, y)
print(len(ds), ds[1], ds[-1][0])
dl = DataLoader(ds, batch_size=2)
print(len(dl))
for xb, yb in dl:
    print(xb, yb)
print(torch.rand(1))
dl = DataLoader(ds, batch_size=2, shuffle=True, drop_last=True)
print(len(dl))
for epoch in range(2):
    for i, (xb, yb) in enumerate(dl):
        print(epoch, i, xb.tolist(), yb.tolist())
print(torch.rand(1))
g = torch.Generator().manual_seed(7)
for b in DataLoader(ds, batch_size=3, shuffle=True, generator=g):
    print(b)
print(torch.rand(1))


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": float(i), "y": i * i}


for batch in DataLoader(Squares(5), batch_size=2):
    print(batch)
train, test = random_split(ds, [3, 2], generator=torch.Generator().manual_seed(1))
print(len(train), len(test), train.indices, test[0])
a, b = random_split(range(10), [0.7, 0.3])
print(list(a), list(b))
print(next(iter(DataLoader(ds, batch_size=4)))[0].shape)
w = torch.zeros(2, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
for xb, yb in DataLoader(ds, batch_size=2, shuffle=True):
    loss = ((xb @ w - yb.float()) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))
print(w)
print(DataLoader(ds).batch_size, DataLoader(ds, batch_size=3).dataset is ds)
""",
    # a list of pairs as the dataset, a loader's own generator over three epochs, next()
    # and StopIteration, numbers/strings/batch_size=None/collate_fn/drop_last
    "loader_kinds": """\
import torch
from torch.utils.data import DataLoader, TensorDataset
import torch.utils.data as data

torch.manual_seed(1)
X = torch.randn(7, 3)
Y = X.sum(1, keepdim=True)
pairs = list(zip(X, Y))
dl = DataLoader(pairs, batch_size=3, shuffle=True)
print(dl, len(dl))
for xb, yb in dl:
    print(xb.shape, yb.shape)
g = torch.Generator().manual_seed(5)
dl = DataLoader(TensorDataset(torch.arange(5)), batch_size=2, shuffle=True, generator=g)
for e in range(3):
    print([b[0].tolist() for b in dl])
print(g.initial_seed(), torch.rand(1, generator=g))
it = iter(DataLoader(range(6), batch_size=4))
print(next(it), next(it))
try:
    next(it)
except StopIteration:
    print("stop")
print(list(DataLoader([1.5, 2.5, 3.5], batch_size=2)))
print(list(DataLoader(["a", "b", "c"], batch_size=2)))
print(list(DataLoader(range(3), batch_size=None)))
print(list(DataLoader(range(5), batch_size=2, collate_fn=lambda b: sum(b))))
print([len(b) for b in DataLoader(range(10), batch_size=3, drop_last=True)])
w = torch.tensor([1.0, -1.0, 0.5], requires_grad=True)
ds = data.TensorDataset(X, Y)
for xb, yb in data.DataLoader(ds, batch_size=4):
    print(xb.requires_grad, (xb @ w).grad_fn)
print(torch.rand(1))
""",
    # errors as PyTorch raises them, fractions in random_split, collate of tuples and dicts
    "loader_errors": """\
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split, Dataset
X = torch.ones(4, 2)
ds = TensorDataset(X, X[:, 0])
try:
    DataLoader(ds, batch_size=0)
except ValueError as e:
    print("ValueError", e)
try:
    TensorDataset(X, X[:3])
except AssertionError as e:
    print("AssertionError", e)
try:
    random_split(ds, [3, 3])
except ValueError as e:
    print("ValueError", e)
a, b = random_split(ds, [0.5, 0.5], generator=torch.Generator().manual_seed(3))
print(len(a), len(b), a.indices, b.indices)
class Bare(Dataset):
    def __len__(self):
        return 2
try:
    next(iter(DataLoader(Bare())))
except NotImplementedError as e:
    print("NotImplementedError", e)
print(ds.tensors[1], DataLoader(ds, batch_size=3).drop_last, len(DataLoader(ds, batch_size=3, drop_last=True)))
print(list(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2)))
print(list(DataLoader([{"a": torch.ones(2)}, {"a": torch.zeros(2)}], batch_size=2)))
print(torch.utils.data.default_collate([torch.ones(2), torch.zeros(2)]))
print(list(DataLoader([[1, 2], [3]], batch_size=2)))
""",
    # torch.Generator, generator= on rand/randn/randint/randperm
    "generators": """\
import torch
torch.manual_seed(3)
print(torch.randperm(10))
g = torch.Generator().manual_seed(42)
print(g, g.initial_seed())
print(torch.randperm(10, generator=g), torch.rand(3, generator=g), torch.randn(2, generator=g), torch.randint(0, 9, (4,), generator=g))
print(torch.rand(2))
""",
    # the LeNet of PyTorch's "Neural Networks" tutorial, written again: conv, pool, SGD
    "lenet": """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):

    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output

torch.manual_seed(0)
net = Net()
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())
input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)
net.zero_grad()
out.backward(torch.randn(1, 10))
output = net(input)
target = torch.randn(10)
target = target.view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])
net.zero_grad()
print('conv1.bias.grad before backward')
print(net.conv1.bias.grad)
loss.backward()
print('conv1.bias.grad after backward')
print(net.conv1.bias.grad)
import torch.optim as optim
optimizer = optim.SGD(net.parameters(), lr=0.01)
for i in range(3):
    optimizer.zero_grad()
    output = net(input)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print(loss.item())
""",
}

sys.path.insert(0, str(HERE))
from record_autograd_ext import run  # noqa: E402 (the same way of running a case)


def main():
    import torch

    cases = {name: run(script) for name, script in CASES.items()}
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
