"""Plain-text renderings: tensors in PyTorch's print format, TSV, the graph as a tree."""
from __future__ import annotations

import numpy as np

from ..engine.printing import format_tensor


def tensor_text(arr) -> str:
    return "None" if arr is None else format_tensor(np.asarray(arr))


_BARE = {'"nan"': "nan", '"inf"': "inf", '"-inf"': "-inf"}


def _compact(arr) -> str:
    """A value for TSV: JSON's nested lists, with non-finite numbers bare (nan, inf, -inf)
    as TSV tools read them, not JSON's quoted strings."""
    from .jsonout import plain
    import json
    import re
    if arr is None:
        return ""
    return re.sub(r'"-?inf"|"nan"', lambda m: _BARE[m.group()], json.dumps(plain(np.asarray(arr))))


def grad_tsv(report) -> str:
    lines = ["name\tkind\tshape\tvalue\tgrad"]
    if report.target is not None:
        t = report.target
        lines.append(f"{report.target_name}\ttarget\t{list(t.data_.shape)}\t{_compact(t.data_)}\t"
                     f"{_compact(None if t._grad is None else t._grad.data_)}")
    for kind, rows in (("leaf", report.leaves), ("retained", report.retained)):
        for n, t in rows:
            lines.append(f"{n}\t{kind}\t{list(t.data_.shape)}\t{_compact(t.data_)}\t"
                         f"{_compact(None if t._grad is None else t._grad.data_)}")
    return "\n".join(lines) + "\n"


def graph_tree(nodes) -> str:
    """The backward graph from each output, as PyTorch users walk next_functions."""
    if not nodes:
        return "(empty graph)\n"
    consumed = {i for n in nodes for i in n.inputs}
    roots = [n for n in nodes if n.id not in consumed]
    by_id = {n.id: n for n in nodes}
    lines = []
    for root in roots:
        stack = [(root, 0)]
        while stack:
            node, depth = stack.pop()
            label = node.tensor.grad_fn.name() if node.tensor.grad_fn else (
                "AccumulateGrad" if node.tensor.requires_grad_flag else "constant")
            name = f" ({node.name})" if node.name else ""
            lines.append("  " * depth + label + name)
            for i in reversed(node.inputs):
                stack.append((by_id[i], depth + 1))
    return "\n".join(lines) + "\n"


def _label(n) -> str:
    fn = n.tensor.grad_fn
    name = n.name or ""
    if fn is None:
        return name or ("leaf" if n.tensor.requires_grad_flag else "const")
    return f"{name}\\n{fn.name()}" if name else fn.name()


def graph_dot(nodes) -> str:
    out = ["digraph G {", "  rankdir=LR;"]
    for n in nodes:
        shape = "box" if n.tensor.grad_fn is not None else "ellipse"
        shp = "x".join(map(str, n.tensor.data_.shape)) or "scalar"
        label = _label(n).replace('"', '\\"')
        out.append(f'  n{n.id} [shape={shape}, label="{label}\\n{shp}"];')
    for n in nodes:
        for i in n.inputs:
            out.append(f"  n{i} -> n{n.id};")
    out.append("}")
    return "\n".join(out) + "\n"


def graph_mermaid(nodes) -> str:
    out = ["flowchart LR"]
    for n in nodes:
        label = _label(n).replace("\\n", "<br/>").replace('"', "#quot;")
        if n.tensor.grad_fn is None:
            out.append(f'  n{n.id}(["{label}"])')
        else:
            out.append(f'  n{n.id}["{label}"]')
    for n in nodes:
        for i in n.inputs:
            out.append(f"  n{i} --> n{n.id}")
    return "\n".join(out) + "\n"
