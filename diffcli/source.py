"""Reading a script: a file, `-` for standard input, or `-e TEXT`.

Unreadable input (a missing file, a directory, binary data, bad encoding) raises
`SourceError`, which the CLI reports with exit code 2.
"""
from __future__ import annotations

import os
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


def load(path: str | None, expr: str | None) -> Source:
    if expr is not None:
        if path not in (None, ""):
            raise SourceError("give either SCRIPT or -e/--expr, not both")
        return Source(expr, "<expr>")
    if path is None:
        raise SourceError("missing SCRIPT (a file, '-' for standard input, or -e TEXT)")
    if path == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        name = "<stdin>"
    else:
        name = path
        if os.path.isdir(path):
            raise SourceError(f"{path}: is a directory", path)
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_BYTES + 1)
        except FileNotFoundError:
            raise SourceError(f"{path}: no such file", path) from None
        except PermissionError:
            raise SourceError(f"{path}: permission denied", path) from None
        except OSError as e:
            raise SourceError(f"{path}: cannot read ({e.strerror or e})", path) from None
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
