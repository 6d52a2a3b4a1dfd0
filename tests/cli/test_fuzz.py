"""Fuzzing the command line (SPEC §4: any input, however malformed, gives a clear error and
an exit code, never a traceback or a hang).

Over 1,200 inputs per run, reproducible (hypothesis with `derandomize=True`): random
bytes, token soup, random unicode, truncated and mutated samples, random programs over
every op and method, random option values; plus hand-picked pathological cases (10,000
nested parentheses, a 1 MB line, 10**10**10, NUL characters, binary and unreadable
files...). Every run must end with exit 0, or exit 1/2 and an `error:` message on
stderr; never a traceback, never an internal error (`InternalError`, which marks a diffcli bug).

Work is bounded by counts, not by the clock: the pathological cases run with small caps
(`CAPS`), so each ends after a bounded number of steps however busy the machine is. The
alarm (`HANG_GUARD`) only turns a real hang into a failure instead of a stuck suite; it
is generous, and no test compares elapsed time with a margin. `DIFFCLI_FUZZ_SCALE=20` multiplies the generated inputs for a longer hunt.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from diffcli import engine  # noqa: E402
from diffcli.cli import app  # noqa: E402
from diffcli.lang import values  # noqa: E402
from tests.helpers import hang_guard  # noqa: E402

from .samples import SAMPLES, sample_args  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_TEXTS = [(p.read_text(), sample_args(p)) for p in SAMPLES]
FORMATS = {
    "run": [None],
    "grad": [None, "table", "json", "tsv"],
    "graph": [None, "table", "json", "dot", "mermaid", "tree"],
    "check": [None, "table", "json"],
}
HANG_GUARD = 600.0  # seconds: only a hang reaches it (a bound on work is a cap, below)
CAPS = ["--max-iterations", "200000", "--max-statements", "400000", "--max-memory", "1024"]
COUNT = {"runs": 0}
SCALE = int(os.environ.get("DIFFCLI_FUZZ_SCALE", "1"))  # e.g. 20 for a long run before a release

FUZZ = settings(
    derandomize=True, deadline=None, database=None, print_blob=True, suppress_health_check=list(HealthCheck)
)


def outcome_is_clean(args, input=None, seconds=HANG_GUARD):
    """Run `diffcli ARGS` in process and check the contract; returns the result."""
    COUNT["runs"] += 1
    with hang_guard(seconds):
        result = CliRunner().invoke(app, args, input=input)
    shown = f"args={[a[:200] for a in args]!r} input={input[:200] if input else input!r}"
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{shown}: {result.exception!r}"
    )
    err = result.stderr
    assert "Traceback" not in err, f"{shown}\n{err}"
    assert "InternalError" not in err and "internal error" not in err, f"{shown}\n{err}"
    assert result.exit_code in (0, 1, 2), f"{shown}: exit {result.exit_code}\n{err}"
    if result.exit_code:
        lines = err.splitlines()
        text_error = any(line.startswith("error: ") for line in lines)
        json_error = any(
            line.startswith('{"error": ') and "type" in json.loads(line)["error"] for line in lines
        )
        assert text_error or json_error, f"{shown}: exit {result.exit_code} without an error message\n{err}"
    return result


# --- strategies ---------------------------------------------------------------------------

TOKENS = [
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    ".",
    "=",
    "+",
    "-",
    "*",
    "/",
    "**",
    "^",
    "@",
    "//",
    "%",
    "\n",
    " ",
    "    ",
    "\t",
    "x",
    "y",
    "a",
    "b",
    "w",
    "0",
    "1",
    "2.5",
    ".5",
    "1e-3",
    "1e400",
    "-1",
    "None",
    "True",
    "False",
    "'s'",
    '"t"',
    "grad",
    "backward",
    "sum",
    "torch.",
    "F.",
    "for",
    "in",
    "range(3)",
    "range(10**9)",
    "with",
    "no_grad()",
    "def",
    "return",
    "try",
    "except",
    "import",
    "from",
    "as",
    "lambda",
    "if",
    "elif",
    "else",
    "while",
    "not",
    "and",
    "or",
    "is",
    "[:, 0]",
    "...",
    "requires_grad=True",
    ".grad",
    ".grad_fn",
    ".next_functions",
    ".T",
    ".data",
    "x[0]",
    "tensor([1.,2.])",
    "zeros(2,3)",
    "ones(100000,1)",
    ".retain_grad()",
    ".item()",
    ".backward()",
    "#",
    ";",
    "\\",
    "'''",
    '"""',
    "0x10",
    "1_000",
    "1j",
    "π",
    "\x00",
    "break",
    "continue",
    "pass",
    "global",
    "del",
    "+=",
    "*=",
    "<<",
    "~",
    "print(",
    "sin(",
    "exp(",
    "matmul(",
    "@ ones(2)",
    "__class__",
    ".__class__",
    "__import__('os')",
    "f'{x}'",
    "{",
    "}",
    "\r\n",
    "\x0c",
    "\u00a0",
    "\U0001f600",
]


