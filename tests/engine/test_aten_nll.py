"""ATen's nll_loss reduction order (ops/aten_nll.py) against torch's bits: 'mean' and 'sum',
with and without class weights and ignored targets, float32 and float64 (torch-only)."""

from __future__ import annotations

import numpy as np
import pytest

from diffcli.engine.ops import aten_nll


def test_nll_reduction_matches_torch_bits():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(0)
    n_cases = 0
    for dtype in (np.dtype(np.float32), np.dtype(np.float64)):
        for _ in range(150):
            n = int(np.exp(rng.uniform(0, np.log(3000))))
            c = int(rng.integers(2, 20))
            x = rng.standard_normal((n, c)).astype(dtype)
            t = rng.integers(0, c, n)
            if rng.random() < 0.3:
                t[rng.random(n) < 0.2] = -100
            w = rng.random(c).astype(dtype) + dtype.type(0.5) if rng.random() < 0.5 else None
            valid = t != -100
            safe = np.where(valid, t, 0)
            values = x[np.arange(n), safe]
            for reduction in ("mean", "sum"):
                want = F.nll_loss(
                    torch.from_numpy(x),
                    torch.from_numpy(t),
                    weight=None if w is None else torch.from_numpy(w),
                    reduction=reduction,
                ).numpy()
                got = np.asarray(
                    aten_nll.reduce(values, valid, None if w is None else w[safe], reduction, dtype), dtype
                )
                assert got.tobytes() == want.tobytes() or (np.isnan(got) and np.isnan(want))
                n_cases += 1
    assert n_cases == 600
