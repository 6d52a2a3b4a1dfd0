"""What each op's node saves for backward (PyTorch's _saved_* attributes): only what its
gradient formulas need.

Moved from the former tests/engine/test_regressions.py: divergences from PyTorch 2.13 that
were fixed, stated on the engine's API with the values and texts PyTorch gives."""

import pytest

from diffcli.engine import FUNCTIONS, EngineError, tensor


def T(v):
    return tensor(v, requires_grad=True)


def vals(t):
    return t.array.tolist()


def _ones(*shape, dtype=None):
    from diffcli.engine import dtypes

    return FUNCTIONS["ones"](*shape, dtype=None if dtype is None else dtypes.BY_NAME[dtype])


def test_where_saves_its_condition():
    x = T([1.0, -1.0])
    y = FUNCTIONS["where"](x > 0, x, tensor([5.0, 5.0])).sum()
    y.backward()
    with pytest.raises(EngineError, match="backward through the graph a second time"):
        y.backward()


@pytest.mark.parametrize("fn", ["max", "min"])
def test_max_min_over_a_dim_save_their_indices(fn):
    """MaxBackward0/MinBackward0 save the returned indices: freed by a backward without
    retain_graph, and checked for in-place changes (torch 2.13's texts)."""
    x = T([0.5, -1.25, 2.0])
    y = FUNCTIONS[fn](x, 0).values
    y.backward()
    assert vals(x.grad) == ([0.0, 0.0, 1.0] if fn == "max" else [0.0, 1.0, 0.0])
    with pytest.raises(EngineError, match="backward through the graph a second time"):
        y.backward()
    z = T(2.0)
    r = FUNCTIONS[fn](z, 0)
    r.values.backward()
    with pytest.raises(EngineError, match="backward through the graph a second time"):
        r.values.backward()
    m = T([[0.5, -1.25, 2.0], [1.0, 3.0, -2.0]])
    r = FUNCTIONS[fn](m, 1)
    r.indices.add_(0)
    with pytest.raises(EngineError) as info:
        r.values.sum().backward()
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.LongTensor [2]] is at version 1; expected version 0 instead."
    )
    r = FUNCTIONS[fn](m, 0, keepdim=True)
    r.values.mul_(2.0)  # the values are not saved
    r.values.sum().backward()
    assert vals(m.grad) == (
        [[0.0, 0.0, 2.0], [2.0, 2.0, 0.0]] if fn == "max" else [[2.0, 2.0, 0.0], [0.0, 0.0, 2.0]]
    )


def test_var_saves_only_its_input():
    """VarBackward0 saves `self` only (an in-place op on its result is fine); StdBackward0
    saves its result too (torch 2.13's values and text)."""
    x = T([0.5, -1.25, 2.0])
    y = FUNCTIONS["var"](x)
    y += 1.5
    y.backward()
    assert [round(v, 12) for v in vals(x.grad)] == [0.083333333333, -1.666666666667, 1.583333333333]
    m = T([[0.5, -1.25, 2.0], [1.0, 2.0, 4.0]])
    v = FUNCTIONS["var"](m, 1, keepdim=True)
    v.mul_(2.0)
    v.sum().backward()
    assert [[round(e, 12) for e in row] for row in vals(m.grad)] == [
        [0.166666666667, -3.333333333333, 3.166666666667],
        [-2.666666666667, -0.666666666667, 3.333333333333],
    ]
    s = FUNCTIONS["std"](x)
    s += 1.0
    with pytest.raises(EngineError) as info:
        s.backward()
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.DoubleTensor []], which is output 0 of Std, is at version 1; "
        "expected version 0 instead."
    )


def test_number_to_a_tensor_power_saves_the_exponent_and_the_result():
    """`2 ** z` (PowBackward2) saves z and the result, so an in-place op on z afterwards fails
    the backward with torch 2.13's text; `0 ** x` gives 0 where x >= 0, -inf where x < 0."""
    x = T([0.5, -1.25])
    z = x * 1
    y = 2**z
    z += 1.5
    with pytest.raises(
        EngineError,
        match=r"^one of the variables needed for gradient computation "
        r"has been modified by an inplace operation: \[torch.DoubleTensor \[2\]\], "
        r"which is output 0 of Add, is at version 1; expected version 0 instead",
    ):
        y.sum().backward()
    assert x.grad is None
    x = T([0.5, -1.25])
    y = 0**x
    y.sum().backward()
    assert y.grad_fn.name() == "PowBackward2" and vals(x.grad) == [0.0, float("-inf")]


@pytest.mark.parametrize(
    "fn, shapes",
    [
        ("mm", ((2, 2), (2, 2))),
        ("dot", ((2,), (2,))),
        ("mv", ((2, 2), (2,))),
        ("bmm", ((1, 2, 2), (1, 2, 2))),
    ],
)
def test_products_save_an_operand_only_for_the_other_ones_gradient(fn, shapes):
    # PyTorch saves mat2 for self's gradient and self for mat2's: with only one side
    # requiring grad, an in-place change of that side is no version error
    a = T(FUNCTIONS["ones"](*shapes[0]).array.tolist())
    h = a * 1
    r = FUNCTIONS[fn](h, _ones(*shapes[1]))
    h *= 0.5
    r.sum().backward()
    assert a.grad.array.sum() == {"mm": 8.0, "dot": 2.0, "mv": 4.0, "bmm": 8.0}[fn]
    b = T(FUNCTIONS["ones"](*shapes[1]).array.tolist())
    k = b * 1
    r = FUNCTIONS[fn](_ones(*shapes[0]), k)
    k *= 0.5
    r.sum().backward()
    assert b.grad.array.sum() == {"mm": 8.0, "dot": 2.0, "mv": 4.0, "bmm": 8.0}[fn]
