"""`grad --symbolic` and `check --symbolic` on the command line: the README example's
formulas (text, LaTeX, JSON) pinned, the scope messages, SymPy only on symbolic paths, and
a pathological script that still prints (bounded work)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.samples import cli

from .helpers import R, formulas

ROOT = Path(__file__).resolve().parents[2]
CARD = "x = a + b; y = x*w; p = sin((0.5*y^2-1)/2-0.1)"
CARD_TEXT = """\
p = sin(0.25*w^2*(a + b)^2 - 0.6)
dp/da = 0.5*w^2*(a + b)*cos(0.25*w^2*(a + b)^2 - 0.6)
dp/db = 0.5*w^2*(a + b)*cos(0.25*w^2*(a + b)^2 - 0.6)
dp/dw = 0.5*w*(a + b)^2*cos(0.25*w^2*(a + b)^2 - 0.6)
"""
CARD_LATEX = r"""p = \sin{\left(0.25 w^{2} \left(a + b\right)^{2} - 0.6 \right)}
\frac{\partial p}{\partial a} = 0.5 w^{2} \left(a + b\right) \cos{\left(0.25 w^{2} \left(a + b\right)^{2} - 0.6 \right)}
\frac{\partial p}{\partial b} = 0.5 w^{2} \left(a + b\right) \cos{\left(0.25 w^{2} \left(a + b\right)^{2} - 0.6 \right)}
\frac{\partial p}{\partial w} = 0.5 w \left(a + b\right)^{2} \cos{\left(0.25 w^{2} \left(a + b\right)^{2} - 0.6 \right)}
"""


def test_readme_example_needs_no_values():
    r = cli("grad", "--symbolic", "-e", CARD)
    assert (r.exit_code, r.stdout) == (0, CARD_TEXT)


def test_readme_example_with_values_shows_the_numbers():
    r = cli("grad", "--symbolic", "samples/card.txt", "--set", "a=1", "--set", "b=2", "--set", "w=0.5")
    assert r.exit_code == 0
    assert r.stdout == (
        "p = sin(0.25*w^2*(a + b)^2 - 0.6)\n  = tensor(-0.0375)\n"
        "dp/da = 0.5*w^2*(a + b)*cos(0.25*w^2*(a + b)^2 - 0.6)\n      = tensor(0.3747)\n"
        "dp/db = 0.5*w^2*(a + b)*cos(0.25*w^2*(a + b)^2 - 0.6)\n      = tensor(0.3747)\n"
        "dp/dw = 0.5*w*(a + b)^2*cos(0.25*w^2*(a + b)^2 - 0.6)\n      = tensor(2.2484)\n"
    )


def test_formulas_evaluate_to_the_engine_gradient():
    sym, _ = formulas(CARD, sets={"a": 1.0, "b": 2.0, "w": 0.5})
    got = {n: R.evaluate(f.text, sym.values) for n, _, f in sym.leaves}
    assert got == pytest.approx(
        {"a": 0.3747363590225995, "b": 0.3747363590225995, "w": 2.2484181541355968}, rel=1e-12
    )


LATEX_SAMPLES = [
    (
        "p = x / (1 + x)",
        "p = \\frac{x}{x + 1}\n\\frac{\\partial p}{\\partial x} = \\frac{1}{\\left(x + 1\\right)^{2}}\n",
    ),
    (
        "p = relu(x) + abs(y)",
        "p = \\begin{cases} x & \\text{for}\\: x > 0 \\\\0 & \\text{otherwise} \\end{cases} + \\left|{y}\\right|\n"
        "\\frac{\\partial p}{\\partial x} = \\begin{cases} 1 & \\text{for}\\: x > 0 \\\\0 & \\text{otherwise} "
        "\\end{cases}\n\\frac{\\partial p}{\\partial y} = \\operatorname{sign}{\\left(y \\right)}\n",
    ),
]


def test_latex_of_the_readme_example():
    r = cli("grad", "--symbolic", "-e", CARD, "--format", "latex")
    assert (r.exit_code, r.stdout) == (0, CARD_LATEX)


@pytest.mark.parametrize("script, expected", LATEX_SAMPLES)
def test_latex_samples(script, expected):
    r = cli("grad", "--symbolic", "-e", script, "-f", "latex")
    assert (r.exit_code, r.stdout) == (0, expected)


NON_SMOOTH = [
    ("p = relu(x)", "where(x > 0, x, 0)", "where(x > 0, 1, 0)"),
    ("p = abs(x)", "abs(x)", "sign(x)"),
    ("p = clamp(x, -1, 1)", "where(x < -1, -1, where(x > 1, 1, x))", "where((x > 1) | (x < -1), 0, 1)"),
    (
        "p = max(x, 2*x)",
        "where(x > 2*x, x, where(x < 2*x, 2*x, 3*x/2))",
        "where(x > 2*x, 1, where(x < 2*x, 2, 3/2))",
    ),
    ("p = floor(x) * x", "x*floor(x)", "floor(x)"),
    ("p = where(x > 1, x^2, -x)", "where(x > 1, x^2, -x)", "where(x > 1, 2*x, -1)"),
    ("p = (x >= 1) * x", "x*where(x >= 1, 1, 0)", "where(x >= 1, 1, 0)"),
]


@pytest.mark.parametrize("script, value, grad", NON_SMOOTH)
def test_non_smooth_ops_print_as_where(script, value, grad):
    r = cli("grad", "--symbolic", "-e", script)
    assert (r.exit_code, r.stdout) == (0, f"p = {value}\ndp/dx = {grad}\n")


def test_json_fields():
    r = cli("grad", "--symbolic", "-e", CARD, "--set", "a=1", "-f", "json")
    doc = json.loads(r.stdout)
    assert doc["free"] == ["b", "w"]
    assert doc["target"]["formula"] == "sin(0.25*w^2*(a + b)^2 - 0.6)"
    assert doc["target"]["value"] is None
    a = doc["leaves"]["a"]
    assert (a["value"], a["grad"]) == (1.0, None)
    assert a["formula"] == "0.5*w^2*(a + b)*cos(0.25*w^2*(a + b)^2 - 0.6)"
    assert (
        a["latex"]
        == r"0.5 w^{2} \left(a + b\right) \cos{\left(0.25 w^{2} \left(a + b\right)^{2} - 0.6 \right)}"
    )
    r = cli(
        "grad",
        "--symbolic",
        "samples/card.txt",
        "--set",
        "a=1",
        "--set",
        "b=2",
        "--set",
        "w=0.5",
        "-f",
        "json",
    )
    doc = json.loads(r.stdout)
    assert doc["free"] == [] and doc["leaves"]["w"]["grad"] == 2.2484181541355968


def test_missing_variables_are_all_listed():
    r = cli("grad", "-e", CARD)
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0] == (
        "error: <expr>:1:5: NameError: name 'a' is not defined (free variables a, b, w have no value: give "
        "them values with --set a=VALUE --set b=VALUE --set w=VALUE, or see the formulas in them with --symbolic)"
    )


@pytest.mark.parametrize(
    "script, message",
    [
        (
            "v = [1.0, 2.0]\np = v * v",
            "error: <expr>: TypeError: --symbolic is for scalar variables: 'v' has shape [2] (give one-element tensors, "
            "or drop --symbolic)",
        ),
        (
            "p = a * 2\nif a > 0:\n    p = p * a",
            "error: <expr>:2:4: NotImplementedError: --symbolic does not follow an `if`/`while` on a variable's value "
            "(each branch has its own formula)",
        ),
        (
            "import torch\nv = torch.tensor([1.0, 2.0], requires_grad=True)\np = (v * v).sum()",
            "error: <expr>: TypeError: --symbolic is for scalar variables: 'v' has shape [2] (give one-element tensors, "
            "or drop --symbolic)",
        ),
    ],
)
def test_out_of_scope_is_a_clear_error(script, message):
    r = cli("grad", "--symbolic", "-e", script)
    assert r.exit_code == 1 and r.stderr.splitlines()[0] == message


def test_pytorch_flavour():
    r = cli(
        "grad",
        "--symbolic",
        "-e",
        "import torch\nx = torch.tensor(2.0, requires_grad=True)\n"
        "y = torch.sigmoid(x) * x.sin()\nwith torch.no_grad():\n    c = x * 3\nz = y * c",
    )
    assert r.exit_code == 0
    assert r.stdout.splitlines()[0] == "z = sin(x)*detach(3*x)/(1 + exp(-x))"


def test_check_symbolic():
    r = cli("check", "--symbolic", "samples/card.txt", "--set", "a=1", "--set", "b=2", "--set", "w=0.5")
    assert r.exit_code == 0
    rows = [line.split()[:2] for line in r.stdout.splitlines() if "(symbolic)" in line]
    assert rows == [["a", "(symbolic)"], ["b", "(symbolic)"], ["w", "(symbolic)"]]
    assert all(line.rstrip().endswith("ok") for line in r.stdout.splitlines() if "(symbolic)" in line)


def test_latex_needs_symbolic():
    r = cli("grad", "-e", "p = x * 2", "--set", "x=1", "-f", "latex")
    assert r.exit_code == 2


def test_json_grad_does_not_import_sympy():
    code = (
        "import sys\nfrom diffcli.cli import main\nsys.argv = ['diffcli', 'grad', 'samples/card.txt', '--set', "
        "'a=1', '--set', 'b=2', '--set', 'w=0.5', '--format', 'json']\ntry:\n    main()\nexcept SystemExit:\n"
        "    pass\nassert 'sympy' not in sys.modules, 'sympy imported'\nprint('clean')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines()[-1] == "clean", out.stderr


def test_without_sympy_symbolic_is_a_usage_error_that_says_how_to_get_it():
    code = (
        "import sys\nsys.modules['sympy'] = None  # as if SymPy were not installed\n"
        "from diffcli.cli import main\nsys.argv = ['diffcli', 'grad', '--symbolic', '-e', 'y = a * a']\nmain()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        "error: UsageError: --symbolic needs SymPy, an optional extra: pip install 'diffcli[symbolic]' (or sympy)\n"
    )


def nested_product(depth):
    e = "a"
    for i in range(depth):
        e = f"({e} + {'b' if i % 2 else 'c'}) * (a + {i + 1})"
    return "p = " + e


def test_nested_product_of_sums_prints():
    """Done-when 5: a 40-deep nested product of sums prints (the work is bounded by counts:
    a subprocess timeout is only the hang guard), and its formulas are right."""
    out = subprocess.run(
        [sys.executable, "-m", "diffcli", "grad", "--symbolic", "-e", nested_product(40)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("p =") and "\ndp/da =" in out.stdout
    sym, _ = formulas(nested_product(40), sets={"a": 0.25, "b": -0.5, "c": 0.75})
    for _, leaf, f in sym.leaves:
        assert R.evaluate(f.text, sym.values) == pytest.approx(float(leaf._grad.array), rel=1e-9)


def test_shared_subexpressions_print_with_temporaries():
    text = "y = x\n" + "y = y + sin(y)\n" * 40
    sym, _ = formulas(text, sets={"x": 0.3})
    _, leaf, f = sym.leaves[0]
    assert f.text.startswith("t1 = ") and len(f.text) < 100_000
    assert R.evaluate(f.text, sym.values) == pytest.approx(float(leaf._grad.array), rel=1e-9)


def test_latex_of_a_power_of_detach_and_floor():
    """SymPy's LaTeX printer hands a power's exponent to its base: detach(a)^2, floor(a)^2."""
    r = cli(
        "grad",
        "--symbolic",
        "--format",
        "latex",
        "-e",
        "a = 0.5\nd = detach(a)\ny = a / (d * d + 0.1) + floor(a)^2",
    )
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout == (
        "y = \\frac{a}{\\operatorname{detach}\\left(a\\right)^{2} + 0.1} + \\left\\lfloor a \\right\\rfloor^{2}\n"
        "\\frac{\\partial y}{\\partial a} = \\frac{1}{\\operatorname{detach}\\left(a\\right)^{2} + 0.1}\n"
    )
