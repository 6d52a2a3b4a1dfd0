"""The safety caps (SPEC §4) and the checks that hold them.

`Limits` carries the caps of one command and what its runs share: the clock of
--timeout and the memory base of --max-memory, both taken when the first run starts, so
every run of `check`, every `--repeat` and every backward pass counts against the same
budget. `Caps` is the interpreter's side: the checks it makes before an operation
builds something (a tensor, a Python list or string, a loop), each failing with a
`LimitError` that names the option raising the cap. The checks are cheap counters;
the clock and the process's resident memory are read only every so many statements,
loop iterations or backward nodes, and whenever a big tensor is made.
"""

from __future__ import annotations

import gc
import time

from ..engine import errors as engine_errors
from ..engine.context import RunContext
from .caps import CAP_DEFAULTS
from .errors import ScriptError
from .estimates import _SEQUENCE_NAMES
from .memory import resident_memory

# --- memory (--max-memory) ------------------------------------------------------------------
# The memory the script holds, measured cheaply as the growth of the process's resident
# memory since the first run started (numpy gives big arrays back to the system when they
# die). It is read every CHECK_EVERY statements or loop iterations, every POLL_EVERY nodes
# of a backward pass, and whenever a tensor of at least MEMORY_CHECK_ELEMENTS is made.
CHECK_EVERY = 1024  # a power of two (a mask picks the statements)
MEMORY_EVERY = CHECK_EVERY  # (the name it had)
MEMORY_CHECK_ELEMENTS = 1 << 16  # 512 KiB of float64


