"""A derivative check that explains its verdict, free of scripts and of the CLI.

`compare` takes an analytic Jacobian (for a scalar function: the gradient) and a way to
evaluate the function at a perturbed point, and reports the worst element: its index,
the analytic and numeric values, the absolute and relative error, the tolerance used, and
an error estimate of the numeric value itself (Richardson: the central difference at
step h against the one at 2h, plus the rounding of the function's values over h). Where
the graph has an op with a kink (`kinks.py`) and the entry fails, one-sided differences
decide: an analytic value between them is a `kink`, not a mismatch. Every failure is
labelled: `kink`, `precision-limited` (the error is within what the numeric value itself
can tell), or `likely bug`.
"""

from __future__ import annotations

import math

import numpy as np

# step, atol, rtol by the precision of the leaf and the target (the coarser one wins)
DTYPE_DEFAULTS = {
    "float64": (1e-6, 1e-5, 1e-4),
    "float32": (1e-3, 1e-3, 1e-2),
    "bfloat16": (3e-2, 1e-1, 1e-1),
    "float16": (3e-2, 5e-2, 5e-2),
}
_COARSER = ["float64", "float32", "float16", "bfloat16"]
PRECISION_FACTOR = 4.0  # an error within 4 estimates of the numeric value's own error


class Settings:
    """The step and tolerances one check uses, and the dtype they were chosen for."""

    def __init__(self, eps, atol, rtol, dtype="float64"):
        self.eps, self.atol, self.rtol, self.dtype = eps, atol, rtol, dtype

    @classmethod
    def for_dtype(cls, dtype, eps=None, atol=None, rtol=None, scale=(1.0, 1.0)):
        """Defaults for `dtype` (a name or numpy dtype); given values win. `scale`: factors
        of the default step and tolerances (second order uses coarser ones)."""
        name = dtype if isinstance(dtype, str) else np.dtype(dtype).name
        d_eps, d_atol, d_rtol = DTYPE_DEFAULTS.get(name, DTYPE_DEFAULTS["float64"])

        def scaled(default, given, factor):  # (1e-6 * 100 is 1e-4, not 9.999999999999999e-05)
            return float(f"{(default if given is None else given) * factor:.12g}")

        return cls(
            scaled(d_eps, eps, scale[0]), scaled(d_atol, atol, scale[1]), scaled(d_rtol, rtol, scale[1]), name
        )

    def as_dict(self):
        return {"dtype": self.dtype, "eps": self.eps, "atol": self.atol, "rtol": self.rtol}


def coarsest(*dtypes):
    """The least precise of some float dtype names (float64 if none is known)."""
    names = [d for d in dtypes if d in _COARSER] or ["float64"]
    return max(names, key=_COARSER.index)


class Entry:
    """One Jacobian entry: `out` the output index (() for a scalar function), `index` the
    input's."""

    def __init__(self, out, index, analytic, numeric, tolerance, estimate, one_sided=None):
        self.out, self.index = tuple(out), tuple(index)
        self.analytic, self.numeric = float(analytic), float(numeric)
        self.tolerance, self.estimate = float(tolerance), float(estimate)
        self.one_sided = one_sided  # (left, right) where it was looked at
        with np.errstate(all="ignore"):
            self.abs_error = abs(self.analytic - self.numeric)
            if not (math.isfinite(self.analytic) and math.isfinite(self.numeric)):
                same = self.analytic == self.numeric or (
                    math.isnan(self.analytic) and math.isnan(self.numeric)
                )
                self.abs_error = 0.0 if same else math.inf
            self.rel_error = self.abs_error / max(abs(self.numeric), 1e-12)
        self.ok = self.abs_error <= self.tolerance
        self.label = "ok" if self.ok else "likely bug"

    def as_dict(self):
        out = {
            "index": list(self.index),
            "analytic": self.analytic,
            "numeric": self.numeric,
            "abs_error": self.abs_error,
            "rel_error": self.rel_error,
            "tolerance": self.tolerance,
            "error_estimate": self.estimate,
            "label": self.label,
        }
        if self.out:
            out = {"output_index": list(self.out), **out}
        if self.one_sided is not None:
            out["one_sided"] = list(self.one_sided)
        return out


class LeafCheck:
    """The verdict for one leaf and order: `result` is ok, kink or mismatch; `worst` the
    Entry that decided it; `analytic`/`numeric` the whole arrays."""

    def __init__(self, name, order, analytic, numeric, entries, settings):
        self.name, self.order, self.settings = name, order, settings
        self.analytic, self.numeric = analytic, numeric
        failing = [e for e in entries if not e.ok]
        kinks = [e for e in entries if e.label == "kink"]

        def badness(e):
            return (e.abs_error / e.tolerance) if e.tolerance > 0 else (math.inf if e.abs_error else 0.0)

        pool = failing or kinks or entries
        self.worst = max(pool, key=badness) if pool else None
        self.ok = not failing
        self.result = "mismatch" if failing else ("kink" if kinks else "ok")
        self.label = self.worst.label if self.worst is not None else "ok"
        errs = [e.abs_error for e in entries]
        rels = [e.rel_error for e in entries]
        self.max_abs = max(errs) if errs else 0.0
        self.max_rel = max(rels) if rels else 0.0

    @property
    def verdict(self):
        """ok, kink, or MISMATCH (likely bug) / MISMATCH (precision-limited)."""
        return self.result if self.result != "mismatch" else f"MISMATCH ({self.label})"


