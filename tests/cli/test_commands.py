"""The commands and options of SPEC §3, with exact outputs for representative cases.

Most tests run the Typer app in process (`CliRunner` keeps stdout and stderr apart); a
few run `python -m diffcli` / the `diffcli` script for stdin, exit codes and colour.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import typer

from diffcli import __version__
from diffcli.cli import app

from .samples import cli

ROOT = Path(__file__).resolve().parents[2]
CARD = ["samples/card.txt", "--set", "a=1", "--set", "b=2", "--set", "w=0.5"]
COMMANDS = ("grad", "graph", "run", "check", "explain", "jacobian", "hessian")


def subprocess_cli(*args, input=None, env=None):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "diffcli", *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=full_env,
    )


GRAPH_SCRIPT = "x = 2.0\nc = tensor(3.0)\ny = x * c\nz = sin(y) + x\n"


# --- help, version ------------------------------------------------------------------


def test_every_command_and_option_has_help_text():
    group = typer.main.get_command(app)
    assert set(group.commands) == set(COMMANDS)
    for name, command in group.commands.items():
        assert command.help and command.help.strip(), f"{name} has no help text"
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help and param.help.strip(), f"{name} {param.opts} has no help text"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_on_every_command(command, flag):
    r = cli(command, flag)
    assert r.exit_code == 0
    assert f"Usage: diffcli {command}" in r.stdout
    summary = typer.main.get_command(app).commands[command].help.split("\n")[0]
    assert " ".join(summary.split()[:4]) in " ".join(r.stdout.split())
    for option in ("--set", "--expr", "--max-elements"):
        assert option in r.stdout
    assert r.stderr == ""


def test_top_level_help_lists_the_commands():
    r = cli("--help")
    assert r.exit_code == 0
    for command in COMMANDS:
        assert command in r.stdout


def test_version():
    r = cli("--version")
    assert (r.exit_code, r.stdout, r.stderr) == (0, f"diffcli {__version__}\n", "")
    p = subprocess_cli("--version")
    assert (p.returncode, p.stdout, p.stderr) == (0, f"diffcli {__version__}\n", "")


# --- grad ---------------------------------------------------------------------------

CARD_TABLE = """\
p = tensor(-0.0375, grad_fn=<SinBackward0>)
name   value            requires_grad   grad
──────────────────────────────────────────────────────
a      tensor(1.)       True            tensor(0.3747)
b      tensor(2.)       True            tensor(0.3747)
w      tensor(0.5000)   True            tensor(2.2484)
"""


def test_grad_table_of_the_card():
    r = cli("grad", *CARD)
    assert (r.exit_code, r.stdout, r.stderr) == (0, CARD_TABLE, "")


def test_grad_tsv_of_the_card():
    r = cli("grad", *CARD, "--format", "tsv")
    assert r.exit_code == 0
    assert r.stdout == (
        "name\tkind\tshape\tvalue\tgrad\n"
        "p\ttarget\t[]\t-0.03749121155546027\t\n"
        "a\tleaf\t[]\t1.0\t0.3747363590225995\n"
        "b\tleaf\t[]\t2.0\t0.3747363590225995\n"
        "w\tleaf\t[]\t0.5\t2.2484181541355968\n"
    )


def test_grad_json_of_the_card():
    r = cli("grad", *CARD, "-f", "json")
    assert r.exit_code == 0 and r.stderr == ""
    doc = json.loads(r.stdout)
    assert {k: v["grad"] for k, v in doc["leaves"].items()} == {
        "a": 0.3747363590225995,
        "b": 0.3747363590225995,
        "w": 2.2484181541355968,
    }
    assert doc["target"]["name"] == "p"
    assert doc["target"]["grad_fn"] == "SinBackward0"


def test_grad_default_target_is_the_last_assigned_name_and_of_picks_another():
    script = "x = 2.0\ny = x * x\nz = y * x\n"
    last = json.loads(cli("grad", "-e", script, "-f", "json").stdout)
    assert last["target"]["name"] == "z" and last["leaves"]["x"]["grad"] == 12.0
    of_y = json.loads(cli("grad", "-e", script, "--of", "y", "-f", "json").stdout)
    assert of_y["target"]["name"] == "y" and of_y["leaves"]["x"]["grad"] == 4.0


def test_set_gives_free_variables_and_overrides_bare_literals():
    r = cli("grad", "-e", "a = 1.0\ny = (a * b).sum()", "--set", "a=3", "--set", "b=[1, 2]", "-f", "json")
    doc = json.loads(r.stdout)
    assert doc["leaves"]["a"]["value"] == 3.0
    assert doc["leaves"]["b"]["value"] == [1.0, 2.0]
    r = cli("grad", "-e", "a = 1.0\ny = (a * b).sum()", "--set", "b=[1, 2]", "-f", "json")
    assert json.loads(r.stdout)["leaves"]["a"]["grad"] == 3.0


def test_wrt_selects_leaves_in_order_and_makes_them_require_grad():
    script = "x = 2.0\nc = tensor(3.0)\ny = x * c\n"
    r = cli("grad", "-e", script, "-f", "tsv")
    assert r.stdout.splitlines()[1:] == [
        "y\ttarget\t[]\t6.0\t",
        "x\tleaf\t[]\t2.0\t3.0",
        "c\tleaf\t[]\t3.0\t",
    ]
    r = cli("grad", "-e", script, "--wrt", "c,x", "-f", "tsv")
    assert r.stdout.splitlines()[1:] == [
        "y\ttarget\t[]\t6.0\t",
        "c\tleaf\t[]\t3.0\t2.0",
        "x\tleaf\t[]\t2.0\t3.0",
    ]
    r = cli("grad", "-e", script, "--wrt", "nope")  # a name the script lacks: usage error
    assert r.exit_code == 2
    assert r.stderr == "error: <expr>: UsageError: --wrt nope: the script defines no name 'nope'\n"
    r = cli("grad", "-e", script, "--wrt", "y")  # defined, but not a leaf: usage error too
    assert r.exit_code == 2  # (issue 9: it was 1, unlike an unknown name)
    assert r.stderr == (
        "error: <expr>: UsageError: --wrt y: 'y' is not a leaf tensor (computed by "
        "MulBackward0); --wrt takes the script's leaves (here: x, c)\n"
    )


BACKWARD_TWICE = (
    "RuntimeError: Trying to backward through the graph a second time (or directly access "
    "saved tensors after they have already been freed). Saved intermediate values of the "
    "graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you "
    "need to access saved tensors after calling backward."
)


def test_repeat_with_retain_graph_accumulates():
    r = cli("grad", "-e", "x = 3.0\np = x * x", "--repeat", "3", "--retain-graph", "-f", "tsv")
    assert r.exit_code == 0
    assert r.stdout.splitlines()[2] == "x\tleaf\t[]\t3.0\t18.0"  # 3 x 6


def test_repeat_without_retain_graph_is_pytorchs_second_backward_error():
    r = cli("grad", "-e", "x = 3.0\np = x * x", "--repeat", "2")
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == (
        f"error: <expr>: {BACKWARD_TWICE}\n"  # PyTorch's words, and the option
        "note: --repeat 2 calls backward 2 times, and the first call freed the graph: "
        "add --retain-graph to keep it\n"
    )


def test_repeat_through_nodes_that_saved_nothing_needs_no_retain_graph():
    r = cli("grad", "-e", "x = 3.0\np = x + x", "--repeat", "2", "-f", "tsv")
    assert r.exit_code == 0
    assert r.stdout.splitlines()[2] == "x\tleaf\t[]\t3.0\t4.0"


def test_create_graph_gives_gradients_a_grad_fn():
    r = cli("grad", "-e", "x = 3.0\np = x ** 3", "--create-graph")
    assert r.exit_code == 0
    assert r.stdout == (
        "p = tensor(27., grad_fn=<PowBackward0>)\n"
        "name   value        requires_grad   grad\n"
        "────────────────────────────────────────────────────────────────────────\n"
        "x      tensor(3.)   True            tensor(27., grad_fn=<CopyBackwards>)\n"
    )
    assert r.stderr.startswith("warning: <expr>: UserWarning: Using backward() with create_graph=True")


def test_grad_tensors_as_literal_and_as_expression():
    script = "x = [1.0, 2.0]\np = x * x\n"
    lit = cli("grad", "-e", script, "--grad-tensors", "[1, 10]", "-f", "json")
    assert json.loads(lit.stdout)["leaves"]["x"]["grad"] == [2.0, 40.0]
    expr = cli("grad", "-e", script, "--grad-tensors", "ones_like(p)", "-f", "json")
    assert json.loads(expr.stdout)["leaves"]["x"]["grad"] == [2.0, 4.0]
    expr = cli("grad", "-e", script, "--grad-tensors", "3 * ones_like(p) - x", "-f", "json")
    assert json.loads(expr.stdout)["leaves"]["x"]["grad"] == [4.0, 4.0]


def test_non_scalar_target_without_grad_tensors_is_pytorchs_error():
    r = cli("grad", "-e", "x = [1.0, 2.0]\np = x * x")
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == "error: <expr>: RuntimeError: grad can be implicitly created only for scalar outputs\n"


def test_grad_tensors_of_the_wrong_shape_or_bad_syntax():
    r = cli("grad", "-e", "x = [1.0, 2.0]\np = x * x", "--grad-tensors", "[1, 2, 3]")
    assert r.exit_code == 1 and r.stderr.startswith("error: <expr>: RuntimeError: ")
    r = cli("grad", "-e", "x = [1.0, 2.0]\np = x * x", "--grad-tensors", "ones_like(")
    assert r.exit_code == 2 and r.stderr.startswith("error: <expr>: SyntaxError: --grad-tensors: ")
    r = cli("grad", "-e", "x = [1.0, 2.0]\np = x * x", "--grad-tensors", "ones_like(q)")
    assert r.exit_code == 1 and "NameError: --grad-tensors: name 'q' is not defined" in r.stderr


def test_script_that_calls_backward_itself_gets_no_extra_backward_unless_of():
    script = "x = 3.0\np = x * x\np.backward(retain_graph=True)\n"
    r = cli("grad", "-e", script, "-f", "tsv")
    assert r.exit_code == 0
    assert r.stdout.splitlines()[2] == "x\tleaf\t[]\t3.0\t6.0"
    assert r.stderr == (
        "note: the script calls backward()/grad() itself, so no backward was added "
        "(give --of NAME --retain-graph to add one)\n"
    )
    r = cli("grad", "-e", script, "--of", "p", "-f", "tsv")
    assert r.stdout.splitlines()[2] == "x\tleaf\t[]\t3.0\t12.0"  # accumulated
    assert r.stderr == ""


def test_script_prints_go_to_stderr_for_grad_graph_and_check():
    script = "x = 2.0\nprint('hello', x)\ny = x * x\n"
    for command in ("grad", "graph", "check"):
        r = cli(command, "-e", script, "-f", "json")
        assert r.stderr == "hello tensor(2., requires_grad=True)\n", command
        json.loads(r.stdout)  # stdout is the JSON document alone


def test_last_assigned_name_that_is_no_tensor():
    r = cli("grad", "-e", "x = 1.0\ny = x.item()")
    assert r.exit_code == 1
    assert r.stderr == (
        "error: <expr>: TypeError: the last assigned name 'y' is a float, not a tensor, "
        "so there is nothing to differentiate (give --of NAME)\n"
    )
    r = cli("grad", "-e", "x = 1.0\ny = x.item()", "--of", "y")
    assert r.stderr == "error: <expr>: TypeError: --of y: 'y' is a float, not a tensor\n"
    r = cli("grad", "-e", "")  # issue 9: an empty script is said to be empty
    assert r.stderr == "error: <expr>: ValueError: the script is empty: there is nothing to differentiate\n"
    r = cli("grad", "-e", "import torch\nprint(1)")  # statements, but no assignment
    assert r.stderr == (
        "1\nerror: <expr>: ValueError: the script assigns no name to differentiate (give --of NAME)\n"
    )


# --- graph --------------------------------------------------------------------------

GRAPH_TABLE = """\
id   name   node           inputs   shape   value
───────────────────────────────────────────────────
0    x      leaf                    []      2
1    c      constant                []      3
2    y      MulBackward0   0,1      []      6
3           SinBackward0   2        []      -0.2794
4    z      AddBackward0   3,0      []      1.7206
"""

GRAPH_TABLE_WIDE = """\
id   name   op         grad_fn        inputs   next_functions                 requires_grad   is_leaf   shape   value
───────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────
0    x      leaf       None                                                   True            True      []      tensor(2.)
1    c      constant   None                                                   False           True      []      tensor(3.)
2    y      mul        MulBackward0   0,1      AccumulateGrad, None           True            False     []      tensor(6.)
3           sin        SinBackward0   2        MulBackward0                   True            False     []      tensor(-0.2794)
4    z      add        AddBackward0   3,0      SinBackward0, AccumulateGrad   True            False     []      tensor(1.7206)
"""

GRAPH_DOT = """\
digraph G {
  rankdir=LR;
  node [fontname="monospace", fontsize=11];
  n0 [shape=ellipse, style=filled, fillcolor="#fff4c2", color="#a07800", label="x\\n= 2\\nshape []"];
  n1 [shape=ellipse, style="filled,dashed", fillcolor="#eeeeee", color="#8a8a8a", fontcolor="#555555", \
label="c\\n= 3\\nshape []"];
  n2 [shape=box, style="filled,rounded", fillcolor="#dce9fb", color="#2f5f9e", label="MulBackward0\\n#2"];
  v2 [shape=ellipse, style=filled, fillcolor="#fff4c2", color="#a07800", label="y\\n= 6\\nshape []"];
  n3 [shape=box, style="filled,rounded", fillcolor="#dce9fb", color="#2f5f9e", label="SinBackward0\\n#3\\n= -0.2794"];
  n4 [shape=box, style="filled,rounded", fillcolor="#dce9fb", color="#2f5f9e", label="AddBackward0\\n#4"];
  v4 [shape=ellipse, style=filled, fillcolor="#fff4c2", color="#a07800", label="z\\n= 1.7206\\nshape []"];
  n0 -> n2;
  n1 -> n2;
  n2 -> v2;
  v2 -> n3;
  n3 -> n4;
  n0 -> n4;
  n4 -> v4;
}
"""

GRAPH_MERMAID = """\
flowchart LR
  n0(["x<br/>= 2<br/>shape []"])
  n1(["c<br/>= 3<br/>shape []"])
  n2["MulBackward0<br/>#2"]
  v2(["y<br/>= 6<br/>shape []"])
  n3["SinBackward0<br/>#3<br/>= -0.2794"]
  n4["AddBackward0<br/>#4"]
  v4(["z<br/>= 1.7206<br/>shape []"])
  n0 --> n2
  n1 --> n2
  n2 --> v2
  v2 --> n3
  n3 --> n4
  n0 --> n4
  n4 --> v4
  classDef const fill:#eeeeee,stroke:#8a8a8a,stroke-dasharray:5 3,color:#555555
  class n1 const
