"""Reading a script: a file, `-` for standard input, or `-e TEXT`.

Unreadable input (a missing file, a directory, binary data, bad encoding) raises
`SourceError`, which the CLI reports with exit code 2.
"""
from __future__ import annotations

import os
import stat
import sys


class SourceError(Exception):
    def __init__(self, message: str, filename: str = ""):
        super().__init__(message)
        self.message = message
        self.filename = filename


class Source:
    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename
        self._lines = None

    def line(self, n: int) -> str:
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines[n - 1] if 0 < n <= len(self._lines) else ""


MAX_BYTES = 64 * 1024 * 1024
STREAM_WAIT = 60.0    # seconds a FIFO or device given as SCRIPT may take to deliver it


def load(path: str | None, expr: str | None, wait: float | None = None) -> Source:
    """The script: `expr`, or the file `path` (`-`: standard input). A path that is not a
    regular file (a FIFO, `<(cmd)`, a character device) is read as a stream for at most
    `wait` seconds (STREAM_WAIT if None), so a FIFO that nobody writes cannot hang a run."""
    if expr is not None:
        if path not in (None, ""):
            raise SourceError("give either SCRIPT or -e/--expr, not both")
        return Source(expr, "<expr>")
    if path is None:
        raise SourceError("missing SCRIPT (a file, '-' for standard input, or -e TEXT)")
    if path == "-":
        name = "<stdin>"
        data = _read_stdin()
    else:
        name = path
        data = _read_path(path, STREAM_WAIT if wait is None else wait)
    if len(data) > MAX_BYTES:
        raise SourceError(f"{name}: larger than {MAX_BYTES // (1024 * 1024)} MiB", name)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise SourceError(f"{name}:{line}: contains a NUL byte; is it a binary file?", name)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SourceError(f"{name}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
                          f"{e.start}); is it a binary file?", name) from None
    return Source(text, name)


def _read_stdin() -> bytes:
    """Standard input, to its end (a terminal or pipe is read as `cat` reads it)."""
    stream = sys.stdin
    if stream is None:
        raise SourceError("<stdin>: cannot read (standard input is closed)", "<stdin>")
    try:
        return stream.buffer.read(MAX_BYTES + 1)
    except (OSError, ValueError) as e:
        reason = getattr(e, "strerror", None) or "standard input is closed"
        raise SourceError(f"<stdin>: cannot read ({reason})", "<stdin>") from None


def _read_path(path: str, wait: float) -> bytes:
    # O_NONBLOCK: opening a FIFO must not wait for a writer (open(2) would block forever)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file", path) from None
    except PermissionError:
        raise SourceError(f"{path}: permission denied", path) from None
    except IsADirectoryError:
        raise SourceError(f"{path}: is a directory", path) from None
    except OSError as e:
        raise SourceError(f"{path}: cannot read ({e.strerror or e})", path) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise SourceError(f"{path}: is a directory", path)
        if stat.S_ISREG(mode):
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=False) as f:
                return f.read(MAX_BYTES + 1)
        return _read_stream(fd, path, wait)
    except OSError as e:
        raise SourceError(f"{path}: cannot read ({e.strerror or e})", path) from None
    finally:
        os.close(fd)


def _read_stream(fd: int, path: str, wait: float) -> bytes:
    """A FIFO, pipe or device, read until its end, MAX_BYTES + 1 bytes or `wait` seconds,
    whichever comes first. On Linux a FIFO opened without a writer polls as not ready
    (rather than at its end) until a writer has come and gone, so waiting for POLLIN or
    POLLHUP waits for the writer."""
    import select
    import time
    deadline = time.monotonic() + wait
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    chunks, size = [], 0
    while size <= MAX_BYTES:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(max(1, int(left * 1000))):
            if time.monotonic() < deadline:
                continue
            what = "nothing was written to it" if not size else "it was not closed"
            raise SourceError(f"{path}: not a regular file, and {what} within {wait:g} seconds "
                              "(is anything writing to it?)", path)
        try:
            chunk = os.read(fd, min(1 << 16, MAX_BYTES + 1 - size))
        except (BlockingIOError, InterruptedError):
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
