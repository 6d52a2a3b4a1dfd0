"""Divergences from PyTorch 2.13 that were fixed, stated on the engine's API with the
values and texts PyTorch gives (the goldens -- ops.json `setitem`, `dtype_errors`,
`creation` and semantics.json's `own:` scenarios -- cover the same ground more widely)."""
import warnings

import pytest

from diffcli.engine import FUNCTIONS, EngineError, errors, grad, tensor
from diffcli.engine.ops import unary


def T(v):
    return tensor(v, requires_grad=True)


def vals(t):
    return t.data_.tolist()


def test_empty_Tensor_constructor_is_one_dimensional():
    assert tuple(FUNCTIONS["Tensor"]().shape) == (0,)


@pytest.mark.parametrize("value", [[1.0, 2.0], 3.0])
@pytest.mark.parametrize("key", [Ellipsis, slice(None), slice(0, 5)])
def test_setitem_of_the_whole_tensor_is_copy_backwards(value, key):
    if key is not Ellipsis and not isinstance(value, list):
        pytest.skip("a slice of a 0-d tensor is an error")
    t = T(value).clone()
    t[key] = t * 2
    assert t.grad_fn.name() == "CopyBackwards"
    t = T(value).clone()
    t[key] = 5.0  # a 0-d value fills, unless t is 0-d too (same shape: a copy)
    assert t.grad_fn.name() == ("FillBackward3" if t.ndim else "CopyBackwards")


def test_setitem_gradient_keeps_the_graph_under_create_graph():
    x = T([1.0, 2.0, 3.0])
    t = x.clone()
    t[0] = t[2] * 3
    g, = grad((t * t).sum(), x, create_graph=True)
    assert g.requires_grad and vals(g) == [0.0, 4.0, 60.0]
    g.sum().backward()
    assert vals(x.grad) == [0.0, 2.0, 20.0]


@pytest.mark.parametrize("op, name", [(lambda v: v.relu(), "ThresholdBackwardBackward0"),
                                      (lambda v: unary.leaky_relu(v, 0.1), "LeakyReluBackwardBackward0"),
                                      (lambda v: unary.elu(v), "EluBackwardBackward0"),
                                      (lambda v: unary.softplus(v), "SoftplusBackwardBackward0")])
def test_masked_gradients_require_grad_under_create_graph(op, name):
    x = T([0.5, -1.0])
    g, = grad(op(x).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == name


def test_relu_second_derivative_is_zero():
    x = T([0.5, -1.0])
    g, = grad(x.relu().sum(), x, create_graph=True)
    assert vals(g) == [1.0, 0.0]
    g.sum().backward()
    assert vals(x.grad) == [0.0, 0.0]


def test_elu_second_derivative_is_zero_at_zero():
    x = T([0.0, -1.0])
    g, = grad(unary.elu(x).sum(), x, create_graph=True)
    h, = grad(g.sum(), x)
    assert vals(h)[0] == 0.0  # elu_double_backward masks with x < 0


def test_where_saves_its_condition():
    x = T([1.0, -1.0])
    y = FUNCTIONS["where"](x > 0, x, tensor([5.0, 5.0])).sum()
    y.backward()
    with pytest.raises(EngineError, match="backward through the graph a second time"):
        y.backward()


def test_data_and_requires_grad_assignment_are_checked():
    x = T([1.0, 2.0])
    with pytest.raises(errors.TorchTypeError, match="^Variable data has to be a tensor, but got int$"):
        x.data = 5
    for v in ("yes", 1, tensor(True)):
        with pytest.raises(errors.TorchRuntimeError, match="^requires_grad must be a bool$"):
            x.requires_grad = v
    x.data = tensor([3.0, 4.0, 5.0])
    assert vals(x) == [3.0, 4.0, 5.0] and x.requires_grad


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


@pytest.mark.parametrize("make, text", [
    (lambda: tensor([True]).abs(), "\"abs_cpu\" not implemented for 'Bool'"),
    (lambda: unary.floor(tensor([True])), "\"floor_vml_cpu\" not implemented for 'Bool'"),
    (lambda: FUNCTIONS["softmax"](tensor([1, 2]), 0), "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    (lambda: FUNCTIONS["log_softmax"](tensor([[1, 2]]), 0), "\"log_softmax_kernel_impl\" not implemented for 'Long'"),
])
def test_kernels_missing_for_a_dtype_raise_not_implemented(make, text):
    with pytest.raises(errors.TorchNotImplementedError) as info:
        make()
    assert info.value.type_name == "NotImplementedError" and str(info.value) == text
    assert isinstance(info.value, errors.TorchRuntimeError)  # as in Python


@pytest.mark.parametrize("data, kind, text", [
    ([1, [2]], "TypeError", "'list' object cannot be interpreted as an integer"),
    ([[1], 2], "TypeError", "not a sequence"),
    ([[1, 2], [3]], "ValueError", "expected sequence of length 2 at dim 1 (got 1)"),
    ([[[1, 2]], [[3]]], "ValueError", "expected sequence of length 2 at dim 2 (got 1)"),
])
def test_ragged_data_gives_pytorchs_error(data, kind, text):
    with pytest.raises(EngineError) as info:
        tensor(data)
    assert (info.value.type_name, str(info.value)) == (kind, text)


@pytest.mark.parametrize("v, message", [([1.0, 2.0], errors.T_NOT_2D_WARNING),
                                        ([[[1.0]]], errors.T_NOT_2D_WARNING),
                                        (1.5, errors.T_ON_0D_WARNING)])
def test_T_warns_once_unless_2d(v, message):
    errors.reset_warn_once()
    a = T(v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert a.T.grad_fn.name() == "PermuteBackward0"
        a.T  # noqa: B018
    assert [str(w.message) for w in caught] == [message]


def test_retain_grad_follows_a_base_modified_through_a_view():
    """h1.retain_grad(); h1[0] *= 0.5 gives h1 a CopySlices grad_fn; its .grad still fills
    (torch: tensor([[1.], [1.]]) with upstream ones)."""
    from diffcli.engine import backward, sin, tensor
    a = tensor([[0.0], [0.0]], requires_grad=True)
    h1 = sin(a)
    h1.retain_grad()
    h2 = h1[0]
    h2 *= 0.5
    backward(h1, tensor([[1.0], [1.0]]))
    assert h1.grad_fn.name() == "CopySlices"
    assert h1.grad.tolist() == [[1.0], [1.0]]
    assert a.grad.tolist() == [[0.5], [1.0]]


def test_integer_index_to_0d_is_a_view():
    """x[0] of a 1-D tensor and x[0, 1] are views (numpy's x[0] would be a scalar copy): an
    in-place op on the base shows in them, and their grad_fn becomes AsStridedBackward0
    (torch 2.13's values)."""
    x = T([1.0, 2.0, 3.0])
    z = x * 1
    y = z[0]
    z += 1.5
    assert y.item() == 2.5 and y.grad_fn.name() == "AsStridedBackward0"
    y.backward()
    assert vals(x.grad) == [1.0, 0.0, 0.0]

    a = T([1.0, 2.0])
    b = a * 1
    v = b[0]
    b.mul_(2.0)
    assert repr(v) == "tensor(2., grad_fn=<AsStridedBackward0>)"

    m = T([[1.0, 2.0], [3.0, 4.0]])
    n = m * 1
    w = n[0, 1]
    n.mul_(3.0)
    assert repr(w) == "tensor(6., grad_fn=<AsStridedBackward0>)"
    w.backward()
    assert vals(m.grad) == [[0.0, 3.0], [0.0, 0.0]]


def test_inplace_on_a_0d_index_view_writes_its_base():
    x = T([1.0, 2.0, 3.0])
    z = x * 1
    y = z[1]
    y += 1.5
    y.mul_(2.0)
    assert repr(z) == "tensor([1., 7., 3.], grad_fn=<CopySlices>)"
    assert repr(y) == "tensor(7., grad_fn=<AsStridedBackward0>)"
    z.sum().backward()
    assert vals(x.grad) == [1.0, 2.0, 1.0]


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
        "operation: [torch.LongTensor [2]] is at version 1; expected version 0 instead.")
    r = FUNCTIONS[fn](m, 0, keepdim=True)
    r.values.mul_(2.0)  # the values are not saved
    r.values.sum().backward()
    assert vals(m.grad) == ([[0.0, 0.0, 2.0], [2.0, 2.0, 0.0]] if fn == "max" else
                            [[2.0, 2.0, 0.0], [0.0, 0.0, 2.0]])


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
        [0.166666666667, -3.333333333333, 3.166666666667], [-2.666666666667, -0.666666666667, 3.333333333333]]
    s = FUNCTIONS["std"](x)
    s += 1.0
    with pytest.raises(EngineError) as info:
        s.backward()
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.DoubleTensor []], which is output 0 of Std, is at version 1; "
        "expected version 0 instead.")


