"""PyTorch's autograd semantics (SPEC §2; REFERENCE.md §4 "Semantics notes").

Two layers:

* `test_golden_scenario`: every scenario of tests/goldens/semantics.json (`own:*`, the
  lifecycle scenarios written for this engine, and `semantics:*`, reference.json's
  semantics notes) was recorded from PyTorch 2.13 with float64 default dtype by
  tests/goldens/record_semantics.py. The same snippet runs here on the engine
  (tests/engine/torch_shim.py) and must give the same exception type and text, stdout
  and warnings.
* The tests below state the rules directly on the engine's API, with the values PyTorch
  gives, so that a failure reads as a sentence.
"""

import math

import numpy as np
import pytest

from diffcli.engine import (
    EngineError,
    Tensor,
    backward,
    dtypes,
    enable_grad,
    errors,
    grad,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
    tensor,
)

from .torch_shim import golden_scenarios, outcome, run_golden

# --- the goldens ------------------------------------------------------------------------

SKIP = {
    "semantics:inference_mode": "the engine has no inference_mode",
    "semantics:hooks: register_hook on leaf and non-leaf": "the engine has no hooks",
    "semantics:is_leaf / requires_grad table": "uses torch.nn.Parameter (no nn module); own:is_leaf requires_grad table covers the rest",
    "semantics:default dtypes": "numpy interop (torch.tensor(ndarray), torch.from_numpy) is not "
    "part of the engine; dtype promotion is the ops' tests' concern",
}
XFAIL: dict = {}
SCENARIOS = golden_scenarios("own:") + golden_scenarios("semantics:")


def _param(s):
    marks = []
    if s["id"] in SKIP:
        marks.append(pytest.mark.skip(reason=SKIP[s["id"]]))
    if s["id"] in XFAIL:
        marks.append(pytest.mark.xfail(reason=XFAIL[s["id"]], strict=True))
    return pytest.param(s, id=s["id"], marks=marks)


@pytest.mark.parametrize("scenario", [_param(s) for s in SCENARIOS])
def test_golden_scenario(scenario):
    got_exc, got_out, got_warn = outcome(run_golden(scenario))
    want_exc, want_out, want_warn = outcome(scenario["torch"])
    assert got_out == want_out
    assert got_exc == want_exc
    assert got_warn == want_warn


def test_goldens_cover_the_reference_semantics():
    import json

    from .torch_shim import REFERENCE

    labels = {e["label"] for e in json.loads(REFERENCE.read_text())["semantics"]}
    assert labels == {s["id"][len("semantics:") :] for s in golden_scenarios("semantics:")}


# --- helpers ------------------------------------------------------------------------------


def T(v, dtype=None):
    return tensor(v, requires_grad=True, dtype=dtype)


def C(v, dtype=None):
    return tensor(v, dtype=dtype)


def vals(t):
    return None if t is None else t.array.tolist()


def graph(t):
    """reference.json's graph notation, leaves named by `names` lookup order."""

    def walk(f):
        if f is None:
            return "None"
        if f.name() == "AccumulateGrad":
            return "AccumulateGrad"
        return f"{f.name()}({', '.join(walk(n) for n in f.next_nodes)})"

    return walk(t.grad_fn)


@pytest.fixture
def warnings_seen():
    seen = []
    prev = errors.set_warning_sink(lambda cat, msg: seen.append((cat, msg)))
    errors.reset_warn_once()
    yield seen
    errors.set_warning_sink(prev)


def raises(text, type_name="RuntimeError"):
    """pytest.raises for an EngineError with exactly this type name and message."""

    class _Ctx:
        def __enter__(self):
            self.cm = pytest.raises(EngineError)
            self.info = self.cm.__enter__()
            return self.info

        def __exit__(self, *exc):
            suppressed = self.cm.__exit__(*exc)
            assert self.info.value.type_name == type_name
            assert str(self.info.value) == text
            return suppressed

    return _Ctx()


# --- requires_grad propagation and is_leaf --------------------------------------------------


