"""The signals a script's control flow raises inside the interpreter (`break`,
`continue`, `return`), and how a Python or engine error raised by a script's operation
becomes a `ScriptError` at the node that failed."""

from __future__ import annotations

import re

from ..engine import errors as engine_errors
from .errors import ScriptError

_QUALIFIED_CALL = re.compile(r"^[\w.]*<locals>\.\w+\(\)")


class Break(Exception):
    pass


class Continue(Exception):
    pass


class ScriptExit(Exception):
    """`exit()`, `quit()`: the script ends here, successfully (Interpreter.run stops)."""


class Return(Exception):
    def __init__(self, value):
        self.value = value


def script_error(err, node, callee=None):
    """The ScriptError at `node` that a Python or engine error raised by a script's
    operation becomes, or None for errors that pass through unchanged."""
    if isinstance(err, (ScriptError, Return, Break, Continue, ScriptExit, RecursionError, OSError)):
        return None  # (OSError: a script does no I/O, so it is the host's output
        # stream failing, which the CLI reports as such)
    if isinstance(err, engine_errors.EngineError):
        return ScriptError(err.type_name, err.message, node.line, node.column)
    if isinstance(err, MemoryError):
        return ScriptError(
            "MemoryError", "out of memory (lower tensor sizes or --max-elements)", node.line, node.column
        )
    message = str(err)  # Python-level errors of the script (bad args, 1/0...)
    if callee:  # `_make.<locals>.op() takes 1 positional argument` -> `sin() takes ...`
        message = _QUALIFIED_CALL.sub(f"{callee}()", message, count=1)
    translated = ScriptError(type(err).__name__, message, node.line, node.column)
    translated.py_args = err.args  # (what `except ... as e` gives as e.args)
    return translated
