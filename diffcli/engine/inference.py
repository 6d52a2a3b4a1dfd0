"""`torch.inference_mode`: grad mode off, and the tensors ops make meanwhile are
inference tensors (`t.is_inference()`).

As a context manager (`with torch.inference_mode():`, `inference_mode(False)` turns it
off) and, as `no_grad`, a decorator. An op's result made inside is marked (weakly, by
identity); constructors called inside are not (diffcli does not mark them).
"""

from __future__ import annotations

from . import errors, grad_mode
from .hooks import TensorMap

ACTIVE = [False]
USED = [False]    # some inference tensor was made (record() then checks what it saves)
_inference = TensorMap()
SAVED_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
    "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
    "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")

INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
    "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")


def mark(t):
    _inference[t] = True
    USED[0] = True


def check_saved(saved):
    for t in saved:
        if t in _inference:
            raise errors.TorchRuntimeError(SAVED_ERROR)


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
