"""Tensor methods and Python protocols that return plain Python values: mT, `in`, equal
and allclose.

Moved from the former tests/engine/test_regressions.py: divergences from PyTorch 2.13 that
were fixed, stated on the engine's API with the values and texts PyTorch gives."""

import warnings

import pytest

from diffcli.engine import FUNCTIONS, errors, tensor


def T(v):
    return tensor(v, requires_grad=True)


def vals(t):
    return t.array.tolist()


def _ones(*shape, dtype=None):
    from diffcli.engine import dtypes

    return FUNCTIONS["ones"](*shape, dtype=None if dtype is None else dtypes.BY_NAME[dtype])


_F32, _I64 = "float32", "int64"


def test_mT():
    m = T([[1.0, 2.0], [3.0, 4.0]])
    assert m.mT.grad_fn.name() == "TransposeBackward0" and vals(m.mT) == [[1.0, 3.0], [2.0, 4.0]]
    with pytest.raises(errors.TorchRuntimeError, match="Got 1-D tensor"):
        T([1.0, 2.0]).mT  # noqa: B018
    z = T(1.5)
    errors.reset_warn_once()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert z.mT is z
    assert [str(w.message) for w in caught] == [errors.MT_ON_0D_WARNING]


def test_contains():
    t = tensor([1.0, 2.0, 3.0])
    assert 2 in t and 2.0 in t and 5 not in t and tensor(2.0) in t
    with pytest.raises(errors.TorchRuntimeError, match="you passed in a <class 'str'>"):
        "a" in t  # noqa: B015
    with pytest.raises(errors.TorchRuntimeError, match="must match the size of tensor b"):
        tensor([2.0, 9.0]) in t  # noqa: B015


def test_equal_and_allclose_are_python_bools():
    eq, close = FUNCTIONS["equal"], FUNCTIONS["allclose"]
    nan = tensor([float("nan")])
    assert eq(_ones(2), _ones(2)) is True and eq(_ones(2), _ones(3)) is False
    assert eq(_ones(2), _ones(2, dtype=_I64)) is True and eq(nan, nan) is False
    assert eq(_ones(1), _ones(2)) is False and _ones(2).equal(_ones(2)) is True
    assert close(_ones(2), _ones(2) + 1e-9) is True and close(_ones(2), _ones(2) + 1e-3) is False
    assert close(_ones(2), _ones(2) + 1e-3, atol=1e-2) is True
    assert close(_ones(2), _ones(2) + 1e-3, rtol=1e-2) is True
    assert close(nan, nan) is False and close(nan, nan, equal_nan=True) is True
    assert close(_ones(1), _ones(2)) is True
    assert close(tensor([1, 2]), tensor([1, 3]), atol=1) is True
    inf = tensor([float("inf")])
    assert close(inf, inf) is True and close(inf, -inf) is False
    assert close(tensor([1.0, 2.0]), tensor([1.00001, 2.0])) is True
    assert close(tensor([1.0, 2.0]), tensor([1.0000101, 2.0])) is False
