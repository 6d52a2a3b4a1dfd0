"""Every command-line option, declared once.

A row (`Opt`) gives an option's spellings, its parameter name, its type, its default and
its help. From the rows come both readers of a command line: the Typer signature of each
command (`typer_signature`, built only when the Typer app is built, so a plain command
line imports neither Typer nor Click) and the fast argument reader's table
(`FAST_OPTIONS`). Options shared by several commands are groups (`SOURCE`, `LIMITS`,
`REPORT`), as sqlite-utils declares its shared options; a command lists the groups and
its own rows. Adding a limit is one row in the interpreter's caps table (`diffcli.lang.caps.CAPS`),
from which both `Limits` and the `LIMITS` group are made.
"""

from __future__ import annotations

import enum
import re
from typing import Annotated, Optional

from ..lang.caps import CAPS


class GradFormat(str, enum.Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    tsv = "tsv"
    latex = "latex"  # with --symbolic


class GraphFormat(str, enum.Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    dot = "dot"
    mermaid = "mermaid"
    tree = "tree"
    svg = "svg"
    png = "png"
    html = "html"


class CheckFormat(str, enum.Enum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    junit = "junit"
    github = "github"


class MatrixFormat(str, enum.Enum):
    table = "table"
    json = "json"
    tsv = "tsv"


MULTIPLE = list  # the type of a repeatable option: a list of str, None when absent


class Opt:
    """One option. `names`: its spellings, the first one the main; `kind`: int, float, str,
    bool (a flag), MULTIPLE, or an Enum class; `param`: the keyword the command gets
    (default: the main name in snake case); `low`/`high`: a range Click enforces; `least`:
    a floor diffcli checks itself (a limit, with diffcli's own message). (A plain class,
    not a NamedTuple: it is made on every start.)"""

    __slots__ = ("names", "kind", "default", "help", "name", "metavar", "low", "high", "least")

    def __init__(self, names, kind, default, help, param="", metavar=None, low=None, high=None, least=None):
        self.names, self.kind, self.default, self.help = names, kind, default, help
        self.name = param or names[0].lstrip("-").replace("-", "_")
        self.metavar, self.low, self.high, self.least = metavar, low, high, least

    def __repr__(self):
        return f"Opt({self.names[0]})"


def opt(names, kind, default, help, **settings):
    return Opt(tuple(names.split()), kind, default, help, **settings)


def limit(name, default, help, metavar=None, least=1):
    return Opt((name,), int, default, help, metavar=metavar, least=least)


SCRIPT_HELP = "Script files or directories (their *.txt scripts, sorted), or '-' for standard input."
SOURCE = [
    opt("-e --expr", MULTIPLE, None, "The script text itself, instead of a file.", param="expr"),
    opt(
        "--set",
        MULTIPLE,
        None,
        "NAME=VALUE: give a free variable a value (a number or a list literal); repeatable.",
        param="set_",
        metavar="NAME=VALUE",
    ),
]
LIMITS = [  # one --max-* option per row of the interpreter's caps table (lang/caps.py)
    limit("--" + name.replace("_", "-"), default, help, metavar, least)
    for name, default, help, metavar, least in CAPS
]
REPORT = [
    opt(
        "--exit-zero",
        bool,
        False,
        "Exit 0 even when a script fails or a check finds a mismatch "
        "(report-only jobs); usage and internal errors still exit 2 and 3.",
    ),
]
LIMIT_NAMES = tuple(o.name for o in LIMITS)
MAX_SCRIPT_SIZE = next(o.default for o in LIMITS if o.name == "max_script_size")


def _fmt(enum_class):
    return opt("--format -f", enum_class, enum_class.table, "Output format.", param="fmt")


GRAD = [
    *SOURCE,
    opt("--of", str, None, "The tensor to differentiate (default: the last assigned name)."),
    opt("--wrt", str, None, "Comma-separated leaves to report; they are made to require grad."),
    opt("--retain-graph", bool, False, "Keep the graph's saved tensors after backward."),
    opt("--create-graph", bool, False, "Record the backward pass (gradients get a grad_fn)."),
    opt(
        "--grad-tensors",
        str,
        None,
        "The gradient for a non-scalar target: a literal or an expression such as ones_like(p).",
    ),
    opt("--repeat", int, 1, "Call backward N times (shows accumulation).", low=1, high=1000),
    opt(
        "--expect",
        str,
        None,
        "A JSON file written earlier by --format json: print the values that "
        "differ from it (name, index, old, new) and exit 1 on drift.",
        metavar="GOLDEN",
    ),
    opt("--rtol", float, 1e-7, "Relative tolerance of --expect."),
    opt("--atol", float, 0.0, "Absolute tolerance of --expect."),
    opt(
        "--symbolic",
        bool,
        False,
        "Each gradient as a formula in the script's variables (free ones need no value).",
    ),
    _fmt(GradFormat),
    *REPORT,
    *LIMITS,
]
GRAPH = [
    *SOURCE,
    opt("--of", str, None, "Show only the graph of this tensor."),
    opt("--backward", bool, False, "Run TARGET.backward() first and show grads."),
    _fmt(GraphFormat),
    opt("--columns", str, None, "Comma-separated table columns (default: id,name,node,inputs,shape,value)."),
    opt("--wide", bool, False, "The table with every column."),
    opt(
        "--depth",
        int,
        None,
        "Pictures: draw chains of more than N unnamed operators collapsed.",
        low=1,
        high=1_000_000,
    ),
    opt(
        "--max-nodes", int, 300, "svg, png, html: refuse to draw more nodes than this.", low=1, high=1_000_000
    ),
    *REPORT,
    *LIMITS,
]
RUN = [*SOURCE, *REPORT, *LIMITS]
CHECK = [
    *SOURCE,
    opt(
        "--of",
        str,
        None,
        "The tensor to check (default: the last assigned name); a non-scalar "
        "one has its whole Jacobian checked.",
    ),
    opt("--wrt", str, None, "Comma-separated leaves to check."),
    opt("--order", int, 1, "1: gradients; 2: also second derivatives.", low=1, high=2),
    opt(
        "--eps",
        float,
        None,
        "Finite-difference step (default: per dtype, 1e-6 for float64, "
        "1e-3 for float32; x100 and x10 for --order 2).",
    ),
    opt(
        "--atol", float, None, "Absolute tolerance (default: per dtype, 1e-5 for float64, 1e-3 for float32)."
    ),
    opt(
        "--rtol", float, None, "Relative tolerance (default: per dtype, 1e-4 for float64, 1e-2 for float32)."
    ),
    opt("--symbolic", bool, False, "Also compare each gradient with its formula (grad --symbolic)."),
    _fmt(CheckFormat),
    *REPORT,
    *LIMITS,
]

_WRT_ALL = "Comma-separated leaves to differentiate by (default: the leaves that require grad)."
JACOBIAN = [
    *SOURCE,
    opt("--of", str, None, "The tensor to differentiate (default: the last assigned name)."),
    opt("--wrt", str, None, _WRT_ALL),
    opt("--vjp", str, None, "Also v·J for this v (a literal shaped like the target), per input."),
    opt("--jvp", str, None, "Also J·u for this u (a literal shaped like the one --wrt input)."),
    _fmt(MatrixFormat),
    *REPORT,
    *LIMITS,
]
HESSIAN = [
    *SOURCE,
    opt(
        "--of", str, None, "The one-element tensor to differentiate twice (default: the last assigned name)."
    ),
    opt("--wrt", str, None, _WRT_ALL),
    _fmt(MatrixFormat),
    *REPORT,
    *LIMITS,
]


# --- the Typer side (evaluated only when the Typer app is built) ----------------------
def typer_signature(options):
    """The `inspect.Signature` Typer reads for a command taking SCRIPT... and `options`."""
    import inspect

    import typer

    python_type = {MULTIPLE: Optional[list[str]], str: Optional[str]}  # (typing is slow at start-up)

    def parameter(o):
        settings = {"help": o.help}
        if o.metavar:
            settings["metavar"] = o.metavar
        if o.low is not None:
            settings.update(min=o.low, max=o.high)
        kind = python_type.get(o.kind, o.kind)
        if o.default is None and o.kind in (int, float):
            kind = Optional[o.kind]
        return inspect.Parameter(
            o.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=o.default,
            annotation=Annotated[kind, typer.Option(*o.names, **settings)],
        )

    script = inspect.Parameter(
        "script",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[Optional[list[str]], typer.Argument(help=SCRIPT_HELP, show_default=False)],
    )
    return inspect.Signature([script, *map(parameter, options)])


# --- the fast reader's side --------------------------------------------------------
FLAG = "flag"  # takes no value
MANY = "many"  # repeatable: a list of str, None when absent (as Typer passes it)
_DECIMAL = r"([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?"


def number(text):
    """A float as Click's FLOAT reads it, for plain decimal spellings only."""
    if not re.fullmatch(_DECIMAL, text):
        raise ValueError(text)
    return float(text)


def integer(low=None, high=None):
    """An int as Click's INT (or IntRange) reads it, for plain ASCII digits only."""

    def convert(text):
        if not re.fullmatch("[0-9]+", text):
            raise ValueError(text)
        value = int(text)
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(text)  # out of range: Click words this error
        return value

    return convert


def choice(enum_class):
    def convert(text):
        return enum_class(text)  # ValueError unless it is one of the values exactly

    return convert


def reader(o):
    """How the fast reader reads the value of option `o`."""
    if o.kind is bool:
        return FLAG
    if o.kind is MULTIPLE:
        return MANY
    if o.kind is int:
        return integer(o.low, o.high)
    if o.kind is float:
        return number
    if o.kind is str:
        return str
    return choice(o.kind)


def fast_table(options):
    """{spelling: (parameter, how its value is read)} for the fast reader."""
    return {name: (o.name, reader(o)) for o in options for name in o.names}


def defaults(options):
    """The keyword arguments of a command line that gives no option."""
    return {"script": None, **{o.name: o.default for o in options}}
