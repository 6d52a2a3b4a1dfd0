"""cascade_sum.multi_row_sum adds a level's runs all at once; ATen's kernel
(SumKernel.cpp's multi_row_sum) walks the rows one run at a time. The walk is transcribed
here as written in ATen, and both must give the same bits for every size, including the
sizes where a level carries into the next, and for signed zeros and infinities."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from diffcli.engine.ops import cascade_sum


def aten_walk(rows: np.ndarray) -> np.ndarray:
    size = rows.shape[0]
    power = max(4, ((size - 1).bit_length() if size > 1 else 0) // 4)
    step, mask = 1 << power, (1 << power) - 1
    zero = np.zeros(rows.shape[1:], rows.dtype)
    acc = [zero.copy() for _ in range(4)]
    i = 0
    while i + step <= size:
        for k in range(i, i + step):
            acc[0] = acc[0] + rows[k]
        i += step
        for j in range(1, 4):
            acc[j] = acc[j] + acc[j - 1]
            acc[j - 1] = zero.copy()
            if i & (mask << (j * power)):
                break
    for k in range(i, size):
        acc[0] = acc[0] + rows[k]
    for j in range(1, 4):
        acc[0] = acc[0] + acc[j]
    return acc[0]


SPECIAL = st.sampled_from([0.0, -0.0, np.inf, -np.inf, 1e30, -1e30, 1e-30])


@settings(max_examples=150, deadline=None)
@given(
    size=st.one_of(st.integers(0, 300), st.sampled_from([4095, 4096, 4097, 65536, 65537, 70001])),
    width=st.integers(1, 3),
    dtype=st.sampled_from([np.float32, np.float64]),
    seed=st.integers(0, 2**32 - 1),
    special=st.lists(st.tuples(st.integers(0, 10**6), SPECIAL), max_size=4),
)
@example(size=256, width=1, dtype=np.float64, seed=0, special=[])
@example(size=4096, width=2, dtype=np.float32, seed=1, special=[])
def test_runs_at_once_give_the_walks_bits(size, width, dtype, seed, special):
    rng = np.random.default_rng(seed)
    rows = (rng.standard_normal((size, width)) * 10.0 ** rng.uniform(-4, 4, (size, width))).astype(dtype)
    for at, value in special:
        if rows.size:
            rows.flat[at % rows.size] = value
    want = aten_walk(rows)
    got = cascade_sum.multi_row_sum(rows)
    assert got.dtype == dtype
    assert got.tobytes() == want.tobytes()


def test_all_negative_zeros_sum_to_positive_zero_as_aten():
    rows = np.full((40, 2), -0.0)
    assert np.signbit(aten_walk(rows)).tolist() == [False, False]
    assert np.signbit(cascade_sum.multi_row_sum(rows)).tolist() == [False, False]