@pytest.mark.parametrize("fn", ["floor", "ceil", "round", "trunc", "sign", "round1"])
def test_piecewise_constant_gradients_are_constant_zeros(fn):
    """floor/ceil/round/trunc/sign (and round(decimals=)) backward is zeros_like(grad):
    +0. where the upstream gradient is negative, never requiring grad (torch 2.13)."""
    op = (lambda t: FUNCTIONS["round"](t, decimals=1)) if fn == "round1" else FUNCTIONS[fn]
    a = T([0.5, -1.5])
    g, = grad((op(a) * tensor([-1.0, 2.0])).sum(), a, create_graph=True)
    assert not g.requires_grad and g.grad_fn is None
    assert repr(g) == "tensor([0., 0.])"


def test_abs_second_derivative_is_unsigned_zero():
    a = T([0.5, -1.5])
    g, = grad(FUNCTIONS["abs"](a).sum(), a, create_graph=True)
    assert repr(g) == "tensor([ 1., -1.], grad_fn=<MulBackward0>)"
    h, = grad((g * tensor([-1.0, 2.0])).sum(), a)
    assert repr(h) == "tensor([0., 0.])"


def test_zero_gradient_is_constant_zeros():
    a = T([0.5, -1.5])
    b = a * 1
    b.zero_()
    g, = grad((b * tensor([-1.0, 2.0])).sum(), a, create_graph=True)
    assert not g.requires_grad and repr(g) == "tensor([0., 0.])"


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


def test_retain_grad_of_a_view_modified_in_place_fills_once():
    """k = (b * 1).t(); k.retain_grad(); k *= 0.5: k's retained .grad comes once, from its
    regenerated AsStridedBackward0 (it was hung there twice: twice torch 2.13's value)."""
    b = T([[1.0, 2.0, 3.0]])
    k = (b * 1).t()
    k.retain_grad()
    k *= 0.5
    assert k.grad_fn.name() == "AsStridedBackward0" and k._base.grad_fn.name() == "CopySlices"
    (k * 3).sum().backward()
    assert vals(b.grad) == [[1.5, 1.5, 1.5]] and vals(k.grad) == [[3.0], [3.0], [3.0]]


def test_number_to_a_tensor_power_saves_the_exponent_and_the_result():
    """`2 ** z` (PowBackward2) saves z and the result, so an in-place op on z afterwards fails
    the backward with torch 2.13's text; `0 ** x` gives 0 where x >= 0, -inf where x < 0."""
    x = T([0.5, -1.25])
    z = x * 1
    y = 2 ** z
    z += 1.5
    with pytest.raises(EngineError, match=r"^one of the variables needed for gradient computation "
                       r"has been modified by an inplace operation: \[torch.DoubleTensor \[2\]\], "
                       r"which is output 0 of Add, is at version 1; expected version 0 instead"):
        y.sum().backward()
    assert x.grad is None
    x = T([0.5, -1.25])
    y = 0 ** x
    y.sum().backward()
    assert y.grad_fn.name() == "PowBackward2" and vals(x.grad) == [0.0, float("-inf")]


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


def test_views_regenerate_their_grad_fn_after_an_unrecorded_inplace():
    """An in-place op recorded under no_grad, or through a detached alias, still changes a
    leaf's views: their grad_fn becomes AsStridedBackward0 over the leaf (torch 2.13)."""
    from diffcli.engine import no_grad
    a = T([1.0, 2.0, 3.0])
    v = a[1:]
    with no_grad():
        a.mul_(3.0)
    assert repr(v) == "tensor([6., 9.], grad_fn=<AsStridedBackward0>)"
    (v * 2).sum().backward()
    assert vals(a.grad) == [0.0, 2.0, 2.0]
    d = a.detach()
    u = a[:2]
    d.add_(1.0)
    assert repr(u) == "tensor([4., 7.], grad_fn=<AsStridedBackward0>)"
    x = T([0.5, 0.5, 0.5])
    w = d[0:2]
    d.add_(x)  # the alias now has a history; a's views still go to a, the alias's to it
    assert repr(d) == "tensor([ 4.5000,  7.5000, 10.5000], grad_fn=<AddBackward0>)"
    assert w.grad_fn.name() == "AsStridedBackward0" and v.grad_fn.name() == "AsStridedBackward0"
    a.grad = None
    (v.sum() + w.sum()).backward()
    assert vals(a.grad) == [0.0, 1.0, 1.0] and vals(x.grad) == [1.0, 1.0, 0.0]
    b = tensor([0.0, 0.0, 0.0])
    bv = b[1:]
    b.detach().add_(x)  # b does not require grad: its view keeps no grad_fn
    assert bv.grad_fn is None and not bv.requires_grad


