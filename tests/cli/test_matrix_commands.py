"""`diffcli jacobian` and `diffcli hessian`: the JSON matches torch.autograd.functional on
the same scripts (tests/goldens/functional.json, `commands`), the TSV and table are pinned
(the samples' tables in tests/cli/expected/*.jacobian.txt, *.hessian.txt), and bad options
are clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from .samples import cli

GOLDENS = Path(__file__).resolve().parents[1] / "goldens"
COMMANDS = json.loads((GOLDENS / "functional.json").read_text())["commands"]


def _close(got, want, rtol, where):
    if isinstance(want, dict):
        assert list(got) == list(want) or sorted(got) == sorted(want), where
        for k in want:
            _close(got[k], want[k], rtol, f"{where}.{k}")
        return
    g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert g.shape == w.shape, (where, g.shape, w.shape)
    np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * 1e-2, err_msg=where)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_json_matches_torch_autograd_functional(name):
    case = COMMANDS[name]
    argv = case["argv"]
    r = cli(*argv, "--format", "json")
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    kind = argv[0]
    want = dict(case["result"])
    products = {k: want.pop(k) for k in ("vjp", "jvp") if k in want}
    rtol = 1e-6 if "float32" in name else 1e-12
    assert list(doc) == ["of", "wrt", "value", kind, *products]
    assert doc["wrt"] == list(doc[kind]) and sorted(doc["wrt"]) == sorted(want)
    if "--wrt" in argv:
        assert doc["wrt"] == argv[argv.index("--wrt") + 1].split(",")
    if kind == "hessian":
        assert all(list(row) == doc["wrt"] for row in doc[kind].values())
    _close(doc[kind], want, rtol, name)
    for k, v in products.items():
        _close(doc[k], v, rtol, f"{name}.{k}")


def test_json_value_is_the_target_record():
    doc = json.loads(cli(*COMMANDS["layer_jacobian_y"]["argv"], "-f", "json").stdout)
    assert doc["of"] == "y" and doc["value"]["grad_fn"] == "TanhBackward0" and doc["value"]["shape"] == [2]


def test_tsv_is_pinned():
    r = cli("hessian", "-e", "x = [1.0, 2.0]\np = sum(x^3) * x[0]", "-f", "tsv")
    assert r.exit_code == 0 and r.stderr == ""
    assert r.stdout == "hessian\tx[0]\tx[1]\nx[0]\t12.0\t12.0\nx[1]\t12.0\t12.0\n"


def test_table_is_pinned_with_labels_and_blocks():
    r = cli("hessian", "-e", "s = 2.0\nv = [1.0, -1.0]\np = s * sum(v^2) + s^3")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "hessian of p with respect to s, v\n"
        "       s     v[0]   v[1]\n"
        "────────────────────────\n"
        "s      12.    2.    -2.\n"
        "v[0]    2.    4.     0.\n"
        "v[1]   -2.    0.     4.\n"
    )


def test_jacobian_table_rows_are_the_target_elements():
    r = cli("jacobian", "-e", "w = [[1.0, 2.0], [3.0, 4.0]]\ny = w.sum(0) * 2", "--of", "y")
    assert r.stdout == (
        "jacobian of y with respect to w\n"
        "       w[0,0]   w[0,1]   w[1,0]   w[1,1]\n"
        "────────────────────────────────────────\n"
        "y[0]   2.       0.       2.       0.\n"
        "y[1]   0.       2.       0.       2.\n"
    )


@pytest.mark.parametrize(
    "argv, code, message",
    [
        (
            ["hessian", "-e", "x = [1.0, 2.0]\ny = x * 2"],
            1,
            "RuntimeError: The Tensor returned by the function given to hessian should contain a single element "
            "(--of y has 2)",
        ),
        (
            ["jacobian", "-e", "x = [1.0]\ny = x * 2", "--wrt", "q"],
            2,
            "UsageError: --wrt q: the script defines no name 'q'",
        ),
        (
            ["jacobian", "-e", "x = [1.0]\ny = x * 2", "--wrt", "y"],
            2,
            "UsageError: --wrt y: 'y' is not a leaf tensor",
        ),
        (
            ["jacobian", "-e", "x = [1.0]\nz = [2.0]\ny = x * z", "--jvp", "[1.0]"],
            1,
            "ValueError: --jvp: give one input with --wrt (the tangent is shaped like it), not 2",
        ),
        (
            ["jacobian", "-e", "x = [1.0, 2.0]\ny = x * 2", "--vjp", "[1.0]"],
            1,
            "RuntimeError: --vjp: v has invalid size: should be torch.Size([2]) but got torch.Size([1]).",
        ),
        (
            ["jacobian", "-e", "x = [1.0]\ny = x * 2", "--vjp", "ones(1)"],
            1,
            "ValueError: --vjp: expected a number",
        ),
        (
            ["jacobian", "-e", "import torch\nx = torch.tensor(1.0)\ny = x * 2"],
            1,
            "ValueError: no named leaf of the script requires grad: give the inputs with --wrt NAME,NAME",
        ),
        (
            ["jacobian", "-e", "x = [1.0]\ny = x * 2", "--of", "nope"],
            2,
            "UsageError: --of nope: the script defines no name",
        ),
    ],
)
def test_bad_options_are_clear_errors(argv, code, message):
    r = cli(*argv)
    assert r.exit_code == code, r.stderr
    assert message in r.stderr and r.stdout == ""


def test_a_script_that_called_backward_itself_is_still_differentiated():
    r = cli(
        "jacobian",
        "-e",
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\ny.backward()",
        "--of",
        "y",
        "-f",
        "json",
    )
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["jacobian"] == {"x": [2.0, 4.0]}


def test_an_input_the_target_does_not_use_gets_zeros():
    doc = json.loads(cli("hessian", "-e", "a = 1.0\nb = [2.0, 3.0]\np = a^3", "-f", "json").stdout)
    assert doc["hessian"] == {
        "a": {"a": 6.0, "b": [0.0, 0.0]},
        "b": {"a": [0.0, 0.0], "b": [[0.0, 0.0], [0.0, 0.0]]},
    }
