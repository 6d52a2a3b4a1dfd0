"""Reading a script: a file, `-` for standard input, or `-e TEXT`.

Unreadable input (a missing file, a directory, binary data, bad encoding) raises
`SourceError`, which the CLI reports with exit code 2. A script larger than the cap
(`--max-script-size`) raises a SourceError whose `type_name` is LimitError, with the
position of its first byte past the cap and a `source` to show that line (exit 1, as
every cap); no more than the cap and one byte is read.
"""

from __future__ import annotations

import os
import stat
import sys

MB = 1 << 20
MAX_BYTES = 16 * MB  # --max-script-size's default


class SourceError(Exception):
    def __init__(
        self,
        message: str,
        filename: str = "",
        type_name: str = "",
        line: int = 0,
        column: int = 0,
        source: Source | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.type_name = type_name or ("FileError" if filename else "UsageError")
        self.line, self.column, self.source = line, column, source


class Source:
    def __init__(self, text: str, filename: str):
        self.text = text
        self.filename = filename

    def line(self, n: int) -> str:
        """Line `n` (1-based) as the parser counts lines (a newline is \\n, \\r\\n or \\r);
        "" past the end. It walks the text without splitting it, as an error in a large
        script must not take memory for every line."""
        text = self.text
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if n < 1:
            return ""
        start, before = 0, n - 1  # newlines before line n still to pass
        block = 1 << 16
        while before and start < len(text):  # whole blocks first: str.count runs in C
            count = text.count("\n", start, start + block)
            if count >= before:
                break
            before -= count
            start += block
        for _ in range(before):
            start = text.find("\n", start) + 1
            if not start:
                return ""
        end = text.find("\n", start)
        return text[start:] if end < 0 else text[start:end]


STREAM_WAIT = 60.0  # seconds a FIFO or device given as SCRIPT may take to deliver it


def load(path: str | None, expr: str | None, max_bytes: int = MAX_BYTES, wait: float | None = None) -> Source:
    """The script: `expr`, or the file `path` (`-`: standard input), at most `max_bytes`
    long (else a LimitError naming --max-script-size). A path that is not a regular file
    (a FIFO, `<(cmd)`, a character device) is read as a stream for at most `wait` seconds
    (STREAM_WAIT if None), so a FIFO that nobody writes cannot hang a run."""
    if expr is not None:
        if path not in (None, ""):
            raise SourceError("give either SCRIPT or -e/--expr, not both")
        return Source(expr, "<expr>")  # the parser checks its size
    if path is None:
        raise SourceError("missing SCRIPT (a file, '-' for standard input, or -e TEXT)")
    if path == "-":
        name = "<stdin>"
        data = _read_stdin(max_bytes)
    else:
        name = path
        data = _read_path(path, max_bytes, STREAM_WAIT if wait is None else wait)
    if len(data) > max_bytes:
        raise _too_large(data, max_bytes, name)
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise SourceError(f"{name}:{line}: contains a NUL byte; is it a binary file?", name)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SourceError(
            f"{name}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
            f"{e.start}); is it a binary file?",
            name,
        ) from None
    return Source(text, name)


def _read_stdin(max_bytes: int) -> bytes:
    """Standard input, to its end (a terminal or pipe is read as `cat` reads it)."""
    stream = sys.stdin
    if stream is None:
        raise SourceError("<stdin>: cannot read (standard input is closed)", "<stdin>")
    try:
        return stream.buffer.read(max_bytes + 1)
    except (OSError, ValueError) as e:
        reason = getattr(e, "strerror", None) or "standard input is closed"
        raise SourceError(f"<stdin>: cannot read ({reason})", "<stdin>") from None


def _read_path(path: str, max_bytes: int, wait: float) -> bytes:
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
                return f.read(max_bytes + 1)
        return _read_stream(fd, path, max_bytes, wait)
    except OSError as e:
        raise SourceError(f"{path}: cannot read ({e.strerror or e})", path) from None
    finally:
        os.close(fd)


def _read_stream(fd: int, path: str, max_bytes: int, wait: float) -> bytes:
    """A FIFO, pipe or device, read until its end, max_bytes + 1 bytes or `wait` seconds,
    whichever comes first. On Linux a FIFO opened without a writer polls as not ready
    (rather than at its end) until a writer has come and gone, so waiting for POLLIN or
    POLLHUP waits for the writer."""
    import select
    import time

    deadline = time.monotonic() + wait
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    chunks, size = [], 0
    while size <= max_bytes:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(max(1, int(left * 1000))):
            if time.monotonic() < deadline:
                continue
            what = "nothing was written to it" if not size else "it was not closed"
            raise SourceError(
                f"{path}: not a regular file, and {what} within {wait:g} seconds "
                "(is anything writing to it?)",
                path,
            )
        try:
            chunk = os.read(fd, min(1 << 16, max_bytes + 1 - size))
        except (BlockingIOError, InterruptedError):
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _too_large(data: bytes, cap: int, name: str) -> SourceError:
    """The LimitError for `data`, read as far as one byte past `cap`."""
    from .lang.parselimits import too_large_message

    end = cap
    while end > 0 and data[end] & 0xC0 == 0x80:  # a UTF-8 continuation byte: back to its start
        end -= 1
    head = data[:end].decode("utf-8", "replace")
    line = head.count("\n") + 1
    column = len(head) - (head.rfind("\n") + 1) + 1
    return SourceError(too_large_message(cap), name, "LimitError", line, column, Source(head, name))
