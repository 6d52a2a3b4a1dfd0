"""Shell conventions (issue 16 item 6): completion scripts for bash, zsh and fish (Typer's
own), exit code 3 and its message for an internal error, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from diffcli import __version__, session

from .samples import ROOT, cli

HINT = (
    f"hint: this is a bug in diffcli {__version__}, not in your script: please report it with the "
    "command line and the script\n"
)


@pytest.mark.parametrize(
    "shell, marker",
    [
        ("bash", "complete -o default -F _diffcli_completion diffcli"),
        ("zsh", "#compdef diffcli"),
        ("fish", "complete --command diffcli"),
    ],
)
def test_completion_scripts_for_each_shell(shell, marker):
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}  # name the shell, as typed
    p = subprocess.run(
        [sys.executable, "-m", "diffcli", "--show-completion", shell],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )
    assert p.returncode == 0, p.stderr
    assert marker in p.stdout and "_DIFFCLI_COMPLETE" in p.stdout


def test_completion_completes_commands_and_options():
    env = {
        **os.environ,
        "_DIFFCLI_COMPLETE": "complete_bash",
        "COMP_WORDS": "diffcli check --ex",
        "COMP_CWORD": "2",
    }
    p = subprocess.run(
        [sys.executable, "-m", "diffcli"], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env
    )
    assert p.returncode == 0 and set(p.stdout.split()) == {"--expr", "--exit-zero"}


def _broken(*args, **kwargs):
    raise ZeroDivisionError("planted")


def test_an_internal_error_exits_3_with_a_hint_and_no_traceback(monkeypatch):
    monkeypatch.setattr(session, "execute", _broken)
    r = cli("grad", "-e", "x = 1.0")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr == "error: internal error: ZeroDivisionError: planted\n" + HINT
    r = cli("grad", "-e", "x = 1.0", "-f", "json")
    assert r.exit_code == 3
    assert json.loads(r.stderr)["error"] == {
        "type": "InternalError",
        "message": "internal error: ZeroDivisionError: planted",
        "file": None,
        "line": None,
        "column": None,
        "hint": HINT[len("hint: ") : -1],
    }
    # --exit-zero does not hide a bug
    assert cli("grad", "-e", "x = 1.0", "--exit-zero").exit_code == 3


def test_an_internal_error_in_a_real_process(tmp_path):
    probe = (
        "import sys\nfrom diffcli import session\n"
        "def broken(*a, **k):\n    raise KeyError('planted')\n"
        "session.execute = broken\nsys.argv = ['diffcli', 'run', '-e', 'print(1)']\n"
        "from diffcli.cli import main\nmain()\n"
    )
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert (p.returncode, p.stdout) == (3, "")
    assert p.stderr == "error: internal error: KeyError: 'planted'\n" + HINT
