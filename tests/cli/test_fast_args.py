"""The fast path of `diffcli.cli.main`: plain command lines run without Typer or Click.

`_fast_args` must read a command line exactly as Typer would call the command, or decline
it (Typer then handles it). These tests compare the two readings on hand-picked and
generated command lines, check its option table against the Typer app's own options,
run the pinned samples through the Typer path too, and check that the common command
(`grad ... --format json`) imports neither Typer, Click, Rich nor Lark.
"""

from __future__ import annotations

import functools
import json
import os
import random
import subprocess
import sys

import click
import pytest
from typer.main import get_command
from typer.testing import CliRunner

from diffcli import cli

from .samples import COMMANDS, ROOT, SAMPLES, expected_path, render

CARD = ["samples/card.txt", "--set", "a=1", "--set", "b=2", "--set", "w=0.5"]


def _typer_kwargs(argv):
    """(exit code, command, keyword arguments) as Typer and Click read `argv`."""
    calls = []

    def spy(function):
        @functools.wraps(function)
        def record(**kwargs):
            calls.append((function.__name__, kwargs))
            return 0

        return record

    app = cli._build_app([spy(f) for f in cli.COMMANDS.values()])
    original = cli._fast_args
    cli._fast_args = lambda args: None
    try:
        result = CliRunner().invoke(app, argv)
    finally:
        cli._fast_args = original
    if not calls:
        return result.exit_code, None, None
    ((name, kwargs),) = calls
    return result.exit_code, name, kwargs


PLAIN = [
    ["grad", *CARD, "--format", "json"],
    ["grad", *CARD, "-f", "tsv"],
    ["grad", "--format=json", *CARD],
    [
        "grad",
        "-e",
        "x = a*2",
        "--set=a=3",
        "--wrt",
        "a",
        "--of",
        "x",
        "--retain-graph",
        "--create-graph",
        "--repeat",
        "3",
        "--grad-tensors",
        "1.0",
    ],
    [
        "grad",
        "-",
        "--max-elements",
        "5",
        "--max-iterations=7",
        "--max-statements",
        "0009",
        "--max-depth",
        "3",
        "--max-memory",
        "1",
    ],
    ["grad", "x.txt", "--repeat", "1000", "--retain-graph", "--retain-graph", "-f", "json", "-f", "table"],
    ["grad"],
    ["grad", "--max-depth", "0"],
    ["graph", *CARD, "--backward", "--of", "p", "-f", "mermaid"],
    ["graph", "-e", "y = 1", "--format", "tree"],
    ["graph", "--format", "dot", "-"],
    ["run", "samples/card.txt", "--set", "a=[1, 2]", "--set", "b=2"],
    ["run", "-e", "print(1)"],
    ["check", *CARD, "--order", "2", "--eps", "1e-4", "--atol", ".5", "--rtol", "2.", "-f", "json"],
    ["check", "-e", "y = 2", "--eps", "0", "--atol", "1E+3", "--rtol", "10"],
    ["check", "--wrt", "a,b", "--of", "p", "samples/card.txt"],
]

DECLINED = [
    [],
    ["--help"],
    ["--version"],
    ["grad", "--help"],
    ["grad", "-h"],
    ["Grad", "x"],
    ["grad", "x", "y"],
    ["grad", ""],
    ["grad", "-fjson", "x"],
    ["grad", "--format", "JSON", "x"],
    ["grad", "--format", "xml"],
    ["grad", "--repeat", "0"],
    ["grad", "--repeat", "1001"],
    ["grad", "--repeat", "+5"],
    ["grad", "--repeat", " 5"],
    ["grad", "--repeat", "\u0665"],
    ["grad", "--repeat", "5_0"],
    ["grad", "--", "x"],
    ["grad", "--retain-graph=1"],
    ["grad", "--set"],
    ["grad", "--set", ""],
    ["grad", "--set="],
    ["grad", "-e", "-x"],
    ["grad", "-e", "-"],
    ["grad", "--no-retain-graph"],
    ["grad", "--of"],
    ["grad", "--formt", "json"],
    ["grad", "--backward"],
    ["graph", "--wrt", "a"],
    ["run", "--of", "a"],
    ["run", "-f", "json"],
    ["check", "--eps", "inf"],
    ["check", "--eps", "nan"],
    ["check", "--eps", "1e"],
    ["check", "--eps", "-1"],
    ["check", "--atol", "1_0"],
    ["check", "--order", "3"],
    ["grad", "-5"],
    ["grad", "-x"],
    ["grad", "--ex", "x = 1"],
    ["grad", "-ex=1"],
]


@pytest.mark.parametrize("argv", PLAIN, ids=lambda a: " ".join(a)[:40])
def test_plain_command_lines_are_read_as_typer_reads_them(argv):
    fast = cli._fast_args(argv)
    assert fast is not None, "this command line should take the fast path"
    code, name, kwargs = _typer_kwargs(argv)
    assert code == 0
    assert fast == (name, kwargs)


@pytest.mark.parametrize("argv", DECLINED, ids=lambda a: " ".join(a)[:40])
def test_other_command_lines_are_left_to_typer(argv):
    assert cli._fast_args(argv) is None


