"""`diffcli explain SCRIPT`: the backward pass step by step (diffcli/explain/).

Its options are grad's script options (option rows of `options.py`) and --format
text|markdown|json|html. commands.py makes the command from `EXPLAIN` and `explain_body`.
"""

from __future__ import annotations

import enum
import sys

from ..outstream import write_document
from . import options as O
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
    _warner,
    each,
)


class ExplainFormat(str, enum.Enum):
    text = "text"
    markdown = "markdown"
    json = "json"
    html = "html"


_GRAD_ROWS = {o.name: o for o in O.GRAD}
EXPLAIN = [
    *O.SOURCE,
    _GRAD_ROWS["of"],
    _GRAD_ROWS["wrt"],
    _GRAD_ROWS["retain_graph"],
    _GRAD_ROWS["create_graph"],
    _GRAD_ROWS["grad_tensors"],
    O.opt("--format -f", ExplainFormat, ExplainFormat.text, "Output format.", param="fmt"),
    *O.REPORT,
    *O.LIMITS,
]


def explain(a):
    """Run SCRIPT and its backward pass, and show each step: local derivatives, chain rule."""

    def body(path):
        from .. import session
        from ..engine.errors import IMPLICIT_SCALAR
        from ..explain import notes, steps
        from ..lang.errors import ScriptError

        s, names, opts = _prepare(path, a.expr, a.set_, a.wrt, a, trace=True)
        _refuse_empty(s, "there is nothing to explain")
        opts.retain_graphs = a.retain_graph
        warn = _warner(a.fmt.value, s.filename)
        observer, kept = steps.Observer(), []

        def with_note(fn):
            try:
                return fn()
            except ScriptError as e:
                if e.message.startswith(notes.INPLACE_MESSAGE) and kept:
                    e.note = notes.inplace_note(kept[-1], s.text, kept[-1].interp.names)
                elif e.message == IMPLICIT_SCALAR and not getattr(e, "note", "") and do_backward is not None:
                    e.note = (
                        f"'{target}' is not a single number: give the gradient to start from, "
                        f"e.g. --grad-tensors 'ones_like({target})'"
                    )
                raise

        do_backward = target = None
        run = _script_errors(
            s,
            lambda: with_note(
                lambda: steps.execute(s, opts, _stderr_write, warn, observer=observer, keep=kept)
            ),
        )
        _known_names(run, s, of=a.of, wrt=names)
        _unused_sets(run, opts, warn)
        target = a.of or run.result.last_assigned
        if a.of is None and run.result.called_backward:
            sys.stderr.write(
                "note: the script calls backward()/grad() itself: its own passes are explained\n"
            )
        elif target is None:
            raise _Fail(
                ExitStatus.SCRIPT_FAILED,
                _err("ValueError", "the script assigns no name to differentiate (give --of NAME)"),
                s,
            )
        else:

            def do_backward():
                gt = None
                if a.grad_tensors:
                    gt = session.grad_tensors_value(
                        a.grad_tensors, run, opts, write=_stderr_write, on_warning=warn
                    )
                session.run_backward(
                    run,
                    target,
                    gt,
                    a.retain_graph,
                    a.create_graph,
                    1,
                    on_warning=warn,
                    explicit=a.of is not None,
                    grad_tensors_text=a.grad_tensors,
                )

        ex = _script_errors(
            s,
            lambda: with_note(
                lambda: steps.explain(run, target, None if do_backward is None else do_backward, names)
            ),
        )
        if a.fmt is ExplainFormat.json:
            from ..render.explain_text import explain_json

            write_document(explain_json(ex) + "\n")
        elif a.fmt is ExplainFormat.markdown:
            from ..render.explain_text import explain_markdown

            write_document(explain_markdown(ex))
        elif a.fmt is ExplainFormat.html:
            from ..render.html import explain_html

            write_document(explain_html(ex, s.filename))
        else:
            from ..render.explain_text import explain_text

            write_document(explain_text(ex))
        return ExitStatus.OK

    return each(a, a.fmt.value, body)
