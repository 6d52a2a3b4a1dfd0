"""ATen's CPU softmax and log_softmax forward kernels of float tensors (SoftMaxKernel.cpp,
LogSoftmaxKernelImpl.h, vectorised with AVX512: V = 16 floats or 8 doubles), in their
order of operations, so that the results round as PyTorch's do:

- the last dim (softmax_lastdim_kernel, also for a 1-D tensor), per row: the max; e =
  SLEEF exp(x - max) (sleef.py); the sum by vec::reduce_all: lane j adds e[j], e[j+V], ...
  in order (the partial last vector into its first lanes), then the V lanes: float32 by
  the AVX512 shuffle tree (j + j^8, then ^4, ^2, ^1), float64 one by one; a row shorter
  than V is summed in order. softmax = e * (1 / sum); log_softmax = x - max - SLEEF log(sum);
- another dim (softmax_kernel), over (outer, dim, inner): each inner position sums its
  exps down the dim in order, from 0. softmax: the outer * inner positions are split
  between ATen's threads (at::parallel_for's chunks: torch 2.13 splits any size, measured);
  in each chunk, runs of V positions within one row take SLEEF's exp, the rest (tails) the
  C library's exp (std::exp); e / sum (a division). log_softmax:
  per chunk of inner positions (a multiple of V, about 128 KB), the last chunk_size % V
  positions take the C library's exp, the others SLEEF's; then x - max - SLEEF log(sum).
"""

from __future__ import annotations

import math

import numpy as np

from . import cascade_sum, sleef
from .fma import fma, fma_accumulate
from .zero_d_math import c_float_function

F32 = np.dtype(np.float32)
_EXPF = c_float_function("exp", math.exp)


def _lanes(x: np.ndarray) -> int:
    return 64 // x.dtype.itemsize


def _seq_sum(a: np.ndarray, axis: int) -> np.ndarray:
    """a[0] + a[1] + ... along axis, one rounding per addition, in order."""
    return np.take(np.cumsum(a, axis=axis, dtype=a.dtype), -1, axis=axis)


