"""Views and in-place writes: setitem, views of views and of 0-d indices, retain_grad
through a modified base, the version counter's errors, views made under no_grad.

Moved from the former tests/engine/test_regressions.py: divergences from PyTorch 2.13 that
were fixed, stated on the engine's API with the values and texts PyTorch gives."""

import pytest

from diffcli.engine import FUNCTIONS, EngineError, grad, tensor


def T(v):
    return tensor(v, requires_grad=True)


def vals(t):
    return t.array.tolist()


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
    (g,) = grad((t * t).sum(), x, create_graph=True)
    assert g.requires_grad and vals(g) == [0.0, 4.0, 60.0]
    g.sum().backward()
    assert vals(x.grad) == [0.0, 2.0, 20.0]


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


@pytest.mark.parametrize(
    "make, shape, producer",
    [
        (lambda z: z @ z.t(), "[3, 2]", "AsStrided"),  # MmBackward0 checks mat2 first
        (lambda z: z.t() @ z, "[2, 3]", "Add"),
        (lambda z: FUNCTIONS["dot"](z[0], z[1]), "[3]", "AsStrided"),
        (lambda z: FUNCTIONS["bmm"](z.unsqueeze(0), z.t().unsqueeze(0)), "[1, 3, 2]", "AsStrided"),
        (lambda z: FUNCTIONS["mv"](z.t(), z[:, 0]), "[3, 2]", "AsStrided"),  # MvBackward0: self first
    ],
)
def test_version_error_names_the_saved_tensor_pytorch_checks_first(make, shape, producer):
    x = T([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]])
    z = x * 1
    y = make(z)
    z += 1.5
    with pytest.raises(EngineError) as info:
        y.sum().backward()
    assert f"[torch.DoubleTensor {shape}], which is output 0 of {producer}, is at version 1" in str(
        info.value
    )


@pytest.mark.parametrize(
    "make", [lambda z: z * z.t().t(), lambda z: z * z.view(z.shape)], ids=["matrix", "view"]
)
def test_a_product_checks_other_before_self(make):
    """When both saved tensors of a product were modified in place, PyTorch's MulBackward0
    names `other` (here a view: 'output 0 of AsStrided'), not `self` (torch 2.13)."""
    for value in ([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]], 2.0):
        x = T(value)
        z = x * 1
        y = make(z)
        z += 1.5
        shape = "2, 3" if isinstance(value, list) else ""
        with pytest.raises(
            EngineError,
            match=rf"inplace operation: \[torch.DoubleTensor \[{shape}\]\], "
            r"which is output 0 of AsStrided, is at version 1; expected version 0",
        ):
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
        with pytest.raises(
            EngineError,
            match=r"^A view was created in no_grad mode and is being modified "
            r"inplace with grad mode enabled\. Given that this use case is ambiguous",
        ):
            t.mul_(2.0)
    assert not v.detach().requires_grad


def test_unbind_views_give_each_element_its_gradient():
    """Iterating over a tensor (unbind): each view's gradient lands at its place along the
    dim, and under create_graph it is differentiable again (d/dt of sum(g_i * t_i) with
    g = dL/dt = [2 t_0 w_0, ...] is 2 w), as in PyTorch (the values are exact)."""
    from diffcli.engine.ops import indexing

    t = T([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]])
    w = tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    rows_ = indexing.unbind(t, 0)
    assert [v.grad_fn.name() for v in rows_] == ["UnbindBackward0", "UnbindBackward0"]
    loss = (rows_[0] * rows_[0] * w[0]).sum() + (rows_[1] * rows_[1] * w[1]).sum()
    (g,) = grad(loss, t, create_graph=True)
    assert vals(g) == [[3.0, -8.0, 19.5], [-1.0, 4.0, -4.0]]
    (h,) = grad((g * tensor([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])).sum(), t)
    assert vals(h) == [[2.0, 4.0, 6.0], [-2.0, 1.0, 4.0]]
    cols = indexing.unbind(t, 1)
    (g,) = grad(cols[0].sum() + 3 * cols[2].sum(), t)
    assert vals(g) == [[1.0, 0.0, 3.0], [1.0, 0.0, 3.0]]


def test_fill_with_a_number_cuts_the_gradient():
    """x.fill_(2.0) on a non-leaf: FillBackward2, whose gradient is zeros (torch 2.13:
    a.grad == [0., 0.]); under create_graph a constant."""
    a = T([1.5, -2.0])
    b = a * 3
    b.fill_(2.0)
    assert b.grad_fn.name() == "FillBackward2" and vals(b) == [2.0, 2.0]
    (g,) = grad((b * tensor([2.0, 5.0])).sum(), a, create_graph=True)
    assert vals(g) == [0.0, 0.0] and not g.requires_grad
