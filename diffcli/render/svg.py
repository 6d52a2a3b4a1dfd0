"""`graph --format svg`: the picture (picture.py) laid out by layout.py and written as SVG,
with no system program. Variables are ellipses, operators boxes, constants dashed grey
ellipses; each node is a `<g class="node KIND" id="node-ID" data-node="ID">` with a
`<title>`, so a page (html.py) can find it by its graph id."""

from __future__ import annotations

from xml.sax.saxutils import escape

from . import layout as L
from .picture import picture

STYLE = """
.node text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; fill: #1d1d1d; }
.node text.head { font-weight: bold; }
.var ellipse { fill: #fff4c2; stroke: #a07800; stroke-width: 1.4; }
.const ellipse { fill: #eeeeee; stroke: #8a8a8a; stroke-width: 1.2; stroke-dasharray: 5 3; }
.const text { fill: #555555; }
.op rect { fill: #dce9fb; stroke: #2f5f9e; stroke-width: 1.4; }
.more rect { fill: #ffffff; stroke: #888888; stroke-dasharray: 2 2; }
.edge { fill: none; stroke: #555555; stroke-width: 1.2; marker-end: url(#arrow); }
.node.selected ellipse, .node.selected rect { stroke: #d33682; stroke-width: 3; }
"""


def _shape(n, x, y, w, h):
    if n.kind in ("var", "const"):
        return f'<ellipse cx="{x:.1f}" cy="{y:.1f}" rx="{w / 2:.1f}" ry="{h / 2:.1f}"/>'
    return f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4"/>'


def render(pic) -> str:
    sizes = {n.key: L.node_size(n.kind, n.lines) for n in pic.nodes}
    coords, (width, height) = L.layout([n.key for n in pic.nodes], sizes, pic.edges)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" class="diffcli-graph">',
        f"<style>{STYLE}</style>",
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555555"/></marker></defs>',
    ]
    for a, b in pic.edges:
        (x1, y1), (x2, y2) = coords[a], coords[b]
        x1 += sizes[a][0] / 2
        x2 -= sizes[b][0] / 2
        mid = (x1 + x2) / 2
        out.append(
            f'<path class="edge" d="M {x1:.1f} {y1:.1f} C {mid:.1f} {y1:.1f}, {mid:.1f} {y2:.1f}, '
            f'{x2:.1f} {y2:.1f}"/>'
        )
    for n in pic.nodes:
        x, y = coords[n.key]
        w, h = sizes[n.key]
        attrs = f'class="node {n.kind}" id="node-{n.key}"'
        if n.graph_id is not None:
            attrs += f' data-node="{n.graph_id}"'
        out.append(f"<g {attrs}><title>{escape(n.title)}</title>{_shape(n, x, y, w, h)}")
        top = y - (len(n.lines) - 1) * L.LINE / 2
        for i, line in enumerate(n.lines):
            cls = ' class="head"' if i == 0 else ""
            out.append(
                f'<text x="{x:.1f}" y="{top + i * L.LINE + 4:.1f}" text-anchor="middle"{cls}>'
                f"{escape(line)}</text>"
            )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def graph_svg(nodes, show_grad=False, depth=None) -> str:
    return render(picture(nodes, show_grad, depth))
