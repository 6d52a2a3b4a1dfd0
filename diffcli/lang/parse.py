"""Parse diffcli script text into a `diffcli.lang.ast.Script`.

The grammar is ``grammar/diffscript.lark`` (LALR). The AST is built during the
parse by an inline transformer (`_Builder`), which takes each node's span from
the tokens it receives (the parser keeps all tokens). `_Indenter` turns newlines
into _INDENT/_DEDENT and watches brackets. Every failure, whatever its source,
leaves `parse` as a `ScriptSyntaxError`, worded for a beginner by the helpers at
the end of this module.

Long texts first go to `fastparse.FastParser`, which runs the same tables and
callbacks without Lark's per-token overhead; anything it cannot parse cleanly goes
on to Lark's own parser, so errors always come from the Lark path.
"""
from __future__ import annotations

import gc
import os
import re
import threading
import unicodedata
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.indenter import Indenter

from diffcli.lang import ast

MAX_BRACKET_DEPTH = 200  # as CPython's tokenizer; keeps the AST shallow enough to evaluate
# Texts this long go to the lean driver in diffcli/lang/fastparse.py first; shorter ones
# parse sooner with Lark alone than the driver takes to import and set up.
FAST_PATH_MIN_CHARS = 2000


class ScriptSyntaxError(Exception):
    """A script that cannot be parsed: ``message`` at ``line``:``column`` (1-based)."""

    type_name = "SyntaxError"

    def __init__(self, message: str, line: int, column: int,
                 type_name: str | None = None, filename: str = "<script>"):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.filename = filename
        if type_name is not None:
            self.type_name = type_name


def _error_at(where, message: str, type_name: str | None = None) -> ScriptSyntaxError:
    return ScriptSyntaxError(message, where.line, where.column, type_name)


# ------------------------------------------------------------------ postlexer

class _Indenter(Indenter):
    """Python's indentation rules, plus bracket matching and a nesting cap.

    `fastparse.FastParser.tokens` does the same work for the fast path: change both."""

    NL_type = "_NEWLINE"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8
    _PAIRS = {"RPAR": "(", "RSQB": "["}

    def process(self, stream):
        self.indent_level = [0]
        self.brackets: list[Token] = []  # open brackets, innermost last
        self.first_token = True
        return self._process(stream)

    def _process(self, stream):
        token = None
        for token in stream:
            kind = token.type
            if kind == "_NEWLINE":
                if not self.brackets:
                    yield from self.handle_NL(token)
                continue
            if self.first_token:
                self.first_token = False
                if token.line == 1 and token.column > 1:  # the first line is indented
                    raise _error_at(token, "unexpected indent", "IndentationError")
            if kind in self._PAIRS:
                self._close(token)
            elif kind == "LPAR" or kind == "LSQB":
                if len(self.brackets) >= MAX_BRACKET_DEPTH:
                    raise _error_at(token, f"expression nested too deeply "
                                           f"(more than {MAX_BRACKET_DEPTH} brackets)")
                self.brackets.append(token)
            yield token
        while len(self.indent_level) > 1:
            self.indent_level.pop()
            yield Token.new_borrow_pos("_DEDENT", "", token)

    def _close(self, token: Token) -> None:
        if not self.brackets:
            raise _error_at(token, f"unmatched '{token}'")
        opening = self.brackets[-1]
        if opening.value != self._PAIRS[token.type]:
            where = "" if opening.line == token.line else f" on line {opening.line}"
            raise _error_at(token, f"closing '{token}' does not match opening '{opening}'{where}")
        self.brackets.pop()

    def handle_NL(self, token: Token):
        yield token
        indent_str = token.rsplit("\n", 1)[1]
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        if indent > self.indent_level[-1]:
            self.indent_level.append(indent)
            yield Token.new_borrow_pos("_INDENT", indent_str, token)
            return
        while indent < self.indent_level[-1]:
            self.indent_level.pop()
            yield Token.new_borrow_pos("_DEDENT", indent_str, token)
        if indent != self.indent_level[-1]:
            raise ScriptSyntaxError("unindent does not match any outer indentation level",
                                    token.end_line, token.end_column, "IndentationError")


