"""Limits (SPEC §4): tensor elements, loop iterations, statements and call depth have caps
with clear errors naming the option that raises them, and fail fast (before the work)."""

from __future__ import annotations

import time

import pytest

from .samples import cli


def fails_fast(script, *args, seconds=5.0):
    start = time.perf_counter()
    r = cli("run", "-e", script, *args)
    assert time.perf_counter() - start < seconds, f"took {time.perf_counter() - start:.1f}s"
    assert r.exit_code == 1, r.stderr
    assert "Traceback" not in r.stderr
    return r.stderr


def limit_error(n, cap=10_000_000):
    return f"LimitError: tensor of {n} elements exceeds the limit of {cap} elements (raise it with --max-elements)"


# --- --max-elements -------------------------------------------------------------------


def test_huge_constructor():
    err = fails_fast("x = zeros(100000000)")
    assert err == (
        "error: <expr>:1:5: " + limit_error(100_000_000) + "\n    x = zeros(100000000)\n        ^\n"
    )


@pytest.mark.parametrize(
    "script, n",
    [
        ("x = ones(100000, 1) * ones(1, 100000)", 10_000_000_000),  # a broadcast
        ("x = ones(20000, 1) + ones(20000)", 400_000_000),
        ("x = ones(20000, 1) < ones(20000)", 400_000_000),  # comparisons broadcast too
        ("x = where(ones(20000, 1) > 0, ones(20000), 0.0)", 400_000_000),
        ("x = maximum(ones(20000, 1), ones(20000))", 400_000_000),
        ("x = outer(ones(100000), ones(100000))", 10_000_000_000),
        ("x = ones(100000, 1) @ ones(1, 100000)", 10_000_000_000),
        ("x = ones(100000, 0) @ ones(0, 100000)", 10_000_000_000),  # empty operands
        ("x = matmul(ones(5, 10000, 1), ones(1, 10000))", 500_000_000),
        ("x = ones(10000, 1).expand(10000, 10000)", 100_000_000),
        ("x = ones(10000, 1).expand(-1, 10000).clone()", 100_000_000),
        ("x = ones(10000).repeat(10000)", 100_000_000),
        ("x = cat([ones(6000000), ones(6000000)])", 12_000_000),
        ("x = stack([ones(6000000), ones(6000000)])", 12_000_000),
        ("x = eye(100000)", 10_000_000_000),
        ("x = full((4000, 4000), 1.0)", 16_000_000),
        ("x = arange(1e9)", 1_000_000_000),
        # the tensor methods that grow a tensor from one argument
        ("x = ones(3).repeat_interleave(10**11)", 300_000_000_000),
        ("x = repeat_interleave(ones(3), 10**9)", 3_000_000_000),
        ("x = ones(3).tile((10**6, 10**6))", 3_000_000_000_000),
        ("x = ones(3).broadcast_to((10**5, 10**5, 3))", 30_000_000_000),
        ("x = meshgrid(ones(10**4), ones(10**4), ones(10**4), indexing='ij')", 1_000_000_000_000),
        ("x = diag(ones(10**5))", 10_000_000_000),
        ("x = diag_embed(ones(1000, 1000))", 1_000_000_000),
        ("x = ones(10**5).unfold(0, 10**4, 1)", 900_010_000),
        ("x = hstack([ones(6000000), ones(6000000)])", 12_000_000),
        ("x = ones(3).new_zeros(10**6, 10**6)", 1_000_000_000_000),
        ("x = logspace(0, 1, 10**11)", 100_000_000_000),
    ],
)
def test_ops_that_would_build_a_huge_tensor_are_refused_before_the_work(script, n):
    err = fails_fast(script, seconds=3)
    assert limit_error(n) in err.splitlines()[0]


def test_max_elements_raises_and_lowers_the_cap():
    assert cli("run", "-e", "x = zeros(1000)", "--max-elements", "999").exit_code == 1
    assert cli("run", "-e", "x = zeros(1000)", "--max-elements", "1000").exit_code == 0
    err = fails_fast("x = ones(100, 1) * ones(1, 100)", "--max-elements", "9999")
    assert limit_error(10000, 9999) in err
    assert cli("run", "-e", "x = ones(100, 1) * ones(1, 100)", "--max-elements", "10000").exit_code == 0
    assert cli("run", "-e", "x = zeros(20000000)", "--max-elements", "20000000").exit_code == 0


