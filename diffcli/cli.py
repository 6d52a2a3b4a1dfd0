"""The `diffcli` command line (Typer). It only parses options, calls `session`, and hands
the results to `render/`; errors are translated once, here, into messages and exit codes
(0 ok, 1 the script failed or check found a mismatch, 2 bad command line/syntax/file)."""
from __future__ import annotations

import enum
import math
import os
import sys
from typing import List, Optional

import click
import typer
from typer.core import TyperGroup

from . import __version__


class _Group(TyperGroup):
    """Click's usage errors (unknown option, bad option value) rendered like every other
    error: `error: UsageError: MESSAGE` (or the JSON error object with --format json),
    exit code 2."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        args = list(sys.argv[1:] if args is None else args)
        if os.environ.get("NO_COLOR"):       # no-color.org: Typer's help then has no escapes at all
            from typer import rich_utils
            rich_utils.COLOR_SYSTEM = None
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:   # bare `diffcli`: the help, as Typer shows it
            from typer import rich_utils
            rich_utils.rich_format_error(e)
            code = e.exit_code
        except click.ClickException as e:
            _usage_error(e, args)
            code = e.exit_code
        except click.exceptions.Abort:
            sys.stderr.write("error: aborted\n")
            code = ExitStatus.SCRIPT_FAILED
        if not standalone_mode:
            return code
        sys.exit(code or 0)


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


app = typer.Typer(name="diffcli", cls=_Group, add_completion=False, no_args_is_help=True,
                  pretty_exceptions_enable=False,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  help="diffcli: run a small script on a PyTorch-exact autograd engine and show "
                       "gradients, graphs and grad_fn names.")


class ExitStatus(enum.IntEnum):
    OK = 0
    SCRIPT_FAILED = 1
    USAGE = 2


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


def _version(value: bool):
    if value:
        typer.echo(f"diffcli {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                              help="Show the version and exit.")):
    """diffcli: reverse-mode autodiff with PyTorch's semantics, from the shell."""


# --- shared options ---------------------------------------------------------------
SCRIPT = typer.Argument(None, help="Script file, or '-' for standard input.", show_default=False)
EXPR = typer.Option(None, "-e", "--expr", help="The script text itself, instead of a file.")
SET = typer.Option(None, "--set", help="NAME=VALUE: give a free variable a value (a number or a "
                   "list literal); repeatable.", metavar="NAME=VALUE")
MAX_ELEMENTS = typer.Option(10_000_000, "--max-elements", help="Cap on the elements of one tensor.")
MAX_ITERATIONS = typer.Option(10_000_000, "--max-iterations", help="Cap on loop iterations.")
MAX_STATEMENTS = typer.Option(1_000_000, "--max-statements", help="Cap on statements executed.")
MAX_DEPTH = typer.Option(100, "--max-depth", help="Cap on function-call nesting.")
MAX_MEMORY = typer.Option(4096, "--max-memory", metavar="MB",
                          help="Cap on the memory the script's tensors hold, in MB.")


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


def _options(sets, wrt=(), trace=False, max_elements=10_000_000, max_iterations=10_000_000,
             max_statements=1_000_000, max_depth=100, max_memory=4096):
    from .lang.interpreter import Limits
    from .session import Options
    for v, opt in ((max_elements, "--max-elements"), (max_iterations, "--max-iterations"),
                   (max_statements, "--max-statements"), (max_depth, "--max-depth"),
                   (max_memory, "--max-memory")):
        if v < 1:
            raise _Usage(f"{opt} must be at least 1, got {v}")
    limits = Limits(max_elements, max_iterations, max_statements, max_depth, max_memory)
    try:
        return Options(_parse_sets(sets), wrt=wrt, limits=limits, trace=trace)
    except ValueError as e:
        raise _Usage(str(e)) from None


def _prepare(script, expr, sets, wrt, *limits, trace=False):
    """What every command does first: read SCRIPT, split --wrt, build the options."""
    from . import source as src
    s = src.load(script, expr)
    names = tuple(n.strip() for n in wrt.split(",") if n.strip()) if wrt else ()
    limit_names = ("max_elements", "max_iterations", "max_statements", "max_depth", "max_memory")
    return s, names, _options(sets, names, trace=trace, **dict(zip(limit_names, limits)))


def _run_command(fmt, body):
    """Run `body()`, rendering any failure on stderr with the right exit code."""
    import warnings

    from .engine import errors as engine_errors
    from .lang.errors import ScriptError
    from .source import SourceError
    status = ExitStatus.OK
    recursion_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(recursion_limit, 20000))
    engine_errors.reset_warn_once()          # each command is one "process" for warn-once
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # library warnings are not the script's warnings
            status = body()
    except SourceError as e:
        err = ScriptError("FileError" if e.filename else "UsageError", e.message)
        _emit(fmt, err, None, e.filename)
        status = ExitStatus.USAGE
    except _Usage as e:
        err = ScriptError("UsageError", str(e))
        _emit(fmt, err, None, "")
        status = ExitStatus.USAGE
    except _Fail as f:
        _emit(fmt, f.err, f.source, f.source.filename if f.source else "")
        status = f.status
    except BrokenPipeError:
        _quiet_pipe()
        status = ExitStatus.SCRIPT_FAILED
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        status = 130
    except RecursionError:
        _emit(fmt, ScriptError("LimitError", "nested too deeply"), None, "")
        status = ExitStatus.SCRIPT_FAILED
    except MemoryError:
        _emit(fmt, ScriptError("MemoryError", "out of memory"), None, "")
        status = ExitStatus.SCRIPT_FAILED
    except Exception as e:  # a bug in diffcli: still no traceback, but say so
        _emit(fmt, ScriptError("InternalError", f"{type(e).__name__}: {e} (this is a diffcli bug)"),
              None, "")
        status = ExitStatus.SCRIPT_FAILED
    finally:
        sys.setrecursionlimit(recursion_limit)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_pipe()
    raise typer.Exit(int(status))


