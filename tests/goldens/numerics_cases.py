"""The random inputs of the numerics goldens (record_numerics.py records PyTorch's results,
tests/engine/test_numerics.py compares diffcli's): every input is made again from its seed
with numpy's PCG64 Generator, so the golden file holds results only."""

from __future__ import annotations

import hashlib
import zlib

import numpy as np

N_UNARY = 3000  # 0-d inputs per function and dtype
N_REDUCE = 1000  # arrays per dtype (each reduction runs on every one)
MAX_SIZE = 10**5
DTYPES = ("float32", "float64")

# function -> domain of its inputs
UNARY = {
    "sin": "wide",
    "cos": "wide",
    "tan": "wide",
    "asin": "unit",
    "acos": "unit",
    "atan": "wide",
    "sinh": "mid",
    "cosh": "mid",
    "tanh": "mid",
    "asinh": "wide",
    "acosh": "ge1",
    "atanh": "unit",
    "exp": "mid",
    "expm1": "mid",
    "log": "pos",
    "log2": "pos",
    "log10": "pos",
    "log1p": "pos",
    "sqrt": "pos",
    "rsqrt": "pos",
    "reciprocal": "wide",
    "erf": "mid",
    "sinc": "mid",
    "sigmoid": "mid",
    "silu": "mid",
    "gelu": "mid",
    "softplus": "mid",
    "elu": "mid",
    "abs": "wide",
    "sign": "wide",
    "relu": "wide",
    "floor": "wide",
    "ceil": "wide",
    "trunc": "wide",
    "round": "wide",
    "leaky_relu": "wide",
}

REDUCTIONS_FULL = ("sum", "mean", "prod", "amax", "amin", "var", "std", "norm", "logsumexp")
REDUCTIONS_DIM = REDUCTIONS_FULL + ("softmax", "log_softmax", "cumsum")


_TENTHS = np.array([1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6])  # 10**-k as literals (exact decimal parsing)


def seed_of(*parts) -> int:
    return zlib.crc32("/".join(map(str, parts)).encode())


def unary_inputs(name: str, dtype: str, n: int = N_UNARY) -> np.ndarray:
    """n float inputs in the function's domain: a third small magnitudes (log-uniform), the
    rest uniform over the domain's usual range."""
    rng = np.random.default_rng(seed_of("unary", name, dtype))
    domain = UNARY[name]
    lo, hi = {
        "wide": (-10.0, 10.0),
        "mid": (-6.0, 6.0),
        "unit": (-1.0, 1.0),
        "pos": (0.0, 50.0),
        "ge1": (1.0, 50.0),
    }[domain]
    x = rng.uniform(lo, hi, n)
    small = rng.random(n) < 1 / 3
    # (a mantissa in [1, 10) times a power of ten from a table: two exact draws and one
    # rounded product, the same bits on every machine; `10.0 ** uniform` was numpy's SIMD
    # pow, whose last bits differ between CPUs, and so did the inputs)
    mag = rng.uniform(1.0, 10.0, n) * _TENTHS[rng.integers(0, 6, n)]
    if domain == "ge1":
        x = np.where(small, 1.0 + mag, x)
    elif domain == "pos":
        x = np.where(small, mag, x)
    else:
        x = np.where(small, mag * np.where(rng.random(n) < 0.5, -1.0, 1.0), x)
    return x.astype(dtype)


def reduce_case(i: int, dtype: str):
    """Case i: (array, dim): sizes log-uniform from 1 to MAX_SIZE; a third of the cases are
    2-D with a dim (0 or 1), the others 1-D reduced whole (dim None)."""
    rng = np.random.default_rng(seed_of("reduce", dtype, i))
    n = int(np.clip(round(np.exp(rng.uniform(0, np.log(MAX_SIZE)))), 1, MAX_SIZE))
    scale = 10.0 ** rng.uniform(-3, 3)
    offset = rng.uniform(-2, 2) * scale if rng.random() < 0.5 else 0.0
    two_d = rng.random() < 1 / 3
    if two_d:
        rows = int(np.clip(round(np.exp(rng.uniform(0, np.log(n)))), 1, n))
        shape, dim = (rows, max(1, n // rows)), int(rng.integers(0, 2))
    else:
        shape, dim = (n,), None
    x = (rng.standard_normal(shape) * scale + offset).astype(dtype)
    return x, dim


def grad_upstream(i: int, x: np.ndarray) -> np.ndarray:
    """Case i's upstream gradient for softmax/log_softmax (record_softmax_grads.py)."""
    return np.random.default_rng(seed_of("softmax_grad", i)).standard_normal(x.shape).astype(x.dtype)


def prod_input(x: np.ndarray) -> np.ndarray:
    """prod runs on values near 1 (a product of raw values under/overflows)."""
    return (1 + np.tanh(x / np.abs(x).max()) / 64).astype(x.dtype) if x.size else x


def digest(a: np.ndarray) -> str:
    """A result's bits: hex, or a sha256 prefix of them when over 32 bytes."""
    b = np.ascontiguousarray(a).tobytes()
    return b.hex() if len(b) <= 32 else "sha256:" + hashlib.sha256(b).hexdigest()[:32]
