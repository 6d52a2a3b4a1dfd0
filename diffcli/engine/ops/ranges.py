"""arange and linspace, computed as PyTorch's CPU kernels compute them: each element a
fused multiply-add (emulated exactly in numpy, `_fma`), in the vectorized kernels' order
and over at::parallel_for's chunks (`_parallel_chunks`). The other constructors:
creation.py."""

from __future__ import annotations

import os

import numpy as np

from .. import dtypes, errors
from ..tensor import Tensor
from .creation import _check_size, _float, _leaf


def _c_double(v: float) -> str:
    """A double as C++'s ostream writes it (6 significant digits, %g)."""
    return "%g" % v


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """Dekker: a*b == p + e exactly (no fma needed)."""
    p = a * b
    c = 134217729.0  # 2**27 + 1
    ah = a * c
    ah = ah - (ah - a)
    al = a - ah
    bh = b * c
    bh = bh - (bh - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_odd(s, e):
    """s + e (s = fl(s + e)) rounded to odd: inexact results get an odd last bit."""
    bits = s.view(np.int64)
    fix = (e != 0) & ((bits & 1) == 0) & np.isfinite(s)
    if fix.any():
        s = s.copy()
        s[fix] = np.nextafter(s[fix], np.where(e[fix] > 0, np.inf, -np.inf))
    return s


def _fma(a, b, c, dtype):
    """fma(a, b, c) = a*b + c rounded once, in `dtype` (float64 or float32), elementwise:
    the kernels of PyTorch's AVX2/AVX512 builds are compiled with FMA contraction, so a
    `c + a * b` there is one fused multiply-add (Boldo and Melquiond's emulation through
    rounding to odd; non-finite values take the plain formula)."""
    a, b, c = (np.asarray(v, dtype=np.float64) for v in (a, b, c))
    a, b, c = np.broadcast_arrays(a, b, c)
    with np.errstate(all="ignore"):
        plain = c + a * b
        if dtype == np.float32:  # the float32 product is exact in float64
            s, e = _two_sum(c, a * b)
            out = _round_odd(s, e).astype(np.float32)
        else:
            ph, pl = _two_prod(a, b)
            th, tl = _two_sum(c, ph)
            v, ve = _two_sum(tl, pl)
            out = th + _round_odd(v, ve)
        ok = np.isfinite(out) & np.isfinite(plain)
        return np.where(ok, out, plain.astype(dtype)).astype(dtype)


_GRAIN_SIZE = 32768


def _parallel_chunks(n):
    """at::parallel_for's split of range(n) (OpenMP): one chunk up to the grain size, else
    ceil(n / threads) per thread, threads being the CPUs this process may use (PyTorch's
    default intra-op thread count on a machine without SMT)."""
    if n <= _GRAIN_SIZE:
        return [(0, n)] if n else []
    try:
        threads = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        threads = os.cpu_count() or 1
    threads = max(1, min(threads, -(-n // _GRAIN_SIZE)))
    chunk = -(-n // threads)
    return [(b, min(b + chunk, n)) for b in range(0, n, chunk)]


def arange(start, end=None, step=1, dtype=None, requires_grad=False):
    """PyTorch's arange: the size is ceil((end - start) / step) in double (for an integer
    dtype, an integer division), and element i is start + step*i in the accumulate type
    (double for float32 and float64), one fused multiply-add, written by the vectorized
    kernel: blocks of two vectors (4 doubles or 8 floats, the 256-bit width PyTorch's
    kernel showed on an AVX512 CPU), each vector start + step*i at its first index and
    base + j*step on its lanes; the tail element by element."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if dtype is None:
        dtype = dtypes.default_float() if any(isinstance(v, float) for v in vals) else np.int64
    d = dtypes.to_np(dtype)
    if d.kind == "f":
        xs, xe, xst = (float(v) for v in vals)
    else:
        xs, xe, xst = (int(v) for v in vals)
    if not (xst > 0 or xst < 0):
        raise errors.TorchRuntimeError("step must be nonzero")
    if not (np.isfinite(float(xs)) and np.isfinite(float(xe))):
        raise errors.TorchRuntimeError(f"unsupported range: {_c_double(xs)} -> {_c_double(xe)}")
    if not ((xst > 0 and xe >= xs) or (xst < 0 and xe <= xs)):
        raise errors.TorchRuntimeError("upper bound and lower bound inconsistent with step sign")
    if d.kind == "f":
        n = int(np.ceil((xe - xs) / xst))
    else:
        sgn = (xst > 0) - (xst < 0)
        num = xe - xs + xst - sgn
        n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)  # C division
    _check_size(max(n, 0))
    if d.kind != "f":
        return _leaf((xs + xst * np.arange(n, dtype=np.int64)).astype(d), requires_grad)
    idx = np.arange(n, dtype=np.float64)
    out = _fma(xst, idx, xs, np.float64).astype(d)  # the scalar lane: start + step*i
    w = 32 // d.itemsize  # Vectorized<scalar_t>::size() of the kernel this build runs
    lanes = np.arange(w, dtype=np.float64)
    for b, e in _parallel_chunks(n):
        blocks = (e - b) // (2 * w) * (2 * w)
        if blocks:
            base = out[b : b + blocks : w].astype(np.float64)  # each vector's first element
            out[b : b + blocks] = _fma(xst, lanes[None, :], base[:, None], np.float64).astype(d).reshape(-1)
    return _leaf(out, requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False):
    """PyTorch's linspace kernel: step = (end - start) / (steps - 1) in the dtype (double
    for integer dtypes); element i < steps/2 is start + step*i, the others
    end - step*(steps-1-i), each one fused multiply-add (see _fma); steps == 1 is start."""
    steps = int(steps)
    if steps < 0:
        raise errors.TorchRuntimeError("number of steps must be non-negative")
    _check_size(steps)
    d = _float(dtype)
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end)]
    if steps == 0:
        return _leaf(np.zeros(0, dtype=d), requires_grad)
    if d.kind == "f":
        s, e = (d.type(v) for v in vals)
        acc = d
    else:
        s, e = (int(v) for v in vals)
        acc = np.dtype(np.float64)
    if steps == 1:
        return _leaf(np.full(1, s, dtype=d), requires_grad)
    with np.errstate(all="ignore"):
        step = (acc.type(e) - acc.type(s)) / acc.type(steps - 1)
    half = steps // 2
    i = np.arange(steps, dtype=np.int64)
    first = i < half
    k = np.where(first, i, -(steps - 1 - i)).astype(acc)  # end - step*k == fma(step, -k, end)
    base = np.where(first, acc.type(s), acc.type(e))
    out = _fma(step, k, base, acc)
    if d.kind != "f":
        with np.errstate(all="ignore"):
            out = np.trunc(out).astype(d)
    return _leaf(out.astype(d), requires_grad)