@pytest.mark.parametrize("make, shape, producer", [
    (lambda z: z @ z.t(), "[3, 2]", "AsStrided"),       # MmBackward0 checks mat2 first
    (lambda z: z.t() @ z, "[2, 3]", "Add"),
    (lambda z: FUNCTIONS["dot"](z[0], z[1]), "[3]", "AsStrided"),
    (lambda z: FUNCTIONS["bmm"](z.unsqueeze(0), z.t().unsqueeze(0)), "[1, 3, 2]", "AsStrided"),
    (lambda z: FUNCTIONS["mv"](z.t(), z[:, 0]), "[3, 2]", "AsStrided"),  # MvBackward0: self first
])
def test_version_error_names_the_saved_tensor_pytorch_checks_first(make, shape, producer):
    x = T([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]])
    z = x * 1
    y = make(z)
    z += 1.5
    with pytest.raises(EngineError) as info:
        y.sum().backward()
    assert f"[torch.DoubleTensor {shape}], which is output 0 of {producer}, is at version 1" in str(info.value)


@pytest.mark.parametrize("make", [lambda z: z * z.t().t(), lambda z: z * z.view(z.shape)],
                         ids=["matrix", "view"])
def test_a_product_checks_other_before_self(make):
    """When both saved tensors of a product were modified in place, PyTorch's MulBackward0
    names `other` (here a view: 'output 0 of AsStrided'), not `self` (torch 2.13)."""
    for value in ([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]], 2.0):
        x = T(value)
        z = x * 1
        y = make(z)
        z += 1.5
        shape = "2, 3" if isinstance(value, list) else ""
        with pytest.raises(EngineError, match=rf"inplace operation: \[torch.DoubleTensor \[{shape}\]\], "
                           r"which is output 0 of AsStrided, is at version 1; expected version 0"):
            y.sum().backward()


def test_a_view_made_under_no_grad_requires_grad_but_leads_nowhere():
    """torch 2.13: a view made under no_grad of a tensor that requires grad has
    requires_grad=True, is a leaf, passes no gradient back, and refuses in-place ops in grad
    mode with the no_grad-view message (also for a view of a non-leaf)."""
    from diffcli.engine import no_grad
    a = T([0.5, 1.0])
    with no_grad():
        v = a.reshape(2, 1)
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    assert repr(v) == "tensor([[0.5000],\n        [1.0000]], requires_grad=True)"
    y = (v * 2).sum()
    assert [n is None for n in y.grad_fn.next_functions[0][0].next_nodes] == [True, True]
    y.backward()
    assert a.grad is None and v.grad is None
    b = a * 1
    with no_grad():
        w = b[0]
    assert repr(w) == "tensor(0.5000, requires_grad=True)" and w.is_leaf
    for t in (v, w):
        with pytest.raises(EngineError, match=r"^A view was created in no_grad mode and is being modified "
                           r"inplace with grad mode enabled\. Given that this use case is ambiguous"):
            t.mul_(2.0)
    assert not v.detach().requires_grad


def test_atan2_second_derivative_at_the_origin_is_nan():
    """PyTorch's atan2_backward: recip = (y*y + x*x).reciprocal() with its infinities
    masked to 0 (MaskedFillBackward0): the first derivative at the origin is 0, the second
    -0 * inf = nan (torch 2.13)."""
    import math
    b = T(0.0)
    g, = grad(FUNCTIONS["atan2"](b, b), b, create_graph=True)
    assert g.grad_fn.name() == "AddBackward0" and vals(g) == 0.0
    g.backward()
    assert math.isnan(vals(b.grad))
    a, c = T([0.0, 1.0, 0.0]), T([0.0, 2.0, -1.0])
    ga, gc = grad(FUNCTIONS["atan2"](a, c).sum(), [a, c], create_graph=True)
    assert vals(ga) == [0.0, 0.4, -1.0] and vals(gc) == [-0.0, -0.2, -0.0]
    assert ga.grad_fn.name() == "MulBackward0"
    assert ga.grad_fn.next_functions[1][0].name() == "MaskedFillBackward0"
    assert gc.grad_fn.next_functions[1][0].next_functions[0][0].name() == "ReciprocalBackward0"
    ha, hc = grad((ga * ga + gc).sum(), [a, c])
    assert math.isnan(vals(ha)[0]) and math.isnan(vals(hc)[0])
    assert vals(ha)[1:] == pytest.approx([-0.24800000000000005, -1.0], rel=1e-15)
    assert vals(hc)[1:] == pytest.approx([0.064, 2.0], rel=1e-15)


def test_prod_gradient_under_create_graph_records_what_pytorch_records():
    """PyTorch's prod_backward: with a zero in the input, prod_safe_zeros_backward
    (exclusive cumprods, CumprodBackward0), over the flattened input for the full product
    (so the gradient's grad_fn is ViewBackward0); over a dim of size 1 the gradient is the
    incoming one, constant here, so it does not require grad (torch 2.13)."""
    prod = FUNCTIONS["prod"]
    a = T([[0.0, 1.625, 0.0]])
    g, = grad(prod(a, 0).sum(), a, create_graph=True)
    assert vals(g) == [[1.0, 1.0, 1.0]] and not g.requires_grad and g.grad_fn is None
    with pytest.raises(EngineError, match="element 0 of tensors does not require grad"):
        g.sum().backward()
    b = T([0.0, 2.0, -1.5])
    h, = grad(prod(b), b, create_graph=True)
    assert vals(h) == [-3.0, -0.0, 0.0]
    assert h.grad_fn.name() == "ViewBackward0" and h.grad_fn.next_functions[0][0].name() == "MulBackward0"
    k, = grad((h * h).sum(), b)
    assert vals(k) == [0.0, 9.0, -12.0]
    c = T([[0.0, 2.0], [0.5, 0.0]])
    h, = grad((prod(c, 1) * tensor([1.5, -2.0])).sum(), c, create_graph=True)
    assert vals(h) == [[3.0, 0.0], [-0.0, -1.0]] and h.grad_fn.name() == "MulBackward0"
    k, = grad((h * h * c).sum(), c)
    assert vals(k) == [[9.0, 0.0], [0.0, 1.0]]
    d = T([1.0, 2.0])  # no zero: g * (result / input)
    h, = grad(prod(d), d, create_graph=True)
    assert vals(h) == [2.0, 1.0] and h.grad_fn.next_functions[1][0].name() == "DivBackward0"


