"""`diffcli check` explains its verdict: the worst element with its numbers, kinks at
relu/abs/max/clamp/floor/where, per-dtype defaults for float32, Jacobians of non-scalar
targets (issue 16 item 1, issue 15 item 3)."""

from __future__ import annotations

import json
import re

import pytest

from .samples import cli

CARD = ["samples/card.txt", "--set", "a=1", "--set", "b=2", "--set", "w=0.5"]


def test_the_table_names_the_worst_element_and_the_settings():
    r = cli("check", "-e", "x = [1.0, 2.0]\nb = 3.0\ny = (x * x * b).sum()")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "finite-difference check of y"
    assert re.split(r"\s{2,}", lines[1].strip()) == [
        "leaf",
        "order",
        "worst",
        "analytic",
        "numeric",
        "abs error",
        "rel error",
        "tolerance",
        "fd error",
        "result",
    ]
    rows = [line.split() for line in lines[3:5]]
    assert [(row[0], row[1], row[2], row[3], row[-1]) for row in rows] == [
        ("x", "1", "x[1]", "12", "ok"),
        ("b", "1", "b", "5", "ok"),
    ]
    assert lines[5:] == ["order 1: float64: eps 1e-06, atol 1e-05, rtol 0.0001"]


@pytest.mark.parametrize(
    "script, analytic, one_sided",
    [
        ("x = 0.0\ny = relu(x)", 0.0, [0.0, 1.0]),
        ("x = 0.0\ny = abs(x)", 0.0, [-1.0, 1.0]),
        ("x = [1.0, 1.0]\ny = x.max()", 0.5, [0.0, 1.0]),
        ("x = 1.0\ny = clamp(x, 0.0, 1.0)", 1.0, [1.0, 0.0]),
        ("x = 1.0\ny = floor(x)", 0.0, [1e6, 0.0]),
        ("x = [0.0, 1.0]\ny = where(x > 0, x, 0.0 * x).sum()", 0.0, [0.0, 1.0]),
    ],
)
def test_kinks_are_reported_as_kink_not_mismatch(script, analytic, one_sided):
    r = cli("check", "-e", script, "-f", "json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    leaf = doc["leaves"][0]
    assert (doc["ok"], leaf["ok"], leaf["result"], leaf["label"]) == (True, True, "kink", "kink")
    assert leaf["worst"]["analytic"] == analytic
    assert leaf["worst"]["one_sided"] == pytest.approx(one_sided, rel=1e-4, abs=1e-6)


def test_a_kink_in_the_table_says_why():
    r = cli("check", "-e", "x = 0.0\ny = relu(x)")
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout.splitlines()[3].split()[-1] == "kink"
    assert r.stdout.splitlines()[-1] == (
        "note: x (order 1): x: analytic 0.0, numeric 0.5: kink: one-sided differences 0 (left) and 1 "
        "(right); the analytic value lies between them"
    )


def test_away_from_the_kink_the_same_ops_are_plainly_ok():
    r = cli(
        "check", "-e", "x = [0.5, -2.0]\ny = (relu(x) + abs(x) + clamp(x, -1.0, 1.0)).sum()", "-f", "json"
    )
    leaf = json.loads(r.stdout)["leaves"][0]
    assert (r.exit_code, leaf["result"]) == (0, "ok")
    assert "one_sided" not in leaf["worst"]


def test_a_mismatch_explains_its_worst_element_and_labels_it():
    # float64's numeric gradient is good to ~1e-10: a tolerance of 1e-12 is below what the
    # finite differences can tell, and the label says so
    r = cli("check", "-e", "a = [1.0, 2.0]\nb = 0.5\ny = (a * b).sum()", "--atol", "1e-12", "--rtol", "0")
    assert r.exit_code == 1
    assert r.stdout.splitlines()[3].split()[-2:] == ["MISMATCH", "(precision-limited)"]
    assert r.stdout.splitlines()[-2] == (
        "note: a (order 1): a[0]: analytic 0.5, numeric 0.5000000000832667, abs error 8.327e-11 > tolerance "
        "1.000e-12 (finite-difference error estimate 3.562e-10): precision-limited"
    )
    assert r.stderr == (
        "error: <expr>: GradcheckError: analytic and finite-difference gradients of 'y' "
        "differ for a (order 1), b (order 1)\n"
    )


def test_float32_scripts_pass_with_float32_defaults():
    script = (
        "import torch\nx = torch.tensor([0.3, 1.7, -0.8], dtype=torch.float32, requires_grad=True)\n"
        "y = (torch.sin(x) * torch.exp(x) + x ** 3).sum()\n"
    )
    r = cli("check", "-e", script, "-f", "json")
    assert r.exit_code == 0, r.stdout
    leaf = json.loads(r.stdout)["leaves"][0]
    assert leaf["settings"] == {"dtype": "float32", "eps": 1e-3, "atol": 1e-3, "rtol": 1e-2}
    assert cli("check", "-e", script.replace("float32", "float64")).exit_code == 0
    # float64's step on float32 values: rounding noise, and the label says so
    r = cli("check", "-e", script, "--eps", "1e-6", "--atol", "1e-5", "--rtol", "1e-4", "-f", "json")
    leaf = json.loads(r.stdout)["leaves"][0]
    assert (r.exit_code, leaf["result"], leaf["label"]) == (1, "mismatch", "precision-limited")


def test_a_non_scalar_target_has_its_whole_jacobian_checked():
    r = cli("check", "-e", "x = [1.0, 2.0]\nb = 0.5\ny = x ** 2 * b", "-f", "json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    x, b = doc["leaves"]
    assert x["analytic"] == [[1.0, 0.0], [0.0, 2.0]]  # dy_i/dx_j = 2 x_i b [i == j]
    assert b["analytic"] == [1.0, 4.0]  # dy_i/db = x_i^2
    assert sum(x["numeric"], []) == pytest.approx([1.0, 0.0, 0.0, 2.0], abs=1e-8)
    assert set(x["worst"]) >= {"output_index", "index", "analytic", "numeric", "tolerance", "error_estimate"}
    table = cli("check", "-e", "x = [1.0, 2.0]\nb = 0.5\ny = x ** 2 * b").stdout
    worst = [line.split()[2] for line in table.splitlines()[3:5]]
    assert re.fullmatch(r"y\[[01]\]/x\[[01]\]", worst[0]) and re.fullmatch(r"y\[[01]\]/b", worst[1])


def test_order_2_checks_the_hessian_with_its_own_settings():
    r = cli("check", "-e", "x = [1.0, 2.0]\ny = (x ** 3).sum()", "--order", "2", "-f", "json")
    doc = json.loads(r.stdout)
    hessian = doc["leaves"][1]
    assert (hessian["order"], hessian["analytic"], hessian["result"]) == (2, [[6.0, 0.0], [0.0, 12.0]], "ok")
    assert hessian["settings"] == {"dtype": "float64", "eps": 1e-4, "atol": 1e-4, "rtol": 1e-3}
    r = cli("check", "-e", "x = 0.0\ny = relu(x) * x", "--order", "2", "-f", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["leaves"][1]["result"] == "kink"
