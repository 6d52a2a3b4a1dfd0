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
  then the trailing elements one by one, sqrt; over another dim: acc += x * x in order.
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
