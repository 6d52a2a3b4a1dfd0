"""Indentation widths as Python's tokenizer measures them, for both of diffcli's tokenizers
(`larkparse._Indenter` and `fastparse.FastParser.tokens`).

Python measures each indentation twice: with a tab advancing to the next multiple of 8
columns, and with a tab as one column. A block structure that the two measures disagree
on (one says "deeper", the other "the same" or "shallower") depends on the tab width,
and Python refuses it with TabError; so does diffcli.
"""
from __future__ import annotations

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