@pytest.mark.parametrize(
    "make, is_leaf, requires_grad",
    [
        (lambda a, b: a, True, True),
        (lambda a, b: b, True, False),
        (lambda a, b: a * 2, False, True),
        (lambda a, b: b * 2, True, False),
        (lambda a, b: a * b, False, True),
        (lambda a, b: b.exp() + b, True, False),
        (lambda a, b: a.sum(), False, True),
        (lambda a, b: a[0], False, True),
        (lambda a, b: a.clone(), False, True),
        (lambda a, b: (a * 2).detach(), True, False),
        (lambda a, b: a > 1, True, False),
        (lambda a, b: a.long(), True, False),
    ],
    ids=[
        "leaf rg",
        "leaf",
        "op rg",
        "op",
        "mixed",
        "ops on constants",
        "sum",
        "select",
        "clone",
        "detach",
        "comparison",
        "to long",
    ],
)
def test_requires_grad_propagation_and_is_leaf(make, is_leaf, requires_grad):
    t = make(T([1.0, 2.0]), C([3.0, 4.0]))
    assert (t.is_leaf, t.requires_grad, t.grad_fn is None) == (is_leaf, requires_grad, is_leaf)


# --- leaf .grad accumulation ------------------------------------------------------------------


def test_leaf_grad_accumulates_in_place_into_the_same_object():
    x = T([1.0, 2.0])
    (x * x).sum().backward()
    g, v0 = x.grad, x.grad._version[0]
    assert vals(g) == [2.0, 4.0] and g.grad_fn is None and not g.requires_grad and g.is_leaf
    (x * 3).sum().backward()
    assert x.grad is g and vals(g) == [5.0, 7.0] and g._version[0] == v0 + 1
    x.grad.zero_()
    assert x.grad is g and vals(g) == [0.0, 0.0] and g._version[0] == v0 + 2
    (x * x).sum().backward()
    assert x.grad is g and vals(g) == [2.0, 4.0]
    x.grad = None
    assert x.grad is None
    (x * x).sum().backward()
    assert x.grad is not g and vals(x.grad) == [2.0, 4.0]


def test_assigned_grad_is_accumulated_into():
    x = T([1.0, 2.0])
    x.grad = tensor([1.0, 1.0])
    g = x.grad
    (x * x).sum().backward()
    assert x.grad is g and vals(g) == [3.0, 5.0]


def test_grad_has_the_leaf_dtype_and_shape():
    x = T([1.0, 2.0], dtype=dtypes.float32)
    (x.double() * 2).sum().backward()
    assert x.grad.dtype == dtypes.float32 and x.grad.shape == x.shape
    s = T(3.0)
    (s * T([1.0, 2.0])).sum().backward()
    assert s.grad.shape == () and vals(s.grad) == 3.0


# --- non-leaf .grad -----------------------------------------------------------------------


def test_non_leaf_grad_is_none_with_pytorch_warning(warnings_seen):
    x = T([1.0, 2.0])
    y = x * 2
    y.sum().backward()
    assert y.grad is None
    assert warnings_seen == [("UserWarning", errors.NONLEAF_GRAD_WARNING)]
    assert errors.NONLEAF_GRAD_WARNING.startswith(
        "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed."
    )
    assert errors.NONLEAF_GRAD_WARNING.endswith(
        "(Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
    )
    x.grad, C([1.0]).grad  # leaves and constants: no warning
    assert len(warnings_seen) == 1
    y.grad  # noqa: B018  (every access warns (PyTorch de-duplicates only through Python's filter))
    assert len(warnings_seen) == 2


def test_retain_grad(warnings_seen):
    x = T([1.0, 2.0])
    y = x * 3
    assert y.retain_grad() is None and y.retains_grad and not x.retains_grad
    z = (y * y).sum()
    z.backward(retain_graph=True)
    g = y.grad
    assert vals(g) == [6.0, 12.0] and vals(x.grad) == [18.0, 36.0]
    z.backward()
    assert y.grad is not g and vals(y.grad) == [12.0, 24.0]  # out of place, unlike leaves
    assert warnings_seen == []


def test_retain_grad_on_a_leaf_is_a_no_op_and_needs_requires_grad():
    x = T([1.0, 2.0])
    x.retain_grad()
    assert not x.retains_grad
    with raises("can't retain_grad on Tensor that has requires_grad=False"):
        C([1.0]).retain_grad()


