"""The commands. Each is declared by its option rows (`options.py`) and gets them as one
namespace `a` (a.script, a.of, a.fmt, ...); each returns its exit status."""

from __future__ import annotations

import math
import sys

from ..outstream import write_document
from . import options as O
from .options import CheckFormat, GradFormat, GraphFormat
from .running import (
    ExitStatus,
    _emit,
    _err,
    _Fail,
    _known_names,
    _prepare,
    _refuse_empty,
    _run_command,
    _script_errors,
    _stderr_write,
    _unused_sets,
    _Usage,
    _warner,
)


class Args:
    """A command's keyword arguments as attributes."""

    def __init__(self, values):
        self.__dict__.update(values)

    def __getitem__(self, name):
        return self.__dict__[name]

    def __contains__(self, name):
        return name in self.__dict__


def command(rows):
    """Make a command from its option rows and its body `fn(a)`: a function of keyword
    arguments (as Typer and the fast reader call it) that carries its rows."""

    def make(fn):
        def run_command(**values):
            return fn(Args({**O.defaults(rows), **values}))

        run_command.__name__ = run_command.__qualname__ = fn.__name__
        run_command.__doc__ = fn.__doc__
        run_command.__module__ = fn.__module__
        run_command.options = rows
        return run_command

    return make


@command(O.GRAD)
def grad(a):
    """Run SCRIPT, call TARGET.backward(), and report the leaves' gradients."""

    def body():
        from .. import session

        if a.symbolic:
            from . import symbolic

            return symbolic.grad_body(a)
        if a.fmt is GradFormat.latex:
            raise _Usage("--format latex is the formulas' format: give --symbolic too")
        s, names, opts = _prepare(a.script, a.expr, a.set_, a.wrt, a)
        _refuse_empty(s, "there is nothing to differentiate")
        opts.retain_graphs = a.retain_graph  # the script's own backward() keeps the graph too
        warn = _warner(a.fmt.value, s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=_stderr_write, on_warning=warn))
        _known_names(run, s, of=a.of, wrt=names)
        _unused_sets(run, opts, warn)
        target = a.of or run.result.last_assigned
        if a.of is None and run.result.called_backward:
            sys.stderr.write(
                "note: the script calls backward()/grad() itself, so no backward was "
                "added (give --of NAME --retain-graph to add one)\n"
            )
            if not isinstance(run.env.get(target), session.Tensor):
                target = None  # the last assigned name is no tensor: report leaves only
        elif target is None:
            raise _Fail(
                ExitStatus.SCRIPT_FAILED,
                _err("ValueError", "the script assigns no name to differentiate (give --of NAME)"),
                s,
            )
        else:

            def do_backward():
                gt = (
                    session.grad_tensors_value(
                        a.grad_tensors, run, opts, write=_stderr_write, on_warning=warn
                    )
                    if a.grad_tensors
                    else None
                )
                session.run_backward(
                    run,
                    target,
                    gt,
                    a.retain_graph,
                    a.create_graph,
                    a.repeat,
                    on_warning=warn,
                    explicit=a.of is not None,
                    grad_tensors_text=a.grad_tensors,
                )

            _script_errors(s, do_backward)
        report = _script_errors(s, lambda: session.grad_report(run, target, names, explicit=a.of is not None))
        if a.fmt is GradFormat.json:
            from ..render import jsonout

            write_document(jsonout.grad_json(report) + "\n")
        elif a.fmt is GradFormat.tsv:
            from ..render import text

            write_document(text.grad_tsv(report))
        else:
            from ..render import table

            table.grad_table(report)
        return ExitStatus.OK

    return _run_command(a.fmt.value, body)


