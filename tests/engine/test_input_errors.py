"""Inputs PyTorch refuses, with its exception types and texts (and the warnings it gives):
missing kernels for a dtype, loss and op argument checks, attribute assignment.

Moved from the former tests/engine/test_regressions.py: divergences from PyTorch 2.13 that
were fixed, stated on the engine's API with the values and texts PyTorch gives."""

import warnings

import pytest

from diffcli.engine import FUNCTIONS, EngineError, errors, tensor
from diffcli.engine.ops import unary


def T(v):
    return tensor(v, requires_grad=True)


def vals(t):
    return t.array.tolist()


def _ones(*shape, dtype=None):
    from diffcli.engine import dtypes

    return FUNCTIONS["ones"](*shape, dtype=None if dtype is None else dtypes.BY_NAME[dtype])


_F32, _I64 = "float32", "int64"


def test_data_and_requires_grad_assignment_are_checked():
    x = T([1.0, 2.0])
    with pytest.raises(errors.TorchTypeError, match="^Variable data has to be a tensor, but got int$"):
        x.data = 5
    for v in ("yes", 1, tensor(True)):
        with pytest.raises(errors.TorchRuntimeError, match="^requires_grad must be a bool$"):
            x.requires_grad = v
    x.data = tensor([3.0, 4.0, 5.0])
    assert vals(x) == [3.0, 4.0, 5.0] and x.requires_grad


@pytest.mark.parametrize(
    "make, text",
    [
        (lambda: tensor([True]).abs(), "\"abs_cpu\" not implemented for 'Bool'"),
        (lambda: unary.floor(tensor([True])), "\"floor_vml_cpu\" not implemented for 'Bool'"),
        (
            lambda: FUNCTIONS["softmax"](tensor([1, 2]), 0),
            "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'",
        ),
        (
            lambda: FUNCTIONS["log_softmax"](tensor([[1, 2]]), 0),
            "\"log_softmax_kernel_impl\" not implemented for 'Long'",
        ),
    ],
)
def test_kernels_missing_for_a_dtype_raise_not_implemented(make, text):
    with pytest.raises(errors.TorchNotImplementedError) as info:
        make()
    assert info.value.type_name == "NotImplementedError" and str(info.value) == text
    assert isinstance(info.value, errors.TorchRuntimeError)  # as in Python


