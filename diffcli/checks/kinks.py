"""Which ops are not differentiable everywhere: at some points (relu and abs at 0, clamp at
its bounds, max/min at ties, floor at integers, where at the condition's boundary) the
finite differences from the left and the right differ, and PyTorch's gradient is one
chosen value (relu'(0) = 0, a tie's gradient split evenly). `check` uses one-sided
differences where the graph holds one of these ops and accepts an analytic value between
them as a `kink`.

This table moves into the engine's op rows (a `kink` flag on each row) once they have it;
it is keyed by the grad_fn name PyTorch gives the op's node, so the switch is one lookup.
"""

from __future__ import annotations

KINK_OPS = frozenset(
    {
        "AbsBackward0",  # |x| at 0
        "ReluBackward0",  # relu at 0
        "LeakyReluBackward0",
        "EluBackward0",  # at 0 unless alpha == 1
        "HardtanhBackward0",
        "ThresholdBackward0",
        "ClampBackward0",  # at min / max
        "ClampBackward1",
        "ClampMinBackward0",
        "ClampMaxBackward0",
        "MaxBackward0",  # ties
        "MaxBackward1",
        "MinBackward0",
        "MinBackward1",
        "AmaxBackward0",
        "AminBackward0",
        "MaximumBackward0",
        "MinimumBackward0",
        "FloorBackward0",  # steps: zero gradient, a jump at integers
        "CeilBackward0",
        "RoundBackward0",
        "RoundBackward1",
        "TruncBackward0",
        "SignBackward0",
        "RemainderBackward0",
        "RemainderBackward1",
        "WhereBackward0",  # the condition flips at the boundary
        "LinalgVectorNormBackward0",  # at 0
    }
)


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
