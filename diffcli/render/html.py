"""`--format html` of `graph` and `explain`: one self-contained page (no network resource:
the SVG, the style and the script are inline) with the picture and, beside it, the steps
of the backward pass (explain) or the graph's rows (graph). Selecting a node in the picture
(a click, or `#node-ID` in the address) shows its step in the panel at the top and marks
it in the list; selecting a step marks its node. The page records script errors in
`data-errors` on <body> and sets `data-ready="1"` once it is wired (the Chromium test reads
both). explain's picture over MAX_NODES nodes is drawn with chains collapsed, or left out."""

from __future__ import annotations

from html import escape

from ..explain import show
from . import svg
from .explain_text import step_lines
from .picture import picture

CSS = """
body { margin: 0; font-family: system-ui, sans-serif; color: #1d1d1d; }
header { padding: 8px 14px; background: #f3f3f3; border-bottom: 1px solid #ddd; }
header h1 { font-size: 16px; margin: 0; }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(320px, 2fr); height: calc(100vh - 40px); }
#picture { overflow: auto; border-right: 1px solid #ddd; padding: 8px; }
#side { overflow: auto; padding: 8px 12px; }
#detail { position: sticky; top: 0; background: #ffffff; z-index: 1; border: 1px solid #d33682; border-radius: 4px; padding: 6px 8px; margin-bottom: 10px; min-height: 2em; }
pre { margin: 0; font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; white-space: pre-wrap; }
.step, .row { padding: 4px 6px; border-left: 3px solid transparent; cursor: pointer; }
.step.selected, .row.selected { border-left-color: #d33682; background: #fdf0f6; }
svg .node { cursor: pointer; }
table { border-collapse: collapse; font-size: 12px; }
td, th { padding: 2px 6px; text-align: left; border-bottom: 1px solid #eee; font-family: monospace; }
"""

JS = """
(function () {
  var body = document.body, errors = 0;
  window.addEventListener('error', function () { errors += 1; body.setAttribute('data-errors', String(errors)); });
  var detail = document.getElementById('detail');
  function select(id) {
    document.querySelectorAll('.selected').forEach(function (e) { e.classList.remove('selected'); });
    var items = document.querySelectorAll('[data-node="' + id + '"]');
    items.forEach(function (e) { e.classList.add('selected'); });
    var item = document.querySelector('#list [data-node="' + id + '"]');
    detail.textContent = '';
    if (item) {
      detail.appendChild(item.cloneNode(true));
      item.scrollIntoView({block: 'nearest'});
    } else {
      detail.textContent = 'node #' + id + ': no step of its own';
    }
    body.setAttribute('data-selected', String(id));
  }
  document.querySelectorAll('[data-node]').forEach(function (e) {
    e.addEventListener('click', function () { select(e.getAttribute('data-node')); });
  });
  var m = /^#node-(\\d+)$/.exec(window.location.hash);
  if (m) { select(m[1]); }
  body.setAttribute('data-ready', '1');
})();
"""


def _page(title, picture_svg, side_html) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f'<header><h1>{escape(title)}</h1></header>\n<main>\n<div id="picture">\n{picture_svg}</div>\n'
        f'<div id="side">\n<div id="detail">select a node of the picture to see its step</div>\n'
        f'<div id="list">\n{side_html}</div>\n</div>\n</main>\n<script>{JS}</script>\n</body>\n</html>\n'
    )


MAX_NODES = 300  # a bigger picture is drawn with long chains collapsed, or not at all
DEPTH = 6


def _explain_picture(graph) -> str:
    pic = picture(graph, show_grad=True)
    if len(pic.nodes) > MAX_NODES:
        pic = picture(graph, show_grad=True, depth=DEPTH)
    if len(pic.nodes) > MAX_NODES:
        return (
            f"<p>The graph has {len(graph)} nodes: too many to draw here (see <code>diffcli graph "
            "--depth N --format svg</code>).</p>\n"
        )
    return svg.render(pic)


def explain_html(ex, filename) -> str:
    passes = len({s.pass_ for s in ex.steps}) > 1
    parts = []
    for s in ex.steps:
        node = "" if s.node is None else f' data-node="{s.node}"'
        parts.append(
            f'<div class="step" id="step-{s.index}"{node}><pre>'
            f"{escape(chr(10).join(step_lines(s, passes)))}</pre></div>"
        )
    ids = {n.name: n.id for n in ex.graph if n.name and n.tensor.grad_fn is None}
    for name, (g, froms) in ex.leaves.items():
        src = f" (from step{'s' if len(froms) > 1 else ''} {', '.join(map(str, froms))})" if froms else ""
        node = f' data-node="{ids[name]}"' if name in ids else ""
        parts.append(
            f'<div class="row leaf"{node}><pre>{escape(f"leaf {name}.grad = {show.value(g)}{src}")}'
            "</pre></div>"
        )
    for name, why in ex.notes:
        parts.append(f'<div class="note"><pre>{escape(f"{name}.grad is None: {why}")}</pre></div>')
    title = f"diffcli explain {filename}" + (f": backward of {ex.target_name}" if ex.target_name else "")
    return _page(title, _explain_picture(ex.graph), "\n".join(parts) + "\n")


def graph_html(nodes, pic, filename, show_grad=False) -> str:
    rows = []
    for n in nodes:
        t = n.tensor
        cells = [
            f"#{n.id}",
            n.name or "",
            t.grad_fn.name() if t.grad_fn else ("leaf" if t.needs_grad else "constant"),
            ",".join(map(str, n.inputs)),
            show.shape(t.array.shape),
            show.value(t.array),
        ]
        if show_grad:
            cells.append("" if t._grad is None else show.value(t._grad.array))
        rows.append(
            f'<tr class="row" data-node="{n.id}">' + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"
        )
    head = ["id", "name", "grad_fn", "inputs", "shape", "value"] + (["grad"] if show_grad else [])
    table = (
        "<table><thead><tr>"
        + "".join(f"<th>{h}</th>" for h in head)
        + "</tr></thead><tbody>\n"
        + "\n".join(rows)
        + "\n</tbody></table>\n"
    )
    return _page(f"diffcli graph {filename}", svg.render(pic), table)
