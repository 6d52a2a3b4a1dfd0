"""The exact fused multiply-add (ops/fma.py) against rational arithmetic, SLEEF's exp/log
emulation (ops/sleef.py) against the C library and IEEE special values, and ATen's
softmax kernels (ops/aten_softmax.py) against torch on shapes the numerics goldens do not
have (3-D, masked rows with -inf, every dim; skipped without torch)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from diffcli.engine.ops import aten_softmax, fma, sleef


def round_fraction(q: Fraction, mant_bits: int, min_exp: int) -> float:
    """q rounded to nearest-even with mant_bits of significand (subnormals below
    2**min_exp), as a Python float (exact for float32 and float64 results)."""
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    while Fraction(2) ** e > q:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    e = max(e, min_exp)
    scale = Fraction(2) ** (e - mant_bits + 1)
    m = q / scale
    n, r = divmod(m.numerator, m.denominator)
    twice = 2 * r
    if twice > m.denominator or (twice == m.denominator and n % 2):
        n += 1
    return sign * float(Fraction(n) * scale)


def cases(dtype, n=3000, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dtype)
    b = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dtype)
    c = (rng.standard_normal(n) * 10.0 ** rng.integers(-16, 16, n)).astype(dtype)
    k = n // 3  # c = -RN(a * b): the result is the product's rounding error
    c[:k] = -(a[:k] * b[:k])
    # c a tiny fraction of a * b: the products' low bits decide the rounding
    c[k : 2 * k] = (a[k : 2 * k] * b[k : 2 * k] * dtype(1e-9)).astype(dtype)
    return a, b, c


@pytest.mark.parametrize("dtype,bits,emin", [(np.float32, 24, -126), (np.float64, 53, -1022)])
def test_fma_is_one_rounding(dtype, bits, emin):
    a, b, c = cases(dtype)
    got = fma.fma(a, b, c, np.dtype(dtype))
    want = np.array(
        [
            round_fraction(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), bits, emin)
            for x, y, z in zip(a, b, c)
        ],
        dtype=dtype,
    )
    assert got.dtype == dtype
    assert np.array_equal(got, want)
    # the unfused a * b + c differs in many of these cases: the test can fail
    with np.errstate(all="ignore"):
        assert np.count_nonzero((a * b + c).astype(dtype) != want) > 100


def test_fma32_ties_take_round_to_odd():
    # a * b + c exactly halfway between two float32 after a float64 rounding
    a = np.float32(1 + 2**-12)
    b = np.float32(1 + 2**-12)  # a * b = 1 + 2**-11 + 2**-24 exactly
    c = np.float32(2**-80)  # lost in the float64 sum, which lands on the float32 midpoint
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    assert float(fma.fma32(a, b, c)) == round_fraction(exact, 24, -126)
    assert float(fma.fma32(a, b, c)) == 1 + 2**-11 + 2**-23  # up: the tie is broken by c
    naive = np.float32(np.float64(a) * np.float64(b) + np.float64(c))
    assert float(naive) == 1 + 2**-11  # twice rounded: down (what the test guards against)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exp_within_one_ulp_and_specials(dtype):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-80, 80, 5000), rng.uniform(-1e-3, 1e-3, 1000)]).astype(dtype)
    got = sleef.exp(x)
    ref = np.array([math.exp(float(v)) for v in x])
    ulp = np.spacing(np.abs(ref).astype(dtype)).astype(np.float64)
    assert np.all(np.abs(got.astype(np.float64) - ref) <= ulp)
    # SLEEF's own rounding (a 1.0-ULP function), not the C library's: some results differ
    assert 0 < np.count_nonzero(got != ref.astype(dtype)) < 0.15 * x.size
    special = np.array([-np.inf, np.inf, np.nan, 0.0, -0.0, -110.0, 1000.0], dtype)
    out = sleef.exp(special)
    assert out[0] == 0 and out[1] == np.inf and np.isnan(out[2]) and out[3] == 1 and out[4] == 1
    assert out[5] == (0 if dtype == np.float32 else math.exp(-110.0)) and out[6] == np.inf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_within_one_ulp_and_specials(dtype):
    rng = np.random.default_rng(2)
    x = (10.0 ** rng.uniform(-30, 30, 5000)).astype(dtype)
    got = sleef.log(x)
    ref = np.array([math.log(float(v)) for v in x])
    ulp = np.spacing(np.abs(ref).astype(dtype)).astype(np.float64)
    assert np.all(np.abs(got.astype(np.float64) - ref) <= ulp)
    out = sleef.log(np.array([1.0, 0.0, -1.0, np.inf, np.nan], dtype))
    assert out[0] == 0 and out[1] == -np.inf and np.isnan(out[2]) and out[3] == np.inf and np.isnan(out[4])


def test_large_inputs_are_chunked_alike():
    x = np.linspace(-50, 0, 3 * sleef.CHUNK + 7, dtype=np.float32)
    whole = sleef.exp(x)
    parts = np.concatenate([sleef.exp(x[i : i + 1000]) for i in range(0, x.size, 1000)])
    assert np.array_equal(whole, parts)


def _torch_cases(torch):
    rng = np.random.default_rng(7)
    for dtype in (np.float32, np.float64):
        for _ in range(120):
            shape = tuple(int(v) for v in rng.integers(1, 24, rng.integers(1, 4)))
            x = (rng.standard_normal(shape) * rng.choice([0.1, 3.0, 40.0])).astype(dtype)
            if rng.random() < 0.3:
                x[rng.random(shape) < 0.25] = -np.inf  # attention-style masks
            for dim in range(x.ndim):
                yield x, dim


@pytest.mark.parametrize("threads", [1, 2])
def test_softmax_kernels_match_torch_bits(threads):
    torch = pytest.importorskip("torch")
    from diffcli.engine.ops import cascade_sum

    saved = torch.get_num_threads(), cascade_sum.THREADS
    torch.set_num_threads(threads)
    cascade_sum.THREADS = threads
    try:
        n = 0
        rng = np.random.default_rng(8)
        for x, dim in _torch_cases(torch):
            g = rng.standard_normal(x.shape).astype(x.dtype)
            for log in (False, True):
                fn = torch.log_softmax if log else torch.softmax
                bw = (
                    torch.ops.aten._log_softmax_backward_data
                    if log
                    else torch.ops.aten._softmax_backward_data
                )
                y = fn(torch.from_numpy(x), dim)
                got = aten_softmax.forward(x, dim, log)
                same = (got == y.numpy()) | (np.isnan(got) & np.isnan(y.numpy()))
                assert same.all(), (x.shape, dim, log)
                if np.isfinite(x).all():
                    want = bw(torch.from_numpy(g), y, dim, y.dtype).numpy()
                    assert np.array_equal(aten_softmax.backward_data(g, y.numpy(), dim, log), want)
                n += 1
        assert n > 500
    finally:
        torch.set_num_threads(saved[0])
        cascade_sum.THREADS = saved[1]
