"""Parsing takes memory in proportion to the script with a small constant, and stops at
its caps (issue 9, finding 5: a 60 MB string literal took 20.8 GB, 60 MB of `x = 1.0`
lines passed 10 GB).

- The lexer takes constant memory per token, however long the token: the terminals that
  can match a long text are written so that Python's regex engine does not backtrack
  (grammar/diffscript.lark). Measured here with tracemalloc, which sees the regex
  engine's own stack, and shown to match exactly what the old patterns matched.
- The caps (`diffcli.lang.parselimits`): the script's size (--max-script-size), its
  statements (--max-statements, counted as the parser builds them), the memory parsing
  takes (--max-memory) and the parser's nesting. Checked in process, exactly.
- Peak memory of whole runs on 20 MB scripts, measured: each runs the CLI in a child
  process (under a 4 GB address-space cap, so a regression fails instead of swapping),
  whose peak resident memory a launcher reads with getrusage(RUSAGE_CHILDREN).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from lark import Lark

from diffcli.lang import ast, fastparse, larkparse
from diffcli.lang import parse as parse_module
from diffcli.lang.parse import ParseLimitError, ParseLimits, ScriptSyntaxError, parse
from diffcli.lang.parselimits import CHECK_EVERY, MAX_NESTING, MB

from .test_fastparse import _corpus, _normalised, _script

MiB = 1 << 20


# ------------------------------------------------------------------ the lexer

# The terminals as they were, whose regexes backtrack: about 150 bytes of the regex
# engine's stack per character of a string literal, 960 per blank line.
OLD_TERMINALS = {
    "STRING": r"""STRING: /[A-Za-z]{0,2}("([^"\\\n]|\\[\s\S])*"|'([^'\\\n]|\\[\s\S])*')/""",
    "LONG_STRING": r'''LONG_STRING.2: /[A-Za-z]{0,2}("""([^\\]|\\[\s\S])*?"""|'''
    r"""'''([^\\]|\\[\s\S])*?''')/""",
    "_NEWLINE": r"_NEWLINE: (/\r?\n[\t ]*/ | COMMENT)+",
}


def _old_grammar() -> str:
    lines = []
    for line in parse_module.grammar_text().split("\n"):
        name = line.split(":")[0].split(".")[0]
        lines.append(OLD_TERMINALS.get(name, line))
    text = "\n".join(lines)
    assert all(t in text for t in OLD_TERMINALS.values())
    return text


def _lexer(grammar: str) -> Lark:
    return Lark(grammar, parser="lalr", lexer="basic", keep_all_tokens=True, maybe_placeholders=False)


def _lex(lark: Lark, text: str):
    try:
        return [(t.type, str(t), t.start_pos) for t in lark.lex(text)]
    except Exception as err:
        return (type(err).__name__, getattr(err, "pos_in_stream", None))


def _random_texts(count: int) -> list[str]:
    rng = random.Random(5)
    pieces = ["'", '"', "\\", "a", "\n", " ", "#", "'''", '"""', "r", "x", "1", "(", "\t", "\\\n"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 14))) for _ in range(count)]


def _terminals(grammar: str) -> dict:
    """Each terminal's compiled regex, as Lark builds it."""
    return {t.name: re.compile(t.pattern.to_regexp()) for t in _lexer(grammar).terminals}


def test_each_terminal_matches_exactly_what_the_backtracking_one_did():
    old = _terminals(_old_grammar())
    greedy = _terminals(parse_module.lark_grammar(greedy=True))  # as before Python 3.11
    # (Python 3.10's re cannot compile the possessive ones: there the greedy ones are all)
    new = greedy if fastparse._NEEDS_GREEDY else _terminals(parse_module.lark_grammar(greedy=False))
    assert old.keys() == new.keys() == greedy.keys()
    names = [name for name in old if old[name].pattern != greedy[name].pattern]
    assert sorted(names) == sorted(OLD_TERMINALS)
    assert fastparse._NEEDS_GREEDY or all(greedy[name].pattern != new[name].pattern for name in names)
    texts = _random_texts(20_000) + list(_normalised(_corpus()))
    for name in names:
        for text in texts:
            for pos in range(len(text)):
                expected = old[name].match(text, pos)
                expected = expected and expected.span()
                for regexes in (new, greedy):
                    got = regexes[name].match(text, pos)
                    assert (got and got.span()) == expected, (name, text, pos)


