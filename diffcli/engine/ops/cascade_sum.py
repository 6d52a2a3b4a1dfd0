"""ATen's CPU sum of floating tensors, in its order of additions (ATen/native/cpu/SumKernel.cpp),
so that a float32 `sum`, `mean` (sum, then a division) or a gradient summed over a batch
rounds as PyTorch's does. numpy's pairwise/SIMD sums round differently (a sum of 5 float32
values already differs), which is enough to change every loss of a training loop after its
first step.

The kernel, for a serial reduction (fewer than 32768 elements: ATen's GRAIN_SIZE; a larger
one with one output is split across ATen's threads, one with several outputs is split
between outputs, which leaves each output's sum as it is):
- `multi_row_sum(rows)`: a cascade of 4 levels of accumulators; level 0 adds `2^p` rows in
  sequence (p = max(4, ceil(log2(size)) // 4)), then carries into level 1 (and on, while the
  row count is a multiple of the next level's span); at the end levels 1..3 are added to 0;
- `row_sum(x)`: x read as (size // 4, 4): the 4 columns cascaded, the rows left over added
  to the first, then the 4 partial sums added in order;
- a full reduction of GRAIN_SIZE elements or more: split in THREADS chunks (threaded_sum);
- contiguous inner reduction of n >= V elements (V = 32 bytes / itemsize, the AVX2 vector
  that the reduction runs): row_sum over the vectors; then 0 + the n % V trailing values in
  order + the V lanes in order; n < V: the scalar row_sum;
- reduction over the outer dim of an (n, C) array: columns in blocks of 4V (C >= V; else 4)
  cascade down their rows; the other columns take row_sum.
Every accumulation is sequential in the array's dtype (`np.cumsum` from the accumulator).
"""

from __future__ import annotations

import numpy as np

GRAIN_SIZE = 32768
THREADS = 2  # ATen's intra-op threads (at::get_num_threads()): how a reduction of GRAIN_SIZE elements or more is split


