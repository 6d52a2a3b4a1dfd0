"""Parse diffcli script text into a `diffcli.lang.ast.Script`.

The grammar is ``grammar/diffscript.lark`` (LALR). The AST is built during the parse
by the callbacks of `builder.Builder`, which take each node's span from the tokens they
receive. Every failure, whatever its source, leaves `parse` as a `ScriptSyntaxError`,
worded for a beginner.

Two drivers run the same tables and callbacks. Every text first goes to the lean one,
`fastparse.FastParser`, whose tables ship inside the package as plain data
(`parsetables`), so a script that parses needs no Lark import at all (a command starts
sooner). Anything it cannot parse cleanly goes on to Lark's own parser (`larkparse`),
built in memory, so errors always come from the Lark path. Nothing is read from or
written to a cache folder.
"""

from __future__ import annotations

import gc

from diffcli.lang import ast, fastparse, parsetables
from diffcli.lang.builder import Builder
from diffcli.lang.grammartext import (  # noqa: F401  (parse's own names, re-exported)
    MAX_BRACKET_DEPTH,
    STATEMENT_RULES,
    grammar_text,
    lark_grammar,
)
from diffcli.lang.parselimits import ParseLimitError, ParseLimits
from diffcli.lang.tokens import ScriptSyntaxError, error_at

__all__ = ["ParseLimitError", "ParseLimits", "ScriptSyntaxError", "parse"]

_fast = None  # the FastParser, built on first use; False if none could be built


def _fast_parser():
    global _fast
    if _fast is None:
        _fast = _new_fast_parser() or False
    return _fast or None


def _new_fast_parser():
    """The FastParser on the tables shipped in the package; on tables built from Lark in
    memory when those are stale (the grammar was edited); None if neither works."""
    tables = parsetables.load(grammar_text(), MAX_BRACKET_DEPTH)
    if tables is not None:
        try:
            return fastparse.FastParser(tables, Builder(), STATEMENT_RULES)
        except Exception:  # damaged: build them afresh, in memory
            pass
    try:
        return fastparse.FastParser(_plan_from_lark(), Builder(), STATEMENT_RULES)
    except Exception:  # _Unsupported, or a Lark whose insides have moved: Lark alone
        return None


def _plan_from_lark() -> dict:
    from diffcli.lang import larkparse  # (Lark: imported only when the driver needs it)

    return fastparse.plan(larkparse._parser().lark, MAX_BRACKET_DEPTH)


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
        before = data[: err.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        raise ScriptSyntaxError(f"invalid UTF-8 byte 0x{data[err.start]:02x}", line, column) from None


def parse(text: str | bytes, filename: str = "<script>", limits: ParseLimits | None = None) -> ast.Script:
    """Parse a script (str, or UTF-8 bytes) into its AST; raise ScriptSyntaxError if it is
    malformed, or its subclass ParseLimitError (a LimitError) when it goes past one of
    `limits` (see `parselimits`; None: no caps, for the short texts diffcli parses itself).

    The Script's own span covers the whole text. parse() is thread-safe: the lean driver
    keeps its state in locals, and each thread builds its own Lark parser on first use
    (Lark's postlexer keeps per-parse state).
    """
    try:
        if limits is not None:
            limits.check_size(text)
        text = _normalise(text)
        script = _run_parser(text, limits)
        _check_placement(script.body)
    except ScriptSyntaxError as err:
        err.filename = filename
        raise
    last_line = text[text.rfind("\n", 0, len(text) - 1) + 1 : -1]
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
                raise error_at(stmt, "'return' outside function")
            if isinstance(stmt, ast.Break) and not in_loop:
                raise error_at(stmt, "'break' outside loop")
            if isinstance(stmt, ast.Continue) and not in_loop:
                raise error_at(stmt, "'continue' not properly in loop")
            if isinstance(stmt, ast.FuncDef):
                pending.append((stmt.body, True, False))
            elif isinstance(stmt, ast.ClassDef):
                pending.append((stmt.body, False, False))
            elif isinstance(stmt, (ast.For, ast.While)):
                pending.append((stmt.body, in_def, True))
            elif isinstance(stmt, (ast.If, ast.With, ast.Try)):
                blocks = [stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
                blocks += [handler.body for handler in getattr(stmt, "handlers", [])]
                pending.extend((block, in_def, in_loop) for block in blocks)


def _run_parser(text: str, limits: ParseLimits | None) -> ast.Script:
    collecting = gc.isenabled()
    gc.disable()  # the AST has no cycles; collecting while it grows costs about 10%
    try:
        fast = _fast_parser()
        if fast is not None:
            try:
                return fast.parse(text, None if limits is None else limits.budget())
            except ParseLimitError:
                raise
            except Exception:  # GiveUp, or an error a callback raised: Lark decides and words it
                pass
        # Lark parses the same text as far as the lean driver did before it gave up, so
        # the caps it checked hold here too (without a lean driver only the size cap does)
        expired = None if limits is None or limits.expired is None else limits.expired()
        if expired:  # the lean driver used the time up: Lark would take longer still
            raise ParseLimitError(expired, 1, 1)
        from diffcli.lang import larkparse  # (imported on the first script the driver gives up on)

        return larkparse.parse(text)
    finally:
        if collecting:
            # the new tree goes straight to the oldest generation: the first collection
            # after parsing would otherwise scan all of it (0.1 s at 100,000 statements)
            gc.freeze()
            gc.unfreeze()
            gc.enable()