# --- backward's gradient argument -----------------------------------------------------------


def test_scalar_and_one_element_outputs_need_no_gradient():
    for v in (2.0, [2.0], [[2.0]]):
        x = T(v)
        (x * 3).backward()
        assert np.all(x.grad.array == 3.0) and x.grad.shape == x.shape


@pytest.mark.parametrize(
    "out_shape, grad_shape", [((3,), (2,)), ((2,), (1, 2)), ((2,), ()), ((), (1,)), ((1,), (1, 1))]
)
def test_gradient_must_match_the_output_shape_exactly(out_shape, grad_shape):
    y = T(np.ones(out_shape).tolist()) * 2
    g = Tensor(np.ones(grad_shape))
    fmt = lambda s: "torch.Size([" + ", ".join(map(str, s)) + "])"  # noqa: E731
    with raises(
        f"Mismatch in shape: grad_output[0] has a shape of {fmt(grad_shape)} and "
        f"output[0] has a shape of {fmt(out_shape)}."
    ):
        y.backward(g)


def test_non_scalar_output_needs_a_gradient():
    with raises("grad can be implicitly created only for scalar outputs"):
        (T([1.0, 2.0]) * 2).backward()


@pytest.mark.parametrize(
    "gradient, text",
    [
        (2.0, "'float' object is not iterable"),
        (3, "'int' object is not iterable"),
        ([1.0, 1.0], "gradients can be either Tensors or None, but got float"),
    ],
)
def test_gradient_python_types(gradient, text):
    with raises(text, "TypeError"):
        (T([1.0, 2.0]) * 2).backward(gradient)


def test_gradient_as_weights_and_several_roots():
    x = T([1.0, 2.0, 3.0])
    (x * x).backward(tensor([1.0, 0.1, 0.01]))
    assert np.allclose(x.grad.array, [2.0, 0.4, 0.06])
    x2 = T([1.0, 2.0, 3.0])
    backward([x2 * 2, (x2 * x2).sum()], [tensor([1.0, 1.0, 1.0]), tensor(10.0)])
    assert vals(x2.grad) == [22.0, 42.0, 62.0]
    with raises("got 2 tensors and 1 gradients"):
        backward([x2 * 2, x2 * 2], [tensor([1.0, 1.0, 1.0])])


def test_backward_on_tensors_without_grad():
    text = "element 0 of tensors does not require grad and does not have a grad_fn"
    for t in (C([1.0, 2.0]).sum(), C(3.0), (T([1.0]) > 0).sum(), (T([1.0]) * 2).sum().detach()):
        with raises(text):
            t.backward()
    with no_grad():
        y = (T([1.0]) * 2).sum()
    with raises(text):
        y.backward()


# --- saved tensors are freed after backward ---------------------------------------------------

BACKWARD_TWICE = errors.BACKWARD_TWICE


@pytest.mark.parametrize(
    "make, second_ok, grad_after_two",
    [
        (lambda a, b: a + b, True, [2.0, 2.0]),
        (lambda a, b: a - b, True, [2.0, 2.0]),
        (lambda a, b: a + 1, True, [2.0, 2.0]),
        (lambda a, b: a, True, [2.0, 2.0]),
        (lambda a, b: a.mean(), True, [1.0, 1.0]),
        (lambda a, b: a * b, False, None),
        (lambda a, b: a * 2, False, None),
        (lambda a, b: a * C([3.0, 4.0]), False, None),
        (lambda a, b: a.exp(), False, None),
        (lambda a, b: a.sin(), False, None),
    ],
    ids=["a+b", "a-b", "a+1", "sum", "mean", "a*b", "a*2", "a*c", "exp", "sin"],
)
def test_second_backward_without_retain_graph(make, second_ok, grad_after_two):
    a, b = T([1.0, 2.0]), T([3.0, 4.0])
    y = make(a, b).sum()
    y.backward()
    if second_ok:
        y.backward()
        assert vals(a.grad) == grad_after_two
    else:
        with raises(BACKWARD_TWICE):
            y.backward()


