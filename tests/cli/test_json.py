"""The JSON contract (SPEC §3): exact floats, non-finite strings, nested lists, records,
leaf order, `retained`, `grad_grad_fn`, graph nodes in topological order, error objects."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from diffcli import session
from diffcli.source import Source

from .samples import cli

ROOT = Path(__file__).resolve().parents[2]
RECORD_KEYS = ["value", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad"]


def grad_json(script, *args):
    r = cli("grad", "-e", script, "-f", "json", *args)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def engine_run(script, target, sets=None):
    """The same script run on the engine through `session`, with the backward `grad` adds."""
    run = session.execute(Source(script, "<expr>"), session.Options(sets or {}), write=lambda s: None)
    session.run_backward(run, target)
    return run


def bits(x: float) -> bytes:
    return struct.pack("<d", x)


# --- numbers --------------------------------------------------------------------------


def test_floats_round_trip_to_the_engines_exact_float64():
    script = "x = [0.1, 0.7, 1e-300, 123.456789]\nw = 0.3333\ny = (sin(x * w) * exp(x / 70) + 1 / 7).sum()\n"
    doc = grad_json(script)
    run = engine_run(script, "y")
    x = run.env["x"]
    for got, want in zip(doc["leaves"]["x"]["grad"], x.grad.array.tolist()):
        assert bits(got) == bits(want)
    for got, want in zip(doc["leaves"]["x"]["value"], [0.1, 0.7, 1e-300, 123.456789]):
        assert bits(got) == bits(want)
    assert bits(doc["target"]["value"]) == bits(run.env["y"].array.item())
    assert bits(doc["leaves"]["w"]["grad"]) == bits(run.env["w"].grad.array.item())


def test_float_text_is_the_shortest_round_trip_repr():
    r = cli("grad", "-e", "x = 0.1\ny = x * 3", "-f", "json")
    doc = json.loads(r.stdout)
    assert doc["target"]["value"] == 0.1 * 3 == 0.30000000000000004
    assert '"value": 0.30000000000000004' in r.stdout
    r = cli("grad", "-e", "x = [1e-320, 1e308]\ny = (x * 1).sum()", "-f", "json")
    assert json.loads(r.stdout)["leaves"]["x"]["value"] == [1e-320, 1e308]  # subnormal survives


def test_non_finite_numbers_are_strings():
    doc = grad_json("x = [0.0, 1.0, -1.0]\ny = log(x)", "--grad-tensors", "[1, 1, 1]")
    assert doc["target"]["value"] == ["-inf", 0.0, "nan"]
    assert doc["leaves"]["x"]["grad"] == ["inf", 1.0, -1.0]
    doc = grad_json("x = 1e400\ny = x * 1")
    assert doc["leaves"]["x"]["value"] == "inf"
    r = cli("grad", "-e", "x = [0.0, 4.0]\ny = sqrt(x).sum()", "-f", "json")
    assert '"inf"' in r.stdout and "Infinity" not in r.stdout and "NaN" not in r.stdout


def test_tensors_are_nested_lists_and_0d_tensors_bare_numbers():
    doc = grad_json("x = [[1.0, 2.0], [3.0, 4.0]]\nv = 2.0\ny = (x * v).sum()")
    assert doc["leaves"]["x"]["value"] == [[1.0, 2.0], [3.0, 4.0]]
    assert doc["leaves"]["x"]["shape"] == [2, 2]
    assert doc["leaves"]["x"]["grad"] == [[2.0, 2.0], [2.0, 2.0]]
    assert doc["leaves"]["v"]["value"] == 2.0 and doc["leaves"]["v"]["shape"] == []
    assert doc["leaves"]["v"]["grad"] == 10.0
    assert doc["target"]["value"] == 20.0
    doc = grad_json("x = ones(2, 1, 3, requires_grad=True)\ny = x.sum()")
    assert doc["leaves"]["x"]["grad"] == [[[1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0]]]


def test_dtypes():
    doc = grad_json(
        "x = 1.0\nc = tensor([1, 2])\nf = tensor([1.5], dtype=torch.float32)\n"
        "b = tensor([True, False])\ny = x * 2"
    )
    leaves = doc["leaves"]
    assert [(n, leaves[n]["dtype"], leaves[n]["value"]) for n in leaves] == [
        ("x", "float64", 1.0),
        ("c", "int64", [1, 2]),
        ("f", "float32", [1.5]),
        ("b", "bool", [True, False]),
    ]


# --- records ------------------------------------------------------------------------------


def test_grad_document_shape_and_records():
    doc = grad_json("a = 1.0\nb = 2.0\ny = a * b")
    assert list(doc) == ["target", "leaves", "retained"]
    assert list(doc["target"]) == ["name"] + RECORD_KEYS
    assert doc["target"] == {
        "name": "y",
        "value": 2.0,
        "shape": [],
        "dtype": "float64",
        "requires_grad": True,
        "is_leaf": False,
        "grad_fn": "MulBackward0",
        "grad": None,
    }
    assert doc["leaves"]["a"] == {
        "value": 1.0,
        "shape": [],
        "dtype": "float64",
        "requires_grad": True,
        "is_leaf": True,
        "grad_fn": None,
        "grad": 2.0,
    }
    assert doc["retained"] == {}


def test_leaves_in_order_of_first_definition_including_those_without_grad():
    doc = grad_json(
        "c = tensor(2.0)\nz = zeros(2)\na = 1.0\nm = a * c\nb = ones(2, requires_grad=True)\n"
        "y = (m * b + z).sum()"
    )
    assert list(doc["leaves"]) == ["c", "z", "a", "b"]
    assert [doc["leaves"][n]["requires_grad"] for n in doc["leaves"]] == [False, False, True, True]
    assert [doc["leaves"][n]["grad"] for n in doc["leaves"]] == [None, None, 4.0, [2.0, 2.0]]


def test_missing_grad_is_null():
    doc = grad_json("a = 1.0\nb = 2.0\ny = a * 3")
    assert doc["leaves"]["b"]["grad"] is None  # requires grad, not used
    assert doc["target"]["grad"] is None  # non-leaf without retain_grad


def test_retained_holds_non_leaves_that_called_retain_grad():
    doc = grad_json("x = [1.0, 2.0]\ny = x * 3\ny.retain_grad()\nh = y * 1\nz = (y * y).sum()")
    assert list(doc["retained"]) == ["y"]
    assert doc["retained"]["y"]["grad"] == [6.0, 12.0]
    assert doc["retained"]["y"]["is_leaf"] is False and doc["retained"]["y"]["grad_fn"] == "MulBackward0"
    assert list(doc["leaves"]) == ["x"]


def test_grad_grad_fn_only_with_create_graph():
    plain = grad_json("x = 3.0\np = x ** 3")
    assert "grad_grad_fn" not in plain["leaves"]["x"]
    created = grad_json("x = 3.0\np = x ** 3", "--create-graph")
    assert created["leaves"]["x"]["grad"] == 27.0
    assert created["leaves"]["x"]["grad_grad_fn"] == "CopyBackwards"
    assert list(created["leaves"]["x"]) == RECORD_KEYS + ["grad_grad_fn"]


def test_target_null_when_the_script_differentiates_itself_and_ends_on_a_number():
    doc = grad_json("x = 3.0\np = x * x\np.backward()\nv = x.grad.item()")
    assert doc["target"] is None and doc["leaves"]["x"]["grad"] == 6.0


# --- graph ------------------------------------------------------------------------------


def test_graph_nodes_in_topological_order_with_ids_inputs_and_next_functions():
    r = cli(
        "graph",
        "-e",
        "a = 1.0\nb = 2.0\nc = tensor(3.0)\nx = a * b\ny = sin(x) + c * x\nz = y * a",
        "-f",
        "json",
    )
    assert r.exit_code == 0
    nodes = json.loads(r.stdout)["nodes"]
    assert [n["id"] for n in nodes] == list(range(len(nodes)))
    for n in nodes:
        assert list(n) == ["id", "name", "op", "inputs", "next_functions"] + RECORD_KEYS
        assert all(i < n["id"] for i in n["inputs"])  # inputs first
        if n["is_leaf"]:
            assert n["inputs"] == [] and n["next_functions"] == [] and n["grad_fn"] is None
    by_name = {n["name"]: n for n in nodes if n["name"]}
    assert set(by_name) == {"a", "b", "c", "x", "y", "z"}
    assert by_name["x"]["op"] == "mul" and by_name["x"]["next_functions"] == [
        "AccumulateGrad",
        "AccumulateGrad",
    ]
    assert [nodes[i]["name"] for i in by_name["x"]["inputs"]] == ["a", "b"]
    assert by_name["c"]["op"] == "constant" and by_name["a"]["op"] == "leaf"
    assert by_name["y"]["grad_fn"] == "AddBackward0"
    assert by_name["y"]["next_functions"] == ["SinBackward0", "MulBackward0"]
    unnamed = [n for n in nodes if n["name"] is None]
    assert sorted(n["grad_fn"] for n in unnamed) == ["MulBackward0", "SinBackward0"]
    assert nodes[-1]["name"] == "z"


def test_graph_json_with_backward_has_leaf_grads():
    nodes = json.loads(cli("graph", "-e", "x = 2.0\ny = x * x", "-f", "json", "--backward").stdout)["nodes"]
    assert [(n["name"], n["grad"]) for n in nodes] == [("x", 4.0), ("y", None)]


# --- check ------------------------------------------------------------------------------


def test_check_json():
    r = cli("check", "-e", "x = [1.0, 2.0]\ny = (x ** 2).sum()", "-f", "json")
    doc = json.loads(r.stdout)
    assert list(doc) == ["target", "ok", "leaves"]
    assert doc["target"] == "y" and doc["ok"] is True
    row = doc["leaves"][0]
    assert list(row)[:5] == ["name", "order", "max_abs_error", "max_rel_error", "ok"]
    assert (row["name"], row["order"], row["ok"], row["analytic"]) == ("x", 1, True, [2.0, 4.0])
    assert row["numeric"] == pytest.approx([2.0, 4.0], abs=1e-6)


# --- errors and completeness ----------------------------------------------------------------


@pytest.mark.parametrize(
    "args, code, expected",
    [
        (
            ["grad", "-e", "x = 1.0\ny = x * q"],
            1,
            {
                "type": "NameError",
                "message": "name 'q' is not defined (a free variable: give it a value with --set q=VALUE, or see its formulas with --symbolic)",
                "file": "<expr>",
                "line": 2,
                "column": 9,
            },
        ),
        (["graph", "-e", "x = (1"], 2, {"type": "SyntaxError", "file": "<expr>", "line": 1}),
        (
            ["check", "-e", "x = 1.0\nx.add_(1)"],
            1,
            {
                "type": "RuntimeError",
                "message": "a leaf Variable that requires grad is being used in an in-place operation.",
                "file": "<expr>",
                "line": 2,
                "column": 1,
            },
        ),
        (
            ["grad", "no/such/file.txt"],
            2,
            {
                "type": "FileError",
                "message": "no/such/file.txt: no such file",
                "file": "no/such/file.txt",
                "line": None,
                "column": None,
            },
        ),
        (
            ["grad", "-e", "x = 1.0", "--repeat", "0"],
            2,
            {
                "type": "UsageError",
                "message": "Invalid value for '--repeat': 0 is not in the range 1<=x<=1000.",
                "file": None,
                "line": None,
                "column": None,
            },
        ),
        (
            ["grad", "-e", "x = 1.0", "--set", "a=foo"],
            2,
            {"type": "UsageError", "file": None, "line": None, "column": None},
        ),
        (
            ["check", "-e", "x = 1.0\ny = x * 2", "--eps", "0"],
            2,
            {"type": "UsageError", "message": "--eps must be a finite number greater than 0, got 0.0"},
        ),
        (["grad", "-e", "x = zeros(100000000)"], 1, {"type": "LimitError", "line": 1, "column": 5}),
    ],
)
def test_errors_are_a_json_object_on_stderr_and_nothing_on_stdout(args, code, expected):
    r = cli(*args, "--format", "json")
    assert (r.exit_code, r.stdout) == (code, "")
    lines = r.stderr.splitlines()
    doc = json.loads(lines[-1])
    assert list(doc) == ["error"]
    assert list(doc["error"]) == ["type", "message", "file", "line", "column"]
    for key, value in expected.items():
        assert doc["error"][key] == value, key
    assert isinstance(doc["error"]["message"], str) and doc["error"]["message"]


def test_json_result_is_complete_or_absent():
    """A failure after a partial run prints no JSON at all; a success prints one whole document."""
    for script in ("x = 2.0\ny = x * x\nprint('p')\nz = q", "x = [1.0, 2.0]\ny = x * x"):
        r = cli("grad", "-e", script, "-f", "json")
        assert r.exit_code == 1 and r.stdout == ""
    r = cli("grad", "-e", "x = 2.0\ny = x * x", "-f", "json")
    assert r.stdout.endswith("}\n")
    assert json.loads(r.stdout)["leaves"]["x"]["grad"] == 4.0


def test_json_is_strict_json():
    """No NaN/Infinity tokens anywhere, whatever the values."""
    r = cli(
        "graph", "-e", "x = [0.0, -1.0, 1e400]\ny = log(x)\nz = (y * 0).sum()", "-f", "json", "--backward"
    )
    assert r.exit_code == 0

    def strict(token):
        raise AssertionError(f"non-standard JSON token {token}")

    doc = json.loads(r.stdout, parse_constant=strict)
    values = [n["value"] for n in doc["nodes"] if n["name"] == "y"][0]
    assert values == ["-inf", "nan", "inf"]
    assert not any(
        isinstance(v, float) and not math.isfinite(v) for v in np.ravel(values) if isinstance(v, float)
    )
