"""The fast path (diffcli.lang.fastparse) must build exactly what Lark's parser builds.

For every text the fast driver either gives up (and Lark then decides, so error
messages never change) or returns the same tree as Lark, spans, node types and
token fields included. These tests compare the two on the parser tests' texts, the
samples, the seeds, mutants of them and generated scripts; and check that the driver's
tables, shipped as plain data, let a script parse without importing Lark, and are the
tables Lark builds now.
"""

from __future__ import annotations

import ast as pyast
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from lark import Token

from diffcli.lang import ast, fastparse, larkparse, parsetables
from diffcli.lang import parse as parse_module
from diffcli.lang.builder import Builder
from diffcli.lang.parse import ScriptSyntaxError, parse

from .test_parse import _SAMPLE, ERRORS, _mutants, _seed_files

ROOT = Path(__file__).resolve().parents[2]


def _fast():
    fast = parse_module._fast_parser()  # the one parse() uses: the shipped tables, or built
    assert fast is not None, "the fast driver could not be built for this grammar"
    return fast


def _same(a, b) -> bool:
    """Deep equality that also checks types and every token field."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, ast.Node):
        return all(_same(getattr(a, f), getattr(b, f)) for f in ast.fields(a))
    if isinstance(a, Token):
        fields = ("type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos")
        return str(a) == str(b) and all(getattr(a, f) == getattr(b, f) for f in fields)
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


def _check(text: str) -> bool:
    """Compare the two paths on `text` (already normalised); True if it parses."""
    lark = larkparse._parser().lark
    try:
        expected = lark.parse(text)
    except Exception:
        expected = None
    try:
        got = _fast().parse(text)
    except Exception:
        assert expected is None, f"the fast path gave up on a script Lark parses: {text!r}"
        return False
    assert expected is not None, f"the fast path accepted a script Lark rejects: {text!r}"
    assert _same(got, expected), f"the fast path built a different tree for {text!r}"
    return True


def _corpus() -> list[str]:
    texts = [
        node.value
        for path in (Path(__file__).parent / "test_parse.py",)
        for node in pyast.walk(pyast.parse(path.read_text()))
        if isinstance(node, pyast.Constant) and isinstance(node.value, str)
    ]
    texts += [path.read_text() for path in sorted((ROOT / "samples").glob("*.txt"))]
    texts += [path.read_text() for path in _seed_files()]
    return texts


def _normalised(texts):
    for text in texts:
        try:
            yield parse_module._normalise(text)
        except ScriptSyntaxError:
            pass


def test_the_fast_path_is_available():
    assert isinstance(_fast(), fastparse.FastParser)
    assert isinstance(
        fastparse.build(larkparse._parser().lark, parse_module.MAX_BRACKET_DEPTH), fastparse.FastParser
    )


def test_the_tables_survive_json():
    tables = fastparse.plan(larkparse._parser().lark, parse_module.MAX_BRACKET_DEPTH)
    stored = fastparse.FastParser(json.loads(json.dumps(tables)), Builder())
    lark = larkparse._parser().lark
    texts = [text for text in _normalised(_corpus()) if len(text) < 5000]
    for text in texts[:200]:
        try:
            expected = lark.parse(text)
        except Exception:
            continue
        assert _same(stored.parse(text), expected), text


def test_same_trees_on_the_test_texts_samples_and_seeds():
    parsed = sum(_check(text) for text in _normalised(_corpus()))
    assert parsed > 100


def test_same_trees_on_mutants():
    base = [text for text in _corpus() if len(text) < 5000]
    parsed = sum(_check(text) for text in _normalised(_mutants(random.Random(3), base, 1500)))
    assert parsed > 100


LAYOUTS = [
    "if a:\n\tx = 1\n\ty = 2\n",
    "if a:\n    \tx = 1\n    \ty = 2\nz = 3\n",
    "x = 1 \f+ 2\n",
    "if a:\n  if b:\n    x = (1,\n2)\n# c\n  y = 2\n",
    "for i in xs:\n  pass\n  \n\t\n# c\n",
    "def f():\n  return [1,\n    2]\n\n\n",
    "x = '''a\n  b''' + \\\n  'c'\ny = 1\n",
    "  \nx = 1\n",
    "\n\n   # c\nif a: x = 1\nelse: y = 2\n",
    "while a:\n    try:\n        pass\n    finally:\n        pass\n",
]


@pytest.mark.parametrize("src", LAYOUTS)
def test_same_trees_on_tricky_layouts(src):
    assert _check(parse_module._normalise(src))


@pytest.mark.parametrize(
    "src",
    [
        "if a:\n\tx = 1\n        y = 2\n",  # a tab and 8 spaces: the same only if a tab is 8
        "if a:\n        x = 1\n\ty = 2\n",
        "if a:\n  \tx = 1\n\ty = 2\n",
    ],
)
def test_both_paths_refuse_what_python_calls_a_tab_error(src):
    """Python's TabError (issue 9): the fast path gives up and Lark's postlexer refuses."""
    assert not _check(parse_module._normalise(src))
    with pytest.raises(ScriptSyntaxError) as e:
        parse_module.parse(src)
    assert (e.value.type_name, e.value.message, e.value.line) == (
        "TabError",
        "inconsistent use of tabs and spaces in indentation",
        3,
    )


def test_a_tab_advances_to_the_next_multiple_of_8_as_in_python():
    """'    \t' is column 8 (not 4 + 8), so 12 spaces after it are an unexpected indent."""
    with pytest.raises(ScriptSyntaxError) as e:
        parse_module.parse("if a:\n    \tx = 1\n            y = 2\nz = 3\n")
    assert (e.value.type_name, e.value.message, e.value.line) == ("IndentationError", "unexpected indent", 3)


def _script(rng: random.Random, lines: int) -> str:
    """A valid script with blocks, brackets across lines, comments and continuations."""
    operands = [
        "x",
        "y1",
        "w.T",
        "f(a, b=2)",
        "a[1:, ::2]",
        "(a + b)",
        "[1, 2.5]",
        "'s'",
        "'''t\nu'''",
        "-x ** 2",
        "(\n  a,\n  b\n)",
        "(x if c else y)",
        "(a < b <= c)",
        "(not a or b and c)",
        "[v * 2 for v in xs if v]",
        "None",
        "...",
        "1e-3",
    ]
    out, indents = [], [0]
    for _ in range(lines):
        roll = rng.random()
        pad = " " * indents[-1]
        if roll < 0.1 and len(indents) < 5:
            head = rng.choice(
                ["if a:", "for i, j in xs:", "while b:", "with g() as h:", "def f(p, q=1):", "try:"]
            )
            out.append(pad + head)
            indents.append(indents[-1] + rng.choice([1, 2, 4]))
            out.append(" " * indents[-1] + "pass")
            if head == "try:":
                out += [pad + "except E as e:", " " * indents[-1] + "pass"]
        elif roll < 0.2 and len(indents) > 1:
            indents.pop()
            out.append(pad + "# a comment")
        else:
            op = rng.choice([" + ", " - ", " * ", " / ", " ^ ", " @ "])
            rhs = rng.choice(operands) + op + rng.choice(operands)
            out.append(
                pad
                + rng.choice(["z = ", "a, b = ", "q[0] += ", "", "m.n = "])
                + rhs
                + rng.choice(["", "  # note", "; k = 1", " \\\n  + 1"])
            )
    return "\n".join(out) + "\n"


def test_same_trees_on_generated_scripts():
    rng = random.Random(11)
    for _ in range(60):
        text = parse_module._normalise(_script(rng, rng.randrange(5, 80)))
        assert _check(text), text


@pytest.mark.parametrize("copies", [1, 40])
def test_scripts_take_the_fast_path(monkeypatch, copies):
    text = _SAMPLE * copies
    expected = larkparse._parser().lark.parse(parse_module._normalise(text))
    monkeypatch.setattr(larkparse._parser().lark, "parse", None)  # Lark must not be needed
    script = parse(text)
    assert _same(script.body, expected.body)


@pytest.mark.parametrize(
    "src, line, column, type_name, message", ERRORS, ids=[repr(row[0])[:30] for row in ERRORS]
)
def test_errors_are_the_same_through_the_fast_path(src, line, column, type_name, message):
    with pytest.raises(ScriptSyntaxError) as info:
        parse(src)
    err = info.value
    assert (err.line, err.column, err.type_name, err.message) == (line, column, type_name, message)


def test_an_error_at_the_end_of_a_long_script_is_reported_as_before():
    lines = [f"x{i} = x{i - 1} * 0.5 + 1" for i in range(1, 400)]
    text = "\n".join(lines) + "\nif x1 = 2:\n    pass\n"
    assert len(text) > 2000
    with pytest.raises(ScriptSyntaxError) as info:
        parse(text)
    err = info.value
    assert (err.line, err.column, err.message) == (
        400,
        7,
        "unexpected '=' — expected ':' (use '==' to compare)",
    )
    assert isinstance(parse("\n".join(lines)).body[-1], ast.Assign)


# ------------------------------------------------------------ the shipped tables

_PROBE = """
import sys
from diffcli.lang.parse import ScriptSyntaxError, parse
script = parse({text!r})
print(type(script.body[0]).__name__, "lark" in sys.modules)
try:
    parse("x = )")