"""

GRAPH_TREE = """\
AddBackward0 (z)
  SinBackward0
    MulBackward0 (y)
      AccumulateGrad (x)
      constant (c)
  AccumulateGrad (x)
"""


@pytest.mark.parametrize(
    "fmt, expected",
    [("table", GRAPH_TABLE), ("dot", GRAPH_DOT), ("mermaid", GRAPH_MERMAID), ("tree", GRAPH_TREE)],
)
def test_graph_formats(fmt, expected):
    r = cli("graph", "-e", GRAPH_SCRIPT, "--format", fmt)
    assert (r.exit_code, r.stdout, r.stderr) == (0, expected, "")


def test_graph_table_is_the_default_and_backward_adds_grads():
    assert cli("graph", "-e", GRAPH_SCRIPT).stdout == GRAPH_TABLE
    assert cli("graph", "-e", GRAPH_SCRIPT, "--wide").stdout == GRAPH_TABLE_WIDE
    r = cli("graph", "-e", GRAPH_SCRIPT, "--backward", "--wide")
    lines = r.stdout.splitlines()
    assert lines[0].split() == [
        "id",
        "name",
        "op",
        "grad_fn",
        "inputs",
        "next_functions",
        "requires_grad",
        "is_leaf",
        "shape",
        "value",
        "grad",
    ]
    assert lines[2].split()[-2:] == ["tensor(2.)", "tensor(3.8805)"]  # 3 + cos(6)
    assert lines[3].split()[-1] == "None"  # the constant


def test_graph_of_the_card_as_a_tree():
    r = cli("graph", *CARD, "--format", "tree")
    assert (
        r.stdout
        == """\