def test_the_lexer_makes_the_same_tokens_as_with_the_backtracking_terminals():
    old, new = _lexer(_old_grammar()), _lexer(parse_module.lark_grammar())
    for text in _random_texts(1000) + list(_normalised(_corpus())):
        assert _lex(new, text) == _lex(old, text), text


@pytest.mark.parametrize(
    "pattern, greedy",
    [
        (r"a*+b++c?+d{1,2}+", r"a*b+c?d{1,2}"),
        (r"[*+]+\*+\++(?:x)*+", r"[*+]+\*+\++(?:x)*"),  # classes and escapes are kept
        (r"[]+]*+[^]*+]++", r"[]+]*[^]*+]+"),
        (r"(?:a|b)++(?=c)", r"(?:a|b)+(?=c)"),
        (r"a+?b*?", r"a+?b*?"),  # lazy quantifiers are not possessive
    ],
)
def test_without_possessive(pattern, greedy):
    assert fastparse.without_possessive(pattern) == greedy


# Python 3.10's re has no possessive quantifiers, so there the regex engine keeps state
# for each repetition of a group inside one token: bytes per character measured on 3.10.13
# (README, "Parsing and memory"). 3.11 and later: none.
BYTES_PER_CHAR_310 = {"escapes": 125, "long string": 82, "blank lines": 599, "comments": 197}


def _bound(shape, n):
    """Peak memory lexing a token of `n` characters of this shape may take."""
    per_char = BYTES_PER_CHAR_310.get(shape, 0) if fastparse._NEEDS_GREEDY else 0
    return 2 * n + 64 * 1024 + int(per_char * 1.1) * n


