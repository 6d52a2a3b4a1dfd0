"""The `diffcli` command line (Typer). It only parses options, calls `session`, and hands
the results to `render/`; errors are translated once, here, into messages and exit codes
(0 ok, 1 the script failed or check found a mismatch, 2 bad command line/syntax/file).

The commands are plain functions whose annotations declare their Typer options; with
``from __future__ import annotations`` those stay unevaluated strings until the Typer app
is built (`typer_app`). A plain command line, one that names a command and gives only
its options in their usual spelling, does not need Typer or Click at all: `_fast_args`
reads it as Click would and `main` calls the command directly, which saves about a
tenth of a short command's run. Anything else (help, --version, a misspelt option, a
value Click would refuse, ...) goes to the Typer app, so every help text and usage error
is Typer's own. `tests/cli/test_fast_args.py` checks that both read every command line
the same way.
"""
from __future__ import annotations

import enum
import math
import os
import re
import sys
from typing import Annotated, Optional

from . import __version__, outstream
from .outstream import StdoutError, write_document


class ExitStatus(enum.IntEnum):
    OK = 0
    SCRIPT_FAILED = 1
    USAGE = 2
    INTERNAL = 3
    INTERRUPTED = 130


class GradFormat(str, enum.Enum):
    table = "table"
    json = "json"
    tsv = "tsv"


class GraphFormat(str, enum.Enum):
    table = "table"
    json = "json"
    dot = "dot"
    mermaid = "mermaid"
    tree = "tree"


class CheckFormat(str, enum.Enum):
    table = "table"
    json = "json"


# --- Typer declarations (evaluated only when the Typer app is built) ------------------
def _option(*names, **settings):
    import typer
    return typer.Option(*names, **settings)


def _argument(**settings):
    import typer
    return typer.Argument(**settings)


def _version(value: bool):
    if value:
        import typer
        typer.echo(f"diffcli {__version__}")
        raise typer.Exit()


SCRIPT_HELP = "Script file, or '-' for standard input."
EXPR_HELP = "The script text itself, instead of a file."
SET_HELP = ("NAME=VALUE: give a free variable a value (a number or a list literal); "
            "repeatable.")
LIMITS = {  # option: (help, metavar), as each command declares it
    "--max-elements": ("Cap on the elements of one tensor.", None),
    "--max-iterations": ("Cap on loop iterations.", None),
    "--max-statements": ("Cap on statements executed.", None),
    "--max-depth": ("Cap on function-call nesting.", None),
    "--max-memory": ("Cap on the memory the script's tensors hold, in MB.", "MB"),
    "--timeout": ("Cap on the run's time, in seconds (0: none).", "SECONDS"),
    "--max-script-size": ("Cap on the script's size, in MB.", "MB"),
}
MAX_ELEMENTS, MAX_ITERATIONS, MAX_STATEMENTS, MAX_DEPTH, MAX_MEMORY, TIMEOUT = (
    10_000_000, 10_000_000, 1_000_000, 100, 4096, 300)
MAX_SCRIPT_SIZE = 16


def _limit(name):
    help_text, metavar = LIMITS[name]
    return _option(name, help=help_text, **({"metavar": metavar} if metavar else {}))


def main_options(version: Annotated[bool, _option("--version", callback=_version, is_eager=True,
                                                   help="Show the version and exit.")] = False):
    """diffcli: reverse-mode autodiff with PyTorch's semantics, from the shell."""


class _Usage(Exception):
    """A bad option value found after Click's own checks (--set, --eps...): exit 2."""


class _Fail(Exception):
    def __init__(self, status, err=None, source=None):
        self.status, self.err, self.source = status, err, source


def _parse_sets(items):
    from .lang.interpreter import variable
    from .session import parse_literal
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ValueError(f"--set {item!r}: expected NAME=VALUE")
        name, value = item.split("=", 1)
        name = name.strip()
        if not name.isidentifier():
            raise ValueError(f"--set {item!r}: {name!r} is not a valid name")
        out[name] = parse_literal(value.strip(), f"--set {name}")
        try:
            variable(out[name])               # a ragged list is refused here, not mid-run
        except Exception as e:
            raise ValueError(f"--set {name}: {e}") from None
    return out


