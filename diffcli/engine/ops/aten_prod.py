"""ATen's CPU prod and cumsum of float tensors in their order of operations (cpu/Reduce.h's
binary_kernel_reduce_vec; cpu/ReduceOpsKernel.cpp's cumsum), so that they round as PyTorch's:

- prod along a contiguous (last) dim, per output: n // 4V blocks of 4 AVX2 vectors
  (V = 8 float32 or 4 float64 lanes), 4 vector accumulators set to the first block and
  multiplied by each next one in order, combined as (a0 * a1) * (a2 * a3), the V lanes
  multiplied in order into 1, then the n % 4V trailing elements one by one; a full product
  of GRAIN_SIZE elements or more: that per thread chunk, the chunks' results multiplied
  into 1 in order;
- prod down an outer dim: the product down each column in order (the vector blocks and the
  remaining columns both come to that);
- cumsum of float32: a float64 running sum, each output rounded (acc_type<float> is double).
"""

from __future__ import annotations

import numpy as np

from . import cascade_sum as S


def _inner_prod(rows: np.ndarray) -> np.ndarray:
    """Products of each row of a C-contiguous (M, n) array."""
    m, n = rows.shape
    v = 32 // rows.itemsize
    block = 4 * v
    count = n // block
    out = np.ones(m, rows.dtype)
    if count:
        blocks = rows[:, : count * block].reshape(m, count, 4, v)
        acc = np.cumprod(blocks, axis=1, dtype=rows.dtype)[:, -1]  # (M, 4, V), in order
        lanes = (acc[:, 0] * acc[:, 1]) * (acc[:, 2] * acc[:, 3])
        total = np.cumprod(lanes, axis=1, dtype=rows.dtype)[:, -1]
        out = out * total
    tail = rows[:, count * block :]
    if tail.shape[1]:
        out = np.cumprod(np.concatenate([out[:, None], tail], axis=1), axis=1, dtype=rows.dtype)[:, -1]
    return out


def aten_prod(x: np.ndarray, axis=None, keepdims=False):
    """x.prod(axis) in ATen's order for a C-contiguous float32/float64 array; None otherwise."""
    if x.dtype not in (np.float32, np.float64) or not x.flags.c_contiguous or not x.ndim or not x.size:
        return None
    shape = x.shape
    if axis is None or all(s == 1 for i, s in enumerate(shape) if i != axis):
        flat = x.reshape(-1)
        if flat.size >= S.GRAIN_SIZE and S.THREADS > 1:
            parts = [_inner_prod(flat[None, b:e])[0] for b, e in S.chunks(flat.size)]
            parts += [flat.dtype.type(1)] * (S.THREADS - len(parts))
            out = np.cumprod(np.array([1, *parts], flat.dtype), dtype=flat.dtype)[-1]
        else:
            out = _inner_prod(flat[None])[0]
        out_shape = () if axis is None else shape[:axis] + shape[axis + 1 :]
    else:
        outer = int(np.prod(shape[:axis], dtype=np.int64))
        inner = int(np.prod(shape[axis + 1 :], dtype=np.int64))
        out_shape = shape[:axis] + shape[axis + 1 :]
        if inner == 1:
            out = _inner_prod(x.reshape(outer, shape[axis]))
        elif outer == 1:
            out = np.cumprod(x.reshape(shape[axis], inner), axis=0, dtype=x.dtype)[-1]
        else:
            return None
    out = np.asarray(out, dtype=x.dtype).reshape(out_shape)
    if keepdims:
        out = out.reshape(tuple(1 if axis is None or i == axis else s for i, s in enumerate(shape)))
    return out


def aten_cumsum(x: np.ndarray, axis: int) -> np.ndarray:
    if x.dtype == np.float32:
        return np.cumsum(x, axis=axis, dtype=np.float64).astype(np.float32)
    return np.cumsum(x, axis=axis)
