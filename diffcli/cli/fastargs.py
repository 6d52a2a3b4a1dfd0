"""The fast path: plain command lines read without Click.

A plain command line, one that names a command and gives only its options in their
usual spelling, does not need Typer or Click at all: `fast_args` reads it as Click would
(from the same option rows as the Typer signatures) and `call` runs the command
directly, which saves about a tenth of a short command's run. Anything else goes to the
Typer app. `tests/cli/test_fast_args.py` checks that both read every command line the
same way.
"""

from __future__ import annotations

import os
import sys

from . import options as O
from .commands import COMMANDS

FAST_OPTIONS = {name: O.fast_table(fn.options) for name, fn in COMMANDS.items()}


def fast_args(args):
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
    values = O.defaults(COMMANDS[args[0]].options)
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
        if read is O.FLAG:
            if equals:
                return None
            values[parameter] = True
            continue
        if not equals:
            value = next(rest, None)
        if not value or value.startswith("-"):
            return None
        if read is O.MANY:
            values[parameter] = (values[parameter] or []) + [value]
            continue
        try:
            values[parameter] = read(value)
        except ValueError:
            return None
    return args[0], values


def call(command, values):
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