def test_python_sequences_are_capped_too():
    cases = {
        "x = [0] * 10**9": "list of 1000000000 elements",
        "x = 'ab' * 10**9": "string of 2000000000 elements",
        "x = (1, 2) * 10**9": "tuple of 2000000000 elements",
        "x = list(range(10**9))": "list of 1000000000 elements",
        "x = tuple(range(10**9))": "tuple of 1000000000 elements",
        "x = [0] * 1000\nfor i in range(20):\n    x = x + x": "list of 1024000 elements",
    }
    for script, what in cases.items():
        err = fails_fast(script, "--max-elements", "1000000")
        assert (
            f"LimitError: {what} exceeds the limit of 1000000 elements (raise it with --max-elements)" in err
        )


def test_huge_integers_are_refused_not_computed():
    for script in ("x = 10**10**10", "x = 2**1000000", "x = int(2)\nfor i in range(40):\n    x = x * x"):
        err = fails_fast(script)
        assert "OverflowError: integer result of " in err and "too large (more than 65536 bits" in err
    assert cli("run", "-e", "print(len(str(2**10000)))").stdout == "3011\n"


# --- --max-iterations ---------------------------------------------------------------------


def test_a_too_long_loop_fails_before_it_starts():
    err = fails_fast("for i in range(10**9):\n    pass", seconds=2)
    assert err == (
        "error: <expr>:1:10: LimitError: a loop of 1000000000 iterations exceeds the limit of "
        "10000000 loop iterations (raise the cap with --max-iterations)\n"
        "    for i in range(10**9):\n             ^\n"
    )
    err = fails_fast("x = [i for i in range(10**9)]", seconds=2)
    assert "(raise the cap with --max-iterations)" in err


def test_a_loop_that_may_break_early_runs():
    r = cli("run", "-e", "for i in range(10**9):\n    if i == 3:\n        break\nprint(i)")
    assert (r.exit_code, r.stdout) == (0, "3\n")


def test_max_iterations_counts_every_loop():
    script = "n = int(0)\nfor i in range(30):\n    for j in range(30):\n        n = n + 1\nprint(n)"
    assert cli("run", "-e", script, "--max-iterations", "930").stdout == "900\n"
    err = fails_fast(script, "--max-iterations", "929")
    assert "LimitError: " in err and "(raise the cap with --max-iterations)" in err
    err = fails_fast("i = 0\nwhile True:\n    i = i + 1", "--max-iterations", "1000")
    assert err.startswith(
        "error: <expr>:2:1: LimitError: more than 1000 loop iterations (raise the cap with --max-iterations)"
    )


def test_limits_cannot_be_caught_by_the_script():
    err = fails_fast("try:\n    for i in range(10**9):\n        pass\nexcept Exception:\n    print('caught')")
    assert "--max-iterations" in err
    err = fails_fast(
        "try:\n    while True:\n        pass\nexcept Exception:\n    print('caught')",
        "--max-iterations",
        "100",
    )
    assert "--max-iterations" in err


# --- --max-statements ------------------------------------------------------------------------


def test_max_statements():
    script = "\n".join(f"x{i} = {i}" for i in range(20))
    assert cli("run", "-e", script, "--max-statements", "20").exit_code == 0
    err = fails_fast(script, "--max-statements", "19")  # the parser counts them first
    assert err == (
        "error: <expr>:20:1: LimitError: the script has more than 19 statements (raise the "
        "cap with --max-statements)\n    x19 = 19\n    ^\n"
    )
    looping = "for i in range(6):\n    x = i\n    y = x"  # 3 statements, 13 executed
    assert cli("run", "-e", looping, "--max-statements", "13").exit_code == 0
    err = fails_fast(looping, "--max-statements", "12")
    assert err == (
        "error: <expr>:3:5: LimitError: more than 12 statements executed (raise the cap with "
        "--max-statements)\n        y = x\n        ^\n"
    )


def test_an_endless_loop_ends_on_the_statement_cap():
    err = fails_fast("while True:\n    pass", seconds=20)
    assert "LimitError: more than 1000000 statements executed (raise the cap with --max-statements)" in err


# --- --max-depth -------------------------------------------------------------------------------

RECURSE = "def f(n):\n    if n == 0:\n        return 0\n    return f(n - 1) + 1\nprint(f({n}))"


def test_unbounded_recursion_names_max_depth():
    err = fails_fast("def f(n):\n    return f(n + 1)\nf(0)")
    assert err == (
        "error: <expr>:2:12: RecursionError: maximum recursion depth exceeded (100; raise the "
        "cap with --max-depth)\n        return f(n + 1)\n               ^\n"
    )


def test_max_depth_raises_and_lowers_the_cap():
    assert cli("run", "-e", RECURSE.format(n=99)).stdout == "99\n"
    assert "--max-depth" in fails_fast(RECURSE.format(n=100))
    assert cli("run", "-e", RECURSE.format(n=150), "--max-depth", "151").stdout == "150\n"
    assert "(5; raise the cap with --max-depth)" in fails_fast(RECURSE.format(n=5), "--max-depth", "5")
    assert cli("run", "-e", RECURSE.format(n=4), "--max-depth", "5").stdout == "4\n"