@pytest.mark.parametrize("name, values, second", [
    ("tanh", [1.179671599448891, 0.420622299270649, 1.5], [-2.572375308472099, 0.6003239483029438, -0.0]),
    ("sigmoid", [0.3525055683023917, 0.25965718048874553, 0.375],
     [-0.060867272037244506, 0.07478428011055427, 0.0]),
])
def test_tanh_and_sigmoid_gradients_record_their_backward_ops(name, values, second):
    """Under create_graph, tanh's and sigmoid's gradients are PyTorch's tanh_backward /
    sigmoid_backward ops (TanhBackwardBackward0 / SigmoidBackwardBackward0, edges to the
    incoming gradient and to the op's output), and so are their own gradients (torch 2.13)."""
    x = T([0.5, -1.25, 0.0])
    g, = grad((getattr(unary, name)(x) * 1.5).sum(), x, create_graph=True)
    node = f"{name.capitalize()}BackwardBackward0"
    assert g.grad_fn.name() == node
    assert [n and n.name() for n, _ in g.grad_fn.next_functions] == [None, f"{name.capitalize()}Backward0"]
    assert vals(g) == pytest.approx(values, rel=1e-15)
    h, = grad((g * g).sum(), x, create_graph=True)
    assert h.grad_fn.name() == node
    assert [n and n.name() for n, _ in h.grad_fn.next_functions] == ["MulBackward0", f"{name.capitalize()}Backward0"]
    assert vals(h) == pytest.approx(second, rel=1e-15, abs=1e-300)


@pytest.mark.parametrize("name, first, second", [
    ("softmax", [[0.26016444169377884, -0.2476175216182754, -0.012546920075503303],
                 [-0.2389041737732602, 0.24664100874609585, -0.007736834972835684]],
     [[-0.07096251823578996, 0.15569943971911387, -0.08473692148332392],
      [-0.10900658210803221, 0.11171183231332195, -0.002705250205289789]]),
    ("log_softmax", [[1.2808508157040355, -1.9511954462338355, 0.6703446305298],
                     [-0.29560636760034864, 1.2992826343876032, -1.0036762667872547]],
     [[0.294033982331017, -0.2643817065128561, -0.02965227581816099],
      [0.461974172307474, -0.47029303750229934, 0.00831886519482534]]),
])
def test_softmax_gradients_record_their_backward_data_ops(name, first, second):
    """Under create_graph, softmax's and log_softmax's gradients are PyTorch's
    _softmax_backward_data / _log_softmax_backward_data (SoftmaxBackwardDataBackward0 /
    LogSoftmaxBackwardDataBackward0, edges to the incoming gradient and to the output),
    differentiated with PyTorch's formulas (torch 2.13)."""
    x = T([[0.5, -1.25, 0.0], [2.0, 1.0, -3.0]])
    w = tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]])
    g, = grad((FUNCTIONS[name](x, 1) * w).sum(), x, create_graph=True)
    fwd = "SoftmaxBackward0" if name == "softmax" else "LogSoftmaxBackward0"
    assert g.grad_fn.name() == fwd.replace("Backward0", "BackwardDataBackward0")
    assert [n and n.name() for n, _ in g.grad_fn.next_functions] == [None, fwd]
    for a, b in zip(vals(g), first):
        assert a == pytest.approx(b, rel=1e-13)
    h, = grad((g * g).sum(), x)
    for a, b in zip(vals(h), second):
        assert a == pytest.approx(b, rel=1e-13)


@pytest.mark.parametrize("make, chain, first, second", [
    (lambda x: (x * x).mean(), ["DivBackward1", "ExpandBackward0"],
     [[0.8784722222222222, -2.1961805555555554, 0.0], [3.513888888888889, 1.7569444444444444, -5.270833333333333]],
     [[9.260561342592592, -23.15140335648148, 0.0], [37.04224537037037, 18.521122685185183, -55.56336805555555]]),
    (lambda x: (x * x).mean(0), ["DivBackward1", "ExpandBackward0"],
     [[2.125, -3.203125, 0.0], [8.5, 2.5625, -27.0]],
     [[54.1875, -49.248046875, 0.0], [216.75, 39.3984375, -1458.0]]),
    (lambda x: (x * x).sum(1), ["ExpandBackward0", "UnsqueezeBackward0"],
     [[3.625, -9.0625, 0.0], [112.0, 56.0, -168.0]],
     [[157.6875, -394.21875, 0.0], [37632.0, 18816.0, -56448.0]]),
])
def test_sum_and_mean_gradients_record_pytorchs_sum_backward(make, chain, first, second):
    """PyTorch's sum_backward (the reduced dims unsqueezed back, then ExpandBackward0) and
    mean's division by the count as a Scalar (DivBackward1), under create_graph (torch 2.13)."""
    x = T([[0.5, -1.25, 0.0], [2.0, 1.0, -3.0]])
    y = make(x)
    g, = grad((y * y).sum(), x, create_graph=True)
    f = g.grad_fn.next_functions[0][0]  # g: AddBackward0 of the two MulBackward0 of y * y
    assert [f.name(), f.next_functions[0][0].name(), f.next_functions[0][0].next_functions[0][0].name()] == \
        ["MulBackward0"] + chain
    assert vals(g) == first
    h, = grad((g * g).sum(), x)
    for a, b in zip(vals(h), second):
        assert a == pytest.approx(b, rel=1e-14)


def _chain(node, depth):
    """The grad_fn names down the last edge of each node."""
    out = []
    while node is not None and depth:
        out.append(node.name())
        node = node.next_functions[-1][0] if node.next_functions else None
        depth -= 1
    return out


_X0 = [0.5, -0.25, 0.75]
_ACC = "AccumulateGrad"


