"""What both parsers share with the AST builder: the syntax error they raise and the
token of the lean driver (a `str` with Lark's token fields)."""

from __future__ import annotations


class ScriptSyntaxError(Exception):
    """A script that cannot be parsed: ``message`` at ``line``:``column`` (1-based)."""

    type_name = "SyntaxError"

    def __init__(
        self, message: str, line: int, column: int, type_name: str | None = None, filename: str = "<script>"
    ):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.filename = filename
        if type_name is not None:
            self.type_name = type_name


def error_at(where, message: str, type_name: str | None = None) -> ScriptSyntaxError:
    return ScriptSyntaxError(message, where.line, where.column, type_name)


class Token(str):
    """A token of the lean driver: Lark's `Token` fields on a `str` of its text."""

    __slots__ = ("type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos")

    def __new__(
        cls, type, value, start_pos=None, line=None, column=None, end_line=None, end_column=None, end_pos=None
    ):
        token = str.__new__(cls, value)
        token.type, token.value, token.start_pos = type, value, start_pos
        token.line, token.column = line, column
        token.end_line, token.end_column, token.end_pos = end_line, end_column, end_pos
        return token

    def __repr__(self):
        return f"Token({self.type!r}, {self.value!r})"