@st.composite
def token_soup(draw):
    return "".join(draw(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=40)))


@st.composite
def mutated_sample(draw):
    text, args = draw(st.sampled_from(SAMPLE_TEXTS))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(
                ["truncate", "insert", "delete", "shuffle", "duplicate", "flip", "dedent", "indent"]
            )
        )
        n = len(text)
        i = draw(st.integers(0, n))
        if kind == "truncate":
            text = text[:i]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif kind == "delete":
            text = text[:i] + text[draw(st.integers(i, min(n, i + 20))) :]
        elif kind == "flip" and n:
            i = min(i, n - 1)
            text = text[:i] + chr(draw(st.integers(0, 0x2FF))) + text[i + 1 :]
        else:
            lines = text.split("\n")
            j = draw(st.integers(0, max(0, len(lines) - 1)))
            if kind == "shuffle":
                lines = draw(st.permutations(lines))
            elif kind == "duplicate":
                lines.insert(j, lines[j])
            elif kind == "dedent":
                lines[j] = lines[j].lstrip()
            else:
                lines[j] = "    " + lines[j]
            text = "\n".join(lines)
    keep_args = draw(st.booleans())
    return text, (args if keep_args else [])


FUNCTIONS = sorted(engine.FUNCTIONS)
METHODS = sorted(values.TENSOR_METHODS)
ATTRIBUTES = sorted(values.TENSOR_ATTRS)
ATOMS = [
    "a",
    "b",
    "v",
    "m",
    "c",
    "i",
    "1",
    "0",
    "-1",
    "2.5",
    "0.0",
    "1e400",
    "None",
    "True",
    "'s'",
    "[1, 2]",
    "[[1.0], [2.0]]",
    "(1, 2)",
    "range(3)",
    "torch.float32",
    "[]",
    "()",
    "float('nan')",
    "-0.0",
    "1e-320",
    "2**63",
    "10**20",
    "print",
    "torch",
    "v.grad_fn",
    "math.sin",
    "sin",
    "no_grad()",
    "torch.Size([2, 3])",
    "[v, v]",
    "[[1, 2], [3]]",
    "[None]",
    "v.T",
    "m.t()",
    "v[0]",
    "zeros(0)",
    "ones(0, 3)",
    "tensor([])",
    "tensor(3)",
    "tensor(True)",
]
PRELUDE = (
    "import torch\nimport math\na = [1.0, -2.0, 3.0]\nb = 0.5\n"
    "v = tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\nm = ones(2, 3)\nc = tensor([1, 2])\n"
    "i = int(2)\n"
)


def expressions():
    """Random calls of every op and method on odd arguments: the engine's and the
    interpreter's error paths, not just the parser's."""

    def extend(inner):
        args = st.lists(inner, max_size=3).map(", ".join)
        kw = st.sampled_from(
            ["", ", dim=0", ", keepdim=True", ", requires_grad=True", ", dtype=torch.float32", ", -1"]
        )
        return st.one_of(
            st.tuples(st.sampled_from(FUNCTIONS), args, kw).map(lambda t: f"{t[0]}({t[1]}{t[2]})"),
            st.tuples(inner, st.sampled_from(METHODS), args).map(lambda t: f"{t[0]}.{t[1]}({t[2]})"),
            st.tuples(inner, st.sampled_from(ATTRIBUTES)).map(lambda t: f"{t[0]}.{t[1]}"),
            st.tuples(
                inner,
                st.sampled_from(
                    ["+", "-", "*", "/", "@", "**", "//", "%", "<", "==", "and", "or", "in", "is"]
                ),
                inner,
            ).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(
                inner,
                st.sampled_from(
                    [
                        "0",
                        "-1",
                        ":",
                        "1:",
                        "::2",
                        "..., 0",
                        "None",
                        "[0, 1]",
                        "a > 0",
                        ":, 0",
                        "10",
                        "0.5",
                        "True",
                    ]
                ),
            ).map(lambda t: f"{t[0]}[{t[1]}]"),
        )

    return st.recursive(st.sampled_from(ATOMS), extend, max_leaves=6)