@pytest.mark.parametrize("make, v, first, first_chain, second, second_chain", [
    (lambda t: FUNCTIONS["asin"](t), _X0, [1.7320508075688776, -0.5163977794943222, 3.0237157840738176],
     ["MulBackward0", "RsqrtBackward0", "AddBackward1", "MulBackward0"],
     [4.000000000000003, -0.14222222222222214, 31.34693877551019], ["AddBackward0", "NegBackward0", "MulBackward0", _ACC]),
    (lambda t: FUNCTIONS["acosh"](t), [1.5, 2.25, 3.0], [1.3416407864998738, -0.24806946917841693, 0.7071067811865475],
     ["MulBackward0", "RsqrtBackward0", "SubBackward1", "MulBackward0"],
     [-4.319999999999999, -0.0681656804733728, -0.3749999999999999], ["AddBackward0", "MulBackward0", _ACC]),
    (lambda t: FUNCTIONS["atanh"](t), _X0, [2.0, -0.5333333333333333, 4.571428571428571],
     ["DivBackward0", "SubBackward0", "PowBackward0", _ACC],
     [10.666666666666666, -0.3034074074074074, 143.30029154518948], ["MulBackward0", "MulBackward1", "PowBackward0", _ACC]),
    (lambda t: FUNCTIONS["tan"](t), _X0, [1.9476696156142872, -0.532599748366425, 3.7357439283606557],
     ["MulBackward0", "AddBackward1", "PowBackward0", "TanBackward0"],
     [8.28941245896651, -0.2897237027016314, 52.00463102987859], ["MulBackward0", "AddBackward1", "PowBackward0", "TanBackward0"]),
    (lambda t: FUNCTIONS["rsqrt"](t), [0.5, 1.25, 0.75], [-2.121320343559642, 0.17888543819998315, -1.5396007178390028],
     ["MulBackward0", "PowBackward0", "RsqrtBackward0", _ACC],
     [-26.999999999999975, -0.07679999999999998, -9.481481481481493], ["MulBackward0", "PowBackward0", "RsqrtBackward0", _ACC]),
    (lambda t: unary.silu(t), _X0, [1.1099417809539778, -0.18814498921490116, 1.6851998889935071],
     ["MulBackward0", "AddBackward1", "MulBackward0", "SubBackward0"],
     [1.4692155960344215, 0.09117812617912957, 2.54281007887092],
     ["AddBackward0", "SigmoidBackwardBackward0", "SigmoidBackward0", _ACC]),
    (lambda t: unary.gelu(t), _X0, [1.3012426869842444, -0.152313322558182, 1.9984514434784704],
     ["GeluBackwardBackward0", _ACC],
     [2.4051427669120065, 0.11410849209526702, 3.460399081857221], ["MulBackward0", "SubBackward0", "MulBackward0", "MulBackward1"]),
    (lambda t: unary.gelu(t, "tanh"), _X0, [1.3010548553019636, -0.15232295242446978, 1.9978765122748285],
     ["GeluBackwardBackward0", _ACC],
     [2.4024247030874664, 0.11408206413276167, 3.4547879235754273], ["MulBackward0", "AddBackward0", "MulBackward0", "MulBackward1"]),
    (lambda t: unary.softplus(t), _X0, [0.9336889968027818, -0.21891174955710094, 1.358357398350786],
     ["SoftplusBackwardBackward0", _ACC],
     [0.6582611408713093, 0.053881642677719895, 1.1839171073598338], ["MulBackward1", "MulBackward0"]),
    (lambda t: unary.elu(t), _X0, [1.5, -0.38940039153570244, 2.0], ["EluBackwardBackward0", _ACC],
     [0.0, 0.3032653298563167, 0.0], ["MulBackward0"]),
], ids=["asin", "acosh", "atanh", "tan", "rsqrt", "silu", "gelu", "gelu_tanh", "softplus", "elu"])
def test_unary_gradients_record_pytorchs_formulas(make, v, first, first_chain, second, second_chain):
    """Under create_graph, unary ops' gradients record the ops of PyTorch's formulas
    (Scalar operands as MulBackward1/AddBackward1/SubBackward1, `1 - t` as SubBackward0,
    x.pow(2), rsqrt, gelu_backward as GeluBackwardBackward0 with gelu_double_backward,
    softplus/elu double backward), down to the second derivative (torch 2.13)."""
    x = T(v)
    w = T([1.5, -0.5, 2.0])
    g, = grad((make(x) * w).sum(), x, create_graph=True)
    assert _chain(g.grad_fn, 4) == first_chain
    assert vals(g) == pytest.approx(first, rel=1e-14)
    h, = grad((g * g).sum(), x, create_graph=True)
    assert _chain(h.grad_fn, 4) == second_chain
    assert vals(h) == pytest.approx(second, rel=1e-13)


def test_amax_gradient_is_pytorchs_scale_grad_by_count():
    """amax's gradient is PyTorch's (grad / count) * mask over the restored dims: under
    create_graph MulBackward0 <- DivBackward0 <- ViewBackward0; -0. where the gradient is
    negative and the element is not the maximum; nan everywhere in a slice whose maximum
    is nan (torch 2.13)."""
    import math
    amax = FUNCTIONS["amax"]
    x = T([[1.0, 0.5, 2.0], [3.0, 3.0, 1.0]])
    w = T([1.5, -2.0])
    g, = grad((amax(x, 1) * w).sum(), x, create_graph=True)
    div = g.grad_fn.next_functions[0][0]
    assert [g.grad_fn.name(), div.name(), div.next_functions[0][0].name()] == \
        ["MulBackward0", "DivBackward0", "ViewBackward0"]
    assert g.grad_fn.next_functions[1][0] is None  # the mask is a constant
    assert vals(g) == [[0.0, 0.0, 1.5], [-1.0, -1.0, -0.0]]
    assert [math.copysign(1.0, v) for v in vals(g)[1]] == [-1.0, -1.0, -1.0]
    h, = grad((g * g).sum(), w)
    assert vals(h) == [3.0, -2.0]
    n = T([[1.0, math.nan, 2.0], [3.0, 3.0, 1.0]])
    g, = grad((amax(n, 1) * tensor([1.5, -2.0])).sum(), n, create_graph=True)
    assert not g.requires_grad
    assert all(math.isnan(v) for v in vals(g)[0]) and vals(g)[1] == [-1.0, -1.0, -0.0]


