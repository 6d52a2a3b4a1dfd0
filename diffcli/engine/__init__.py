"""diffcli's autograd engine: PyTorch's semantics on numpy.

from diffcli.engine import tensor, grad, no_grad
a = tensor(2.0, requires_grad=True); (a * a).backward(); a.grad  # tensor(4.)
"""

import numpy as _np

# IEEE semantics as PyTorch: 1/0 is inf, 0/0 nan, with no warnings. Set once here rather
# than in an errstate context around every op (which costs a microsecond per op).
_np.seterr(all="ignore")

from . import dtypes  # noqa: E402
from .autograd import backward, grad  # noqa: E402
from .errors import EngineError  # noqa: E402
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402
from .ops.table import FUNCTIONS, INPLACE, METHODS  # noqa: E402
from .tensor import Size, Tensor  # noqa: E402

globals().update({k: v for k, v in FUNCTIONS.items() if k not in ("Tensor",)})
tensor = FUNCTIONS["tensor"]

__all__ = [
    "Tensor",
    "Size",
    "tensor",
    "grad",
    "backward",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "EngineError",
    "FUNCTIONS",
    "METHODS",
    "INPLACE",
    "dtypes",
]
