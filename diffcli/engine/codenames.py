"""A function's code under another name, so that Python's own argument errors name the op
as PyTorch's do (`add() got an unexpected keyword argument 'beta'`). Python 3.11 words
those errors with `co_qualname`, 3.10 with `co_name` (and has no `co_qualname`)."""

from __future__ import annotations

from types import CodeType


def renamed(code: CodeType, name: str, **fields) -> CodeType:
    if hasattr(code, "co_qualname"):
        fields["co_qualname"] = name
    return code.replace(co_name=name, **fields)