def _step(x, idx, h):
    """x with x[idx] moved by h, and the step actually taken in x's own dtype."""
    y = x.copy()
    y[idx] = y[idx] + h
    return y, float(y[idx]) - float(x[idx])


def compare(name, order, analytic, evaluate, point, settings, kinks=False):
    """Check `analytic` (shape: output shape + point's shape) against finite differences
    of `evaluate(x) -> array of the output shape`, x being `point` with one element moved.
    `kinks`: whether the function's graph has an op that is not differentiable everywhere.
    A LeafCheck."""
    point = np.asarray(point)
    analytic = np.asarray(analytic, dtype=np.float64)
    base = np.asarray(evaluate(point), dtype=np.float64)
    out_shape = base.shape
    analytic = analytic.reshape(out_shape + point.shape)
    numeric = np.zeros(out_shape + point.shape)
    h = settings.eps
    resolution = np.finfo(np.dtype(settings.dtype) if settings.dtype in DTYPE_DEFAULTS else np.float64).eps
    if settings.dtype == "bfloat16":
        resolution = 2.0**-7
    entries = []
    for idx in np.ndindex(*point.shape):
        plus, hp = _step(point, idx, h)
        minus, hm = _step(point, idx, -h)
        plus2, hp2 = _step(point, idx, 2 * h)
        minus2, hm2 = _step(point, idx, -2 * h)
        fp, fm = np.asarray(evaluate(plus), np.float64), np.asarray(evaluate(minus), np.float64)
        fp2, fm2 = np.asarray(evaluate(plus2), np.float64), np.asarray(evaluate(minus2), np.float64)
        with np.errstate(all="ignore"):
            d1 = (fp - fm) / (hp - hm) if hp != hm else np.full(out_shape, np.nan)
            d2 = (fp2 - fm2) / (hp2 - hm2) if hp2 != hm2 else np.full(out_shape, np.nan)
            right = (fp - base) / hp if hp else np.full(out_shape, np.nan)
            left = (base - fm) / -hm if hm else np.full(out_shape, np.nan)
            right2 = (fp2 - base) / hp2 if hp2 else np.full(out_shape, np.nan)
            left2 = (base - fm2) / -hm2 if hm2 else np.full(out_shape, np.nan)
            rounding = (
                resolution * np.maximum.reduce([np.abs(base), np.abs(fp), np.abs(fm)]) / max(abs(h), 1e-300)
            )
            estimate = np.abs(d2 - d1) / 3.0 + rounding
        numeric[(Ellipsis, *idx)] = d1
        for out in np.ndindex(*out_shape):
            a = analytic[out + idx]
            n = d1[out]
            tol = settings.atol + settings.rtol * abs(n) if math.isfinite(n) else settings.atol
            e = Entry(out, idx, a, n, tol, estimate[out])
            if kinks:
                _kink(e, (left[out], right[out]), (left2[out], right2[out]), tol)
            if not e.ok and e.label == "likely bug":
                _precision(e)
            entries.append(e)
    return LeafCheck(name, order, analytic, numeric, entries, settings)


def _kink(e, one_sided, one_sided_2h, tol):
    """Entry `e` of a graph with a kink op: is the point a kink? The one-sided differences
    disagree there by a slope jump that does not shrink with the step (or a value jump
    that grows as 1/h), where for a smooth function they differ by h * f'' (twice as
    much at 2h). At a kink an analytic value between them is accepted (`kink`); one
    outside them is a likely bug, whatever the central difference says."""
    (left, right), (left2, right2) = map(float, one_sided), map(float, one_sided_2h)
    if not all(math.isfinite(v) for v in (left, right, left2, right2)):
        return
    gap, gap2 = right - left, right2 - left2
    if abs(gap) <= tol or abs(gap2) >= 1.5 * abs(gap):
        return
    e.one_sided = (left, right)
    low, high = min(left, right), max(left, right)
    if low - tol <= e.analytic <= high + tol:
        e.ok, e.label = True, "kink"
    else:
        e.ok, e.label = False, "likely bug"


def _precision(e):
    """A failed entry whose error is within what the numeric value itself can tell (its
    error estimate): precision-limited, not a likely bug."""
    if math.isfinite(e.estimate) and e.abs_error <= PRECISION_FACTOR * e.estimate:
        e.label = "precision-limited"