@pytest.mark.parametrize(
    "v, message",
    [
        ([1.0, 2.0], errors.T_NOT_2D_WARNING),
        ([[[1.0]]], errors.T_NOT_2D_WARNING),
        (1.5, errors.T_ON_0D_WARNING),
    ],
)
def test_T_warns_once_unless_2d(v, message):
    errors.reset_warn_once()
    a = T(v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert a.T.grad_fn.name() == "PermuteBackward0"
        a.T  # noqa: B018
    assert [str(w.message) for w in caught] == [message]


# (make, PyTorch's exception type, its text) as torch 2.13 raises them
@pytest.mark.parametrize(
    "make, kind, text",
    [
        (
            lambda: FUNCTIONS["cross_entropy"](tensor([[1.0, 2.0, 3.0]]), tensor([2.0])),
            "RuntimeError",
            "expected target dtype to be Long or Byte, but got Double",
        ),
        (
            lambda: FUNCTIONS["cross_entropy"](T([[1.0, 2.0, 3.0]]), _ones(1, dtype=_F32)),
            "RuntimeError",
            "expected target dtype to be Long or Byte, but got Float",
        ),
        (
            lambda: FUNCTIONS["cross_entropy"](tensor([1.0, 2.0, 3.0]), tensor(2.0)),
            "RuntimeError",
            "expected target dtype to be Long or Byte, but got Double",
        ),
        (
            lambda: FUNCTIONS["cross_entropy"](_ones(2, 3), tensor([1.0])),
            "ValueError",
            "Expected input batch_size (2) to match target batch_size (1).",
        ),
        (
            lambda: FUNCTIONS["cross_entropy"](_ones(2, 3), _ones(2, 2)),
            "RuntimeError",
            "0D or 1D target tensor expected, multi-target not supported",
        ),
        (
            lambda: FUNCTIONS["cross_entropy"](tensor([[1.0, 2.0, 3.0]]), tensor([[0, 1, 0]])),
            "RuntimeError",
            "Expected floating point type for target with class probabilities, got Long",
        ),
        (
            lambda: FUNCTIONS["cross_entropy"](_ones(2, 3), _ones(2, 3), ignore_index=1),
            "RuntimeError",
            "ignore_index is not supported for floating point target",
        ),
        (
            lambda: FUNCTIONS["nll_loss"](_ones(3), tensor([1.0])),
            "RuntimeError",
            "expected target dtype to be Long or Byte, but got Double",
        ),
        (
            lambda: FUNCTIONS["nll_loss"](_ones(2, 3, 4, 5), _ones(2, 4)),
            "RuntimeError",
            "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2",
        ),
        (
            lambda: FUNCTIONS["nll_loss"](_ones(2, 3, 4, 5), _ones(2, 4, 6, dtype=_I64)),
            "RuntimeError",
            "size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 6]",
        ),
        (
            lambda: FUNCTIONS["nll_loss"](tensor(1.0), _ones(3)),
            "ValueError",
            "Expected 1 or more dimensions (got 0)",
        ),
        (
            lambda: FUNCTIONS["mse_loss"](tensor([1, 2]), tensor([1, 3])),
            "NotImplementedError",
            "\"mse_cpu\" not implemented for 'Long'",
        ),
        (
            lambda: FUNCTIONS["mse_loss"](tensor([True]), tensor([False])),
            "NotImplementedError",
            "\"mse_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: FUNCTIONS["binary_cross_entropy"](tensor([1, 0]), tensor([1, 0])),
            "NotImplementedError",
            "\"binary_cross_entropy\" not implemented for 'Long'",
        ),
        (
            lambda: FUNCTIONS["binary_cross_entropy_with_logits"](tensor([1, 0]), tensor([1, 0])),
            "NotImplementedError",
            "\"log_sigmoid_cpu\" not implemented for 'Long'",
        ),
        (
            lambda: FUNCTIONS["maximum"](tensor([1.0]), 0.5),
            "TypeError",
            "maximum(): argument 'other' (position 2) must be Tensor, not float",
        ),
        (
            lambda: FUNCTIONS["minimum"](tensor([1.0]), 1),
            "TypeError",
            "minimum(): argument 'other' (position 2) must be Tensor, not int",
        ),
        (
            lambda: FUNCTIONS["maximum"](0.5, tensor([1.0])),
            "TypeError",
            "maximum(): argument 'input' (position 1) must be Tensor, not float",
        ),
        (
            lambda: tensor([1.0]).maximum(0.5),
            "TypeError",
            "maximum(): argument 'other' (position 1) must be Tensor, not float",
        ),
        (
            lambda: tensor([1.0]).minimum(2),
            "TypeError",
            "minimum(): argument 'other' (position 1) must be Tensor, not int",
        ),
        (
            lambda: FUNCTIONS["mse_loss"](_ones(2, 3), _ones(3, 2)),
            "RuntimeError",
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1",
        ),
        (
            lambda: FUNCTIONS["where"](_ones(2) > 0, _ones(3), _ones(2)),
            "RuntimeError",
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
        ),
        (
            lambda: FUNCTIONS["where"](_ones(3) > 0, _ones(3), _ones(2)),
            "RuntimeError",
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
        ),
        (
            lambda: FUNCTIONS["where"](_ones(2) > 0, 1.0, _ones(3)),
            "RuntimeError",
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
        ),
        (
            lambda: FUNCTIONS["where"](_ones(2, 1) > 0, _ones(3), _ones(2, 4)),
            "RuntimeError",
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
        ),
        (
            lambda: FUNCTIONS["clamp"](_ones(3), _ones(3), _ones(2)),
            "RuntimeError",
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
        ),
        (
            lambda: FUNCTIONS["clamp"](_ones(3), max=_ones(2)),
            "RuntimeError",
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
        ),
        (
            lambda: FUNCTIONS["logical_and"](_ones(3), _ones(2)),
            "RuntimeError",
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
        ),
        (
            lambda: FUNCTIONS["outer"](_ones(2, 2), _ones(2)),
            "RuntimeError",
            "outer: Expected 1-D argument self, but got 2-D",
        ),
        (
            lambda: FUNCTIONS["outer"](_ones(2), _ones(2, 2)),
            "RuntimeError",
            "outer: Expected 1-D argument vec2, but got 2-D",
        ),
        (
            lambda: FUNCTIONS["outer"](tensor(1.0), _ones(2)),
            "RuntimeError",
            "outer: Expected 1-D argument self, but got 0-D",
        ),
        (
            lambda: FUNCTIONS["mv"](_ones(100, 3, dtype=_F32), _ones(3)),
            "RuntimeError",
            "addmv input tensors must have the same dtype, but got Double, Float, and Double",
        ),
        (
            lambda: _ones(100, 3) @ _ones(3, dtype=_F32),
            "RuntimeError",
            "addmv input tensors must have the same dtype, but got Float, Double, and Float",
        ),
        (
            lambda: _ones(2, 2, 3, dtype=_F32) @ _ones(3),
            "RuntimeError",
            "addmv input tensors must have the same dtype, but got Double, Float, and Double",
        ),
        (
            lambda: _ones(3, dtype=_F32) @ _ones(3, 4),
            "RuntimeError",
            "expected m1 and m2 to have the same dtype, but got: float != double",
        ),
        (
            lambda: FUNCTIONS["dot"](_ones(3, dtype=_F32), _ones(3)),
            "RuntimeError",
            "dot : expected both vectors to have same dtype, but found Float and Double",
        ),
        (
            lambda: _ones(3) @ _ones(3, dtype=_F32),
            "RuntimeError",
            "dot : expected both vectors to have same dtype, but found Double and Float",
        ),
        (
            lambda: FUNCTIONS["mm"](_ones(2, 3, dtype=_F32), _ones(3, 2)),
            "RuntimeError",
            "expected m1 and m2 to have the same dtype, but got: float != double",
        ),
        (
            lambda: FUNCTIONS["bmm"](_ones(2, 2, 3, dtype=_F32), _ones(2, 3, 2)),
            "RuntimeError",
            "expected scalar type Float but found Double",
        ),
        (
            lambda: _ones(3, dtype=_F32) @ _ones(2, 3, 2),
            "RuntimeError",
            "expected scalar type Float but found Double",
        ),
    ],
)
def test_input_validation_raises_pytorchs_errors(make, kind, text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mse_loss's size warning
        with pytest.raises(EngineError) as e:
            make()
    assert (e.value.type_name, str(e.value)) == (kind, text)


def test_valid_loss_inputs_pytorch_accepts():
    ce = FUNCTIONS["cross_entropy"]
    assert round(ce(tensor([[1.0, 2.0, 3.0]]), tensor([[0.2, 0.3, 0.5]])).item(), 4) == 1.1076
    assert round(ce(tensor([1.0, 2.0, 3.0]), tensor([0.2, 0.3, 0.5])).item(), 4) == 1.1076
    assert FUNCTIONS["nll_loss"](_ones(3), tensor([1])).item() == -1.0  # 1-D input, target (1,)
    assert FUNCTIONS["mse_loss"](tensor([1, 2]), tensor([1.0, 3.0])).item() == 0.5


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_implicit_softmax_dim_warns_like_pytorch(name):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        FUNCTIONS[name](_ones(2, 3))
    assert [str(x.message) for x in w] == [
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument."
    ]


@pytest.mark.parametrize(
    "make, text",
    [
        (lambda: T([1.5, -2.5, 3.0]) // 2, "tensor([ 0., -2.,  1.], grad_fn=<NotImplemented>)"),
        (lambda: 2 // T([1.5, -2.5, 3.0]), "tensor([ 1., -1.,  0.], grad_fn=<NotImplemented>)"),
        (
            lambda: FUNCTIONS["floor_divide"](T([1.5, -2.5, 3.0]), tensor([2.0, 2.0, -2.0])),
            "tensor([ 0., -2., -2.], grad_fn=<NotImplemented>)",
        ),
        (lambda: T([1.5, -2.5, 3.0]) % 2, "tensor([1.5000, 1.5000, 1.0000], grad_fn=<RemainderBackward0>)"),
        (
            lambda: T([1.5, -2.5, 3.0]) % T([2.0, 2.0, -2.0]),
            "tensor([ 1.5000,  1.5000, -1.0000], grad_fn=<RemainderBackward1>)",
        ),
        (lambda: 2 % T([1.5, -2.5, 3.0]), "tensor([ 0.5000, -0.5000,  2.0000], grad_fn=<NotImplemented>)"),
        (lambda: tensor([5, -5, 7]) // 2, "tensor([ 2, -3,  3])"),
        (lambda: tensor([5, -5, 7]) % -3, "tensor([-1, -2, -2])"),
        (lambda: tensor([5, -5, 7]) % 2.5, "tensor([0., -0., 2.])"),
        (lambda: tensor([5.0, -5.0, 0.0]) // 0, "tensor([inf, -inf, nan])"),
        (lambda: tensor([5.0, -5.0, 0.0]) % 0, "tensor([nan, nan, nan])"),
        (lambda: tensor([-0.5, 0.5, -4.0]) // 2, "tensor([-1.,  0., -2.])"),
        (lambda: tensor([-4.0, 4.0, -0.0]) % 2, "tensor([-0., 0., -0.])"),
        (lambda: tensor([float("inf"), 3.0, -3.0]) % float("inf"), "tensor([nan, 3., inf])"),
        (lambda: tensor([float("inf"), 3.0, -3.0]) // float("inf"), "tensor([nan,  0., -1.])"),
        (lambda: tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]).any(), "tensor(True)"),
        (lambda: T([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]).all(), "tensor(False)"),
        (
            lambda: tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]).any(1, keepdim=True),
            "tensor([[True],\n        [True]])",
        ),
        (
            lambda: FUNCTIONS["all"](tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]), 0),
            "tensor([False,  True,  True])",
        ),
        (lambda: FUNCTIONS["all"](tensor([])), "tensor(True)"),
        (lambda: T([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]).argmax(), "tensor(2)"),
        (
            lambda: FUNCTIONS["argmax"](tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]), 1, keepdim=True),
            "tensor([[2],\n        [2]])",
        ),
        (
            lambda: FUNCTIONS["argmin"](tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]), dim=0),
            "tensor([1, 0, 0])",
        ),
        (lambda: tensor([1.0, float("nan"), 3.0, float("nan")]).argmax(), "tensor(1)"),
        (lambda: tensor([3.0, 1.0, 3.0]).argmax(), "tensor(0)"),
        (lambda: _ones(0, 3).argmax(1), "tensor([], dtype=torch.int64)"),
    ],
)
def test_floor_divide_remainder_any_all_argmax_as_pytorch(make, text):
    assert repr(make()) == text


