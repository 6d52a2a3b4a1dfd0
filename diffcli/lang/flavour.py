"""A script's flavour (SPEC §1 "Values, leaves and requires_grad: two flavours").

A script that imports torch (`import torch`, `import torch.nn.functional as F`,
`from torch import autograd`: any import statement of torch or a torch submodule,
anywhere in the script, also inside a block or a `def` that never runs) is PyTorch
flavour: PyTorch's defaults (float32 default dtype) and Python's values (`a = 1.5` is a
float, `v = [1, 2]` a list). Any other script is math flavour: float64 default dtype,
and a name bound to a bare numeric or list literal is a variable (a leaf that requires
grad). The flavour is decided from the parsed script before it runs, so it cannot
depend on which branch a run takes.
"""

from __future__ import annotations

from ..engine import dtypes
from . import ast

PYTORCH = "pytorch"
MATH = "math"


def _is_torch(module: str) -> bool:
    """torch or a submodule; numpy too (a numpy script is Python code: its values are Python's)."""
    return module in ("torch", "numpy") or module.startswith(("torch.", "numpy."))


# statements that hold no other statements: skipped at the cost of one set lookup
_SIMPLE = frozenset(
    (
        ast.Assign,
        ast.AugAssign,
        ast.ExprStmt,
        ast.Return,
        ast.Assert,
        ast.Pass,
        ast.Break,
        ast.Continue,
        ast.Delete,
    )
)


def imports_torch(script: ast.Script) -> bool:
    """Whether any import statement of the script (at any depth) imports torch."""
    stack = [script.body]
    while stack:  # iterative: blocks may nest deeply
        for node in stack.pop():
            cls = node.__class__
            if cls in _SIMPLE:
                continue
            if cls is ast.Import:
                if any(_is_torch(alias.name) for alias in node.names):
                    return True
            elif cls is ast.FromImport:
                if _is_torch(node.module):
                    return True
            else:  # a block: its bodies (handlers, orelse...)
                for field in cls._fields:
                    value = getattr(node, field)
                    if value.__class__ is list:
                        stack.append([v for v in value if isinstance(v, (ast.Stmt, ast.ExceptHandler))])
    return False


def of(script: ast.Script) -> str:
    """PYTORCH or MATH."""
    return PYTORCH if imports_torch(script) else MATH


def defaults(flavour: str, float_=None) -> dtypes.Defaults:
    """The dtype settings a run of that flavour starts with; `float_` (a numpy float dtype)
    overrides its default float dtype (`check` runs in float64), the random constructors
    still drawing the flavour's numbers."""
    start = dtypes.PYTORCH if flavour == PYTORCH else dtypes.MATH
    return start if float_ is None else dtypes.Defaults(float_, start.drawn)
