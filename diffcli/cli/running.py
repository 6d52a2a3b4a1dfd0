"""What every command shares: reading SCRIPT and the options into a session's Options,
running the command's body with every failure translated once into a message on stderr
and an exit status (`ExitStatus`), warnings, and the name checks of --of and --wrt."""

from __future__ import annotations

import enum
import os
import sys

from ..outstream import StdoutError
from .options import LIMITS, MAX_SCRIPT_SIZE

_FRAMES = 20_000  # Python frames a command may nest (scripts meet their own caps first)
_STACK = 64 << 20  # bytes of C stack those frames take at most on Python 3.10


def python_frames() -> int:
    """The recursion limit a command runs under. Python 3.11 nests Python calls without
    the C stack; 3.10 takes C stack for each, and 20,000 of the interpreter's frames
    overflow Linux's default 8 MB (a crash, not a RecursionError). There the main
    thread's stack may grow to 64 MB (the soft limit is read when it grows; the kernel
    keeps at least 128 MB free below it), or, where that is refused, half the frames."""
    if sys.version_info >= (3, 11):
        return _FRAMES
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        infinite = resource.RLIM_INFINITY
        if soft != infinite and soft < _STACK and (hard == infinite or hard >= _STACK):
            resource.setrlimit(resource.RLIMIT_STACK, (_STACK, hard))
            soft = _STACK
        if soft == infinite or soft >= _STACK:
            return _FRAMES
    except (ImportError, ValueError, OSError):
        pass
    return _FRAMES // 2


class ExitStatus(enum.IntEnum):
    OK = 0
    SCRIPT_FAILED = 1
    USAGE = 2
    INTERNAL = 3
    INTERRUPTED = 130


class _Usage(Exception):
    """A bad option value found after Click's own checks (--set, --eps...): exit 2."""


class _Fail(Exception):
    def __init__(self, status, err=None, source=None):
        self.status, self.err, self.source = status, err, source


def _parse_sets(items):
    from ..lang.interpreter import variable
    from ..session import parse_literal

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
            variable(out[name])  # a ragged list is refused here, not mid-run
        except Exception as e:
            raise ValueError(f"--set {name}: {e}") from None
    return out


def _options(sets, wrt=(), trace=False, **limits):
    """The session's Options: --set values parsed, and the caps (`LIMITS`, by parameter
    name) checked against each row's floor."""
    from ..lang.limits import Limits
    from ..session import Options

    caps = {o.name: limits.get(o.name, o.default) for o in LIMITS}
    for o in LIMITS:
        if caps[o.name] < o.least:
            none = " (0: none)" if o.least == 0 else ""
            raise _Usage(f"{o.names[0]} must be at least {o.least}{none}, got {caps[o.name]}")
    try:
        return Options(_parse_sets(sets), wrt=wrt, limits=Limits(**caps), trace=trace)
    except ValueError as e:
        raise _Usage(str(e)) from None


def _prepare(script, expr, sets, wrt, limits, trace=False):
    """What every command does first: read SCRIPT, split --wrt, build the options.
    `limits`: the command's keyword arguments (its LIMITS rows are read from them)."""
    from .. import source as src

    if expr and len(expr) > 1:
        raise _Usage(
            f"-e/--expr given {len(expr)} times: give the script once (separate its "
            "statements with ';' or newlines)"
        )
    caps = {o.name: limits[o.name] for o in LIMITS if o.name in limits}
    size = caps.get("max_script_size", MAX_SCRIPT_SIZE)
    if size < 1:
        raise _Usage(f"--max-script-size must be at least 1, got {size}")
    s = src.load(script, expr[0] if expr else None, size * src.MB)
    names = tuple(n.strip() for n in wrt.split(",") if n.strip()) if wrt else ()
    return s, names, _options(sets, names, trace=trace, **caps)


def _run_command(fmt, body, filename=None):
    """Run `body()`, rendering any failure on stderr (with --format jsonl: as the script's
    line on stdout); the exit status. `filename`: the script's, for that line."""
    LAST_ERROR[:] = [None, filename]
    import warnings

    from ..engine import dtypes
    from ..engine import errors as engine_errors
    from ..lang.errors import ScriptError
    from ..source import SourceError

    status = ExitStatus.OK
    recursion_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(recursion_limit, python_frames()))
    engine_errors.reset_warn_once()  # each command is one "process" for warn-once
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
        _internal_error(fmt, e)
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

    from ..outstream import describe, silence_stdout

    silence_stdout()
    if e.errno != errno.EPIPE:
        from ..lang.errors import ScriptError

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


LAST_ERROR = [None, None]  # [the last error's text, the script's name] (for junit/github reports)
INTERNAL_HINT = (
    "hint: this is a bug in diffcli {version}, not in your script: please report it "
    "with the command line and the script"
)


