"""F.binary_cross_entropy_with_logits (and torch.binary_cross_entropy_with_logits, the ATen
op): forward, grads of input and target, reductions, weight, pos_weight, errors.

RECORDED below was printed by this program on torch 2.13 (float64 default dtype), then
pinned here; `test_against_live_torch` re-checks random cases and skips without torch:

    torch.set_default_dtype(torch.float64)
    Z = [[-1.0, 0.5, 2.0], [3.0, -0.25, 0.0]]; T = [[0.0, 1.0, 1.0], [0.2, 0.7, 1.0]]
    W = [1.0, 2.0, 0.5]; PW = [1.0, 3.0, 0.5]; G = [[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]]
    z, t = tensor(Z, requires_grad=True), tensor(T, requires_grad=True)
    out = F.binary_cross_entropy_with_logits(z, t, weight=W?, reduction=red, pos_weight=PW?)
    (out * G).sum().backward() for 'none', out.backward() otherwise -> out, z.grad, t.grad
    "extreme": X below, reduction='none', out.sum().backward()
    "double": grad of the mean loss with create_graph, then grad of its sum
"""

from __future__ import annotations

import numpy as np
import pytest

from diffcli.engine import FUNCTIONS, errors, grad
from diffcli.engine.ops.creation import tensor
from diffcli.lang import values

BCE = FUNCTIONS["binary_cross_entropy_with_logits"]
Z = [[-1.0, 0.5, 2.0], [3.0, -0.25, 0.0]]
T = [[0.0, 1.0, 1.0], [0.2, 0.7, 1.0]]
W = [1.0, 2.0, 0.5]
PW = [1.0, 3.0, 0.5]
G = [[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]]
X = [-100.0, -30.0, -20.0, -1e-3, 0.0, 1e-3, 20.0, 30.0, 100.0]
XT = [0.0, 1.0, 0.5, 0.0, 1.0, 0.3, 1.0, 0.0, 0.5]