def _options(sets, wrt=(), trace=False, max_elements=MAX_ELEMENTS, max_iterations=MAX_ITERATIONS,
             max_statements=MAX_STATEMENTS, max_depth=MAX_DEPTH, max_memory=MAX_MEMORY, timeout=TIMEOUT,
             max_script_size=MAX_SCRIPT_SIZE):
    from .lang.limits import Limits
    from .session import Options
    for v, opt in ((max_elements, "--max-elements"), (max_iterations, "--max-iterations"),
                   (max_statements, "--max-statements"), (max_depth, "--max-depth"),
                   (max_memory, "--max-memory"), (max_script_size, "--max-script-size")):
        if v < 1:
            raise _Usage(f"{opt} must be at least 1, got {v}")
    if timeout < 0:
        raise _Usage(f"--timeout must be at least 0 (0: none), got {timeout}")
    limits = Limits(max_elements, max_iterations, max_statements, max_depth, max_memory, timeout,
                    max_script_size)
    try:
        return Options(_parse_sets(sets), wrt=wrt, limits=limits, trace=trace)
    except ValueError as e:
        raise _Usage(str(e)) from None


def _prepare(script, expr, sets, wrt, *limits, trace=False):
    """What every command does first: read SCRIPT, split --wrt, build the options."""
    from . import source as src
    if expr and len(expr) > 1:
        raise _Usage(f"-e/--expr given {len(expr)} times: give the script once (separate its "
                     "statements with ';' or newlines)")
    limit_names = ("max_elements", "max_iterations", "max_statements", "max_depth", "max_memory",
                   "timeout", "max_script_size")
    caps = dict(zip(limit_names, limits))
    size = caps.get("max_script_size", MAX_SCRIPT_SIZE)
    if size < 1:
        raise _Usage(f"--max-script-size must be at least 1, got {size}")
    s = src.load(script, expr[0] if expr else None, size * src.MB)
    names = tuple(n.strip() for n in wrt.split(",") if n.strip()) if wrt else ()
    return s, names, _options(sets, names, trace=trace, **caps)


def _run_command(fmt, body):
    """Run `body()`, rendering any failure on stderr; the exit status."""
    import warnings

    from .engine import dtypes
    from .engine import errors as engine_errors
    from .lang.errors import ScriptError
    from .source import SourceError
    status = ExitStatus.OK
    recursion_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(recursion_limit, 20000))
    engine_errors.reset_warn_once()          # each command is one "process" for warn-once
    try:
        # the run's dtype settings hold until the command ends (session.Run), then the
        # previous ones are back
        with warnings.catch_warnings(), dtypes.using(dtypes.defaults()):
            warnings.simplefilter("ignore")  # library warnings are not the script's warnings
            status = body()
    except SourceError as e:
        err = ScriptError(e.type_name, e.message, e.line, e.column)
        _emit(fmt, err, e.source, e.filename)
        status = ExitStatus.SCRIPT_FAILED if e.type_name == "LimitError" else ExitStatus.USAGE
    except _Usage as e:
        err = ScriptError("UsageError", str(e))
        _emit(fmt, err, None, "")
        status = ExitStatus.USAGE
    except _Fail as f:
        _emit(fmt, f.err, f.source, f.source.filename if f.source else "")
        status = f.status
    except StdoutError as e:
        status = _stdout_failed(e, fmt)
    except BrokenPipeError:
        _quiet_pipe()
        status = ExitStatus.SCRIPT_FAILED
    except KeyboardInterrupt:
        status = _interrupted()
    except RecursionError:
        _emit(fmt, ScriptError("LimitError", "nested too deeply"), None, "")
        status = ExitStatus.SCRIPT_FAILED
    except MemoryError:
        _emit(fmt, ScriptError("MemoryError", "out of memory"), None, "")
        status = ExitStatus.SCRIPT_FAILED
    except Exception as e:  # a bug in diffcli: still no traceback, but say so
        _emit(fmt, ScriptError("InternalError", f"{type(e).__name__}: {e} (this is a diffcli bug)"),
              None, "")
        status = ExitStatus.INTERNAL
    finally:
        sys.setrecursionlimit(recursion_limit)
    return int(_flush_stdout(status, fmt))


