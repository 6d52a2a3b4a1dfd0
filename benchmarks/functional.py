"""The Hessian workloads of issue 15: a 200-input Hessian through diffcli's
torch.autograd.functional.hessian (engine/functional.py) and through PyTorch's, with
vectorize=False and True, and `diffcli hessian` on a 200-element script as a process.
Target: finishes in seconds, not minutes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from . import workloads as W
from .workloads import have_torch

ROOT = Path(__file__).resolve().parents[1]


def _data(n):
    rng = np.random.default_rng(0)
    return rng.standard_normal((n, n)) / np.sqrt(n), rng.standard_normal(n)


def _engine(n, vectorize):
    from diffcli import engine as E
    from diffcli.engine import functional

    a, x0 = _data(n)
    A = E.tensor(a.tolist())

    def f(x):
        return (E.tanh(A @ x) ** 2).sum() + (x**4).sum() / 4

    return lambda: functional.hessian(f, E.tensor(x0.tolist()), vectorize=vectorize)


def _torch(n, vectorize):
    import torch

    a, x0 = _data(n)
    A = torch.tensor(a)

    def f(x):
        return (torch.tanh(A @ x) ** 2).sum() + (x**4).sum() / 4

    return lambda: torch.autograd.functional.hessian(f, torch.tensor(x0), vectorize=vectorize)


def hessian(n, vectorize):
    out = {"diffcli": _engine(n, vectorize)}
    if have_torch():
        out["torch"] = _torch(n, vectorize)
    return out


def hessian_command(n):
    """`diffcli hessian` of p = sum(tanh(A @ x)^2) + sum(x^4)/4 for an n-element x, as a process."""
    a, x0 = _data(n)
    path = W.scratch() / "hessian.txt"
    path.write_text(f"A = tensor({a.tolist()})\nx = {x0.tolist()}\np = sum(tanh(A @ x)^2) + sum(x^4) / 4\n")

    def run():
        subprocess.run(
            [sys.executable, "-m", "diffcli", "hessian", str(path), "--wrt", "x", "-f", "json"],
            check=True,
            capture_output=True,
            cwd=ROOT,
            timeout=600,
        )

    return {"diffcli": run}


def agree(n=30) -> float:
    """The largest difference between diffcli's and PyTorch's Hessian (a sanity check of the
    workload itself; the tests compare them properly)."""
    return float(np.abs(np.asarray(_engine(n, False)().array) - _torch(n, False)().numpy()).max())
