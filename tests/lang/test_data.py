"""torch.utils.data (Dataset, TensorDataset, Subset, random_split, DataLoader), torch.Generator
and randperm, against what PyTorch 2.13 printed for scripts written for this test
(tests/goldens/data.json, recorded by tests/goldens/record_data.py): the same stdout
(PyTorch's addresses taken out), warnings and error. The loaders draw from the generators
as PyTorch's do, so the numbers a script draws after a loop match too."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from diffcli.engine.ops import random as engine_random
from tests.cli.samples import invoke
from tests.helpers import run_script

GOLDENS = json.loads((Path(__file__).resolve().parents[1] / "goldens" / "data.json").read_text())
CASES = GOLDENS["cases"]


def test_goldens_were_recorded_from_torch_2_13():
    assert GOLDENS["torch"].startswith("2.13")
    assert {"loaders", "loader_kinds", "generators"} <= set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_script_prints_what_pytorch_printed(name):
    case = CASES[name]
    out, warned, error = run_script(case["script"])
    assert out == case["stdout"], f"\n--- diffcli\n{out}--- torch\n{case['stdout']}"
    assert error == case["error"]
    assert warned == case["warnings"]


def test_randperm_is_fisher_yates_on_32_bit_draws():
    # torch.manual_seed(3); torch.randperm(10) -> [6, 0, 3, 7, 8, 5, 1, 9, 2, 4] (recorded in
    # the "generators" case); the rule written out on the same draws:
    gen = engine_random.Generator(3)
    draws = engine_random.Generator(3).random(9).tolist()
    r = list(range(10))
    for i in range(9):
        z = i + draws[i] % (10 - i)
        r[i], r[z] = r[z], r[i]
    assert engine_random.randperm_values(10, gen).tolist() == r == [6, 0, 3, 7, 8, 5, 1, 9, 2, 4]
    assert engine_random.randperm_values(0, gen).dtype == np.int64


@pytest.mark.parametrize(
    "script, message",
    [
        (
            "import torch\ntorch.randn(2, generator=3)\n",
            "TypeError: randn(): argument 'generator' must be torch.Generator, not int",
        ),
        (
            "import torch\ntorch.Generator('cuda')\n",
            "RuntimeError: Cannot get CUDA generator without ATen_cuda library.",
        ),
        (
            "import torch\nfrom torch.utils.data import DataLoader\nDataLoader([1], sampler=[0])\n",
            "NotImplementedError: diffcli's DataLoader takes no sampler",
        ),
        (
            "import torch\ntorch.randperm(2.5)\n",
            "TypeError: randperm(): argument 'n' (position 1) must be int, not float",
        ),
        (
            "import torch\ntorch.randperm(10**12)\n",
            "LimitError: tensor of 1000000000000 elements exceeds the limit",
        ),
    ],
)
def test_bad_arguments_are_script_errors_with_a_position(script, message):
    code, out, err = invoke(["run", "-e", script])
    first = err.splitlines()[0]
    assert code == 1 and message in first and first.startswith("error: <expr>:"), err


@pytest.mark.parametrize(
    "expr, refused",
    [
        ("DataLoader([1])._loader", "'DataLoader' object has no attribute '_loader'"),
        ("iter(DataLoader([1]))._state", "'_SingleProcessDataLoaderIter' object has no attribute '_state'"),
        ("TensorDataset(torch.ones(2))._attrs", "'TensorDataset' object has no attribute '_attrs'"),
        ("torch.Generator()._bits", "'Generator' object has no attribute '_bits'"),
        ("torch.Generator().random(3)", "'Generator' object has no attribute 'random'"),
        ("DataLoader([1]).__dict__", "access to '__dict__' is not allowed"),
        ("torch.utils.data.default_collate.__globals__", "access to '__globals__' is not allowed"),
    ],
)
def test_the_loaders_internals_are_out_of_a_scripts_reach(expr, refused):
    script = f"import torch\nfrom torch.utils.data import DataLoader, TensorDataset\nprint({expr})\n"
    code, out, err = invoke(["run", "-e", script])
    assert code == 1 and out == "" and refused in err.splitlines()[0], err