# ---------------------------------------------------------------- transformer

def _span(node, first, last):
    """Give `node` the span from the start of `first` to the end of `last` (tokens or nodes)."""
    node.line = first.line
    node.column = first.column
    node.end_line = last.end_line
    node.end_column = last.end_column
    return node


def _nodes(children) -> list:
    """The children that are not bare tokens (punctuation and keywords)."""
    return [c for c in children if not isinstance(c, Token)]


_ASSIGNABLE = (ast.Name, ast.Attribute, ast.Subscript)


def _describe(node) -> str:
    names = {ast.Call: "a function call", ast.Num: "a literal", ast.Str: "a literal",
             ast.Const: "a literal", ast.EllipsisLit: "a literal", ast.Compare: "a comparison",
             ast.TupleLit: "a tuple", ast.ListLit: "a list", ast.ListComp: "a list comprehension",
             ast.IfExp: "a conditional expression", ast.Slice: "a slice"}
    return names.get(type(node), "an expression")


def _check_target(target, augmented_op: str | None = None) -> None:
    """Raise unless `target` can be assigned to (tuples and lists unpack, except for +=)."""
    pending = [target]
    while pending:
        node = pending.pop()
        if isinstance(node, _ASSIGNABLE):
            continue
        if augmented_op is not None:
            raise _error_at(node, f"cannot use '{augmented_op}=' on {_describe(node)}")
        if isinstance(node, (ast.TupleLit, ast.ListLit)):
            pending.extend(node.items)
            continue
        hint = " (use '==' to compare)" if isinstance(node, ast.Compare) else ""
        raise _error_at(node, f"cannot assign to {_describe(node)}{hint}")


def _dotted(first: Token, last: Token, value: str) -> Token:
    return Token("DOTTED_NAME", value, first.start_pos, first.line, first.column,
                 last.end_line, last.end_column, last.end_pos)


class _Keyword:
    """A ``name=value`` call argument, until `_Builder.call` files it."""
    __slots__ = ("name", "value")

    def __init__(self, name: str, value):
        self.name, self.value = name, value


_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|[0-7]{1,3}|[\s\S])")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"',
                   "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\n": ""}


def _string_value(token: Token):
    """Decode one string literal token as Python would (prefixes r, u, f, rf allowed):
    a str, or for an f-string a list of str and ast.FormattedValue parts."""
    text = token.value
    quote_at = min(i for i in (text.find("'"), text.find('"')) if i >= 0)
    prefix, body = text[:quote_at].lower(), text[quote_at:]
    if "b" in prefix:
        raise _error_at(token, "bytes literals are not supported")
    if prefix not in ("", "r", "u", "f", "rf", "fr"):
        raise _error_at(token, f"invalid string prefix '{text[:quote_at]}'")
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
            raise _error_at(token, "f-string: single '}' is not allowed")
        if ch != "{":
            literal.append(ch)
            i += 1
            continue
        depth, j, quote = 0, i + 1, None
        while j < n:                               # find the end of the field's expression
            c = body[j]
            if quote:
                quote = None if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c in "([{":
                depth += 1
            elif c in ")]}" and depth:
                depth -= 1
            elif c in "}!:" and not depth and not (c == "!" and body[j + 1:j + 2] == "="):
                break
            j += 1
        expr = body[i + 1:j].strip()
        conversion = spec = None
        if j < n and body[j] == "!":
            conversion, j = body[j + 1:j + 2], j + 2
            if conversion not in ("r", "s", "a"):
                raise _error_at(token, "f-string: invalid conversion character: expected 's', 'r', or 'a'")
        if j < n and body[j] == ":":
            end = body.find("}", j)
            if end < 0 or "{" in body[j:end]:
                raise _error_at(token, "f-string: nested replacement fields are not supported")
            spec, j = body[j + 1:end], end
        if not expr:
            raise _error_at(token, "f-string: empty expression not allowed")
        if j >= n or body[j] != "}":
            raise _error_at(token, "f-string: expecting '}'")
        if literal:
            parts.append(_decode_body(token, "".join(literal), raw))
            literal = []
        parts.append(ast.FormattedValue(expr, conversion, spec, line=token.line,
                                        column=token.column, end_line=token.end_line,
                                        end_column=token.end_column))
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
                raise _error_at(token, f"truncated \\{head} escape in string")
            if int(code[1:], 16) > 0x10FFFF:
                raise _error_at(token, f"invalid escape \\{code} in string")
            return chr(int(code[1:], 16))
        if head == "N":
            try:
                return unicodedata.lookup(code[2:-1])
            except (KeyError, IndexError):
                raise _error_at(token, f"unknown Unicode character name in \\{code}") from None
        if head in "01234567":
            return chr(int(code, 8))
        return "\\" + code  # an unknown escape stays as written, as in Python

    return _ESCAPE.sub(decode, body)