def _flush_stdout(status, fmt="table"):
    """Flush standard output; a failure there is reported like any write failure."""
    try:
        sys.stdout.flush()
    except StdoutError as e:
        return _stdout_failed(e, fmt) if status == ExitStatus.OK else status
    except BrokenPipeError:
        _quiet_pipe()
        return ExitStatus.SCRIPT_FAILED if status == ExitStatus.OK else status
    except KeyboardInterrupt:
        return _interrupted()
    return status


def _stdout_failed(e, fmt="table"):
    """Standard output cannot be written: quiet for a reader that went away (`| head`),
    else one error line; exit 1 either way, as for cat or echo."""
    import errno

    from .outstream import describe, silence_stdout
    silence_stdout()
    if e.errno != errno.EPIPE:
        from .lang.errors import ScriptError
        _emit(fmt, ScriptError("OutputError", describe(e)), None, "")
    return ExitStatus.SCRIPT_FAILED


def _interrupted():
    try:
        sys.stderr.write("error: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    return ExitStatus.INTERRUPTED


def _quiet_pipe():
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _emit(fmt, err, source, filename):
    from .render.errors import error_text
    if fmt == "json":
        from .render.jsonout import error_json
        sys.stderr.write(error_json(err, filename or None) + "\n")
    else:
        sys.stderr.write(error_text(err, source) + "\n")
    sys.stderr.flush()


def _script_errors(source, fn):
    """Call fn(), turning ScriptErrors into _Fail with the right status."""
    from .lang.errors import ScriptError
    try:
        return fn()
    except ScriptError as e:
        raise _Fail(ExitStatus.USAGE if e.is_syntax else ExitStatus.SCRIPT_FAILED, e, source) from None


def _warner(fmt, filename):
    from .render.errors import warning_text

    def on_warning(w):
        if fmt == "json":
            import json
            sys.stderr.write(json.dumps({"warning": {"type": w.category, "message": w.message,
                                                     "file": filename, "line": w.line or None}}) + "\n")
        else:
            sys.stderr.write(warning_text(w, filename) + "\n")
    return on_warning


def _stderr_write(text):
    sys.stderr.write(text)


# --- commands ---------------------------------------------------------------------
# Each returns its exit status. The options every command shares are spelt out in each
# signature, as Typer reads them.
def grad(script: Annotated[Optional[str], _argument(help=SCRIPT_HELP, show_default=False)] = None,
         expr: Annotated[Optional[list[str]], _option("-e", "--expr", help=EXPR_HELP)] = None,
         set_: Annotated[Optional[list[str]], _option("--set", help=SET_HELP, metavar="NAME=VALUE")] = None,
         of: Annotated[Optional[str], _option("--of", help="The tensor to differentiate (default: the last assigned name).")] = None,
         wrt: Annotated[Optional[str], _option("--wrt", help="Comma-separated leaves to report; they are made to require grad.")] = None,
         retain_graph: Annotated[bool, _option("--retain-graph", help="Keep the graph's saved tensors after backward.")] = False,
         create_graph: Annotated[bool, _option("--create-graph", help="Record the backward pass (gradients get a grad_fn).")] = False,
         grad_tensors: Annotated[Optional[str], _option("--grad-tensors", help="The gradient for a non-scalar target: a literal or an expression such as ones_like(p).")] = None,
         repeat: Annotated[int, _option("--repeat", min=1, max=1000, help="Call backward N times (shows accumulation).")] = 1,
         fmt: Annotated[GradFormat, _option("--format", "-f", help="Output format.")] = GradFormat.table,
         max_elements: Annotated[int, _limit("--max-elements")] = MAX_ELEMENTS,
         max_iterations: Annotated[int, _limit("--max-iterations")] = MAX_ITERATIONS,
         max_statements: Annotated[int, _limit("--max-statements")] = MAX_STATEMENTS,
         max_depth: Annotated[int, _limit("--max-depth")] = MAX_DEPTH,
         max_memory: Annotated[int, _limit("--max-memory")] = MAX_MEMORY,
         timeout: Annotated[int, _limit("--timeout")] = TIMEOUT,
         max_script_size: Annotated[int, _limit("--max-script-size")] = MAX_SCRIPT_SIZE):
    """Run SCRIPT, call TARGET.backward(), and report the leaves' gradients."""
    def body():
        from . import session
        s, names, opts = _prepare(script, expr, set_, wrt, max_elements, max_iterations,
                                  max_statements, max_depth, max_memory, timeout, max_script_size)
        _refuse_empty(s, "there is nothing to differentiate")
        opts.retain_graphs = retain_graph     # the script's own backward() keeps the graph too
        warn = _warner(fmt.value, s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=_stderr_write, on_warning=warn))
        _known_names(run, s, of=of, wrt=names)
        _unused_sets(run, opts, warn)
        target = of or run.result.last_assigned
        if of is None and run.result.called_backward:
            sys.stderr.write("note: the script calls backward()/grad() itself, so no backward was "
                             "added (give --of NAME --retain-graph to add one)\n")
            if not isinstance(run.env.get(target), session.Tensor):
                target = None         # the last assigned name is no tensor: report leaves only
        elif target is None:
            raise _Fail(ExitStatus.SCRIPT_FAILED, _err("ValueError", "the script assigns no name to "
                                                       "differentiate (give --of NAME)"), s)
        else:
            def do_backward():
                gt = (session.grad_tensors_value(grad_tensors, run, opts, write=_stderr_write, on_warning=warn)
                      if grad_tensors else None)
                session.run_backward(run, target, gt, retain_graph, create_graph, repeat, on_warning=warn,
                                     explicit=of is not None, grad_tensors_text=grad_tensors)
            _script_errors(s, do_backward)
        report = _script_errors(s, lambda: session.grad_report(run, target, names, explicit=of is not None))
        if fmt is GradFormat.json:
            from .render import jsonout
            write_document(jsonout.grad_json(report) + "\n")
        elif fmt is GradFormat.tsv:
            from .render import text
            write_document(text.grad_tsv(report))
        else:
            from .render import table
            table.grad_table(report)
        return ExitStatus.OK
    return _run_command(fmt.value, body)


