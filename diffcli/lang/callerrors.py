"""What a failed call to a function says: the error of a call the interpreter made, made
to speak PyTorch's or Python's words rather than diffcli's internals.

- an unknown keyword gets Python 3.13's suggestion from the callee's own parameters
  (`tensor() got an unexpected keyword argument 'require_grad'. Did you mean
  'requires_grad'?`);
- an op of the table called with arguments of the wrong types gets PyTorch's argument
  parser's text (argcheck.py);
- whatever else still names diffcli's insides (`'float' object has no attribute 'array'`,
  numpy's `ndarray`, `ufunc`) says which argument types the function was given instead.
"""

from __future__ import annotations

import re

from .. import engine
from ..engine.errors import EngineError
from ..engine.tensor import Tensor
from .argcheck import torch_type_error, type_name
from .errors import ScriptError
from .suggest import keyword_hint, keyword_names

INTERNAL = re.compile(r"\barray\b|ndarray|numpy|ufunc|dtype\('|\bnp\.|Interpreter|<locals>|0x[0-9a-f]{4,}")
_KEYWORD = re.compile(r"got an unexpected keyword argument '(\w+)'$")


def explain_call_error(error: ScriptError, cause: BaseException, fn, callee, args, kwargs) -> ScriptError:
    """`error` (what `cause`, raised by `fn(*args, **kwargs)`, became), reworded as above."""
    engine_error = isinstance(cause, EngineError)
    if engine_error and error.type_name != "TypeError" and not INTERNAL.search(error.message):
        return error  # the engine's own PyTorch text
    keyword = _KEYWORD.search(error.message) if isinstance(cause, TypeError) else None
    if keyword:
        error.message += keyword_hint(keyword.group(1), keyword_names(fn))
        return error
    op = _op_name(fn, callee, args)
    text = torch_type_error(op, args, kwargs) if op else None
    if text is not None:
        return _like(error, "TypeError", text)
    if INTERNAL.search(error.message):
        given = ", ".join([type_name(a) for a in args] + [f"{k}={type_name(v)}" for k, v in kwargs.items()])
        return _like(
            error, "TypeError", f"{callee or 'function'}() does not take arguments of these types: ({given})"
        )
    return error


def _like(error, type_name_, message):
    out = ScriptError(type_name_, message, error.line, error.column, error.end_column)
    out.note = error.note
    return out


def _op_name(fn, callee, args):
    """The op-table name `fn` was called by, if it is an op-table function (or one of the
    builtins that are the op when an argument is a tensor: `max`, `abs`...)."""
    if not callee or callee not in engine.FUNCTIONS:
        return None
    if engine.FUNCTIONS[callee] is fn:
        return callee
    if getattr(fn, "__name__", None) == callee and any(isinstance(a, Tensor) for a in args):
        return callee
    return None
