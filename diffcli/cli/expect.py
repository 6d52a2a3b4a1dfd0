"""`grad --expect GOLDEN`: the golden file read once, and the drift printed and turned
into an exit status."""

from __future__ import annotations

import math
import sys

from .running import ExitStatus, _emit, _err, _Fail, _Usage, script_paths


def _golden(a):
    """The --expect document, or None; a bad file or option is a command-line error."""
    if a.expect is None:
        return None
    if len(script_paths(a.script)) > 1:
        raise _Usage("--expect GOLDEN compares one script: give one SCRIPT")
    for value, opt in ((a.atol, "--atol"), (a.rtol, "--rtol")):
        if not (math.isfinite(value) and value >= 0):
            raise _Usage(f"{opt} must be a finite number of at least 0, got {value}")
    import json

    try:
        with open(a.expect, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise _Usage(f"--expect {a.expect}: cannot read it ({e.strerror or e})") from None
    except ValueError as e:
        raise _Usage(f"--expect {a.expect}: not a JSON document ({e})") from None
    if not isinstance(doc, dict) or "leaves" not in doc:
        raise _Usage(f"--expect {a.expect}: not a document written by `diffcli grad --format json`")
    return doc


def _drift(a, source, golden, doc):
    """Compare with the golden; each difference on stderr (`drift: NAME[INDEX]: OLD -> NEW`),
    then a GradientDrift error: exit 1."""
    import json

    from ..checks.golden import drift
    from ..render.jsonout import plain

    found = drift(golden, plain(doc), a.rtol, a.atol)
    if not found:
        return ExitStatus.OK
    sys.stdout.flush()
    if a.fmt.value in ("json", "jsonl"):
        for d in found:
            sys.stderr.write(json.dumps({"drift": {"file": source.filename, **plain(d.as_dict())}}) + "\n")
    else:
        for d in found:
            sys.stderr.write(f"drift: {d.text()}\n")
    n = len(found)
    _emit(
        "json" if a.fmt.value == "jsonl" else a.fmt.value,
        _err(
            "GradientDrift",
            f"{n} value{'s' if n > 1 else ''} differ{'' if n > 1 else 's'} from "
            f"{a.expect} (rtol {a.rtol:g}, atol {a.atol:g})",
        ),
        source,
        source.filename,
    )
    return ExitStatus.SCRIPT_FAILED


__all__ = ["_Fail", "_drift", "_golden"]