def _known_names(run, source, of=None, wrt=()):
    """--of and --wrt must name something the script defines, and --wrt a leaf tensor: else
    a command-line error (exit 2), as for any option that names a thing that is not there."""
    for opt, names in (("--of", [of] if of else []), ("--wrt", list(wrt))):
        for name in names:
            if name not in run.env:
                raise _Fail(ExitStatus.USAGE, _err("UsageError", f"{opt} {name}: the script defines "
                                                   f"no name '{name}'"), source)
    for name in wrt:
        value = run.env[name]
        from .session import Tensor
        if not isinstance(value, Tensor) or value.grad_fn is not None:
            from .lang.values import type_name
            what = (f"computed by {value.grad_fn.name()}" if isinstance(value, Tensor)
                    else f"a {type_name(value)}")
            leaves = ", ".join(n for n, _ in run.leaves()) or "none"
            raise _Fail(ExitStatus.USAGE, _err("UsageError", f"--wrt {name}: '{name}' is not a leaf "
                                               f"tensor ({what}); --wrt takes the script's leaves "
                                               f"(here: {leaves})"), source)


def _unused_sets(run, opts, warn):
    """A --set that the script never read (as a free variable) nor assigned (as a literal
    variable) would otherwise be ignored without a word."""
    from .session import Warning_
    for name in opts.sets:
        if name not in run.result.sets_used:
            what = ("assigns it a computed value, not a literal" if name in run.env
                    else "never uses that name")
            warn(Warning_("UsageWarning", f"--set {name}: not used: the script {what}", 0))


def _refuse_empty(source, why):
    """grad, graph and check on a script with no statements: say so, not 'give --of NAME'."""
    if all(not line.strip() or line.lstrip().startswith("#") for line in source.text.splitlines()):
        raise _Fail(ExitStatus.SCRIPT_FAILED, _err("ValueError", f"the script is empty: {why}"), source)


def _err(type_name, message):
    from .lang.errors import ScriptError
    return ScriptError(type_name, message)