RECORDED = {
    "plain-none": {
        "out": [
            [0.3132616875182228, 0.4740769841801067, 0.1269280110429725],
            [2.4485873515737424, 0.7509394198788435, 0.6931471805599453],
        ],
        "gz": [
            [0.2689414213699951, 0.7550813375962908, -0.05960146101105884],
            [0.18814353170560832, -0.39326475132869704, 0.5],
        ],
        "gt": [[1.0, 1.0, -1.0], [-0.75, 0.375, 0.0]],
    },
    "weight-none": {
        "out": [
            [0.3132616875182228, 0.9481539683602134, 0.06346400552148625],
            [2.4485873515737424, 1.501878839757687, 0.34657359027997264],
        ],
        "gz": [
            [0.2689414213699951, 1.5101626751925816, -0.02980073050552942],
            [0.18814353170560832, -0.7865295026573941, 0.25],
        ],
        "gt": [[1.0, 2.0, -0.5], [-0.75, 0.75, 0.0]],
    },
    "pos_weight-none": {
        "out": [
            [0.3132616875182228, 1.42223095254032, 0.06346400552148625],
            [2.4485873515737424, 1.9072546077092245, 0.34657359027997264],
        ],
        "gz": [
            [0.2689414213699951, 2.265244012788872, -0.02980073050552942],
            [0.18814353170560832, -1.5738354031888728, 0.25],
        ],
        "gt": [
            [1.0, -0.8963079367204267, -1.0317320027607433],
            [-0.75, 2.85281825963653, 0.34657359027997264],
        ],
    },
    "both-none": {
        "out": [
            [0.3132616875182228, 2.84446190508064, 0.031732002760743123],
            [2.4485873515737424, 3.814509215418449, 0.17328679513998632],
        ],
        "gz": [
            [0.2689414213699951, 4.530488025577744, -0.01490036525276471],
            [0.18814353170560832, -3.1476708063777457, 0.125],
        ],
        "gt": [
            [1.0, -1.7926158734408535, -0.5158660013803716],
            [-0.75, 5.70563651927306, 0.17328679513998632],
        ],
    },
    "plain-mean": {
        "out": 0.8011567724589722,
        "gz": [
            [0.04482357022833252, -0.0629234447996909, -0.01986715367035295],
            [0.12542902113707222, -0.04369608348096634, -0.08333333333333333],
        ],
        "gt": [
            [0.16666666666666666, -0.08333333333333333, -0.3333333333333333],
            [-0.5, 0.041666666666666664, -0.0],
        ],
    },
    "weight-mean": {
        "out": 0.9369865738352207,
        "gz": [
            [0.04482357022833252, -0.1258468895993818, -0.009933576835176474],
            [0.12542902113707222, -0.08739216696193268, -0.041666666666666664],
        ],
        "gt": [
            [0.16666666666666666, -0.16666666666666666, -0.16666666666666666],
            [-0.5, 0.08333333333333333, -0.0],
        ],
    },
    "pos_weight-mean": {
        "out": 1.083562032523828,
        "gz": [
            [0.04482357022833252, -0.18877033439907268, -0.009933576835176474],
            [0.12542902113707222, -0.1748706003543192, -0.041666666666666664],
        ],
        "gt": [
            [0.16666666666666666, 0.07469232806003556, -0.3439106675869144],
            [-0.5, 0.31697980662628117, -0.057762265046662105],
        ],
    },
    "both-mean": {
        "out": 1.6043064929152973,
        "gz": [
            [0.04482357022833252, -0.37754066879814535, -0.004966788417588237],
            [0.12542902113707222, -0.3497412007086384, -0.020833333333333332],
        ],
        "gt": [
            [0.16666666666666666, 0.14938465612007112, -0.1719553337934572],
            [-0.5, 0.6339596132525623, -0.028881132523331052],
        ],
    },
    "plain-sum": {
        "out": 4.8069406347538335,
        "gz": [
            [0.2689414213699951, -0.3775406687981454, -0.11920292202211769],
            [0.7525741268224333, -0.262176500885798, -0.5],
        ],
        "gt": [[1.0, -0.5, -2.0], [-3.0, 0.25, -0.0]],
    },
    "weight-sum": {
        "out": 5.621919443011324,
        "gz": [
            [0.2689414213699951, -0.7550813375962908, -0.05960146101105884],
            [0.7525741268224333, -0.524353001771596, -0.25],
        ],
        "gt": [[1.0, -1.0, -1.0], [-3.0, 0.5, -0.0]],
    },
    "pos_weight-sum": {
        "out": 6.501372195142968,
        "gz": [
            [0.2689414213699951, -1.132622006394436, -0.05960146101105884],
            [0.7525741268224333, -1.0492236021259151, -0.25],
        ],
        "gt": [
            [1.0, 0.4481539683602134, -2.0634640055214866],
            [-3.0, 1.901878839757687, -0.34657359027997264],
        ],
    },
    "both-sum": {
        "out": 9.625838957491784,
        "gz": [
            [0.2689414213699951, -2.265244012788872, -0.02980073050552942],
            [0.7525741268224333, -2.0984472042518303, -0.125],
        ],
        "gt": [
            [1.0, 0.8963079367204267, -1.0317320027607433],
            [-3.0, 3.803757679515374, -0.17328679513998632],
        ],
    },
    "extreme": {
        "out": [
            0.0,
            30.000000000000092,
            10.000000002061153,
            0.6926473055599401,
            0.6931471805599453,
            0.6933473055599402,
            2.061153620314381e-09,
            30.000000000000092,
            50.0,
        ],
        "gz": [
            3.7200759760208356e-44,
            -0.9999999999999064,
            -0.49999999793884636,
            0.4997500000208333,
            -0.5,
            0.20024999997916665,
            -2.06115369216775e-09,
            0.9999999999999065,
            0.5,
        ],
    },
    "double": {
        "g": [0.08964714045666504, -0.1258468895993818, -0.0397343073407059],
        "h": [0.06553731108049395, 0.07833457073386482, 0.034997861801168866],
    },
}

