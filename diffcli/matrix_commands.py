"""The `diffcli jacobian` and `diffcli hessian` commands (the work is in `jacobians.py`, the
output in `render/matrix.py`).

`cli.py` registers them with `register(cli)`, which hands this module the shared pieces
of every command (the script options, the limits, the error handling), so that this module
never imports `cli` (no import cycle) and `cli` gains two lines. The signatures are strings
(`from __future__ import annotations`) that Typer evaluates in this module's namespace
when it builds the app, so the shared option helpers are bound here by `register` too.
"""

from __future__ import annotations

import enum
import sys
from typing import Annotated, Optional  # noqa: F401  (the signatures name them)

_SHARED = ("_option", "_argument", "_limit", "SCRIPT_HELP", "EXPR_HELP", "SET_HELP")
# bound by register() to cli's own (the signatures below name them)
_option = _argument = _limit = None
SCRIPT_HELP = EXPR_HELP = SET_HELP = ""
_cli = None


class MatrixFormat(str, enum.Enum):
    table = "table"
    json = "json"
    tsv = "tsv"


def register(cli) -> None:
    """Add the commands to `cli.COMMANDS` and their options to `cli.FAST_OPTIONS`."""
    global _cli
    _cli = cli
    globals().update({name: getattr(cli, name) for name in _SHARED})
    jacobian, hessian = _commands(cli)
    cli.COMMANDS.update(jacobian=jacobian, hessian=hessian)
    formats = {"-f": ("fmt", cli._choice(MatrixFormat)), "--format": ("fmt", cli._choice(MatrixFormat))}
    common = {**cli._SHARED, "--of": ("of", str), "--wrt": ("wrt", str), **formats}
    cli.FAST_OPTIONS.update(jacobian={**common, "--vjp": ("vjp", str), "--jvp": ("jvp", str)}, hessian=common)


def _command(kind, script, expr, set_, of, wrt, fmt, limits, vjp=None, jvp=None):
    c = _cli

    def body():
        from . import jacobians, session
        from .outstream import write_document

        s, names, opts = c._prepare(script, expr, set_, wrt, *limits)
        c._refuse_empty(s, "there is nothing to differentiate")
        opts.retain_graphs = True  # the script's own backward() must leave the graph to differentiate
        warn = c._warner(fmt.value, s.filename)
        run = c._script_errors(s, lambda: session.execute(s, opts, write=c._stderr_write, on_warning=warn))
        c._known_names(run, s, of=of, wrt=names)
        c._unused_sets(run, opts, warn)
        target = of or run.result.last_assigned
        if target is None:
            raise c._Fail(
                c.ExitStatus.SCRIPT_FAILED,
                c._err("ValueError", "the script assigns no name to differentiate (give --of NAME)"),
                s,
            )
        if kind == "jacobian":
            report = c._script_errors(
                s, lambda: jacobians.jacobian(run, target, names, vjp, jvp, of is not None)
            )
        else:
            report = c._script_errors(s, lambda: jacobians.hessian(run, target, names, of is not None))
        from .render import matrix

        if fmt is MatrixFormat.json:
            write_document(matrix.matrix_json(report) + "\n")
        elif fmt is MatrixFormat.tsv:
            write_document(matrix.matrix_tsv(report))
        else:
            matrix.matrix_table(report, sys.stdout)
        return c.ExitStatus.OK

    return c._run_command(fmt.value, body)


