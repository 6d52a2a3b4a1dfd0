"""Caps on what parsing a script may take (issue 9, finding 5), each checked before the
parser goes further, each a `ParseLimitError` (a LimitError, exit 1) at a position:

- its size: a text longer than `max_bytes` (characters of a str, bytes of bytes) is
  refused before it is lexed (`--max-script-size`; `diffcli.source` refuses such a file
  while reading it, so no more than the cap is ever read);
- its statements: the parser counts each statement as it builds it and stops at the
  first one past `max_statements` (`--max-statements`, the cap on statements run: a
  script longer than that could not run to its end anyway);
- its memory and nesting: every `CHECK_EVERY` tokens the parser compares the growth of
  the process's resident memory since the parse began with `max_memory` MB
  (`--max-memory`), and the depth of its stack (the constructs still open: ``-`` signs,
  ``**`` chains, blocks) with `MAX_NESTING`. So a long line of tokens stops near the
  cap too, not only a long script;
- its time: at the same checks, `expired()` (--timeout, on a clock started when the
  parse begins) may end it, so a script near the size cap cannot parse for longer than
  --timeout either.

The lexer takes constant memory per token whatever the token's length (see the
terminals in grammar/diffscript.lark), so what is left grows with the tokens and the
tree, which these caps bound.
"""

from __future__ import annotations

from diffcli.lang.memory import resident_memory
from diffcli.lang.tokens import ScriptSyntaxError

__all__ = ["CHECK_EVERY", "MAX_NESTING", "MB", "ParseLimitError", "ParseLimits"]

MB = 1 << 20
CHECK_EVERY = 4096  # tokens between the memory and nesting checks
MAX_NESTING = 100_000  # stack entries: a chain of 100,000 unary minus signs is about 30 MB


class ParseLimitError(ScriptSyntaxError):
    """A parse stopped by one of its caps: a LimitError, not a syntax error."""

    type_name = "LimitError"


class ParseLimits:
    """The caps of one command's parses (None: no cap). `max_memory` is in MB, as
    `--max-memory`; `memory` reads the process's resident memory in bytes (by default
    the interpreter's reader)."""

    def __init__(
        self,
        max_bytes: int | None = 16 * MB,
        max_statements: int | None = None,
        max_memory: int | None = None,
        max_nesting: int | None = MAX_NESTING,
        memory=None,
        expired=None,
    ):
        self.max_bytes = max_bytes
        self.max_statements = max_statements
        self.max_memory = max_memory
        self.max_nesting = max_nesting
        self.memory = memory
        self.expired = expired  # () -> the --timeout message once the time is up, else None

    def check_size(self, text) -> None:
        """Refuse a text longer than `max_bytes`, pointing at its first character past the cap."""
        cap = self.max_bytes
        if cap is None or len(text) <= cap:
            return
        newline = b"\n" if isinstance(text, (bytes, bytearray)) else "\n"
        line = text.count(newline, 0, cap) + 1
        column = cap - (text.rfind(newline, 0, cap) + 1) + 1
        raise ParseLimitError(too_large_message(cap), line, column)

    def budget(self) -> _Budget:
        """The per-parse state that `fastparse.FastParser.parse` consults."""
        return _Budget(self)


def too_large_message(cap: int) -> str:
    """The words for a script over `--max-script-size` (also `diffcli.source`'s)."""
    return f"the script is larger than the limit of {_megabytes(cap)} MB (raise it with --max-script-size)"


def _megabytes(n: int) -> str:
    return f"{n // MB}" if n % MB == 0 else f"{n / MB:.3g}"


class _Budget:
    """One parse's count of statements and its memory at the start."""

    def __init__(self, limits: ParseLimits):
        self.limits = limits
        self.statements = 0
        self.every = CHECK_EVERY
        self.max_statements = limits.max_statements
        self._memory = None
        self._base = None
        if limits.max_memory is not None:
            self._memory = limits.memory or resident_memory
            self._base = self._memory()
            if self._base is None:  # no way to measure here
                self._memory = None

    def wrap(self, callback):
        """`callback`, counting the statements it builds."""
        cap = self.max_statements
        if cap is None:
            return callback

        def counted(children):
            self.statements += 1
            if self.statements > cap:
                where = children[0]
                raise ParseLimitError(
                    f"the script has more than {cap} statements (raise the cap with --max-statements)",
                    where.line,
                    where.column,
                )
            return callback(children)

        return counted

    def check(self, depth: int, token) -> None:
        expired = self.limits.expired
        message = expired() if expired is not None else None
        if message:
            raise ParseLimitError(message, token.line, token.column)
        nesting = self.limits.max_nesting
        if nesting is not None and depth > nesting:
            raise ParseLimitError("expression nested too deeply", token.line, token.column)
        if self._memory is not None:
            now = self._memory()
            used = 0 if now is None else (now - self._base) / MB
            if used > self.limits.max_memory:
                raise ParseLimitError(
                    f"parsing the script takes more than the limit of "
                    f"{self.limits.max_memory} MB of memory (raise it with "
                    "--max-memory)",
                    token.line,
                    token.column,
                )
