"""torch.int32 (`.int()`): promotion, printing and errors as PyTorch's.

Moved from the former tests/engine/test_regressions.py: divergences from PyTorch 2.13 that
were fixed, stated on the engine's API with the values and texts PyTorch gives."""

import pytest

from diffcli.engine import FUNCTIONS, EngineError, tensor


def T(v):
    return tensor(v, requires_grad=True)


def _ones(*shape, dtype=None):
    from diffcli.engine import dtypes

    return FUNCTIONS["ones"](*shape, dtype=None if dtype is None else dtypes.BY_NAME[dtype])


_F32, _I64 = "float32", "int64"


def _i32():
    from diffcli.engine import dtypes

    return dtypes.int32


def test_int_is_int32_with_pytorchs_promotion_and_printing():
    from diffcli.engine import dtypes

    x = tensor([1.7, -1.7]).int()
    assert repr(x) == "tensor([ 1, -1], dtype=torch.int32)"
    assert repr(tensor([True, False]).int()) == "tensor([1, 0], dtype=torch.int32)"
    i = tensor([1, 2]).int()
    assert repr(i + 5) == "tensor([6, 7], dtype=torch.int32)"
    assert repr(i + tensor([1, 2])) == "tensor([2, 4])"  # int32 + int64
    assert repr(i + tensor(5)) == "tensor([6, 7], dtype=torch.int32)"  # a 0-d int64
    assert repr(tensor(5).int() + tensor([1, 2])) == "tensor([6, 7])"
    assert repr(i * 2.5) == "tensor([2.5000, 5.0000])"
    assert repr(i + _ones(2, dtype=_F32)) == "tensor([2., 3.], dtype=torch.float32)"
    assert repr(i.sum()) == "tensor(3)" and repr(i.cumsum(0)) == "tensor([1, 3])"  # int64 sums
    assert repr(i.sum(dtype=dtypes.int32)) == "tensor(3, dtype=torch.int32)"
    assert repr(i.argmax()) == "tensor(1)"
    assert repr(FUNCTIONS["zeros"](2, dtype=dtypes.BY_NAME["int"])) == "tensor([0, 0], dtype=torch.int32)"
    assert repr(T([1.5, 2.0]) * i) == "tensor([1.5000, 4.0000], grad_fn=<MulBackward0>)"


@pytest.mark.parametrize(
    "make, kind, text",
    [
        (
            lambda: tensor([1, 2]).int().mean(),
            "RuntimeError",
            "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Int",
        ),
        (
            lambda: FUNCTIONS["nll_loss"](_ones(2, 3), tensor([0, 1]).int()),
            "RuntimeError",
            "expected target dtype to be Long or Byte, but got Int",
        ),
        (
            lambda: tensor([1, 2]).int().add_(1.5),
            "RuntimeError",
            "result type Double can't be cast to the desired output type Int",
        ),
        (
            lambda: FUNCTIONS["where"](tensor([1, 0]).int(), _ones(2), _ones(2)),
            "RuntimeError",
            "where expected condition to be a boolean tensor, but got a tensor with dtype Int",
        ),
        (
            lambda: tensor([3000000000], dtype=_i32()),
            "RuntimeError",
            "value cannot be converted to type int32 without overflow",
        ),
        (
            lambda: FUNCTIONS["full"]((2,), 3000000000, dtype=_i32()),
            "RuntimeError",
            "value cannot be converted to type int without overflow",
        ),
        (
            lambda: FUNCTIONS["mm"](_ones(2, 2).int(), _ones(2, 2)),
            "RuntimeError",
            "expected m1 and m2 to have the same dtype, but got: int != double",
        ),
    ],
)
def test_int32_errors_are_pytorchs(make, kind, text):
    with pytest.raises(EngineError) as e:
        make()
    assert (e.value.type_name, str(e.value)) == (kind, text)
