"""The picture (picture.py) as Graphviz DOT and as Mermaid text: variables are ellipses,
operators boxes, constants dashed grey ellipses, as in the usual computation-graph
pictures; `show_grad` (graph --backward) adds each variable's grad."""

from __future__ import annotations

from json.encoder import encode_basestring_ascii as _quoted  # what json.dumps(str) does

from .picture import picture

_DOT_STYLE = {
    "var": 'shape=ellipse, style=filled, fillcolor="#fff4c2", color="#a07800"',
    "const": 'shape=ellipse, style="filled,dashed", fillcolor="#eeeeee", color="#8a8a8a", fontcolor="#555555"',
    "op": 'shape=box, style="filled,rounded", fillcolor="#dce9fb", color="#2f5f9e"',
    "more": 'shape=box, style=dashed, color="#888888"',
}


def _dot_label(lines):
    return _quoted("\n".join(lines))


def graph_dot(nodes, show_grad=False, depth=None) -> str:
    pic = picture(nodes, show_grad, depth)
    out = ["digraph G {", "  rankdir=LR;", '  node [fontname="monospace", fontsize=11];']
    for n in pic.nodes:
        out.append(f"  {n.key} [{_DOT_STYLE[n.kind]}, label={_dot_label(n.lines)}];")
    for a, b in pic.edges:
        out.append(f"  {a} -> {b};")
    out.append("}")
    return "\n".join(out) + "\n"


def _mermaid_text(lines):
    return "<br/>".join(s.replace('"', "#quot;") for s in lines)


def graph_mermaid(nodes, show_grad=False, depth=None) -> str:
    pic = picture(nodes, show_grad, depth)
    out = ["flowchart LR"]
    for n in pic.nodes:
        label = _mermaid_text(n.lines)
        if n.kind in ("var", "const"):
            out.append(f'  {n.key}(["{label}"])')
        else:
            out.append(f'  {n.key}["{label}"]')
    for a, b in pic.edges:
        out.append(f"  {a} --> {b}")
    consts = [n.key for n in pic.nodes if n.kind == "const"]
    if consts:
        out.append("  classDef const fill:#eeeeee,stroke:#8a8a8a,stroke-dasharray:5 3,color:#555555")
        out.append(f"  class {','.join(consts)} const")
    return "\n".join(out) + "\n"