@pytest.mark.parametrize("op, xs, gs, want", [
    ("sigmoid", [-4.972209994276508, -3.1582739208468036, 2.8149258169105735],
     [-1.9069682969111004, 1.9515790508364264, 2.5346648056853427],
     [-0.013029970400034932, 0.07631569936954494, 0.1351688105525051]),
    ("reciprocal", [-0.25138442230999125, 0.20088219145636366, 5.475207058033183],
     [1.420720157483398, -0.21135783137820585, 2.3377948380930835],
     [-22.481838224376233, 5.237637884192837, -0.07798396273120575]),
])
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


@pytest.mark.parametrize("fn, args, dtype, digest", _RANGES)
def test_linspace_and_arange_values_are_pytorchs_bit_for_bit(fn, args, dtype, digest):
    import hashlib

    from diffcli.engine import dtypes
    t = FUNCTIONS[fn](*args, dtype=dtypes.BY_NAME[dtype])
    assert t.data_.dtype.name == dtype
    assert hashlib.sha256(t.data_.tobytes()).hexdigest()[:16] == digest


def test_linspace_and_arange_points_pytorch_prints():
    from diffcli.engine import dtypes
    f64 = dtypes.float64
    assert FUNCTIONS["linspace"](-1, 1, 15, dtype=f64)[7].item() == 5.551115123125783e-17
    assert FUNCTIONS["linspace"](-1, 1, 7, dtype=f64).data_[3] == 5.551115123125783e-17
    assert FUNCTIONS["arange"](-1, 1, 0.1, dtype=f64)[10].item() == 5.551115123125783e-17
    assert FUNCTIONS["arange"](0, 5, 0.3, dtype=f64)[13].item() == 3.8999999999999995
    assert FUNCTIONS["linspace"](-1, 1, 15, dtype=dtypes.float32)[7].item() == -4.470348358154297e-08
    assert vals(FUNCTIONS["linspace"](0, 10, 4, dtype=dtypes.int64)) == [0, 3, 6, 10]
    assert vals(FUNCTIONS["linspace"](2, 3, 1)) == [2.0] and vals(FUNCTIONS["linspace"](2, 3, 0)) == []
    assert vals(FUNCTIONS["arange"](0.5, 3, dtype=dtypes.int64)) == [0, 1, 2]
    assert vals(FUNCTIONS["arange"](10, 0, -3)) == [10, 7, 4, 1]


@pytest.mark.parametrize("fn, args, text", [
    ("linspace", (0, 1, -1), "number of steps must be non-negative"),
    ("arange", (0, 5, -1), "upper bound and lower bound inconsistent with step sign"),
    ("arange", (0, 1, 0), "step must be nonzero"),
    ("arange", (0, float("inf")), "unsupported range: 0 -> inf"),
    ("arange", (float("nan"), 2), "unsupported range: nan -> 2"),
    ("arange", (1.5, -float("inf"), -1), "unsupported range: 1.5 -> -inf"),
])
def test_linspace_and_arange_errors_are_pytorchs(fn, args, text):
    with pytest.raises(errors.TorchRuntimeError) as e:
        FUNCTIONS[fn](*args)
    assert str(e.value) == text


def _ones(*shape, dtype=None):
    from diffcli.engine import dtypes
    return FUNCTIONS["ones"](*shape, dtype=None if dtype is None else dtypes.BY_NAME[dtype])


_F32, _I64 = "float32", "int64"


