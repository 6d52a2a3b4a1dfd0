"""Hostile inputs (SPEC §3 "Errors and exit codes", §4 "Limits and safety"): resource
bombs, parser bombs, hostile characters, files and option values, and indirect routes to
host objects. Each row runs `diffcli ARGS` in process and asserts its exit code, the first
line of its error (with the file:line:col position when the input has one, as recorded
from diffcli and checked against Python's and PyTorch's own behaviour), no traceback on
either stream, and an end within a generous alarm (a hang detector, not a timing).

Rows already pinned elsewhere (tests/cli/test_security*.py, test_fuzz*.py, test_caps.py,
test_limits.py, test_errors.py, test_output_integrity.py) are not repeated here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import types
from pathlib import Path

import pytest

from tests import helpers

from .samples import cli

T = "import torch\n"
HANG_GUARD = 120  # seconds: only a hang reaches it


def hang_guard(seconds=HANG_GUARD):
    return helpers.hang_guard(seconds)


def clean(args, input=None):
    """`diffcli ARGS` in process, within the hang guard, with no traceback anywhere."""
    with hang_guard():
        r = cli(*args, input=input)
    assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr
    assert "internal error" not in r.stderr, r.stderr
    return r


ROWS = [
    # resource bombs (math flavour and PyTorch flavour)
    ("power tower", ["run", "-e", "print(2**2**64)"]),
    ("power tower torch", ["run", "-e", T + "print(10**10**10)"]),
    ("big int product", ["run", "-e", "print((10**5000)*(10**5000))"]),
    ("str of a huge int", ["run", "-e", "print(len(str(10**100000)))"]),
    ("string repeat", ["run", "-e", "s = 'a' * 10**10"]),
    ("list repeat", ["run", "-e", T + "s = [0] * 10**10"]),
    ("list of a huge range", ["run", "-e", "s = list(range(10**18))"]),
    ("sum of a huge range", ["run", "-e", "print(sum(range(10**12)))"]),
    (
        "doubling nested list",
        ["run", "-e", "x = [1]\nfor i in range(100):\n    x = [x, x]\nprint(len(str(x)))"],
    ),
    (
        "dict growth",
        ["run", "--max-iterations", "1000", "-e", "d = {}\nfor i in range(10**8):\n    d[i] = i"],
    ),
    ("string doubling", ["run", "-e", "x = 'a'\nfor i in range(64):\n    x = x + x"]),
    ("torch.zeros huge", ["run", "-e", T + "x = torch.zeros(10**6, 10**6)"]),
    ("expand then sum", ["run", "-e", T + "x = torch.ones(1).expand(10**6, 10**6).sum()"]),
    ("repeat huge", ["run", "-e", T + "x = torch.ones(1000).repeat(10**6, 10**6)"]),
    ("arange 1e12", ["run", "-e", T + "x = torch.arange(1e12)"]),
    (
        "cat doubling in a loop",
        ["run", "-e", T + "x = torch.ones(1000)\nfor i in range(100):\n    x = torch.cat([x, x])"],
    ),
    ("while True", ["run", "--max-iterations", "1000", "-e", "while True:\n    pass"]),
    ("for over 10**12", ["run", "-e", "for i in range(10**12):\n    pass"]),
    ("recursion", ["run", "-e", "def f(n):\n    return f(n + 1)\nf(0)"]),
    ("mutual recursion", ["run", "-e", "def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(1)"]),
    ("recursion in a method", ["run", "-e", "class A:\n    def m(self):\n        return self.m()\nA().m()"]),
    ("recursion in a lambda", ["run", "-e", "f = lambda n: f(n)\nf(1)"]),
    (
        "recursion in a hook",
        [
            "grad",
            "-e",
            T
            + "x = torch.ones(2, requires_grad=True)\ndef h(g):\n    return h(g)\nx.register_hook(h)\ny = (x * 2).sum()",
        ],
    ),
    (
        "recursion in a Function",
        [
            "run",
            "-e",
            T
            + "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n        return F.apply(x)\n    @staticmethod\n    def backward(ctx, g):\n        return g\nF.apply(torch.ones(2, requires_grad=True))",
        ],
    ),
    ("f-string width", ["run", "-e", "print(f'{1:>1000000000}')"]),
    ("percent star width", ["run", "-e", "print('%*d' % (10**9, 1))"]),
    ("format() width", ["run", "-e", "print(format(1, '1000000000'))"]),
    ("str.format width", ["run", "-e", "print('{:1000000000}'.format(1))"]),
    ("nested format width", ["run", "-e", "print('{:>{w}}'.format(1, w=10**10))"]),
    ("precision", ["run", "-e", "print(f'{1.5:.1000000000f}')"]),
    ("ljust", ["run", "-e", "print('a'.ljust(10**10))"]),
    ("factorial", ["run", "-e", "import math\nprint(math.factorial(10**7))"]),
    ("sorted huge", ["run", "-e", "print(sorted(list(range(10**9)))[0])"]),
    ("join huge", ["run", "-e", "print(' '.join(str(i) for i in range(10**9)))"]),
    ("replace growth", ["run", "-e", "s = 'ab' * 10**6\nprint(len(s.replace('a', s)))"]),
    ("bytearray", ["run", "-e", "print(bytearray(10**10))"]),
    ("int() of a long string", ["run", "-e", "print(int('9' * 5000))"]),
    ("tensor of a huge int", ["run", "-e", T + "print(torch.tensor(10**100))"]),
    ("manual_seed huge", ["run", "-e", T + "torch.manual_seed(10**100)"]),
    # parser bombs
    ("nested parens", ["run", "-e", "x = " + "(" * 100000 + "1" + ")" * 100000]),
    ("nested brackets", ["run", "-e", "x = " + "[" * 100000 + "]" * 100000]),
    ("unclosed parens", ["run", "-e", "x = " + "(" * 100000]),
    ("nested dicts", ["run", "-e", "x = " + "{1: " * 5000 + "1" + "}" * 5000]),
    ("not chain", ["run", "-e", "x = " + "not " * 100000 + "1"]),
    ("attribute chain", ["run", "-e", "x = 1\ny = x" + ".y" * 100000]),
    ("nested f-strings", ["run", "-e", "x = f'{" * 50 + "1" + "}'" * 50]),
    ("long int literal", ["run", "-e", "x = " + "9" * 100000]),
    ("statements over the cap", ["run", "--max-statements", "1000", "-e", "x = 1\n" * 2000]),
    ("line continuation at the end", ["run", "-e", "x = 1 + \\"]),
    ("unterminated string", ["run", "-e", "x = '''abc"]),
    # characters
    ("tabs and spaces", ["run", "-e", "if 1:\n\tx = 1\n        print(x)\n"]),
    ("zero-width space in a name", ["run", "-e", "x\u200b = 1\nprint(x)\n"]),
    ("RTL override", ["run", "-e", "\u202ex = 1\nprint(x)\n"]),
    ("non-ASCII identifier", ["run", "-e", "\u00e9 = 1\nprint(\u00e9)\n"]),
    ("form feed", ["run", "-e", "\x0cx = 1\n\x0cprint(x)\n"]),
    ("lone surrogate", ["run", "-e", "x = '\ud800'\nprint(x)\n"]),
    ("NUL in -e", ["run", "-e", "x = 1\x00\nprint(x)"]),
    # options
    ("--set import", ["grad", "-e", "p = a * x", "--set", "a=__import__('os')"]),
    ("--set ragged", ["grad", "-e", "p = a * x", "--set", "a=[[1],[2,3]]"]),
    ("--set empty value", ["grad", "-e", "p = a * x", "--set", "a="]),
    ("--set empty name", ["grad", "-e", "p = a * x", "--set", "=1"]),
    ("--set NUL", ["grad", "-e", "p = a * x", "--set", "a=1\x00"]),
    ("--max-elements negative", ["run", "-e", "print(1)", "--max-elements", "-1"]),
    ("--timeout nan", ["run", "-e", "print(1)", "--timeout", "nan"]),
    ("--repeat 0", ["run", "-e", "print(1)", "--repeat", "0"]),
    ("--max-depth NUL", ["run", "-e", "print(1)", "--max-depth", "1\x00"]),
    ("unknown format", ["grad", "-e", "p = x * x", "--format", "xml"]),
    (
        "--grad-tensors code",
        [
            "grad",
            "-e",
            T + "x = torch.ones(2, requires_grad=True)\ny = x * x",
            "--grad-tensors",
            "__import__('os').system('id')",
        ],
    ),
    (
        "--grad-tensors huge",
        [
            "grad",
            "-e",
            T + "x = torch.ones(2, requires_grad=True)\ny = x * x",
            "--grad-tensors",
            "[[1]]*10**9",
        ],
    ),
    # sandbox (indirect routes to host objects)
    ("getattr concatenated dunder", ["run", "-e", "x = 1\nprint(getattr(x, '__cl' + 'ass__'))"]),
    ("format field dunder", ["run", "-e", "x = 1\nprint('{0.__class__}'.format(x))"]),
    ("format_map dunder", ["run", "-e", "print('{a.__class__}'.format_map({'a': 1}))"]),
    (
        "reduce over getattr",
        ["run", "-e", "import functools\nprint(functools.reduce(getattr, ['__class__'], 1))"],
    ),
    (
        "grad_fn __call__",
        [
            "run",
            "-e",
            T + "x = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\nprint(y.grad_fn.__call__)",
        ],
    ),
    ("numpy tofile", ["run", "-e", T + "x = torch.ones(2)\nx.numpy().tofile('/tmp/diffcli-hostile-probe')"]),
    ("np.fromfile", ["run", "-e", "import numpy as np\nprint(np.fromfile('/etc/passwd'))"]),
    ("torch.from_file", ["run", "-e", T + "print(torch.from_file('/etc/passwd'))"]),
    ("torch.compile", ["run", "-e", T + "print(torch.compile(lambda x: x))"]),
    ("import os as torch", ["run", "-e", "import os as torch"]),
    ("generator frame", ["run", "-e", "def g():\n    yield 1\nx = g()\nprint(x.gi_frame)"]),
    (
        "exception traceback",
        ["run", "-e", "try:\n    1 / 0\nexcept Exception as e:\n    print(e.__traceback__)"],
    ),
    (
        "module state_dict load",
        ["run", "-e", T + "m = torch.nn.Linear(2, 2)\nm.load_state_dict('/etc/passwd')"],
    ),
]

EXPECTED = {
    "power tower": (
        1,
        "error: <expr>:1:7: OverflowError: integer result of '**' too large (more than 65536 bits; write a float such as 10.0 for huge numbers)",
    ),
    "power tower torch": (
        1,
        "error: <expr>:2:7: OverflowError: integer result of '**' too large (more than 65536 bits; write a float such as 10.0 for huge numbers)",
    ),
    "big int product": (
        1,
        "error: <expr>:1:1: ValueError: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit",
    ),
    "str of a huge int": (
        1,
        "error: <expr>:1:15: OverflowError: integer result of '**' too large (more than 65536 bits; write a float such as 10.0 for huge numbers)",
    ),
    "string repeat": (
        1,
        "error: <expr>:1:5: LimitError: string of 10000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "list repeat": (
        1,
        "error: <expr>:2:5: LimitError: list of 10000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "list of a huge range": (
        1,
        "error: <expr>:1:5: LimitError: list of 1000000000000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "sum of a huge range": (
        1,
        "error: <expr>:1:7: LimitError: sum() over 1000000000000 items exceeds the limit of 10000000 loop iterations (raise the cap with --max-iterations)",
    ),
    "doubling nested list": (
        1,
        "error: <expr>:4:11: LimitError: string longer than the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "dict growth": (
        1,
        "error: <expr>:2:10: LimitError: a loop of 100000000 iterations exceeds the limit of 1000 loop iterations (raise the cap with --max-iterations)",
    ),
    "string doubling": (
        1,
        "error: <expr>:3:9: LimitError: string of 16777216 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "torch.zeros huge": (
        1,
        "error: <expr>:2:5: LimitError: tensor of 1000000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "expand then sum": (
        1,
        "error: <expr>:2:5: LimitError: tensor of 1000000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "repeat huge": (
        1,
        "error: <expr>:2:5: LimitError: tensor of 1000000000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "arange 1e12": (
        1,
        "error: <expr>:2:5: LimitError: tensor of 1000000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "cat doubling in a loop": (
        1,
        "error: <expr>:4:9: LimitError: tensor of 16384000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "while True": (
        1,
        "error: <expr>:1:1: LimitError: more than 1000 loop iterations (raise the cap with --max-iterations)",
    ),
    "for over 10**12": (
        1,
        "error: <expr>:1:10: LimitError: a loop of 1000000000000 iterations exceeds the limit of 10000000 loop iterations (raise the cap with --max-iterations)",
    ),
    "recursion": (
        1,
        "error: <expr>:2:12: RecursionError: maximum recursion depth exceeded (100; raise the cap with --max-depth)",
    ),
    "mutual recursion": (
        1,
        "error: <expr>:4:12: RecursionError: maximum recursion depth exceeded (100; raise the cap with --max-depth)",
    ),
    "recursion in a method": (
        1,
        "error: <expr>:3:16: RecursionError: maximum recursion depth exceeded (100; raise the cap with --max-depth)",
    ),
    "recursion in a lambda": (
        1,
        "error: <expr>:1:15: RecursionError: maximum recursion depth exceeded (100; raise the cap with --max-depth)",
    ),
    "recursion in a hook": (
        1,
        "error: <expr>:4:12: RecursionError: maximum recursion depth exceeded (100; raise the cap with --max-depth)",
    ),
    "recursion in a Function": (
        1,
        "error: <expr>:5:16: RecursionError: maximum recursion depth exceeded (100; raise the cap with --max-depth)",
    ),
    "f-string width": (
        1,
        "error: <expr>:1:7: LimitError: string of 1000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "percent star width": (
        1,
        "error: <expr>:1:7: LimitError: string of 1000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "format() width": (
        1,
        "error: <expr>:1:7: NameError: name 'format' is not defined (diffcli scripts have no such function)",
    ),
    "str.format width": (
        1,
        "error: <expr>:1:7: LimitError: string of 1000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "nested format width": (
        1,
        "error: <expr>:1:7: ValueError: diffcli formats plain fields only ('{}', '{0}', '{name}'), not '{}'",
    ),
    "precision": (
        1,
        "error: <expr>:1:7: LimitError: string of 1000000450 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "ljust": (
        1,
        "error: <expr>:1:7: LimitError: string of 10000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "factorial": (
        1,
        "error: <expr>:2:12: AttributeError: module 'math' has no attribute 'factorial' (or diffcli does not support it)",
    ),
    "sorted huge": (
        1,
        "error: <expr>:1:14: LimitError: list of 1000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "join huge": (
        1,
        "error: <expr>:1:32: LimitError: a loop of 1000000000 iterations exceeds the limit of 10000000 loop iterations (raise the cap with --max-iterations)",
    ),
    "replace growth": (
        1,
        "error: <expr>:2:11: LimitError: string of 2000001000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "bytearray": (
        1,
        "error: <expr>:1:7: NameError: name 'bytearray' is not defined (diffcli scripts have no such function)",
    ),
    "int() of a long string": (
        1,
        "error: <expr>:1:7: ValueError: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase the limit",
    ),
    "tensor of a huge int": (1, "error: <expr>:2:7: ValueError: Overflow when unpacking long long"),
    "manual_seed huge": (1, "error: <expr>:2:1: ValueError: Overflow when unpacking long long"),
    "nested parens": (
        2,
        "error: <expr>:1:205: SyntaxError: expression nested too deeply (more than 200 brackets)",
    ),
    "nested brackets": (
        2,
        "error: <expr>:1:205: SyntaxError: expression nested too deeply (more than 200 brackets)",
    ),
    "unclosed parens": (
        2,
        "error: <expr>:1:205: SyntaxError: expression nested too deeply (more than 200 brackets)",
    ),
    "nested dicts": (
        2,
        "error: <expr>:1:805: SyntaxError: expression nested too deeply (more than 200 brackets)",
    ),
    "not chain": (1, "error: <expr>:1:1: LimitError: expression nested too deeply"),
    "attribute chain": (1, "error: <expr>:2:1: LimitError: expression nested too deeply"),
    "nested f-strings": (
        2,
        "error: <expr>:1:14: SyntaxError: unexpected '{' — expected an operator or end of line",
    ),
    "long int literal": (2, "error: <expr>:1:5: SyntaxError: number literal too long"),
    "statements over the cap": (
        1,
        "error: <expr>:1001:1: LimitError: the script has more than 1000 statements (raise the cap with --max-statements)",
    ),
    "line continuation at the end": (
        2,
        "error: <expr>:1:7: SyntaxError: unexpected end of input — expected an expression",
    ),
    "unterminated string": (2, "error: <expr>:1:5: SyntaxError: unterminated triple-quoted string literal"),
    "tabs and spaces": (2, "error: <expr>:3:9: TabError: inconsistent use of tabs and spaces in indentation"),
    "zero-width space in a name": (
        2,
        "error: <expr>:1:2: SyntaxError: invalid non-printable character U+200B",
    ),
    "RTL override": (2, "error: <expr>:1:1: SyntaxError: invalid non-printable character U+202E"),
    "non-ASCII identifier": (2, "error: <expr>:1:1: SyntaxError: invalid character 'é'"),
    "form feed": (2, "error: <expr>:1:2: IndentationError: unexpected indent"),
    "lone surrogate": (
        1,
        "error: <expr>:2:1: UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in position 0: surrogates not allowed",
    ),
    "NUL in -e": (2, "error: <expr>:1:6: SyntaxError: source code cannot contain null bytes"),
    "--set import": (
        2,
        "error: UsageError: --set a: expected a number or a list literal such as 2.5 or [1, 2], got \"__import__('os')\"",
    ),
    "--set ragged": (2, "error: UsageError: --set a: expected sequence of length 1 at dim 1 (got 2)"),
    "--set empty value": (
        2,
        "error: UsageError: --set a: expected a number or a list literal such as 2.5 or [1, 2], got ''",
    ),
    "--set empty name": (2, "error: UsageError: --set '=1': '' is not a valid name"),
    "--set NUL": (
        2,
        "error: UsageError: --set a: expected a number or a list literal such as 2.5 or [1, 2], got '1\\x00'",
    ),
    "--max-elements negative": (2, "error: UsageError: --max-elements must be at least 1, got -1"),
    "--timeout nan": (2, "error: UsageError: Invalid value for '--timeout': 'nan' is not a valid integer."),
    "--repeat 0": (2, "error: UsageError: No such option '--repeat'. Did you mean '--set'?"),
    "--max-depth NUL": (
        2,
        "error: UsageError: Invalid value for '--max-depth': '1\\x00' is not a valid integer.",
    ),
    "unknown format": (
        2,
        "error: UsageError: Invalid value for '--format' / '-f': 'xml' is not one of 'table', 'json', 'jsonl', 'tsv', 'latex'.",
    ),
    "--grad-tensors code": (
        1,
        "error: <expr>: NameError: --grad-tensors: name '__import__' is not defined (names starting with '__' do not exist in diffcli scripts)",
    ),
    "--grad-tensors huge": (
        1,
        "error: <expr>: LimitError: --grad-tensors: list of 1000000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
    ),
    "getattr concatenated dunder": (
        1,
        "error: <expr>:2:7: NameError: name 'getattr' is not defined (diffcli scripts have no such function)",
    ),
    "format field dunder": (
        1,
        "error: <expr>:2:7: ValueError: diffcli formats plain fields only ('{}', '{0}', '{name}'), not '{0.__class__}'",
    ),
    "format_map dunder": (
        1,
        "error: <expr>:1:23: AttributeError: 'str' object has no attribute 'format_map' (or diffcli does not support it)",
    ),
    "reduce over getattr": (
        1,
        "error: <expr>:2:24: NameError: name 'getattr' is not defined (a free variable: give it a value with --set getattr=VALUE, or see its formulas with --symbolic)",
    ),
    "grad_fn __call__": (
        1,
        "error: <expr>:4:7: AttributeError: access to '__call__' is not allowed in diffcli scripts",
    ),
    "numpy tofile": (1, "error: <expr>:3:11: AttributeError: 'ndarray' object has no attribute 'tofile'"),
    "np.fromfile": (1, "error: <expr>:2:10: AttributeError: module 'numpy' has no attribute 'fromfile'"),
    "torch.from_file": (
        1,
        "error: <expr>:2:13: AttributeError: module 'torch' has no attribute 'from_file' (or diffcli does not support it)",
    ),
    "torch.compile": (
        1,
        "error: <expr>:2:13: AttributeError: module 'torch' has no attribute 'compile' (or diffcli does not support it)",
    ),
    "import os as torch": (
        1,
        "error: <expr>:1:8: ModuleNotFoundError: No module named 'os' (diffcli scripts can import only collections, functools, math, numpy, numpy.random, torch, torch.autograd, torch.autograd.function, torch.autograd.functional, torch.autograd.graph, torch.func, torch.linalg, torch.nn, torch.nn.functional, torch.nn.init, torch.nn.utils, torch.nn.utils.clip_grad, torch.optim, torch.optim.lr_scheduler, torch.special, torch.utils, torch.utils.data and typing)",
    ),
    "generator frame": (2, "error: <expr>:2:5: SyntaxError: 'yield' is not supported in diffcli scripts"),
    "exception traceback": (
        1,
        "error: <expr>:4:11: AttributeError: access to '__traceback__' is not allowed in diffcli scripts",
    ),
    "module state_dict load": (
        1,
        "error: <expr>:3:1: TypeError: Expected state_dict to be dict-like, got str.",
    ),
}


@pytest.mark.parametrize("name, args", ROWS, ids=[name for name, _ in ROWS])
def test_hostile_input_is_a_clear_error(name, args):
    code, first = EXPECTED[name]
    r = clean(args)
    assert r.exit_code == code, r.stderr
    assert python_wording(r.stderr.splitlines()[0]) == first


def python_wording(line):
    """Python's own messages as 3.11 words them (3.10 says "Exceeds the limit (4300) for
    integer string conversion", without "digits")."""
    return line.replace("Exceeds the limit (4300) for", "Exceeds the limit (4300 digits) for")


