"""What `diffcli graph` writes, per --format: the table (default columns and compact values
that fit an 80-column terminal; --columns; --wide: every column, PyTorch's printing), JSON, the tree, and the pictures (DOT, Mermaid,
SVG drawn by diffcli itself, PNG through Graphviz's `dot`, a self-contained HTML page),
which --depth collapses, and --max-nodes caps where diffcli or Graphviz draws them (svg,
png, html: DOT and Mermaid are text for other tools, linear in the graph's size)."""

from __future__ import annotations

import shutil
import subprocess
import sys

from ..outstream import write_document
from .options import GraphFormat
from .running import ExitStatus, _err, _Fail, _Usage, emit_doc

COLUMNS = (
    "id",
    "name",
    "op",
    "grad_fn",
    "inputs",
    "next_functions",
    "requires_grad",
    "is_leaf",
    "shape",
    "value",
    "grad",
)
DEFAULT_COLUMNS = ("id", "name", "node", "inputs", "shape", "value")  # node: the grad_fn, or leaf/constant
DRAWN = (GraphFormat.svg, GraphFormat.png, GraphFormat.html)  # laid out and drawn: --max-nodes holds
PNG_MISSING = (
    "--format png needs Graphviz's `dot` program on PATH, and there is none; "
    "--format svg draws the same picture with no program needed"
)


def check(a):
    """The command line's own errors, before the script runs."""
    if a.fmt is GraphFormat.png and shutil.which("dot") is None:
        raise _Usage(PNG_MISSING)
    if a.columns is not None:
        asked = [c.strip() for c in a.columns.split(",") if c.strip()]
        bad = [c for c in asked if c not in COLUMNS]
        if bad or not asked:
            raise _Usage(
                f"--columns: unknown column {bad[0]!r}"
                if bad
                else "--columns: no column given" + f" (columns: {', '.join(COLUMNS)})"
            )


def _columns(a):
    if a.wide:
        cols = [c for c in COLUMNS if c != "node"]
    elif a.columns:
        cols = [c.strip() for c in a.columns.split(",") if c.strip()]
    else:
        cols = list(DEFAULT_COLUMNS) + ["grad"]
    if not a.backward and not a.columns:
        cols = [c for c in cols if c != "grad"]
    return cols


def write(a, nodes, source):
    from ..render import picture as P

    if not nodes and a.fmt is GraphFormat.table:
        sys.stderr.write("note: the graph is empty: the script makes no tensor\n")
        return ExitStatus.OK
    if nodes and a.fmt is GraphFormat.table and all(not n.tensor.needs_grad for n in nodes):
        sys.stderr.write("note: no tensor requires grad: the graph has constants only\n")
    if a.fmt in (GraphFormat.json, GraphFormat.jsonl):
        from ..render import jsonout

        emit_doc(a.fmt.value, source.filename, jsonout.graph_doc(nodes))
    elif a.fmt is GraphFormat.table:
        from ..render import table

        table.graph_table(nodes, show_grad=a.backward, columns=_columns(a), compact=not a.wide)
    elif a.fmt is GraphFormat.tree:
        from ..render import text

        write_document(text.graph_tree(nodes, show_grad=a.backward))
    else:
        pic = P.picture(nodes, a.backward, a.depth)
        if a.fmt in DRAWN and len(pic.nodes) > a.max_nodes:  # (DOT and Mermaid are text: linear)
            hint = "" if a.depth else "--depth N to collapse long chains, "
            raise _Fail(
                ExitStatus.SCRIPT_FAILED,
                _err(
                    "LimitError",
                    f"the picture would have {len(pic.nodes)} nodes, more than --max-nodes "
                    f"{a.max_nodes}: give {hint}--of NAME for one tensor's graph, a larger --max-nodes, "
                    "or --format table|json|tree",
                ),
                source,
            )
        if a.fmt is GraphFormat.dot:
            from ..render.picture_text import graph_dot

            write_document(graph_dot(nodes, a.backward, a.depth))
        elif a.fmt is GraphFormat.mermaid:
            from ..render.picture_text import graph_mermaid

            write_document(graph_mermaid(nodes, a.backward, a.depth))
        elif a.fmt is GraphFormat.svg:
            from ..render import svg

            write_document(svg.render(pic))
        elif a.fmt is GraphFormat.html:
            from ..render.html import graph_html

            write_document(graph_html(nodes, pic, source.filename, a.backward))
        else:
            _png(nodes, a)
    return ExitStatus.OK


def _png(nodes, a):
    from ..render.picture_text import graph_dot

    dot = shutil.which("dot")
    if dot is None:
        raise _Usage(PNG_MISSING)
    proc = subprocess.run(
        [dot, "-Tpng"],
        input=graph_dot(nodes, a.backward, a.depth).encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    if proc.returncode != 0:
        raise _Fail(
            ExitStatus.SCRIPT_FAILED,
            _err("RuntimeError", "Graphviz's dot failed: " + proc.stderr.decode(errors="replace").strip()),
            None,
        )
    sys.stdout.flush()
    sys.stdout.buffer.write(proc.stdout)
    sys.stdout.buffer.flush()