except ScriptSyntaxError as err:
    print(err.line, err.column, err.message, "lark" in sys.modules)
"""


def _probe(tmp_path: Path, text: str = "x = a + b; y = x*w\n", **env) -> list[str]:
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CACHE_HOME": str(tmp_path / "xdg"), **env}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(text=text)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return out.splitlines()


def test_the_shipped_tables_parse_without_lark(tmp_path):
    assert _probe(tmp_path) == ["Assign False", "1 5 unmatched ')' True"]
    assert _probe(tmp_path, DIFFCLI_NO_CACHE="1") == ["Assign False", "1 5 unmatched ')' True"]


def test_the_shipped_tables_are_not_stale():
    # fails after an edit of grammar/diffscript.lark: run `python -m diffcli.lang.parsetables`
    grammar = parse_module.grammar_text()
    assert parsetables.load(grammar, parse_module.MAX_BRACKET_DEPTH) is not None
    doc = json.loads(Path(parsetables.TABLES_FILE).read_text())
    assert doc["key"] == parsetables.key(grammar, parse_module.MAX_BRACKET_DEPTH)
    assert doc["key"]["format"] == fastparse.PLAN_FORMAT


def test_the_shipped_tables_are_what_plan_builds_now():
    import lark as lark_package

    doc = json.loads(Path(parsetables.TABLES_FILE).read_text())
    if doc["lark_version"] != lark_package.__version__:
        pytest.skip(
            f"the tables were built with Lark {doc['lark_version']}, Lark "
            f"{lark_package.__version__} is installed: its tables may be numbered differently"
        )
    if fastparse._NEEDS_GREEDY:
        pytest.skip("before Python 3.11 Lark builds the greedy form of the grammar's possessive patterns")
    fresh = parsetables.document(
        larkparse._parser().lark, parse_module.grammar_text(), parse_module.MAX_BRACKET_DEPTH
    )
    assert fresh == doc
    assert parsetables.dumps(fresh) == Path(parsetables.TABLES_FILE).read_text()


def test_plan_is_the_same_in_every_process():
    code = "from diffcli.lang import parsetables; print(parsetables._current())"
    runs = [
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    ]
    assert runs[0] == runs[1]


def _stale(monkeypatch, tables_file=None, grammar=None):
    """parse() from scratch, with the tables file and/or the grammar replaced."""
    monkeypatch.setattr(parse_module, "_fast", None)
    if tables_file is not None:
        monkeypatch.setattr(parsetables, "TABLES_FILE", str(tables_file))
    if grammar is not None:
        monkeypatch.setattr(parse_module, "grammar_text", lambda: grammar)
    built = []
    real = parse_module._plan_from_lark
    monkeypatch.setattr(parse_module, "_plan_from_lark", lambda: built.append(1) or real())
    fast = parse_module._fast_parser()
    return fast, built


@pytest.mark.parametrize("content", [None, b"", b"garbage", b"[1, 2]", b'{"key": 1}', b"\xff\xfe"])
def test_missing_or_damaged_tables_are_built_in_memory(tmp_path, monkeypatch, content):
    path = tmp_path / "tables.json"
    if content is not None:
        path.write_bytes(content)
    fast, built = _stale(monkeypatch, tables_file=path)
    assert built == [1] and isinstance(fast, fastparse.FastParser)
    assert _same(fast.parse("y = f(x)[0]\n"), larkparse._parser().lark.parse("y = f(x)[0]\n"))
    if content is None:
        assert not path.exists()  # nothing is written in its place
    else:
        assert path.read_bytes() == content


def test_tables_for_another_grammar_are_not_used(monkeypatch):
    grammar = parse_module.grammar_text() + "\n// a developer's edit\n"
    fast, built = _stale(monkeypatch, grammar=grammar)
    assert built == [1] and isinstance(fast, fastparse.FastParser)
    assert parsetables.load(grammar, parse_module.MAX_BRACKET_DEPTH) is None
    assert parsetables.load(parse_module.grammar_text(), parse_module.MAX_BRACKET_DEPTH + 1) is None


def test_tables_with_bad_contents_fall_back_to_lark(tmp_path, monkeypatch):
    doc = json.loads(Path(parsetables.TABLES_FILE).read_text())
    doc["tables"]["rules"][0][2] = 99  # no such kind of rule
    path = tmp_path / "tables.json"
    path.write_text(json.dumps(doc))
    fast, built = _stale(monkeypatch, tables_file=path)
    assert built == [1] and isinstance(fast, fastparse.FastParser)


def test_the_parse_check_command(capsys):
    assert parsetables.main(["--check"]) == 0
    assert capsys.readouterr().out.endswith("up to date\n")
    assert parsetables.main(["--bogus"]) == 2
