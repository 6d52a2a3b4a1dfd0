"""What the symbolic tests share: the formulas of a script, through the library (no CLI)."""

from __future__ import annotations

import pytest

sympy = pytest.importorskip("sympy")  # (the [symbolic] extra)

import numpy as np  # noqa: E402

from diffcli import session  # noqa: E402
from diffcli.source import Source  # noqa: E402
from diffcli.symbolic import report as R  # noqa: E402


def formulas(script_text, sets=None, of=None, float64=True):
    """(SymbolicReport, run) of `grad --symbolic` on `script_text`."""
    src = Source(script_text, "<test>")
    opts = session.Options(sets=dict(sets or {}))
    if float64:
        opts.default_dtype = np.dtype(np.float64)
    script = session.parse_source(src, opts.limits)
    stand = R.stand_ins(script, opts.sets)
    opts.sets = {**opts.sets, **stand}
    run = session.execute(src, opts, write=lambda s: None)
    target = of or run.result.last_assigned
    session.run_backward(run, target, retain_graph=True)
    report = session.grad_report(run, target)
    return R.build(script, run, report, list(stand)), run
