"""Issue 9, finding 9: output integrity. Closed and full streams, signals at start-up and
during the final write, a closed standard input, a FIFO as SCRIPT, and prints that must
not reach standard output. Real processes where the streams or signals are the point."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from diffcli import source

from .samples import cli

ROOT = Path(__file__).resolve().parents[2]
DIFFCLI = [sys.executable, "-m", "diffcli"]
HANG_GUARD = 120  # seconds; a hang guard only, never a margin a test relies on
CLOSED = "error: OutputError: cannot write to standard output: Bad file descriptor (it is closed)\n"
FULL = "error: OutputError: cannot write to standard output: No space left on device\n"


def shell(redirect, *args):
    """`diffcli ARGS REDIRECT` run by bash (for `>&-`, `<&-`, `<(...)`)."""
    return subprocess.run(
        ["bash", "-c", f'"$@" {redirect}', "_", *DIFFCLI, *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=ROOT,
    )


# --- closed and full standard output ------------------------------------------------------


def test_closed_stdout_is_an_error_only_when_something_is_written():
    p = shell(">&-", "run", "-e", "print(1)")
    assert (p.returncode, p.stderr) == (1, CLOSED)
    p = shell(">&-", "run", "-e", "x = 1.0")
    assert (p.returncode, p.stderr) == (0, "")
    p = shell(">&-", "grad", "-e", "x = 1.0\ny = x * x", "-f", "json")
    assert (p.returncode, p.stderr) == (
        1,
        '{"error": {"type": "OutputError", "message": "cannot write to '
        'standard output: Bad file descriptor (it is closed)", "file": '
        'null, "line": null, "column": null}}\n',
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["run", "--help"],
        ["grad", "--help"],
        ["run", "-e", "print(1)"],
        ["grad", "-e", "x = 1.0\ny = x * x"],
        ["grad", "-e", "x = [1.0, 2.0]\ny = (x * x).sum()", "-f", "tsv"],
        ["graph", "-e", "x = 1.0\ny = x * x", "-f", "dot"],
    ],
)
def test_full_stdout_is_one_error_line_and_exit_1(args):
    with open("/dev/full", "w") as full:
        p = subprocess.run(
            [*DIFFCLI, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=HANG_GUARD, cwd=ROOT
        )
    assert (p.returncode, p.stderr) == (1, FULL)


def test_closed_stderr_still_gives_the_exit_code():
    p = shell("2>&-", "run", "-e", "y = q")
    assert (p.returncode, p.stdout) == (1, "")


# --- standard input ------------------------------------------------------------------------


def test_closed_stdin_is_an_unreadable_input_exit_2():
    p = shell("<&-", "run", "-")
    assert (p.returncode, p.stdout, p.stderr) == (
        2,
        "",
        "error: FileError: <stdin>: cannot read (standard input is closed)\n",
    )


# --- SIGINT at start-up: a real signal, delivered while diffcli imports its libraries -------

INTERRUPT_AT_IMPORT = """
import os, signal, sys
class Interrupt:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, Interrupt())
sys.argv = ["diffcli", *{args!r}]
from diffcli.cli import main
main()
"""


@pytest.mark.parametrize(
    "module, args",
    [
        ("typer", ["--help"]),
        ("typer", ["grad", "--bogus"]),
        ("numpy", ["grad", "-e", "x = 1.0\ny = x * x"]),
        ("numpy", ["run", "-e", "print(1)"]),
    ],
)
def test_sigint_during_start_up_exits_130_without_a_traceback(module, args):
    p = subprocess.run(
        [sys.executable, "-c", INTERRUPT_AT_IMPORT.format(module=module, args=args)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        cwd=ROOT,
    )
    assert (p.returncode, p.stdout, p.stderr) == (130, "", "error: interrupted\n")


# --- signals and the final document ----------------------------------------------------------

BIG = "x = zeros(300000, requires_grad=True)\ny = (x * 2).sum()\n"  # about 8 MB of JSON


def test_sigterm_during_the_json_write_leaves_complete_json():
    """The child is writing (the test has read its first byte and the pipe is full) when
    SIGTERM arrives: the signal waits for the write to end, so the JSON is whole."""
    p = subprocess.Popen(
        [*DIFFCLI, "grad", "-e", BIG, "-f", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    first = p.stdout.read(1)
    p.send_signal(signal.SIGTERM)
    rest = p.stdout.read()
    p.stderr.read()
    assert p.wait(timeout=HANG_GUARD) == -signal.SIGTERM
    document = json.loads(first + rest)
    assert len(document["leaves"]["x"]["grad"]) == 300000
    assert document["leaves"]["x"]["grad"][:2] == [2.0, 2.0]


@pytest.mark.parametrize(
    "sig, code, err",
    [
        (signal.SIGTERM, -signal.SIGTERM, ""),
        (signal.SIGINT, 130, "error: interrupted\n"),
    ],
)
def test_a_signal_before_the_output_leaves_stdout_empty(sig, code, err):
    script = 'x = 1.0\nprint("started")\nfor i in range(9000000):\n    y = x * 2\n'
    p = subprocess.Popen(
        [*DIFFCLI, "grad", "-e", script, "-f", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert p.stderr.readline() == b"started\n"  # (grad sends the script's prints to stderr)
    p.send_signal(sig)
    out, rest = p.communicate(timeout=HANG_GUARD)
    assert (p.returncode, out, rest.decode()) == (code, b"", err)


# --- prints under --format json ----------------------------------------------------------------


def test_a_print_inside_grad_tensors_goes_to_stderr_like_the_scripts_own():
    r = cli(
        "grad",
        "-e",
        'x = [1.0, 2.0]\nprint("script")\ny = x * x',
        "-f",
        "json",
        "--grad-tensors",
        'ones_like(y) if print("option") is None else y',
    )
    assert r.exit_code == 0, r.stderr
    assert r.stderr == "script\noption\n"
    assert json.loads(r.stdout)["leaves"]["x"]["grad"] == [2.0, 4.0]


# --- a FIFO or process substitution as SCRIPT ------------------------------------------------------


def test_process_substitution_is_read_like_a_file():
    p = shell("<(echo 'print(\"substituted\")')", "run")
    assert (p.returncode, p.stdout, p.stderr) == (0, "substituted\n", "")


def test_a_fifo_with_a_writer_is_read(tmp_path):
    fifo = tmp_path / "script.fifo"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "w") as f:  # blocks until diffcli opens it to read
            f.write('print("from a fifo")\n')

    t = threading.Thread(target=writer)
    t.start()
    r = cli("run", str(fifo))
    t.join(timeout=HANG_GUARD)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "from a fifo\n", "")


def test_a_fifo_nobody_writes_is_an_error_after_the_wait_not_a_hang(tmp_path, monkeypatch):
    fifo = tmp_path / "script.fifo"
    os.mkfifo(fifo)
    monkeypatch.setattr(source, "STREAM_WAIT", 0.2)
    r = cli("run", str(fifo))
    assert (r.exit_code, r.stdout, r.stderr) == (
        2,
        "",
        f"error: FileError: {fifo}: not a regular file, and nothing was written to it within "
        "0.2 seconds (is anything writing to it?)\n",
    )


def test_a_character_device_is_read_as_a_stream():
    r = cli("run", "/dev/null")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "")
