"""Which ops are not differentiable everywhere: at some points (relu and abs at 0, clamp at
its bounds, max/min at ties, floor at integers, where at the condition's boundary) the
finite differences from the left and the right differ, and PyTorch's gradient is one
chosen value (relu'(0) = 0, a tie's gradient split evenly). `check` uses one-sided
differences where the graph holds one of these ops and accepts an analytic value between
them as a `kink`.

The op rows know which (each row's `kink`, `diffcli/engine/ops/rows.py`); the check asks
by the grad_fn name PyTorch gives the op's node.
"""

from __future__ import annotations

from .. import engine  # noqa: F401  (every op row registered)
from ..engine.ops import rows

# the grad_fn names of the op rows that have a kink (rows.Kink: relu and abs at 0, clamp at
# its bounds, max/min at ties, floor at integers, where at its boundary, atan2 and hypot at
# the origin, ...)
KINK_OPS = frozenset(kink_row.grad_fn for kink_row in rows.ROWS.values() if kink_row.kink is not None)


def has_kink(grad_fn_names) -> bool:
    """Whether a graph with nodes of these names may have a kink."""
    return any(name in KINK_OPS for name in grad_fn_names)


def graph_names(tensor):
    """The grad_fn names of the graph behind `tensor` (an engine Tensor), each once."""
    seen, names = set(), set()
    stack = [tensor.grad_fn] if tensor.grad_fn is not None else []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(node.name())
        stack.extend(getattr(node, "next_nodes", ()) or ())
    return names
