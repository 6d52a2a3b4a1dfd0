"""A pytest plugin (entry point `pytest11`): `pytest --diffcli DIR` collects the scripts
(*.txt) under DIR as test items.

Each script is a `check` item (`diffcli check SCRIPT`), and, where a golden file
`SCRIPT.golden.json` (written by `diffcli grad SCRIPT --format json`) sits beside it, an
`expect` item (`diffcli grad SCRIPT --expect SCRIPT.golden.json`). A line `# args: ...`
in the script gives extra arguments (such as --set values). An item fails when its
command exits non-zero; the report shows the command line, its exit status and what it
printed.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
from pathlib import Path

import pytest

GOLDEN_SUFFIX = ".golden.json"


def pytest_addoption(parser):
    group = parser.getgroup("diffcli")
    group.addoption(
        "--diffcli",
        action="append",
        default=[],
        metavar="DIR",
        help="collect the diffcli scripts (*.txt) under DIR as tests: `diffcli check` on each, and "
        "`diffcli grad --expect` where a SCRIPT.golden.json sits beside it",
    )


def pytest_configure(config):
    for d in config.getoption("diffcli"):  # collected along with the other arguments
        if d not in config.args:
            config.args.append(d)


def _roots(config):
    return [Path(d).resolve() for d in config.getoption("diffcli")]


def pytest_collect_file(file_path, parent):
    if file_path.suffix != ".txt" or file_path.name.endswith(GOLDEN_SUFFIX):
        return None
    path = file_path.resolve()
    if any(root == path or root in path.parents for root in _roots(parent.config)):
        return ScriptFile.from_parent(parent, path=file_path)
    return None


def script_args(path):
    """The extra arguments of a `# args: ...` line."""
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("# args:"):
            return shlex.split(line[len("# args:") :])
    return []


def run_diffcli(args):
    """(exit status, stdout, stderr) of `diffcli ARGS`, in this process."""
    from typer.main import get_command

    from .cli import typer_app

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = get_command(typer_app()).main(list(args), prog_name="diffcli", standalone_mode=False)
    return int(code or 0), out.getvalue(), err.getvalue()


class ScriptFile(pytest.File):
    def collect(self):
        extra = script_args(self.path)
        here = self.config.invocation_params.dir
        script = os.path.relpath(self.path, here)
        yield ScriptItem.from_parent(self, name="check", args=["check", script, *extra])
        golden = self.path.with_name(self.path.name[: -len(".txt")] + GOLDEN_SUFFIX)
        if golden.exists():
            yield ScriptItem.from_parent(
                self, name="expect", args=["grad", script, *extra, "--expect", os.path.relpath(golden, here)]
            )


class ScriptFailed(Exception):
    pass


class ScriptItem(pytest.Item):
    def __init__(self, *, args, **kwargs):
        super().__init__(**kwargs)
        self.args = args

    def runtest(self):
        before = os.getcwd()
        os.chdir(self.config.invocation_params.dir)  # the paths are relative to it
        try:
            code, out, err = run_diffcli(self.args)
        finally:
            os.chdir(before)
        if code != 0:
            raise ScriptFailed(code, out, err)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScriptFailed):
            code, out, err = excinfo.value.args
            text = [f"diffcli {shlex.join(self.args)} exited {code}"]
            if out.strip():
                text += ["--- stdout", out.rstrip("\n")]
            if err.strip():
                text += ["--- stderr", err.rstrip("\n")]
            return "\n".join(text)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"diffcli {self.name} {self.path.name}"