def _commands(cli):
    """The two command functions, their defaults the shared ones of `cli`."""
    MAX_ELEMENTS, MAX_ITERATIONS, MAX_STATEMENTS, MAX_DEPTH, MAX_MEMORY, TIMEOUT, MAX_SCRIPT_SIZE = (
        cli.MAX_ELEMENTS,
        cli.MAX_ITERATIONS,
        cli.MAX_STATEMENTS,
        cli.MAX_DEPTH,
        cli.MAX_MEMORY,
        cli.TIMEOUT,
        cli.MAX_SCRIPT_SIZE,
    )

    def jacobian(script: Annotated[Optional[str], _argument(help=SCRIPT_HELP, show_default=False)] = None,
                 expr: Annotated[Optional[list[str]], _option("-e", "--expr", help=EXPR_HELP)] = None,
                 set_: Annotated[Optional[list[str]], _option("--set", help=SET_HELP, metavar="NAME=VALUE")] = None,
                 of: Annotated[Optional[str], _option("--of", help="The tensor to differentiate (default: the last assigned name).")] = None,
                 wrt: Annotated[Optional[str], _option("--wrt", help="Comma-separated leaves to differentiate by (default: the leaves that require grad).")] = None,
                 vjp: Annotated[Optional[str], _option("--vjp", help="Also v·J for this v (a literal shaped like the target), per input.")] = None,
                 jvp: Annotated[Optional[str], _option("--jvp", help="Also J·u for this u (a literal shaped like the one --wrt input).")] = None,
                 fmt: Annotated[MatrixFormat, _option("--format", "-f", help="Output format.")] = MatrixFormat.table,
                 max_elements: Annotated[int, _limit("--max-elements")] = MAX_ELEMENTS,
                 max_iterations: Annotated[int, _limit("--max-iterations")] = MAX_ITERATIONS,
                 max_statements: Annotated[int, _limit("--max-statements")] = MAX_STATEMENTS,
                 max_depth: Annotated[int, _limit("--max-depth")] = MAX_DEPTH,
                 max_memory: Annotated[int, _limit("--max-memory")] = MAX_MEMORY,
                 timeout: Annotated[int, _limit("--timeout")] = TIMEOUT,
                 max_script_size: Annotated[int, _limit("--max-script-size")] = MAX_SCRIPT_SIZE):  # fmt: skip
        """The Jacobian of TARGET with respect to the leaves, as torch.autograd.functional.jacobian."""
        return _command("jacobian", script, expr, set_, of, wrt, fmt, (max_elements, max_iterations, max_statements,
                        max_depth, max_memory, timeout, max_script_size), vjp, jvp)  # fmt: skip

    def hessian(script: Annotated[Optional[str], _argument(help=SCRIPT_HELP, show_default=False)] = None,
                expr: Annotated[Optional[list[str]], _option("-e", "--expr", help=EXPR_HELP)] = None,
                set_: Annotated[Optional[list[str]], _option("--set", help=SET_HELP, metavar="NAME=VALUE")] = None,
                of: Annotated[Optional[str], _option("--of", help="The one-element tensor to differentiate twice (default: the last assigned name).")] = None,
                wrt: Annotated[Optional[str], _option("--wrt", help="Comma-separated leaves to differentiate by (default: the leaves that require grad).")] = None,
                fmt: Annotated[MatrixFormat, _option("--format", "-f", help="Output format.")] = MatrixFormat.table,
                max_elements: Annotated[int, _limit("--max-elements")] = MAX_ELEMENTS,
                max_iterations: Annotated[int, _limit("--max-iterations")] = MAX_ITERATIONS,
                max_statements: Annotated[int, _limit("--max-statements")] = MAX_STATEMENTS,
                max_depth: Annotated[int, _limit("--max-depth")] = MAX_DEPTH,
                max_memory: Annotated[int, _limit("--max-memory")] = MAX_MEMORY,
                timeout: Annotated[int, _limit("--timeout")] = TIMEOUT,
                max_script_size: Annotated[int, _limit("--max-script-size")] = MAX_SCRIPT_SIZE):  # fmt: skip
        """The Hessian of a one-element TARGET with respect to the leaves, blocks as torch.autograd.functional.hessian."""
        return _command("hessian", script, expr, set_, of, wrt, fmt, (max_elements, max_iterations, max_statements,
                        max_depth, max_memory, timeout, max_script_size))  # fmt: skip

    return jacobian, hessian
