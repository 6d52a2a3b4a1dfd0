"""The tutorial seeds run under `diffcli run` and print what PyTorch printed.

Goldens: `tests/goldens/seeds.json`, copied from tests/goldens/torchref/reference.json (torch
2.13, recorded by running each seed as its own process). One difference is expected and
normalised, nothing else: object addresses (`<MulBackward0 object at 0x...>`; diffcli
prints no address, by the spec). The seeds import torch, so they run in the PyTorch
flavour (float32 default dtype, as torch), and every number is printed exactly as torch
printed it, `.item()`'s float32 values included. Warnings: the same ones, on the same
lines, in the same order.
"""

import json
import re
from pathlib import Path

import pytest

from .samples import invoke

SEEDS = json.loads((Path(__file__).resolve().parents[1] / "goldens" / "seeds.json").read_text())
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")


def _same_line(ours: str, theirs: str) -> bool:
    return ours == ADDRESS.sub(">", theirs)


def _warning_lines(stderr: str):
    """(line number, category, first words) of each warning, in order."""
    out = []
    for m in re.finditer(r"(?:warning: )?\S+?:(\d+): (\w+Warning): (.{40})", stderr):
        out.append((int(m.group(1)), m.group(2), m.group(3)))
    return out


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s["name"])
def test_seed_prints_what_pytorch_printed(seed, tmp_path):
    path = tmp_path / f"{seed['name']}.py"
    path.write_text(seed["script"])
    code, out, err = invoke(["run", str(path)])
    assert code == seed["returncode"]
    ours, theirs = out.splitlines(), seed["stdout"].splitlines()
    assert len(ours) == len(theirs), out
    for a, b in zip(ours, theirs):
        assert _same_line(a, b), f"\nours:  {a}\ntorch: {b}"
    if seed["returncode"] == 0:
        # torch reports its create_graph warning at an internal line, so compare kinds only
        assert [w[1:] for w in _warning_lines(err)] == [w[1:] for w in _warning_lines(seed["stderr"])]
        if "TensorBody" in seed["stderr"]:
            assert _warning_lines(err) == _warning_lines(seed["stderr"])
    else:
        last = seed["stderr"].strip().splitlines()[-1]  # "RuntimeError: Trying to ..."
        assert f": {last}" in err.splitlines()[0]
