"""The grammar both parsers are built from (``grammar/diffscript.lark``), and what they
share about it: the bracket-nesting cap and the rules that build a statement.

`parse` runs the lean driver on tables made from this grammar; `larkparse` builds Lark
from it; `parsetables` keys the shipped tables by its text. This module imports no Lark.
"""

from __future__ import annotations

import os
import re

from diffcli.lang import fastparse

MAX_BRACKET_DEPTH = 200  # as CPython's tokenizer; keeps the AST shallow enough to evaluate

# The grammar's rules that build one statement each (an `elif` clause builds an If), which
# the parser counts against --max-statements (`parselimits`).
STATEMENT_RULES = frozenset(
    {
        "small_stmt",
        "if_stmt",
        "elif_clause",
        "while_stmt",
        "for_stmt",
        "try_stmt",
        "with_stmt",
        "func_def",
        "class_def",
        "decorated",
    }
)


def grammar_text() -> str:
    """The text of ``grammar/diffscript.lark`` (installed as the `diffcli.grammar` package)."""
    try:
        import diffcli.grammar  # (the grammar folder, installed as a package)

        folder = os.path.dirname(diffcli.grammar.__file__)
    except (ImportError, TypeError):  # run from a source tree that is not installed
        folder = os.path.join(
            os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "grammar"
        )
    path = os.path.join(folder, "diffscript.lark")
    with open(path, encoding="utf-8") as f:
        return f.read()


_TERMINAL_REGEX = re.compile(r"^(\s*(?:%ignore\s+|[A-Z_][A-Z_0-9]*(?:\.\d+)?\s*:\s*)/)(.*)(/[imslux]*\s*)$")


def lark_grammar(greedy: bool = fastparse._NEEDS_GREEDY) -> str:
    """The grammar as Lark builds it: `grammar_text`, with its terminals' possessive
    quantifiers made greedy (`fastparse.without_possessive`) where `greedy` is true,
    as before Python 3.11."""
    text = grammar_text()
    if not greedy:
        return text
    lines = []
    for line in text.split("\n"):
        match = _TERMINAL_REGEX.match(line)
        if match:
            line = match[1] + fastparse.without_possessive(match[2]) + match[3]
        lines.append(line)
    return "\n".join(lines)