def _quiet_pipe():
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def _emit(fmt, err, source, filename):
    from .render.errors import error_text
    from .render.jsonout import error_json
    if fmt == "json":
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
@app.command()
def grad(script: Optional[str] = SCRIPT, expr: Optional[str] = EXPR, set_: Optional[List[str]] = SET,
         of: Optional[str] = typer.Option(None, "--of", help="The tensor to differentiate (default: the last assigned name)."),
         wrt: Optional[str] = typer.Option(None, "--wrt", help="Comma-separated leaves to report; they are made to require grad."),
         retain_graph: bool = typer.Option(False, "--retain-graph", help="Keep the graph's saved tensors after backward."),
         create_graph: bool = typer.Option(False, "--create-graph", help="Record the backward pass (gradients get a grad_fn)."),
         grad_tensors: Optional[str] = typer.Option(None, "--grad-tensors", help="The gradient for a non-scalar target: a literal or an expression such as ones_like(p)."),
         repeat: int = typer.Option(1, "--repeat", min=1, max=1000, help="Call backward N times (shows accumulation)."),
         fmt: GradFormat = typer.Option(GradFormat.table, "--format", "-f", help="Output format."),
         max_elements: int = MAX_ELEMENTS, max_iterations: int = MAX_ITERATIONS,
         max_statements: int = MAX_STATEMENTS, max_depth: int = MAX_DEPTH,
         max_memory: int = MAX_MEMORY):
    """Run SCRIPT, call TARGET.backward(), and report the leaves' gradients."""
    def body():
        from . import session
        from .render import jsonout, table, text
        s, names, opts = _prepare(script, expr, set_, wrt, max_elements, max_iterations,
                                  max_statements, max_depth, max_memory)
        warn = _warner(fmt.value, s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=_stderr_write, on_warning=warn))
        _known_names(run, s, of=of, wrt=names)
        target = of or run.result.last_assigned
        if of is None and run.result.called_backward:
            sys.stderr.write("note: the script calls backward()/grad() itself, so no backward was "
                             "added (give --of NAME to add one)\n")
            if not isinstance(run.env.get(target), session.Tensor):
                target = None         # the last assigned name is no tensor: report leaves only
        elif target is None:
            raise _Fail(ExitStatus.SCRIPT_FAILED, _err("ValueError", "the script assigns no name to "
                                                       "differentiate (give --of NAME)"), s)
        else:
            def do_backward():
                gt = session.grad_tensors_value(grad_tensors, run, opts) if grad_tensors else None
                session.run_backward(run, target, gt, retain_graph, create_graph, repeat, on_warning=warn,
                                     explicit=of is not None)
            _script_errors(s, do_backward)
        report = _script_errors(s, lambda: session.grad_report(run, target, names, explicit=of is not None))
        if fmt is GradFormat.json:
            sys.stdout.write(jsonout.grad_json(report) + "\n")
        elif fmt is GradFormat.tsv:
            sys.stdout.write(text.grad_tsv(report))
        else:
            table.grad_table(report)
        return ExitStatus.OK
    _run_command(fmt.value, body)


def _known_names(run, source, of=None, wrt=()):
    """--of and --wrt must name something the script defines: else a command-line error."""
    for opt, names in (("--of", [of] if of else []), ("--wrt", list(wrt))):
        for name in names:
            if name not in run.env:
                raise _Fail(ExitStatus.USAGE, _err("UsageError", f"{opt} {name}: the script defines "
                                                   f"no name '{name}'"), source)


def _err(type_name, message):
    from .lang.errors import ScriptError
    return ScriptError(type_name, message)


