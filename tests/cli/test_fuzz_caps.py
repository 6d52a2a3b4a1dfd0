"""Fuzzing the caps (issue 9): generated inputs of the classes that once grew without bound
must each end with a clear result, and their peak memory is *measured*.

Each input runs as a child process (`python -m diffcli ...`) under an address-space cap, so
a regression fails here instead of swapping the machine; the child's own peak resident
memory comes from `os.wait4`. Classes: deep shared subgraphs through every graph format,
big literals, format widths and precisions, builtins over huge ranges, and closed or full
standard streams. Work is bounded by the caps given on the command line, never by a clock
(the timeout of a child is a hang guard only).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ADDRESS_SPACE = 3 << 30  # bytes of virtual memory a child may map
MEMORY_CAP_MB = 300  # --max-memory given to every child
PEAK_BOUND_MB = 1024  # measured peak resident memory must stay below this
HANG_GUARD = 600  # seconds; only a hang reaches it
CAPS = [
    "--max-memory",
    str(MEMORY_CAP_MB),
    "--max-iterations",
    "1000000",
    "--max-elements",
    "1000000",
    "--max-script-size",
    "4",
]
FUZZ = settings(
    derandomize=True, deadline=None, database=None, max_examples=8, suppress_health_check=list(HealthCheck)
)


class _MeasuredPopen(subprocess.Popen):
    """A Popen that reaps its child with os.wait4, keeping the child's own peak memory."""

    peak_mb = None

    def _try_wait(self, wait_flags):  # what Popen.wait() calls on POSIX
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return self.pid, 0
        if pid == self.pid:
            self.peak_mb = usage.ru_maxrss / 1024  # KiB on Linux
        return pid, status


