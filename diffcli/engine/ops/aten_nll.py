"""ATen's CPU nll_loss / nll_loss2d reduction (LossNLL.cpp, LossNLL2d.cpp: nll_loss_out_frame),
in its order of additions, so that a 'mean' or 'sum' loss rounds as PyTorch's does:

a sequential loop over the samples (NllLoss2D: over batch, then positions, index
b * map_size + elem) keeps 8 partial sums; sample i subtracts its value (times its class
weight, the product rounded first) from level 0 and adds its weight to level 0 of the
weights, then, while i's bits under level j's mask (2^p - 1 << j*p, p =
max(4, ceil(log2(n)) // 8)) are 0, carries level j into level j + 1 and clears it; ignored
samples are skipped (no carry). The loss is 0 + level 0 + ... + level 7 in order; the total
weight the count of samples not ignored (no class weights) or the weights' levels summed
likewise; 'mean' divides. Measured bit-exact against torch 2.13 (tests/engine/test_aten_nll.py);
losses._nll reduces through it.
"""

from __future__ import annotations

import numpy as np

from .fma import _to_f32

LEVELS = 8


def _ceil_log2(n: int) -> int:
    return 0 if n <= 1 else (n - 1).bit_length()


def reduce(values: np.ndarray, valid: np.ndarray, weights, reduction: str, dtype) -> float:
    """values: each sample's picked input (x[i, target_i]) in ATen's loop order, valid: not
    ignored, weights: each sample's class weight or None. Returns the reduced loss."""
    f32 = np.dtype(dtype) == np.float32
    rnd = _to_f32 if f32 else float
    n = int(values.size)
    power = max(4, _ceil_log2(n) // LEVELS)
    mask = (1 << power) - 1
    loss = [0.0] * LEVELS
    wsum = [0.0] * LEVELS
    vals = values.reshape(-1).tolist()
    ok = valid.reshape(-1).tolist()
    ws = None if weights is None else np.asarray(weights).reshape(-1).tolist()
    for i in range(n):
        if not ok[i]:
            continue
        if ws is None:
            loss[0] = rnd(loss[0] - vals[i])
        else:
            loss[0] = rnd(loss[0] - rnd(vals[i] * ws[i]))
            wsum[0] = rnd(wsum[0] + ws[i])
        for j in range(LEVELS - 1):
            if i & (mask << (j * power)):
                break
            wsum[j + 1] = rnd(wsum[j + 1] + wsum[j])
            loss[j + 1] = rnd(loss[j + 1] + loss[j])
            wsum[j] = loss[j] = 0.0
    total = 0.0
    out = 0.0
    for j in range(LEVELS):
        out = rnd(out + loss[j])
        total = rnd(total + wsum[j])
    if ws is None:
        total = float(sum(ok))
    if reduction == "mean":
        with np.errstate(all="ignore"):
            return float(np.asarray(out, dtype) / np.asarray(total, dtype))
    return out