@command(O.GRAPH)
def graph(a):
    """Show the computation graph of SCRIPT: one row per node, inputs first."""

    def body():
        from .. import session

        s, _, opts = _prepare(a.script, a.expr, a.set_, None, a, trace=True)
        _refuse_empty(s, "there is no graph to show")
        opts.retain_graphs = bool(a.backward and a.of)  # --of adds a backward after the script's
        warn = _warner(a.fmt.value, s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=_stderr_write, on_warning=warn))
        _known_names(run, s, of=a.of)
        _unused_sets(run, opts, warn)
        target = a.of or (run.result.last_assigned if a.backward else None)
        if a.backward and a.of is None and run.result.called_backward:
            sys.stderr.write(
                "note: the script calls backward()/grad() itself, so no backward was "
                "added (give --of NAME to add one)\n"
            )
        elif a.backward:
            if target is None:
                raise _Fail(
                    ExitStatus.SCRIPT_FAILED,
                    _err("ValueError", "nothing to differentiate (give --of NAME)"),
                    s,
                )
            _script_errors(s, lambda: session.run_backward(run, target, retain_graph=True, on_warning=warn))
        nodes = _script_errors(s, lambda: session.build_graph(run, a.of))
        if not nodes and a.fmt is GraphFormat.table:
            sys.stderr.write("note: the graph is empty: the script makes no tensor that requires grad\n")
            return ExitStatus.OK
        if a.fmt is GraphFormat.json:
            from ..render import jsonout

            write_document(jsonout.graph_json(nodes) + "\n")
        elif a.fmt is GraphFormat.table:
            from ..render import table

            table.graph_table(nodes, show_grad=a.backward)
        else:
            from ..render import text

            draw = {
                GraphFormat.dot: text.graph_dot,
                GraphFormat.mermaid: text.graph_mermaid,
                GraphFormat.tree: text.graph_tree,
            }[a.fmt]
            write_document(draw(nodes))
        return ExitStatus.OK

    return _run_command(a.fmt.value, body)


@command(O.RUN)
def run(a):
    """Execute SCRIPT, showing its print output exactly."""

    def body():
        from .. import session

        s, _, opts = _prepare(a.script, a.expr, a.set_, None, a)

        def write(text):
            sys.stdout.write(text)

        warn = _warner("table", s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=write, on_warning=warn))
        _unused_sets(run, opts, warn)
        return ExitStatus.OK

    return _run_command("table", body)


@command(O.CHECK)
def check(a):
    """Compare analytic gradients with central finite differences; exit 1 on a mismatch."""

    def body():
        from .. import session

        s, names, opts = _prepare(a.script, a.expr, a.set_, a.wrt, a)
        if not (math.isfinite(a.eps) and a.eps > 0):
            raise _Usage(f"--eps must be a finite number greater than 0, got {a.eps}")
        for value, opt in ((a.atol, "--atol"), (a.rtol, "--rtol")):
            if not (math.isfinite(value) and value >= 0):
                raise _Usage(f"{opt} must be a finite number of at least 0, got {value}")
        _refuse_empty(s, "there is nothing to check")
        warn = _warner(a.fmt.value, s.filename)
        target, rows = _script_errors(
            s,
            lambda: session.check(
                s,
                opts,
                a.of,
                a.order,
                a.eps,
                a.atol,
                a.rtol,
                write=_stderr_write,
                on_warning=warn,
                known=lambda run: (_known_names(run, s, of=a.of, wrt=names), _unused_sets(run, opts, warn)),
            ),
        )
        if a.symbolic:
            from . import symbolic

            rows = rows + _script_errors(s, lambda: symbolic.check_rows(s, opts, a.of, names, warn))
        if a.fmt is CheckFormat.json:
            from ..render import jsonout

            write_document(jsonout.check_json(target, rows) + "\n")
        else:
            from ..render import table

            table.check_table(target, rows)
        bad = [f"{r.name} (order {r.order})" for r in rows if not r.ok]
        if bad:
            sys.stdout.flush()
            _emit(
                a.fmt.value,
                _err(
                    "GradcheckError",
                    f"analytic and finite-difference gradients of '{target}' differ for {', '.join(bad)}",
                ),
                s,
                s.filename,
            )
            return ExitStatus.SCRIPT_FAILED
        return ExitStatus.OK

    return _run_command(a.fmt.value, body)


COMMANDS = {"grad": grad, "graph": graph, "run": run, "check": check}
