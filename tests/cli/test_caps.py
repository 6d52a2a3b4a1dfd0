"""Caps as mechanisms (issue 9, findings 6-8, and --timeout): each reproducer ends with
its LimitError (or Python's own error) and exit code, and the ones that used to grow to
gigabytes run in a fresh process under a virtual-memory cap, with their measured peak
resident memory under a stated bound. No assertion depends on the machine's speed: the
subprocess timeout is a hang guard only, and --timeout is tested on scripts that would
otherwise run for ever (or for hours).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from diffcli.engine import autograd
from diffcli.engine import errors as engine_errors
from diffcli.engine.ops import creation
from diffcli.lang.limits import Limits, resident_memory

from .samples import ROOT, cli

linux_only = pytest.mark.skipif(
    not (hasattr(os, "wait4") and sys.platform.startswith("linux")),
    reason="measures the child with wait4 and RLIMIT_AS",
)

AS_LIMIT_MB = 2048  # the child's address space: a cap that no longer holds fails, not swaps
HANG_GUARD = 120


class Child:
    def __init__(self, code, stdout, stderr, peak_mb):
        self.code, self.stdout, self.stderr, self.peak_mb = code, stdout, stderr, peak_mb

    @property
    def first(self):
        return self.stderr.splitlines()[0] if self.stderr else ""


# The child is started by a small launcher of its own: a process forked from this one (a
# pytest process that may hold hundreds of MB) counts this process's pages in its
# ru_maxrss until it execs (Linux keeps the peak across exec), so the child measured here
# is forked from the launcher, a fresh interpreter of a few MB, which reports the child's
# exit status and ru_maxrss (from wait4) on a pipe.
_LAUNCHER = """
import os, resource, subprocess, sys
fd, limit = int(sys.argv[1]), int(sys.argv[2]) << 20
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
p = subprocess.Popen(sys.argv[3:], preexec_fn=cap, pass_fds=())
_, status, usage = os.wait4(p.pid, 0)
os.write(fd, f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}".encode())
"""


def measured(*args) -> Child:
    """`python -m diffcli ARGS` in a fresh process (the memory cap measures growth from the
    process's start) under `ulimit -v AS_LIMIT_MB`; its exit code, output and peak resident
    memory (ru_maxrss of that child alone, from wait4 in the launcher)."""
    import signal

    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        launcher = [sys.executable, "-c", _LAUNCHER, str(write_end), str(AS_LIMIT_MB)]
        p = subprocess.Popen(
            [*launcher, sys.executable, "-m", "diffcli", *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            pass_fds=(write_end,),
            start_new_session=True,  # the hang guard kills the launcher and the child
            cwd=ROOT,
        )
        os.close(write_end)
        guard = threading.Timer(HANG_GUARD, lambda: os.killpg(p.pid, signal.SIGKILL))
        guard.start()
        try:
            p.wait()
            report = os.read(read_end, 100).decode()
        finally:
            guard.cancel()
            os.close(read_end)
        assert report, f"killed by the hang guard (launcher exit {p.returncode})"
        code, peak_kb = map(int, report.split())
        out.seek(0)
        err.seek(0)
        child = Child(code, out.read().decode(), err.read().decode(), peak_kb / 1024)
    assert code != -9, "killed by the hang guard"
    assert "Traceback" not in child.stderr, child.stderr
    return child


def elements_error(what, n, cap=10_000_000):
    return f"LimitError: {what} of {n} elements exceeds the limit of {cap} elements (raise it with --max-elements)"


def string_error(cap=10_000_000):
    return f"LimitError: string longer than the limit of {cap} elements (raise it with --max-elements)"


def memory_error_in(line, cap):
    return (
        line.startswith("error: ")
        and "LimitError: the script's tensors use " in line
        and line.endswith(f" MB of memory, more than the limit of {cap} MB (raise it with --max-memory)")
    )


TIMEOUT_1 = (
    "LimitError: the run took more than 1 second (raise the cap with --timeout, or give --timeout 0 for none)"
)


# --- finding 6: --max-memory holds for every command, repeat and backward pass -----------


@linux_only
def test_check_counts_all_its_runs_against_max_memory():
    # 320 MB of tensors per run (each product saves its 8 MB operand): each run alone fits in
    # 500 MB, the base run (kept for the analytic gradients) and a re-run together do not
    script = "x = 2.0\nys = [ones(1000000) * x for i in range(20)]\ny = ys[0].sum()"
    r = measured("check", "-e", script, "--max-memory", "500")
    assert r.code == 1, r.stderr
    assert r.first.startswith("error: <expr>:2:"), r.first
    assert memory_error_in(r.first, 500), r.first
    assert r.stdout == ""
    assert r.peak_mb < 900, r.peak_mb


@linux_only
def test_check_frees_each_run_before_the_next():
    # 400 re-runs of a 300-op graph: each run's garbage, kept in reference cycles and not
    # counted (each run measured from its own start), passed 380 MB here, and 7.6 GB on the
    # finding's bigger script (1,000 elements, 900 ops)
    script = "x = ones(200, requires_grad=True)\ny = x\n" + "y = y * 1.0001\n" * 300
    r = measured("check", "-e", script, "--max-memory", "100")
    assert r.code == 0, r.stderr
    assert r.stdout.splitlines()[3].split()[-1] == "ok", r.stdout
    assert r.peak_mb < 150, r.peak_mb  # (the interpreter itself: ~35 MB)


@linux_only
def test_grad_repeat_with_create_graph_stops_at_max_memory():
    script = "x = ones(1000, requires_grad=True)\ny = x\n" + "y = sin(y)\n" * 900 + "z = y.sum()\n"
    r = measured(
        "grad", "-e", script, "--repeat", "300", "--create-graph", "--retain-graph", "--max-memory", "500"
    )
    assert r.code == 1, r.stderr
    last = r.stderr.splitlines()[-1]
    assert last.startswith("error: <expr>: LimitError: the script's tensors use "), last
    assert memory_error_in(last, 500), last
    assert r.stdout == ""
    assert r.peak_mb < 900, r.peak_mb


def _chain(n):
    x = creation.ones(3, requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0001
    return y.sum()


def test_a_backward_pass_polls_the_limits():
    """Inside one pass, not only between passes: an expired clock and a memory base far below
    the current memory stop a 1,000-node pass (which polls every 256 nodes)."""
    limits = Limits(timeout=1)
    with limits.watching():
        limits.deadline = time.monotonic() - 1
        with pytest.raises(engine_errors.LimitError) as e:
            autograd.backward([_chain(1000)])
    assert "LimitError: " + str(e.value) == TIMEOUT_1
    limits = Limits(max_memory=500)
    with limits.watching():
        limits.memory_base = resident_memory() - (800 << 20)
        with pytest.raises(engine_errors.LimitError) as e:
            autograd.backward([_chain(1000)])
    assert str(e.value).endswith(" MB of memory, more than the limit of 500 MB (raise it with --max-memory)")
    assert engine_errors.POLL[0] is None  # restored after the pass
    autograd.backward([_chain(1000)])  # and no check outside `watching`


@linux_only
def test_iterating_a_huge_tensor_stops_at_max_memory():
    # each row is a view with its own graph node (~1 KB): 10**7 rows would be 10 GB
    r = measured("run", "-e", "for v in zeros(10**7):\n    pass", "--max-memory", "100")
    assert r.code == 1, r.stderr
    assert memory_error_in(r.first, 100) and r.first.startswith("error: <expr>:1:1: "), r.first
    assert r.peak_mb < 350, r.peak_mb  # (the 80 MB of zeros, and the interpreter: ~35 MB)


# --- finding 7: Python values are bounded before they allocate -----------------------------


@linux_only
def test_a_comprehension_of_strings_stops_at_max_memory():
    r = measured("run", "-e", "x = [str(i) * 100 for i in range(10**6)]", "--max-memory", "100")
    assert r.code == 1, r.stderr
    assert memory_error_in(r.first, 100), r.first
    assert r.peak_mb < 250, r.peak_mb  # (700 MB before)


@linux_only
@pytest.mark.parametrize(
    "script, at, what",
    [
        ("xs = []\nfor i in range(1000):\n    xs.append([0] * 10**7)", "3:15", "a list of 10000000 elements"),
        (
            "xs = []\nfor i in range(1000):\n    xs.append('ab' * 4000000)",
            "3:15",
            "a string of 8000000 elements",
        ),
        ("x = list(range(10**7))", "1:5", "a list of 10000000 elements"),
        ("x = []\nx.extend(range(10**7))", "2:1", "a list of 10000000 elements"),
    ],
)
def test_a_big_python_value_is_weighed_against_max_memory_before_it_is_built(script, at, what):
    # (1,000 lists of 80 MB each in 2,000 statements: the memory used to be read only every
    # 1,024 statements)
    r = measured("run", "-e", script, "--max-memory", "300")
    assert r.code == 1, r.stderr
    assert r.first.startswith(f"error: <expr>:{at}: LimitError: {what} would take the script's memory to "), (
        r.first
    )
    assert r.first.endswith(" MB, more than the limit of 300 MB (raise it with --max-memory)"), r.first
    assert r.peak_mb < 450, r.peak_mb


@linux_only
@pytest.mark.parametrize(
    "script, n",
    [
        ('x = f"{1:>300000000}"', 300_000_000),
        ('x = f"{1.5:.2000000000f}"', 2_000_000_450),
        ("x = f\"{'a':^999999999999}\"", 999_999_999_999),
        ('x = "{:>300000000}".format(1)', 300_000_000),
        ("x = '%1000000000d' % 1", 1_000_000_000),
        ("x = '%.2000000000f' % 1.5", 2_000_000_450),
        ("x = '%*d' % (10**9, 1)", 1_000_000_000),
        ("x = '%s%s' % ('a' * 6000000, 'b' * 6000000)", 12_000_000),
    ],
)
def test_format_widths_and_precisions_are_estimated_first(script, n):
    r = measured("run", "-e", script)
    assert r.code == 1, r.stderr
    assert r.first.endswith(elements_error("string", n)), r.first
    assert r.peak_mb < 300, r.peak_mb


@linux_only
@pytest.mark.parametrize(
    "script",
    [
        "s = str([[0] * 1000000] * 1000000)",
        "print([[0] * 1000000] * 1000000)",
        "s = f'{[[0] * 1000000] * 1000000}'",
        "s = f'{[[0] * 1000000] * 1000000!r}'",
        "s = '{}'.format([[0] * 1000000] * 1000000)",
        "s = '%s' % ([[0] * 1000000] * 1000000,)",
        "assert False, [[0] * 1000000] * 1000000",
        "print(1, 2, sep='ab' * 5000000)",
        "print(1, end='x' * 10000000)",
        "x = 'y' * 6000000\nprint(x, x)",
    ],
)
def test_text_of_values_stops_at_the_cap(script):
    r = measured("run", "-e", script)
    assert r.code == 1, r.stderr
    assert r.first.endswith(string_error()), r.first
    assert r.peak_mb < 300, r.peak_mb


def test_text_within_the_cap_is_python_s():
    script = (
        "a = [1, 2.5, None, True, 'x', (1,), ()]\na.append(a)\nprint(a)\nprint(str(a) == f'{a}')\n"
        "print('%5.1f|%-4s|%r|%x' % (2.25, 'ab', 'q', 255))\nprint('{:>6}|{!r}|{x:.2e}'.format(7, 'z', x=1500.0))\n"
        "print(1, 2, sep=None, end=None)\nprint(1, 2, sep='--')"
    )
    r = cli("run", "-e", script)
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout == (
        "[1, 2.5, None, True, 'x', (1,), (), [...]]\nTrue\n"
        "  2.2|ab  |'q'|ff\n     7|'z'|1.50e+03\n1 2\n1--2\n"
    )
    r = cli("run", "-e", "print(1, sep=2)")
    assert r.exit_code == 1
    assert r.stderr.startswith("error: <expr>:1:1: TypeError: sep must be None or a string, not int")


def test_the_string_cap_follows_max_elements():
    assert cli("run", "-e", "s = f'{1:>1000}'", "--max-elements", "1000").exit_code == 0
    r = cli("run", "-e", "s = f'{1:>1001}'", "--max-elements", "1000")
    assert r.exit_code == 1 and elements_error("string", 1001, 1000) in r.stderr, r.stderr
    r = cli("run", "-e", "print([0] * 500)", "--max-elements", "1000")
    assert r.exit_code == 1 and string_error(1000) in r.stderr, r.stderr


# --- finding 8: single statements that never ended ------------------------------------------


@linux_only
@pytest.mark.parametrize(
    "script, first",
    [
        ("print(sum(range(10**12)))", "sum() over 1000000000000 items"),
        ("print(max(range(10**12)))", "max() over 1000000000000 items"),
        ("print(min(range(10**12)))", "min() over 1000000000000 items"),
        ("x = list(range(10**12))", None),
    ],
)
def test_builtins_over_huge_ranges_fail_before_they_start(script, first):
    r = measured("run", "-e", script)
    assert r.code == 1, r.stderr
    if first is None:
        assert r.first.endswith(elements_error("list", 10**12)), r.first
    else:
        assert r.first.endswith(
            f"LimitError: {first} exceeds the limit of 10000000 loop iterations "
            "(raise the cap with --max-iterations)"
        ), r.first
    assert r.peak_mb < 200, r.peak_mb


@pytest.mark.parametrize(
    "script",
    [
        "print(all(range(1, 10**12)))",
        "print((-1, -1) in zip(range(10**12), range(10**12)))",
        "x = [a for a, b in zip(range(10**12), range(10**12))]",
        "x = list(zip(range(10**12)))",
        "x = list(enumerate(range(10**12)))",
        "x = max(enumerate(range(10**12)))",
        "x = [1 for i in range(10**6) for j in range(10**6)]",
    ],
)
@linux_only
def test_builtins_and_comprehensions_count_their_iterations(script):
    r = measured("run", "-e", script, "--max-iterations", "1000")
    assert r.code == 1, r.stderr
    assert "LimitError: " in r.first and "loop iterations (raise the cap with --max-iterations)" in r.first, (
        r.first
    )


# (in a fresh process, with its hang guard: each of these ran for hours before)
@linux_only
def test_builtins_that_can_stop_early_do():
    script = (
        "print(any(range(10**12)), all(range(10**12)), all(range(1, 5)))\n"
        "print(0.5 in range(10**12), 10.0**11 in range(10**12), tensor(7.0) in range(10**12))\n"
        "print(True in range(10**12), 'a' in range(10**12), -1 in range(10**12), 3 in range(0, 10**12, 3))\n"
        "print((5, 5) in zip(range(10**12), range(10**12)))"
    )
    r = measured("run", "-e", script, "--max-iterations", "1000")
    assert (r.code, r.stderr) == (0, "")
    assert r.stdout == "True False True\nFalse True True\nTrue False False True\nTrue\n"


@linux_only
def test_sum_of_lists_is_linear_and_capped():
    r = measured("run", "-e", "x = sum([[0] * 1000] * 9000, [])\nprint(len(x), sum([(1,), (2, 3)], ()))")
    assert (r.code, r.stdout, r.stderr) == (0, "9000000 (1, 2, 3)\n", "")
    r = measured("run", "-e", "x = sum([[0] * 1000] * 9000, [])", "--max-elements", "5000000")
    assert r.code == 1 and r.first.endswith(elements_error("list", 5_001_000, 5_000_000)), r.stderr
    r = cli("run", "-e", "print(sum([[1], (2,)], []))")
    assert r.exit_code == 1 and 'TypeError: can only concatenate list (not "tuple") to list' in r.stderr
    r = cli(
        "run",
        "-e",
        "print(sum([1.5, 2.5], 1), sum(range(5)), max([3, 1, 2]), min(4, 2), list(range(3)), tuple('ab'))",
    )
    assert r.stdout == "5.0 10 3 2 [0, 1, 2] ('a', 'b')\n"


@linux_only
def test_printing_a_huge_nested_list_stops_at_the_string_cap():
    r = measured("run", "-e", "print(sum([[0] * 1000] * 9000, []))")
    assert r.code == 1 and r.first.endswith(string_error()), r.first
    assert r.peak_mb < 500, r.peak_mb


@linux_only
def test_the_element_cap_is_checked_before_a_tensor_is_built():
    r = measured("run", "-e", "x = 1.0\ny = tensor([[x] * 1000] * 1000)", "--max-elements", "5000")
    assert r.code == 1, r.stderr
    assert r.first == "error: <expr>:2:5: " + elements_error("tensor", 1_000_000, 5000), r.first
    assert r.peak_mb < 200, r.peak_mb


@linux_only
def test_unpacking_a_huge_tensor_checks_its_length_first():
    r = measured("run", "-e", "p, q = zeros(10**7)")
    assert r.code == 1, r.stderr
    assert r.first == "error: <expr>:1:1: ValueError: too many values to unpack (expected 2)", r.first
    assert r.peak_mb < 300, r.peak_mb  # the 80 MB of zeros, no row made


def test_unpacking_still_unpacks():
    r = cli(
        "run",
        "-e",
        "p, q = tensor([[1.0, 2.0], [3.0, 4.0]])\na, b, c = range(3)\nprint(p, q, a + b + c)\n"
        "try:\n    x, y, z = zeros(2)\nexcept ValueError as e:\n    print(e)\n"
        "try:\n    x, y = tensor(1.0)\nexcept TypeError as e:\n    print(e)",
    )
    assert r.stdout == (
        "tensor([1., 2.]) tensor([3., 4.]) 3\nnot enough values to unpack (expected 3, got 2)\n"
        "iteration over a 0-d tensor\n"
    ), r.stderr


def test_comprehensions_and_slice_assignment_hold_the_list_cap():
    r = cli("run", "-e", "x = [0 for i in range(100)]", "--max-elements", "50")
    assert r.exit_code == 1 and elements_error("list", 51, 50) in r.stderr, r.stderr
    r = cli("run", "-e", "x = [0] * 40\nx[0:0] = x", "--max-elements", "50")
    assert r.exit_code == 1 and elements_error("list", 80, 50) in r.stderr, r.stderr


# --- --timeout ---------------------------------------------------------------------------------

NO_OTHER_CAP = ("--max-iterations", str(10**15), "--max-statements", str(10**15))


@linux_only
def test_timeout_ends_an_endless_loop():
    r = measured("run", "-e", "while True:\n    pass", *NO_OTHER_CAP, "--timeout", "1")
    assert r.code == 1, r.stderr
    # (the clock is read with the statement count, at `pass`, and with the loop count, at `while`)
    assert r.first in ("error: <expr>:2:5: " + TIMEOUT_1, "error: <expr>:1:1: " + TIMEOUT_1), r.first


@linux_only
def test_timeout_ends_an_endless_comprehension_and_builtin():
    r = measured(
        "run",
        "-e",
        "x = [i for i in zip(range(10**15), range(10**15))]",
        *NO_OTHER_CAP,
        "--max-elements",
        str(10**15),
        "--max-memory",
        "100000",
        "--timeout",
        "1",
    )
    assert r.code == 1 and r.first.endswith(TIMEOUT_1), r.stderr
    r = measured("run", "-e", "print(all(range(1, 10**15)))", *NO_OTHER_CAP, "--timeout", "1")
    assert r.code == 1 and r.first.endswith(TIMEOUT_1), r.stderr


@linux_only
def test_timeout_covers_checks_many_runs_and_grads_repeats():
    # 20,000 runs of the script for the finite differences: hours at any speed
    r = measured("check", "-e", "x = ones(10000, requires_grad=True)\ny = (x * x).sum()", "--timeout", "1")
    assert r.code == 1 and r.first.endswith(TIMEOUT_1), r.stderr
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        # (a forward of 2,000 statements, well inside the second on a busy machine; then
        # 1,000 backward passes of 2,000 nodes: several seconds on the fastest machine)
        f.write("x = ones(3, requires_grad=True)\ny = x\n" + "y = y * 1.0001\n" * 2000 + "z = y.sum()\n")
        f.flush()
        r = measured("grad", f.name, "--repeat", "1000", "--retain-graph", *NO_OTHER_CAP, "--timeout", "1")
    assert r.code == 1 and r.stderr.splitlines()[-1].endswith(TIMEOUT_1), r.stderr


def test_the_fast_reader_reads_timeout_as_typer_does():
    from diffcli import cli as diffcli_cli

    from .test_fast_args import _typer_kwargs

    for argv in (
        ["run", "-e", "x = 1", "--timeout", "7"],
        ["grad", "-e", "x = 1.0", "--timeout=0"],
        ["check", "x.txt", "--timeout", "0012", "--max-memory", "9"],
    ):
        code, name, kwargs = _typer_kwargs(argv)
        assert diffcli_cli._fast_args(argv) == (name, kwargs), argv
