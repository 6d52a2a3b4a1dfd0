"""Tables for people, drawn with rich (plain when NO_COLOR is set or not a terminal)."""
from __future__ import annotations

import os
import sys

from .text import tensor_text


def _console(file):
    file = file or sys.stdout
    from rich.console import Console
    no_color = bool(os.environ.get("NO_COLOR")) or not file.isatty()
    width = None if file.isatty() else 400
    return Console(file=file, no_color=no_color, highlight=False, width=width,
                   force_terminal=False if no_color else None, soft_wrap=False)


def _print(con, table):
    """Print without rich's trailing padding, so output diffs and pipes cleanly."""
    with con.capture() as cap:
        con.print(table)
    text = "\n".join(line.rstrip() for line in cap.get().splitlines())
    con.file.write(text + "\n")


def _table(title, columns):
    from rich import box
    from rich.table import Table
    t = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", show_edge=False,
              pad_edge=False)
    for c in columns:
        t.add_column(c, overflow="fold")
    return t


def _grad_text(t):
    g = t._grad
    if g is None:
        return "None"
    s = tensor_text(g.data_)
    if g.grad_fn is not None:
        s = s[:-1] + f", grad_fn=<{g.grad_fn.name()}>)"
    return s


def grad_table(report, file=None):
    con = _console(file)
    title = None
    if report.target is not None:
        title = f"{report.target_name} = {report.target!r}"
    t = _table(title, ["name", "value", "requires_grad", "grad"])
    for n, x in report.leaves:
        t.add_row(n, tensor_text(x.data_), str(x.requires_grad_flag), _grad_text(x))
    for n, x in report.retained:
        t.add_row(f"{n} (retained)", tensor_text(x.data_), str(x.requires_grad_flag), _grad_text(x))
    _print(con, t)


def graph_table(nodes, show_grad=False, file=None):
    con = _console(file)
    cols = ["id", "name", "op", "grad_fn", "inputs", "next_functions", "requires_grad",
            "is_leaf", "shape", "value"] + (["grad"] if show_grad else [])
    t = _table(None, cols)
    for n in nodes:
        x = n.tensor
        row = [str(n.id), n.name or "", n.op, x.grad_fn.name() if x.grad_fn else "None",
               ",".join(map(str, n.inputs)), ", ".join(str(f) for f in n.next_functions),
               str(x.requires_grad_flag), str(x.grad_fn is None), str(list(x.data_.shape)),
               tensor_text(x.data_)]
        if show_grad:
            row.append(_grad_text(x) if x.grad_fn is None or x.retains_grad else "")
        t.add_row(*row)
    _print(con, t)


def check_table(target, rows, file=None):
    con = _console(file)
    t = _table(f"finite-difference check of {target}", ["leaf", "order", "max abs error",
                                                        "max rel error", "result"])
    for r in rows:
        t.add_row(r.name, str(r.order), f"{r.max_abs:.3e}", f"{r.max_rel:.3e}", "ok" if r.ok else "MISMATCH")
    _print(con, t)