def _reduce_all_sum(e: np.ndarray, fused_tail=None) -> np.ndarray:
    """vec::reduce_all(+) of each row of e (M, n). fused_tail = (g, y) with e = g * y:
    the partial last vector adds g * y fused (what the compiler made of map2_reduce_all in
    one of its copies)."""
    m, n = e.shape
    v = 64 // e.dtype.itemsize
    if n < v:
        return _seq_sum(e, 1)
    k = n - n % v
    acc = _seq_sum(e[:, :k].reshape(m, k // v, v), 1)
    if n > k:
        if fused_tail is None:
            acc[:, : n - k] = acc[:, : n - k] + e[:, k:]
        else:
            g, y = fused_tail
            acc[:, : n - k] = fma(g[:, k:], y[:, k:], acc[:, : n - k], e.dtype)
    if e.dtype == F32:
        lane = np.arange(v)
        for s in (8, 4, 2, 1):
            acc = acc + acc[:, lane ^ s]
        return acc[:, 0]
    return _seq_sum(acc, 1)


def _c_exp(a: np.ndarray) -> np.ndarray:
    """std::exp of each element: the C library's expf / exp."""
    f = _EXPF if a.dtype == F32 else math.exp
    flat = a.reshape(-1).tolist()
    out = []
    for v in flat:
        try:
            out.append(f(v))
        except OverflowError:
            out.append(math.inf)
    return np.array(out, dtype=a.dtype).reshape(a.shape)


def lastdim(x: np.ndarray, log: bool) -> np.ndarray:
    """(log_)softmax over the last dim of a C-contiguous float32/float64 array."""
    n = x.shape[-1]
    rows = x.reshape(-1, n)
    with np.errstate(all="ignore"):
        d = rows - np.max(rows, axis=1, keepdims=True)
        e = sleef.exp(d)
        s = _reduce_all_sum(e)[:, None]
        if log:
            out = d - sleef.log(s)
        else:
            out = e * (x.dtype.type(1) / s)
    return out.reshape(x.shape)


def _softmax_vector_positions(outer: int, inner: int, v: int) -> np.ndarray:
    """Which of the outer * inner positions _vec_softmax takes in whole vectors."""
    total = outer * inner
    ranges = [(0, total)] if total <= 1 or cascade_sum.THREADS == 1 else cascade_sum.chunks(total, 1)
    vec = np.zeros(total, bool)
    if inner < v:
        return vec
    for begin, end in ranges:
        idx = begin
        while idx < end:
            inner_idx = idx % inner
            if inner_idx + v <= inner and idx + v <= end:
                # a run of whole vectors in this row and chunk
                stop = min(end, idx - inner_idx + inner)
                k = (stop - idx) // v
                vec[idx : idx + k * v] = True
                idx += k * v
            else:
                idx += end - idx if idx + v > end else inner - inner_idx
    return vec


def _logsoftmax_vector_positions(inner: int, dim: int, itemsize: int, v: int) -> np.ndarray:
    chunk = max((128 * 1024) // dim // itemsize, v) // v * v
    chunk = min(chunk, inner)
    pos = np.arange(inner)
    begin = pos // chunk * chunk
    size = np.minimum(chunk, inner - begin)
    return (pos - begin) < size - size % v


def otherdim(x: np.ndarray, dim: int, log: bool) -> np.ndarray:
    """(log_)softmax over a dim that is not the last, of a C-contiguous float array."""
    shape = x.shape
    outer = int(np.prod(shape[:dim], dtype=np.int64))
    inner = int(np.prod(shape[dim + 1 :], dtype=np.int64))
    n = shape[dim]
    v = _lanes(x)
    a = x.reshape(outer, n, inner)
    if log:
        vec = np.broadcast_to(_logsoftmax_vector_positions(inner, n, x.itemsize, v), (outer, inner))
    else:
        vec = _softmax_vector_positions(outer, inner, v).reshape(outer, inner)
    with np.errstate(all="ignore"):
        d = a - np.max(a, axis=1, keepdims=True)
        e = np.empty_like(d)
        vec3 = np.broadcast_to(vec[:, None, :], d.shape)
        if vec.any():
            e[vec3] = sleef.exp(d[vec3])
        if not vec.all():
            e[~vec3] = _c_exp(d[~vec3])
        s = _seq_sum(e, 1)[:, None, :]
        out = d - sleef.log(s) if log else e / s
    return out.reshape(shape)


def forward(x: np.ndarray, dim: int, log: bool):
    """ATen's (log_)softmax of x over dim, or None where these kernels do not apply (not
    float32/float64, 0-d, empty); as ATen, on a contiguous copy."""
    if x.dtype not in (np.float32, np.float64) or not x.ndim or not x.size:
        return None
    x = np.ascontiguousarray(x)
    if dim == x.ndim - 1:
        return lastdim(x, log)
    return otherdim(x, dim, log)


VECTOR_COLUMNS = 32  # from this many columns, a non-last dim's fused running sums step in numpy


def backward_data(g: np.ndarray, y: np.ndarray, dim: int, log: bool):
    """ATen's _softmax_backward_data(g, y) = y * (g - sum(g * y)) and
    _log_softmax_backward_data(g, y) = g - exp(y) * sum(g) over dim, in its kernels' order
    (measured against torch 2.13): the last dim: sum(g * y) by vec::reduce_all of the
    rounded products (float32 in the calling thread: the partial last vector fused),
    sum(g) likewise, g - exp(y) * sum fused (one rounding) with SLEEF's
    exp; another dim: the sums down the dim in order, g * y fused into each step, and
    g - exp(y) * sum fused, exp SLEEF's in whole vectors and the C library's in the tails
    (as the forward log_softmax). None where these do not apply (other dtypes, 0-d, empty)."""
    if g.dtype != y.dtype or y.dtype not in (np.float32, np.float64) or not y.ndim or not y.size:
        return None
    t = y.dtype
    g = np.ascontiguousarray(g)
    y = np.ascontiguousarray(y)
    shape = y.shape
    with np.errstate(all="ignore"):
        if dim == y.ndim - 1:
            n = shape[-1]
            gr, yr = g.reshape(-1, n), y.reshape(-1, n)
            if log:
                out = fma(-sleef.exp(yr), _reduce_all_sum(gr)[:, None], gr, t)
            else:
                # float32 rows run in the calling thread (one row, or one thread) fuse the
                # partial last vector's multiply-adds; on ATen's worker threads they do not
                serial = gr.shape[0] == 1 or cascade_sum.THREADS == 1
                tail = (gr, yr) if serial and t == F32 else None
                out = (gr - _reduce_all_sum(gr * yr, tail)[:, None]) * yr
            return out.reshape(shape)
        outer = int(np.prod(shape[:dim], dtype=np.int64))
        inner = int(np.prod(shape[dim + 1 :], dtype=np.int64))
        n = shape[dim]
        ga, ya = g.reshape(outer, n, inner), y.reshape(outer, n, inner)
        if log:
            vec = _logsoftmax_vector_positions(inner, n, y.itemsize, _lanes(y))
            vec3 = np.broadcast_to(vec[None, None, :], ya.shape)
            e = np.empty_like(ya)
            if vec.any():
                e[vec3] = sleef.exp(ya[vec3])
            if not vec.all():
                e[~vec3] = _c_exp(ya[~vec3])
            out = fma(-e, _seq_sum(ga, 1)[:, None, :], ga, t)
            return out.reshape(shape)
        if outer * inner >= VECTOR_COLUMNS:  # a numpy step per element of the dim
            acc = np.zeros((outer, inner), t)
            for k in range(n):
                acc = fma(ga[:, k], ya[:, k], acc, t)
        else:  # few, long columns: each on Python floats
            gc = np.moveaxis(ga, 1, -1).reshape(-1, n).tolist()
            yc = np.moveaxis(ya, 1, -1).reshape(-1, n).tolist()
            acc = np.array([fma_accumulate(a, b, t) for a, b in zip(gc, yc)], t).reshape(outer, inner)
        return (ya * (ga - acc[:, None, :])).reshape(shape)