def test_retain_graph_allows_more_backward_calls():
    a, b = T([1.0, 2.0]), T([3.0, 4.0])
    y = (a * b).exp().sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    y.backward()
    assert np.allclose(a.grad.array, 3 * b.array * np.exp(a.array * b.array))
    with raises(BACKWARD_TWICE):
        y.backward()
    with raises(BACKWARD_TWICE):
        grad(y, a)


# --- create_graph ---------------------------------------------------------------------------


def test_create_graph_leaf_grad_is_copy_backwards(warnings_seen):
    x = T(2.0)
    (x**3).backward(create_graph=True)
    assert warnings_seen == [("UserWarning", errors.CREATE_GRAPH_WARNING)]
    g = x.grad
    assert vals(g) == 12.0 and g.requires_grad and not g.is_leaf and g._version[0] == 1
    assert graph(g) == "CopyBackwards(None, MulBackward0(None, MulBackward1(PowBackward0(AccumulateGrad))))"
    (x**3).backward(create_graph=True)  # the warning is PyTorch's TORCH_WARN_ONCE
    assert len(warnings_seen) == 1
    assert x.grad is not g and x.grad.grad_fn.name() == "AddBackward0" and vals(x.grad) == 24.0
    assert graph(x.grad) == (
        "AddBackward0(CopyBackwards(None, MulBackward0(None, MulBackward1(PowBackward0("
        "AccumulateGrad)))), MulBackward0(None, MulBackward1(PowBackward0(AccumulateGrad))))"
    )
    assert errors.CREATE_GRAPH_WARNING.startswith(
        "Using backward() with create_graph=True will create a reference cycle"
    )


def test_create_graph_retains_the_graph_and_later_backward_accumulates_in_place(warnings_seen):
    x = T(2.0)
    y = x**3
    y.backward(create_graph=True)
    g = x.grad
    y.backward()
    assert x.grad is g and vals(g) == 24.0 and g.grad_fn.name() == "CopyBackwards"


def test_grad_with_create_graph_is_mul_backward():
    x = T(2.0)
    (d1,) = grad(x**3, x, create_graph=True)
    (d2,) = grad(d1, x, create_graph=True)
    (d3,) = grad(d2, x)
    assert vals(d1) == 12.0 and vals(d2) == 12.0 and vals(d3) == 6.0
    assert graph(d1) == "MulBackward0(None, MulBackward1(PowBackward0(AccumulateGrad)))"
    assert graph(d2) == "MulBackward0(None, MulBackward1(PowBackward0(AccumulateGrad)))"
    assert d3.grad_fn is None and not d3.requires_grad and x.grad is None


def _exp_exp_derivatives(x):
    u = math.exp(x)
    e = math.exp(u)
    return [u * e, (u + u**2) * e, (u + 3 * u**2 + u**3) * e, (u + 7 * u**2 + 6 * u**3 + u**4) * e]


@pytest.mark.parametrize(
    "f, x0, derivatives",
    [
        (lambda x: x**3, 1.7, lambda x: [3 * x**2, 6 * x, 6.0, 0.0]),
        (lambda x: x.sin(), 0.7, lambda x: [math.cos(x), -math.sin(x), -math.cos(x), math.sin(x)]),
        (lambda x: x.exp().exp(), 0.3, _exp_exp_derivatives),
        (lambda x: (x * 2).exp(), -0.4, lambda x: [2**k * math.exp(2 * x) for k in (1, 2, 3, 4)]),
        (lambda x: 2 / x, 1.3, lambda x: [-2 / x**2, 4 / x**3, -12 / x**4, 48 / x**5]),
        (
            lambda x: x.sin() * x.exp(),
            0.9,
            lambda x: [
                math.exp(x) * (math.sin(x) + math.cos(x)),
                2 * math.exp(x) * math.cos(x),
                2 * math.exp(x) * (math.cos(x) - math.sin(x)),
                -4 * math.exp(x) * math.sin(x),
            ],
        ),
    ],
    ids=["x**3", "sin", "exp(exp)", "exp(2x)", "2/x", "sin*exp"],
)
def test_higher_order_derivatives(f, x0, derivatives):
    x = T(x0)
    d = f(x)
    for k, want in enumerate(derivatives(x0), start=1):
        (d,) = grad(d, x, create_graph=True, allow_unused=True)
        if d is None:
            got = 0.0
        else:
            got = d.item()
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), f"order {k}"
        if d is None or not d.requires_grad:
            assert all(w == 0 for w in derivatives(x0)[k:])
            break