class _Builder:
    """Inline transformer: one method per grammar alias, each building one AST node.

    A method receives the production's children, tokens included, and returns the
    node with its span. Helper productions return lists or tuples.
    """

    # --------------------------------------------------------- script, blocks
    def script(self, c):
        body = []
        for item in c:
            if isinstance(item, list):
                body.extend(item)
            elif not isinstance(item, Token):
                body.append(item)
        return ast.Script(body)

    def simple_stmt(self, c):
        return [s for s in c if isinstance(s, ast.Stmt)]

    def suite(self, c):
        if len(c) == 1:
            return c[0]
        return self.script(c).body

    # ----------------------------------------------------- simple statements
    def expr_stmt(self, c):
        value = c[0]
        return _span(ast.ExprStmt(value), value, value)

    def assign(self, c):
        targets = c[0:-1:2]
        for target in targets:
            _check_target(target)
        return _span(ast.Assign(targets, c[-1]), c[0], c[-1])

    def aug_assign(self, c):
        target, op, value = c
        _check_target(target, augmented_op=op[:-1])
        return _span(ast.AugAssign(target, op.value[:-1], value), target, value)

    def pass_stmt(self, c):
        return _span(ast.Pass(), c[0], c[0])

    def break_stmt(self, c):
        return _span(ast.Break(), c[0], c[0])

    def continue_stmt(self, c):
        return _span(ast.Continue(), c[0], c[0])

    def return_stmt(self, c):
        value = c[1] if len(c) > 1 else None
        return _span(ast.Return(value), c[0], c[-1])

    def import_stmt(self, c):
        return _span(ast.Import(_nodes(c)), c[0], c[-1])

    def from_import(self, c):
        module = c[1]
        return _span(ast.FromImport(module.value, _nodes(c[2:])), c[0], c[-1])

    def alias(self, c):
        asname = c[2].value if len(c) == 3 else None
        return _span(ast.Alias(c[0].value, asname), c[0], c[-1])

    def dotted_name(self, c):
        return _dotted(c[0], c[-1], "".join(c))

    # --------------------------------------------------- compound statements
    def if_stmt(self, c):
        orelse = []
        last_block = c[-1] if isinstance(c[-1], list) else c[-1][2]  # else, elif or if body
        if isinstance(c[-3], Token) and c[-3].type == "ELSE":
            orelse, c = c[-1], c[:-3]
        for keyword, test, body in reversed(c[4:]):  # the elif clauses, innermost first
            orelse = [_span(ast.If(test, body, orelse), keyword, last_block[-1])]
        return _span(ast.If(c[1], c[3], orelse), c[0], last_block[-1])

    def elif_clause(self, c):
        return (c[0], c[1], c[3])

    def while_stmt(self, c):
        return _span(ast.While(c[1], c[3]), c[0], c[3][-1])

    def for_stmt(self, c):
        _check_target(c[1])
        return _span(ast.For(c[1], c[3], c[5]), c[0], c[5][-1])

    def with_stmt(self, c):
        items = [item for item in c[1:-2] if isinstance(item, tuple)]
        return _span(ast.With(items, c[-1]), c[0], c[-1][-1])

    def with_item(self, c):
        return (c[0], c[2].value if len(c) == 3 else None)

    def try_stmt(self, c):
        handlers = [h for h in c if isinstance(h, ast.ExceptHandler)]
        blocks = {"TRY": [], "ELSE": [], "FINALLY": []}
        for i, item in enumerate(c):
            if isinstance(item, Token) and item.type in blocks:
                blocks[item.type] = c[i + 2]
        node = ast.Try(blocks["TRY"], handlers, blocks["ELSE"], blocks["FINALLY"])
        last = c[-1]
        return _span(node, c[0], last[-1] if isinstance(last, list) else last)

    def except_handler(self, c):
        exc_type = c[1] if len(c) > 3 else None
        name = c[3].value if len(c) == 6 else None
        return _span(ast.ExceptHandler(exc_type, name, c[-1]), c[0], c[-1][-1])

    def func_def(self, c):
        params = c[3] if isinstance(c[3], list) else []
        return _span(ast.FuncDef(c[1].value, params, c[-1]), c[0], c[-1][-1])

    def params(self, c):
        params = _nodes(c)
        seen = set()
        for before, param in zip([None] + params, params):
            if param.name in seen:
                raise _error_at(param, f"duplicate parameter '{param.name}'")
            seen.add(param.name)
            if before is not None and before.default is not None and param.default is None:
                raise _error_at(param, "a parameter without a default follows one with a default")
        return params

    def param(self, c):
        default = c[2] if len(c) == 3 else None
        return _span(ast.Param(c[0].value, default), c[0], c[-1])

    # ------------------------------------------------------------ expressions
    def tuple_lit(self, c):
        return _span(ast.TupleLit(_nodes(c)), c[0], c[-1])

    def list_lit(self, c):
        return _span(ast.ListLit(_nodes(c)), c[0], c[-1])

    def paren(self, c):
        return _span(c[1], c[0], c[2])

    def if_exp(self, c):
        return _span(ast.IfExp(c[2], c[0], c[4]), c[0], c[4])

    def bool_op(self, c):
        return _span(ast.BoolOp(c[1].value, c[0::2]), c[0], c[-1])

    def not_(self, c):
        return _span(ast.Not(c[1]), c[0], c[1])

    def comp_op(self, c):
        return " ".join(c)

    def compare(self, c):
        if len(c) == 3:
            return _span(ast.Compare(c[1], c[0], c[2]), c[0], c[2])
        links = [_span(ast.Compare(c[i], c[i - 1], c[i + 1]), c[i - 1], c[i + 1])
                 for i in range(1, len(c), 2)]
        return _span(ast.BoolOp("and", links), c[0], c[-1])

    def bin_op(self, c):
        left, op, right = c
        return _span(ast.BinOp("**" if op == "^" else op.value, left, right), left, right)

    def unary_op(self, c):
        return _span(ast.UnaryOp(c[0].value, c[1]), c[0], c[1])

    def call(self, c):
        args, kwargs = [], []
        for item in (c[2] if len(c) == 4 else ()):
            if isinstance(item, _Keyword):
                kwargs.append((item.name, item.value))
            elif kwargs:
                raise _error_at(item, "positional argument follows keyword argument")
            else:
                args.append(item)
        return _span(ast.Call(c[0], args, kwargs), c[0], c[-1])

    def arguments(self, c):
        return _nodes(c)

    def keyword(self, c):
        key, _, value = c
        if not isinstance(key, ast.Name):
            raise _error_at(key, "a keyword argument must be a name (use '==' to compare)")
        return _Keyword(key.id, value)

    def subscript(self, c):
        return _span(ast.Subscript(c[0], c[2]), c[0], c[3])

    def slice(self, c):
        parts: list = [None, None, None]
        colons = 0
        for item in c:
            if isinstance(item, Token):
                colons += 1
            else:
                parts[colons] = item
        return _span(ast.Slice(*parts), c[0], c[-1])

    def attribute(self, c):
        return _span(ast.Attribute(c[0], c[2].value), c[0], c[2])

    def name(self, c):
        token = c[0]
        return _span(ast.Name(token.value), token, token)

    def num(self, c):
        token = c[0]
        text = token.value
        is_int = text.isdigit()
        try:
            value = int(text) if is_int else float(text)
        except ValueError:  # more digits than Python converts
            raise _error_at(token, "number literal too long") from None
        return _span(ast.Num(value, is_int, text), token, token)

    def str(self, c):
        values = [_string_value(t) for t in c]
        if all(v.__class__ is str for v in values):
            return _span(ast.Str("".join(values)), c[0], c[-1])
        parts = []
        for v in values:                      # adjacent literals make one f-string
            for p in (v if isinstance(v, list) else [v]):
                if p.__class__ is str and parts and parts[-1].__class__ is str:
                    parts[-1] += p
                elif p != "":
                    parts.append(p)
        return _span(ast.FString(parts), c[0], c[-1])

    def const(self, c):
        token = c[0]
        value = {"True": True, "False": False, "None": None}[token.value]
        return _span(ast.Const(value), token, token)

    def ellipsis_lit(self, c):
        return _span(ast.EllipsisLit(), c[0], c[0])

    def list_comp(self, c):
        return _span(ast.ListComp(c[1], c[2:-1]), c[0], c[-1])

    def comprehension(self, c):
        _check_target(c[1])
        return _span(ast.Comprehension(c[1], c[3], c[5::2]), c[0], c[-1])


