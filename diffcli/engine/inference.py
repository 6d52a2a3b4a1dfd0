"""`torch.inference_mode`: grad mode off, and the tensors ops make meanwhile are
inference tensors (`t.is_inference()`).

As a context manager (`with torch.inference_mode():`, `inference_mode(False)` turns it
off) and, as `no_grad`, a decorator. An op's result made inside is marked (weakly, by
identity); constructors called inside are not (diffcli does not mark them).
"""

from __future__ import annotations

import weakref

from . import errors, grad_mode


class TensorMap:
    """A dict keyed weakly by tensors, by identity (a WeakKeyDictionary compares its keys with
    `==`, which for tensors is elementwise)."""

    def __init__(self):
        self._data = {}

    def get(self, t, default=None):
        entry = self._data.get(id(t))
        return entry[1] if entry is not None and entry[0]() is t else default

    def __contains__(self, t):
        return self.get(t) is not None

    def __setitem__(self, t, value):
        key = id(t)
        data = self._data
        data[key] = (weakref.ref(t, lambda _r, k=key: data.pop(k, None)), value)


ACTIVE = [False]
USED = [False]  # some inference tensor was made (record() then checks what it saves)
_inference = TensorMap()
SAVED_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
    "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
    "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)

INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
    "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


REQUIRES_GRAD_ERROR = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."


def check_requires_grad(t):
    """Tensor.requires_grad = True / requires_grad_(): refused for an inference tensor outside."""
    if USED[0] and not ACTIVE[0] and t in _inference:
        raise errors.TorchRuntimeError(REQUIRES_GRAD_ERROR)


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
