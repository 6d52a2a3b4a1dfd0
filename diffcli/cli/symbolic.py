"""`grad --symbolic` and `check --symbolic`: the commands' bodies when the flag is given
(commands.py hands over to these). SymPy is imported here, inside the bodies, and only
here: a command without --symbolic never loads it."""

from __future__ import annotations

import sys

from ..outstream import write_document
from .options import GradFormat
from .running import (
    ExitStatus,
    _err,
    _Fail,
    _known_names,
    _prepare,
    _refuse_empty,
    _script_errors,
    _stderr_write,
    _unused_sets,
    _Usage,
    _warner,
)


def _require_sympy():
    """--symbolic needs SymPy, an optional extra: without it, a usage error that says how
    to get it (not an internal error)."""
    try:
        import sympy  # noqa: F401  (the symbolic path needs it anyway)
    except ImportError:
        raise _Usage(
            "--symbolic needs SymPy, an optional extra: pip install 'diffcli[symbolic]' (or sympy)"
        ) from None


def grad_body(a, path):
    _require_sympy()
    from .. import session
    from ..render import symbolic as render
    from ..symbolic import report as R

    for given, opt in (
        (a.grad_tensors, "--grad-tensors"),
        (a.repeat != 1, "--repeat"),
        (a.create_graph, "--create-graph"),
    ):
        if given:
            raise _Usage(f"--symbolic gives formulas of a scalar target: it takes no {opt}")
    s, names, opts = _prepare(path, a.expr, a.set_, a.wrt, a)
    _refuse_empty(s, "there is nothing to differentiate")
    script = _script_errors(s, lambda: session.parse_source(s, opts.limits))
    stand_ins = R.stand_ins(script, opts.sets)
    given = dict(opts.sets)
    opts.sets = {**opts.sets, **stand_ins}
    opts.retain_graphs = a.retain_graph
    warn = _warner(a.fmt.value, s.filename)
    run = _script_errors(s, lambda: session.execute(s, opts, write=_stderr_write, on_warning=warn))
    _known_names(run, s, of=a.of, wrt=names)
    opts.sets = given
    _unused_sets(run, opts, warn)
    target = a.of or run.result.last_assigned
    if target is None:
        raise _Fail(
            ExitStatus.SCRIPT_FAILED,
            _err("ValueError", "the script assigns no name to differentiate (give --of NAME)"),
            s,
        )
    _script_errors(s, lambda: R.check_scope(run, target))
    if a.of is None and run.result.called_backward:
        sys.stderr.write("note: the script calls backward()/grad() itself, so no backward was added\n")
    else:
        _script_errors(
            s,
            lambda: session.run_backward(
                run, target, retain_graph=a.retain_graph, on_warning=warn, explicit=a.of is not None
            ),
        )
    report = _script_errors(s, lambda: session.grad_report(run, target, names, explicit=a.of is not None))
    sym = _script_errors(s, lambda: R.build_bounded(script, run, report, list(stand_ins)))
    if a.fmt is GradFormat.json:
        write_document(render.grad_json(sym) + "\n")
    elif a.fmt is GradFormat.latex:
        write_document(render.grad_latex(sym))
    else:
        write_document(render.grad_text(sym))
    return ExitStatus.OK


def check_rows(s, opts, target, names, warn):
    """The symbolic rows of `check --symbolic`, at the values the script gives (float64)."""
    _require_sympy()
    import copy

    import numpy as np

    from .. import session
    from ..symbolic import report as R

    opts = copy.copy(opts)
    opts.default_dtype = np.dtype(np.float64)
    script = session.parse_source(s, opts.limits)
    run = session.execute(s, opts, write=lambda t: None)
    name = target or run.result.last_assigned
    if target is not None or not run.result.called_backward:
        session.run_backward(run, name, retain_graph=True, explicit=target is not None)
    report = session.grad_report(run, name, names, explicit=target is not None)
    return R.check_rows(R.build_bounded(script, run, report), _leaf_check)


def _leaf_check(name, order, diff, rel, ok, engine, mine):
    """A check row comparing the engine's gradient (analytic) with the formula's value at
    the same point (in the numeric column), to the formula's own tolerance."""
    from ..checks.compare import Entry, LeafCheck, Settings

    engine, mine = float(engine), float(mine)
    tolerance = 1e-7 * max(1.0, abs(mine))
    entry = Entry((), (), engine, mine, tolerance, 0.0)
    entry.ok = bool(ok)  # (symbolic.report.close: relative 1e-7; equal infinities and nans agree)
    entry.label = "ok" if ok else "likely bug"
    return LeafCheck(name, order, engine, mine, [entry], Settings(0.0, tolerance, 1e-7))
