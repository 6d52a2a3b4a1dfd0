"""Constructors: Tensor(), ragged data, the *_like forms' layout, and linspace/arange values,
printing and errors, bit for bit as PyTorch's.

Moved from the former tests/engine/test_regressions.py: divergences from PyTorch 2.13 that
were fixed, stated on the engine's API with the values and texts PyTorch gives."""

import pytest

from diffcli.engine import FUNCTIONS, EngineError, errors, tensor


def T(v):
    return tensor(v, requires_grad=True)


def vals(t):
    return t.array.tolist()


# torch.linspace / torch.arange (torch 2.13, x86-64 AVX512 CPU): sha256 of the values'
# bytes, first 16 hex digits. linspace is start + step*i below steps/2, end - step*(steps-1-i)
# above, fused multiply-adds; arange's vectorized kernel adds j*step to each vector's start.
_RANGES = [
    ("linspace", (-1, 1, 7), "float64", "96d395e552d96d06"),
    ("linspace", (-1, 1, 7), "float32", "f2af810936705a87"),
    ("linspace", (-1, 1, 15), "float64", "f48172d4c457f33c"),
    ("linspace", (-1, 1, 15), "float32", "74a934615a71fdb2"),
    ("linspace", (0, 1, 10), "float64", "3c2fa5ed90702e69"),
    ("linspace", (0, 1, 10), "float32", "e0128e7f2573e63e"),
    ("linspace", (-2.5, 3.7, 33), "float64", "cf15fd5efbb7a06c"),
    ("linspace", (-2.5, 3.7, 33), "float32", "231751fcd6bf2a38"),
    ("linspace", (0.1, 0.7, 50), "float64", "13f2251aa1a71d27"),
    ("linspace", (0.1, 0.7, 50), "float32", "721470d593455b45"),
    ("linspace", (-10, 10, 101), "float64", "8c42724fcc7578b5"),
    ("linspace", (-10, 10, 101), "float32", "7e527e7f301392ad"),
    ("linspace", (3, -2, 24), "float64", "72150e311d8024a3"),
    ("linspace", (3, -2, 24), "float32", "8e4e904bcd2181d4"),
    ("linspace", (0.001, 2.3, 49), "float64", "926da19e6cd1f141"),
    ("linspace", (0.001, 2.3, 49), "float32", "e6744f21a5a77fac"),
    ("arange", (-1, 1, 0.1), "float64", "464030e0002e69da"),
    ("arange", (-1, 1, 0.1), "float32", "d59d3beea1aaadc2"),
    ("arange", (0, 5, 0.3), "float64", "6c6953ba4ecbe287"),
    ("arange", (0, 5, 0.3), "float32", "a8f11ae94b54d202"),
    ("arange", (0.5, -3.3, -0.7), "float64", "9d5538db3a9c244f"),
    ("arange", (0.5, -3.3, -0.7), "float32", "fb75df9851cd5137"),
    ("arange", (1, 30, 0.37), "float64", "941d3504e07684ab"),
    ("arange", (1, 30, 0.37), "float32", "e77d91073fcaf398"),
    ("arange", (-8.8, 2, 0.3), "float64", "e8935fa6319fd4fc"),
    ("arange", (-8.8, 2, 0.3), "float32", "55ba6ff49fc9c55f"),
    ("arange", (0, 100, 0.01), "float64", "8ae7f64ab8e91a03"),
    ("arange", (0, 100, 0.01), "float32", "343953f8b13c595d"),
]


def test_empty_Tensor_constructor_is_one_dimensional():
    assert tuple(FUNCTIONS["Tensor"]().shape) == (0,)


@pytest.mark.parametrize(
    "data, kind, text",
    [
        ([1, [2]], "TypeError", "'list' object cannot be interpreted as an integer"),
        ([[1], 2], "TypeError", "not a sequence"),
        ([[1, 2], [3]], "ValueError", "expected sequence of length 2 at dim 1 (got 1)"),
        ([[[1, 2]], [[3]]], "ValueError", "expected sequence of length 2 at dim 2 (got 1)"),
    ],
)
def test_ragged_data_gives_pytorchs_error(data, kind, text):
    with pytest.raises(EngineError) as info:
        tensor(data)
    assert (info.value.type_name, str(info.value)) == (kind, text)