SHAPES = {  # what a long token looks like; each about 1 MB
    "string": lambda n: "x = '" + "a" * n + "'\n",
    "escapes": lambda n: "x = '" + "\\n" * (n // 2) + "'\n",
    "long string": lambda n: 'x = """' + 'a"b\n' * (n // 4) + '"""\n',
    "blank lines": lambda n: "x = 1\n" + "\n" * n + "y = 2\n",
    "comments": lambda n: "x = 1\n" + "  # c\n" * (n // 6) + "y = 2\n",
    "spaces": lambda n: "x = 1" + " " * n + "\n",
    "name": lambda n: "x" * n + " = 1\n",
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_lexing_a_long_token_takes_no_memory_beyond_its_text(shape):
    text = parse_module._normalise(SHAPES[shape](1_000_000))
    fast = parse_module._fast_parser()
    lark = larkparse._parser().lark
    tracemalloc.start()
    try:
        for tokens in (fast.tokens(text), lark.lex(text)):
            tracemalloc.reset_peak()
            count = sum(1 for _ in tokens)
            peak = tracemalloc.get_traced_memory()[1]
            assert count < 10
            # a token's text is copied twice at most (the match, the Token); the old
            # patterns took 150 to 960 bytes per character
            assert peak < _bound(shape, len(text)), (shape, peak)
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------ the caps, in process


def _limit_error(text, **caps) -> ParseLimitError:
    with pytest.raises(ParseLimitError) as info:
        parse(text, "f.txt", ParseLimits(**caps))
    err = info.value
    assert err.type_name == "LimitError" and err.filename == "f.txt"
    assert isinstance(err, ScriptSyntaxError)
    return err


def test_the_size_cap_points_at_the_first_character_past_it():
    text = "x = 1\ny = 'abc'\n"
    assert len(parse(text, "f.txt", ParseLimits(max_bytes=len(text))).body) == 2
    for cap, where in ((len(text) - 1, (2, 10)), (9, (2, 4)), (6, (2, 1)), (1, (1, 2))):
        err = _limit_error(text, max_bytes=cap)
        assert (err.line, err.column) == where
        assert err.message == (
            f"the script is larger than the limit of {cap / MB:.3g} MB (raise it with --max-script-size)"
        )
    err = _limit_error(text.encode() * (MB // 8), max_bytes=MB)  # bytes are counted as bytes
    assert (err.line, err.column, err.message) == (
        131073,
        1,
        "the script is larger than the limit of 1 MB (raise it with --max-script-size)",
    )


def _statements(node) -> int:
    """The statements in a tree, each `elif` an If of its own."""
    pending, count = [node], 0
    while pending:
        item = pending.pop()
        if isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, ast.Node):
            count += isinstance(item, ast.Stmt)
            pending.extend(getattr(item, f) for f in type(item)._fields)
    return count


def test_the_parser_counts_every_statement_it_builds():
    fast = parse_module._fast_parser()
    rng = random.Random(2)
    texts = _corpus() + [_script(rng, rng.randrange(5, 80)) for _ in range(60)]
    total = 0
    for text in _normalised(texts):
        try:
            expected = _statements(larkparse._parser().lark.parse(text))
        except Exception:
            continue
        budget = ParseLimits(max_statements=10**9).budget()
        fast.parse(text, budget)
        assert budget.statements == expected, text
        total += expected
    assert total > 2000


STATEMENT_CAP = [  # text, cap, position of the first statement past the cap
    ("x = 1\ny = 2; z = 3\n", 2, (2, 8)),
    ("x = 1\ny = 2; z = 3\n", 3, None),
    ("if a:\n    x = 1\nelif b:\n    y = 2\nelse:\n    z = 3\n", 4, (1, 1)),  # 5: If, x, If, y, z
    ("if a:\n    x = 1\nelif b:\n    y = 2\nelse:\n    z = 3\n", 5, None),
    ("def f():\n    return 1\nfor i in xs:\n    pass\n", 2, (4, 5)),  # `pass` is the third
    ("with a:\n    try:\n        pass\n    except E:\n        pass\n", 3, (1, 1)),
]


@pytest.mark.parametrize("text, cap, where", STATEMENT_CAP)
def test_the_statement_cap_stops_at_the_first_statement_past_it(text, cap, where):
    if where is None:
        assert parse(text, "f.txt", ParseLimits(max_statements=cap)).body
        return
    err = _limit_error(text, max_statements=cap)
    assert (err.line, err.column) == where
    assert err.message == f"the script has more than {cap} statements (raise the cap with --max-statements)"


def test_a_limit_stops_the_parse_and_is_not_handed_to_lark(monkeypatch):
    calls = []
    real = larkparse.parse
    monkeypatch.setattr(larkparse, "parse", lambda text: calls.append(1) or real(text))
    text = "x = 1\n" * 50 + "y = (\n"  # a syntax error after the cap
    err = _limit_error(text, max_statements=10)
    assert (err.line, err.column) == (11, 1) and calls == []
    with pytest.raises(ScriptSyntaxError) as info:  # the error before the cap: Lark words it
        parse(text, "f.txt", ParseLimits(max_statements=100))
    assert type(info.value) is ScriptSyntaxError and calls == [1]
    assert (info.value.line, info.value.message) == (51, "unexpected end of input — a '(' is not closed")


def test_statements_in_a_loop_are_not_counted_twice():
    text = "for i in range(10**6):\n    x = i\n"
    assert parse(text, "f.txt", ParseLimits(max_statements=2)).body


def test_the_nesting_cap():
    depth = MAX_NESTING + 2 * CHECK_EVERY
    err = _limit_error("x = " + "-" * depth + "1\n")
    assert err.message == "expression nested too deeply" and err.line == 1
    assert MAX_NESTING < err.column - 4 <= MAX_NESTING + CHECK_EVERY
    assert parse("x = " + "-" * (MAX_NESTING // 2) + "1\n", "f.txt", ParseLimits()).body
    long = "x = [" + "1, " * (MAX_NESTING // 2 + CHECK_EVERY) + "1]\n"  # long, not deep
    assert parse(long, "f.txt", ParseLimits()).body


def test_the_memory_cap_stops_the_parse_at_the_first_check_past_it():
    reads = []

    def memory():  # a process that grows by 1 MB per check
        reads.append(1)
        return len(reads) * MB

    text = "x = [" + "1, " * (10 * CHECK_EVERY) + "1]\n"
    err = _limit_error(text, max_memory=3, memory=memory)
    assert len(reads) == 5  # the start, then 1, 2, 3 MB, then 4 MB is past the cap
    assert err.message == (
        "parsing the script takes more than the limit of 3 MB of memory (raise it with --max-memory)"
    )
    # at token 4 x CHECK_EVERY: `x`, `=`, `[`, then "1" and "," in turn from column 6
    assert (err.line, err.column) == (1, 6 + 3 * ((4 * CHECK_EVERY - 4) // 2))
    reads.clear()
    assert parse(text, "f.txt", ParseLimits(max_memory=30, memory=memory)).body
    assert parse(text, "f.txt", ParseLimits(max_memory=1, memory=lambda: None)).body  # cannot tell


def test_the_statement_rules_are_the_grammars():
    lark = larkparse._parser().lark
    compound = {rule.expansion[0].name for rule in lark.rules if rule.origin.name == "compound_stmt"}
    origins = {rule.origin.name for rule in lark.rules}
    assert compound | {"small_stmt", "elif_clause"} == parse_module.STATEMENT_RULES
    assert parse_module.STATEMENT_RULES <= origins


# ------------------------------------------------------------------ whole runs, measured

_LAUNCH = r"""
import json, resource, subprocess, sys
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
r = subprocess.run(sys.argv[1:], capture_output=True, text=True, preexec_fn=cap, timeout=300)
print(json.dumps({"code": r.returncode, "out": r.stdout[-500:], "err": r.stderr[:500],
                  "peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
"""


def _measured(tmp_path: Path, text: str, *options) -> dict:
    """`diffcli run FILE OPTIONS` on `text`: its exit code, output and peak resident memory."""
    path = tmp_path / "script.txt"
    path.write_text(text)
    result = subprocess.run(
        [sys.executable, "-c", _LAUNCH, sys.executable, "-m", "diffcli", "run", str(path), *options],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)
    run["err"] = run["err"].replace(str(path), "script.txt")
    return run


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> int:
    """The peak memory of a run of a one-line script."""
    run = _measured(tmp_path_factory.mktemp("baseline"), "x = 'a'\nprint(len(x))\n")
    assert (run["code"], run["out"]) == (0, "1\n")
    return run["peak"]


def _first_line(run) -> str:
    return run["err"].split("\n")[0]


def test_a_20_mb_string_literal(tmp_path, baseline):
    text = "x = '" + "a" * 20_000_000 + "'\nprint(len(x))\n"
    run = _measured(tmp_path, text, "--max-script-size", "32")
    assert (run["code"], run["out"], run["err"]) == (0, "20000000\n", "")
    assert run["peak"] - baseline < 8 * len(text)  # was about 350 bytes per character
    run = _measured(tmp_path, text)  # 16 MB by default
    assert run["code"] == 1
    assert _first_line(run) == (
        "error: script.txt:1:16777217: LimitError: the script is larger than "
        "the limit of 16 MB (raise it with --max-script-size)"
    )
    assert run["peak"] - baseline < 4 * 16 * MiB


def test_20_mb_of_short_lines(tmp_path, baseline):
    text = "x = 1.0\n" * 2_500_000
    run = _measured(tmp_path, text, "--max-script-size", "32", "--max-statements", "200000")
    assert run["code"] == 1
    assert run["err"] == (
        "error: script.txt:200001:1: LimitError: the script has more than 200000 "
        "statements (raise the cap with --max-statements)\n    x = 1.0\n    ^\n"
    )
    # the text, and at most 1 KB for each statement parsed (about 600 bytes are)
    assert run["peak"] - baseline < 4 * len(text) + 200_000 * 1024
    assert run["peak"] < 1 << 30
    run = _measured(tmp_path, text)
    assert run["code"] == 1
    assert _first_line(run) == (
        "error: script.txt:2097153:1: LimitError: the script is larger than "
        "the limit of 16 MB (raise it with --max-script-size)"
    )
    assert run["peak"] - baseline < 4 * 16 * MiB


def test_a_long_line_stops_at_the_memory_cap(tmp_path, baseline):
    text = "x = [" + "1," * 4_000_000 + "1]\n"  # 8 MB, about 2 GB to parse
    run = _measured(tmp_path, text, "--max-memory", "200")
    assert run["code"] == 1
    assert _first_line(run).startswith("error: script.txt:1:")
    assert _first_line(run).endswith(
        ": LimitError: parsing the script takes more than the limit "
        "of 200 MB of memory (raise it with --max-memory)"
    )
    assert run["peak"] - baseline < (200 + 64) * MiB


def test_deep_nesting_stops_at_the_nesting_cap(tmp_path, baseline):
    text = "x = " + "-" * 8_000_000 + "1\n"
    run = _measured(tmp_path, text)
    assert run["code"] == 1
    assert _first_line(run).endswith(": LimitError: expression nested too deeply")
    assert run["peak"] - baseline < 200 * MiB


@pytest.mark.parametrize("shape", ["blank lines", "comments", "escapes"])
def test_long_tokens_in_a_whole_run(tmp_path, baseline, shape):
    # (on Python 3.10 a tenth of the size: there 10 MB of blank lines take 6 GB)
    text = SHAPES[shape](1_000_000 if fastparse._NEEDS_GREEDY else 10_000_000)
    run = _measured(tmp_path, text)
    assert (run["code"], run["err"]) == (0, "")
    assert run["peak"] - baseline < max(12 * len(text), _bound(shape, len(text)))


# ------------------------------------------------------------------ --max-script-size


def _cli(*args, input=None):
    from tests.cli.samples import cli

    return cli(*args, input=input)


def test_max_script_size_on_a_file_and_on_standard_input(tmp_path):
    text = "x = 1.0\n" * (MiB // 8) + "y = 2.0\n"  # one line past 1 MB
    path = tmp_path / "s.txt"
    path.write_text(text)
    expected = "LimitError: the script is larger than the limit of 1 MB (raise it with --max-script-size)\n"
    r = _cli("run", str(path), "--max-script-size", "1")
    assert (r.exit_code, r.stdout) == (1, "")
    assert r.stderr == f"error: {path}:131073:1: " + expected
    r = _cli("run", "-", "--max-script-size", "1", input=text)
    assert (r.exit_code, r.stderr) == (1, "error: <stdin>:131073:1: " + expected)
    r = _cli("grad", str(path), "--max-script-size", "1", "--format", "json")
    assert r.exit_code == 1
    assert json.loads(r.stderr) == {
        "error": {
            "type": "LimitError",
            "message": expected[len("LimitError: ") : -1],
            "file": str(path),
            "line": 131073,
            "column": 1,
        }
    }
    path.write_text("x = 'abcdef'\n" + "y = 1\n" * (MiB // 6))  # the cap falls inside a line
    r = _cli("run", str(path), "--max-script-size", "1")
    line, cut = 2 + (MiB - 13) // 6, (MiB - 13) % 6  # bytes into the "y = 1" lines
    assert cut == 3
    assert r.stderr == (f"error: {path}:{line}:4: " + expected + "    y =\n       ^\n")
    path.write_text(text)
    assert _cli("run", str(path), "--max-script-size", "2").exit_code == 0


def test_a_multibyte_character_across_the_cap(tmp_path):
    path = tmp_path / "s.txt"
    path.write_bytes(b"x = '" + b"a" * (MiB - 6) + "\u00e9\u00e9".encode() + b"'\n")
    r = _cli("run", str(path), "--max-script-size", "1")
    assert r.exit_code == 1
    # the cap falls inside the first "é" (bytes MiB - 1 and MiB): that character is past it
    assert r.stderr.startswith(f"error: {path}:1:{MiB}: LimitError: the script is larger")


def test_max_script_size_must_be_at_least_1():
    r = _cli("run", "-e", "x = 1", "--max-script-size", "0")
    assert (r.exit_code, r.stderr) == (2, "error: UsageError: --max-script-size must be at least 1, got 0\n")
