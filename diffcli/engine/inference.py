"""`torch.inference_mode`: grad mode off, and the tensors ops make meanwhile are
inference tensors (`t.is_inference()`).

As a context manager (`with torch.inference_mode():`, `inference_mode(False)` turns it
off) and, as `no_grad`, a decorator. An op's result made inside is marked (weakly, by
identity); constructors called inside are not (diffcli does not mark them).
"""

from __future__ import annotations

from . import grad_mode
from .hooks import TensorMap

ACTIVE = [False]
_inference = TensorMap()


def mark(t):
    _inference[t] = True


def is_inference(t) -> bool:
    return t in _inference


class inference_mode(grad_mode.no_grad):
    def __init__(self, mode=True):
        self.enabled = bool(mode)
        self.mode = not self.enabled if self.enabled else grad_mode._state[0]

    def __enter__(self):
        self.prev_active = ACTIVE[0]
        ACTIVE[0] = self.enabled
        if not self.enabled:
            self.mode = grad_mode._state[0]
        return super().__enter__()

    def __exit__(self, *exc):
        ACTIVE[0] = self.prev_active
        return super().__exit__(*exc)

    def __repr__(self):
        return "<torch.autograd.grad_mode.inference_mode object>"


def is_inference_mode_enabled() -> bool:
    return ACTIVE[0]