SinBackward0 (p)
  SubBackward0
    DivBackward0
      SubBackward0
        MulBackward0
          PowBackward0
            MulBackward0 (y)
              AddBackward0 (x)
                AccumulateGrad (a)
                AccumulateGrad (b)
              AccumulateGrad (w)
"""
    )


def test_graph_of_restricts_to_one_tensors_graph():
    r = cli("graph", "-e", GRAPH_SCRIPT, "--of", "y", "-f", "tree")
    assert r.stdout == "MulBackward0 (y)\n  AccumulateGrad (x)\n  constant (c)\n"


# --- run ----------------------------------------------------------------------------


def test_run_shows_print_output_exactly():
    r = cli("run", "-e", "x = 2.0\ny = x**3\ny.backward()\nprint(x.grad)")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "tensor(12.)\n", "")
    r = cli("run", "samples/retain_grad.txt")
    assert r.stdout == "tensor([ 6., 12.])\ntensor([18., 36.])\n"


def test_run_print_formats_like_pytorch_without_addresses():
    r = cli(
        "run", "-e", "x = 1.0\ny = x * 2\nprint(y.grad_fn, y.grad_fn.next_functions, None, True, 'a', 2.5)"
    )
    assert r.stdout == "<MulBackward0 object> ((<AccumulateGrad object>, 0), (None, 0)) None True a 2.5\n"
    r = cli("run", "-e", "print(print, sin, torch.Size, torch, str(2), [1, 'a'], (1,), sep='|', end='!')")
    assert r.stdout == (
        "<built-in function print>|<built-in function sin>|<class 'torch.Size'>|"
        "<module 'torch'>|2|[1, 'a']|(1,)!"
    )


def test_run_flushes_prints_before_a_failure():
    r = cli("run", "-e", "print('before')\nx = 1.0\nx.add_(1)\nprint('after')")
    assert (r.exit_code, r.stdout) == (1, "before\n")
    assert r.stderr.startswith("error: <expr>:3:1: RuntimeError: a leaf Variable that requires grad")
    p = subprocess_cli("run", "-e", "print('before')\ny = q")
    assert (p.returncode, p.stdout) == (1, "before\n")
    assert p.stderr.startswith("error: <expr>:2:5: NameError: name 'q' is not defined")


def test_run_reads_stdin_with_dash():
    r = cli("run", "-", input="x = 2.0\nprint(x * 3)\n")
    assert (r.exit_code, r.stdout) == (0, "tensor(6., grad_fn=<MulBackward0>)\n")
    p = subprocess_cli("run", "-", input="print(1 + 1)\n")
    assert (p.returncode, p.stdout, p.stderr) == (0, "2\n", "")
    p = subprocess_cli(
        "grad",
        "-",
        "-f",
        "json",
        input=Path(ROOT / "samples/card.txt").read_text() + "\n",
        env={"NO_COLOR": "1"},
    )
    assert p.returncode == 1 and "--set a=VALUE" in p.stderr
    p = subprocess_cli(
        "grad",
        "-",
        "--set",
        "a=1",
        "--set",
        "b=2",
        "--set",
        "w=0.5",
        "-f",
        "json",
        input=(ROOT / "samples/card.txt").read_text(),
    )
    assert p.returncode == 0 and json.loads(p.stdout)["leaves"]["w"]["grad"] == 2.2484181541355968


def test_stdin_errors_name_stdin():
    r = cli("run", "-", input="x = (\n")
    assert r.exit_code == 2 and r.stderr.startswith("error: <stdin>:1:")


def test_script_and_expr_together_or_neither_are_usage_errors():
    r = cli("run", "samples/card.txt", "-e", "x = 1")
    assert (r.exit_code, r.stderr) == (2, "error: UsageError: give either SCRIPT or -e/--expr, not both\n")
    r = cli("run")
    assert (r.exit_code, r.stderr) == (
        2,
        "error: UsageError: missing SCRIPT (a file, '-' for standard input, or -e TEXT)\n",
    )


def test_every_command_runs_every_flavour_of_input(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("x = 2.0\ny = x * x\n")
    for command in COMMANDS:
        for args, stdin in (
            ([str(f)], None),
            (["-"], "x = 2.0\ny = x * x\n"),
            (["-e", "x = 2.0\ny = x * x"], None),
        ):
            r = cli(command, *args, input=stdin)
            assert r.exit_code == 0, (command, args, r.stderr)


# --- check --------------------------------------------------------------------------

CHECK_CARD = """\
finite-difference check of p
leaf   order   worst   analytic   numeric    abs error   rel error   tolerance   fd error    result
───────────────────────────────────────────────────────────────────────────────────────────────────
a      1       a       0.374736   0.374736   5.927e-11   1.582e-10   4.747e-05   1.989e-11   ok
b      1       b       0.374736   0.374736   3.847e-11   1.027e-10   4.747e-05   1.874e-11   ok
w      1       w       2.24842    2.24842    2.251e-11   1.001e-11   2.348e-04   1.757e-11   ok
order 1: float64: eps 1e-06, atol 1e-05, rtol 0.0001
"""


def test_check_of_the_card():
    r = cli("check", *CARD)
    assert (r.exit_code, r.stdout, r.stderr) == (0, CHECK_CARD, "")


def test_check_order_2_adds_second_derivative_rows():
    r = cli("check", *CARD, "--order", "2")
    assert r.exit_code == 0
    rows = [line.split() for line in r.stdout.splitlines()[3:9]]
    assert [(row[0], row[1], row[-1]) for row in rows] == [
        ("a", "1", "ok"),
        ("b", "1", "ok"),
        ("w", "1", "ok"),
        ("a", "2", "ok"),
        ("b", "2", "ok"),
        ("w", "2", "ok"),
    ]
    doc = json.loads(
        cli("check", "-e", "x = [1.0, 2.0]\ny = (x**3).sum()", "--order", "2", "-f", "json").stdout
    )
    hessian = doc["leaves"][1]
    assert (hessian["order"], hessian["analytic"]) == (2, [[6.0, 0.0], [0.0, 12.0]])


def test_check_at_a_kink_reports_kink_and_exits_0():
    # relu'(0) is 0 in PyTorch; the central difference is 0.5, the one-sided ones 0 and 1
    r = cli("check", "-e", "x = 0.0\ny = relu(x)")
    assert (r.exit_code, r.stderr) == (0, "")
    assert (
        r.stdout
        == """\
