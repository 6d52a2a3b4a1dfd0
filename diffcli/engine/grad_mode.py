"""Global grad mode: no_grad, enable_grad, set_grad_enabled (PyTorch's thread-local flag).

Each is a context manager and, like PyTorch's, also a decorator (`@no_grad()`).
"""

from __future__ import annotations

import functools

from .context import GRAD_ENABLED as _state  # (a run setting: context.py)


def is_grad_enabled() -> bool:
    return _state[0]


class _GradMode:
    mode = True

    def __enter__(self):
        self.prev = _state[0]
        _state[0] = self.mode
        return self

    def __exit__(self, *exc):
        _state[0] = self.prev
        return False

    def __call__(self, fn):
        """Use as a decorator: run `fn` in this grad mode."""
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            prev = _state[0]
            _state[0] = mode
            try:
                return fn(*args, **kwargs)
            finally:
                _state[0] = prev

        return wrapper


class no_grad(_GradMode):
    mode = False


class enable_grad(_GradMode):
    mode = True


class set_grad_enabled(_GradMode):
    """Sets the mode on construction (so a plain call works), restores it on exit."""

    def __init__(self, mode: bool):
        self.mode = bool(mode)
        self.prev = _state[0]
        _state[0] = self.mode

    def __enter__(self):
        return self

    def __call__(self, fn):
        _state[0] = self.prev  # as a decorator, the call itself must not change the mode
        return super().__call__(fn)
