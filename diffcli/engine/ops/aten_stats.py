"""ATen's CPU var/std and 2-norm of float tensors, in its order of operations
(ATen/native/ReduceOps.cpp, cpu/ReduceOpsKernel.cpp), so that they round as PyTorch's do:

- var/std with one output (over every element, or every dim but those of size 1): std_var_all_cpu: the mean (ATen's cascade sum,
  divided, as a double), then in float64 the sequential sum of (double(x) - mean)**2 per
  thread chunk (at::parallel_reduce: one chunk under GRAIN_SIZE elements), the chunks
  added to 0 in order; divided by max(0, n - correction), sqrt for std, rounded last;
- var/std over some dims: Welford's running mean and m2 in float64, element by element
  (WelfordOps::reduce), project as m2 / max(0, n - correction);
- the 2-norm over the last (contiguous) dim: 8 (float32) or 4 (float64) lanes of
  acc += x * x in the element's type over the whole vectors, the lanes added in order,
  then the trailing elements one by one (the compiler's code: with 4 or more, the first 4
  squared as a 4-lane vector and added in order, the others a fused multiply-add each), sqrt;
  over another dim: acc += x * x in order (not fused).
"""

from __future__ import annotations

import math

import numpy as np

from . import cascade_sum as S

NEG_NAN = -math.nan  # 0.0 / 0.0 on x86: the sign bit set, as PyTorch's var of one element


def var_all(x: np.ndarray, correction, take_sqrt: bool) -> np.ndarray:
    flat = np.ascontiguousarray(x).reshape(-1)
    n = flat.size
    mean = float(S.aten_mean(flat))
    total = 0.0
    ranges = [(0, n)] if n < S.GRAIN_SIZE or S.THREADS == 1 else S.chunks(n)
    with np.errstate(all="ignore"):
        for b, e in ranges:
            dx = flat[b:e].astype(np.float64) - mean
            sq = dx * dx
            local = float(np.cumsum(sq)[-1]) if e > b else 0.0  # 0.0 + sq[0] + sq[1] + ...
            total = total + (0.0 + local)
        var = _div(total, max(0.0, n - correction))
        out = math.sqrt(var) if take_sqrt and var == var else var
    return np.asarray(out, dtype=x.dtype)


def _div(a: float, b: float) -> float:
    if b:
        return a / b
    return NEG_NAN if a == 0 else a if a != a else math.copysign(math.inf, a)


def var_dims(x: np.ndarray, axes, correction, take_sqrt: bool, keepdims: bool) -> np.ndarray:
    """Welford over `axes`, vectorised across the outputs, sequential along the reduced
    elements (in C order of the reduced axes)."""
    kept = [i for i in range(x.ndim) if i not in axes]
    moved = np.moveaxis(x, list(axes), list(range(x.ndim - len(axes), x.ndim))) if axes else x
    out_shape = tuple(x.shape[i] for i in kept)
    rows = moved.reshape(int(np.prod(out_shape, dtype=np.int64)), -1).astype(np.float64)
    m, length = rows.shape
    with np.errstate(all="ignore"):
        if m == 1:
            mean = m2 = 0.0
            for k, v in enumerate(rows[0].tolist(), 1):
                delta = v - mean
                mean = mean + delta / k
                m2 = m2 + delta * (v - mean)
            m2 = np.array([m2])
        else:
            mean = np.zeros(m)
            m2 = np.zeros(m)
            cols = np.ascontiguousarray(rows.T)
            for k in range(length):
                v = cols[k]
                delta = v - mean
                mean = mean + delta / (k + 1)
                m2 = m2 + delta * (v - mean)
        divisor = length - correction if length > correction else 0
        var = (
            m2 / divisor
            if divisor
            else np.where(m2 == 0, NEG_NAN, np.where(m2 != m2, m2, np.copysign(np.inf, m2)))
        )
        out = np.sqrt(var) if take_sqrt else var
    out = out.astype(x.dtype).reshape(out_shape)
    if keepdims:
        out = out.reshape(tuple(1 if i in axes else s for i, s in enumerate(x.shape)))
    return out


def _seq_last(sq: np.ndarray) -> np.ndarray:
    """0 + sq[..., 0] + sq[..., 1] + ..., in order (np.cumsum adds one by one)."""
    if not sq.shape[-1]:
        return np.zeros(sq.shape[:-1], sq.dtype)
    return np.cumsum(sq, axis=-1, dtype=sq.dtype)[..., -1]


