"""Errors a script can cause, each with the source position to point at.

`ScriptError` is what the CLI renders (`error: FILE:LINE:COL: TYPE: MESSAGE` plus the
source line and a caret) and maps to an exit code: 2 for syntax, 1 for everything else.
An error that a command-line choice caused keeps PyTorch's wording in `message` and says
which option in `note` (rendered as a `note:` line).
"""

from __future__ import annotations


class ScriptError(Exception):
    def __init__(self, type_name: str, message: str, line: int = 0, column: int = 0, end_column: int = 0):
        super().__init__(message)
        self.type_name = type_name
        self.message = message
        self.line = line
        self.column = column
        self.end_column = end_column
        self.note = ""

    @property
    def is_syntax(self) -> bool:
        return self.type_name in ("SyntaxError", "IndentationError", "TabError")

    def __str__(self):
        return f"{self.type_name}: {self.message}" if self.message else self.type_name