# (make, PyTorch's exception type, its text) as torch 2.13 raises them
@pytest.mark.parametrize("make, kind, text", [
    (lambda: FUNCTIONS["cross_entropy"](tensor([[1.0, 2.0, 3.0]]), tensor([2.0])),
     "RuntimeError", "expected target dtype to be Long or Byte, but got Double"),
    (lambda: FUNCTIONS["cross_entropy"](T([[1.0, 2.0, 3.0]]), _ones(1, dtype=_F32)),
     "RuntimeError", "expected target dtype to be Long or Byte, but got Float"),
    (lambda: FUNCTIONS["cross_entropy"](tensor([1.0, 2.0, 3.0]), tensor(2.0)),
     "RuntimeError", "expected target dtype to be Long or Byte, but got Double"),
    (lambda: FUNCTIONS["cross_entropy"](_ones(2, 3), tensor([1.0])),
     "ValueError", "Expected input batch_size (2) to match target batch_size (1)."),
    (lambda: FUNCTIONS["cross_entropy"](_ones(2, 3), _ones(2, 2)),
     "RuntimeError", "0D or 1D target tensor expected, multi-target not supported"),
    (lambda: FUNCTIONS["cross_entropy"](tensor([[1.0, 2.0, 3.0]]), tensor([[0, 1, 0]])),
     "RuntimeError", "Expected floating point type for target with class probabilities, got Long"),
    (lambda: FUNCTIONS["cross_entropy"](_ones(2, 3), _ones(2, 3), ignore_index=1),
     "RuntimeError", "ignore_index is not supported for floating point target"),
    (lambda: FUNCTIONS["nll_loss"](_ones(3), tensor([1.0])),
     "RuntimeError", "expected target dtype to be Long or Byte, but got Double"),
    (lambda: FUNCTIONS["nll_loss"](_ones(2, 3, 4, 5), _ones(2, 4)),
     "RuntimeError", "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2"),
    (lambda: FUNCTIONS["nll_loss"](_ones(2, 3, 4, 5), _ones(2, 4, 6, dtype=_I64)),
     "RuntimeError", "size mismatch (got input: [2, 3, 4, 5] , target: [2, 4, 6]"),
    (lambda: FUNCTIONS["nll_loss"](tensor(1.0), _ones(3)),
     "ValueError", "Expected 1 or more dimensions (got 0)"),
    (lambda: FUNCTIONS["mse_loss"](tensor([1, 2]), tensor([1, 3])),
     "NotImplementedError", "\"mse_cpu\" not implemented for 'Long'"),
    (lambda: FUNCTIONS["mse_loss"](tensor([True]), tensor([False])),
     "NotImplementedError", "\"mse_cpu\" not implemented for 'Bool'"),
    (lambda: FUNCTIONS["binary_cross_entropy"](tensor([1, 0]), tensor([1, 0])),
     "NotImplementedError", "\"binary_cross_entropy\" not implemented for 'Long'"),
    (lambda: FUNCTIONS["binary_cross_entropy_with_logits"](tensor([1, 0]), tensor([1, 0])),
     "NotImplementedError", "\"log_sigmoid_cpu\" not implemented for 'Long'"),
    (lambda: FUNCTIONS["maximum"](tensor([1.0]), 0.5),
     "TypeError", "maximum(): argument 'other' (position 2) must be Tensor, not float"),
    (lambda: FUNCTIONS["minimum"](tensor([1.0]), 1),
     "TypeError", "minimum(): argument 'other' (position 2) must be Tensor, not int"),
    (lambda: FUNCTIONS["maximum"](0.5, tensor([1.0])),
     "TypeError", "maximum(): argument 'input' (position 1) must be Tensor, not float"),
    (lambda: tensor([1.0]).maximum(0.5),
     "TypeError", "maximum(): argument 'other' (position 1) must be Tensor, not float"),
    (lambda: tensor([1.0]).minimum(2),
     "TypeError", "minimum(): argument 'other' (position 1) must be Tensor, not int"),
    (lambda: FUNCTIONS["mse_loss"](_ones(2, 3), _ones(3, 2)),
     "RuntimeError", "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    (lambda: FUNCTIONS["where"](_ones(2) > 0, _ones(3), _ones(2)),
     "RuntimeError", "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda: FUNCTIONS["where"](_ones(3) > 0, _ones(3), _ones(2)),
     "RuntimeError", "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda: FUNCTIONS["where"](_ones(2) > 0, 1.0, _ones(3)),
     "RuntimeError", "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    (lambda: FUNCTIONS["where"](_ones(2, 1) > 0, _ones(3), _ones(2, 4)),
     "RuntimeError", "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    (lambda: FUNCTIONS["clamp"](_ones(3), _ones(3), _ones(2)),
     "RuntimeError", "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda: FUNCTIONS["clamp"](_ones(3), max=_ones(2)),
     "RuntimeError", "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda: FUNCTIONS["logical_and"](_ones(3), _ones(2)),
     "RuntimeError", "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda: FUNCTIONS["outer"](_ones(2, 2), _ones(2)),
     "RuntimeError", "outer: Expected 1-D argument self, but got 2-D"),
    (lambda: FUNCTIONS["outer"](_ones(2), _ones(2, 2)),
     "RuntimeError", "outer: Expected 1-D argument vec2, but got 2-D"),
    (lambda: FUNCTIONS["outer"](tensor(1.0), _ones(2)),
     "RuntimeError", "outer: Expected 1-D argument self, but got 0-D"),
    (lambda: FUNCTIONS["mv"](_ones(100, 3, dtype=_F32), _ones(3)),
     "RuntimeError", "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda: _ones(100, 3) @ _ones(3, dtype=_F32),
     "RuntimeError", "addmv input tensors must have the same dtype, but got Float, Double, and Float"),
    (lambda: _ones(2, 2, 3, dtype=_F32) @ _ones(3),
     "RuntimeError", "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda: _ones(3, dtype=_F32) @ _ones(3, 4),
     "RuntimeError", "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda: FUNCTIONS["dot"](_ones(3, dtype=_F32), _ones(3)),
     "RuntimeError", "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda: _ones(3) @ _ones(3, dtype=_F32),
     "RuntimeError", "dot : expected both vectors to have same dtype, but found Double and Float"),
    (lambda: FUNCTIONS["mm"](_ones(2, 3, dtype=_F32), _ones(3, 2)),
     "RuntimeError", "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda: FUNCTIONS["bmm"](_ones(2, 2, 3, dtype=_F32), _ones(2, 3, 2)),
     "RuntimeError", "expected scalar type Float but found Double"),
    (lambda: _ones(3, dtype=_F32) @ _ones(2, 3, 2),
     "RuntimeError", "expected scalar type Float but found Double"),
])
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
        "dim=X as an argument."]


@pytest.mark.parametrize("make, text", [
    (lambda: T([1.5, -2.5, 3.0]) // 2, "tensor([ 0., -2.,  1.], grad_fn=<NotImplemented>)"),
    (lambda: 2 // T([1.5, -2.5, 3.0]), "tensor([ 1., -1.,  0.], grad_fn=<NotImplemented>)"),
    (lambda: FUNCTIONS["floor_divide"](T([1.5, -2.5, 3.0]), tensor([2.0, 2.0, -2.0])),
     "tensor([ 0., -2., -2.], grad_fn=<NotImplemented>)"),
    (lambda: T([1.5, -2.5, 3.0]) % 2, "tensor([1.5000, 1.5000, 1.0000], grad_fn=<RemainderBackward0>)"),
    (lambda: T([1.5, -2.5, 3.0]) % T([2.0, 2.0, -2.0]),
     "tensor([ 1.5000,  1.5000, -1.0000], grad_fn=<RemainderBackward1>)"),
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
    (lambda: tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]).any(1, keepdim=True), "tensor([[True],\n        [True]])"),
    (lambda: FUNCTIONS["all"](tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]), 0), "tensor([False,  True,  True])"),
    (lambda: FUNCTIONS["all"](tensor([])), "tensor(True)"),
    (lambda: T([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]).argmax(), "tensor(2)"),
    (lambda: FUNCTIONS["argmax"](tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]), 1, keepdim=True), "tensor([[2],\n        [2]])"),
    (lambda: FUNCTIONS["argmin"](tensor([[1.5, -2.5, 3.0], [0.0, 2.0, 3.0]]), dim=0), "tensor([1, 0, 0])"),
    (lambda: tensor([1.0, float("nan"), 3.0, float("nan")]).argmax(), "tensor(1)"),
    (lambda: tensor([3.0, 1.0, 3.0]).argmax(), "tensor(0)"),
    (lambda: _ones(0, 3).argmax(1), "tensor([], dtype=torch.int64)"),
])
def test_floor_divide_remainder_any_all_argmax_as_pytorch(make, text):
    assert repr(make()) == text


