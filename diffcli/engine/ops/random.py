"""PyTorch's CPU generator, bit for bit: torch.manual_seed(s); torch.randn(...) gives
here the numbers PyTorch (2.13, x86-64) gives.

The engine is ATen's at::mt19937 (CPUGeneratorImpl): std::mt19937 seeded with the low
32 bits of the seed. numpy's legacy MT19937 seeding (RandomState) is the same classic
init_genrand, and `random_raw(n)` hands out its raw 32-bit draws in bulk.

Distributions (ATen's DistributionsHelper.h / TransformationHelper.h and
native/cpu/DistributionTemplates.h):
- uniform_real_distribution<float>: (random() & (2^24-1)) * 2^-24; <double>:
  (random64() & (2^53-1)) * 2^-53, random64() = (first << 32) | second draw.
- rand / uniform_: one uniform per element, in memory order.
- randn / normal_, numel >= 16 and contiguous: `normal_fill` -- all uniforms first, then
  Box-Muller on blocks of 16 (u1 = 1 - data[j], u2 = data[j+8]); when numel % 16 != 0 the
  last 16 are refilled with fresh uniforms and recomputed. float32 runs the AVX2 kernel
  (`normal_fill_16_AVX2`: avx_mathfun's log256_ps and sincos256_ps, cephes polynomials
  in float32, which GCC compiles with fused multiply-adds) -- the kernel PyTorch runs on
  any CPU with AVX2 (also under AVX512); float64 runs the scalar kernel on glibc's
  log/cos/sin (Python's math module is glibc's libm; numpy's own log is not).
- otherwise (numel < 16, or a non-contiguous layout): `normal_distribution<double>` per
  element: u1, u2 double uniforms, r = sqrt(-2 log1p(-u2)), theta = 2 pi u1, returns
  r cos(theta) and caches r sin(theta) in the generator for the next element; the value
  is then cast to the dtype. manual_seed clears the cache.

PyTorch's default CPU generator starts from a non-deterministic seed (random_device,
see torch.initial_seed() in fresh processes), so an unseeded script cannot be matched;
the engine starts from default_rng_seed_val, and the interpreter seeds each run.
"""

from __future__ import annotations

import math

import numpy as np

from .. import errors

DEFAULT_SEED = 67280421310721  # c10::detail::default_rng_seed_val
_MASK24 = np.uint64((1 << 24) - 1)
_MASK53 = np.uint64((1 << 53) - 1)
_TWO_PI = 2.0 * math.pi


