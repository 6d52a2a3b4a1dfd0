"""Errors (SPEC §3): `error: FILE:LINE:COL: TYPE: MESSAGE`, the source line and a caret,
exit codes 0/1/2, `warning:` lines, never a Python traceback."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .samples import cli

ROOT = Path(__file__).resolve().parents[2]
GRAD_NON_LEAF_WARNING = (
    "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
    ".grad attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)


def script_file(tmp_path, text, name="demo.txt"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- the error line, the source line, the caret -----------------------------------------


def test_free_variable_error_says_how_to_give_it(tmp_path):
    f = script_file(tmp_path, "x = 1.0\nw = 2.0\ny = x * q\n")
    r = cli("grad", f)
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == (
        f"error: {f}:3:9: NameError: name 'q' is not defined (a free variable: give it "
        "a value with --set q=VALUE, or see its formulas with --symbolic)\n"
        "    y = x * q\n"
        "            ^\n"
    )
    assert cli("grad", f, "--set", "q=2").exit_code == 0


def test_calling_an_unknown_function_is_not_a_free_variable():
    r = cli("run", "-e", "y = open('x')")
    assert r.stderr == (
        "error: <expr>:1:5: NameError: name 'open' is not defined (diffcli scripts have "
        "no such function)\n    y = open('x')\n        ^\n"
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "x = 1.0\ny = (x +\n",
            "error: F:2:5: SyntaxError: unexpected end of input — a '(' is not closed\n    y = (x +\n        ^\n",
        ),
        (
            "x = 1.0\ny = x ** * 2\n",
            "error: F:2:10: SyntaxError: unexpected '*' — expected an expression\n    y = x ** * 2\n             ^\n",
        ),
        (
            "x = 1.0\nif x:\ny = 2\n",
            "error: F:3:1: IndentationError: expected an indented block after 'if' statement on line 2\n"
            "    y = 2\n    ^\n",
        ),
        ("x = 1.0\n\ty = 2\n", "error: F:2:2: IndentationError: unexpected indent\n     y = 2\n     ^\n"),
        (
            "f = yield x\n",
            "error: F:1:5: SyntaxError: 'yield' is not supported in diffcli scripts\n    f = yield x\n        ^\n",
        ),
    ],
)
def test_syntax_errors_exit_2_with_caret(tmp_path, text, expected):
    f = script_file(tmp_path, text)
    for command in ("run", "grad", "graph", "check"):
        r = cli(command, f)
        assert (r.exit_code, r.stdout, r.stderr) == (2, "", expected.replace("F:", f"{f}:")), command


def test_engine_errors_exit_1_with_pytorchs_type_and_message(tmp_path):
    f = script_file(tmp_path, "a = ones(2, 3, requires_grad=True)\nb = ones(4, 5)\nc = a @ b\n")
    r = cli("run", f)
    assert (r.exit_code, r.stderr) == (
        1,
        f"error: {f}:3:5: RuntimeError: mat1 and mat2 shapes cannot be "
        "multiplied (2x3 and 4x5)\n    c = a @ b\n        ^\n",
    )
    r = cli("run", "samples/inplace_leaf_error.txt")
    assert r.exit_code == 1
    assert r.stderr == (
        "error: samples/inplace_leaf_error.txt:4:1: RuntimeError: a leaf Variable that "
        "requires grad is being used in an in-place operation.\n    x.add_(1)\n    ^\n"
    )
    r = cli("run", "-e", "x = 1.0\ny = x * x\ny.backward()\ny.backward()")
    assert r.exit_code == 1
    assert r.stderr.startswith(
        "error: <expr>:4:1: RuntimeError: Trying to backward through the graph a second time"
    )
    assert r.stderr.endswith("\n    y.backward()\n    ^\n")


def test_python_level_errors_keep_pythons_type():
    r = cli("run", "-e", "x = [1, 2][5]")
    assert (
        r.stderr == "error: <expr>:1:5: IndexError: list index out of range\n    x = [1, 2][5]\n        ^\n"
    )
    r = cli("run", "-e", "y = 1 / 0")
    assert r.stderr == "error: <expr>:1:5: ZeroDivisionError: division by zero\n    y = 1 / 0\n        ^\n"
    r = cli("run", "-e", "print(sin(1, 2, 3))")
    assert r.stderr.startswith(
        "error: <expr>:1:7: TypeError: sin() takes 1 positional argument but 3 were given"
    )
    r = cli("run", "-e", "range(3, foo=2)")
    assert r.stderr.startswith(
        "error: <expr>:1:1: TypeError: range() got an unexpected keyword argument 'foo'"
    )


def test_errors_in_a_function_point_into_the_function():
    r = cli("run", "-e", "def f(x):\n    return x * q\ny = f(2.0)")
    assert r.exit_code == 1
    assert r.stderr.startswith("error: <expr>:2:16: NameError: name 'q' is not defined")


def test_errors_in_the_backward_grad_adds_have_no_line():
    r = cli("grad", "-e", "x = [1.0, 2.0]\ny = x * x")
    assert r.stderr == "error: <expr>: RuntimeError: grad can be implicitly created only for scalar outputs\n"


def test_control_characters_in_the_shown_line_keep_the_caret_aligned():
    r = cli("run", "-e", "x = 1\x01 + 2")
    assert r.exit_code == 2
    assert r.stderr == (
        "error: <expr>:1:6: SyntaxError: invalid non-printable character U+0001\n    x = 1? + 2\n         ^\n"
    )


def test_script_errors_are_not_caught_across_limits():
    r = cli("run", "-e", "try:\n    y = q\nexcept NameError as e:\n    print('caught:', e)")
    assert (r.exit_code, r.stdout) == (
        0,
        "caught: name 'q' is not defined (a free variable: give it a "
        "value with --set q=VALUE, or see its formulas with --symbolic)\n",
    )


# --- exit codes for the command line and files ---------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["grad", "-e", "x = 1.0", "--repeat", "0"],
            "error: UsageError: Invalid value for '--repeat': 0 is not in the range 1<=x<=1000.\n"
            "Try 'diffcli grad --help' for help.\n",
        ),
        (
            ["grad", "-e", "x = 1.0", "--format", "xml"],
            "error: UsageError: Invalid value for '--format' / '-f': 'xml' is not one of 'table', 'json', 'jsonl', "
            "'tsv', 'latex'.\n"
            "Try 'diffcli grad --help' for help.\n",
        ),
        (
            ["graph", "-e", "x = 1.0", "-f", "tsv"],
            "error: UsageError: Invalid value for '--format' / '-f': 'tsv' is not one of 'table', 'json', 'jsonl', 'dot', "
            "'mermaid', 'tree', 'svg', 'png', 'html'.\nTry 'diffcli graph --help' for help.\n",
        ),
        (
            ["grad", "-e", "x = 1.0", "--set", "a=foo"],
            "error: UsageError: --set a: expected a number or a list literal such as 2.5 or [1, 2], got 'foo'\n",
        ),
        (["grad", "-e", "x = 1.0", "--set", "=1"], "error: UsageError: --set '=1': '' is not a valid name\n"),
        (["grad", "-e", "x = 1.0", "--set", "a"], "error: UsageError: --set 'a': expected NAME=VALUE\n"),
        (["grad", "-e", "x = 1.0", "--set", "a=[1, [2]]"], "error: UsageError: --set a: "),
        (
            ["grad", "-e", "x = 1.0", "--set", "a=__import__('os')"],
            "error: UsageError: --set a: expected a number or a list literal such as 2.5 or [1, 2], got "
            "\"__import__('os')\"\n",
        ),
        (
            ["run", "-e", "x = 1.0", "--max-depth", "0"],
            "error: UsageError: --max-depth must be at least 1, got 0\n",
        ),
        (
            ["run", "-e", "x = 1.0", "--max-elements", "-1"],
            "error: UsageError: --max-elements must be at least 1, got -1\n",
        ),
        (
            ["check", "-e", "x = 1.0\ny = x", "--eps", "-1"],
            "error: UsageError: --eps must be a finite number greater than 0, got -1.0\n",
        ),
        (
            ["check", "-e", "x = 1.0\ny = x", "--atol", "nan"],
            "error: UsageError: --atol must be a finite number of at least 0, got nan\n",
        ),
        (
            ["check", "-e", "x = 1.0\ny = x", "--order", "3"],
            "error: UsageError: Invalid value for '--order': 3 is not in the range 1<=x<=2.\n"
            "Try 'diffcli check --help' for help.\n",
        ),
        (
            ["run", "-e", "x = 1.0", "--bogus"],
            "error: UsageError: No such option '--bogus'.\nTry 'diffcli run --help' for help.\n",
        ),
        (
            ["frobnicate"],
            "error: UsageError: No such command 'frobnicate'.\nTry 'diffcli --help' for help.\n",
        ),
        (
            ["run", "-e"],
            "error: UsageError: Option '-e' requires an argument.\nTry 'diffcli run --help' for help.\n",
        ),
    ],
)
def test_bad_command_lines_exit_2(args, message):
    r = cli(*args)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == message if message.endswith("\n") else r.stderr.startswith(message)


def test_missing_file_directory_and_binary_file_exit_2(tmp_path):
    r = cli("run", str(tmp_path / "nope.txt"))
    assert (r.exit_code, r.stderr) == (2, f"error: FileError: {tmp_path / 'nope.txt'}: no such file\n")
    r = cli("grad", str(tmp_path))
    assert (r.exit_code, r.stderr) == (2, f"error: FileError: {tmp_path}: is a directory\n")
    binary = tmp_path / "b.bin"
    binary.write_bytes(b"x = 1\n\x89PNG\r\n\x1a\n\xff\xfe")
    r = cli("graph", str(binary))
    assert (r.exit_code, r.stderr) == (
        2,
        f"error: FileError: {binary}:2: not UTF-8 text (byte 0x89 at offset 6); is it a binary file?\n",
    )
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"x = 1.0\ny = x\x00\n")
    r = cli("check", str(nul))
    assert (r.exit_code, r.stderr) == (
        2,
        f"error: FileError: {nul}:2: contains a NUL byte; is it a binary file?\n",
    )
    r = cli("run", "-", input=b"\xff\xfe\x00")
    assert (r.exit_code, r.stderr) == (
        2,
        "error: FileError: <stdin>:1: contains a NUL byte; is it a binary file?\n",
    )


def test_unreadable_file_exits_2(tmp_path):
    f = tmp_path / "secret.txt"
    f.write_text("print(1)\n")
    f.chmod(0)
    try:
        readable = os.access(f, os.R_OK)  # root reads anything
        r = cli("run", str(f))
        if readable:
            assert (r.exit_code, r.stdout) == (0, "1\n")
        else:
            assert (r.exit_code, r.stderr) == (2, f"error: FileError: {f}: permission denied\n")
    finally:
        f.chmod(0o644)


def test_empty_file_and_bom(tmp_path):
    empty = script_file(tmp_path, "", "empty.txt")
    assert cli("run", empty).exit_code == 0
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfprint(2)\n")
    assert cli("run", str(bom)).stdout == "2\n"


def test_check_mismatch_exits_1_and_says_so_on_stderr():
    r = cli("check", "-e", "x = 0.3\ny = x * x * x", "--atol", "1e-14", "--rtol", "0")  # below what the
    assert r.exit_code == 1 and "MISMATCH" in r.stdout  # differences can tell
    assert r.stderr == (
        "error: <expr>: GradcheckError: analytic and finite-difference gradients of 'y' "
        "differ for x (order 1)\n"
    )


# --- warnings ---------------------------------------------------------------------------------


def test_warnings_are_warning_lines_once_per_source_line():
    r = cli("run", "-e", "x = 1.0\nfor i in range(3):\n    y = x * 2\n    g = y.grad\nh = y.grad")
    assert r.exit_code == 0 and r.stdout == ""
    assert r.stderr == (
        f"warning: <expr>:4: {GRAD_NON_LEAF_WARNING}\nwarning: <expr>:5: {GRAD_NON_LEAF_WARNING}\n"
    )


def test_warnings_are_shown_again_on_each_command():
    for _ in range(2):
        r = cli("run", "-e", "x = 1.0\nf = float(x)")
        assert r.stderr.startswith(
            "warning: <expr>:2: UserWarning: Converting a tensor with "
            "requires_grad=True to a scalar may lead to unexpected behavior."
        )


# --- end to end: real processes, no traceback ------------------------------------------------------


@pytest.mark.parametrize(
    "args, stdin, code",
    [
        (["run", "-e", "x = (1"], None, 2),
        (["run", "-e", "y = q"], None, 1),
        (["grad", "-"], "x = 1.0\nx.add_(1)\n", 1),
        (["grad", "/no/such/file"], None, 2),
        (["graph", "/"], None, 2),
        (["check", "-e", "x = 0.3\ny = x * x * x", "--atol", "1e-14", "--rtol", "0"], None, 1),
        (["grad", "-e", "x = 1.0", "--format", "xml"], None, 2),
        (["run", "-e", "x = zeros(10**9)"], None, 1),
        (["run", "-e", "def f(n):\n    return f(n)\nf(1)", "--max-depth", "100000"], None, 1),
        (["run", "-e", "x = 1.0\ny = x * 2\nprint(y)"], None, 0),
    ],
)
def test_real_process_exit_codes_and_no_traceback(args, stdin, code):
    p = subprocess.run(
        [sys.executable, "-m", "diffcli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert p.returncode == code, p.stderr
    assert (
        "Traceback" not in p.stderr and "InternalError" not in p.stderr and "internal error" not in p.stderr
    )
    if code:
        assert p.stderr.startswith("error: ") or "\nerror: " in p.stderr


def test_a_closed_pipe_ends_quietly():
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "diffcli",
            "run",
            "-e",
            "for i in range(1000000):\n    print(i)",
            "--max-statements",
            "10000000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert p.stdout.readline() == b"0\n"
    p.stdout.close()  # like `| head -1`
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 1
    assert err == ""


def test_an_error_without_a_message_is_its_type_alone(tmp_path):
    """As Python prints `AssertionError` for a bare failed assert (no ': ')."""
    f = script_file(tmp_path, "import torch\nassert 1 > 2\n")
    r = cli("run", f)
    assert (r.exit_code, r.stderr) == (1, f"error: {f}:2:8: AssertionError\n    assert 1 > 2\n           ^\n")


# --- issue 9, finding 10: what a script sees never names diffcli's insides ----------------------

INTERNAL = re.compile(
    r"\barray\b|ndarray|numpy|ufunc|dtype\('|\bnp\.|Interpreter|<locals>|0x[0-9a-f]{4,}"
    r"|InternalError|<function "
)


@pytest.mark.parametrize(
    "expr, expected",
    [
        # Python's and PyTorch's reprs, without the address torch prints (`... object at 0x7f...>`)
        ('f"{print!r}"', "<built-in function print>"),
        ('f"{print}"', "<built-in function print>"),
        ('"{}".format(x.cpu)', "<built-in method cpu of Tensor object>"),
        ('"{!r}".format(x.add)', "<built-in method add of Tensor object>"),
        ('f"{x.backward!r}"', "<built-in method backward of Tensor object>"),
        (
            'f"{xs.append!r} {xs.pop!r}"',
            "<built-in method append of list object> <built-in method pop of list object>",
        ),
        ('f"{[print, len]}"', "[<built-in function print>, <built-in function len>]"),
        ('f"{torch.float32} {x.shape!r} {x.device}"', "torch.float32 torch.Size([2]) cpu"),
        ('f"{2.5:.3f}|{7:>3}|{x[0]:.2f}"', "2.500|  7|1.00"),
    ],
)
def test_formatting_shows_pythons_and_pytorchs_reprs_without_addresses(expr, expected):
    r = cli("run", "-e", f"x = ones(2)\nxs = []\nprint({expr})")
    assert (r.exit_code, r.stdout, r.stderr) == (0, expected + "\n", "")


def test_a_format_spec_on_a_function_is_pythons_error():
    r = cli("run", "-e", 'print(f"{print:>10}")')
    assert r.stderr.splitlines()[0] == (
        "error: <expr>:1:7: TypeError: unsupported format string passed "
        "to builtin_function_or_method.__format__"
    )


POW_OVERLOADS = (
    " * (Tensor input, Tensor exponent, *, Tensor out = None)\n"
    " * (Number self, Tensor exponent, *, Tensor out = None)\n"
    " * (Tensor input, Number exponent, *, Tensor out = None)"
)


# Recorded by running torch 2.13 (`torch.ones_like(1.0)`, ... with x = torch.ones(2)); PyTorch ends
# its "invalid combination" texts with a newline, which diffcli leaves out before the source line.
@pytest.mark.parametrize(
    "expr, message",
    [
        ("ones_like(1.0)", "ones_like(): argument 'input' (position 1) must be Tensor, not float"),
        ("zeros_like(2)", "zeros_like(): argument 'input' (position 1) must be Tensor, not int"),
        ("ones_like(None)", "ones_like(): argument 'input' (position 1) must be Tensor, not NoneType"),
        ("ones_like([1.0, 2.0])", "ones_like(): argument 'input' (position 1) must be Tensor, not list"),
        ("rand_like(1.0)", "rand_like(): argument 'input' (position 1) must be Tensor, not float"),
        ("randn_like(1.0)", "randn_like(): argument 'input' (position 1) must be Tensor, not float"),
        ("full_like(1.0, 2.0)", "full_like(): argument 'input' (position 1) must be Tensor, not float"),
        ("full_like(x, 's')", "full_like(): argument 'fill_value' (position 2) must be Number, not str"),
        (
            "pow(2, 3)",
            "pow() received an invalid combination of arguments - got (int, int), but expected "
            "one of:\n" + POW_OVERLOADS,
        ),
        (
            "torch.pow(1.0, 2.0)",
            "pow() received an invalid combination of arguments - got (float, float), "
            "but expected one of:\n" + POW_OVERLOADS,
        ),
        ("F.elu(x, 's')", "elu(): argument 'alpha' (position 2) must be Number, not str"),
        (
            "F.leaky_relu(x, 's')",
            "leaky_relu(): argument 'negative_slope' (position 2) must be Number, not str",
        ),
        ("F.softplus(x, x, 's')", "softplus(): argument 'beta' (position 2) must be Number, not Tensor"),
        ("F.softplus(x, 1.0, 's')", "softplus(): argument 'threshold' (position 3) must be Number, not str"),
        ("torch.sin('s')", "sin(): argument 'input' (position 1) must be Tensor, not str"),
        ("torch.mul(x, 's')", "mul(): argument 'other' (position 2) must be Tensor, not str"),
        ("torch.add(x, 's')", "add(): argument 'other' (position 2) must be Tensor, not str"),
        ("torch.reshape(x, 's')", "reshape(): argument 'shape' (position 2) must be tuple of ints, not str"),
        ("torch.softmax(x, 's')", "softmax(): argument 'dim' (position 2) must be int, not str"),
        ("torch.sin(x, 's')", "sin() takes 1 positional argument but 2 were given"),
    ],
)
def test_wrong_argument_types_get_pytorchs_words(expr, message):
    r = cli("run", "-e", f"x = ones(2)\ny = {expr}")
    assert (r.exit_code, r.stdout, r.stderr) == (
        1,
        "",
        f"error: <expr>:2:5: TypeError: {message}\n    y = {expr}\n        ^\n",
    )


BAD_ARGUMENTS = [
    "1.0",
    "2",
    "True",
    "'s'",
    "None",
    "[1.0, 2.0]",
    "1.0, 2.0",
    "2, 3",
    "x, 's'",
    "x, None",
    "x, x, 's'",
    "x, dim='a'",
    "'s', x",
    "None, x",
    "x, 1.0, 's'",
    "x, [x]",
    "print",
    "x, print",
    "x, torch.float32, 's'",
]


def test_no_op_called_with_wrong_types_names_diffcli_internals():
    """Every op of the table, as a function and as a method, with plain numbers and wrong
    types: each call runs or fails with a message free of diffcli's (and numpy's) insides."""
    from diffcli import session, source
    from diffcli.engine import FUNCTIONS, METHODS
    from diffcli.lang.errors import ScriptError

    calls = [
        f"torch.{name}({a})" for name in sorted(FUNCTIONS) if name != "manual_seed" for a in BAD_ARGUMENTS
    ]
    calls += [f"x.{name}({a})" for name in sorted(METHODS) for a in BAD_ARGUMENTS[:12]]
    leaks, failed = [], 0
    for call in calls:
        text = f"x = ones(2, requires_grad=True)\ny = {call}\n"
        try:
            session.execute(source.Source(text, "t"), session.Options(), write=lambda s: None)
        except ScriptError as e:
            failed += 1
            if INTERNAL.search(e.message) or INTERNAL.search(e.type_name):
                leaks.append(f"{call}: {e.type_name}: {e.message}")
    assert failed > len(calls) // 2  # the sweep does exercise the error paths
    assert leaks == []


def test_the_reprs_of_every_name_in_reach_are_free_of_internals():
    from diffcli.engine import FUNCTIONS, METHODS
    from diffcli.lang.interpreter import Interpreter

    names = sorted(set(Interpreter().builtins) | set(FUNCTIONS))
    fields = " ".join(f"{{{n}!r}} {{{n}}}" for n in names)
    methods = " ".join(f"{{x.{m}!r}}" for m in sorted(METHODS))
    r = cli(
        "run",
        "-e",
        f'x = ones(2)\nprint(f"{fields}")\nprint(f"{methods}")\n'
        f'print("{{}} {{!r}}".format(x.to, x.cuda), str(print), [print])',
    )
    assert r.exit_code == 0, r.stderr
    assert INTERNAL.search(r.stdout) is None
    assert "<built-in method view of Tensor object>" in r.stdout


# --- issue 9, finding 11: TabError, the AttributeError's caret ---------------------------------------


def test_mixed_tabs_and_spaces_python_rejects_are_a_tab_error(tmp_path):
    f = script_file(tmp_path, "x = 1.0\nfor i in range(2):\n        y = x\n\tz = x\n")
    r = cli("run", f)
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        f"error: {f}:4:2: TabError: inconsistent use of tabs and spaces in indentation\n     z = x\n     ^\n"
    )


def test_an_attribute_errors_caret_is_under_the_attribute():
    r = cli("run", "-e", "x = ones(2)\ny = (x * 2).sum().foo")
    assert r.stderr == (
        "error: <expr>:2:19: AttributeError: 'Tensor' object has no attribute 'foo'\n"
        "    y = (x * 2).sum().foo\n                      ^\n"
    )


@pytest.mark.parametrize(
    "text, status, out, err",
    [
        # what Python prints and exits with for each (python3 -c): 0 "1\n", 0 "m\n", 1 "bye" on stderr
        ("print(1)\nexit()\nprint(2)\n", 0, "1\n", ""),
        (
            "def main():\n    print('m')\n    quit(0)\nif __name__ == '__main__':\n    main()\n    print('no')\n",
            0,
            "m\n",
            "",
        ),
        ("import torch\nprint(1)\nexit('bye')\nprint(2)\n", 1, "1\n", "SystemExit: bye"),
        # Python exits 3 here; diffcli's 1 says the script failed (its codes mean one thing each)
        ("import torch\nexit(3)\n", 1, "", "SystemExit: 3"),
    ],
)
def test_exit_and_quit_end_the_script(tmp_path, text, status, out, err):
    r = cli("run", script_file(tmp_path, text))
    assert (r.exit_code, r.stdout) == (status, out)
    assert err in r.stderr and (err or r.stderr == "")


def test_grad_reports_what_ran_before_exit(tmp_path):
    r = cli("grad", script_file(tmp_path, "x = 2.0\ny = x * x\nexit()\ny = x * 3\n"), "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout)["leaves"]["x"]["grad"] == 4.0