@pytest.mark.parametrize("make, kind, text", [
    (lambda: tensor([5, -5, 7]) // 0, "RuntimeError", "ZeroDivisionError"),
    (lambda: tensor([5, -5, 7]) % 0, "RuntimeError", "ZeroDivisionError"),
    (lambda: tensor([True]) // tensor([True]), "NotImplementedError", "\"div_floor_cpu\" not implemented for 'Bool'"),
    (lambda: tensor([True]) % tensor([True]), "NotImplementedError", "\"remainder_cpu\" not implemented for 'Bool'"),
    (lambda: _ones(3) // _ones(2), "RuntimeError",
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda: (T([1.5, 2.0]) // 2).sum().backward(), "RuntimeError",
     "derivative for aten::floor_divide is not implemented"),
    (lambda: (2 % T([1.5, 2.0])).sum().backward(), "RuntimeError",
     "derivative for aten::remainder is not implemented"),
    (lambda: _ones(2, 3).any(2), "IndexError", "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: tensor([]).argmax(), "IndexError",
     "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
    (lambda: _ones(0, 3).argmin(0), "IndexError", "argmin(): Expected reduction dim 0 to have non-zero size."),
    (lambda: tensor([False, True]).argmax(), "RuntimeError", "argmax(): does not support bool input"),
    (lambda: FUNCTIONS["equal"](_ones(2), 1.0), "TypeError",
     "equal(): argument 'other' (position 2) must be Tensor, not float"),
    (lambda: _ones(2).allclose(1.0), "TypeError",
     "allclose(): argument 'other' (position 1) must be Tensor, not float"),
    (lambda: FUNCTIONS["allclose"](_ones(2), _ones(2, dtype=_F32)), "RuntimeError", "Double did not match Float"),
    (lambda: FUNCTIONS["allclose"](_ones(3), _ones(2)), "RuntimeError",
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
])
def test_new_ops_raise_pytorchs_errors(make, kind, text):
    with pytest.raises(EngineError) as e:
        make()
    assert (e.value.type_name, str(e.value)) == (kind, text)


def test_remainder_gradients_are_pytorchs():
    x, y = T([1.5, -2.5, 3.0]), T([2.0, 2.0, -2.0])
    z = x % y
    assert [type(f).__name__ for f, _ in z.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    gx, gy = grad(z.sum(), [x, y], create_graph=True)
    assert repr(gx) == "tensor([1., 1., 1.])"
    assert repr(gy) == "tensor([-0., 2., 2.], grad_fn=<MulBackward0>)"   # -grad * floor(x / y)
    nf = gy.grad_fn.next_functions
    assert nf[0][0] is None and nf[1][0].name() == "DivBackward2"
    w = T([1.5, -2.5, 3.0])
    (w % 2).sum().backward()
    assert vals(w.grad) == [1.0, 1.0, 1.0]
    assert not (w // 2).is_leaf and (w // 2).requires_grad
    assert w.argmax().requires_grad is False and w.any().requires_grad is False
    assert repr(w * w.argmax()) == "tensor([ 3., -5.,  6.], grad_fn=<MulBackward0>)"


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


@pytest.mark.parametrize("fn, shapes", [("mm", ((2, 2), (2, 2))), ("dot", ((2,), (2,))),
                                        ("mv", ((2, 2), (2,))), ("bmm", ((1, 2, 2), (1, 2, 2)))])
def test_products_save_an_operand_only_for_the_other_ones_gradient(fn, shapes):
    # PyTorch saves mat2 for self's gradient and self for mat2's: with only one side
    # requiring grad, an in-place change of that side is no version error
    a = T(FUNCTIONS["ones"](*shapes[0]).data_.tolist())
    h = a * 1
    r = FUNCTIONS[fn](h, _ones(*shapes[1]))
    h *= 0.5
    r.sum().backward()
    assert a.grad.data_.sum() == {"mm": 8.0, "dot": 2.0, "mv": 4.0, "bmm": 8.0}[fn]
    b = T(FUNCTIONS["ones"](*shapes[1]).data_.tolist())
    k = b * 1
    r = FUNCTIONS[fn](_ones(*shapes[0]), k)
    k *= 0.5
    r.sum().backward()
    assert b.grad.data_.sum() == {"mm": 8.0, "dot": 2.0, "mv": 4.0, "bmm": 8.0}[fn]


def test_int_is_int32_with_pytorchs_promotion_and_printing():
    from diffcli.engine import dtypes
    x = tensor([1.7, -1.7]).int()
    assert repr(x) == "tensor([ 1, -1], dtype=torch.int32)"
    assert repr(tensor([True, False]).int()) == "tensor([1, 0], dtype=torch.int32)"
    i = tensor([1, 2]).int()
    assert repr(i + 5) == "tensor([6, 7], dtype=torch.int32)"
    assert repr(i + tensor([1, 2])) == "tensor([2, 4])"                       # int32 + int64
    assert repr(i + tensor(5)) == "tensor([6, 7], dtype=torch.int32)"         # a 0-d int64
    assert repr(tensor(5).int() + tensor([1, 2])) == "tensor([6, 7])"
    assert repr(i * 2.5) == "tensor([2.5000, 5.0000])"
    assert repr(i + _ones(2, dtype=_F32)) == "tensor([2., 3.], dtype=torch.float32)"
    assert repr(i.sum()) == "tensor(3)" and repr(i.cumsum(0)) == "tensor([1, 3])"  # int64 sums
    assert repr(i.sum(dtype=dtypes.int32)) == "tensor(3, dtype=torch.int32)"
    assert repr(i.argmax()) == "tensor(1)"
    assert repr(FUNCTIONS["zeros"](2, dtype=dtypes.BY_NAME["int"])) == "tensor([0, 0], dtype=torch.int32)"
    assert repr(T([1.5, 2.0]) * i) == "tensor([1.5000, 4.0000], grad_fn=<MulBackward0>)"


@pytest.mark.parametrize("make, kind, text", [
    (lambda: tensor([1, 2]).int().mean(), "RuntimeError",
     "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Int"),
    (lambda: FUNCTIONS["nll_loss"](_ones(2, 3), tensor([0, 1]).int()), "RuntimeError",
     "expected target dtype to be Long or Byte, but got Int"),
    (lambda: tensor([1, 2]).int().add_(1.5), "RuntimeError",
     "result type Double can't be cast to the desired output type Int"),
    (lambda: FUNCTIONS["where"](tensor([1, 0]).int(), _ones(2), _ones(2)), "RuntimeError",
     "where expected condition to be a boolean tensor, but got a tensor with dtype Int"),
    (lambda: tensor([3000000000], dtype=_i32()), "RuntimeError",
     "value cannot be converted to type int32 without overflow"),
    (lambda: FUNCTIONS["full"]((2,), 3000000000, dtype=_i32()), "RuntimeError",
     "value cannot be converted to type int without overflow"),
    (lambda: FUNCTIONS["mm"](_ones(2, 2).int(), _ones(2, 2)), "RuntimeError",
     "expected m1 and m2 to have the same dtype, but got: int != double"),
])
def test_int32_errors_are_pytorchs(make, kind, text):
    with pytest.raises(EngineError) as e:
        make()
    assert (e.value.type_name, str(e.value)) == (kind, text)


def _i32():
    from diffcli.engine import dtypes
    return dtypes.int32