def graph(script: Annotated[Optional[str], _argument(help=SCRIPT_HELP, show_default=False)] = None,
          expr: Annotated[Optional[list[str]], _option("-e", "--expr", help=EXPR_HELP)] = None,
          set_: Annotated[Optional[list[str]], _option("--set", help=SET_HELP, metavar="NAME=VALUE")] = None,
          of: Annotated[Optional[str], _option("--of", help="Show only the graph of this tensor.")] = None,
          backward: Annotated[bool, _option("--backward", help="Run TARGET.backward() first and show grads.")] = False,
          fmt: Annotated[GraphFormat, _option("--format", "-f", help="Output format.")] = GraphFormat.table,
          max_elements: Annotated[int, _limit("--max-elements")] = MAX_ELEMENTS,
          max_iterations: Annotated[int, _limit("--max-iterations")] = MAX_ITERATIONS,
          max_statements: Annotated[int, _limit("--max-statements")] = MAX_STATEMENTS,
          max_depth: Annotated[int, _limit("--max-depth")] = MAX_DEPTH,
          max_memory: Annotated[int, _limit("--max-memory")] = MAX_MEMORY,
          timeout: Annotated[int, _limit("--timeout")] = TIMEOUT,
          max_script_size: Annotated[int, _limit("--max-script-size")] = MAX_SCRIPT_SIZE):
    """Show the computation graph of SCRIPT: one row per node, inputs first."""
    def body():
        from . import session
        s, _, opts = _prepare(script, expr, set_, None, max_elements, max_iterations,
                              max_statements, max_depth, max_memory, timeout, max_script_size, trace=True)
        _refuse_empty(s, "there is no graph to show")
        opts.retain_graphs = bool(backward and of)   # --of adds a backward after the script's
        warn = _warner(fmt.value, s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=_stderr_write, on_warning=warn))
        _known_names(run, s, of=of)
        _unused_sets(run, opts, warn)
        target = of or (run.result.last_assigned if backward else None)
        if backward and of is None and run.result.called_backward:
            sys.stderr.write("note: the script calls backward()/grad() itself, so no backward was "
                             "added (give --of NAME to add one)\n")
        elif backward:
            if target is None:
                raise _Fail(ExitStatus.SCRIPT_FAILED, _err("ValueError", "nothing to differentiate (give --of NAME)"), s)
            _script_errors(s, lambda: session.run_backward(run, target, retain_graph=True, on_warning=warn))
        nodes = _script_errors(s, lambda: session.build_graph(run, of))
        if not nodes and fmt is GraphFormat.table:
            sys.stderr.write("note: the graph is empty: the script makes no tensor that requires "
                             "grad\n")
            return ExitStatus.OK
        if fmt is GraphFormat.json:
            from .render import jsonout
            write_document(jsonout.graph_json(nodes) + "\n")
        elif fmt is GraphFormat.table:
            from .render import table
            table.graph_table(nodes, show_grad=backward)
        else:
            from .render import text
            draw = {GraphFormat.dot: text.graph_dot, GraphFormat.mermaid: text.graph_mermaid,
                    GraphFormat.tree: text.graph_tree}[fmt]
            write_document(draw(nodes))
        return ExitStatus.OK
    return _run_command(fmt.value, body)


def run(script: Annotated[Optional[str], _argument(help=SCRIPT_HELP, show_default=False)] = None,
        expr: Annotated[Optional[list[str]], _option("-e", "--expr", help=EXPR_HELP)] = None,
        set_: Annotated[Optional[list[str]], _option("--set", help=SET_HELP, metavar="NAME=VALUE")] = None,
        max_elements: Annotated[int, _limit("--max-elements")] = MAX_ELEMENTS,
        max_iterations: Annotated[int, _limit("--max-iterations")] = MAX_ITERATIONS,
        max_statements: Annotated[int, _limit("--max-statements")] = MAX_STATEMENTS,
        max_depth: Annotated[int, _limit("--max-depth")] = MAX_DEPTH,
        max_memory: Annotated[int, _limit("--max-memory")] = MAX_MEMORY,
        timeout: Annotated[int, _limit("--timeout")] = TIMEOUT,
        max_script_size: Annotated[int, _limit("--max-script-size")] = MAX_SCRIPT_SIZE):
    """Execute SCRIPT, showing its print output exactly."""
    def body():
        from . import session
        s, _, opts = _prepare(script, expr, set_, None, max_elements, max_iterations,
                              max_statements, max_depth, max_memory, timeout, max_script_size)

        def write(text):
            sys.stdout.write(text)
        warn = _warner("table", s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=write, on_warning=warn))
        _unused_sets(run, opts, warn)
        return ExitStatus.OK
    return _run_command("table", body)


