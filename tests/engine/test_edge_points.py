"""Gradients at the awkward points, asserted exactly against PyTorch (float64).

Every row of REFERENCE.md §1.12 "edge_point_gradients" (except topk, which diffcli does
not have) plus more of the same kind, recorded from PyTorch by
tests/goldens/record_ops.py with an upstream gradient of ones: abs/relu/sign at 0, clamp
at its bounds and with min > max, ties in maximum/minimum (split evenly), in max()/min()
(split evenly) and in max(dim) (first index), sqrt/log at 0, pow's corner cases, the
`where` nan trap, prod with zeros, norms of zero vectors, std/var without degrees of
freedom (nan and a warning), atan2 at the origin, asin at 1, repeated indices,
saturating softmax/logsumexp/sigmoid/softplus/gelu.

"Exactly" means: the same nan positions, the same infinities, the same sign on every
zero (-0.0 vs 0.0), and finite values equal to the last bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import as_array, load_ops_goldens, replay

RECORDS = [r for r in load_ops_goldens() if r["group"] == "edge_point_gradients"]


def assert_exact(ours, theirs, what):
    a, b = as_array(ours), as_array(theirs)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"{what}: nan positions")
    finite = ~np.isnan(b)
    np.testing.assert_array_equal(
        np.signbit(a[finite]), np.signbit(b[finite]), err_msg=f"{what}: signs (incl. -0.0)"
    )
    np.testing.assert_array_equal(a[finite], b[finite], err_msg=what)


def test_every_reference_edge_row_is_recorded():
    labels = {r["label"] for r in RECORDS}
    for label in (
        "abs at 0",
        "abs at -0.0",
        "relu at 0",
        "sign (zero grad)",
        "clamp at boundaries",
        "clamp min>max",
        "maximum tie",
        "minimum tie",
        "max() full reduction ties",
        "min() full reduction ties",
        "max(dim) ties",
        "sqrt at 0",
        "log at 0",
        "a**0 (exponent zero)",
        "0**b and a**b at a=0",
        "(-8)**(1/3) base negative",
        "where hides nan? torch.where(a>0, a.log(), 0)",
        "prod with one zero",
        "prod with two zeros",
        "norm of zero vector",
        "std of one element",
        "var of one element",
        "atan2 at (0,0)",
        "asin at 1",
        "x[[0,0,2]] repeated index accumulates",
        "log_softmax extreme",
        "logsumexp with -inf",
        "gelu at 0",
        "softplus above threshold",
        "sigmoid saturated",
    ):
        assert label in labels, label


@pytest.mark.parametrize("golden", RECORDS, ids=[r["label"] for r in RECORDS])
def test_edge_point(golden):
    ours = replay(golden["setup"], golden["expr"], golden["group"])
    assert ours["output"]["grad_fn"] == golden["output"]["grad_fn"]
    assert ours["graph"] == golden["graph"]
    assert ours["output"]["shape"] == golden["output"]["shape"]
    assert_exact(ours["output"]["values"], golden["output"]["values"], "output")
    assert set(ours["grads"]) == set(golden["grads"])
    for name, g in golden["grads"].items():
        assert_exact(ours["grads"][name]["values"], g["values"], f"{name}.grad")
    assert ours["warnings"] == golden["warnings"]