def test_second_order_through_backward_on_grad():
    x = T([0.5, 1.0])
    (g,) = grad((x.sin() * x).sum(), x, create_graph=True)
    g.sum().backward()
    want = 2 * np.cos(x.array) - x.array * np.sin(x.array)
    assert np.allclose(x.grad.array, want, rtol=1e-14)


# --- torch.autograd.grad ----------------------------------------------------------------------


def test_grad_returns_a_tuple_and_leaves_grad_alone():
    x, z = T([1.0, 2.0]), T(3.0)
    r = grad((x * x).sum() * z, [x, z])
    assert type(r) is tuple and vals(r[0]) == [6.0, 12.0] and vals(r[1]) == 5.0
    assert x.grad is None and z.grad is None
    (r1,) = grad((x * x).sum(), x)
    assert not r1.requires_grad


def test_grad_outputs_and_retain_graph():
    x = T([1.0, 2.0, 3.0])
    y = x * x
    (g,) = grad(y, x, grad_outputs=tensor([1.0, 0.5, 0.25]), retain_graph=True)
    assert vals(g) == [2.0, 2.0, 1.5]
    (g,) = grad(y, x, tensor([1.0, 1.0, 1.0]))
    assert vals(g) == [2.0, 4.0, 6.0]
    with raises("grad can be implicitly created only for scalar outputs"):
        grad(x * 2, x)


def test_grad_unused_inputs():
    x, z = T([1.0, 2.0]), T([3.0])
    y = (x * 2).sum()
    assert vals(grad(y, [x, z], allow_unused=True, retain_graph=True)[1]) is None
    gz, gx = grad(y, [z, x], materialize_grads=True, retain_graph=True)
    assert vals(gz) == [0.0] and vals(gx) == [2.0, 2.0]
    with raises(
        "The differentiated Tensor at index 1 appears to not have been used in the "
        "graph. Set allow_unused=True if this is the desired behavior."
    ):
        grad(y, [x, z])
    with raises("One of the differentiated Tensors does not require grad"):
        grad(y, C([1.0]))
    with raises("`inputs` argument to `grad()` cannot be empty."):
        grad(y, [])


def test_grad_on_non_leaf_inputs_captures_without_running_their_node():
    x = T([1.0, 2.0])
    h = x.exp()
    y = (h * h).sum()
    (gh,) = grad(y, h)
    assert np.allclose(gh.array, 2 * np.exp([1.0, 2.0]))
    h.sum().backward()  # ExpBackward0 did not run, so its saved result is still there
    assert np.allclose(x.grad.array, np.exp([1.0, 2.0]))
    x2 = T([1.0, 2.0])
    h2 = x2 * 2
    gx, gh2 = grad((h2**2).sum(), [x2, h2])
    assert vals(gx) == [8.0, 16.0] and vals(gh2) == [4.0, 8.0]


# --- backward(inputs=...) ---------------------------------------------------------------------


def test_backward_inputs_restricts_accumulation():
    x, z = T([1.0, 2.0]), T([3.0, 4.0])
    y = (x * z).sum()
    y.backward(inputs=[x], retain_graph=True)
    assert vals(x.grad) == [3.0, 4.0] and z.grad is None
    y.backward(inputs=z)
    assert vals(x.grad) == [3.0, 4.0] and vals(z.grad) == [1.0, 2.0]


def test_backward_inputs_non_leaf_retains_its_grad():
    x = T([1.0, 2.0])
    h = x * 2
    (h * h).sum().backward(inputs=[h])
    assert h.retains_grad and vals(h.grad) == [4.0, 8.0] and x.grad is None


