"""Plain-text renderings: tensors in PyTorch's print format, TSV, the graph as a tree."""

from __future__ import annotations

import numpy as np

from ..engine.printing import format_tensor
from .picture_text import graph_dot, graph_mermaid  # noqa: F401 -- the pictures, as text (picture_text.py)


def tensor_text(arr) -> str:
    return "None" if arr is None else format_tensor(np.asarray(arr))


_BARE = {'"nan"': "nan", '"inf"': "inf", '"-inf"': "-inf"}


def _compact(arr) -> str:
    """A value for TSV: JSON's nested lists, with non-finite numbers bare (nan, inf, -inf)
    as TSV tools read them, not JSON's quoted strings."""
    import json
    import re

    from .jsonout import plain

    if arr is None:
        return ""
    return re.sub(r'"-?inf"|"nan"', lambda m: _BARE[m.group()], json.dumps(plain(np.asarray(arr))))


def grad_tsv(report) -> str:
    lines = ["name\tkind\tshape\tvalue\tgrad"]
    if report.target is not None:
        t = report.target
        lines.append(
            f"{report.target_name}\ttarget\t{list(t.array.shape)}\t{_compact(t.array)}\t"
            f"{_compact(None if t._grad is None else t._grad.array)}"
        )
    for kind, rows in (("leaf", report.leaves), ("retained", report.retained)):
        for n, t in rows:
            lines.append(
                f"{n}\t{kind}\t{list(t.array.shape)}\t{_compact(t.array)}\t"
                f"{_compact(None if t._grad is None else t._grad.array)}"
            )
    return "\n".join(lines) + "\n"


TREE_INDENT = 20  # levels of indentation shown; deeper lines carry their depth instead


def graph_tree(nodes, show_grad=False) -> str:
    """The backward graph from each output, as PyTorch users walk next_functions.

    A graph with shared nodes is a DAG, and printed as a tree it would repeat each shared
    subtree once per path to it: 2**60 lines for 60 doublings `y = y + y`. So, as
    `cargo tree` marks a dependency already shown with `(*)`, a node with inputs that is
    used more than once is printed in full the first time, with its id (the `id` of the
    table and JSON, `n<id>` in DOT and Mermaid), as `AddBackward0 [#5]`, and after that
    as one line, `AddBackward0 [#5 shown above]`. Leaves and constants are one line
    anyway and are repeated as they are. Lines deeper than TREE_INDENT levels stop
    moving right (a 100,000-deep chain would need 10**10 spaces) and start with their
    depth, `[depth 40] MulBackward0`. One line per edge: linear in the graph's size.
    `show_grad` (graph --backward): a leaf's or retained tensor's grad after its line."""
    if not nodes:
        return "(empty graph)\n"
    by_id = {n.id: n for n in nodes}
    uses = {}
    for n in nodes:
        for i in n.inputs:
            uses[i] = uses.get(i, 0) + 1
    shown = set()
    lines = []
    for root in (n for n in nodes if n.id not in uses):
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            label = (
                node.tensor.grad_fn.name()
                if node.tensor.grad_fn
                else ("AccumulateGrad" if node.tensor.needs_grad else "constant")
            )
            if node.name:
                label += f" ({node.name})"
            t = node.tensor
            if show_grad and (t.grad_fn is None and t.needs_grad or t.retains_grad):
                label += f" grad={'None' if t._grad is None else _compact(t._grad.array)}"
            indent = "  " * depth if depth <= TREE_INDENT else "  " * TREE_INDENT + f"[depth {depth}] "
            if node.inputs and uses.get(node.id, 0) > 1:
                if node.id in shown:
                    lines.append(f"{indent}{label} [#{node.id} shown above]")
                    continue
                shown.add(node.id)
                label += f" [#{node.id}]"
            lines.append(indent + label)
            for i in reversed(node.inputs):
                stack.append((by_id[i], depth + 1))
    return "\n".join(lines) + "\n"
