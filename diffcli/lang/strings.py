"""String literals: prefixes, escapes, and the parts of an f-string (its fields are
parsed when the interpreter first evaluates them)."""

from __future__ import annotations

import re
import unicodedata

from diffcli.lang import ast
from diffcli.lang.tokens import Token, error_at

_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|[0-7]{1,3}|[\s\S])")
_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\n": "",
}


def string_value(token: Token):
    """Decode one string literal token as Python would (prefixes r, u, f, rf allowed):
    a str, or for an f-string a list of str and ast.FormattedValue parts."""
    text = token.value
    quote_at = min(i for i in (text.find("'"), text.find('"')) if i >= 0)
    prefix, body = text[:quote_at].lower(), text[quote_at:]
    if "b" in prefix:
        raise error_at(token, "bytes literals are not supported")
    if prefix not in ("", "r", "u", "f", "rf", "fr"):
        raise error_at(token, f"invalid string prefix '{text[:quote_at]}'")
    quotes = 3 if body[:3] in ('"""', "'''") and len(body) >= 6 else 1
    body = body[quotes:-quotes]
    if "f" in prefix:
        return _fstring_parts(token, body, "r" in prefix)
    return _decode_body(token, body, prefix == "r")


def _fstring_parts(token: Token, body: str, raw: bool) -> list:
    """Split an f-string body into literal text and `{expr!c:spec}` fields. The field's
    expression is kept as source text; the interpreter parses it when it evaluates it."""
    parts, literal, i, n = [], [], 0, len(body)
    while i < n:
        ch = body[i]
        if ch in "{}" and i + 1 < n and body[i + 1] == ch:
            literal.append(ch)
            i += 2
            continue
        if ch == "}":
            raise error_at(token, "f-string: single '}' is not allowed")
        if ch != "{":
            literal.append(ch)
            i += 1
            continue
        depth, j, quote = 0, i + 1, None
        while j < n:  # find the end of the field's expression
            c = body[j]
            if quote:
                quote = None if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c in "([{":
                depth += 1
            elif c in ")]}" and depth:
                depth -= 1
            elif c in "}!:" and not depth and not (c == "!" and body[j + 1 : j + 2] == "="):
                break
            j += 1
        expr = body[i + 1 : j]
        shown = None  # `{expr=}`: the text, then the value
        if expr.rstrip().endswith("=") and not expr.rstrip().endswith(("==", "!=", "<=", ">=")):
            shown, expr = expr, expr.rstrip()[:-1]
        expr = expr.strip()
        conversion = spec = None
        if j < n and body[j] == "!":
            conversion, j = body[j + 1 : j + 2], j + 2
            if conversion not in ("r", "s", "a"):
                raise error_at(token, "f-string: invalid conversion character: expected 's', 'r', or 'a'")
        if j < n and body[j] == ":":
            end = body.find("}", j)
            if end < 0 or "{" in body[j:end]:
                raise error_at(token, "f-string: nested replacement fields are not supported")
            spec, j = body[j + 1 : end], end
        if not expr:
            raise error_at(token, "f-string: empty expression not allowed")
        if j >= n or body[j] != "}":
            raise error_at(token, "f-string: expecting '}'")
        if literal:
            parts.append(_decode_body(token, "".join(literal), raw))
            literal = []
        if shown is not None:
            parts.append(shown)
            if conversion is None and spec is None:
                conversion = "r"  # Python: repr unless a spec is given
        parts.append(
            ast.FormattedValue(
                expr,
                conversion,
                spec,
                line=token.line,
                column=token.column,
                end_line=token.end_line,
                end_column=token.end_column,
            )
        )
        i = j + 1
    if literal:
        parts.append(_decode_body(token, "".join(literal), raw))
    return parts


def _decode_body(token: Token, body: str, raw: bool) -> str:
    """Python's escape sequences in a (non-raw) literal's body."""
    if raw or "\\" not in body:
        return body

    def decode(match: re.Match) -> str:
        code = match.group(1)
        if code in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[code]
        head = code[0]
        if head in "xuU":
            if len(code) == 1:
                raise error_at(token, f"truncated \\{head} escape in string")
            if int(code[1:], 16) > 0x10FFFF:
                raise error_at(token, f"invalid escape \\{code} in string")
            return chr(int(code[1:], 16))
        if head == "N":
            try:
                return unicodedata.lookup(code[2:-1])
            except (KeyError, IndexError):
                raise error_at(token, f"unknown Unicode character name in \\{code}") from None
        if head in "01234567":
            return chr(int(code, 8))
        return "\\" + code  # an unknown escape stays as written, as in Python

    return _ESCAPE.sub(decode, body)