# --------------------------------------------------------------- the parser

def _grammar_text() -> str:
    try:
        from importlib.resources import files
        return files("diffcli.grammar").joinpath("diffscript.lark").read_text("utf-8")
    except (ImportError, FileNotFoundError, TypeError, OSError):
        path = Path(__file__).resolve().parents[2] / "grammar" / "diffscript.lark"
        return path.read_text("utf-8")


def _cache_path() -> str | bool:
    """Where Lark keeps the built tables: a private per-user file, never a shared /tmp one."""
    if os.environ.get("DIFFCLI_NO_CACHE"):
        return False
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(root):  # no usable home directory
        return False
    folder = os.path.join(root, "diffcli")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError:
        return False
    if not os.access(folder, os.W_OK):
        return False
    return os.path.join(folder, "diffscript-lalr.cache")


class _Parser:
    """One Lark parser, its postlexer and the words for its terminals."""

    def __init__(self):
        self.indenter = _Indenter()
        self.lark = Lark(_grammar_text(), parser="lalr", lexer="basic", postlex=self.indenter,
                         transformer=_Builder(), keep_all_tokens=True,
                         maybe_placeholders=False, cache=_cache_path())
        self.symbols = {t.name: t.pattern.value for t in self.lark.terminals
                        if t.pattern.type == "str"}
        self._fast = None

    def fast(self):
        """The lean driver over these tables (`diffcli.lang.fastparse`), built on first
        use; None if it cannot reproduce this parser exactly."""
        if self._fast is None:
            from diffcli.lang import fastparse
            self._fast = fastparse.build(self.lark, MAX_BRACKET_DEPTH) or False
        return self._fast or None


