"""The autograd nodes that PyTorch writes by hand in C++ (not generated from
derivatives.yaml): their names print with their namespace, `torch::autograd::CopySlices`,
in a grad_fn's repr and in the version-counter error. The one list of them."""

from __future__ import annotations

CPP_NODES = frozenset({"AccumulateGrad", "CopySlices", "CopyBackwards"})


def qualified(name: str) -> str:
    """`name` as PyTorch prints it: with `torch::autograd::` if it is a C++ node."""
    return "torch::autograd::" + name if name in CPP_NODES else name
