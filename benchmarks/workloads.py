"""The workloads, each as `{contender: callable}`; every callable does the whole job once
and returns nothing. Sizes come from `Sizes` so the smoke test can run them tiny."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


class Sizes:
    def __init__(self, quick=False):
        self.chain = (200, 1000) if quick else (10_000, 100_000)
        self.script = 500 if quick else 100_000
        self.vec = 10_000 if quick else 1_000_000
        self.mat = 50 if quick else 1000
        self.depth = 5_000 if quick else 1_000_000
        self.parse = 500 if quick else 100_000
        self.render = (200, 400) if quick else (10_000, 20_000)  # graph nodes, two sizes
        self.batch = 20 if quick else 500  # scripts of one batch run
        self.softmax = 1_000 if quick else 100_000  # values (softmax kernels)


def scratch(prefix="diffcli-bench-") -> Path:
    """A temporary folder for a workload's files, removed when the benchmark run ends (the
    workloads return callables that read them later)."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, tmp, True)
    return tmp


def have_torch() -> bool:
    try:
        import torch  # noqa: F401

        return True
    except ImportError:
        return False


# --- 2. scalar chain --------------------------------------------------------------


def _chain_engine(n):
    from diffcli.engine import sin, tensor

    x = tensor(0.5, requires_grad=True)
    y = x
    for _ in range(n // 5):
        y = y + 0.1
        y = y * 0.999
        y = sin(y)
        y = y**2
        y = y / 1.001
    y.backward()
    return x.grad


def _chain_torch(n):
    import torch

    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(n // 5):
        y = y + 0.1
        y = y * 0.999
        y = torch.sin(y)
        y = y**2
        y = y / 1.001
    y.backward()
    return x.grad


def scalar_chain(n):
    out = {"diffcli": lambda: _chain_engine(n)}
    if have_torch():
        out["torch"] = lambda: _chain_torch(n)
    return out


# --- 4. tensors -----------------------------------------------------------------


def _elementwise_engine(x0):
    from diffcli.engine import sin, tanh, tensor

    x = tensor(x0, requires_grad=True)
    y = x
    for _ in range(5):
        y = sin(y * 1.01 + 0.1)
        y = tanh(y) * 0.5
    y.sum().backward()
    return x.grad


def _elementwise_torch(x0):
    import torch

    x = torch.tensor(x0, requires_grad=True)
    y = x
    for _ in range(5):
        y = torch.sin(y * 1.01 + 0.1)
        y = torch.tanh(y) * 0.5
    y.sum().backward()
    return x.grad


def _elementwise_numpy(x0):
    # forward, keeping what backward needs, then backward by hand
    saved = []
    y = x0
    for _ in range(5):
        u = y * 1.01 + 0.1
        s = np.sin(u)
        t = np.tanh(s)
        saved.append((u, t))
        y = t * 0.5
    g = np.ones_like(y)
    for u, t in reversed(saved):
        g = g * 0.5
        g = g * (1 - t * t)
        g = g * np.cos(u)
        g = g * 1.01
    return g


def elementwise(n):
    x0 = np.linspace(-1, 1, n)
    out = {"diffcli": lambda: _elementwise_engine(x0), "numpy": lambda: _elementwise_numpy(x0)}
    if have_torch():
        out["torch"] = lambda: _elementwise_torch(x0)
    return out


def _mlp_engine(a, b, c, d):
    from diffcli.engine import tanh, tensor

    A = tensor(a, requires_grad=True)
    B = tensor(b, requires_grad=True)
    C = tensor(c, requires_grad=True)
    y = tanh(A @ B) @ C @ tensor(d)
    y.sum().backward()
    return A.grad


def _mlp_torch(a, b, c, d):
    import torch

    A = torch.tensor(a, requires_grad=True)
    B = torch.tensor(b, requires_grad=True)
    C = torch.tensor(c, requires_grad=True)
    y = torch.tanh(A @ B) @ C @ torch.tensor(d)
    y.sum().backward()
    return A.grad


def _mlp_numpy(a, b, c, d):
    h = np.tanh(a @ b)
    hc = h @ c
    y = hc @ d
    g = np.ones_like(y)
    g_hc = g @ d.T
    g_h = g_hc @ c.T
    g_c = h.T @ g_hc
    g_pre = g_h * (1 - h * h)
    g_a = g_pre @ b.T
    g_b = a.T @ g_pre
    return g_a, g_b, g_c


def matmuls(n):
    rng = np.random.default_rng(0)
    a, b, c, d = (rng.standard_normal((n, n)) / np.sqrt(n) for _ in range(4))
    out = {"diffcli": lambda: _mlp_engine(a, b, c, d), "numpy": lambda: _mlp_numpy(a, b, c, d)}
    if have_torch():
        out["torch"] = lambda: _mlp_torch(a, b, c, d)
    return out


def softmax(n, dtype):
    """softmax + log_softmax forward of n values (a 1-D tensor and a 2-D one over dim 0):
    diffcli's bit-exact ATen kernels (SLEEF's exp/log with emulated FMA) against numpy's
    plain formula and torch."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(dtype)
    x2 = x.reshape(-1, 100) if n % 100 == 0 else x.reshape(-1, 1)

    def engine():
        from diffcli.engine import FUNCTIONS, Tensor

        for a in (x, x2):
            FUNCTIONS["softmax"](Tensor(a), 0)
            FUNCTIONS["log_softmax"](Tensor(a), 0)

    def plain():
        for a in (x, x2):
            e = np.exp(a - a.max(0))
            e / e.sum(0)
            a - a.max(0) - np.log(np.exp(a - a.max(0)).sum(0))

    out = {"diffcli": engine, "numpy": plain}
    if have_torch():
        import torch

        t, t2 = torch.from_numpy(x), torch.from_numpy(x2)

        def ref():
            for a in (t, t2):
                torch.softmax(a, 0)
                torch.log_softmax(a, 0)

        out["torch"] = ref
    return out


# --- 1, 3, 5. whole processes -------------------------------------------------------


def _proc(args, stdin=None):
    def go():
        r = subprocess.run(args, input=stdin, capture_output=True, text=True, cwd=ROOT)
        if r.returncode != 0:
            raise RuntimeError(f"{args[:3]} failed: {r.stderr[-500:]}")

    return go


TORCH_SEED2 = """import torch
a = torch.tensor(1., requires_grad=True, dtype=torch.float64)
b = torch.tensor(2., requires_grad=True, dtype=torch.float64)
w = torch.tensor(0.5, requires_grad=True, dtype=torch.float64)
x = a + b; y = x * w; z = 0.5 * y ** 2; m = (z - 1) / 2; n = m - 0.1; p = torch.sin(n)
p.backward()
import json; print(json.dumps({k: v.grad.item() for k, v in dict(a=a, b=b, w=w).items()}))
"""


def cold_start():
    out = {
        "diffcli": _proc(
            [
                sys.executable,
                "-m",
                "diffcli",
                "grad",
                "samples/card.txt",
                "--set",
                "a=1",
                "--set",
                "b=2",
                "--set",
                "w=0.5",
                "--format",
                "json",
            ]
        )
    }
    if have_torch():
        out["torch"] = _proc([sys.executable, "-c", TORCH_SEED2])
    return out


def batch(n, command="grad"):
    """n small scripts: one `diffcli COMMAND a.txt b.txt ... --format jsonl` against n
    separate `diffcli COMMAND x.txt --format json` processes."""
    tmp = scratch("diffcli-batch-")
    files = []
    for i in range(n):
        f = tmp / f"s{i:04d}.txt"
        f.write_text(f"x = {0.5 + i / n}\nw = [1.0, 2.0]\ny = (sin(x * w) * x ** 2).sum()\n")
        files.append(str(f))
    one = _proc([sys.executable, "-m", "diffcli", command, *files, "--format", "jsonl"])
    singles = [_proc([sys.executable, "-m", "diffcli", command, f, "--format", "json"]) for f in files]

    def separate():
        for go in singles:
            go()

    return {"diffcli": one, "separate processes": separate}


def script_text(n, torch_flavour=False):
    lines = (
        ["import torch", "x0 = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)"]
        if torch_flavour
        else ["x0 = 0.5"]
    )
    ops = [
        "x{i} = x{j} + 0.1",
        "x{i} = x{j} * 0.999",
        "x{i} = torch.sin(x{j})" if torch_flavour else "x{i} = sin(x{j})",
        "x{i} = x{j} ** 2",
        "x{i} = x{j} / 1.001",
    ]
    for i in range(1, n):
        lines.append(ops[i % 5].format(i=i, j=i - 1))
    if torch_flavour:
        lines.append(f"x{n - 1}.backward()\nprint(x0.grad.item())")
    return "\n".join(lines) + "\n"


def script_end_to_end(n):
    tmp = scratch()
    (tmp / "chain.txt").write_text(script_text(n))
    (tmp / "chain.py").write_text(script_text(n, True))
    out = {
        "diffcli": _proc(
            [
                sys.executable,
                "-m",
                "diffcli",
                "grad",
                str(tmp / "chain.txt"),
                "--format",
                "json",
                "--wrt",
                "x0",
                "--max-statements",
                str(10 * n),
            ]
        )
    }
    if have_torch():
        out["torch"] = _proc([sys.executable, str(tmp / "chain.py")])
    return out


DEPTH = """import resource, sys, time
from diffcli.engine import tensor, sin
n = int(sys.argv[1]); t = time.perf_counter()
x = tensor(0.5, requires_grad=True); y = x
for i in range(n):
    y = y * 1.0000001 if i % 2 else y + 0.1
y.backward()
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def depth_run(n):
    r = subprocess.run([sys.executable, "-c", DEPTH, str(n)], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-800:])
    secs, mb = r.stdout.split()
    return float(secs), float(mb)


# --- 6. parsing ---------------------------------------------------------------------


def parsing(n):
    import ast

    from diffcli.lang.parse import parse

    text = script_text(n)
    py = text.replace("^", "**")
    return {"diffcli": lambda: parse(text), "ast.parse": lambda: ast.parse(py)}


# --- 7. rendering graphs: every format linear in the graph's size -------------------

RENDER_SHAPES = {
    "chain": lambda n: (
        f"x = tensor(1.0, requires_grad=True)\ny = x\nfor i in range({n}):\n    y = y * 1.01\n"
    ),
    "wide sum": lambda n: "a = tensor(1.0, requires_grad=True)\np = " + " + ".join(["a"] * n) + "\n",
    "doubling": lambda n: (
        f"x = tensor(1.0, requires_grad=True)\ny = x\nfor i in range({n}):\n    y = y + y\n"
    ),
}
RENDER_FORMATS = ("table", "json", "dot", "mermaid", "tree")


def render_graph(shape, fmt, n):
    """Build the graph of a finished run and render it (the run itself is not timed)."""
    import io

    from diffcli import session
    from diffcli.render import jsonout, table, text
    from diffcli.source import Source

    run = session.execute(
        Source(RENDER_SHAPES[shape](n), "<bench>"), session.Options(trace=True), write=lambda s: None
    )

    def go():
        nodes = session.build_graph(run)
        if fmt == "table":
            table.graph_table(nodes, file=io.StringIO())
        elif fmt == "json":
            jsonout.graph_json(nodes)
        else:
            getattr(text, "graph_" + fmt)(nodes)

    return go


def graph_vs_grad(n):
    """The whole `graph` command against `grad` on one n-term sum (each a process)."""
    tmp = scratch()
    (tmp / "sum.txt").write_text(RENDER_SHAPES["wide sum"](n))
    return {
        "diffcli": _proc([sys.executable, "-m", "diffcli", "graph", str(tmp / "sum.txt")]),
        "grad": _proc([sys.executable, "-m", "diffcli", "grad", str(tmp / "sum.txt")]),
    }