def check(script: Annotated[Optional[str], _argument(help=SCRIPT_HELP, show_default=False)] = None,
          expr: Annotated[Optional[list[str]], _option("-e", "--expr", help=EXPR_HELP)] = None,
          set_: Annotated[Optional[list[str]], _option("--set", help=SET_HELP, metavar="NAME=VALUE")] = None,
          of: Annotated[Optional[str], _option("--of", help="The tensor to check (default: the last assigned name).")] = None,
          wrt: Annotated[Optional[str], _option("--wrt", help="Comma-separated leaves to check.")] = None,
          order: Annotated[int, _option("--order", min=1, max=2, help="1: gradients; 2: also second derivatives.")] = 1,
          eps: Annotated[float, _option("--eps", help="Finite-difference step.")] = 1e-6,
          atol: Annotated[float, _option("--atol", help="Absolute tolerance.")] = 1e-5,
          rtol: Annotated[float, _option("--rtol", help="Relative tolerance.")] = 1e-4,
          fmt: Annotated[CheckFormat, _option("--format", "-f", help="Output format.")] = CheckFormat.table,
          max_elements: Annotated[int, _limit("--max-elements")] = MAX_ELEMENTS,
          max_iterations: Annotated[int, _limit("--max-iterations")] = MAX_ITERATIONS,
          max_statements: Annotated[int, _limit("--max-statements")] = MAX_STATEMENTS,
          max_depth: Annotated[int, _limit("--max-depth")] = MAX_DEPTH,
          max_memory: Annotated[int, _limit("--max-memory")] = MAX_MEMORY,
          timeout: Annotated[int, _limit("--timeout")] = TIMEOUT,
          max_script_size: Annotated[int, _limit("--max-script-size")] = MAX_SCRIPT_SIZE):
    """Compare analytic gradients with central finite differences; exit 1 on a mismatch."""
    def body():
        from . import session
        s, names, opts = _prepare(script, expr, set_, wrt, max_elements, max_iterations,
                                  max_statements, max_depth, max_memory, timeout, max_script_size)
        if not (math.isfinite(eps) and eps > 0):
            raise _Usage(f"--eps must be a finite number greater than 0, got {eps}")
        for value, opt in ((atol, "--atol"), (rtol, "--rtol")):
            if not (math.isfinite(value) and value >= 0):
                raise _Usage(f"{opt} must be a finite number of at least 0, got {value}")
        _refuse_empty(s, "there is nothing to check")
        warn = _warner(fmt.value, s.filename)
        target, rows = _script_errors(s, lambda: session.check(s, opts, of, order, eps, atol, rtol,
                                                               write=_stderr_write, on_warning=warn,
                                                               known=lambda run: (
                                                                   _known_names(run, s, of=of, wrt=names),
                                                                   _unused_sets(run, opts, warn))))
        if fmt is CheckFormat.json:
            from .render import jsonout
            write_document(jsonout.check_json(target, rows) + "\n")
        else:
            from .render import table
            table.check_table(target, rows)
        bad = [f"{r.name} (order {r.order})" for r in rows if not r.ok]
        if bad:
            sys.stdout.flush()
            _emit(fmt.value, _err("GradcheckError", f"analytic and finite-difference gradients of "
                                  f"'{target}' differ for {', '.join(bad)}"), s, s.filename)
            return ExitStatus.SCRIPT_FAILED
        return ExitStatus.OK
    return _run_command(fmt.value, body)


COMMANDS = {"grad": grad, "graph": graph, "run": run, "check": check}


# --- the fast path: plain command lines without Click -----------------------------
_DECIMAL = r"([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?"


