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
import os
import sys
import time

from ..engine import errors as engine_errors
from ..engine.tensor import Size, Tensor
from .errors import ScriptError

DEFAULT_TIMEOUT = 300              # seconds; 0: no time cap

# --- memory (--max-memory) ------------------------------------------------------------------
# The memory the script holds, measured cheaply as the growth of the process's resident
# memory since the first run started (numpy gives big arrays back to the system when they
# die). It is read every CHECK_EVERY statements or loop iterations, every POLL_EVERY nodes
# of a backward pass, and whenever a tensor of at least MEMORY_CHECK_ELEMENTS is made.
CHECK_EVERY = 1024                 # a power of two (a mask picks the statements)
MEMORY_EVERY = CHECK_EVERY         # (the name it had)
MEMORY_CHECK_ELEMENTS = 1 << 16    # 512 KiB of float64
_RSS = []                          # [reader]: () -> bytes or None, chosen on first use


def resident_memory():
    """The process's resident memory in bytes: /proc/self/statm where there is one, else
    the peak from getrusage (an upper bound of the current); None where neither exists."""
    if not _RSS:
        _RSS.append(_rss_reader())
    return _RSS[0]()


def _rss_reader():
    try:
        page = os.sysconf("SC_PAGE_SIZE")

        def statm():
            with open("/proc/self/statm", "rb") as f:
                return int(f.read().split()[1]) * page
        statm()
        return statm
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import resource
    except ImportError:
        return lambda: None
    scale = 1 if sys.platform == "darwin" else 1024      # ru_maxrss: bytes on macOS, KiB elsewhere

    def peak():
        try:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
        except (OSError, ValueError):
            return None
    return peak


