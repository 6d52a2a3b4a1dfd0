"""SLEEF's vector exp and log (1.0-ULP versions), as PyTorch's AVX512 kernels call them
through at::vec::Vectorized<float/double>::exp()/log() (Sleef_expf16_u10, Sleef_expd8_u10,
Sleef_logf16_u10, Sleef_logd8_u10), step for step, so that they round as PyTorch's do.

Each follows SLEEF's sleefsimdsp.c / sleefsimddp.c (xexpf, xexp, xlogf_u1, xlog_u1, their
AVX512F branches: FMA for every multiply-add, getexp/getmant for the log's reduction),
with its double-float/double-double helpers (df.h, dd.h, the FMA versions). The fused
multiply-adds are emulated exactly (fma.py). Special values (NaN, infinities, zeros,
negatives for log) give the IEEE results SLEEF gives.
"""

from __future__ import annotations

import numpy as np

from .fma import fma, fms, fnma

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)

# exp's range reduction: q = rint(d / ln 2), s = d - q * (L2U + L2L)
_L2U = {F32: np.float32(0.693145751953125), F64: 0.69314718055966295651160180568695068359375}
_L2L = {F32: np.float32(1.428606765330187045e-06), F64: 0.28235290563031577122588448175013436025525412068e-12}
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931

_EXPF = (
    0.000198527617612853646278381,
    0.00139304355252534151077271,
    0.00833336077630519866943359,
    0.0416664853692054748535156,
    0.166666671633720397949219,
    0.5,
)
_EXPD = (  # POLY10's c9 .. c0
    +0.2081276378237164457e-8,
    +0.2511210703042288022e-7,
    +0.2755762628169491192e-6,
    +0.2755723402025388239e-5,
    +0.2480158687479686264e-4,
    +0.1984126989855865850e-3,
    +0.1388888888914497797e-2,
    +0.8333333333314938210e-2,
    +0.4166666666666602598e-1,
    +0.1666666666666669072e0,
)
_LOGD = (  # POLY7's c6 .. c0
    0.1532076988502701353e0,
    0.1525629051003428716e0,
    0.1818605932937785996e0,
    0.2222214519839380009e0,
    0.2857142932794299317e0,
    0.3999999999635251990e0,
    0.6666666666667333541e0,
)
_LOGF = (0.3027294874, 0.3996108174, 0.6666694880)
_LN2_DD = {
    F32: (np.float32(0.69314718246459960938), np.float32(-1.904654323148236017e-09)),
    F64: (0.693147180559945286226764, 2.319046813846299558417771e-17),
}


def _ldexp2(u: np.ndarray, q: np.ndarray) -> np.ndarray:
    """vldexp2: u * 2^(q >> 1) * 2^(q - (q >> 1)), two roundings at most (subnormals)."""
    if u.dtype == F32:
        h = q.astype(np.int32) >> 1
        p1 = ((h + 127) << 23).astype(np.int32).view(np.float32)
        p2 = ((q.astype(np.int32) - h + 127) << 23).astype(np.int32).view(np.float32)
    else:
        h = q.astype(np.int64) >> 1
        p1 = ((h + 1023) << 52).view(np.float64)
        p2 = ((q.astype(np.int64) - h + 1023) << 52).view(np.float64)
    return u * p1 * p2


CHUNK = 8192  # elements per pass: numpy's temporaries stay in cache (several times faster)


def _chunked(kernel):
    def run(d):
        d = np.asarray(d)
        if d.dtype not in (F32, F64):
            raise TypeError(f"sleef.{kernel.__name__[1:]}: {d.dtype}")
        if d.size <= CHUNK:
            return kernel(d)
        flat = np.ascontiguousarray(d).reshape(-1)
        out = np.empty_like(flat)
        for i in range(0, flat.size, CHUNK):
            out[i : i + CHUNK] = kernel(flat[i : i + CHUNK])
        return out.reshape(d.shape)

    run.__name__ = kernel.__name__[1:]
    run.__doc__ = kernel.__doc__
    return run