TOL = dict(rtol=1e-14, atol=1e-300)  # numpy's exp/log1p vs Sleef's: an ulp or so


@pytest.mark.parametrize("wname", ["plain", "weight", "pos_weight", "both"])
@pytest.mark.parametrize("red", ["none", "mean", "sum"])
def test_recorded(wname, red):
    want = RECORDED[f"{wname}-{red}"]
    z, t = tensor(Z, requires_grad=True), tensor(T, requires_grad=True)
    w = tensor(W) if wname in ("weight", "both") else None
    pw = tensor(PW) if wname in ("pos_weight", "both") else None
    out = BCE(z, t, weight=w, reduction=red, pos_weight=pw)
    assert str(out.grad_fn) == "<BinaryCrossEntropyWithLogitsBackward0 object>"
    np.testing.assert_allclose(out.array, want["out"], **TOL)
    (out * tensor(G)).sum().backward() if red == "none" else out.backward()
    np.testing.assert_allclose(z.grad.array, want["gz"], **TOL)
    np.testing.assert_allclose(t.grad.array, want["gt"], **TOL)


def test_extreme_logits_are_stable():
    want = RECORDED["extreme"]
    z = tensor(X, requires_grad=True)
    out = BCE(z, tensor(XT), reduction="none")
    out.sum().backward()
    assert np.isfinite(out.array).all()
    np.testing.assert_allclose(out.array, want["out"], **TOL)
    np.testing.assert_allclose(z.grad.array, want["gz"], **TOL)


def test_double_backward():
    z = tensor([-1.0, 0.5, 2.0], requires_grad=True)
    loss = BCE(z, tensor([0.0, 1.0, 1.0]))
    (g,) = grad(loss, z, create_graph=True)
    (h,) = grad(g.sum(), z)
    np.testing.assert_allclose(g.array, RECORDED["double"]["g"], **TOL)
    np.testing.assert_allclose(h.array, RECORDED["double"]["h"], **TOL)


def test_node_edges():
    z = tensor([-1.0, 0.5, 2.0], requires_grad=True)
    out = BCE(z, tensor([0.0, 1.0, 1.0]))
    assert str(out.grad_fn) == "<BinaryCrossEntropyWithLogitsBackward0 object>"
    nf = out.grad_fn.next_functions
    assert [(type(f).__name__ if f is not None else None) for f, _ in nf][1] is None
    assert nf[0][0] is not None and len(nf) == 2
    t = tensor([0.0, 1.0, 1.0], requires_grad=True)
    nf = BCE(z, t).grad_fn.next_functions
    assert nf[0][0] is not None and nf[1][0] is not None
    # only the target requires grad
    out = BCE(tensor([1.0, 2.0]), tensor([0.5, 0.5], requires_grad=True), reduction="sum")
    out.backward()


def test_torch_namespace_is_the_aten_op():
    """torch.binary_cross_entropy_with_logits takes an int reduction and, through
    PyTorch's binding, reduces nothing unless told (torch 2.13 returns the 3 values)."""
    op = values.TORCH.members["binary_cross_entropy_with_logits"]
    z, t = tensor([-1.0, 0.5, 2.0]), tensor([0.0, 1.0, 1.0])
    assert op(z, t).array.shape == (3,)
    np.testing.assert_allclose(op(z, t, None, None, 1).array, 0.3047555609137673, rtol=1e-15)
    np.testing.assert_allclose(op(z, t, reduction=2).array, 0.9142666827413019, rtol=1e-15)
    with pytest.raises(errors.TorchTypeError, match="argument 'reduction' must be int, not str"):
        op(z, t, reduction="sum")