class Limits:
    """Safety caps (`CAPS`); each has a CLI option named in its error. `max_memory` is in
    MB, `timeout` in seconds (0: none)."""

    def __init__(self, **caps):
        unknown = caps.keys() - CAP_DEFAULTS.keys()
        if unknown:
            raise TypeError(f"Limits() got unknown caps {sorted(unknown)}")
        for name, default in CAP_DEFAULTS.items():
            setattr(self, name, caps.get(name, default))
        self.deadline = None  # time.monotonic() when the time is up (set by start)
        self.memory_base = None  # resident bytes when the first run started
        self._rescued = None  # resident bytes after the last collection that helped

    def start(self):
        """A run begins. The first one starts the clock and takes the memory base that every
        later run and backward pass of the command shares."""
        if self.memory_base is None:
            self.memory_base = resident_memory()
        if self.deadline is None and self.timeout:
            self.deadline = time.monotonic() + self.timeout

    def parse_clock(self):
        """--timeout for the script's parse, which comes before the runs' clock starts: a
        clock of its own, started now; () -> the message once the time is up, else None
        (None: no time cap)."""
        if not self.timeout:
            return None
        deadline = time.monotonic() + self.timeout

        def expired():
            return self._time_message() if time.monotonic() > deadline else None

        return expired

    # --- the checks, as messages (None: within the caps) -------------------------------
    def time_exceeded(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            return self._time_message()
        return None

    def _time_message(self):
        s = "" if self.timeout == 1 else "s"
        return (
            f"the run took more than {self.timeout} second{s} (raise the cap with --timeout, "
            "or give --timeout 0 for none)"
        )

    def memory_exceeded(self):
        used = self._memory_used()
        if used is None or used <= self.max_memory:
            return None
        # Over the cap: garbage held in reference cycles (a finished run, a create_graph
        # cycle) may be what fills it. Collect, at most once per 1/16 of the cap of growth.
        now = used * (1 << 20)
        if self._rescued is None or now > self._rescued + (self.max_memory << 16):
            gc.collect()
            used = self._memory_used()
            self._rescued = None if used is None else used * (1 << 20)
            if used is None or used <= self.max_memory:
                return None
        return (
            f"the script's tensors use {used:.0f} MB of memory, more than the limit of "
            f"{self.max_memory} MB (raise it with --max-memory)"
        )

    def _memory_used(self):
        if self.memory_base is None:
            return None
        now = resident_memory()
        return None if now is None else (now - self.memory_base) / (1 << 20)

    def exceeded(self):
        return self.time_exceeded() or self.memory_exceeded()

    def poll(self):
        """Time and memory, for loops outside the interpreter (backward passes, `check`'s
        runs, `--repeat`): an engine LimitError, which the caller gives a position."""
        message = self.exceeded()
        if message:
            raise engine_errors.LimitError(message)

    def watching(self):
        """A context in which the engine's long loops (backward passes, unbind) poll these
        limits (the engine's `poll` setting, engine.context)."""
        return _Watching(self)


class _Watching:
    def __init__(self, limits):
        self.limits = limits

    def __enter__(self):
        self.limits.start()
        self.context = RunContext(poll=self.limits.poll)
        self.context.__enter__()
        return self.limits

    def __exit__(self, *exc):
        return self.context.__exit__(*exc)


def limit_error(message, node=None):
    """A LimitError at `node` (a ScriptError), or without a position (an engine error that
    the interpreter then places at the call that raised it)."""
    if node is None:
        return engine_errors.LimitError(message)
    return ScriptError("LimitError", message, node.line, node.column)


class Caps:
    """The interpreter's checks (a mixin: needs `self.limits` and `self.iterations`).
    `node` gives the error's position; None raises an engine LimitError instead."""

    def check_size(self, n, node):
        """The --max-elements cap, checked before an op that would make a huge tensor (and
        after it, on its result); a big tensor is also the moment to check --max-memory."""
        if n is not None:
            if n > self.limits.max_elements:
                raise limit_error(
                    f"tensor of {n} elements exceeds the limit of "
                    f"{self.limits.max_elements} elements (raise it with --max-elements)",
                    node,
                )
            if n >= MEMORY_CHECK_ELEMENTS:
                self.checkpoint(node)

    def check_length(self, n, what, node):
        """The --max-elements cap on a Python list, tuple or string of `n` elements."""
        if n > self.limits.max_elements:
            raise limit_error(
                f"{what} of {n} elements exceeds the limit of "
                f"{self.limits.max_elements} elements (raise it with --max-elements)",
                node,
            )

    def check_sequence(self, n, kind, node, per=8):
        """A list, tuple or string of `n` elements about to be built (`per` bytes each):
        --max-elements, and for a big one, whether it fits in what --max-memory leaves."""
        self.check_length(n, _SEQUENCE_NAMES.get(kind, "list"), node)
        self.check_room(n, kind, node, per)

    def check_room(self, n, kind, node, per=8):
        """--max-memory before a list, tuple or string of `n` elements is built."""
        what = _SEQUENCE_NAMES.get(kind, "list")
        if n >= MEMORY_CHECK_ELEMENTS:
            self.checkpoint(node)
            used = self.limits._memory_used()
            if used is not None and used + n * per / (1 << 20) > self.limits.max_memory:
                raise limit_error(
                    f"a {what} of {n} elements would take the script's memory to "
                    f"{used + n * per / (1 << 20):.0f} MB, more than the limit of "
                    f"{self.limits.max_memory} MB (raise it with --max-memory)",
                    node,
                )

    def check_memory(self, node):
        """The --max-memory cap: the memory the run holds (the growth of the process's
        resident memory since the first run started), in MB."""
        message = self.limits.memory_exceeded()
        if message:
            raise limit_error(message, node)

    def checkpoint(self, node):
        """--timeout and --max-memory (made every CHECK_EVERY statements or iterations)."""
        message = self.limits.time_exceeded() or self.limits.memory_exceeded()
        if message:
            raise limit_error(message, node)

    def check_iterations(self, n, node, what=None):
        """A loop (or a builtin consuming a range) that will certainly run past
        --max-iterations fails before it starts."""
        if self.iterations + n > self.limits.max_iterations:
            what = what or f"a loop of {n} iterations"
            raise limit_error(
                f"{what} exceeds the limit of {self.limits.max_iterations} loop iterations "
                "(raise the cap with --max-iterations)",
                node,
            )

    def charge(self, n, node, what):
        """`n` iterations a builtin makes at once (`sum(range(n))`), checked first."""
        self.check_iterations(n, node, what)
        self.iterations += n

    def tick(self, node):
        n = self.iterations = self.iterations + 1
        if n > self.limits.max_iterations:
            raise limit_error(
                f"more than {self.limits.max_iterations} loop iterations "
                "(raise the cap with --max-iterations)",
                node,
            )
        if not n & (CHECK_EVERY - 1):
            self.checkpoint(node)

    def counted(self, items, node=None):
        """The items of `items`, each counted as a loop iteration: what a builtin that
        may stop early (`any`, `all`, `in`, ...) or a lazy iterator gives it."""
        tick = self.tick
        for v in items:
            tick(node)
            yield v
