"""Tables for people: plain text laid out by `grid` (bold header on a colour terminal,
unless NO_COLOR is set; 400 columns wide when not a terminal)."""

from __future__ import annotations

import os
import sys

from ..explain import show
from . import grid
from .text import tensor_text


def _terminal_width() -> int:
    """The terminal's width as rich measures it: COLUMNS, else the first of stdin,
    stdout, stderr that is a terminal, else 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        return int(columns) or 80
    if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        return 80
    for fd in (0, 1, 2):
        try:
            return os.get_terminal_size(fd).columns or 80
        except (AttributeError, ValueError, OSError):
            continue
    return 80


def _print(columns, rows, file=None, title=None):
    """Write the table; rows may be a generator, each row a list of strings."""
    file = file or sys.stdout
    try:
        tty = file.isatty()
    except (AttributeError, ValueError):
        tty = False
    styled = (
        tty
        and not os.environ.get("NO_COLOR")
        and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")
    )
    file.write(grid.table(columns, rows, _terminal_width() if tty else 400, title, styled))


def _grad_text(t):
    g = t._grad
    if g is None:
        return "None"
    s = tensor_text(g.array)
    if g.grad_fn is not None:
        s = s[:-1] + f", grad_fn=<{g.grad_fn.name()}>)"
    return s


def grad_table(report, file=None):
    title = None
    if report.target is not None:
        title = f"{report.target_name} = {report.target!r}"
    rows = [[n, tensor_text(x.array), str(x.needs_grad), _grad_text(x)] for n, x in report.leaves]
    rows += [
        [f"{n} (retained)", tensor_text(x.array), str(x.needs_grad), _grad_text(x)]
        for n, x in report.retained
    ]
    _print(["name", "value", "requires_grad", "grad"], rows, file, title)


GRAPH_COLUMNS = [
    "id",
    "name",
    "node",
    "op",
    "grad_fn",
    "inputs",
    "next_functions",
    "requires_grad",
    "is_leaf",
    "shape",
    "value",
    "grad",
]


def graph_table(nodes, show_grad=False, file=None, columns=None, compact=False):
    """`columns`: which of GRAPH_COLUMNS, in order (default: all but `node`, the grad_fn or
    leaf/constant, and grad only with `show_grad`). `compact`: values and grads as the
    explanations write them (`0.3747`, `[[1, 2], [3, 4]]`), not in PyTorch's print format."""
    if compact:

        def value(a):
            return show.value(a, rows=True)

        def grad(t):
            return "None" if t._grad is None else show.value(t._grad.array, rows=True)
    else:
        value, grad = tensor_text, _grad_text
    cols = columns or [c for c in GRAPH_COLUMNS if c not in ("node", "grad") or c == "grad" and show_grad]

    def row(n):
        x = n.tensor
        r = {
            "id": str(n.id),
            "name": n.name or "",
            "op": n.op,
            "grad_fn": x.grad_fn.name() if x.grad_fn else "None",
            "node": x.grad_fn.name() if x.grad_fn else ("leaf" if x.needs_grad else "constant"),
            "inputs": ",".join(map(str, n.inputs)),
            "next_functions": ", ".join(str(f) for f in n.next_functions),
            "requires_grad": str(x.needs_grad),
            "is_leaf": str(x.grad_fn is None),
            "shape": str(list(x.array.shape)),
            "value": value(x.array),
            "grad": grad(x) if x.grad_fn is None or x.retains_grad else "",
        }
        return [r[c] for c in cols]

    _print(cols, [row(n) for n in nodes], file)