def _emit(fmt, err, source, filename):
    from ..render.errors import error_text

    text = error_text(err, source)
    LAST_ERROR[0] = text.splitlines()[0].removeprefix("error: ")
    if fmt == "jsonl":  # the script's one line on stdout
        import json

        from ..render.jsonout import error_json

        record = json.loads(error_json(err, filename or LAST_ERROR[1] or None))
        sys.stdout.write(json.dumps({"file": filename or LAST_ERROR[1] or None, **record}) + "\n")
    elif fmt == "json":
        from ..render.jsonout import error_json

        sys.stderr.write(error_json(err, filename or None) + "\n")
    else:
        sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _internal_error(fmt, e):
    """An uncaught exception inside diffcli: `error: internal error` and a one-line hint,
    never a traceback (exit 3)."""
    from .. import __version__

    hint = INTERNAL_HINT.format(version=__version__)
    LAST_ERROR[0] = f"internal error: {type(e).__name__}: {e}"
    if fmt in ("json", "jsonl"):
        import json

        record = {
            "error": {
                "type": "InternalError",
                "message": f"internal error: {type(e).__name__}: {e}",
                "file": LAST_ERROR[1] or None,
                "line": None,
                "column": None,
                "hint": hint.removeprefix("hint: "),
            }
        }
        stream = sys.stdout if fmt == "jsonl" else sys.stderr
        stream.write(json.dumps({"file": LAST_ERROR[1], **record} if fmt == "jsonl" else record) + "\n")
    else:
        sys.stderr.write(f"error: internal error: {type(e).__name__}: {e}\n{hint}\n")
    sys.stderr.flush()


def script_paths(scripts):
    """SCRIPT arguments: files as given, a directory as the *.txt scripts in it (sorted, not
    recursive; one with none stays itself, for its error); none: [None] (stdin or -e)."""
    from pathlib import Path

    if not scripts:
        return [None]
    out = []
    for p in scripts:
        if p not in ("", "-") and os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).glob("*.txt") if f.is_file())
            out.extend(found or [p])
        else:
            out.append(p)
    return out


def each(a, fmt, one, on_failure=None):
    """Run `one(path)` for every script of `a.script`, each as one command run; the worst
    exit status (--exit-zero: a failed script or check exits 0). Several scripts in a
    format for people: each output after a `==> SCRIPT <==` line, as `head` does."""
    paths = script_paths(a.script)
    worst = ExitStatus.OK
    for i, path in enumerate(paths):
        if len(paths) > 1 and fmt not in ("json", "jsonl", "junit", "github"):
            sys.stdout.write(("\n" if i else "") + f"==> {path} <==\n")
        status = _run_command(fmt, lambda path=path: one(path), filename=path)
        if status != ExitStatus.OK and on_failure is not None:
            on_failure(path, LAST_ERROR[0])
        worst = max(worst, status)
        if status == ExitStatus.INTERRUPTED:
            break
    if getattr(a, "exit_zero", False) and worst == ExitStatus.SCRIPT_FAILED:
        worst = ExitStatus.OK
    return int(worst)


def emit_doc(fmt, filename, doc):
    """A command's JSON document: indented (json), or one line with "file" (jsonl)."""
    from ..outstream import write_document
    from ..render.jsonout import dumps, plain

    if fmt == "jsonl":
        import json

        write_document(json.dumps(plain({"file": filename, **doc}), allow_nan=False) + "\n")
    else:
        write_document(dumps(doc) + "\n")


def _script_errors(source, fn):
    """Call fn(), turning ScriptErrors into _Fail with the right status."""
    from ..lang.errors import ScriptError

    try:
        return fn()
    except ScriptError as e:
        raise _Fail(ExitStatus.USAGE if e.is_syntax else ExitStatus.SCRIPT_FAILED, e, source) from None


def _warner(fmt, filename):
    from ..render.errors import warning_text

    def on_warning(w):
        if fmt in ("json", "jsonl"):
            import json

            sys.stderr.write(
                json.dumps(
                    {
                        "warning": {
                            "type": w.category,
                            "message": w.message,
                            "file": filename,
                            "line": w.line or None,
                        }
                    }
                )
                + "\n"
            )
        else:
            sys.stderr.write(warning_text(w, filename) + "\n")

    return on_warning


def _stderr_write(text):
    sys.stderr.write(text)


def _known_names(run, source, of=None, wrt=()):
    """--of and --wrt must name something the script defines, and --wrt a leaf tensor: else
    a command-line error (exit 2), as for any option that names a thing that is not there."""
    for opt, names in (("--of", [of] if of else []), ("--wrt", list(wrt))):
        for name in names:
            if name not in run.env:
                raise _Fail(
                    ExitStatus.USAGE,
                    _err("UsageError", f"{opt} {name}: the script defines no name '{name}'"),
                    source,
                )
    for name in wrt:
        value = run.env[name]
        from ..session import Tensor

        if not isinstance(value, Tensor) or value.grad_fn is not None:
            from ..lang.values import type_name

            what = (
                f"computed by {value.grad_fn.name()}"
                if isinstance(value, Tensor)
                else f"a {type_name(value)}"
            )
            leaves = ", ".join(n for n, _ in run.leaves()) or "none"
            raise _Fail(
                ExitStatus.USAGE,
                _err(
                    "UsageError",
                    f"--wrt {name}: '{name}' is not a leaf "
                    f"tensor ({what}); --wrt takes the script's leaves "
                    f"(here: {leaves})",
                ),
                source,
            )


def _unused_sets(run, opts, warn):
    """A --set that the script never read (as a free variable) nor assigned (as a literal
    variable) would otherwise be ignored without a word."""
    from ..session import Warning_

    for name in opts.sets:
        if name not in run.result.sets_used:
            what = "assigns it a computed value, not a literal" if name in run.env else "never uses that name"
            warn(Warning_("UsageWarning", f"--set {name}: not used: the script {what}", 0))


def _refuse_empty(source, why):
    """grad, graph and check on a script with no statements: say so, not 'give --of NAME'."""
    if all(not line.strip() or line.lstrip().startswith("#") for line in source.text.splitlines()):
        raise _Fail(ExitStatus.SCRIPT_FAILED, _err("ValueError", f"the script is empty: {why}"), source)


def _err(type_name, message):
    from ..lang.errors import ScriptError

    return ScriptError(type_name, message)