def test_like_constructors_keep_the_layout():
    """zeros_like/ones_like/full_like/rand_like of a transposed tensor are laid out like
    it (PyTorch's preserve_format); of an expanded one, contiguously (torch 2.13)."""
    c = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    h = c.t() + FUNCTIONS["zeros_like"](c.t())
    assert vals(h.t().view(-1)) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    p = FUNCTIONS["arange"](24.0).reshape(2, 3, 4).permute(2, 0, 1)
    for like in (FUNCTIONS["ones_like"](p), FUNCTIONS["full_like"](p, 2.5), FUNCTIONS["rand_like"](p)):
        assert like.permute(1, 2, 0).view(-1).shape == (24,)
        with pytest.raises(errors.TorchRuntimeError, match="view size is not compatible"):
            like.view(-1)
    e = FUNCTIONS["zeros_like"](tensor([1.0, 2.0, 3.0]).expand(2, 3))
    assert e.view(-1).shape == (6,)
    with pytest.raises(errors.TorchRuntimeError, match="view size is not compatible"):
        e.t().view(-1)


@pytest.mark.parametrize("fn, args, dtype, digest", _RANGES)
def test_linspace_and_arange_values_are_pytorchs_bit_for_bit(fn, args, dtype, digest):
    import hashlib

    from diffcli.engine import dtypes

    t = FUNCTIONS[fn](*args, dtype=dtypes.BY_NAME[dtype])
    assert t.array.dtype.name == dtype
    assert hashlib.sha256(t.array.tobytes()).hexdigest()[:16] == digest


def test_linspace_and_arange_points_pytorch_prints():
    from diffcli.engine import dtypes

    f64 = dtypes.float64
    assert FUNCTIONS["linspace"](-1, 1, 15, dtype=f64)[7].item() == 5.551115123125783e-17
    assert FUNCTIONS["linspace"](-1, 1, 7, dtype=f64).array[3] == 5.551115123125783e-17
    assert FUNCTIONS["arange"](-1, 1, 0.1, dtype=f64)[10].item() == 5.551115123125783e-17
    assert FUNCTIONS["arange"](0, 5, 0.3, dtype=f64)[13].item() == 3.8999999999999995
    assert FUNCTIONS["linspace"](-1, 1, 15, dtype=dtypes.float32)[7].item() == -4.470348358154297e-08
    assert vals(FUNCTIONS["linspace"](0, 10, 4, dtype=dtypes.int64)) == [0, 3, 6, 10]
    assert vals(FUNCTIONS["linspace"](2, 3, 1)) == [2.0] and vals(FUNCTIONS["linspace"](2, 3, 0)) == []
    assert vals(FUNCTIONS["arange"](0.5, 3, dtype=dtypes.int64)) == [0, 1, 2]
    assert vals(FUNCTIONS["arange"](10, 0, -3)) == [10, 7, 4, 1]


@pytest.mark.parametrize(
    "fn, args, text",
    [
        ("linspace", (0, 1, -1), "number of steps must be non-negative"),
        ("arange", (0, 5, -1), "upper bound and lower bound inconsistent with step sign"),
        ("arange", (0, 1, 0), "step must be nonzero"),
        ("arange", (0, float("inf")), "unsupported range: 0 -> inf"),
        ("arange", (float("nan"), 2), "unsupported range: nan -> 2"),
        ("arange", (1.5, -float("inf"), -1), "unsupported range: 1.5 -> -inf"),
    ],
)
def test_linspace_and_arange_errors_are_pytorchs(fn, args, text):
    with pytest.raises(errors.TorchRuntimeError) as e:
        FUNCTIONS[fn](*args)
    assert str(e.value) == text
