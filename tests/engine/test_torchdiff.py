"""Differential tests of the engine's semantics against PyTorch, in the PyTorch flavour:
values, dtypes and type promotion, printing, views, in-place ops and autograd.

- The goldens (tests/goldens/torchdiff.json, recorded from torch 2.13 by
  tests/goldens/record_torchdiff.py): each script's stdout and error, compared exactly.
  They pin what the differential run found: the bool operands of `-`, pow's missing Bool
  kernel, the Tensor-only binary ops, the boolean masks' shape check, and generator
  programs that matched to the last digit.
- The long run (`-m slow`, needs torch; skipped without it): DIFFCLI_TORCHDIFF_N programs of
  tests/engine/torch_script_gen.py (default 300, seeds from DIFFCLI_TORCHDIFF_SEED, default
  0) run in torch and in diffcli. Errors (type and message) and every printed line are
  compared exactly, except the numbers of a float32 transcendental kernel: PyTorch's
  vectorised float32 exp, sin, cos, tanh, sqrt... differ from numpy's (and from correctly
  rounded results) in the last bit for some inputs, so a printed number may differ there
  (by one unit of its last printed digit, or 1e-5 relative: a last bit grows through the
  ops that follow, exp2(exp2(x)) and accumulated gradients, `_same_number`); the text
  around the numbers, their count and every other number must be the same.

    python3 -m pytest -m slow tests/engine/test_torchdiff.py   # with the system python3 (torch)
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.engine.torch_script_gen import program
from tests.goldens import record_torchdiff
from tests.helpers import run_script

GOLDENS = json.loads((Path(__file__).resolve().parents[1] / "goldens" / "torchdiff.json").read_text())
CASES = GOLDENS["cases"]
NUMBER = re.compile(r"-?\d+\.?\d*(?:e[+-]?\d+)?")

try:
    import torch
except ImportError:
    torch = None


def test_goldens_were_recorded_from_torch_2_13():
    assert GOLDENS["torch"].startswith("2.13.0")
    assert len(CASES) >= 40


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_script_prints_and_fails_as_pytorch_did(case):
    stdout, _, error = run_script(case["script"])
    assert error == case["error"]
    assert stdout == case["stdout"]


def test_the_generator_is_deterministic_and_its_programs_never_crash_diffcli():
    assert program(7) == program(7)
    assert program(7) != program(8)
    for seed in range(40):
        text = program(seed)
        assert text.startswith("import torch\n")
        run_script(text)  # a script error is an outcome; anything else raises here


# --- the long run against live torch ------------------------------------------------------


def _same_number(a: str, b: str) -> bool:
    if a == b:
        return True
    x, y = float(a), float(b)
    if abs(x - y) <= 1e-5 * max(abs(x), abs(y)):
        return True
    mantissa, _, exponent = a.partition("e")
    digits = len(mantissa.split(".")[1]) if "." in mantissa else 0
    unit = 10.0**-digits * (10.0 ** int(exponent) if exponent else 1.0)
    return abs(x - y) <= 1.01 * unit


def _same_line(got: str, want: str) -> bool:
    if got == want:
        return True
    if NUMBER.split(got) != NUMBER.split(want):
        return False
    a, b = NUMBER.findall(got), NUMBER.findall(want)
    return len(a) == len(b) and all(_same_number(x, y) for x, y in zip(a, b))


@pytest.mark.slow
@pytest.mark.skipif(torch is None, reason="PyTorch is not installed (the goldens check the same behaviours)")
def test_generated_programs_print_what_pytorch_prints():
    n = int(os.environ.get("DIFFCLI_TORCHDIFF_N", "300"))
    start = int(os.environ.get("DIFFCLI_TORCHDIFF_SEED", "0"))
    failures = []
    for seed in range(start, start + n):
        text = program(seed)
        want_out, want_err = record_torchdiff.run(text, torch)
        got_out, _, got_err = run_script(text)
        want, got = want_out.splitlines(), got_out.splitlines()
        same = got_err == want_err and len(got) == len(want) and all(map(_same_line, got, want))
        if not same:
            failures.append(
                f"seed {seed}:\n{text}\n-- torch:\n{want_out}{want_err}\n-- diffcli:\n{got_out}{got_err}"
            )
    assert not failures, f"{len(failures)} of {n} programs differ; the first:\n" + failures[0]