def _number(text):
    """A float as Click's FLOAT reads it, for plain decimal spellings only."""
    if not re.fullmatch(_DECIMAL, text):
        raise ValueError(text)
    return float(text)


def _integer(low=None, high=None):
    """An int as Click's INT (or IntRange) reads it, for plain ASCII digits only."""
    def convert(text):
        if not re.fullmatch("[0-9]+", text):
            raise ValueError(text)
        value = int(text)
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(text)  # out of range: Click words this error
        return value
    return convert


def _choice(enum_class):
    def convert(text):
        return enum_class(text)  # ValueError unless it is one of the values exactly
    return convert


_FLAG = "flag"        # takes no value
_MULTIPLE = "many"    # repeatable: a list of str, None when absent (as Typer passes it)
_SHARED = {"-e": ("expr", _MULTIPLE), "--expr": ("expr", _MULTIPLE), "--set": ("set_", _MULTIPLE),
           "--max-elements": ("max_elements", _integer()),
           "--max-iterations": ("max_iterations", _integer()),
           "--max-statements": ("max_statements", _integer()),
           "--max-depth": ("max_depth", _integer()), "--max-memory": ("max_memory", _integer()),
           "--timeout": ("timeout", _integer()),
           "--max-script-size": ("max_script_size", _integer())}
FAST_OPTIONS = {   # command: {option: (parameter, how its value is read)}
    "grad": {**_SHARED, "--of": ("of", str), "--wrt": ("wrt", str),
             "--retain-graph": ("retain_graph", _FLAG), "--create-graph": ("create_graph", _FLAG),
             "--grad-tensors": ("grad_tensors", str), "--repeat": ("repeat", _integer(1, 1000)),
             "-f": ("fmt", _choice(GradFormat)), "--format": ("fmt", _choice(GradFormat))},
    "graph": {**_SHARED, "--of": ("of", str), "--backward": ("backward", _FLAG),
              "-f": ("fmt", _choice(GraphFormat)), "--format": ("fmt", _choice(GraphFormat))},
    "run": dict(_SHARED),
    "check": {**_SHARED, "--of": ("of", str), "--wrt": ("wrt", str),
              "--order": ("order", _integer(1, 2)), "--eps": ("eps", _number),
              "--atol": ("atol", _number), "--rtol": ("rtol", _number),
              "-f": ("fmt", _choice(CheckFormat)), "--format": ("fmt", _choice(CheckFormat))},
}

from . import matrix_commands  # noqa: E402  (jacobian, hessian; given this module's shared options)

matrix_commands.register(sys.modules[__name__])


def _defaults(function):
    code = function.__code__
    names = code.co_varnames[:code.co_argcount]
    return dict(zip(names[len(names) - len(function.__defaults__):], function.__defaults__))


def _fast_args(args):
    """(command, keyword arguments) for a plain command line, exactly as Typer would call
    the command; None for anything else, which Typer and Click then handle: help,
    --version, `--`, an unknown, misspelt or glued option (`-fjson`), a missing, empty or
    dash-led value, a second SCRIPT, a value Click would refuse or convert in some other
    way, shell completion."""
    if not args or args[0] not in FAST_OPTIONS:
        return None
    if any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return None
    options = FAST_OPTIONS[args[0]]
    values = _defaults(COMMANDS[args[0]])
    script = False
    rest = iter(args[1:])
    for arg in rest:
        if arg == "-" or not arg.startswith("-"):
            if script or arg == "":
                return None
            values["script"] = script = arg
            continue
        name, equals, value = arg.partition("=") if arg.startswith("--") else (arg, "", None)
        if name not in options:
            return None
        parameter, read = options[name]
        if read is _FLAG:
            if equals:
                return None
            values[parameter] = True
            continue
        if not equals:
            value = next(rest, None)
        if not value or value.startswith("-"):
            return None
        if read is _MULTIPLE:
            values[parameter] = (values[parameter] or []) + [value]
            continue
        try:
            values[parameter] = read(value)
        except ValueError:
            return None
    return args[0], values


