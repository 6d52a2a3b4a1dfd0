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

import math
import struct

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
    """The float64 s = RN(x), err = x - s exactly: x rounded to odd (an inexact s with an
    even last bit moves one unit toward x, which makes it odd)."""
    s = np.asarray(s, np.float64)
    bits = s.view(np.int64)
    fix = (err != 0) & ((bits & 1) == 0)
    if not fix.any():
        return s
    # one unit up in magnitude where err has s's sign, down otherwise (sign-magnitude bits)
    step = np.where((err > 0) == (s > 0), 1, -1) * fix
    return (bits + step).view(np.float64)


def _fma32_exact(a, b, c) -> np.ndarray:
    p = a.astype(np.float64) * b.astype(np.float64)
    c64 = c.astype(np.float64)
    s, e = two_sum(p, c64)
    r = round_odd(s, e).astype(np.float32)
    bad = ~np.isfinite(s)
    return np.where(bad, (p + c64).astype(np.float32), r) if bad.any() else r


_MID = np.uint64(1 << 28)  # a float64 halfway between two float32 (normal ones)
_LOW = np.uint64((1 << 29) - 1)
_TINY = np.float32(2.0**-126)


def fma32(a, b, c) -> np.ndarray:
    """float32 a * b + c, one rounding. The float64 sum of the exact product and c rounds
    to float32 correctly unless it is exactly halfway between two float32 (or in their
    subnormal range): those few take round-to-odd."""
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    c = np.asarray(c, np.float32)
    with np.errstate(all="ignore"):
        s = a.astype(np.float64) * b
        s = s + c
        r = s.astype(np.float32)
        risky = (s.view(np.uint64) & _LOW) == _MID
        risky |= np.abs(r) < _TINY
        if risky.any():
            shape = r.shape
            idx = np.flatnonzero(risky)
            pick = [np.broadcast_to(v, shape).reshape(-1)[idx] for v in (a, b, c)]
            r = r.reshape(-1)
            r[idx] = _fma32_exact(*pick)
            r = r.reshape(shape)
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
        bad = ~np.isfinite(r)
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


# --- the same on Python floats, for loops that are sequential by nature (a running sum of
# fused multiply-adds down a long dim): one element at a time, no numpy call per step ---

_F32 = struct.Struct("<f")
_I64 = struct.Struct("<q")
_D = struct.Struct("<d")


def _round_odd_py(s: float, err: float) -> float:
    if err == 0 or _I64.unpack(_D.pack(s))[0] & 1:
        return s
    return math.nextafter(s, math.inf if err > 0 else -math.inf)


def _to_f32(s: float) -> float:
    try:
        return _F32.unpack(_F32.pack(s))[0]
    except OverflowError:
        return math.copysign(math.inf, s)


def fma_py(x: float, y: float, c: float, f32: bool) -> float:
    """x * y + c rounded once on Python floats: float32 (inputs float32 values) or float64."""
    p = x * y
    if f32:  # p is exact
        s = c + p
        z = s - c
        e = (c - (s - z)) + (p - z)
        return _to_f32(_round_odd_py(s, e) if e else s)
    t = x * SPLIT
    xh = t - (t - x)
    xl = x - xh
    t = y * SPLIT
    yh = t - (t - y)
    yl = y - yh
    e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    uh = c + e
    z = uh - c
    ul = (c - (uh - z)) + (e - z)
    th = p + uh
    z = th - p
    tl = (p - (th - z)) + (uh - z)
    v = tl + ul
    z = v - tl
    ve = (tl - (v - z)) + (ul - z)
    r = th + (_round_odd_py(v, ve) if ve else v)
    return r if math.isfinite(r) else p + c


def fma_accumulate(a: list, b: list, dtype) -> float:
    """acc = fma(a[k], b[k], acc) for k in order, from 0, in dtype (float32/float64)."""
    f32 = np.dtype(dtype) == np.float32
    acc = 0.0
    for x, y in zip(a, b):
        acc = fma_py(x, y, acc, f32)
    return acc