@app.command()
def graph(script: Optional[str] = SCRIPT, expr: Optional[str] = EXPR, set_: Optional[List[str]] = SET,
          of: Optional[str] = typer.Option(None, "--of", help="Show only the graph of this tensor."),
          backward: bool = typer.Option(False, "--backward", help="Run TARGET.backward() first and show grads."),
          fmt: GraphFormat = typer.Option(GraphFormat.table, "--format", "-f", help="Output format."),
          max_elements: int = MAX_ELEMENTS, max_iterations: int = MAX_ITERATIONS,
          max_statements: int = MAX_STATEMENTS, max_depth: int = MAX_DEPTH,
          max_memory: int = MAX_MEMORY):
    """Show the computation graph of SCRIPT: one row per node, inputs first."""
    def body():
        from . import session
        from .render import jsonout, table, text
        s, _, opts = _prepare(script, expr, set_, None, max_elements, max_iterations,
                              max_statements, max_depth, max_memory, trace=True)
        warn = _warner(fmt.value, s.filename)
        run = _script_errors(s, lambda: session.execute(s, opts, write=_stderr_write, on_warning=warn))
        _known_names(run, s, of=of)
        target = of or (run.result.last_assigned if backward else None)
        if backward and of is None and run.result.called_backward:
            sys.stderr.write("note: the script calls backward()/grad() itself, so no backward was "
                             "added (give --of NAME to add one)\n")
        elif backward:
            if target is None:
                raise _Fail(ExitStatus.SCRIPT_FAILED, _err("ValueError", "nothing to differentiate (give --of NAME)"), s)
            _script_errors(s, lambda: session.run_backward(run, target, retain_graph=True, on_warning=warn))
        nodes = _script_errors(s, lambda: session.build_graph(run, of))
        if fmt is GraphFormat.json:
            sys.stdout.write(jsonout.graph_json(nodes) + "\n")
        elif fmt is GraphFormat.dot:
            sys.stdout.write(text.graph_dot(nodes))
        elif fmt is GraphFormat.mermaid:
            sys.stdout.write(text.graph_mermaid(nodes))
        elif fmt is GraphFormat.tree:
            sys.stdout.write(text.graph_tree(nodes))
        else:
            table.graph_table(nodes, show_grad=backward)
        return ExitStatus.OK
    _run_command(fmt.value, body)


@app.command()
def run(script: Optional[str] = SCRIPT, expr: Optional[str] = EXPR, set_: Optional[List[str]] = SET,
        max_elements: int = MAX_ELEMENTS, max_iterations: int = MAX_ITERATIONS,
        max_statements: int = MAX_STATEMENTS, max_depth: int = MAX_DEPTH,
        max_memory: int = MAX_MEMORY):
    """Execute SCRIPT, showing its print output exactly."""
    def body():
        from . import session
        s, _, opts = _prepare(script, expr, set_, None, max_elements, max_iterations,
                              max_statements, max_depth, max_memory)

        def write(text):
            sys.stdout.write(text)
        _script_errors(s, lambda: session.execute(s, opts, write=write, on_warning=_warner("table", s.filename)))
        return ExitStatus.OK
    _run_command("table", body)


@app.command()
def check(script: Optional[str] = SCRIPT, expr: Optional[str] = EXPR, set_: Optional[List[str]] = SET,
          of: Optional[str] = typer.Option(None, "--of", help="The tensor to check (default: the last assigned name)."),
          wrt: Optional[str] = typer.Option(None, "--wrt", help="Comma-separated leaves to check."),
          order: int = typer.Option(1, "--order", min=1, max=2, help="1: gradients; 2: also second derivatives."),
          eps: float = typer.Option(1e-6, "--eps", help="Finite-difference step."),
          atol: float = typer.Option(1e-5, "--atol", help="Absolute tolerance."),
          rtol: float = typer.Option(1e-4, "--rtol", help="Relative tolerance."),
          fmt: CheckFormat = typer.Option(CheckFormat.table, "--format", "-f", help="Output format."),
          max_elements: int = MAX_ELEMENTS, max_iterations: int = MAX_ITERATIONS,
          max_statements: int = MAX_STATEMENTS, max_depth: int = MAX_DEPTH,
          max_memory: int = MAX_MEMORY):
    """Compare analytic gradients with central finite differences; exit 1 on a mismatch."""
    def body():
        from . import session
        from .render import jsonout, table
        s, names, opts = _prepare(script, expr, set_, wrt, max_elements, max_iterations,
                                  max_statements, max_depth, max_memory)
        if not (math.isfinite(eps) and eps > 0):
            raise _Usage(f"--eps must be a finite number greater than 0, got {eps}")
        for value, opt in ((atol, "--atol"), (rtol, "--rtol")):
            if not (math.isfinite(value) and value >= 0):
                raise _Usage(f"{opt} must be a finite number of at least 0, got {value}")
        warn = _warner(fmt.value, s.filename)
        target, rows = _script_errors(s, lambda: session.check(s, opts, of, order, eps, atol, rtol,
                                                               write=_stderr_write, on_warning=warn))
        if fmt is CheckFormat.json:
            sys.stdout.write(jsonout.check_json(target, rows) + "\n")
        else:
            table.check_table(target, rows)
        bad = [f"{r.name} (order {r.order})" for r in rows if not r.ok]
        if bad:
            sys.stdout.flush()
            _emit(fmt.value, _err("GradcheckError", f"analytic and finite-difference gradients of "
                                  f"'{target}' differ for {', '.join(bad)}"), s, s.filename)
            return ExitStatus.SCRIPT_FAILED
        return ExitStatus.OK
    _run_command(fmt.value, body)


def main():
    try:
        app(prog_name="diffcli")
    except BrokenPipeError:
        _quiet_pipe()
        sys.exit(1)
