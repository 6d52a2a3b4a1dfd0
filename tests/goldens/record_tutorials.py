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

import contextlib
import io
import json
import pathlib
import re
import warnings

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
}

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

    cases = {name: run(script) for name, script in CASES.items()}
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
