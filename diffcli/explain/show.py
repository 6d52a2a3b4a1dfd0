"""Values as an explanation writes them: numbers with four decimals at most (`0.9993`,
`1`, `-0.0375`), small tensors in full as nested lists, big ones by shape and a summary;
shapes as shapes (`[1]`, `[2, 3]`, `[]` for a 0-d tensor)."""

from __future__ import annotations

import math

import numpy as np

FULL = 6  # a tensor of at most this many elements is written out in full


def number(x) -> str:
    """One number: `1`, `0.9993`, `-0.0375`, `1.2346e+07`, `nan`, `True`."""
    if x.__class__ is float and 1e-4 <= abs(x) < 1e6:
        s = f"{x:.4f}".rstrip("0").rstrip(".")
        return "0" if s in ("-0", "") else s
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    if 1e-4 <= abs(x) < 1e6:
        s = f"{x:.4f}".rstrip("0").rstrip(".")
        return "0" if s in ("-0", "") else s
    return f"{x:.4e}"


def shape(shape_) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape_) + "]"


def value(v, rows=False) -> str:
    """A value: a number, a small tensor as nested lists, a big one by its shape and
    summary, None as None. `rows`: a small matrix one row per line (for a table)."""
    if v.__class__ is np.ndarray and not v.ndim:  # (most values of a graph: one number)
        return number(v.item())
    if v is None:
        return "None"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, (tuple, list)) and not all(isinstance(x, (int, float)) for x in v):
        return "(" + ", ".join(value(x) for x in v) + ")"
    try:
        a = np.asarray(v)
    except (TypeError, ValueError):
        return str(v)
    if a.dtype == object:
        return str(v)
    if a.ndim == 0:
        return number(a.item())
    if a.size <= FULL:
        if rows and a.ndim >= 2:
            return "[" + ",\n ".join(_nested(x) for x in a) + "]"
        return _nested(a)
    if a.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            lo, hi, mean = np.nanmin(a), np.nanmax(a), np.nanmean(a)
        return f"<{shape(a.shape)}: min {number(lo)}, mean {number(mean)}, max {number(hi)}>"
    return f"<{shape(a.shape)} {a.dtype.name}>"


def _nested(a) -> str:
    if a.ndim == 0:
        return number(a.item())
    return "[" + ", ".join(_nested(x) for x in a) + "]"
