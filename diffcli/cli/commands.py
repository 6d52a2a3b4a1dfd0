"""The commands. Each is declared by its option rows (`options.py`) and gets them as one
namespace `a` (a.script, a.of, a.fmt, ...); each returns its exit status."""

from __future__ import annotations

import math
import sys

from ..outstream import write_document
from . import graph_output
from . import options as O
from .expect import _drift, _golden
from .explain_command import EXPLAIN
from .explain_command import explain as _explain
from .options import CheckFormat, GradFormat, MatrixFormat
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
    each,
    emit_doc,
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

    golden = [None]  # the --expect document, read once

    def body(path):
        from .. import session

        if a.symbolic:
            from . import symbolic

            return symbolic.grad_body(a, path)
        if a.fmt is GradFormat.latex:
            raise _Usage("--format latex is the formulas' format: give --symbolic too")
        s, names, opts = _prepare(path, a.expr, a.set_, a.wrt, a)
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
        if a.fmt in (GradFormat.json, GradFormat.jsonl) or golden[0] is not None:
            from ..render import jsonout

            doc = jsonout.grad_doc(report)
        if a.fmt in (GradFormat.json, GradFormat.jsonl):
            emit_doc(a.fmt.value, s.filename, doc)
        elif a.fmt is GradFormat.tsv:
            from ..render import text

            write_document(text.grad_tsv(report))
        else:
            from ..render import table

            table.grad_table(report)
        if golden[0] is not None:
            return _drift(a, s, golden[0], doc)
        return ExitStatus.OK

    if a.expect is not None:
        status = _run_command(a.fmt.value, lambda: golden.__setitem__(0, _golden(a)) or ExitStatus.OK)
        if status != ExitStatus.OK:
            return status
    return each(a, a.fmt.value, body)


@command(O.GRAPH)
def graph(a):
    """Show the computation graph of SCRIPT: one row per node, inputs first."""

    def body(path):
        from .. import session

        graph_output.check(a)  # (--format png without Graphviz fails before the script runs)
        s, _, opts = _prepare(path, a.expr, a.set_, None, a, trace=True)
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
        return graph_output.write(a, nodes, s)

    return each(a, a.fmt.value, body)


@command(O.RUN)
def run(a):
    """Execute SCRIPT, showing its print output exactly."""

    def body(path):
        from .. import session

        s, _, opts = _prepare(path, a.expr, a.set_, None, a)

        def write(text):
            sys.stdout.write(text)

        warn = _warner("table", s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=write, on_warning=warn))
        _unused_sets(run, opts, warn)
        return ExitStatus.OK

    return each(a, "table", body)


@command(O.CHECK)
def check(a):
    """Compare analytic derivatives (a Jacobian for a non-scalar target) with finite differences; exit 1 on a mismatch."""
    results = []  # (file, CheckReport or None, error text or None), for junit and github

    def body(path):
        from ..checks import scripts as checks

        s, names, opts = _prepare(path, a.expr, a.set_, a.wrt, a, trace=a.fmt is CheckFormat.github)
        if a.eps is not None and not (math.isfinite(a.eps) and a.eps > 0):
            raise _Usage(f"--eps must be a finite number greater than 0, got {a.eps}")
        for value, opt in ((a.atol, "--atol"), (a.rtol, "--rtol")):
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise _Usage(f"{opt} must be a finite number of at least 0, got {value}")
        _refuse_empty(s, "there is nothing to check")
        warn = _warner(a.fmt.value, s.filename)

        def known(run):
            _known_names(run, s, of=a.of, wrt=names)
            _unused_sets(run, opts, warn)

        report = _script_errors(
            s,
            lambda: checks.check(
                s,
                opts,
                a.of,
                a.order,
                a.eps,
                a.atol,
                a.rtol,
                write=_stderr_write,
                on_warning=warn,
                known=known,
            ),
        )
        if a.symbolic:
            from . import symbolic

            report.rows += _script_errors(s, lambda: symbolic.check_rows(s, opts, a.of, names, warn))
        results.append((s.filename, report, None))
        from ..render import checkreport as R

        if a.fmt in (CheckFormat.json, CheckFormat.jsonl):
            emit_doc(a.fmt.value, s.filename, R.check_doc(report))
        elif a.fmt is CheckFormat.table:
            R.check_table(report)
        bad = R.failures(report)
        if bad:
            sys.stdout.flush()
            _emit(
                "json" if a.fmt is CheckFormat.jsonl else a.fmt.value,
                _err(
                    "GradcheckError",
                    f"analytic and finite-difference gradients of "
                    f"'{report.target}' differ for {', '.join(bad)}",
                ),
                s,
                s.filename,
            )
            return ExitStatus.SCRIPT_FAILED
        return ExitStatus.OK

    unchecked = []  # the script whose body raised before it had a report

    def one(path):
        count = len(results)
        try:
            return body(path)
        finally:
            if len(results) == count:
                unchecked.append(path)

    def failed(path, text):
        if unchecked and unchecked[-1] == path:
            unchecked.pop()
            results.append((path or ("<expr>" if a.expr else "<stdin>"), None, text or "error"))

    status = each(a, a.fmt.value, one, on_failure=failed)
    if a.fmt in (CheckFormat.junit, CheckFormat.github):
        from .reports import write_ci_report

        report_status = _run_command(
            a.fmt.value, lambda: write_ci_report(a.fmt.value, results) or ExitStatus.OK
        )
        status = max(status, report_status)
    return status


def _matrix(kind, a):
    """The body of `jacobian` and `hessian` (the work is in `jacobians.py`, the output in
    `render/matrix.py`)."""

    def body(path):
        from .. import jacobians, session
        from ..render import matrix

        s, names, opts = _prepare(path, a.expr, a.set_, a.wrt, a)
        _refuse_empty(s, "there is nothing to differentiate")
        opts.retain_graphs = True  # the script's own backward() must leave the graph to differentiate
        warn = _warner(a.fmt.value, s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=_stderr_write, on_warning=warn))
        _known_names(run, s, of=a.of, wrt=names)
        _unused_sets(run, opts, warn)
        target = a.of or run.result.last_assigned
        if target is None:
            raise _Fail(
                ExitStatus.SCRIPT_FAILED,
                _err("ValueError", "the script assigns no name to differentiate (give --of NAME)"),
                s,
            )
        explicit = a.of is not None
        if kind == "jacobian":
            report = _script_errors(s, lambda: jacobians.jacobian(run, target, names, a.vjp, a.jvp, explicit))
        else:
            report = _script_errors(s, lambda: jacobians.hessian(run, target, names, explicit))
        if a.fmt is MatrixFormat.json:
            write_document(matrix.matrix_json(report) + "\n")
        elif a.fmt is MatrixFormat.tsv:
            write_document(matrix.matrix_tsv(report))
        else:
            matrix.matrix_table(report, sys.stdout)
        return ExitStatus.OK

    return each(a, a.fmt.value, body)


@command(O.JACOBIAN)
def jacobian(a):
    """The Jacobian of TARGET with respect to the leaves, as torch.autograd.functional.jacobian."""
    return _matrix("jacobian", a)


@command(O.HESSIAN)
def hessian(a):
    """The Hessian of a one-element TARGET with respect to the leaves, blocks as torch.autograd.functional.hessian."""
    return _matrix("hessian", a)


explain = command(EXPLAIN)(_explain)
COMMANDS = {
    "grad": grad,
    "graph": graph,
    "run": run,
    "check": check,
    "explain": explain,
    "jacobian": jacobian,
    "hessian": hessian,
}