def test_depth_is_restored_after_a_caught_recursion_error():
    script = (
        "def f(n):\n    return f(n + 1)\ntry:\n    f(0)\nexcept Exception as e:\n    print('caught')\n"
        + RECURSE.format(n=99)
    )
    assert cli("run", "-e", script).stdout == "caught\n99\n"


def test_a_depth_cap_above_what_the_host_stack_allows_still_ends_cleanly():
    err = fails_fast("def f(n):\n    return f(n + 1)\nf(0)", "--max-depth", "1000000", seconds=20)
    assert "RecursionError: maximum recursion depth exceeded (" in err
    assert "lower --max-depth" in err


# --- nesting in the source --------------------------------------------------------------------


def test_deeply_nested_expressions():
    r = cli("run", "-e", "x = " + "(" * 10000 + "1" + ")" * 10000)
    assert r.exit_code == 2
    assert r.stderr.startswith("error: <expr>:1:205: SyntaxError: expression nested too deeply")
    r = cli("run", "-e", "print(" + "(" * 150 + "1" + ")" * 150 + ")")
    assert r.stdout == "1\n"


def test_long_flat_expressions_are_not_nesting():
    r = cli("run", "-e", "x = 0" + " + 1" * 20000 + "\nprint(x)")
    assert r.stdout == "20000\n"
    r = cli("run", "-e", "x = " + "-" * 5000 + "1\nprint(x)")
    assert r.stdout == "1\n"


# --- --max-memory ---------------------------------------------------------------------------
# Measured as the growth of the process's resident memory during the run, so these run
# diffcli in a fresh process (in this one, earlier tests' freed memory could be reused).


def diffcli_process(*args, timeout=60):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "diffcli", *args], capture_output=True, text=True, timeout=timeout
    )


MANY_BIG = "xs = []\nfor i in range(1000):\n    xs = xs + [ones(1000000) * i]\nprint(len(xs))"


def test_max_memory_stops_a_script_that_keeps_many_big_tensors_alive():
    start = time.perf_counter()
    r = diffcli_process("run", "-e", MANY_BIG, "--max-memory", "200")
    assert time.perf_counter() - start < 20
    assert r.returncode == 1, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith("error: <expr>:3:16: LimitError: the script's tensors use "), first
    assert first.endswith(" MB of memory, more than the limit of 200 MB (raise it with --max-memory)"), first
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_max_memory_lets_through_what_fits_and_what_is_freed():
    r = diffcli_process(
        "run", "-e", "xs = [ones(1000000) for i in range(10)]\nprint(len(xs))", "--max-memory", "200"
    )
    assert (r.returncode, r.stdout) == (0, "10\n"), r.stderr
    # 100 big temporaries made and dropped one after another: one is alive at a time (a
    # tensor bound to a name stays alive until the run ends, so these are not named)
    r = diffcli_process(
        "run",
        "-e",
        "for i in range(100):\n    s = (ones(1000000) * i).sum()\nprint(s.item())",
        "--max-memory",
        "100",
    )
    assert (r.returncode, r.stdout) == (0, "99000000.0\n"), r.stderr
    r = diffcli_process("run", "-e", MANY_BIG.replace("1000)", "30)"), "--max-memory", "1000")
    assert (r.returncode, r.stdout) == (0, "30\n"), r.stderr


# option, its default as --help shows it, a value below its range and the error's text,
# values inside the range (`--opt=V` as well as `--opt V`)
LIMIT_OPTIONS = [
    ("--max-memory", "4096", "0", "--max-memory must be at least 1, got 0", ["1"]),
    ("--timeout", "300", "-1", "--timeout must be at least 0 (0: none), got -1", ["0", "5"]),
    ("--max-script-size", "16", "0", "--max-script-size must be at least 1, got 0", ["1", "2"]),
]


@pytest.mark.parametrize("option, default, bad, message, good", LIMIT_OPTIONS)
@pytest.mark.parametrize("command", ["grad", "graph", "run", "check"])
def test_limit_is_an_option_of_every_command(command, option, default, bad, message, good):
    r = cli(command, "--help")
    assert option in r.stdout and default in r.stdout
    r = cli(command, "-e", "x = 2.0\ny = x * x", option, bad)
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: UsageError: {message}")
    for i, value in enumerate(good):
        args = [f"{option}={value}"] if i % 2 else [option, value]
        assert cli(command, "-e", "x = 2.0\ny = x * x", *args).exit_code == 0
