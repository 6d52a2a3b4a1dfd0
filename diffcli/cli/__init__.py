"""The `diffcli` command line (Typer). It only parses options, calls `session`, and hands
the results to `render/`; errors are translated once (`running.py`) into messages and exit
codes (0 ok, 1 the script failed or check found a mismatch, 2 bad command line, syntax or
file, 3 an internal error).

Each option is declared once, as a row in `options.py`; the commands (`commands.py`) list
their rows, and both the Typer signatures and the fast argument reader (`fastargs.py`)
are made from them. Typer and Click are imported only when the Typer app is built
(`typer_app`): a plain command line takes the fast path. Anything else (help, --version,
a misspelt option, a value Click would refuse, ...) goes to the Typer app, so every help
text and usage error is Typer's own.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

from .. import __version__, outstream
from ..outstream import StdoutError
from .commands import COMMANDS
from .fastargs import FAST_OPTIONS
from .fastargs import call as _call
from .fastargs import fast_args as _fast_args
from .options import FLAG as _FLAG
from .options import MANY as _MULTIPLE
from .options import typer_signature
from .running import ExitStatus, _emit, _flush_stdout, _interrupted, _quiet_pipe, _stdout_failed

__all__ = ["COMMANDS", "FAST_OPTIONS", "ExitStatus", "_FLAG", "_MULTIPLE", "main", "typer_app"]


def _version(value: bool):
    if value:
        import typer

        typer.echo(f"diffcli {__version__}")
        raise typer.Exit()


def _option(*names, **settings):
    import typer

    return typer.Option(*names, **settings)


def main_options(
    version: Annotated[
        bool, _option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
):
    """diffcli: reverse-mode autodiff with PyTorch's semantics, from the shell."""


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
            if os.environ.get("NO_COLOR"):  # no-color.org: Typer's help then has no escapes at all
                from typer import rich_utils

                rich_utils.COLOR_SYSTEM = None
            try:
                return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            except click.exceptions.NoArgsIsHelpError as e:  # bare `diffcli`: the help, as Typer shows it
                from typer import rich_utils

                rich_utils.rich_format_error(e)
                return e.exit_code
            except click.ClickException as e:
                _usage_error(e, args)
                return e.exit_code
            except click.exceptions.Abort:
                sys.stderr.write("error: aborted\n")
                return ExitStatus.SCRIPT_FAILED

    app = typer.Typer(
        name="diffcli",
        cls=Group,
        add_completion=True,
        no_args_is_help=True,
        suggest_commands=False,  # Click suggests already: once is enough
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
        help="diffcli: run a small script on a PyTorch-exact autograd engine and show "
        "gradients, graphs and grad_fn names.",
    )
    app.callback()(main_options)
    for command in commands:
        command.__signature__ = typer_signature(command.options)
        app.command()(command)
    return app


def _usage_error(e, args):
    from ..lang.errors import ScriptError

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
        path = "diffcli" + (f" {args[0]}" if args and args[0] in COMMANDS else "")
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
    except StdoutError as e:  # --help or --version: Click and rich write them
        code = _stdout_failed(e)
    except BrokenPipeError:
        _quiet_pipe()
        code = ExitStatus.SCRIPT_FAILED
    sys.exit(int(_flush_stdout(code)))