def test_backward_inputs_errors():
    x = T([1.0, 2.0])
    with raises("`inputs` argument to `backward()` cannot be empty."):
        (x * 2).sum().backward(inputs=[])
    with raises("can't retain_grad on Tensor that has requires_grad=False"):
        (x * C([1.0, 2.0])).sum().backward(inputs=[C([1.0, 2.0])])


# --- grad modes -----------------------------------------------------------------------------


def test_no_grad_enable_grad_set_grad_enabled():
    x = T([1.0])
    with no_grad():
        a = x * 2
        assert not is_grad_enabled()
        with enable_grad():
            b = x * 2
        with set_grad_enabled(True):
            c = x * 2
    assert is_grad_enabled()
    assert (a.requires_grad, a.is_leaf, a.grad_fn) == (False, True, None)
    assert b.grad_fn.name() == "MulBackward0" and c.requires_grad
    set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        set_grad_enabled(True)
    assert (x * 2).requires_grad


def test_grad_modes_as_decorators():
    @no_grad()
    def f(t):
        return t * 2

    @set_grad_enabled(False)
    def h(t):
        return t * 2

    @enable_grad()
    def g(t):
        return t * 2

    x = T([1.0])
    assert is_grad_enabled()  # decorating with set_grad_enabled(False) changed nothing
    assert not f(x).requires_grad and not h(x).requires_grad and is_grad_enabled()
    with no_grad():
        assert g(x).requires_grad and not is_grad_enabled()


# --- detach, .data, detach_, requires_grad_ ---------------------------------------------------


def test_detach_shares_data_and_version_counter():
    x = T([1.0, 2.0])
    d = x.detach()
    assert d.array is x.array or np.shares_memory(d.array, x.array)
    assert (d.requires_grad, d.is_leaf, d.grad_fn) == (False, True, None)
    d.add_(1)
    assert vals(x) == [2.0, 3.0] and x._version[0] == d._version[0] == 1


def test_data_shares_storage_but_not_the_version_counter():
    x = T([1.0, 2.0])
    y = x.exp()
    y.data.mul_(2)
    assert y._version[0] == 0
    y.sum().backward()  # no version error: autograd did not see the change
    assert np.allclose(x.grad.array, 2 * np.exp([1.0, 2.0]))
    assert not x.data.requires_grad and x.data.is_leaf


def test_detach_in_place():
    x = T([1.0, 2.0])
    y = x * 2
    assert y.detach_() is y and (y.requires_grad, y.is_leaf, y.grad_fn) == (False, True, None)
    text = errors.DETACH_VIEW_INPLACE
    assert text.startswith("Can't detach views in-place. Use detach() instead.")
    for base in (T([1.0, 2.0]), C([1.0, 2.0])):
        with raises(text):
            base[0:1].detach_()


def test_requires_grad_texts():
    with raises("Only Tensors of floating point and complex dtype can require gradients"):
        tensor([1, 2], requires_grad=True)
    with raises("only Tensors of floating point dtype can require gradients"):
        tensor([1, 2]).requires_grad_()
    with raises("only Tensors of floating point and complex dtype can require gradients"):
        tensor([1, 2]).requires_grad = True
    y = T([1.0, 2.0]) * 2
    assert y.requires_grad_(True) is y
    with raises(errors.NONLEAF_REQUIRES_GRAD_FALSE):
        y.requires_grad_(False)
    with raises("you can only change requires_grad flags of leaf variables."):
        y.requires_grad = True
    assert errors.NONLEAF_REQUIRES_GRAD_FALSE.endswith("use var_no_grad = var.detach().")
    b = C([1.0]) * 2
    assert b.requires_grad_() is b and b.is_leaf and b.requires_grad


# --- in-place operations ------------------------------------------------------------------------


def test_in_place_ops_bump_the_shared_version_counter():
    x = C([1.0, 2.0, 3.0])
    x.add_(1)
    x[0] = 5.0
    x.mul_(2).add_(1)
    v = x[1:]
    v.zero_()
    assert x._version[0] == v._version[0] == 5
    x += 1
    assert x._version[0] == 6