_local = threading.local()


def _parser() -> _Parser:
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = _Parser()
    return parser


def _normalise(text) -> str:
    if isinstance(text, (bytes, bytearray)):
        text = _decode(bytes(text))
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.endswith("\n"):
        text += "\n"
    return text


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        raise ScriptSyntaxError(f"invalid UTF-8 byte 0x{data[err.start]:02x}", line, column) from None


def parse(text: str | bytes, filename: str = "<script>") -> ast.Script:
    """Parse a script (str, or UTF-8 bytes) into its AST; raise ScriptSyntaxError if it is malformed.

    The Script's own span covers the whole text. Each thread builds its own parser on
    first use (the postlexer keeps per-parse state), so parse() is thread-safe.
    """
    try:
        text = _normalise(text)
        script = _run_parser(text)
        _check_placement(script.body)
    except ScriptSyntaxError as err:
        err.filename = filename
        raise
    last_line = text[text.rfind("\n", 0, len(text) - 1) + 1:-1]
    script.line, script.column = 1, 1
    script.end_line, script.end_column = text.count("\n"), len(last_line) + 1
    return script


def _check_placement(body: list) -> None:
    """Reject ``return`` outside a def and ``break``/``continue`` outside a loop, as Python does."""
    pending = [(body, False, False)]  # statements, inside a def, inside a loop
    while pending:
        statements, in_def, in_loop = pending.pop()
        for stmt in statements:
            if isinstance(stmt, ast.Return) and not in_def:
                raise _error_at(stmt, "'return' outside function")
            if isinstance(stmt, ast.Break) and not in_loop:
                raise _error_at(stmt, "'break' outside loop")
            if isinstance(stmt, ast.Continue) and not in_loop:
                raise _error_at(stmt, "'continue' not properly in loop")
            if isinstance(stmt, ast.FuncDef):
                pending.append((stmt.body, True, False))
            elif isinstance(stmt, (ast.For, ast.While)):
                pending.append((stmt.body, in_def, True))
            elif isinstance(stmt, (ast.If, ast.With, ast.Try)):
                blocks = [stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
                blocks += [handler.body for handler in getattr(stmt, "handlers", [])]
                pending.extend((block, in_def, in_loop) for block in blocks)


def _run_parser(text: str) -> ast.Script:
    parser = _parser()
    collecting = gc.isenabled()
    gc.disable()  # the AST has no cycles; collecting while it grows costs about 10%
    try:
        fast = parser.fast() if len(text) >= FAST_PATH_MIN_CHARS else None
        if fast is not None:
            try:
                return fast.parse(text)
            except Exception:  # GiveUp, or an error a callback raised: Lark decides and words it
                pass
        return parser.lark.parse(text)
    except UnexpectedInput as err:
        raise _translate(err, parser, text) from None
    except RecursionError:
        raise ScriptSyntaxError("expression nested too deeply", 1, 1) from None
    except LarkError as err:
        raise ScriptSyntaxError(f"cannot parse: {err}", 1, 1) from None
    finally:
        if collecting:
            gc.enable()


# ------------------------------------------------------------ error messages

_BLOCK_KEYWORDS = {"IF", "ELIF", "ELSE", "WHILE", "FOR", "WITH", "TRY", "EXCEPT", "FINALLY", "DEF"}
_STATEMENT_BOUNDARIES = {"_NEWLINE", "_INDENT", "_DEDENT", "SEMICOLON"}
_OPERATORS = {"+", "-", "*", "/", "@", "//", "%", "**", "^", "<", "<=", ">", ">=", "==", "!=",
              "is", "and", "or", "if"}
_PUNCTUATION = [",", ")", "]", ":", "=", "in", "else", "import", "as", "except", "finally", "("]
_NOT_SUPPORTED = {"lambda", "class", "raise", "assert", "del", "global", "nonlocal", "yield",
                  "async", "await", "match"}


def _translate(err: UnexpectedInput, parser: _Parser, text: str) -> ScriptSyntaxError:
    if isinstance(err, UnexpectedCharacters):
        start = err.pos_in_stream
        if err.char in "'\"" and text[start - 2:start] == err.char * 2:  # an open triple quote
            return ScriptSyntaxError("unterminated triple-quoted string literal",
                                     err.line, err.column - 2)
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
    if char in "{}":
        return f"'{char}' is not supported: scripts have no dicts or sets"
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
        if isinstance(item, ast.Expr) or (isinstance(item, Token)
                                          and item.type not in _STATEMENT_BOUNDARIES):
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
        return _error_at(opening, f"unexpected end of input — a '{opening}' is not closed")
    if stack and isinstance(stack[-1], Token) and stack[-1].type == "NAME" \
            and stack[-1].value in _NOT_SUPPORTED:
        return _error_at(stack[-1], f"'{stack[-1]}' is not supported in diffcli scripts")
    keyword = _statement_keyword(stack)
    accepted = _accepted(err)
    if "_INDENT" in accepted:
        if keyword is None:
            return ScriptSyntaxError("expected an indented block", line, column, "IndentationError")
        what = "function definition" if keyword.type == "DEF" else f"'{keyword}' statement"
        return ScriptSyntaxError(f"expected an indented block after {what} on line {keyword.line}",
                                 line, column, "IndentationError")
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