finite-difference check of y
leaf   order   worst   analytic   numeric   abs error   rel error   tolerance   fd error    result
──────────────────────────────────────────────────────────────────────────────────────────────────
x      1       x       0          0.5       5.000e-01   1.000e+00   6.000e-05   2.220e-16   kink
order 1: float64: eps 1e-06, atol 1e-05, rtol 0.0001
note: x (order 1): x: analytic 0.0, numeric 0.5: kink: one-sided differences 0 (left) and 1 (right); the \
analytic value lies between them
"""
    )
    r = cli("check", "-e", "x = 1.0\ny = floor(x)", "-f", "json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["ok"] is True and doc["leaves"][0]["result"] == "kink"
    assert (doc["leaves"][0]["analytic"], doc["leaves"][0]["numeric"]) == (0.0, 500000.00001337775)


def test_check_tolerances():
    assert cli("check", *CARD, "--atol", "0", "--rtol", "0").exit_code == 1
    assert cli("check", *CARD, "--atol", "1e-9", "--rtol", "0").exit_code == 0
    assert cli("check", "-e", "x = 1.0\ny = exp(x)", "--eps", "0.1").exit_code == 1
    assert cli("check", "-e", "x = 1.0\ny = exp(x)", "--eps", "0.1", "--atol", "0.01").exit_code == 0


def test_check_of_and_wrt():
    script = "a = 1.0\nb = 2.0\ny = a * b\nz = y * y\n"
    doc = json.loads(cli("check", "-e", script, "--of", "y", "--wrt", "b", "-f", "json").stdout)
    assert doc["target"] == "y"
    assert [(r["name"], r["analytic"]) for r in doc["leaves"]] == [("b", 1.0)]


def test_check_works_on_scripts_that_call_backward_themselves():
    r = cli("check", "samples/retain_graph_accumulate.txt")
    assert r.exit_code == 0
    assert r.stderr == "tensor(2.0707) tensor(1.5000)\ntensor(4.1415) tensor(3.)\n"
    assert [line.split()[0] for line in r.stdout.splitlines()[3:5]] == ["a", "b"]


def test_check_of_a_tensor_without_grad():
    r = cli("check", "-e", "x = tensor(1.0)\ny = x * 2")
    assert r.exit_code == 1
    assert r.stderr == (
        "error: <expr>: ValueError: 'y' does not require grad, so it has no gradient "
        "to check (give --of NAME)\n"
    )


def test_check_of_a_leaf_bound_to_two_names_or_rebound():
    assert cli("check", "-e", "a = 1.5\nb = 2.0\ny = a").exit_code == 0
    assert cli("check", "-e", "x = 1.0\nx = 2.0\ny = x ** 3").exit_code == 0


# --- stdout purity, colour ------------------------------------------------------------


@pytest.mark.parametrize(
    "command, fmt",
    [("grad", "json"), ("grad", "tsv"), ("graph", "json"), ("graph", "dot"), ("check", "json")],
)
def test_stdout_holds_only_the_requested_output(command, fmt):
    script = "x = 2.0\nprint('noise')\ny = x * x\ny.grad\n"  # a print and a warning
    r = cli(command, "-e", script, "-f", fmt)
    assert r.exit_code == 0
    assert "noise" not in r.stdout and "warning" not in r.stdout
    assert r.stderr.startswith("noise\n")
    if fmt == "json":
        json.loads(r.stdout)
        warning = json.loads(r.stderr.splitlines()[1])["warning"]
        assert (warning["type"], warning["line"]) == ("UserWarning", 4)
    else:
        assert r.stderr.splitlines()[1].startswith("warning: <expr>:4: UserWarning: The .grad attribute")


def _run_in_terminal(args, env):
    """Run diffcli with stdout on a pseudo-terminal (where colour would be used)."""
    import pty

    master, slave = pty.openpty()
    p = subprocess.Popen(
        [sys.executable, "-m", "diffcli", *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=60)
    os.close(master)
    return p.returncode, out.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_no_color_is_honoured_on_a_terminal():
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["TERM"] = "xterm-256color"
    code, coloured = _run_in_terminal(["grad", *CARD], env)
    assert code == 0 and "\x1b[" in coloured  # a terminal gets colour...
    code, plain = _run_in_terminal(["grad", *CARD], dict(env, NO_COLOR="1"))
    assert code == 0 and "\x1b[" not in plain  # ...unless NO_COLOR is set
    assert plain.replace("\r\n", "\n") == CARD_TABLE
    code, helptext = _run_in_terminal(["grad", "--help"], dict(env, NO_COLOR="1"))
    assert code == 0 and "\x1b[" not in helptext


def test_no_ansi_escapes_when_piped():
    for args in (["grad", *CARD], ["graph", *CARD], ["check", *CARD], ["grad", "--help"]):
        p = subprocess_cli(*args)
        assert p.returncode == 0 and "\x1b[" not in p.stdout + p.stderr


def test_installed_script_entry_point():
    exe = shutil.which("diffcli")
    if exe is None:
        pytest.skip("the diffcli script is not on PATH")
    p = subprocess.run(
        [exe, "grad", *CARD],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=dict(os.environ, NO_COLOR="1"),
    )
    assert (p.returncode, p.stdout, p.stderr) == (0, CARD_TABLE, "")


# --- issue 9, finding 11: papercuts ------------------------------------------------------------------


def test_the_suggested_of_retain_graph_works_after_the_scripts_own_backward():
    script = "x = 3.0\np = x * x\np.backward()\n"
    r = cli("grad", "-e", script, "-f", "tsv")
    assert r.stderr == (
        "note: the script calls backward()/grad() itself, so no backward was added "
        "(give --of NAME --retain-graph to add one)\n"
    )
    r = cli("grad", "-e", script, "--of", "p", "--retain-graph", "-f", "tsv")  # what the note says
    assert (r.exit_code, r.stdout.splitlines()[2], r.stderr) == (0, "x\tleaf\t[]\t3.0\t12.0", "")
    r = cli("grad", "-e", script, "--of", "p")
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == (
        f"error: <expr>: {BACKWARD_TWICE}\n"
        "note: the script's own backward()/grad() freed the graph before the backward "
        "added for --of p: add --retain-graph to keep it\n"
    )


def test_an_error_from_grad_tensors_keeps_pytorchs_words_and_names_the_option():
    r = cli("grad", "-e", "x = [1.0, 2.0]\np = x * x", "--grad-tensors", "[1, 2, 3]")
    assert r.stderr == (
        "error: <expr>: RuntimeError: Mismatch in shape: grad_output[0] has a shape of "
        "torch.Size([3]) and output[0] has a shape of torch.Size([2]).\n"
        "note: the gradient is the value of --grad-tensors [1, 2, 3]\n"
    )
    r = cli("grad", "-e", "x = [1.0, 2.0]\np = x * x", "--grad-tensors", "[1, 2, 3]", "-f", "json")
    assert json.loads(r.stderr)["error"]["note"] == "the gradient is the value of --grad-tensors [1, 2, 3]"


def test_a_misspelt_command_is_suggested_once():
    r = cli("grda")
    assert (r.exit_code, r.stderr) == (
        2,
        "error: UsageError: No such command 'grda'. (Did you mean one of: "
        "'grad', 'graph'?)\nTry 'diffcli --help' for help.\n",
    )


def test_an_unused_set_warns_and_a_second_expr_is_an_error():
    r = cli("grad", "-e", "x = 1.0\ny = x * x", "--set", "zz=3", "-f", "tsv")
    assert (r.exit_code, r.stderr) == (
        0,
        "warning: <expr>: UsageWarning: --set zz: not used: the script never uses that name\n",
    )
    r = cli("run", "-e", "x = sin(1.0)", "--set", "x=3")
    assert r.stderr == (
        "warning: <expr>: UsageWarning: --set x: not used: the script assigns it a "
        "computed value, not a literal\n"
    )
    r = cli("run", "-e", "x = 1.0\nprint(x * q)", "--set", "q=2", "--set", "x=5")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "tensor(10., grad_fn=<MulBackward0>)\n", "")
    for args in (["-e", "print(1)", "-e", "print(2)"], ["--expr=print(1)", "--expr", "print(2)"]):
        r = cli("run", *args)
        assert (r.exit_code, r.stdout, r.stderr) == (
            2,
            "",
            "error: UsageError: -e/--expr given 2 times: give the script once (separate its "
            "statements with ';' or newlines)\n",
        )


def test_wrt_of_an_unknown_name_and_of_a_non_leaf_are_both_usage_errors():
    script = "x = 1.0\ny = x * x\n"
    for command in ("grad", "check"):
        r = cli(command, "-e", script, "--wrt", "zz")
        assert (r.exit_code, r.stderr) == (
            2,
            "error: <expr>: UsageError: --wrt zz: the script defines no name 'zz'\n",
        ), command
        r = cli(command, "-e", script, "--wrt", "y")
        assert (r.exit_code, r.stderr) == (
            2,
            "error: <expr>: UsageError: --wrt y: 'y' is not a leaf "
            "tensor (computed by MulBackward0); --wrt takes the "
            "script's leaves (here: x)\n",
        ), command


@pytest.mark.parametrize(
    "command, why",
    [
        ("grad", "there is nothing to differentiate"),
        ("graph", "there is no graph to show"),
        ("check", "there is nothing to check"),
    ],
)
def test_an_empty_script_is_said_to_be_empty(tmp_path, command, why):
    for text in ("", "\n\n", "# only a comment\n   \n"):
        f = tmp_path / "empty.txt"
        f.write_text(text)
        r = cli(command, str(f))
        assert (r.exit_code, r.stdout, r.stderr) == (
            1,
            "",
            f"error: {f}: ValueError: the script is empty: {why}\n",
        )
    assert cli("run", str(f)).exit_code == 0  # running nothing is fine, as for python


def test_a_graph_of_constants_only_lists_them_and_says_so():
    # issue 13: every named value is in the graph, a script of constants only too
    r = cli("graph", "-e", "a = tensor(2.0)\nb = a * 3")
    assert (r.exit_code, r.stderr) == (0, "note: no tensor requires grad: the graph has constants only\n")
    assert [line.split()[:3] for line in r.stdout.splitlines()[2:]] == [
        ["0", "a", "constant"],
        ["1", "b", "constant"],
    ]
    r = cli("graph", "-e", "a = tensor(2.0)\nb = a * 3", "-f", "json")
    assert [(n["name"], n["op"], n["value"]) for n in json.loads(r.stdout)["nodes"]] == [
        ("a", "constant", 2.0),
        ("b", "constant", 6.0),
    ]
    r = cli("graph", "-e", "import torch\nk = 3")
    assert (r.exit_code, r.stdout, r.stderr) == (
        0,
        "",
        "note: the graph is empty: the script makes no tensor\n",
    )


def test_tsv_writes_non_finite_numbers_bare():
    r = cli("grad", "-e", "x = [1.0, 2.0]\ny = log(x - 1.0).sum()", "-f", "tsv")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[1:] == ["y\ttarget\t[]\t-inf\t", "x\tleaf\t[2]\t[1.0, 2.0]\t[inf, 1.0]"]
    r = cli("grad", "-e", "x = [1.0, 0.5]\ny = log(x - 1.0).sum()", "-f", "tsv")
    assert r.stdout.splitlines()[1:] == ["y\ttarget\t[]\tnan\t", "x\tleaf\t[2]\t[1.0, 0.5]\t[inf, -2.0]"]