@st.composite
def random_program(draw):
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        e = draw(expressions())
        template = draw(
            st.sampled_from(
                [
                    "x = {e}",
                    "print({e})",
                    "{e}",
                    "x = {e}\nx.sum().backward()",
                    "x += {e}",
                    "v.data = {e}",
                    "m[0] = {e}",
                    "for q in {e}:\n    print(q)",
                    "with {e}:\n    pass",
                    "p, q = {e}",
                    "v.grad = {e}",
                    "v.requires_grad = {e}",
                    "y = [k for k in {e}]",
                ]
            )
        )
        lines.append(template.format(e=e))
    return PRELUDE + "\n".join(lines)


def command_and_format():
    return st.sampled_from([(c, f) for c, fs in FORMATS.items() for f in fs])


def with_format(command, fmt, args):
    return [command, *args] + (["--format", fmt] if fmt else [])


# --- the generated inputs (1,050 runs) ------------------------------------------------------------


@settings(FUZZ, max_examples=400 * SCALE)
@given(mutated_sample(), command_and_format())
def test_mutated_samples(sample, cf):
    (text, args), (command, fmt) = sample, cf
    outcome_is_clean(with_format(command, fmt, ["-e", text, *args]))


@settings(FUZZ, max_examples=250 * SCALE)
@given(token_soup(), command_and_format(), st.sampled_from([[], ["--set", "a=1", "--set", "x=[1, 2]"]]))
def test_token_soup(text, cf, sets):
    command, fmt = cf
    outcome_is_clean(with_format(command, fmt, ["-e", text, *sets]))


@settings(FUZZ, max_examples=150 * SCALE)
@given(st.text(max_size=200), command_and_format())
def test_random_unicode_text(text, cf):
    command, fmt = cf
    outcome_is_clean(with_format(command, fmt, ["-e", text]))


@settings(FUZZ, max_examples=200 * SCALE)
@given(random_program(), command_and_format())
def test_random_programs(text, cf):
    command, fmt = cf
    outcome_is_clean(with_format(command, fmt, ["-e", text]))


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@settings(FUZZ, max_examples=150 * SCALE)
@given(data=st.binary(max_size=300), cf=command_and_format(), via_stdin=st.booleans())
def test_random_bytes_as_file_or_stdin(fuzz_dir, data, cf, via_stdin):
    command, fmt = cf
    if via_stdin:
        outcome_is_clean(with_format(command, fmt, ["-"]), input=data)
    else:
        path = fuzz_dir / "bytes.bin"
        path.write_bytes(data)
        outcome_is_clean(with_format(command, fmt, [str(path)]))


OPTION_VALUES = {
    "--set": [
        "a=foo",
        "=1",
        "a",
        "a=",
        "a=[1,",
        "a=[[1],[2,3]]",
        "a=1e400",
        "a=-1e-400",
        "a=__import__('os')",
        "1a=2",
        "a=1=2",
        "a=[]",
        "a=[1, 'x']",
        "a=True",
        "a=None",
        "a=(1, 2)",
    ],
    "--repeat": ["0", "-1", "abc", "1001", "1e3", "", "2"],
    "--format": ["xml", "", "JSON", "table", "json"],
    "--of": ["", "nope", "print", "__class__", "x", "torch", "1"],
    "--wrt": ["", ",,,", "nope", "x,,x", "__class__"],
    "--grad-tensors": [
        "",
        ")(",
        "[1,",
        "ones_like(x)",
        "x.__class__",
        "[[1]]",
        "1e400",
        "print(1)",
        "zeros(10**9)",
    ],
    "--max-elements": ["0", "-5", "x", "1", "99999999999999999999999"],
    "--max-iterations": ["0", "1", "abc"],
    "--max-statements": ["0", "1", "2"],
    "--max-depth": ["0", "1", "-1"],
    "--eps": ["0", "-1", "nan", "inf", "1e-300", "abc", "1"],
    "--atol": ["-1", "nan", "inf", "0"],
    "--rtol": ["-1", "nan", "0"],
    "--order": ["0", "3", "2", "x"],
    "--bogus": ["1"],
}