@pytest.mark.parametrize(
    "call, exc, text",
    [
        (
            lambda: BCE(tensor([1.0, 2.0, 3.0]), tensor([0.0, 1.0])),
            errors.TorchValueError,
            "Target size (torch.Size([2])) must be the same as input size (torch.Size([3]))",
        ),
        (
            lambda: BCE(tensor([1.0, 2.0]), tensor([0.0, 1.0]), reduction="foo"),
            errors.TorchValueError,
            "foo is not a valid value for reduction",
        ),
        (
            lambda: BCE(tensor([1.0, 2.0]), tensor([0, 1])),
            errors.TorchRuntimeError,
            "result type Double can't be cast to the desired output type Long",
        ),
        (
            lambda: BCE(tensor([1.0, 2.0]), tensor([True, False])),
            errors.TorchRuntimeError,
            "Subtraction, the `-` operator, with two bool tensors is not supported.",
        ),
        (
            lambda: BCE(
                tensor([1.0, 2.0]), tensor([0.0, 1.0]), weight=tensor([1.0, 2.0], requires_grad=True)
            ),
            errors.TorchRuntimeError,
            "is not differentiable with respect to argument 'weight'",
        ),
        (
            lambda: BCE(
                tensor([1.0, 2.0]), tensor([0.0, 1.0]), pos_weight=tensor([1.0, 2.0], requires_grad=True)
            ),
            errors.TorchRuntimeError,
            "is not differentiable with respect to argument 'pos_weight'",
        ),
        (
            lambda: BCE(tensor([1.0, 2.0, 3.0]), tensor([0.0, 1.0, 1.0]), weight=tensor([1.0, 2.0])),
            errors.TorchRuntimeError,
            "The size of tensor a (3) must match the size of tensor b (2)",
        ),
    ],
)
def test_errors(call, exc, text):
    with pytest.raises(exc) as e:
        call()
    assert text in str(e.value)


def test_empty_mean_is_nan_and_legacy_args_warn():
    out = BCE(tensor([]), tensor([]))
    assert np.isnan(out.array)
    seen = []
    prev = errors.set_warning_sink(lambda *a: seen.append(a))
    try:
        out = BCE(tensor([-1.0, 0.5, 2.0]), tensor([0.0, 1.0, 1.0]), size_average=False)
    finally:
        errors.set_warning_sink(prev)
    np.testing.assert_allclose(out.array, 0.9142666827413019, rtol=1e-15)
    assert any("please use reduction='sum' instead" in str(a) for a in seen)


def test_against_live_torch():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    rng = np.random.default_rng(0)
    for k in range(40):
        shape = [(5,), (2, 3), (4, 1, 3), ()][k % 4]
        x = rng.standard_normal(shape) * 4
        y = rng.random(shape)
        w = rng.random(shape[-1:]) + 0.5 if k % 3 == 0 else None
        pw = rng.random(shape[-1:]) * 3 if k % 2 == 0 else None
        red = ["none", "mean", "sum"][k % 3]
        gout = rng.standard_normal(shape) if red == "none" else None
        tz = torch.tensor(x, requires_grad=True)
        tt = torch.tensor(y, requires_grad=True)
        tw = None if w is None else torch.tensor(w)
        tpw = None if pw is None else torch.tensor(pw)
        to = F.binary_cross_entropy_with_logits(tz, tt, weight=tw, reduction=red, pos_weight=tpw)
        to.backward(None if gout is None else torch.tensor(gout))
        dz, dt = tensor(x.tolist(), requires_grad=True), tensor(y.tolist(), requires_grad=True)
        do = BCE(
            dz,
            dt,
            weight=None if w is None else tensor(w.tolist()),
            reduction=red,
            pos_weight=None if pw is None else tensor(pw.tolist()),
        )
        do.backward(None if gout is None else tensor(gout.tolist()))
        np.testing.assert_allclose(do.array, to.detach().numpy(), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(dz.grad.array, tz.grad.numpy(), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(dt.grad.array, tt.grad.numpy(), rtol=1e-13, atol=1e-15)
