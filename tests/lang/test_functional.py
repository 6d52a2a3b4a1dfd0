"""torch.autograd.functional and torch.func in scripts, against PyTorch's recorded results
(tests/goldens/functional.json, from tests/goldens/record_functional.py): every API, with
the function as a `def` and as a `lambda`, gives PyTorch's nesting, shapes, dtypes,
requires_grad and values; bad arguments give PyTorch's exception type and message."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from diffcli.engine import dtypes
from diffcli.engine.tensor import Tensor
from diffcli.lang.errors import ScriptError
from diffcli.lang.interpreter import Interpreter
from diffcli.lang.parse import parse

GOLDENS = Path(__file__).resolve().parents[1] / "goldens"
sys.path.insert(0, str(GOLDENS))
from functional_cases import all_cases, flatten  # noqa: E402

RECORDED = json.loads((GOLDENS / "functional.json").read_text())["cases"]


def _info(t):
    return list(t.shape), t.dtype.name, t.requires_grad, t.array.reshape(-1).tolist()


def run(text):
    """The script's `result`, flattened, or its error as (type, message)."""
    with dtypes.using(dtypes.defaults()):
        interp = Interpreter(write=lambda s: None)
        try:
            interp.run(parse(text))
        except ScriptError as e:
            return {"error": {"type": e.type_name, "message": e.message}}
        return {"result": flatten(interp.env["result"], lambda v: isinstance(v, Tensor), _info)}


def _same(got, want, where="result"):
    assert got.keys() == want.keys(), (where, got, want)
    if "tensor" in want:
        for k in ("shape", "dtype", "requires_grad"):
            assert got[k] == want[k], (where, k, got[k], want[k])
        np.testing.assert_allclose(got["tensor"], want["tensor"], rtol=1e-12, atol=1e-13, err_msg=where)
    elif "python" in want:
        assert got == want, where
    else:
        (kind,) = want
        assert len(got[kind]) == len(want[kind]), (where, got, want)
        for i, (g, w) in enumerate(zip(got[kind], want[kind])):
            _same(g, w, f"{where}[{i}]")


def test_every_case_is_recorded_and_the_recording_is_current():
    cases = all_cases()
    assert sorted(RECORDED) == sorted(c for c, _, _ in cases)
    assert all(RECORDED[c]["script"] == text for c, _, text in cases)
    assert sum(kind == "error" for _, kind, _ in cases) >= 90 and len(cases) >= 200


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_case_matches_pytorch(case):
    want = RECORDED[case]
    got = run(want["script"])
    if "error" in want:
        assert got == {"error": want["error"]}
    else:
        assert "result" in got, got
        _same(got["result"], want["result"])
