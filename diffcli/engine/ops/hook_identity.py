"""The identity node a module's full backward hooks put around its forward: PyTorch's
BackwardHookFunction (torch.utils.hooks), whose node is BackwardHookFunctionBackward. The
output shares the input's values; the gradient passes through unchanged (the hooks, set
on the node by lang/nn_hooks.py, see and may replace it)."""

from __future__ import annotations

from ..tensor import Tensor
from . import rows

_IDENTITY = rows.text_row(
    "backward_hook_function",
    "BackwardHookFunctionBackward",
    ("grad",),
    formulas=(lambda grad, self, result: grad,),
)


def backward_hook_identity(x: Tensor) -> Tensor:
    return _IDENTITY.record(x.array, (x,))