@pytest.mark.parametrize(
    "make, kind, text",
    [
        (lambda: tensor([5, -5, 7]) // 0, "RuntimeError", "ZeroDivisionError"),
        (lambda: tensor([5, -5, 7]) % 0, "RuntimeError", "ZeroDivisionError"),
        (
            lambda: tensor([True]) // tensor([True]),
            "NotImplementedError",
            "\"div_floor_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: tensor([True]) % tensor([True]),
            "NotImplementedError",
            "\"remainder_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda: _ones(3) // _ones(2),
            "RuntimeError",
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
        ),
        (
            lambda: (T([1.5, 2.0]) // 2).sum().backward(),
            "RuntimeError",
            "derivative for aten::floor_divide is not implemented",
        ),
        (
            lambda: (2 % T([1.5, 2.0])).sum().backward(),
            "RuntimeError",
            "derivative for aten::remainder is not implemented",
        ),
        (
            lambda: _ones(2, 3).any(2),
            "IndexError",
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        ),
        (
            lambda: tensor([]).argmax(),
            "IndexError",
            "argmax(): Expected reduction dim to be specified for input.numel() == 0.",
        ),
        (
            lambda: _ones(0, 3).argmin(0),
            "IndexError",
            "argmin(): Expected reduction dim 0 to have non-zero size.",
        ),
        (lambda: tensor([False, True]).argmax(), "RuntimeError", "argmax(): does not support bool input"),
        (
            lambda: FUNCTIONS["equal"](_ones(2), 1.0),
            "TypeError",
            "equal(): argument 'other' (position 2) must be Tensor, not float",
        ),
        (
            lambda: _ones(2).allclose(1.0),
            "TypeError",
            "allclose(): argument 'other' (position 1) must be Tensor, not float",
        ),
        (
            lambda: FUNCTIONS["allclose"](_ones(2), _ones(2, dtype=_F32)),
            "RuntimeError",
            "Double did not match Float",
        ),
        (
            lambda: FUNCTIONS["allclose"](_ones(3), _ones(2)),
            "RuntimeError",
            "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
        ),
    ],
)
def test_new_ops_raise_pytorchs_errors(make, kind, text):
    with pytest.raises(EngineError) as e:
        make()
    assert (e.value.type_name, str(e.value)) == (kind, text)
