"""Pinned gradients: compare a `grad --format json` document with one written earlier.

`drift(old, new, rtol, atol)` lists what changed: each leaf's gradient element by element
(a value is kept when |new - old| <= atol + rtol * |old|), the target's value, a leaf or
gradient that appeared or went away, a shape that changed. Each difference is a `Drift`
(name, index, old, new).
"""

from __future__ import annotations

import math

import numpy as np


class Drift:
    def __init__(self, name, index, old, new):
        self.name, self.index, self.old, self.new = name, index, old, new

    def where(self):
        if self.index is None or self.index == ():
            return self.name
        return f"{self.name}[{', '.join(map(str, self.index))}]"

    def text(self):
        return f"{self.where()}: {_show(self.old)} -> {_show(self.new)}"

    def as_dict(self):
        return {
            "name": self.name,
            "index": None if self.index is None else list(self.index),
            "old": self.old,
            "new": self.new,
        }


def _show(v):
    if v is None:
        return "None"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return v
    return str(v)


def _array(v):
    """A JSON tensor value ("nan"/"inf" strings included) as a float64 array."""

    def fix(x):
        if isinstance(x, list):
            return [fix(y) for y in x]
        if isinstance(x, str):
            return float(x)
        return float(x) if not isinstance(x, bool) else float(x)

    return np.asarray(fix(v), dtype=np.float64)


def _compare(name, old, new, rtol, atol, out):
    if old is None or new is None:
        if (old is None) != (new is None):
            out.append(
                Drift(
                    name,
                    None,
                    "None" if old is None else f"tensor of shape {list(_array(old).shape)}",
                    "None" if new is None else f"tensor of shape {list(_array(new).shape)}",
                )
            )
        return
    a, b = _array(old), _array(new)
    if a.shape != b.shape:
        out.append(Drift(name, None, f"shape {list(a.shape)}", f"shape {list(b.shape)}"))
        return
    for idx in np.ndindex(*a.shape):
        x, y = float(a[idx]), float(b[idx])
        if math.isnan(x) and math.isnan(y):
            continue
        if x == y or (math.isfinite(x) and math.isfinite(y) and abs(y - x) <= atol + rtol * abs(x)):
            continue
        out.append(Drift(name, idx, x, y))


def drift(old, new, rtol=1e-7, atol=0.0):
    """The differences between two `grad --format json` documents."""
    out = []
    t_old, t_new = old.get("target"), new.get("target")
    if t_old is not None or t_new is not None:
        name = (t_new or t_old).get("name", "target")
        _compare(f"{name} (value)", (t_old or {}).get("value"), (t_new or {}).get("value"), rtol, atol, out)
    leaves_old, leaves_new = old.get("leaves", {}), new.get("leaves", {})
    for name in list(leaves_old) + [n for n in leaves_new if n not in leaves_old]:
        if name not in leaves_new:
            out.append(Drift(name, None, "a leaf", "no such leaf"))
        elif name not in leaves_old:
            out.append(Drift(name, None, "no such leaf", "a leaf"))
        else:
            _compare(name, leaves_old[name].get("grad"), leaves_new[name].get("grad"), rtol, atol, out)
    return out