class Generator:
    """at::CPUGeneratorImpl: an mt19937 engine plus the cached second normal sample."""

    def __init__(self, seed: int = DEFAULT_SEED):
        self.manual_seed(seed)

    def manual_seed(self, seed) -> Generator:
        seed = _seed_value(seed)
        self._seed = seed
        self._bits = None  # made at the first draw: importing numpy.random costs ~10 ms
        self.next_double_normal = None
        return self

    def initial_seed(self) -> int:
        return self._seed

    def __repr__(self):
        return "<torch._C.Generator object>"  # (PyTorch's, without the address)

    # --- raw draws ----------------------------------------------------------------
    def random(self, n: int) -> np.ndarray:
        """n 32-bit draws (uint64 array)."""
        bits = self._bits
        if bits is None:
            bits = self._bits = np.random.RandomState(self._seed & 0xFFFFFFFF)._bit_generator
        return bits.random_raw(n) if n else np.zeros(0, np.uint64)

    def random64(self, n: int) -> np.ndarray:
        """n 64-bit draws, each (first << 32) | second."""
        r = self.random(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    # --- distributions ------------------------------------------------------------
    def uniform(self, n: int, dtype) -> np.ndarray:
        """n uniform_real_distribution(0, 1) values of `dtype` (float32 or float64)."""
        if np.dtype(dtype) == np.float64:
            return (self.random64(n) & _MASK53).astype(np.float64) * 2.0**-53
        return ((self.random(n) & _MASK24).astype(np.float64) * 2.0**-24).astype(np.float32)

    def normal(self, n: int, dtype, contiguous: bool = True) -> np.ndarray:
        """ATen's normal_kernel (mean 0, std 1): n values of `dtype`, in memory order."""
        dtype = np.dtype(dtype)
        if n >= 16 and contiguous:
            return self._normal_fill(n, dtype)
        return self._normal_serial(n).astype(dtype)

    def _normal_fill(self, n: int, dtype) -> np.ndarray:
        fill16 = _fill16_avx2_f32 if dtype == np.float32 else _fill16_f64
        data = self.uniform(n, dtype)
        full = n - n % 16
        data[:full] = fill16(data[:full])
        if n % 16:
            data[n - 16 :] = fill16(self.uniform(16, dtype))
        return data

    def _normal_serial(self, n: int) -> np.ndarray:
        out = np.empty(n, np.float64)
        k = 0
        if n and self.next_double_normal is not None:
            out[0] = self.next_double_normal
            self.next_double_normal = None
            k = 1
        m = n - k
        if m <= 0:
            return out
        pairs = (m + 1) // 2
        u = self.uniform(2 * pairs, np.float64)  # u1, u2, u1, u2, ... in draw order
        cos, sin = [], []
        for u1, u2 in zip(u[0::2].tolist(), u[1::2].tolist()):
            r = math.sqrt(-2.0 * math.log1p(-u2))
            theta = _TWO_PI * u1
            cos.append(r * math.cos(theta))
            sin.append(r * math.sin(theta))
        vals = np.empty(2 * pairs, np.float64)
        vals[0::2] = cos
        vals[1::2] = sin
        out[k:] = vals[:m]
        if m % 2:
            self.next_double_normal = sin[-1]
        return out


def _seed_value(seed) -> int:
    """torch.manual_seed's argument as the generator's uint64 seed: int(seed), negative
    values wrap modulo 2^64, outside [-2^63, 2^64) is Python's overflow error."""
    if hasattr(seed, "item") and not isinstance(seed, (int, float)):
        seed = seed.item()
    try:
        seed = int(seed)
    except TypeError as e:
        raise errors.TorchTypeError(str(e)) from None
    except ValueError as e:
        raise errors.TorchValueError(str(e)) from None
    if not -(1 << 63) <= seed < (1 << 64):
        raise errors.TorchValueError("Overflow when unpacking long long")
    return seed & 0xFFFFFFFFFFFFFFFF


# --- normal_fill_16, float64: the scalar kernel on glibc's libm -----------------------
def _fill16_f64(d: np.ndarray) -> np.ndarray:
    if not d.size:
        return d
    b = d.reshape(-1, 16)
    u1 = (1.0 - b[:, :8]).ravel().tolist()
    u2 = b[:, 8:].ravel().tolist()
    radius = [math.sqrt(-2 * math.log(v)) for v in u1]
    theta = [_TWO_PI * v for v in u2]
    cos = np.array([r * math.cos(t) for r, t in zip(radius, theta)]).reshape(-1, 8)
    sin = np.array([r * math.sin(t) for r, t in zip(radius, theta)]).reshape(-1, 8)
    return np.concatenate([cos, sin], axis=1).ravel()


# --- normal_fill_16_AVX2, float32: avx_mathfun in float32, with GCC's FMA contraction ---
_F = np.float32


def _fma(a, b, c) -> np.ndarray:
    """float32 fused multiply-add, correctly rounded: the product is exact in float64,
    the float64 sum is made round-to-odd (TwoSum), then rounded once to float32."""
    s = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    hi = s + c
    bb = hi - s
    lo = (s - (hi - bb)) + (c - bb)
    hi = np.broadcast_to(hi, np.broadcast(hi, lo).shape)
    fix = (lo != 0) & ((hi.view(np.int64) & 1) == 0)
    if fix.any():
        hi = np.where(fix, np.nextafter(hi, np.where(lo > 0, np.inf, -np.inf)), hi)
    return hi.astype(np.float32)


_LOG_P = [
    _F(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_MIN_NORM = np.array(0x00800000, np.int32).view(np.float32)
_HALF_BITS = np.float32(0.5).view(np.int32)


def _log256_ps(x: np.ndarray) -> np.ndarray:
    """avx_mathfun's log256_ps for x > 0 (as compiled: every mul feeding an add fused)."""
    x = np.maximum(x, _MIN_NORM)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(np.float32) + _F(1)
    x = ((bits & ~0x7F800000) | _HALF_BITS).view(np.float32)
    mask = x < _F(0.707106781186547524)
    tmp = np.where(mask, x, _F(0))
    x = x - _F(1)
    e = e - np.where(mask, _F(1), _F(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = _fma(y, x, p)
    y = y * x
    y = _fma(y, z, e * _F(-2.12194440e-4))
    y = _fma(-z, _F(0.5), y)
    x = x + y
    return _fma(e, _F(0.693359375), x)


def _sincos256_ps(x: np.ndarray):
    """avx_mathfun's sincos256_ps (cephes sinf/cosf), as compiled with FMA."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _F(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(np.float32)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    poly_mask = (j & 2) == 0
    sign_cos = (~(j - 2) & 4) != 0
    x = _fma(y, _F(-0.78515625), x)
    x = _fma(y, _F(-2.4187564849853515625e-4), x)
    x = _fma(y, _F(-3.77489497744594108e-8), x)
    z = x * x
    yc = _fma(np.full_like(z, _F(2.443315711809948e-005)), z, _F(-1.388731625493765e-003))
    yc = _fma(yc, z, _F(4.166664568298827e-002))
    yc = yc * z
    yc = _fma(yc, z, -(z * _F(0.5)))
    yc = yc + _F(1)
    ys = _fma(np.full_like(z, _F(-1.9515295891e-4)), z, _F(8.3321608736e-3))
    ys = _fma(ys, z, _F(-1.6666654611e-1))
    ys = ys * z
    ys = _fma(ys, x, x)
    sin = np.where(poly_mask, ys, yc)
    cos = np.where(poly_mask, yc, ys)
    return np.where(sign_sin, -sin, sin), np.where(sign_cos, -cos, cos)


def _fill16_avx2_f32(d: np.ndarray) -> np.ndarray:
    if not d.size:
        return d
    b = d.reshape(-1, 16)
    u1 = _F(1) - b[:, :8]
    u2 = b[:, 8:]
    radius = np.sqrt(_F(-2) * _log256_ps(u1))
    theta = _F(_TWO_PI) * u2
    sin, cos = _sincos256_ps(theta)
    return np.concatenate([radius * cos, radius * sin], axis=1).ravel()


default_generator = Generator()


def generator_or_default(generator, fn: str) -> Generator:
    """The `generator=` argument of a random function: a Generator, or the default one."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise errors.TorchTypeError(
            f"{fn}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}"
        )
    return generator


def randperm_values(n: int, gen: Generator) -> np.ndarray:
    """ATen's randperm_cpu: 0..n-1 shuffled in place by Fisher-Yates, position i swapped
    with i + (a 32-bit draw % (n - i))."""
    r = list(range(n))
    draws = gen.random(max(n - 1, 0)).tolist()
    for i in range(n - 1):
        z = draws[i] % (n - i) + i
        r[i], r[z] = r[z], r[i]
    return np.array(r, dtype=np.int64)


def manual_seed(seed) -> Generator:
    return default_generator.manual_seed(seed)
