"""Global grad mode: no_grad, enable_grad, set_grad_enabled (PyTorch's thread-local flag)."""
from __future__ import annotations

_state = [True]


def is_grad_enabled() -> bool:
    return _state[0]


class set_grad_enabled:
    """Context manager (and plain call) that sets grad mode, restoring it on exit."""

    def __init__(self, mode: bool):
        self.prev = _state[0]
        _state[0] = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _state[0] = self.prev
        return False


class no_grad:
    def __enter__(self):
        self.prev = _state[0]
        _state[0] = False
        return self

    def __exit__(self, *exc):
        _state[0] = self.prev
        return False


class enable_grad:
    def __enter__(self):
        self.prev = _state[0]
        _state[0] = True
        return self

    def __exit__(self, *exc):
        _state[0] = self.prev
        return False
