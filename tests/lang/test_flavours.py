"""The two flavours (SPEC §1 "Values, leaves and requires_grad: two flavours").

A script that imports torch is PyTorch flavour: PyTorch's float32 default dtype
(`torch.set_default_dtype` changes it), bare literals are Python numbers and lists,
leaves are the tensors made with requires_grad=True. Any other script is math flavour:
float64, and a name bound to a bare literal is a variable. Both ways are tested against
what PyTorch 2.13 printed: tests/goldens/flavours.json, recorded by
tests/goldens/record_flavours.py (a PyTorch-flavour script is its own PyTorch program,
run with torch's float32 default; a math-flavour script has an equivalent program, run
in float64).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from diffcli.engine import dtypes
from diffcli.engine.tensor import Tensor
from diffcli.lang import flavour
from diffcli.lang.interpreter import Interpreter
from diffcli.lang.parse import parse
from tests.cli.samples import invoke

GOLDENS = json.loads((Path(__file__).resolve().parents[1] / "goldens" / "flavours.json").read_text())
RUNS = GOLDENS["runs"]
CLI = {c["name"]: c for c in GOLDENS["cli"]}


def test_goldens_were_recorded_from_torch_2_13():
    assert GOLDENS["torch"].startswith("2.13")
    assert {r["flavour"] for r in RUNS} == {"pytorch", "math"}


@pytest.mark.parametrize("case", RUNS, ids=lambda c: c["name"])
def test_script_prints_what_pytorch_printed(case):
    """`diffcli run` of the script: stdout byte for byte, or the same error on the same line."""
    assert flavour.of(parse(case["script"])) == (
        flavour.PYTORCH if case["flavour"] == "pytorch" else flavour.MATH
    )
    code, out, err = invoke(["run", "-e", case["script"]])
    assert out == case["stdout"], f"\n--- diffcli\n{out}--- torch\n{case['stdout']}{err}"
    if case["error"] is None:
        assert code == 0, err
    else:
        kind, message, line = case["error"]
        first = err.splitlines()[0]
        assert (
            code == 1
            and first.startswith(f"error: <expr>:{line}:")
            and first.endswith(f": {kind}: {message}")
        ), f"{first}\nvs torch {case['error']!r}"


# --- which flavour a script is ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "import torch\n",
        "import torch.nn.functional as F\n",
        "import torch.autograd\n",
        "from torch import autograd\n",
        "from torch.autograd import grad\n",
        "import math, torch\n",
        "x = 1\nif x > 2:\n    import torch\n",
        "def f():\n    import torch\n",
        "for i in range(0):\n    with no_grad():\n        import torch as T\n",
        "try:\n    pass\nexcept Exception:\n    from torch import nn\n",
    ],
)
def test_a_script_that_imports_torch_anywhere_is_pytorch_flavour(text):
    assert flavour.of(parse(text)) == flavour.PYTORCH


@pytest.mark.parametrize(
    "text",
    [
        "a = 1.5\n",
        "import math\nx = math.pi\n",
        "y = torch.sin(tensor(1.0))\n",
        "torch = 1\n",
        "s = 'import torch'\n# import torch\n",
        "x = 1\nif x:\n    import math\n",
    ],
)
def test_a_script_without_a_torch_import_is_math_flavour(text):
    assert flavour.of(parse(text)) == flavour.MATH


def test_the_flavour_check_walks_deep_nesting_without_recursion():
    depth = 300
    text = "".join("    " * i + "if True:\n" for i in range(depth)) + "    " * depth + "import torch\n"
    assert flavour.of(parse(text)) == flavour.PYTORCH


def _run(text, **kwargs):
    interp = Interpreter(write=lambda s: None, **kwargs)
    return interp, interp.run(parse(text))


def test_bare_literals_are_python_values_in_the_pytorch_flavour_and_variables_in_the_math_flavour():
    body = "a = 1.5\nv = [1, 2, 3]\ni = 0\ni += 1\n"
    interp, result = _run("import torch\n" + body)
    assert (result.flavour, interp.env["a"], interp.env["v"], interp.env["i"]) == (
        "pytorch",
        1.5,
        [1, 2, 3],
        1,
    )
    assert [n for n in result.order if isinstance(interp.env[n], Tensor)] == []
    interp, result = _run(body.replace("i = 0\ni += 1\n", ""))
    a, v = interp.env["a"], interp.env["v"]
    assert result.flavour == "math"
    assert (a.dtype.name, a.requires_grad, a.is_leaf, a.item()) == ("float64", True, True, 1.5)
    assert (v.dtype.name, v.requires_grad, v.tolist()) == ("float64", True, [1.0, 2.0, 3.0])


def test_set_gives_a_variable_in_the_default_dtype_of_either_flavour():
    interp, _ = _run("import torch\na = 1.5\ny = a * x\n", sets={"a": 2, "x": [0.5, 1.0]})
    a, x = interp.env["a"], interp.env["x"]
    assert (a.dtype.name, a.requires_grad, a.item(), x.dtype.name, x.requires_grad) == (
        "float32",
        True,
        2.0,
        "float32",
        True,
    )
    interp, _ = _run("import torch\ntorch.set_default_dtype(torch.float64)\ny = 3 * x\n", sets={"x": 0.1})
    assert (interp.env["x"].dtype.name, interp.env["x"].item()) == ("float64", 0.1)
    interp, _ = _run("a = 1.5\ny = a * x\n", sets={"a": 2, "x": 0.1})
    assert (interp.env["a"].dtype.name, interp.env["a"].item(), interp.env["x"].dtype.name) == (
        "float64",
        2.0,
        "float64",
    )


# --- the default dtype is a setting of the run --------------------------------------------------


def test_a_run_puts_its_flavours_default_in_force_and_the_previous_one_back():
    assert dtypes.default_float() == np.float64
    seen = {}

    def spy(text):
        seen["dtype"] = dtypes.default_float().name

    interp = Interpreter(write=spy)
    result = interp.run(parse("import torch\nprint(1)\ntorch.set_default_dtype(torch.float64)\n"))
    assert seen["dtype"] == "float32"  # while the script ran
    assert result.defaults.float == np.float64  # what the script left
    assert dtypes.default_float() == np.float64 and dtypes.defaults() is dtypes.MATH  # put back
    with dtypes.using(dtypes.PYTORCH):
        _, result = _run("x = tensor([1.0])\n")  # a math run is float64 whatever is in force
        assert (result.defaults.float, dtypes.default_float()) == (np.float64, np.float32)
    assert dtypes.defaults() is dtypes.MATH


def test_an_explicit_default_dtype_overrides_the_flavours_but_draws_its_random_numbers():
    text = "import torch\ntorch.manual_seed(3)\nr = torch.randn(4)\nt = torch.tensor([0.1])\n"
    plain, _ = _run(text)
    wide, _ = _run(text, default_dtype=np.dtype(np.float64))
    assert (plain.env["r"].dtype.name, wide.env["r"].dtype.name, wide.env["t"].dtype.name) == (
        "float32",
        "float64",
        "float64",
    )
    assert wide.env["r"].array.tolist() == plain.env["r"].array.astype(np.float64).tolist()


def test_set_default_dtype_refuses_what_torch_refuses():
    for bad, message in (
        ("torch.int64", "only floating-point types are supported as the default type"),
        ("1.5", "invalid dtype object: only floating-point types are supported as the default type"),
    ):
        code, _, err = invoke(["run", "-e", f"import torch\ntorch.set_default_dtype({bad})"])
        assert code == 1 and err.splitlines()[0] == f"error: <expr>:2:1: TypeError: {message}", err


# --- float32 is computed in float32 ----------------------------------------------------------------


def test_float32_scalars_do_not_take_the_float64_scalar_lane():
    """The scalar lane (function.record_scalar) computes on Python floats, float64 only: a
    0-d float32 op goes through numpy float32, so every op rounds to float32."""
    text = (
        "import torch\nx = torch.tensor(0.1, requires_grad=True)\n"
        "y = (x * 3 + x / 7 - 0.2) ** 2 - x.exp() * x.sin()\n"
        "d = torch.tensor(0.1, dtype=torch.float64, requires_grad=True)\ne = d * 3 + d / 7\n"
    )
    interp, _ = _run(text)
    y, e = interp.env["y"], interp.env["e"]
    assert y.dtype.name == "float32" and y.grad_fn.fast is None
    assert y.grad_fn.next_functions[0][0].fast is None
    assert e.dtype.name == "float64" and e.grad_fn.fast is not None  # float64 still takes it
    x = np.float32(0.1)
    want = (x * np.float32(3) + x / np.float32(7) - np.float32(0.2)) ** np.float32(2) - np.exp(x) * np.sin(x)
    assert y.array.dtype == np.float32 and y.item() == float(want)


# --- the command line ---------------------------------------------------------------------------


def _cli_json(name):
    case = CLI[name]
    assert case["error"] is None
    code, out, err = invoke(case["args"])
    assert code == 0, err
    return json.loads(out), case["stdout"].split(" ", 4)


def test_set_gives_a_float32_variable_in_the_pytorch_flavour():
    got, (y, ydtype, x, xgrad, xdtype) = _cli_json("set_gives_a_float32_variable")
    assert (repr(got["target"]["value"]), got["target"]["dtype"]) == (y, ydtype)
    leaf = got["leaves"]["x"]
    assert (repr(leaf["value"]), repr(leaf["grad"]), leaf["dtype"], leaf["requires_grad"]) == (
        x,
        xgrad,
        xdtype.strip(),
        True,
    )


def test_set_overrides_a_python_number_of_the_pytorch_flavour():
    got, (y, ydtype, a, agrad, adtype) = _cli_json("set_overrides_a_python_number")
    assert (repr(got["target"]["value"]), got["target"]["dtype"]) == (y, ydtype)
    leaf = got["leaves"]["a"]
    assert (repr(leaf["value"]), repr(leaf["grad"]), leaf["dtype"]) == (a, agrad, adtype.strip())


def test_grad_reports_the_tensor_leaves_not_the_python_numbers():
    got, (loss, dtype, xgrad, wgrad) = (
        _cli_json("grad_reports_the_tensor_leaves")[0],
        CLI["grad_reports_the_tensor_leaves"]["stdout"].strip().split(" ", 3),
    )
    assert (repr(got["target"]["value"]), got["target"]["dtype"]) == (loss, dtype)
    assert list(got["leaves"]) == ["x", "w"]  # `lr = 0.1` is a Python float
    x, w = got["leaves"]["x"], got["leaves"]["w"]
    assert (x["requires_grad"], x["grad"], xgrad) == (False, None, "None")
    wgrad, wdtype = wgrad.rsplit(" ", 1)
    assert ([repr(v) for v in w["grad"]], w["dtype"], w["requires_grad"]) == (eval(wgrad), wdtype, True)


def test_grad_of_a_python_number_says_there_is_no_tensor_to_differentiate():
    code, out, err = invoke(["grad", "-e", "import torch\na = 1.5\ny = a * a"])
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == (
        "error: <expr>: TypeError: the last assigned name 'y' is a float, "
        "not a tensor, so there is nothing to differentiate (give --of NAME)"
    )


def test_check_of_a_pytorch_flavour_script_differences_in_float64():
    """Finite differences of float32 values would be rounding noise (errors near 1e-2 with
    eps 1e-6); check runs the script in float64, as gradcheck asks for double precision."""
    code, out, err = invoke(
        [
            "check",
            "-e",
            "import torch\nx = torch.tensor([0.5, 1.5], requires_grad=True)\ny = (x.sin() * x).sum()",
            "--format",
            "json",
        ]
    )
    assert code == 0, err
    (row,) = json.loads(out)["leaves"]
    assert row["ok"] and row["max_abs_error"] < 1e-8 and row["max_rel_error"] < 1e-8
    assert row["analytic"] == [float(np.sin(v) + v * np.cos(v)) for v in (0.5, 1.5)]
