"""A mutation fuzzer over valid scripts (SPEC §4: any input, however malformed, gives a
clear error and an exit code, never a traceback or a hang).

Each example takes a sample script (samples/*.txt, both flavours), mutates it (byte flips,
truncation, splices of the grammar's own literal tokens, huge numbers, hostile
characters) and runs it in process through the CLI entry point, as test_fuzz.py does. The
contract: no traceback, no internal error, exit 0, 1 or 2, and on a non-zero exit an
`error:` line on stderr that ends the message (after it come only the offending source line
and its caret, or note/hint lines). Reproducible (`derandomize=True`) and bounded by
example counts and small caps (`CAPS`); the alarm only turns a hang into a failure.
`DIFFCLI_FUZZ_SCALE=20` multiplies the examples for a longer hunt.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from .samples import SAMPLES, cli, sample_args  # noqa: E402
from .test_hostile import hang_guard  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [(p.read_bytes(), sample_args(p)) for p in SAMPLES]
GRAMMAR_TOKENS = sorted(
    set(re.findall(r'"([^"\\]+)"', (ROOT / "grammar" / "diffscript.lark").read_text()))
    - {"(?!", "))[^", "[^"}
)
HOSTILE = [
    "10**10**10",
    "2**2**64",
    "9" * 400,
    "1e999",
    "-1e999",
    "float('nan')",
    "10**18",
    "range(10**12)",
    "'a'*10**10",
    "[0]*10**10",
    "torch.zeros(10**6, 10**6)",
    "\x00",
    "\ufeff",
    "\u200b",
    "\u202e",
    "\r",
    "\t",
    "\x0c",
    "\\",
    "'''",
    "é",
    "__class__",
    "__import__('os')",
    "(" * 300,
    "-" * 300,
]
COMMANDS = [["run"], ["grad"], ["graph"], ["check"], ["explain"], ["jacobian"]]
CAPS = [
    "--max-iterations",
    "100000",
    "--max-statements",
    "200000",
    "--max-memory",
    "1024",
    "--timeout",
    "120",
]
FUZZ = settings(
    max_examples=60 * int(os.environ.get("DIFFCLI_FUZZ_SCALE", "1")),  # e.g. 20 for a longer hunt
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=list(HealthCheck),
)
AFTER_ERROR = ("note:", "hint:", "Try ", "warning:")


def contract(args, data: bytes):
    """`diffcli ARGS -` with `data` on standard input, in process; the fuzzer's contract."""
    with hang_guard():
        r = cli(*args, "-", *CAPS, input=data)
    shown = f"args={args!r} input={data[:300]!r}"
    err = r.stderr
    assert r.exception is None or isinstance(r.exception, SystemExit), f"{shown}: {r.exception!r}"
    assert "Traceback" not in err and "Traceback" not in r.stdout, f"{shown}\n{err}"
    assert "internal error" not in err and "InternalError" not in err, f"{shown}\n{err}"
    assert r.exit_code in (0, 1, 2), f"{shown}: exit {r.exit_code}\n{err}"
    if r.exit_code:
        lines = err.splitlines()
        errors = [i for i, line in enumerate(lines) if line.startswith("error: ")]
        assert errors, f"{shown}: exit {r.exit_code} without an error line\n{err}"
        rest = [line for line in lines[errors[-1] + 1 :] if not line.startswith(AFTER_ERROR)]
        assert len(rest) <= 2, f"{shown}: the error is not the end of stderr\n{err}"
    return r


@st.composite
def mutated(draw):
    text, extra = draw(st.sampled_from(TEXTS))
    data = bytearray(text)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "truncate", "splice", "hostile", "delete", "duplicate"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[at:]
        elif kind == "splice":
            token = draw(st.sampled_from(GRAMMAR_TOKENS))
            data[at:at] = f" {token} ".encode()
        elif kind == "hostile":
            data[at:at] = draw(st.sampled_from(HOSTILE)).encode("utf-8", "surrogatepass")
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 20))]
        else:  # a line again, somewhere else
            lines = bytes(data).split(b"\n")
            line = draw(st.sampled_from(lines))
            data[at:at] = line + b"\n"
    command = draw(st.sampled_from(COMMANDS))
    return command + [a for a in extra if command == ["run"] or a != "--exit-zero"], bytes(data)


@FUZZ
@given(mutated())
def test_mutated_samples_keep_the_contract(case):
    args, data = case
    contract(args, data)


@FUZZ
@given(st.sampled_from(TEXTS), st.sampled_from(HOSTILE), st.sampled_from(COMMANDS))
def test_a_hostile_value_for_each_number_keeps_the_contract(sample, value, command):
    # every number literal of the script replaced by one hostile value
    text, extra = sample
    new = value.encode("utf-8", "surrogatepass")
    data = re.sub(rb"(?<![\w.])\d+(\.\d+)?", lambda m: new, text)
    contract(command, data)


def test_the_fuzzer_reaches_all_three_exit_codes():
    # the contract holds on a valid script, a failing one and a malformed one (so the
    # mutations above exercise all three outcomes, not only syntax errors)
    assert contract(["run"], b"print(1)\n").exit_code == 0
    assert contract(["run"], b"x = 1 / 0\n").exit_code == 1
    assert contract(["run"], b"x = (\n").exit_code == 2
