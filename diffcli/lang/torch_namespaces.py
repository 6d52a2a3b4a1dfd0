"""`torch.linalg` and `torch.special`: the members diffcli has, on `torch` and as modules
a script can import. Each member is an engine function (torch.special's are PyTorch's
aliases of the same ops: special.expit is sigmoid, special.erf is erf...). The
interpreter imports this module once, through nn_namespaces."""

from __future__ import annotations

from .. import engine
from ..engine.ops.functional import LINALG as _LINALG_FUNCTIONS
from ..engine.ops.functional import SPECIAL_ALIASES
from .values import MODULES, TORCH, Namespace

LINALG = Namespace(
    "torch.linalg",
    {**_LINALG_FUNCTIONS, **{k: engine.FUNCTIONS[k] for k in ("matmul",) if k in engine.FUNCTIONS}},
)
SPECIAL = Namespace(
    "torch.special",
    {k: engine.FUNCTIONS[v] for k, v in SPECIAL_ALIASES.items() if v in engine.FUNCTIONS},
)
TORCH.members.update({"linalg": LINALG, "special": SPECIAL})
MODULES.update({"torch.linalg": LINALG, "torch.special": SPECIAL})