class Limits:
    """Safety caps; each has a CLI option named in its error. `max_memory` is in MB,
    `timeout` in seconds (0: none)."""

    def __init__(self, max_elements=10_000_000, max_iterations=10_000_000,
                 max_statements=1_000_000, max_depth=100, max_memory=4096, timeout=DEFAULT_TIMEOUT,
                 max_script_size=16):
        self.max_elements = max_elements
        self.max_iterations = max_iterations
        self.max_statements = max_statements
        self.max_depth = max_depth
        self.max_memory = max_memory
        self.timeout = timeout
        self.max_script_size = max_script_size   # MB; checked by diffcli.source and the parser
        self.deadline = None           # time.monotonic() when the time is up (set by start)
        self.memory_base = None        # resident bytes when the first run started
        self._rescued = None           # resident bytes after the last collection that helped

    def start(self):
        """A run begins. The first one starts the clock and takes the memory base that every
        later run and backward pass of the command shares."""
        if self.memory_base is None:
            self.memory_base = resident_memory()
        if self.deadline is None and self.timeout:
            self.deadline = time.monotonic() + self.timeout

    # --- the checks, as messages (None: within the caps) -------------------------------
    def time_exceeded(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            s = "" if self.timeout == 1 else "s"
            return (f"the run took more than {self.timeout} second{s} (raise the cap with --timeout, "
                    "or give --timeout 0 for none)")
        return None

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
        return (f"the script's tensors use {used:.0f} MB of memory, more than the limit of "
                f"{self.max_memory} MB (raise it with --max-memory)")

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
        limits (engine.errors.POLL)."""
        return _Watching(self)


class _Watching:
    def __init__(self, limits):
        self.limits = limits

    def __enter__(self):
        self.limits.start()
        self.prev = engine_errors.POLL[0]
        engine_errors.POLL[0] = self.limits.poll
        return self.limits

    def __exit__(self, *exc):
        engine_errors.POLL[0] = self.prev
        return False


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
                raise limit_error(f"tensor of {n} elements exceeds the limit of "
                                  f"{self.limits.max_elements} elements (raise it with --max-elements)", node)
            if n >= MEMORY_CHECK_ELEMENTS:
                self.checkpoint(node)

    def check_length(self, n, what, node):
        """The --max-elements cap on a Python list, tuple or string of `n` elements."""
        if n > self.limits.max_elements:
            raise limit_error(f"{what} of {n} elements exceeds the limit of "
                              f"{self.limits.max_elements} elements (raise it with --max-elements)", node)

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
                raise limit_error(f"a {what} of {n} elements would take the script's memory to "
                                  f"{used + n * per / (1 << 20):.0f} MB, more than the limit of "
                                  f"{self.limits.max_memory} MB (raise it with --max-memory)", node)

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
            raise limit_error(f"{what} exceeds the limit of {self.limits.max_iterations} loop iterations "
                              "(raise the cap with --max-iterations)", node)

    def charge(self, n, node, what):
        """`n` iterations a builtin makes at once (`sum(range(n))`), checked first."""
        self.check_iterations(n, node, what)
        self.iterations += n

    def tick(self, node):
        n = self.iterations = self.iterations + 1
        if n > self.limits.max_iterations:
            raise limit_error(f"more than {self.limits.max_iterations} loop iterations "
                              "(raise the cap with --max-iterations)", node)
        if not n & (CHECK_EVERY - 1):
            self.checkpoint(node)

    def counted(self, items, node=None):
        """The items of `items`, each counted as a loop iteration: what a builtin that
        may stop early (`any`, `all`, `in`, ...) or a lazy iterator gives it."""
        tick = self.tick
        for v in items:
            tick(node)
            yield v


# --- estimates: what one operation would build ---------------------------------------------

_SEQUENCES = (list, tuple, str, Size)
_SEQUENCE_NAMES = {list: "list", tuple: "tuple", str: "string", Size: "torch.Size"}
_TUPLES = (tuple, Size)
MAX_INT_BITS = 1 << 16


def _length(seq):
    """len(), also of a range too long for a C ssize_t (`range(10**30)`)."""
    try:
        return len(seq)
    except OverflowError:
        return (seq.stop - seq.start + seq.step - (1 if seq.step > 0 else -1)) // seq.step


def _check_int_size(op, left, right, node):
    """Exact integers stay below MAX_INT_BITS: `10**10**10` or repeated squaring would
    otherwise eat the host's memory and time."""
    if op == "**" and right > 0 and abs(left) > 1:
        bits = (abs(left).bit_length() - 1) * right
    elif op == "*":
        bits = abs(left).bit_length() + abs(right).bit_length() - 1
    else:
        return
    if bits > MAX_INT_BITS:
        raise ScriptError("OverflowError", f"integer result of '{op}' too large (more than "
                          f"{MAX_INT_BITS} bits; write a float such as 10.0 for huge numbers)",
                          node.line, node.column)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _broadcast(shapes):
    """numpy's broadcast shape, or None if the shapes do not broadcast (the engine then
    raises PyTorch's error)."""
    ndim = max(len(s) for s in shapes)
    out = []
    for axis in range(1, ndim + 1):
        dim = 1
        for s in shapes:
            d = s[-axis] if axis <= len(s) else 1
            if d != 1:
                if dim != 1 and d != dim:
                    return None
                dim = d
        out.append(dim)
    return out


_MATMULS = {"matmul", "mm", "bmm", "mv", "dot"}
_CATS = {"cat", "concat", "concatenate", "stack"}


def growth_estimate(name, owner, args, kwargs, cap):
    """How many elements the op `name` (a function, or a method of the tensor `owner`)
    would produce, for the ops that can make a tensor larger than their inputs:
    broadcasting, matrix products, outer, cat/stack, expand, repeat. None if unknown or
    surely within `cap` (the common case, decided without working out shapes)."""
    if name in _CATS:
        seq = args[0] if args else kwargs.get("tensors")
        if isinstance(seq, (list, tuple)):
            return sum(t.data_.size for t in seq if isinstance(t, Tensor))
        return None
    if isinstance(owner, Tensor) and name in ("expand", "repeat"):
        sizes = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        if not all(type(s) is int for s in sizes):
            return None
        if name == "repeat":
            return owner.data_.size * _numel(max(s, 0) for s in sizes)
        shape = owner.data_.shape
        dims = [shape[i - len(sizes) + len(shape)] if s == -1 and i - len(sizes) + len(shape) >= 0
                else max(s, 0) for i, s in enumerate(sizes)]
        return _numel(dims)
    # the result of a broadcast, outer or matrix product has at most the product of the
    # operands' sizes: below the cap, nothing more to work out
    bound, count = 1, 0
    for t in (owner, *args, *kwargs.values()) if kwargs else (owner, *args):
        if type(t) is Tensor:
            bound *= t.data_.size
            count += 1
    if count < 2 or 0 < bound <= cap:     # (an empty operand of a matrix product does not
        return None                       # bound its result: (n, 0) @ (0, m) is n x m)
    tensors = [owner] if isinstance(owner, Tensor) else []
    tensors += [a for a in args if isinstance(a, Tensor)]
    tensors += [v for v in kwargs.values() if isinstance(v, Tensor)]
    if name == "outer":
        return tensors[0].data_.size * tensors[1].data_.size
    if name in _MATMULS:
        sa, sb = tensors[0].data_.shape, tensors[1].data_.shape
        if not sa or not sb:
            return None
        batch = _broadcast([sa[:-2], sb[:-2]]) if len(sa) > 2 or len(sb) > 2 else []
        if batch is None:
            return None
        return _numel(batch) * (sa[-2] if len(sa) >= 2 else 1) * (sb[-1] if len(sb) >= 2 else 1)
    shape = _broadcast([t.data_.shape for t in tensors])
    return None if shape is None else _numel(shape)
