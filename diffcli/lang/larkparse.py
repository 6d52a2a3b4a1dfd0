"""Lark's side of parsing: the LALR parser built from ``grammar/diffscript.lark``, its
postlexer, and the words for every syntax error.

`diffcli.lang.parse` runs the lean driver (`fastparse`) first; this module is imported
only when that driver gives up (a syntax error, or no driver could be built), or when
the shipped tables are stale and must be built in memory. So every error message comes
from here, worded for a beginner by the helpers at the end. Lark is built from the
grammar in memory, never from a cache file.
"""

from __future__ import annotations

import threading

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from diffcli.lang import ast
from diffcli.lang.builder import Builder
from diffcli.lang.grammartext import MAX_BRACKET_DEPTH, lark_grammar
from diffcli.lang.indent import Layout
from diffcli.lang.tokens import ScriptSyntaxError, error_at

# ------------------------------------------------------------------ postlexer


class _Indenter(Indenter):
    """Lark's postlexer: Python's layout rules (`indent.Layout`, which the lean driver's
    `fastparse.FastParser.tokens` uses too)."""

    NL_type = "_NEWLINE"
    OPEN_PAREN_types = ["LPAR", "LSQB", "LBRACE"]
    CLOSE_PAREN_types = ["RPAR", "RSQB", "RBRACE"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8
    _PAIRS = {"RPAR": "(", "RSQB": "[", "RBRACE": "{"}
    _OPEN = frozenset(OPEN_PAREN_types)

    def process(self, stream):
        self.layout = Layout(
            Token.new_borrow_pos,
            max_depth=MAX_BRACKET_DEPTH,
            pairs=self._PAIRS,
            tab_len=self.tab_len,
            indent_type=self.INDENT_type,
            dedent_type=self.DEDENT_type,
        )
        return self._process(stream, self.layout)

    @property
    def brackets(self) -> list:
        """The open brackets' tokens, innermost last (for the error messages)."""
        layout = getattr(self, "layout", None)
        return layout.brackets if layout is not None else []

    def _process(self, stream, layout):
        token = None
        first = True
        for token in stream:
            kind = token.type
            if kind == "_NEWLINE":
                if not layout.brackets:
                    yield token
                    yield from layout.newline(token)
                continue
            if first:
                first = False
                layout.first(token)
            if kind in self._PAIRS:
                layout.close(token)
            elif kind in self._OPEN:
                layout.open(token)
            yield token
        yield from layout.end(token)


class _Parser:
    """One Lark parser, its postlexer and the words for its terminals."""

    def __init__(self):
        self.indenter = _Indenter()
        self.lark = Lark(
            lark_grammar(),
            parser="lalr",
            lexer="basic",
            postlex=self.indenter,
            transformer=Builder(),
            keep_all_tokens=True,
            maybe_placeholders=False,
        )  # no cache=: Lark's cache file is a pickle
        self.symbols = {t.name: t.pattern.value for t in self.lark.terminals if t.pattern.type == "str"}


_local = threading.local()


def _parser() -> _Parser:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = _Parser()
    return parser


def parse(text: str) -> ast.Script:
    """Parse `text` (normalised by `parse._normalise`) with Lark; raise ScriptSyntaxError,
    worded by the helpers below, if it is malformed."""
    parser = _parser()
    try:
        return parser.lark.parse(text)
    except UnexpectedInput as err:
        raise _translate(err, parser, text) from None
    except RecursionError:
        raise ScriptSyntaxError("expression nested too deeply", 1, 1) from None
    except LarkError as err:
        raise ScriptSyntaxError(f"cannot parse: {err}", 1, 1) from None


# ------------------------------------------------------------ error messages

_BLOCK_KEYWORDS = {"IF", "ELIF", "ELSE", "WHILE", "FOR", "WITH", "TRY", "EXCEPT", "FINALLY", "DEF"}
_STATEMENT_BOUNDARIES = {"_NEWLINE", "_INDENT", "_DEDENT", "SEMICOLON"}
_OPERATORS = {
    "+",
    "-",
    "*",
    "/",
    "@",
    "//",
    "%",
    "**",
    "^",
    "&",
    "|",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "is",
    "and",
    "or",
    "if",
}
_PUNCTUATION = [",", ")", "]", ":", "=", "in", "else", "import", "as", "except", "finally", "("]
_NOT_SUPPORTED = {"global", "nonlocal", "yield", "async", "await", "match"}


def _translate(err: UnexpectedInput, parser: _Parser, text: str) -> ScriptSyntaxError:
    if isinstance(err, UnexpectedCharacters):
        start = err.pos_in_stream
        if err.char in "'\"" and text[start - 2 : start] == err.char * 2:  # an open triple quote
            return ScriptSyntaxError("unterminated triple-quoted string literal", err.line, err.column - 2)
        return ScriptSyntaxError(_bad_character(err.char), err.line, err.column)
    if isinstance(err, UnexpectedToken):
        return _unexpected_token(err, parser)
    line, column = getattr(err, "line", 1), getattr(err, "column", 1)
    if not isinstance(line, int) or not isinstance(column, int):
        line, column = 1, 1
    return ScriptSyntaxError("unexpected end of input", line, column)


def _bad_character(char: str) -> str:
    if char in "'\"":
        return "unterminated string literal"
    if char == "\\":
        return "unexpected character after line continuation character '\\'"
    if char == "\x00":
        return "source code cannot contain null bytes"
    if not char.isprintable():
        return f"invalid non-printable character U+{ord(char):04X}"
    return f"invalid character '{char}'"


def _statement_keyword(stack: list) -> Token | None:
    """The block keyword (``for``, ``with``, ...) that starts the statement being parsed."""
    items = list(stack)
    while items and isinstance(items[-1], Token) and items[-1].type in ("_NEWLINE", "COLON"):
        items.pop()
    start = len(items)
    while start > 0:
        item = items[start - 1]
        if isinstance(item, ast.Expr) or (isinstance(item, Token) and item.type not in _STATEMENT_BOUNDARIES):
            start -= 1
        else:
            break
    first = items[start] if start < len(items) else None
    if isinstance(first, Token) and first.type in _BLOCK_KEYWORDS:
        return first
    return None


def _accepted(err: UnexpectedToken) -> set:
    """The terminals that could come next; Lark's `expected` is looser under LALR."""
    try:
        return set(err.accepts or err.expected)
    except Exception:  # the exact set is a nicety; never fail while reporting an error
        return set(err.expected)


def _describe_token(token: Token) -> str:
    kind = token.type
    if kind == "$END":
        return "end of input"
    if kind == "_NEWLINE":
        return "end of line"
    if kind == "_DEDENT":
        return "unindent"
    if kind in ("STRING", "LONG_STRING"):
        return "string"
    text = token.value if len(token.value) <= 20 else token.value[:17] + "..."
    return repr(text) if "'" in text else f"'{text}'"


def _expected_words(values: set) -> list[str]:
    """Say what `values` (the symbols that could come next) hold, in a few words."""
    if "pass" in values:  # the start of a statement: anything could come
        return []
    words = []
    operand = "NAME" in values and "NUMBER" in values
    if operand:
        words.append("an expression")
    elif "NAME" in values:
        words.append("a name")
    elif values & _OPERATORS:
        words.append("an operator")
    statement_level = "_NEWLINE" in values
    skip = {",", "="} if statement_level else set()
    if "<" in values:
        skip.add("in")  # a comparison operator here, not the `in` of a for loop
    for symbol in _PUNCTUATION:
        if symbol in values and symbol not in skip and not (symbol == "(" and words):
            words.append(f"'{symbol}'")
    if statement_level:
        words.append("end of line")
    return words


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _unexpected_token(err: UnexpectedToken, parser: _Parser) -> ScriptSyntaxError:
    token = err.token
    stack = getattr(err.state, "value_stack", None) or []
    brackets = getattr(parser.indenter, "brackets", [])
    line, column = token.line, token.column
    if not isinstance(line, int) or not isinstance(column, int):
        line, column = 1, 1
    if token.type in ("_INDENT", "_DEDENT"):  # placed at the start of the indented line
        line, column = token.end_line, token.end_column

    if token.type == "_INDENT":
        return ScriptSyntaxError("unexpected indent", line, column, "IndentationError")
    if token.type == "$END" and brackets:
        opening = brackets[-1]
        return error_at(opening, f"unexpected end of input — a '{opening}' is not closed")
    if (
        stack
        and isinstance(stack[-1], Token)
        and stack[-1].type == "NAME"
        and stack[-1].value in _NOT_SUPPORTED
    ):
        return error_at(stack[-1], f"'{stack[-1]}' is not supported in diffcli scripts")
    keyword = _statement_keyword(stack)
    accepted = _accepted(err)
    if "_INDENT" in accepted:
        if keyword is None:
            return ScriptSyntaxError("expected an indented block", line, column, "IndentationError")
        what = "function definition" if keyword.type == "DEF" else f"'{keyword}' statement"
        return ScriptSyntaxError(
            f"expected an indented block after {what} on line {keyword.line}",
            line,
            column,
            "IndentationError",
        )
    if keyword is not None and "COLON" in accepted and token.type in ("_NEWLINE", "$END"):
        dots = "" if keyword.type in ("ELSE", "TRY", "FINALLY") else " ..."
        return ScriptSyntaxError(f"expected ':' after '{keyword}{dots}'", line, column)

    values = {parser.symbols.get(name, name) for name in accepted}
    message = f"unexpected {_describe_token(token)}"
    words = _expected_words(values)
    if words:
        message += f" — expected {_join(words)}"
    if token.type == "EQUAL" and stack and isinstance(stack[-1], ast.Expr):
        message += " (use '==' to compare)"
    if brackets and brackets[-1].line < line:
        message += f" (the '{brackets[-1]}' on line {brackets[-1].line} is not closed)"
    return ScriptSyntaxError(message, line, column)
