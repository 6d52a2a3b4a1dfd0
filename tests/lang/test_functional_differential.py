"""torch.autograd.functional and torch.func on random functions (`script_gen.functional_programs`:
a `def` or a `lambda` of one to three tensors, every API with random options, and calls
PyTorch refuses), run through diffcli and, as the Python program the script is, through
PyTorch: the same nesting, shapes, dtypes, requires_grad and values, or the same exception
type and message. Skipped without torch (the recorded goldens, tests/lang/test_functional.py,
cover the same APIs then). DIFFCLI_FUNC_EXAMPLES sets the number of scripts (150)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.lang.script_gen import _FUNC_APIS, functional_programs  # noqa: E402

from .test_functional import _same, run  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "goldens"))
from functional_cases import flatten  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - the suite runs without torch
    torch = None

pytestmark = pytest.mark.skipif(
    torch is None,
    reason="PyTorch is not installed (test_functional.py compares with recorded goldens instead)",
)
EXAMPLES = int(os.environ.get("DIFFCLI_FUNC_EXAMPLES", "150"))


def run_torch(text):
    ns = {}
    try:
        exec(compile(text, "<torch>", "exec"), ns)
    except Exception as e:
        return {"error": {"type": type(e).__name__, "message": str(e)}}

    def info(t):
        return (
            list(t.shape),
            str(t.dtype).replace("torch.", ""),
            t.requires_grad,
            t.detach().reshape(-1).tolist(),
        )

    return {"result": flatten(ns["result"], lambda v: isinstance(v, torch.Tensor), info)}


def _agree(program):
    want = run_torch(program.script)
    got = run(program.script)
    if "error" in want:
        assert got == want, program
    else:
        assert "result" in got, (program, got)
        try:
            _same(got["result"], want["result"])
        except AssertionError as e:
            raise AssertionError(f"{program}\n{e}") from None


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(functional_programs())
def test_random_functional_calls_match_pytorch(program):
    _agree(program)


@pytest.mark.parametrize("api", _FUNC_APIS)
def test_each_api_on_random_functions(api):
    @settings(
        max_examples=6,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(functional_programs(api=api))
    def check(program):
        _agree(program)

    check()


def test_the_comparison_can_fail():
    with pytest.raises(AssertionError):
        _same(
            {"tensor": [1.0], "shape": [1], "dtype": "float64", "requires_grad": False},
            {"tensor": [1.0 + 1e-6], "shape": [1], "dtype": "float64", "requires_grad": False},
        )
    assert np.isclose(1.0, 1.0)
