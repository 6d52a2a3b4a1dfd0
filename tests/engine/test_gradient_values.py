"""First-order gradient values PyTorch gives bit for bit: rounding of sigmoid and
reciprocal, remainder, and backward(inputs=...) on a leaf output.

Moved from the former tests/engine/test_regressions.py: divergences from PyTorch 2.13 that
were fixed, stated on the engine's API with the values and texts PyTorch gives."""

import pytest

from diffcli.engine import grad, tensor
from diffcli.engine.ops import unary


def T(v):
    return tensor(v, requires_grad=True)


def vals(t):
    return t.array.tolist()


def test_backward_inputs_leave_a_leaf_output_alone():
    """`a.backward(inputs=[b])` with `a` a leaf not among the inputs accumulates nothing
    (torch 2.13: None None); with `a` among them, a.grad is 1."""
    from diffcli.engine import backward

    a, b = T(1.0), T(2.0)
    a.backward(inputs=[b])
    assert a.grad is None and b.grad is None
    a.backward(inputs=[a, b])
    assert a.grad.item() == 1.0 and b.grad is None
    backward([a, b * 3], inputs=[b])
    assert a.grad.item() == 1.0 and b.grad.item() == 3.0


@pytest.mark.parametrize(
    "op, xs, gs, want",
    [
        (
            "sigmoid",
            [-4.972209994276508, -3.1582739208468036, 2.8149258169105735],
            [-1.9069682969111004, 1.9515790508364264, 2.5346648056853427],
            [-0.013029970400034932, 0.07631569936954494, 0.1351688105525051],
        ),
        (
            "reciprocal",
            [-0.25138442230999125, 0.20088219145636366, 5.475207058033183],
            [1.420720157483398, -0.21135783137820585, 2.3377948380930835],
            [-22.481838224376233, 5.237637884192837, -0.07798396273120575],
        ),
    ],
)
def test_sigmoid_and_reciprocal_gradients_round_as_pytorchs(op, xs, gs, want):
    """PyTorch computes g * (1 - y) * y and -g * (y * y) (torch 2.13, bit for bit), which
    round differently from g * y * (1 - y) and -g * y * y; for tensors and for 0-d ones."""
    x = T(xs)
    getattr(unary, op)(x).backward(tensor(gs))
    assert x.grad.tolist() == want
    for xv, gv, w in zip(xs, gs, want):
        x0 = T(xv)
        getattr(unary, op)(x0).backward(tensor(gv))
        assert x0.grad.item() == w


def test_remainder_gradients_are_pytorchs():
    x, y = T([1.5, -2.5, 3.0]), T([2.0, 2.0, -2.0])
    z = x % y
    assert [type(f).__name__ for f, _ in z.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    gx, gy = grad(z.sum(), [x, y], create_graph=True)
    assert repr(gx) == "tensor([1., 1., 1.])"
    assert repr(gy) == "tensor([-0., 2., 2.], grad_fn=<MulBackward0>)"  # -grad * floor(x / y)
    nf = gy.grad_fn.next_functions
    assert nf[0][0] is None and nf[1][0].name() == "DivBackward2"
    w = T([1.5, -2.5, 3.0])
    (w % 2).sum().backward()
    assert vals(w.grad) == [1.0, 1.0, 1.0]
    assert not (w // 2).is_leaf and (w // 2).requires_grad
    assert w.argmax().requires_grad is False and w.any().requires_grad is False
    assert repr(w * w.argmax()) == "tensor([ 3., -5.,  6.], grad_fn=<MulBackward0>)"
