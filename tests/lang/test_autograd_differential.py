"""Random custom-Function and hook scripts (tests/lang/autograd_gen.py) through diffcli and
through PyTorch: the same printed output (numbers to one unit in the last printed digit,
as test_script_differential compares them), and the same error if any (skipped without torch;
the recorded goldens of tests/lang/test_autograd_ext.py cover the same features without it).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings

from .autograd_gen import OPS, function_scripts
from .test_script_differential import TOLERANCE, _same_printed, run_diffcli, run_torch, torch

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
FAST = settings(
    derandomize=True, deadline=None, database=None, max_examples=150, suppress_health_check=list(HealthCheck)
)


@settings(
    derandomize=True, deadline=None, database=None, max_examples=30, suppress_health_check=list(HealthCheck)
)
@given(function_scripts())
def test_generated_scripts_run_in_diffcli(script):
    """Without torch too: every generated script runs, prints, and ends without an error."""
    ours = run_diffcli(script)
    assert ours.error is None, (script, ours.error)
    assert ours.printed.count("\n") >= 2


def test_every_op_of_the_generator_exists():
    assert set(OPS) == {"exp", "sin", "tanh", "sigmoid", "cube", "square", "log"}


@needs_torch
@FAST
@given(function_scripts())
def test_generated_function_and_hook_scripts_match_pytorch(script):
    torch.manual_seed(0)
    ours, theirs = run_diffcli(script), run_torch(script)
    theirs.printed = re.sub(r" at 0x[0-9a-fA-F]+", "", theirs.printed)  # diffcli prints no addresses
    # the same text, but for a float32 value one unit off in its last printed digit
    assert _same_printed(ours.printed, theirs.printed, TOLERANCE["float32"]), (
        f"\n{script}\n--- diffcli\n{ours.printed}--- torch\n{theirs.printed}"
    )
    assert (ours.error is None) == (theirs.error is None), (ours.error, theirs.error)
    if ours.error is not None:
        assert ours.error[:2] == theirs.error[:2]