def _exp(d: np.ndarray) -> np.ndarray:
    """Sleef_expf16_u10 / Sleef_expd8_u10 elementwise (float32 / float64)."""
    t = d.dtype
    with np.errstate(all="ignore"):
        if t == F32:
            z = np.rint(d * np.float32(_R_LN2))
            q = np.where(np.isfinite(z) & (np.abs(z) < 2**31), z, 0).astype(np.int32)
            qf = q.astype(np.float32)
            s = d - qf * _L2U[t]  # (q * L2U is exact: fma's single rounding)
            s = fma(qf, -_L2L[t], s, t)
            u = np.full(d.shape, np.float32(_EXPF[0]), np.float32)
            for c in _EXPF[1:]:
                u = fma(u, s, np.float32(c), t)
            u = np.float32(1) + fma(s * s, u, s, t)
            u = _ldexp2(u, q)
            u = np.where(d < np.float32(-104), np.float32(0), u)
            u = np.where(d > np.float32(100), np.float32(np.inf), u)
        else:
            z = np.rint(d * _R_LN2)
            q = np.where(np.isfinite(z) & (np.abs(z) < 2**31), z, 0).astype(np.int64)
            s = d - z * _L2U[t]  # (q * L2U is exact: fma's single rounding)
            s = fma(z, -_L2L[t], s, t)
            s2 = s * s
            s4 = s2 * s2
            s8 = s4 * s4
            c9, c8, c7, c6, c5, c4, c3, c2, c1, c0 = _EXPD
            p4a = fma(s2, fma(s, c7, c6, t), fma(s, c5, c4, t), t)
            p4b = fma(s2, fma(s, c3, c2, t), fma(s, c1, c0, t), t)
            u = fma(s8, fma(s, c9, c8, t), fma(s4, p4a, p4b, t), t)
            u = fma(u, s, 0.5, t)
            u = fma(u, s, 1.0, t)
            u = fma(u, s, 1.0, t)
            u = _ldexp2(u, q)
            u = np.where(d > 709.78271114955742909217217426, np.inf, u)
            u = np.where(d < -1000, 0.0, u)
        u = np.where(d != d, d, u)
    return np.asarray(u, t)


# --- log: SLEEF's double-float / double-double helpers (df.h, dd.h, FMA versions) -----------


def _add2_vv(x, y):
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _add_22(x, y):
    s = x[0] + y[0]
    return s, (((x[0] - s) + y[0]) + x[1]) + y[1]


def _add_2v(x, y):
    s = x[0] + y
    return s, ((x[0] - s) + y) + x[1]


def _mul_2v(x, y, t):
    s = x[0] * y
    return s, fma(x[1], y, fms(x[0], y, s, t), t)


def _div_22(n, d, t):
    r = t.type(1) / d[0]
    s = n[0] * r
    u = fms(r, n[0], s, t)
    v = fnma(d[1], r, fnma(d[0], r, t.type(1), t), t)
    return s, fma(s, v, fma(n[1], r, u, t), t)


def _getexp_getmant(d):
    """AVX512's getexp(d * (1/0.75)) and getmant(d, [0.75, 1.5)) for positive finite d."""
    t = d.dtype
    _, k = np.frexp(d * t.type(1.0 / 0.75))
    e = (k - 1).astype(t)
    f, k2 = np.frexp(d)
    m = np.where(f >= t.type(0.75), f, f * t.type(2))
    return e, m.astype(t)


def _log(d: np.ndarray) -> np.ndarray:
    """Sleef_logf16_u10 / Sleef_logd8_u10 elementwise (float32 / float64)."""
    t = d.dtype
    one = t.type(1)
    with np.errstate(all="ignore"):
        ok = (d > 0) & np.isfinite(d)
        dd = np.where(ok, d, one)
        e, m = _getexp_getmant(dd)
        x = _div_22(_add2_vv(-one, m), _add2_vv(one, m), t)
        x2 = x[0] * x[0]
        if t == F32:
            tt = np.full(d.shape, np.float32(_LOGF[0]), np.float32)
            tt = fma(tt, x2, np.float32(_LOGF[1]), t)
            tt = fma(tt, x2, np.float32(_LOGF[2]), t)
        else:
            x4 = x2 * x2
            x8 = x4 * x4
            c6, c5, c4, c3, c2, c1, c0 = _LOGD
            p3 = fma(x4, c6, fma(x2, c5, c4, t), t)
            p4 = fma(x4, fma(x2, c3, c2, t), fma(x2, c1, c0, t), t)
            tt = fma(x8, p3, p4, t)
        s = _mul_2v(_LN2_DD[t], e, t)
        s = _add_22(s, (x[0] * t.type(2), x[1] * t.type(2)))
        s = _add_2v(s, (x2 * x[0]) * tt)
        r = s[0] + s[1]
        r = np.where(ok, r, np.log(d))  # NaN, inf, 0 (-inf), negatives (NaN) as IEEE log
    return np.asarray(r, t)


exp = _chunked(_exp)
log = _chunked(_log)
