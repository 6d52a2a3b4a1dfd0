"""Every error of REFERENCE.md §2 that the engine's feature set covers: exception type and
exact text, as one table loaded from reference.json's `errors`.

Each case is PyTorch code; it runs on the engine through tests/engine/torch_shim.py. The
expected outcome is the reference's, adapted to our float64 default dtype (`adapt`:
torch.FloatTensor -> torch.DoubleTensor, torch.float32 -> torch.float64). That rule is
itself checked: tests/goldens/semantics.json holds every case re-run by PyTorch with
float64 default (record_semantics.py), and `test_adaptation_matches_float64_pytorch`
compares. Warnings are compared with those goldens, where each case ran in a fresh
process (the reference ran them all in one, so its warn-once warnings show only once).

Cases whose point is a float32/float64 difference are replaced by `adapted:*` goldens
that make the same point in the float64 world. When reference.json is not on this
machine, its entries are read from the copies kept in the goldens.
"""

import json

import pytest

from .torch_shim import REFERENCE, adapt, golden_scenarios, normalise, outcome, run_golden

UNSUPPORTED = {
    "numpy() on tensor requiring grad": "the engine's Tensor has no numpy() method",
    "requires_grad on float16 (allowed)": "the engine has no float16",
    "Parameter of int tensor": "the engine has no torch.nn.Parameter",
}
DTYPE_DEPENDENT = {  # replaced by the adapted:* goldens
    "backward(gradient=...) with float64 gradient for float32 output": "adapted: float32 gradient for a float64 output, and float64 for float32",
    "backward(gradient=...) with int64 gradient for float32 output": "prints the float32 leaf's grad dtype; adapted: gradient dtype cases",
    "matmul dtype mismatch float32 @ float64": "adapted: float32 @ float64 explicitly",
    "assign .grad with wrong dtype": "adapted: float32 onto float64 and float64 onto float32",
}


def _cases():
    """(label, code, reference outcome dict, golden torch64 outcome dict)."""
    goldens = {s["id"][len("errors:") :]: s for s in golden_scenarios("errors:")}
    ref = {e["label"]: e for e in json.loads(REFERENCE.read_text())["errors"]}
    return [(label, e["code"], e, goldens[label]) for label, e in ref.items()]


CASES = _cases()


def _param(case):
    label = case[0]
    marks = []
    if label in UNSUPPORTED:
        marks.append(pytest.mark.skip(reason=UNSUPPORTED[label]))
    elif label in DTYPE_DEPENDENT:
        marks.append(pytest.mark.skip(reason="float32-world case: " + DTYPE_DEPENDENT[label]))
    return pytest.param(case, id=label, marks=marks)


def _expected(ref):
    exc = (ref["exception"]["type"], adapt(ref["exception"]["str"])) if ref["raised"] else None
    return exc, normalise(adapt(ref["stdout"]))


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_reference_error(case):
    label, code, ref, golden = case
    got_exc, got_out, got_warn = outcome(run_golden({"code": code}))
    want_exc, want_out = _expected(ref)
    assert got_exc == want_exc
    assert got_out == want_out
    assert got_warn == outcome(golden["torch"])[2]


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_adaptation_matches_float64_pytorch(case):
    """adapt(reference) is what PyTorch itself says with float64 default dtype."""
    label, code, ref, golden = case
    got_exc, got_out, _ = outcome(golden["torch"])
    assert (got_exc, got_out) == _expected(ref)


@pytest.mark.parametrize("scenario", golden_scenarios("adapted:"), ids=lambda s: s["id"])
def test_adapted_error(scenario):
    assert outcome(run_golden(scenario)) == outcome(scenario["torch"])


def test_vendored_reference_copies_are_verbatim():
    ref = {e["label"]: e for e in json.loads(REFERENCE.read_text())["errors"]}
    goldens = {s["id"][len("errors:") :]: s for s in golden_scenarios("errors:")}
    assert set(ref) == set(goldens)
    for label, s in goldens.items():
        e = ref[label]
        assert s["code"] == e["code"]
        assert s["reference"]["raised"] == e["raised"] and s["reference"]["stdout"] == e["stdout"]
        if e["raised"]:
            assert s["reference"]["exception"] == {
                "type": e["exception"]["type"],
                "str": e["exception"]["str"],
            }


def test_every_skip_names_a_reference_case():
    labels = {c[0] for c in CASES}
    assert set(UNSUPPORTED) <= labels and set(DTYPE_DEPENDENT) <= labels