@pytest.mark.parametrize(
    "op, name, graph_text",
    [
        (lambda y, b: y.exp_(), "ExpBackward0", "ExpBackward0(MulBackward0(AccumulateGrad, None))"),
        (lambda y, b: y.add_(1), "AddBackward0", "AddBackward0(MulBackward0(AccumulateGrad, None), None)"),
        (lambda y, b: y.mul_(3), "MulBackward0", "MulBackward0(MulBackward0(AccumulateGrad, None), None)"),
        (lambda y, b: y.relu_(), "ReluBackward0", "ReluBackward0(MulBackward0(AccumulateGrad, None))"),
        (
            lambda y, b: y.sigmoid_(),
            "SigmoidBackward0",
            "SigmoidBackward0(MulBackward0(AccumulateGrad, None))",
        ),
        (lambda y, b: y.zero_(), "ZeroBackward0", "ZeroBackward0(MulBackward0(AccumulateGrad, None))"),
        (
            lambda y, b: y.__setitem__(0, 0.0),
            "CopySlices",
            "CopySlices(MulBackward0(AccumulateGrad, None), None)",
        ),
        (
            lambda y, b: y.__setitem__(slice(1, None), b),
            "CopySlices",
            "CopySlices(MulBackward0(AccumulateGrad, None), AccumulateGrad)",
        ),
        (lambda y, b: y[1:].mul_(10), "CopySlices", "CopySlices(MulBackward0(AccumulateGrad, None), None)"),
    ],
    ids=["exp_", "add_", "mul_", "relu_", "sigmoid_", "zero_", "setitem", "setitem grad", "view mul_"],
)
def test_in_place_on_non_leaf_replaces_grad_fn(op, name, graph_text):
    a, b = T([1.0, 2.0, 3.0]), T([0.5, 0.25])
    y = a * 2
    r = op(y, b)
    assert r is None or r is y or r._base is y
    assert y._version[0] == 1 and y.grad_fn.name() == name and graph(y) == graph_text


def test_in_place_through_a_view_differentiates_the_update():
    a = T([1.0, 2.0, 3.0])
    y = a * 2
    y[1:].mul_(10)
    (y * y).sum().backward()
    assert vals(a.grad) == [8.0, 1600.0, 2400.0]


def test_views_see_in_place_changes_of_their_base():
    a = T([1.0, 2.0, 3.0])
    y = a * 2
    v = y[1:]
    y.mul_(3)
    assert v.grad_fn.name() == "AsStridedBackward0" and graph(v) == (
        "AsStridedBackward0(MulBackward0(MulBackward0(AccumulateGrad, None), None))"
    )
    (v * v).sum().backward()
    assert vals(a.grad) == [0.0, 144.0, 216.0]


def test_in_place_keeps_the_original_self_for_backward():
    a, z = T([1.0, 2.0]), T([3.0, 4.0])
    y = a * 2
    y.mul_(z)
    y.sum().backward()
    assert vals(z.grad) == [2.0, 4.0] and vals(a.grad) == [6.0, 8.0]


@pytest.mark.parametrize(
    "op, text",
    [
        (lambda x: x.add_(1), errors.LEAF_INPLACE),
        (lambda x: x.__iadd__(1), errors.LEAF_INPLACE),
        (lambda x: x.exp_(), errors.LEAF_INPLACE),
        (lambda x: x.zero_(), errors.LEAF_INPLACE),
        (lambda x: x.__setitem__(0, 5.0), errors.VIEW_LEAF_INPLACE),
        (lambda x: x[0].mul_(2), errors.VIEW_LEAF_INPLACE),
        (lambda x: x[1:].zero_(), errors.VIEW_LEAF_INPLACE),
    ],
    ids=["add_", "+=", "exp_", "zero_", "setitem", "x[0].mul_", "x[1:].zero_"],
)
def test_in_place_on_a_leaf_requiring_grad(op, text):
    x = T([1.0, 2.0])
    with raises(text):
        op(x)
    assert vals(x) == [1.0, 2.0] and x._version[0] == 0


def test_in_place_texts():
    assert errors.LEAF_INPLACE == "a leaf Variable that requires grad is being used in an in-place operation."
    assert errors.VIEW_LEAF_INPLACE == (
        "a view of a leaf Variable that requires grad is being used in an in-place operation."
    )


