"""Fused multiply-add (a * b + c rounded once) and error-free transformations, on numpy
arrays, for the kernels that PyTorch runs with FMA instructions (SLEEF's vector math,
sleef.py).

- float32: a * b is exact in float64 (24 + 24 bits); the float64 sum is rounded to odd
  (its last bit set when inexact), so that the final rounding to float32 is the single
  correct rounding (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums:
  proved algorithms using rounding to odd", 2008);
- float64: Dekker's exact product (p + e = a * b) and the same paper's correctly rounded
  sum of three doubles: RN(p + RO(c + e)) through two-sums.
Inputs that overflow an intermediate fall back to a * b + c (twice rounded).
"""

from __future__ import annotations

import numpy as np

SPLIT = 134217729.0  # 2**27 + 1: Dekker's split of a float64
_INF = np.float64(np.inf)


def two_sum(a, b):
    """s + e == a + b exactly, s = RN(a + b) (Knuth)."""
    s = a + b
    z = s - a
    return s, (a - (s - z)) + (b - z)


def two_prod(a, b):
    """p + e == a * b exactly, p = RN(a * b) (Dekker; no overflow/underflow)."""
    p = a * b
    t = a * SPLIT
    ah = t - (t - a)
    al = a - ah
    t = b * SPLIT
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def round_odd(s, err):
    """The float64 s = RN(x), err = x - s exactly: x rounded to odd."""
    s = np.asarray(s, np.float64)
    fix = (err != 0) & ((s.view(np.int64) & 1) == 0) & np.isfinite(s)
    if not fix.any():
        return s
    return np.where(fix, np.nextafter(s, np.where(err > 0, _INF, -_INF)), s)


def fma32(a, b, c) -> np.ndarray:
    """float32 a * b + c, one rounding."""
    with np.errstate(all="ignore"):
        p = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32).astype(np.float64)
        c64 = np.asarray(c, np.float32).astype(np.float64)
        s, e = two_sum(p, c64)
        r = round_odd(s, e).astype(np.float32)
        bad = ~np.isfinite(s)
        if bad.any():
            r = np.where(bad, (p + c64).astype(np.float32), r)
    return r


def fma64(a, b, c) -> np.ndarray:
    """float64 a * b + c, one rounding."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    with np.errstate(all="ignore"):
        p, e = two_prod(a, b)
        uh, ul = two_sum(c, e)
        th, tl = two_sum(p, uh)
        v, ve = two_sum(tl, ul)
        r = th + round_odd(v, ve)
        bad = ~np.isfinite(r) | ~np.isfinite(p) | ~np.isfinite(e)
        if bad.any():
            r = np.where(bad, a * b + c, r)
    return r


def fma(a, b, c, dtype) -> np.ndarray:
    return fma32(a, b, c) if np.dtype(dtype) == np.float32 else fma64(a, b, c)


def fms(a, b, c, dtype) -> np.ndarray:
    """a * b - c, one rounding (vfmapn)."""
    return fma(a, b, -np.asarray(c), dtype)


def fnma(a, b, c, dtype) -> np.ndarray:
    """-a * b + c, one rounding (vfmanp)."""
    return fma(-np.asarray(a), b, c, dtype)