def _seq(acc: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """acc + rows[0] + rows[1] + ..., one rounding per addition, in order."""
    if not len(rows):
        return acc
    return np.cumsum(np.concatenate([acc[None], rows]), axis=0, dtype=acc.dtype)[-1]


def _group_sums(rows: np.ndarray, step: int) -> np.ndarray:
    """The sum of each run of `step` rows (the last, shorter run left out), each from zero
    in sequence: `step` additions over all runs at once."""
    runs = len(rows) // step
    grouped = rows[: runs * step].reshape(runs, step, *rows.shape[1:])
    total = np.zeros((runs, *rows.shape[1:]), rows.dtype)
    for k in range(step):
        total = total + grouped[:, k]
    return total


def multi_row_sum(rows: np.ndarray) -> np.ndarray:
    """Level 0 adds each run of `2^p` rows from zero; a full run carries into level 1, which
    adds `2^p` of them from zero and carries into level 2, and so on; level 3 keeps adding.
    So each level's sum is its runs' sums, and what stays in a level at the end is the
    sequence of its last, unfinished run. The loop is over the levels, not the rows."""
    size = rows.shape[0]
    power = max(4, ((size - 1).bit_length() if size > 1 else 0) // 4)
    step = 1 << power
    zero = np.zeros(rows.shape[1:], rows.dtype)
    left = []
    level = rows
    for _ in range(3):
        sums = _group_sums(level, step)
        left.append(_seq(zero, level[len(sums) * step :]))
        level = sums
    left.append(_seq(zero, level))
    total = left[0]
    for j in range(1, 4):
        total = total + left[j]
    return total


def row_sum(rows: np.ndarray) -> np.ndarray:
    size = rows.shape[0]
    k = size // 4
    if k:
        partial = multi_row_sum(rows[: k * 4].reshape(k, 4, *rows.shape[1:])).copy()
    else:
        partial = np.zeros((4, *rows.shape[1:]), rows.dtype)
    partial[0] = _seq(partial[0], rows[k * 4 :])
    total = partial[0]
    for j in range(1, 4):
        total = total + partial[j]
    return total


def inner_sum(x: np.ndarray) -> np.ndarray:
    """Sum of each row of a C-contiguous (M, n) array."""
    m, n = x.shape
    v = 32 // x.dtype.itemsize
    if n < v:
        return row_sum(np.ascontiguousarray(x.T))
    k = n // v
    lanes = row_sum(x[:, : k * v].reshape(m, k, v).transpose(1, 0, 2))  # (M, V)
    final = _seq(np.zeros(m, x.dtype), np.ascontiguousarray(x[:, k * v :].T))
    return _seq(final, np.ascontiguousarray(lanes.T))


def outer_sum(x: np.ndarray) -> np.ndarray:
    """Sum down the rows of a C-contiguous (n, C) array."""
    c = x.shape[1]
    v = 32 // x.dtype.itemsize
    block = 4 * v if c >= v else 4
    split = c - c % block
    out = np.empty(c, x.dtype)
    if split:
        out[:split] = multi_row_sum(x[:, :split])
    if split < c:
        out[split:] = row_sum(x[:, split:])
    return out


def chunks(n: int, grain: int = GRAIN_SIZE):
    """at::parallel_for(0, n, grain) under OpenMP: the (begin, end) of each thread."""
    threads = min(THREADS, -(-n // grain))
    size = -(-n // threads)
    return [(b, min(n, b + size)) for b in range(0, n, size)]


def threaded_sum(x: np.ndarray) -> np.ndarray:
    """A 1-D sum of GRAIN_SIZE elements or more (TensorIterator's two-pass reduction): each
    thread sums its chunk into its slot of a zeroed buffer of THREADS values, and the
    buffer is then summed as any array."""
    buffer = np.zeros((1, THREADS), x.dtype)
    for t, (b, e) in enumerate(chunks(x.size)):
        buffer[0, t] = inner_sum(x[None, b:e])[0]
    return inner_sum(buffer)[0]


def aten_sum(x: np.ndarray, axes=None, keepdims=False) -> np.ndarray:
    """`x.sum(axes)` as ATen adds, for a float32/float64 C-contiguous array whose reduced
    axes are all, a suffix or a prefix of its axes; numpy's sum otherwise."""
    nd = x.ndim
    dims = tuple(range(nd)) if axes is None else tuple(sorted(a % nd for a in axes)) if nd else ()
    if nd > 1 and dims == tuple(range(nd)) and not x.flags.c_contiguous:
        # a full reduction of a permuted view (x.t()): TensorIterator sorts the dims by
        # stride, so ATen adds in memory order
        y = x.transpose(sorted(range(nd), key=lambda i: -x.strides[i]))
        if y.flags.c_contiguous:
            x = y
    if x.dtype not in (np.float32, np.float64) or not x.flags.c_contiguous or not x.size or not dims:
        return np.asarray(x.sum(axis=None if axes is None else dims, keepdims=keepdims), dtype=x.dtype)
    kept = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    n = 1
    for d in dims:
        n *= x.shape[d]
    if x.size >= GRAIN_SIZE and n == x.size and THREADS > 1:
        out = threaded_sum(x.reshape(-1))
        return out.reshape((1,) * nd if keepdims else ())
    # as TensorIterator, leave out the dims of size 1 before telling inner from outer
    sized = [i for i in range(nd) if x.shape[i] != 1]
    red = [k for k, i in enumerate(sized) if i in dims]
    if red == list(range(len(sized) - len(red), len(sized))):
        out = inner_sum(x.reshape(-1, n))
    elif red == list(range(len(red))):
        out = outer_sum(x.reshape(n, -1))
    else:
        return np.asarray(x.sum(axis=dims, keepdims=keepdims), dtype=x.dtype)
    out = out.reshape(kept)
    if keepdims:
        out = out.reshape(tuple(1 if i in dims else s for i, s in enumerate(x.shape)))
    return np.asarray(out, dtype=x.dtype)


def aten_mean(x: np.ndarray, axes=None, keepdims=False) -> np.ndarray:
    """ATen's CPU mean of a float tensor: the sum, then a division by the count."""
    dims = tuple(range(x.ndim)) if axes is None else axes
    n = 1
    for d in dims:
        n *= x.shape[d] if x.ndim else 1
    s = aten_sum(x, axes, keepdims)
    with np.errstate(all="ignore"):
        return np.asarray(s / x.dtype.type(n) if n else s * x.dtype.type(np.nan), dtype=x.dtype)