def norm2(x: np.ndarray, axes, keepdims: bool):
    """The 2-norm over `axes` in ATen's order, or None where that order is not modelled
    here (several reduced dims that are not all of them, a non-contiguous array)."""
    if x.dtype not in (np.float32, np.float64) or not x.flags.c_contiguous or not x.ndim:
        return None
    shape = x.shape
    if len(axes) == x.ndim:
        rows = x.reshape(1, -1)
        out_shape = ()
    elif len(axes) == 1:
        ax = axes[0]
        outer = int(np.prod(shape[:ax], dtype=np.int64))
        inner = int(np.prod(shape[ax + 1 :], dtype=np.int64))
        out_shape = shape[:ax] + shape[ax + 1 :]
        if inner != 1:  # not the last dim: acc += x * x down the reduced dim, per output
            cols = x.reshape(outer, shape[ax], inner)
            sq = cols * cols
            out = np.sqrt(np.moveaxis(_seq_last(np.moveaxis(sq, 1, -1)), 0, 0)).reshape(out_shape)
            return _keep(out, shape, axes, keepdims)
        rows = x.reshape(outer, shape[ax])
    else:
        return None
    v = 32 // x.itemsize  # the AVX2 vector's lanes
    m, n = rows.shape
    k = n - n % v
    sq = rows * rows
    lanes = (
        np.cumsum(sq[:, :k].reshape(m, -1, v), axis=1, dtype=x.dtype)[:, -1]
        if k
        else np.zeros((m, v), x.dtype)
    )
    total = _seq_last(lanes)
    with np.errstate(all="ignore"):
        # the compiler's code for the tail `acc += x * x`: 4 trailing elements or more, the
        # first 4 squared as one 4-lane vector and added in order; the others fused
        fused = k + 4 if n - k >= 4 else k
        for d in range(k, fused):
            total = total + sq[:, d]
        for d in range(fused, n):
            total = fma_square(rows[:, d], total)
    out = np.sqrt(total).reshape(out_shape)
    return _keep(out, shape, axes, keepdims)


SPLIT = 134217729.0  # 2**27 + 1: Dekker's split of a float64


def fma_square(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * a + c rounded once (to a's dtype), elementwise. float32: exact products in
    float64, the sum's error kept (two-sum) to settle a tie at float32 precision; float64:
    Dekker's exact product and two-sum, rounded (correct but in rare double-rounding ties)."""
    if a.dtype == np.float32:
        p = a.astype(np.float64) ** 2
        c64 = c.astype(np.float64)
        s = p + c64
        z = s - p
        err = (p - (s - z)) + (c64 - z)
        r = s.astype(np.float32)
        back = r.astype(np.float64)
        # s exactly halfway between two float32 (the rounding went to even): err decides
        up = np.nextafter(r, np.float32(np.inf)).astype(np.float64)
        down = np.nextafter(r, np.float32(-np.inf)).astype(np.float64)
        fix_hi = (s - back == (up - back) / 2) & (err > 0)
        fix_lo = (back - s == (back - down) / 2) & (err < 0)
        return np.where(fix_hi, up.astype(np.float32), np.where(fix_lo, down.astype(np.float32), r))
    p = a * a
    t = a * SPLIT
    hi = t - (t - a)
    lo = a - hi
    e = ((hi * hi - p) + 2 * hi * lo) + lo * lo
    s = p + c
    z = s - p
    err = (p - (s - z)) + (c - z)
    r = s + (err + e)
    # (the split overflows for |a| > ~1e300 and an infinite term makes the error terms nan:
    # there the plain sum is the rounded one, inf or nan as IEEE gives it)
    return np.where(np.isfinite(r), r, s)


def _keep(out, shape, axes, keepdims):
    if keepdims:
        out = out.reshape(tuple(1 if i in axes else s for i, s in enumerate(shape)))
    return np.asarray(out)


def _c_map(f, a: np.ndarray, ok: np.ndarray, fallback) -> np.ndarray:
    """f (a math-module function: the C library's) on the elements where ok, fallback (the
    numpy function) elsewhere (overflow, zeros, NaN, infinities)."""
    flat = a.reshape(-1)
    okf = ok.reshape(-1)
    out = fallback(flat)
    idx = np.flatnonzero(okf)
    if idx.size:
        out[idx] = [f(v) for v in flat[idx].tolist()]
    return out.reshape(a.shape)


def _exp_log(a: np.ndarray, log: bool) -> np.ndarray:
    """ATen's exp_/log_ of an array is Intel MKL's vector math (not reproducible without
    MKL); the correctly rounded result matches it best (measured: float32 computed in
    float64 and rounded, float64 by the C library)."""
    with np.errstate(all="ignore"):
        if a.dtype == np.float32:
            w = a.astype(np.float64)
            return (np.log(w) if log else np.exp(w)).astype(np.float32)
        if log:
            return _c_map(math.log, a, (a > 0) & (a < math.inf), np.log)
        return _c_map(math.exp, a, (a > -745.0) & (a < 709.0), np.exp)


def logsumexp(x: np.ndarray, axes) -> np.ndarray:
    """ATen's logsumexp of a float array over axes (kept as size-1 dims): amax; the maxes
    that are +-inf set to 0 (masked_fill_); sum((x - max).exp_()) (ATen's sum order,
    cascade_sum.py); log_(); + max."""
    with np.errstate(all="ignore"):
        m = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
        m = np.where(np.abs(m) == np.inf, x.dtype.type(0), m)
        s = S.aten_sum(_exp_log(x - m, log=False), axes, keepdims=True)
        return np.asarray(_exp_log(np.asarray(s, x.dtype), log=True) + m, x.dtype)