def test_shell_completion_is_left_to_click(monkeypatch):
    monkeypatch.setenv("_DIFFCLI_COMPLETE", "bash_complete")
    assert cli._fast_args(["grad", *CARD]) is None


_PIECES = [
    "-",
    "x.txt",
    "",
    "--",
    "-e",
    "--expr",
    "--set",
    "--set=a=1",
    "a=1",
    "b=[1, 2]",
    "-f",
    "--format",
    "--format=json",
    "json",
    "tsv",
    "table",
    "dot",
    "tree",
    "JSON",
    "--of",
    "--wrt",
    "p",
    "a,b",
    "--retain-graph",
    "--create-graph",
    "--backward",
    "--grad-tensors",
    "--repeat",
    "--order",
    "--eps",
    "--atol",
    "--rtol",
    "1",
    "2",
    "0",
    "1000",
    "1001",
    "-1",
    "1e-3",
    ".5",
    "1.",
    "inf",
    "--max-elements",
    "--max-depth=3",
    "--max-memory",
    "--help",
    "-h",
    "--no-retain-graph",
]


def test_generated_command_lines_are_read_as_typer_reads_them():
    rng = random.Random(4)
    fast_count = 0
    for _ in range(400):
        argv = [rng.choice(list(cli.COMMANDS))] + [rng.choice(_PIECES) for _ in range(rng.randrange(7))]
        fast = cli._fast_args(argv)
        if fast is None:
            continue
        fast_count += 1
        code, name, kwargs = _typer_kwargs(argv)
        assert code == 0, argv
        assert fast == (name, kwargs), argv
    assert fast_count > 40


def test_the_option_table_matches_the_typer_app():
    group = get_command(cli.typer_app())
    assert set(group.commands) == set(cli.FAST_OPTIONS) == set(cli.COMMANDS)
    for name, command in group.commands.items():
        table = cli.FAST_OPTIONS[name]
        options = [p for p in command.params if isinstance(p, click.Option)]
        declared = {opt: p.name for p in options for opt in p.opts + p.secondary_opts}
        assert {opt: parameter for opt, (parameter, _) in table.items()} == declared
        for p in options:
            read = table[p.opts[0]][1]
            assert (read == cli._FLAG) == p.is_flag, p.name
            assert (read == cli._MULTIPLE) == p.multiple, p.name
        assert [p.name for p in command.params if isinstance(p, click.Argument)] == ["script"]


def test_the_typer_path_gives_the_pinned_sample_outputs(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(cli, "_fast_args", lambda args: None)
    for path in SAMPLES:
        for command in COMMANDS:
            assert render(path, command) == expected_path(path, command).read_text(), (path, command)


_PROBE = """
import sys
sys.argv = ["diffcli", *{argv!r}]
from diffcli.cli import main
try:
    main()
except SystemExit as e:
    code = e.code
sys.stdout.flush()
print(code, sorted(m for m in ("typer", "click", "rich", "lark", "numpy.random") if m in sys.modules),
      file=sys.stderr)
"""


def test_grad_json_imports_no_typer_click_rich_lark_or_numpy_random(tmp_path):
    argv = ["grad", *CARD, "--format", "json"]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("DIFFCLI_NO_CACHE", None)
    env.pop("NO_COLOR", None)
    runs = [
        subprocess.run(
            [sys.executable, "-c", _PROBE.format(argv=argv)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        for _ in range(2)
    ]
    first, second = runs
    assert first.stderr.splitlines()[-1] == "0 []"  # the parse tables ship with the package
    assert second.stderr.splitlines()[-1] == "0 []"
    assert first.stdout == second.stdout
    report = json.loads(second.stdout)
    assert report["target"]["grad_fn"] == "SinBackward0" and set(report["leaves"]) == {"a", "b", "w"}
    code, out, err = _typer_path(argv)
    assert (code, out, err) == (0, second.stdout, "")


def _typer_path(argv):
    original = cli._fast_args
    cli._fast_args = lambda args: None
    try:
        result = CliRunner().invoke(cli.typer_app(), argv)
    finally:
        cli._fast_args = original
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["grad", "samples/card.txt"],
        ["grad", "-e", "x = (", "--format", "json"],
        ["grad", "-e", "x = (", "-f", "tsv"],
        ["grad", "-e", "y = q", "--format", "json"],
        ["grad", "missing.txt", "-f", "json"],
        ["grad", *CARD, "--of", "nope"],
        ["grad", *CARD, "--max-depth", "0", "-f", "json"],
        ["run", "-e", "print(1)\nprint(2 + )"],
        ["check", *CARD, "--eps", "0"],
        ["graph", *CARD, "-f", "dot"],
    ],
)
def test_both_paths_give_the_same_output_and_exit_code(argv):
    fast = CliRunner().invoke(cli.typer_app(), argv)  # the Group takes the fast path
    assert cli._fast_args(argv) is not None
    assert (fast.exit_code, fast.stdout, fast.stderr) == _typer_path(argv)
