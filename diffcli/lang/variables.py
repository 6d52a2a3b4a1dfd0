"""What makes a name a variable in the math flavour: a literal number or list of
numbers (also what `--set` gives), and the leaf tensor it becomes."""

from __future__ import annotations

from ..engine.ops import creation
from ..engine.tensor import Tensor
from . import ast


def is_literal(node) -> bool:
    """A bare number or (nested) list of numbers: what makes a name a variable in the math
    flavour (and what --set may give)."""
    if isinstance(node, ast.Num):
        return True
    if isinstance(node, ast.UnaryOp) and node.op in "+-":
        return isinstance(node.operand, ast.Num)
    if isinstance(node, ast.ListLit):
        return bool(node.items) and all(is_literal(i) for i in node.items)
    return False


def literal_value(node):
    if isinstance(node, ast.Num):
        return node.value
    if isinstance(node, ast.UnaryOp):
        v = literal_value(node.operand)
        return -v if node.op == "-" else v
    return [literal_value(i) for i in node.items]


def variable(value) -> Tensor:
    """A script variable: a leaf of the default float dtype that requires grad."""
    return creation.tensor(_floats(value), requires_grad=True)


def _floats(v):
    if isinstance(v, list):
        return [_floats(e) for e in v]
    return float(v)
