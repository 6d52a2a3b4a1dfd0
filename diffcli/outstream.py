"""The process's standard streams as the command line uses them: closed, full or broken
streams end a command with a one-line message (never a traceback), and a command's final
document (JSON, TSV, DOT...) reaches standard output whole or not at all.

- `guard_std_streams()` (at start-up, in the real process only): a descriptor 0-2 that the
  caller closed (`diffcli run -e 'print(1)' >&-`) gets /dev/null in its place, so no file
  diffcli opens later takes its number, while the stream itself stays "closed": reading a
  closed standard input or writing a closed standard output is an error, as for `cat`.
  Standard output is wrapped so that any failure to write it (a full disk, `/dev/full`, a
  reader that went away, a closed descriptor) raises `StdoutError`, which the CLI reports
  once; standard error that cannot be written is given up silently (there is nowhere
  left to report to).
- `write_document(text)`: the final output, written with SIGINT, SIGTERM and SIGHUP held
  back (caught, then sent again once the write is done). A signal that arrives before the write begins ends the run as usual, with nothing
  on standard output; one that arrives during the write takes effect right after it, so a
  reader never sees a truncated document. If the reader stops reading while a signal is
  waiting, diffcli gives up after STALL_SECONDS without progress (says so on standard
  error) and lets the signal end it: a stalled reader cannot make diffcli unkillable.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import time

DEFERRED = tuple(
    s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGTERM", "SIGHUP")) if s is not None
)
CHUNK = 4096  # <= PIPE_BUF: a pipe that polls writable takes it without blocking
STALL_SECONDS = 10.0


class StdoutError(OSError):
    """Standard output cannot be written (errno says why)."""


def describe(err: OSError) -> str:
    """`cannot write to standard output: No space left on device`."""
    reason = err.strerror or os.strerror(err.errno or 0)
    if err.errno == errno.EBADF:
        reason += " (it is closed)"
    return f"cannot write to standard output: {reason}"


class _GuardedStdout:
    """sys.stdout, with every write failure raised as StdoutError."""

    def __init__(self, stream):
        self._stream = stream

    def _guard(self, method, *args):
        try:
            return method(*args)
        except (StdoutError, UnicodeError):  # UnicodeError: the text's (a lone surrogate), not the stream's
            raise
        except (OSError, ValueError) as e:  # ValueError: "I/O operation on closed file"
            code = getattr(e, "errno", None) or errno.EBADF
            raise StdoutError(code, getattr(e, "strerror", None) or os.strerror(code)) from None

    def write(self, text):
        return self._guard(self._stream.write, text)

    def writelines(self, lines):
        return self._guard(self._stream.writelines, lines)

    def flush(self):
        return self._guard(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)


class _ClosedStdout:
    """Standard output that the caller closed: writing to it fails as write(2) would."""

    encoding, errors = "utf-8", "strict"

    def write(self, text):
        if text:
            raise StdoutError(errno.EBADF, os.strerror(errno.EBADF))
        return 0

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))


class _QuietStderr:
    """Standard error that cannot be written: messages are dropped, never raised."""

    def __init__(self, stream=None):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text) if self._stream is not None else len(text)
        except (OSError, ValueError):
            return len(text)

    def flush(self):
        try:
            if self._stream is not None:
                self._stream.flush()
        except (OSError, ValueError):
            pass

    def isatty(self):
        try:
            return self._stream is not None and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def _is_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def guard_std_streams():
    """See the module's docstring. Called once, by the console entry point."""
    for fd in (0, 1, 2):
        if not _is_open(fd):
            try:
                got = os.open(os.devnull, os.O_RDWR)
                if got != fd:  # (lower descriptors are open, so got == fd)
                    os.dup2(got, fd)
                    os.close(got)
            except OSError:
                pass
            if fd == 0:
                sys.stdin = None  # reading it stays an error (source.py)
            elif fd == 1:
                sys.stdout = _ClosedStdout()
            else:
                sys.stderr = _QuietStderr()
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    elif not isinstance(sys.stdout, (_GuardedStdout, _ClosedStdout)):
        sys.stdout = _GuardedStdout(sys.stdout)
    if not isinstance(sys.stderr, _QuietStderr):
        sys.stderr = _QuietStderr(sys.stderr)


def silence_stdout():
    """After a write failure has been reported: whatever is still buffered for standard
    output goes to /dev/null, so Python's own flush at exit cannot fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def _fd_of(stream):
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if fd == 1 else None


def write_document(text: str) -> None:
    """Write `text` to standard output whole, or not at all (see the module's docstring).

    The signals are caught by a handler for the length of the write rather than blocked
    with a signal mask: a mask holds only in the thread that sets it, and a signal sent to
    the process goes to any thread that does not block it (numpy's BLAS starts several),
    where its default action would end the process mid-write. After the write the
    handlers are put back and a caught signal is sent again, to take its usual effect."""
    out = sys.stdout
    fd = _fd_of(out)
    caught = []
    previous = {}
    if fd is not None:
        try:
            for s in DEFERRED:
                previous[s] = signal.signal(s, lambda signum, frame: caught.append(signum))
        except ValueError:  # not the main thread: no handlers to set
            _restore(previous)
            fd = None
    if fd is None:  # not the process's descriptor 1 (tests, ...)
        out.write(text)
        out.flush()
        return
    try:
        data = text.encode(
            getattr(out, "encoding", None) or "utf-8", getattr(out, "errors", None) or "strict"
        )
        out.flush()
        _write_all(fd, data, caught, CHUNK if _is_stream(fd) else 1 << 20)
    finally:
        _restore(previous)
    if caught:
        os.kill(os.getpid(), caught[0])


def _restore(previous):
    for s, handler in previous.items():
        signal.signal(s, handler if handler is not None else signal.SIG_DFL)


def _is_stream(fd):
    """A pipe, socket or terminal (where a write can block), not a regular file."""
    import stat

    try:
        return not stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return True


def _write_all(fd, data, caught, chunk):
    import select

    view = memoryview(data)
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    stalled_since = None
    while view:
        if not poller.poll(100):
            if caught:
                now = time.monotonic()
                stalled_since = stalled_since or now
                if now - stalled_since >= STALL_SECONDS:
                    sys.stderr.write(
                        "error: interrupted while writing the output; the reader "
                        "stopped reading, so the output is incomplete\n"
                    )
                    sys.stderr.flush()
                    return
            continue
        try:
            n = os.write(fd, view[:chunk])
        except (BlockingIOError, InterruptedError):
            continue
        except OSError as e:
            raise StdoutError(e.errno, e.strerror) from None
        view = view[n:]
        stalled_since = None
