"""Error text at the boundary: `error: FILE:LINE:COL: TYPE: MESSAGE`, the source line
and a caret under the column (httpie-style)."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # shown as '?' so the caret still lines up


def error_text(err, source=None) -> str:
    where = ""
    if source is not None:
        where = source.filename
        if err.line:
            where += f":{err.line}:{err.column}" if err.column else f":{err.line}"
        where += ": "
    # Python's form: `AssertionError` alone when there is no message
    text = f"error: {where}{err.type_name}" + (f": {err.message}" if err.message else "")
    if source is not None and err.line:
        line = source.line(err.line)
        if line and len(line) <= 400:
            shown = _CONTROL.sub("?", line.expandtabs(1))
            text += "\n    " + shown
            if err.column:
                text += "\n    " + " " * (err.column - 1) + "^"
    if getattr(err, "note", ""):
        text += f"\nnote: {err.note}"
    return text


def warning_text(w, filename) -> str:
    where = f"{filename}:{w.line}: " if w.line else (f"{filename}: " if filename else "")
    return f"warning: {where}{w.category}: {w.message}"