def test_in_place_on_a_leaf_under_no_grad():
    x = T([1.0, 2.0])
    with no_grad():
        x.add_(1)
        x[0] = 5.0
    assert x.is_leaf and x.grad_fn is None and x._version[0] == 2 and vals(x) == [5.0, 3.0]


def _version_text(desc, version=1, expected=0):
    return (
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {desc} is at version {version}; expected version {expected} "
        "instead. Hint: enable anomaly detection to find the operation that failed to "
        "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


def _leaf_modified_under_no_grad():
    x = T([1.0, 2.0])
    y = (x * x).sum()
    with no_grad():
        x.mul_(2)
    return y


def _sin_then(modify):
    x = T([1.0, 2.0])
    a = x * 1
    y = a.sin()
    modify(a)
    return y.sum()


@pytest.mark.parametrize(
    "make, desc, version",
    [
        (
            lambda: (lambda y: (y.add_(1), y.sum())[1])(T([1.0, 2.0]).exp()),
            "[torch.DoubleTensor [2]], which is output 0 of Exp,",
            1,
        ),
        (
            lambda: (lambda y: (y.add_(1), y.add_(1), y)[2])(T(1.0).exp()),
            "[torch.DoubleTensor []], which is output 0 of Exp,",
            2,
        ),
        (
            lambda: (lambda y: (y.mul_(2), y.sum())[1])(T([[1.0], [2.0]]).sigmoid()),
            "[torch.DoubleTensor [2, 1]], which is output 0 of Sigmoid,",
            1,
        ),
        (
            lambda: (lambda y: (y.exp_(), y.sum())[1])(T([1.0, 2.0]).tanh()),
            "[torch.DoubleTensor [2]], which is output 0 of Tanh,",
            1,
        ),
        (
            lambda: (lambda y: (y[0:1].mul_(2), y.sum())[1])(T([1.0, 2.0]).exp()),
            "[torch.DoubleTensor [2]], which is output 0 of Exp,",
            1,
        ),
        (
            lambda: (lambda y: (y.detach().mul_(2), y.sum())[1])(T([1.0, 2.0]).exp()),
            "[torch.DoubleTensor [2]], which is output 0 of Exp,",
            1,
        ),
        (
            lambda: (lambda y: (y.add_(1), y.sum())[1])(T([1.0, 2.0], dtype=dtypes.float32).exp()),
            "[torch.FloatTensor [2]], which is output 0 of Exp,",
            1,
        ),
        (lambda: _sin_then(lambda a: a.add_(1)), "[torch.DoubleTensor [2]], which is output 0 of Add,", 1),
        (lambda: _sin_then(lambda a: a.exp_()), "[torch.DoubleTensor [2]], which is output 0 of Exp,", 1),
        (
            lambda: _sin_then(lambda a: a[0:1].mul_(2)),
            "[torch.DoubleTensor [2]], which is output 0 of torch::autograd::CopySlices,",
            1,
        ),
        (_leaf_modified_under_no_grad, "[torch.DoubleTensor [2]]", 1),
        (
            lambda: (lambda x, c: (lambda y: (c.add_(1), y.sum())[1])(x * c))(T([1.0, 2.0]), C([3.0, 4.0])),
            "[torch.DoubleTensor [2]]",
            1,
        ),
    ],
    ids=[
        "saved exp output",
        "0-dim twice",
        "2-D sigmoid",
        "tanh then exp_",
        "output via view",
        "output via detach",
        "float32",
        "saved input add_",
        "saved input exp_",
        "saved input via view",
        "saved leaf under no_grad",
        "saved constant",
    ],
)
def test_modified_saved_tensor_raises_the_version_error(make, desc, version):
    y = make()
    with raises(_version_text(desc, version)):
        y.backward()


def test_modifying_a_tensor_that_was_not_saved_is_fine():
    x = T([1.0, 2.0])
    a = x * 2
    y = a + 1
    a.add_(1)
    y.sum().backward()
    assert vals(x.grad) == [2.0, 2.0]