@settings(FUZZ, max_examples=100 * SCALE)
@given(
    st.sampled_from(["run", "grad", "graph", "check"]),
    st.lists(
        st.sampled_from(sorted(OPTION_VALUES)).flatmap(
            lambda o: st.tuples(st.just(o), st.sampled_from(OPTION_VALUES[o]))
        ),
        max_size=3,
    ),
)
def test_random_option_values(command, options):
    args = [command, "-e", "x = [1.0, 2.0]\ny = (x * x).sum()"]
    for option, value in options:
        args += [option, value]
    outcome_is_clean(args)


# --- pathological cases -------------------------------------------------------------------------------

MB = 1024 * 1024
PATHOLOGICAL = {
    "10000 nested parentheses": ("x = " + "(" * 10000 + "1" + ")" * 10000, 2),
    "10000 nested brackets": ("x = " + "[" * 10000 + "1" + "]" * 10000, 2),
    "5000 nested calls": ("x = " + "sin(" * 5000 + "1.0" + ")" * 5000, 2),
    "10000 unary minus": ("x = " + "-" * 10000 + "1.0\nprint(x)", 0),
    "10000 powers": ("x = " + "1.0**" * 10000 + "1", 0),
    "10000 attributes": ("x = torch" + ".sin" * 10000, 1),
    "2000 indented blocks": (
        "".join(" " * i + "if True:\n" for i in range(2000)) + " " * 2000 + "pass\n",
        None,
    ),
    "1 MB line of additions": ("x = 0" + " + 1" * (MB // 4) + "\nprint(x)", 0),
    "1 MB comment": ("# " + "c" * MB + "\nprint(1)", 0),
    "1 MB string": ("print(len('" + "s" * MB + "'))", 0),
    "1 MB of semicolons": (";" * MB, 2),
    "1e400": ("x = 1e400\ny = x * 2\nprint(y)", 0),
    "1e-400": ("x = 1e-400\ny = x * 2\nprint(y)", 0),
    "10**10**10": ("y = 10**10**10", 1),
    "2**1000000": ("y = 2**1000000", 1),
    "-2**1000000": ("y = -2**1000000.5", None),
    "huge float text": ("x = 1" + "0" * 5000 + ".0\nprint(x)", 0),
    "huge int literal": ("x = 1" + "0" * 5000, 2),
    "huge int in a tensor": ("x = tensor(2**200)", 1),
    "inf - inf": ("print(1e400 - 1e400, tensor(1e400) * 0)", 0),
    "int from a huge string": ("x = int('9' * 5000)", 1),
    "float overflow": ("x = 1e308 * 10.0\nprint(x)", 0),
    "unicode identifier": ("x = 1.0\ny = x * π", 2),
    "unicode string": ("print('ü€😀 \u202e backwards')", 0),
    "unicode comment": ("# комментарий 😀\nx = 1.0\ny = x * 2", 0),
    "non-breaking space": ("x = 1.0\u00a0+ 1", 2),
    "BOM in text": ("\ufeffx = 1.0", None),
    "NUL": ("x = 1.0\x00", 2),
    "NUL in a string": ("print('a\x00b')", None),
    "form feed": ("\x0cx = 1.0\nprint(x)", None),
    "CRLF": ("x = 2.0\r\ny = x * x\r\nprint(y)\r\n", 0),
    "CR only": ("x = 2.0\ry = x * x\rprint(y)", None),
    "lone backslash": ("x = 1 \\", 2),
    "unterminated string": ("print('abc", 2),
    "unterminated triple string": ("print('''abc", 2),
    "empty": ("", 0),
    "only whitespace": ("   \n\t\n  ", None),
    "only comments": ("# a\n# b\n", 0),
    "huge tensor": ("x = zeros(100000000)", 1),
    "huge broadcast": ("x = ones(100000, 1) * ones(1, 100000)", 1),
    "endless loop": ("while True:\n    pass", 1),
    "long range": ("for i in range(10**12):\n    pass", 1),
    "range too long for C": ("for i in range(10**30):\n    pass", 1),
    "range too long for C, listed": ("x = list(range(-10**30, 0, 3))", 1),
    "range too long for C, comprehension": ("x = [i for i in range(10**30)]", 1),
    "range too long for C, broken out of": ("for i in range(10**30):\n    break\nprint(i)", 0),
    "recursion": ("def f(n):\n    return f(n + 1)\nf(0)", 1),
    "mutual recursion": ("def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(0)", 1),
    "list doubling": ("x = list([0])\nfor i in range(100):\n    x = x + x", 1),
    "string doubling": ("x = 'ab'\nfor i in range(100):\n    x = x + x", 1),
    "int squaring": ("x = int(3)\nfor i in range(100):\n    x = x * x", 1),
    "tensor doubling": ("x = ones(1)\nfor i in range(100):\n    x = cat([x, x])", 1),
    "unpacking a huge tensor": ("p, q = zeros(10**7)", 1),
    "unpacking a huge range": ("p, q = range(10**30)", 1),
    "looping over a number": ("y = [k for k in 5]", 1),
    "looping over a 0-d tensor": ("for k in tensor(1.0):\n    pass", 1),
    "graph 100000 nodes long": ("x = 1.0\ny = x\nfor i in range(100000):\n    y = y * 1.0", 0),
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
@pytest.mark.parametrize("command", ["run", "grad"])
def test_pathological_scripts(name, command):
    text, expected = PATHOLOGICAL[name]
    r = outcome_is_clean([command, "-e", text, *CAPS])
    if command == "run" and expected is not None:
        assert r.exit_code == expected, r.stderr[:500]


def test_pathological_files(tmp_path):
    files = {
        "empty.txt": b"",
        "binary.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
        "latin1.txt": "x = 1.0 # caf\xe9".encode("latin-1"),
        "utf16.txt": "x = 1.0\n".encode("utf-16"),
        "nul.txt": b"x = 1.0\n\x00\n",
        "bom.txt": b"\xef\xbb\xbfx = 2.0\ny = x * x\n",
        "big.txt": b"x = 1.0\n" + b"# pad\n" * (MB // 6),
    }
    expected = {
        "empty.txt": 0,
        "binary.png": 2,
        "latin1.txt": 2,
        "utf16.txt": 2,
        "nul.txt": 2,
        "bom.txt": 0,
        "big.txt": 0,
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        for command in ("run", "grad", "graph", "check"):
            r = outcome_is_clean([command, str(tmp_path / name)])
            if command == "run":
                assert r.exit_code == expected[name], (name, r.stderr)
    for path in (tmp_path, tmp_path / "missing.txt", Path("/dev/null")):
        r = outcome_is_clean(["run", str(path)])
        assert r.exit_code == (0 if str(path) == "/dev/null" else 2)
    locked = tmp_path / "locked.txt"
    locked.write_text("print(1)\n")
    locked.chmod(0)
    try:
        r = outcome_is_clean(["run", str(locked)])
        assert r.exit_code == (0 if os.access(locked, os.R_OK) else 2)  # root may read it anyway
    finally:
        locked.chmod(0o644)


@pytest.mark.parametrize(
    "args",
    [
        ["grad", "-e", "x = 1.0", "--repeat", "0"],
        ["grad", "-e", "x = 1.0", "--format", "xml"],
        ["grad", "-e", "x = 1.0", "--set", "a=foo"],
        ["grad", "-e", "x = 1.0", "--set", "=1"],
        ["grad", "-e", "x = 1.0", "--set", "a=[1, [2]]"],
        ["check", "-e", "x = 1.0\ny = x", "--eps", "nan"],
        ["run", "-e", "x = 1.0", "--max-iterations", "-1"],
        ["run", "samples/card.txt", "-e", "x = 1"],
        ["run"],
        ["nope"],
        ["grad", "--of"],
    ],
)
def test_bad_option_values_exit_2(args, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert outcome_is_clean(args).exit_code == 2
    if "--format" not in args:
        r = outcome_is_clean(args + ["--format", "json"])
        assert r.exit_code == 2 and r.stdout == ""
        if args[0] in ("grad", "check") and args[-1] != "--of":  # the JSON error object
            assert json.loads(r.stderr.splitlines()[-1])["error"]["type"] in ("UsageError", "FileError")


def test_more_than_a_thousand_inputs_ran():
    """Runs last in this module (pytest keeps file order): the count of checked runs."""
    if COUNT["runs"] == 0:
        pytest.skip("run the whole module to count")
    assert COUNT["runs"] >= 1000, COUNT["runs"]
