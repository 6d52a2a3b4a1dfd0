"""Tables for people: plain text laid out by `grid` (bold header on a colour terminal,
unless NO_COLOR is set; 400 columns wide when not a terminal)."""
from __future__ import annotations

import os
import sys

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
    styled = tty and not os.environ.get("NO_COLOR") and \
        os.environ.get("TERM", "").lower() not in ("dumb", "unknown")
    file.write(grid.table(columns, rows, _terminal_width() if tty else 400, title, styled))


def _grad_text(t):
    g = t._grad
    if g is None:
        return "None"
    s = tensor_text(g.data_)
    if g.grad_fn is not None:
        s = s[:-1] + f", grad_fn=<{g.grad_fn.name()}>)"
    return s


def grad_table(report, file=None):
    title = None
    if report.target is not None:
        title = f"{report.target_name} = {report.target!r}"
    rows = [[n, tensor_text(x.data_), str(x.requires_grad_flag), _grad_text(x)] for n, x in report.leaves]
    rows += [[f"{n} (retained)", tensor_text(x.data_), str(x.requires_grad_flag), _grad_text(x)]
             for n, x in report.retained]
    _print(["name", "value", "requires_grad", "grad"], rows, file, title)


def graph_table(nodes, show_grad=False, file=None):
    cols = ["id", "name", "op", "grad_fn", "inputs", "next_functions", "requires_grad",
            "is_leaf", "shape", "value"] + (["grad"] if show_grad else [])

    def row(n):
        x = n.tensor
        r = [str(n.id), n.name or "", n.op, x.grad_fn.name() if x.grad_fn else "None",
             ",".join(map(str, n.inputs)), ", ".join(str(f) for f in n.next_functions),
             str(x.requires_grad_flag), str(x.grad_fn is None), str(list(x.data_.shape)),
             tensor_text(x.data_)]
        if show_grad:
            r.append(_grad_text(x) if x.grad_fn is None or x.retains_grad else "")
        return r
    _print(cols, [row(n) for n in nodes], file)