# --- files given as SCRIPT ------------------------------------------------------------------
FILES = [
    # (name, bytes or None for a path made by `make`, exit code, first line; {p} is the path)
    (
        "utf-16 with BOM",
        "x = 1\nprint(x)\n".encode("utf-16"),
        2,
        "error: FileError: {p}:1: contains a NUL byte; is it a binary file?",
    ),
    (
        "invalid utf-8",
        b"x = 1\nprint('\xff')\n",
        2,
        "error: FileError: {p}:2: not UTF-8 text (byte 0xff at offset 13); is it a binary file?",
    ),
    (
        "encoded surrogate",
        b"x = '\xed\xa0\x80'\n",
        2,
        "error: FileError: {p}:1: not UTF-8 text (byte 0xed at offset 5); is it a binary file?",
    ),
    ("only comments", b"# a\n# b\n", 0, None),
    (
        "CR-only line endings",
        b"x = 1\ry = x +\r",
        2,
        "error: {p}:2:8: SyntaxError: unexpected end of line — expected an expression",
    ),
    (
        "a 17 MB file",
        b"x = 1\n" * (17 * (1 << 20) // 6),
        1,
        "error: {p}:2796203:5: LimitError: the script is larger than the limit of 16 MB (raise it with --max-script-size)",
    ),
]


@pytest.mark.parametrize("name, data, code, first", FILES, ids=[f[0] for f in FILES])
def test_hostile_file_is_a_clear_error(tmp_path, name, data, code, first):
    p = tmp_path / "script.txt"
    p.write_bytes(data)
    r = clean(["run", str(p)])
    assert r.exit_code == code, r.stderr
    if first is None:
        assert r.stderr == ""
    else:
        assert r.stderr.splitlines()[0] == first.format(p=p)


def test_a_symlink_loop_is_a_file_error(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    r = clean(["run", str(tmp_path / "a")])
    assert r.exit_code == 2
    assert (
        r.stderr == f"error: FileError: {tmp_path / 'a'}: cannot read (Too many levels of symbolic links)\n"
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_as_script_is_read_only_to_the_cap():
    r = clean(["run", "/dev/zero", "--max-script-size", "1"])
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0] == (
        "error: /dev/zero:1:1048577: LimitError: the script is larger than the limit of 1 MB "
        "(raise it with --max-script-size)"
    )


# --- the --timeout clock covers parsing and printing ----------------------------------------
class _FastClock:
    """A monotonic clock that moves 10 s per reading: the first check after the clock
    starts finds --timeout 1 past, whatever the machine's speed."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self):
        self.now += 10.0
        return self.now


@pytest.fixture
def fast_clock(monkeypatch):
    from diffcli.lang import limits

    monkeypatch.setattr(limits, "time", types.SimpleNamespace(monotonic=_FastClock().monotonic))


TIME_UP = (
    "LimitError: the run took more than 1 second (raise the cap with --timeout, or give --timeout 0 for none)"
)


def test_a_long_script_stops_parsing_at_the_timeout(fast_clock):
    # one statement of 20,000 terms: before the fix the parse never looked at the clock
    # (and a one-statement run reaches no statement checkpoint), so it ran to exit 0
    r = clean(["run", "--timeout", "1", "-e", "x = 1" + " + 1" * 20000])
    assert r.exit_code == 1, r.stderr
    assert r.stderr.splitlines()[0] == "error: <expr>:1:8191: " + TIME_UP


def test_lark_does_not_reparse_after_the_timeout(fast_clock):
    # a syntax error at the end sends the text to Lark's parser: not once the time is up
    r = clean(["run", "--timeout", "1", "-e", "x = 1" + " + 1" * 20000 + " 1"])
    assert r.exit_code == 1, r.stderr
    assert r.stderr.splitlines()[0].endswith(TIME_UP)


def test_printing_a_huge_tensor_in_full_stops_at_the_timeout(fast_clock):
    # 60,000 elements: under the size that makes a checkpoint when the tensor is made;
    # before the fix, formatting all of them never looked at the clock
    script = T + "torch.set_printoptions(threshold=10**9)\nx = torch.ones(60000)\nprint(x)"
    r = clean(["run", "--timeout", "1", "-e", script])
    assert r.exit_code == 1, r.stderr
    assert r.stdout == ""
    assert r.stderr.splitlines()[0] == "error: <expr>:4:1: " + TIME_UP


def test_printing_in_full_within_the_timeout_is_unchanged():
    script = T + "torch.set_printoptions(threshold=10**9)\nprint(torch.arange(20000.0))"
    r = clean(["run", "-e", script])
    assert r.exit_code == 0, r.stderr
    text = r.stdout
    assert text.startswith("tensor([0.0000e+00, 1.0000e+00,") and text.endswith("1.9999e+04])\n")
    assert "..." not in text and text.count("e+") == 20000


# --- a signal mid-run keeps what was printed (a real process) ------------------------------
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_mid_run_keeps_the_output_printed_before_it():
    script = "print('start')\nwhile True:\n    pass"
    proc = subprocess.Popen(
        [sys.executable, "-m", "diffcli", "run", "-e", script, "--timeout", "0"]
        + ["--max-iterations", str(10**12), "--max-statements", str(10**12)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        assert proc.stdout.readline() == b"start\n"  # it is running the loop now
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=HANG_GUARD)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert out == b""  # nothing after the line already read
    assert err == b"error: interrupted\n"


@pytest.mark.parametrize(
    "script",
    ["x = " + "9" * 400, "x = -" + "9" * 400, "x = [1.0, " + "9" * 400 + "]"],
    ids=["int", "negative", "in a list"],
)
def test_an_int_literal_past_floats_range_as_a_variable_is_pythons_overflow_error(script):
    # the math flavour makes `x = LITERAL` a float leaf: float(10**400) is Python's
    # OverflowError (it was an internal error, exit 3)
    r = clean(["run", "-e", script])
    assert r.exit_code == 1, r.stderr
    assert r.stderr.splitlines()[0] == "error: <expr>:1:5: OverflowError: int too large to convert to float"


EMPTY_LEAF = (
    T
    + "x = torch.ones(0, requires_grad=True)\nw = torch.ones(2, requires_grad=True)\ny = (x * x).sum() + (w * w).sum()"
)


@pytest.mark.parametrize(
    "fmt, row",
    [
        (
            "table",
            "x      1       x       -          -         -           -           -           -           ok",
        ),
        ("github", "| `<expr>` | `x` | 1 | `x` | - | - | ok |"),
    ],
)
def test_check_of_a_leaf_without_elements_shows_nothing_compared(fmt, row):
    # an empty leaf has no worst element (gradcheck passes on it, as torch's does): the
    # table and the step summary indexed it anyway (an internal error, exit 3)
    r = clean(["check", "-f", fmt, "-e", EMPTY_LEAF])
    assert r.exit_code == 0, r.stderr
    assert row in r.stdout.splitlines()
    assert (
        "`w` | 1 | `w[0]`" in r.stdout
        if fmt == "github"
        else "w      1       w[0]    2          2" in r.stdout
    )


def test_printing_a_lone_surrogate_is_pythons_unicode_error_in_the_real_process(tmp_path):
    # the real process guards standard output; a text that cannot be encoded is the
    # script's error (Python's UnicodeEncodeError at the print), not a closed stream (it was
    # "OutputError: cannot write to standard output: Bad file descriptor (it is closed)")
    out = tmp_path / "out.txt"
    with out.open("wb") as stdout:
        proc = subprocess.run(
            [sys.executable, "-m", "diffcli", "run", "-e", "print('a')\nprint('\\ud800')\nprint('b')"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            timeout=HANG_GUARD,
        )
    assert proc.returncode == 1
    assert out.read_bytes() == b"a\n"
    assert proc.stderr.decode() == (
        "error: <expr>:2:1: UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in "
        "position 0: surrogates not allowed\n    print('\\ud800')\n    ^\n"
    )
