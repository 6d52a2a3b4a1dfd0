"""Python's layout rules (indentation, brackets) for both of diffcli's tokenizers
(`larkparse._Indenter` and `fastparse.FastParser.tokens`): one `Layout` serves both.

Python measures each indentation twice: with a tab advancing to the next multiple of 8
columns, and with a tab as one column. A block structure that the two measures disagree
on (one says "deeper", the other "the same" or "shallower") depends on the tab width,
and Python refuses it with TabError; so does diffcli.
"""

from __future__ import annotations

from diffcli.lang.tokens import ScriptSyntaxError, error_at

TAB_ERROR = "inconsistent use of tabs and spaces in indentation"


def widths(indent: str, tab_len: int = 8) -> tuple[int, int]:
    """(column, column counting a tab as 1) after the spaces and tabs of `indent`."""
    if "\t" not in indent:
        return len(indent), len(indent)
    col = 0
    for ch in indent:
        col = (col // tab_len + 1) * tab_len if ch == "\t" else col + 1
    return col, len(indent)


def consistent(col: int, alt: int, top: int, alt_top: int) -> bool:
    """Whether an indentation (col, alt) compares with the innermost level (top, alt_top)
    the same way under both measures. A dedent (col < top) passes here: it is checked,
    as Python does, against the level it returns to (equal under both measures), after
    "unindent does not match any outer indentation level"."""
    if col == top:
        return alt == alt_top
    return col < top or alt > alt_top


class Layout:
    """Python's layout rules over a script's tokens, for both tokenizers: the INDENT and
    DEDENT tokens after each newline outside brackets, TabError and "unindent does not
    match", bracket matching with a nesting cap, and the indented first line.

    The tokenizer calls `first` on the first token that is not a newline, `open` and
    `close` on brackets, `newline` on a newline outside brackets (it returns the tokens to
    hand the parser after it) and `end` after the last token. `borrow(kind, value, where)`
    makes a token of `kind` at the position of `where`. Errors are ScriptSyntaxErrors,
    worded as Python words them (the lean driver gives the text to Lark's on any error,
    so the words the user sees come from Lark's run of this same class).
    """

    __slots__ = (
        "levels",
        "alts",
        "brackets",
        "borrow",
        "max_depth",
        "pairs",
        "tab_len",
        "indent_type",
        "dedent_type",
    )

    def __init__(
        self,
        borrow,
        *,
        max_depth: int,
        pairs: dict,
        tab_len: int = 8,
        indent_type: str = "_INDENT",
        dedent_type: str = "_DEDENT",
    ):
        self.levels = [0]  # the indentation of each open block, innermost last
        self.alts = [0]  # the same levels with a tab as one column (TabError)
        self.brackets: list = []  # the open brackets' tokens, innermost last
        self.borrow = borrow
        self.max_depth = max_depth
        self.pairs = pairs  # closing bracket's type -> the opening bracket's text
        self.tab_len = tab_len
        self.indent_type = indent_type
        self.dedent_type = dedent_type

    def first(self, token) -> None:
        if token.line == 1 and token.column > 1:
            raise error_at(token, "unexpected indent", "IndentationError")

    def open(self, token) -> None:
        if len(self.brackets) >= self.max_depth:
            raise error_at(token, f"expression nested too deeply (more than {self.max_depth} brackets)")
        self.brackets.append(token)

    def close(self, token) -> None:
        if not self.brackets:
            raise error_at(token, f"unmatched '{token}'")
        opening = self.brackets[-1]
        if opening.value != self.pairs[token.type]:
            where = "" if opening.line == token.line else f" on line {opening.line}"
            raise error_at(token, f"closing '{token}' does not match opening '{opening}'{where}")
        self.brackets.pop()

    def newline(self, token) -> tuple | list:
        """The INDENT, or the DEDENTs, that the newline `token` (its text ends with the
        next line's indentation) starts; () when the indentation stays the same."""
        indent_str = token[token.rindex("\n") + 1 :]  # no copy of the lines before
        indent, alt = widths(indent_str, self.tab_len)
        levels, alts = self.levels, self.alts
        if not consistent(indent, alt, levels[-1], alts[-1]):
            raise ScriptSyntaxError(TAB_ERROR, token.end_line, token.end_column, "TabError")
        if indent == levels[-1]:  # (consistent: the alternative measure is the same too)
            return ()
        if indent > levels[-1]:
            levels.append(indent)
            alts.append(alt)
            return (self.borrow(self.indent_type, indent_str, token),)
        dedents = []
        while indent < levels[-1]:
            levels.pop()
            alts.pop()
            dedents.append(self.borrow(self.dedent_type, indent_str, token))
        if indent != levels[-1]:
            raise ScriptSyntaxError(
                "unindent does not match any outer indentation level",
                token.end_line,
                token.end_column,
                "IndentationError",
            )
        if alt != alts[-1]:
            raise ScriptSyntaxError(TAB_ERROR, token.end_line, token.end_column, "TabError")
        return dedents

    def end(self, last) -> list:
        """The DEDENTs that close the blocks still open after the last token `last`."""
        dedents = []
        while len(self.levels) > 1:
            self.levels.pop()
            self.alts.pop()
            dedents.append(self.borrow(self.dedent_type, "", last))
        return dedents