def _call(command, values):
    """Run a command the fast path read, as Click's main would (a broken pipe exits 1)."""
    try:
        return COMMANDS[command](**values)
    except OSError as e:
        import errno
        if e.errno != errno.EPIPE:
            raise
        from click.utils import PacifyFlushWrapper
        sys.stdout = PacifyFlushWrapper(sys.stdout)
        sys.stderr = PacifyFlushWrapper(sys.stderr)
        sys.exit(1)


# --- the Typer app ----------------------------------------------------------------
_app = None


def typer_app():
    """The Typer app, built (and Typer and Click imported) on first use."""
    global _app
    if _app is None:
        _app = _build_app(COMMANDS.values())
    return _app


def __getattr__(name):  # `from diffcli.cli import app`
    if name == "app":
        return typer_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _build_app(commands):
    import click
    import typer
    from typer.core import TyperGroup

    class Group(TyperGroup):
        """Click's usage errors (unknown option, bad option value) rendered like every other
        error: `error: UsageError: MESSAGE` (or the JSON error object with --format json),
        exit code 2. A plain command line takes the fast path here too."""

        def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
            args = list(sys.argv[1:] if args is None else args)
            fast = _fast_args(args)
            if fast is not None:
                code = _call(*fast)
            else:
                code = self._click_main(args, prog_name, complete_var, **extra)
            if not standalone_mode:
                return code
            sys.exit(code or 0)

        def _click_main(self, args, prog_name, complete_var, **extra):
            if os.environ.get("NO_COLOR"):       # no-color.org: Typer's help then has no escapes at all
                from typer import rich_utils
                rich_utils.COLOR_SYSTEM = None
            try:
                return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            except click.exceptions.NoArgsIsHelpError as e:   # bare `diffcli`: the help, as Typer shows it
                from typer import rich_utils
                rich_utils.rich_format_error(e)
                return e.exit_code
            except click.ClickException as e:
                _usage_error(e, args)
                return e.exit_code
            except click.exceptions.Abort:
                sys.stderr.write("error: aborted\n")
                return ExitStatus.SCRIPT_FAILED

    app = typer.Typer(name="diffcli", cls=Group, add_completion=False, no_args_is_help=True,
                      suggest_commands=False,        # Click suggests already: once is enough
                      pretty_exceptions_enable=False,
                      context_settings={"help_option_names": ["-h", "--help"]},
                      help="diffcli: run a small script on a PyTorch-exact autograd engine and show "
                           "gradients, graphs and grad_fn names.")
    app.callback()(main_options)
    for command in commands:
        app.command()(command)
    return app


def _usage_error(e, args):
    from .lang.errors import ScriptError
    message = e.format_message()
    fmt = _format_in(args)
    err = ScriptError("UsageError", message)
    if fmt == "json":
        _emit("json", err, None, "")
        return
    text = f"error: UsageError: {message}"
    ctx = getattr(e, "ctx", None)
    if ctx is not None:
        path = ctx.command_path
    else:
        path = "diffcli" + (f" {args[0]}" if args and args[0] in ("grad", "graph", "run", "check") else "")
    text += f"\nTry '{path} --help' for help."
    sys.stderr.write(text + "\n")


def _format_in(args):
    """The --format the command line asked for (the last one wins, as in Click), if it can
    be told without Click's help (it failed)."""
    fmt = None
    for i, a in enumerate(args):
        if a in ("-f", "--format") and i + 1 < len(args):
            fmt = args[i + 1]
        elif a.startswith("--format="):
            fmt = a.split("=", 1)[1]
        elif a.startswith("-f") and not a.startswith("--") and len(a) > 2:
            fmt = a[2:]
    return fmt


def main():
    """The console entry point: the real process, whose standard streams may be closed,
    full or broken, and which may be interrupted at any moment (exit 130, no traceback)."""
    code = ExitStatus.OK
    try:
        outstream.guard_std_streams()
        fast = _fast_args(sys.argv[1:])
        if fast is None:
            typer_app()(prog_name="diffcli")
        else:
            code = _call(*fast) or 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except KeyboardInterrupt:
        code = _interrupted()
    except StdoutError as e:                # --help or --version: Click and rich write them
        code = _stdout_failed(e)
    except BrokenPipeError:
        _quiet_pipe()
        code = ExitStatus.SCRIPT_FAILED
    sys.exit(int(_flush_stdout(code)))