def run_child_measured(
    args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, input_text=None, close_fd=None
):
    """Run `diffcli ARGS` in a child under the address-space cap (with file descriptor
    `close_fd` closed, as `>&-` does); (exit code, stdout, stderr, peak resident MB)."""

    def prepare():
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
        if close_fd is not None:
            os.close(close_fd)

    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    if input_text is not None:
        stdin = subprocess.PIPE
    p = _MeasuredPopen(
        [sys.executable, "-m", "diffcli", *args],
        stdin=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
        preexec_fn=prepare,
    )
    try:
        out, err = p.communicate(input_text.encode() if input_text is not None else None, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail(f"no result after {HANG_GUARD} s: {args!r}")
    return p.returncode, out or b"", err.decode("utf-8", "replace"), p.peak_mb


def assert_clean(code, err, peak, what):
    assert "Traceback" not in err, f"{what}\n{err[-2000:]}"
    assert code in (0, 1, 2), f"{what}: exit {code}\n{err[-2000:]}"
    if code:
        assert any(line.startswith(("error: ", '{"error": ')) for line in err.splitlines()), (
            f"{what}: exit {code} without an error line\n{err[-2000:]}"
        )
    assert peak is not None and peak < PEAK_BOUND_MB, f"{what}: peak {peak} MB"


# --- deep shared subgraphs -----------------------------------------------------------------


@st.composite
def shared_subgraph(draw):
    n = draw(st.integers(20, 70))
    ops = draw(
        st.lists(
            st.sampled_from(["y + y", "y * y", "y - y", "sin(y) + y", "y * 0.5 + y"]), min_size=1, max_size=3
        )
    )
    body = "".join(f"    y = {ops[i % len(ops)]}\n" for i in range(len(ops)))
    return f"x = 0.5\ny = x\nfor i in range({n}):\n{body}"


@FUZZ
@given(shared_subgraph(), st.sampled_from(["table", "json", "dot", "mermaid", "tree"]), st.booleans())
def test_deep_shared_subgraphs_render_in_bounded_memory(text, fmt, backward):
    args = ["graph", "-e", text, "-f", fmt, *CAPS] + (["--backward"] if backward else [])
    code, out, err, peak = run_child_measured(args)
    assert_clean(code, err, peak, args)
    if code == 0:
        assert len(out) < 20 << 20  # linear output: far from 2**n lines


# --- big literals ---------------------------------------------------------------------------

BIG_KINDS = ["string", "list", "nested", "number", "lines", "comment"]


def big_literal(kind, size):
    if kind == "string":
        return "s = '" + "a" * size + "'\nprint(len(s))\n"
    if kind == "list":
        return "v = [" + "1.0, " * (size // 5) + "]\nprint(len(v))\n"
    if kind == "nested":
        depth = min(size, 10**5)
        return "v = " + "[" * depth + "]" * depth + "\n"
    if kind == "number":
        return "x = 1" + "0" * size + ".5\nprint(x)\n"
    if kind == "lines":
        return "x = 1.0\n" * (size // 8)
    return "# " + "c" * size + "\nprint(1)\n"


@FUZZ
@given(
    st.sampled_from(BIG_KINDS),
    st.sampled_from([10**5, 10**6, 3 * 10**6, 6 * 10**6]),
    st.sampled_from(["run", "grad"]),
    st.booleans(),
)
def test_big_literals_end_in_bounded_memory(kind, size, command, via_stdin):
    text = big_literal(kind, size)
    if via_stdin:
        code, _, err, peak = run_child_measured([command, "-", *CAPS], input_text=text)
    else:
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
            f.write(text)
            f.flush()
            code, _, err, peak = run_child_measured([command, f.name, *CAPS])
    assert_clean(code, err, peak, (command, kind, size))
    if len(text.encode()) > 4 << 20:
        assert code == 1 and "--max-script-size" in err, err[-500:]


# --- format widths and precisions ------------------------------------------------------------


@st.composite
def format_width(draw):
    n = draw(st.sampled_from([10, 10**4, 10**7, 3 * 10**8, 2 * 10**9, 10**12]))
    value = draw(st.sampled_from(["1", "1.5", "'s'", "-2"]))
    form = draw(
        st.sampled_from(
            [
                f'print(len(f"{{{value}:>{n}}}"))',
                f'print(len(f"{{{value}:.{n}f}}"))' if value != "'s'" else f'print(len(f"{{{value}:.{n}}}"))',
                f'print(len("{{:>{n}}}".format({value})))',
                f"print(len('%{n}d' % 1))",
                f"print(len('%.{n}f' % 1.5))",
                f"w = {n}\nprint(len(f'{{{value}:>{{w}}}}'))",
                f"print(len(str([{value}] * {n})))",
                f"print(len('ab' * {n}))",
                f"print(1, 2, sep='-' * {n})",
            ]
        )
    )
    return form


@FUZZ
@given(format_width())
def test_format_widths_end_in_bounded_memory(text):
    code, _, err, peak = run_child_measured(["run", "-e", text, *CAPS])
    assert_clean(code, err, peak, text)


# --- builtins over huge ranges ---------------------------------------------------------------


@st.composite
def builtin_over_range(draw):
    k = draw(st.integers(6, 18))
    fn = draw(
        st.sampled_from(
            [
                "sum(range({n}))",
                "max(range({n}))",
                "min(range(-{n}, 0))",
                "all(range(1, {n}))",
                "any(i > {n} for i in range({n}))",
                "0.5 in range({n})",
                "{n} - 1 in range({n})",
                "len(sorted(range({n})))",
                "len(list(range({n})))",
                "len(tuple(range({n})))",
                "sum(1 for _ in zip(range({n}), range({n})))",
                "len([i for i in range({n})])",
                "sum([[0] * 1000] * ({n} // 1000), [])",
                "len(list(enumerate(range({n}))))",
                "{{i: i for i in range({n})}}",
            ]
        )
    )
    return "print(" + fn.format(n=f"10**{k}") + ")"


@FUZZ
@given(builtin_over_range())
def test_builtins_over_huge_ranges_end_in_bounded_work(text):
    code, _, err, peak = run_child_measured(["run", "-e", text, *CAPS])
    assert_clean(code, err, peak, text)


# --- closed and full standard streams -----------------------------------------------------


@FUZZ
@given(
    st.sampled_from(["run", "grad", "graph", "check"]),
    st.sampled_from([None, "json", "table"]),
    st.sampled_from(["closed stdout", "full stdout", "closed stdin", "help to full", "version to full"]),
)
def test_closed_and_full_streams_end_cleanly(command, fmt, stream):
    args = [command, "-e", "x = 2.0\ny = x * x\nprint(y)", *CAPS]
    if fmt and command != "run":
        args += ["-f", fmt]
    stdin, stdout = subprocess.DEVNULL, subprocess.PIPE
    if stream == "help to full":
        args = [command, "--help"]
    elif stream == "version to full":
        args = ["--version"]
    if stream == "closed stdin":
        args = [a if a != "-e" else "-" for a in args]
        args.remove("x = 2.0\ny = x * x\nprint(y)")
        stdin = None
    full = open("/dev/full", "wb") if "full" in stream else None
    try:
        if full is not None:
            stdout = full
        close_fd = {"closed stdout": 1, "closed stdin": 0}.get(stream)
        code, _, err, peak = run_child_measured(args, stdin=stdin, stdout=stdout, close_fd=close_fd)
    finally:
        if full is not None:
            full.close()
    assert_clean(code, err, peak, (args, stream))
    if stream == "closed stdin":
        assert code == 2 and "standard input is closed" in err, err
    if "full" in stream:
        assert code == 1 and "cannot write to standard output" in err, err
