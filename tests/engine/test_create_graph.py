"""The graphs that gradients record under create_graph (PyTorch's backward formulas and
their grad_fn names), and second derivatives at kinks and edge points.

Moved from the former tests/engine/test_regressions.py: divergences from PyTorch 2.13 that
were fixed, stated on the engine's API with the values and texts PyTorch gives."""

import pytest

from diffcli.engine import FUNCTIONS, EngineError, grad, tensor
from diffcli.engine.ops import unary, unary_args


def T(v):
    return tensor(v, requires_grad=True)


def vals(t):
    return t.array.tolist()


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


@pytest.mark.parametrize(
    "op, name",
    [
        (lambda v: v.relu(), "ThresholdBackwardBackward0"),
        (lambda v: unary_args.leaky_relu(v, 0.1), "LeakyReluBackwardBackward0"),
        (lambda v: unary_args.elu(v), "EluBackwardBackward0"),
        (lambda v: unary_args.softplus(v), "SoftplusBackwardBackward0"),
    ],
)
def test_masked_gradients_require_grad_under_create_graph(op, name):
    x = T([0.5, -1.0])
    (g,) = grad(op(x).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == name


def test_relu_second_derivative_is_zero():
    x = T([0.5, -1.0])
    (g,) = grad(x.relu().sum(), x, create_graph=True)
    assert vals(g) == [1.0, 0.0]
    g.sum().backward()
    assert vals(x.grad) == [0.0, 0.0]


def test_elu_second_derivative_is_zero_at_zero():
    x = T([0.0, -1.0])
    (g,) = grad(unary_args.elu(x).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x)
    assert vals(h)[0] == 0.0  # elu_double_backward masks with x < 0


@pytest.mark.parametrize("fn", ["floor", "ceil", "round", "trunc", "sign", "round1"])
def test_piecewise_constant_gradients_are_constant_zeros(fn):
    """floor/ceil/round/trunc/sign (and round(decimals=)) backward is zeros_like(grad):
    +0. where the upstream gradient is negative, never requiring grad (torch 2.13)."""
    op = (lambda t: FUNCTIONS["round"](t, decimals=1)) if fn == "round1" else FUNCTIONS[fn]
    a = T([0.5, -1.5])
    (g,) = grad((op(a) * tensor([-1.0, 2.0])).sum(), a, create_graph=True)
    assert not g.requires_grad and g.grad_fn is None
    assert repr(g) == "tensor([0., 0.])"


def test_abs_second_derivative_is_unsigned_zero():
    a = T([0.5, -1.5])
    (g,) = grad(FUNCTIONS["abs"](a).sum(), a, create_graph=True)
    assert repr(g) == "tensor([ 1., -1.], grad_fn=<MulBackward0>)"
    (h,) = grad((g * tensor([-1.0, 2.0])).sum(), a)
    assert repr(h) == "tensor([0., 0.])"


def test_zero_gradient_is_constant_zeros():
    a = T([0.5, -1.5])
    b = a * 1
    b.zero_()
    (g,) = grad((b * tensor([-1.0, 2.0])).sum(), a, create_graph=True)
    assert not g.requires_grad and repr(g) == "tensor([0., 0.])"


def test_atan2_second_derivative_at_the_origin_is_nan():
    """PyTorch's atan2_backward: recip = (y*y + x*x).reciprocal() with its infinities
    masked to 0 (MaskedFillBackward0): the first derivative at the origin is 0, the second
    -0 * inf = nan (torch 2.13)."""
    import math

    b = T(0.0)
    (g,) = grad(FUNCTIONS["atan2"](b, b), b, create_graph=True)
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
    (g,) = grad(prod(a, 0).sum(), a, create_graph=True)
    assert vals(g) == [[1.0, 1.0, 1.0]] and not g.requires_grad and g.grad_fn is None
    with pytest.raises(EngineError, match="element 0 of tensors does not require grad"):
        g.sum().backward()
    b = T([0.0, 2.0, -1.5])
    (h,) = grad(prod(b), b, create_graph=True)
    assert vals(h) == [-3.0, -0.0, 0.0]
    assert h.grad_fn.name() == "ViewBackward0" and h.grad_fn.next_functions[0][0].name() == "MulBackward0"
    (k,) = grad((h * h).sum(), b)
    assert vals(k) == [0.0, 9.0, -12.0]
    c = T([[0.0, 2.0], [0.5, 0.0]])
    (h,) = grad((prod(c, 1) * tensor([1.5, -2.0])).sum(), c, create_graph=True)
    assert vals(h) == [[3.0, 0.0], [-0.0, -1.0]] and h.grad_fn.name() == "MulBackward0"
    (k,) = grad((h * h * c).sum(), c)
    assert vals(k) == [[9.0, 0.0], [0.0, 1.0]]
    d = T([1.0, 2.0])  # no zero: g * (result / input)
    (h,) = grad(prod(d), d, create_graph=True)
    assert vals(h) == [2.0, 1.0] and h.grad_fn.next_functions[1][0].name() == "DivBackward0"


@pytest.mark.parametrize(
    "name, values, second",
    [
        ("tanh", [1.179671599448891, 0.420622299270649, 1.5], [-2.572375308472099, 0.6003239483029438, -0.0]),
        (
            "sigmoid",
            [0.3525055683023917, 0.25965718048874553, 0.375],
            [-0.060867272037244506, 0.07478428011055427, 0.0],
        ),
    ],
)
def test_tanh_and_sigmoid_gradients_record_their_backward_ops(name, values, second):
    """Under create_graph, tanh's and sigmoid's gradients are PyTorch's tanh_backward /
    sigmoid_backward ops (TanhBackwardBackward0 / SigmoidBackwardBackward0, edges to the
    incoming gradient and to the op's output), and so are their own gradients (torch 2.13)."""
    x = T([0.5, -1.25, 0.0])
    (g,) = grad((getattr(unary, name)(x) * 1.5).sum(), x, create_graph=True)
    node = f"{name.capitalize()}BackwardBackward0"
    assert g.grad_fn.name() == node
    assert [n and n.name() for n, _ in g.grad_fn.next_functions] == [None, f"{name.capitalize()}Backward0"]
    assert vals(g) == pytest.approx(values, rel=1e-15)
    (h,) = grad((g * g).sum(), x, create_graph=True)
    assert h.grad_fn.name() == node
    assert [n and n.name() for n, _ in h.grad_fn.next_functions] == [
        "MulBackward0",
        f"{name.capitalize()}Backward0",
    ]
    assert vals(h) == pytest.approx(second, rel=1e-15, abs=1e-300)


@pytest.mark.parametrize(
    "name, first, second",
    [
        (
            "softmax",
            [
                [0.26016444169377884, -0.2476175216182754, -0.012546920075503303],
                [-0.2389041737732602, 0.24664100874609585, -0.007736834972835684],
            ],
            [
                [-0.07096251823578996, 0.15569943971911387, -0.08473692148332392],
                [-0.10900658210803221, 0.11171183231332195, -0.002705250205289789],
            ],
        ),
        (
            "log_softmax",
            [
                [1.2808508157040355, -1.9511954462338355, 0.6703446305298],
                [-0.29560636760034864, 1.2992826343876032, -1.0036762667872547],
            ],
            [
                [0.294033982331017, -0.2643817065128561, -0.02965227581816099],
                [0.461974172307474, -0.47029303750229934, 0.00831886519482534],
            ],
        ),
    ],
)
def test_softmax_gradients_record_their_backward_data_ops(name, first, second):
    """Under create_graph, softmax's and log_softmax's gradients are PyTorch's
    _softmax_backward_data / _log_softmax_backward_data (SoftmaxBackwardDataBackward0 /
    LogSoftmaxBackwardDataBackward0, edges to the incoming gradient and to the output),
    differentiated with PyTorch's formulas (torch 2.13)."""
    x = T([[0.5, -1.25, 0.0], [2.0, 1.0, -3.0]])
    w = tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]])
    (g,) = grad((FUNCTIONS[name](x, 1) * w).sum(), x, create_graph=True)
    fwd = "SoftmaxBackward0" if name == "softmax" else "LogSoftmaxBackward0"
    assert g.grad_fn.name() == fwd.replace("Backward0", "BackwardDataBackward0")
    assert [n and n.name() for n, _ in g.grad_fn.next_functions] == [None, fwd]
    for a, b in zip(vals(g), first):
        assert a == pytest.approx(b, rel=1e-13)
    (h,) = grad((g * g).sum(), x)
    for a, b in zip(vals(h), second):
        assert a == pytest.approx(b, rel=1e-13)


@pytest.mark.parametrize(
    "make, chain, first, second",
    [
        (
            lambda x: (x * x).mean(),
            ["DivBackward1", "ExpandBackward0"],
            [
                [0.8784722222222222, -2.1961805555555554, 0.0],
                [3.513888888888889, 1.7569444444444444, -5.270833333333333],
            ],
            [
                [9.260561342592592, -23.15140335648148, 0.0],
                [37.04224537037037, 18.521122685185183, -55.56336805555555],
            ],
        ),
        (
            lambda x: (x * x).mean(0),
            ["DivBackward1", "ExpandBackward0"],
            [[2.125, -3.203125, 0.0], [8.5, 2.5625, -27.0]],
            [[54.1875, -49.248046875, 0.0], [216.75, 39.3984375, -1458.0]],
        ),
        (
            lambda x: (x * x).sum(1),
            ["ExpandBackward0", "UnsqueezeBackward0"],
            [[3.625, -9.0625, 0.0], [112.0, 56.0, -168.0]],
            [[157.6875, -394.21875, 0.0], [37632.0, 18816.0, -56448.0]],
        ),
    ],
)
def test_sum_and_mean_gradients_record_pytorchs_sum_backward(make, chain, first, second):
    """PyTorch's sum_backward (the reduced dims unsqueezed back, then ExpandBackward0) and
    mean's division by the count as a Scalar (DivBackward1), under create_graph (torch 2.13)."""
    x = T([[0.5, -1.25, 0.0], [2.0, 1.0, -3.0]])
    y = make(x)
    (g,) = grad((y * y).sum(), x, create_graph=True)
    f = g.grad_fn.next_functions[0][0]  # g: AddBackward0 of the two MulBackward0 of y * y
    assert [f.name(), f.next_functions[0][0].name(), f.next_functions[0][0].next_functions[0][0].name()] == [
        "MulBackward0"
    ] + chain
    assert vals(g) == first
    (h,) = grad((g * g).sum(), x)
    for a, b in zip(vals(h), second):
        assert a == pytest.approx(b, rel=1e-14)


@pytest.mark.parametrize(
    "make, v, first, first_chain, second, second_chain",
    [
        (
            lambda t: FUNCTIONS["asin"](t),
            _X0,
            [1.7320508075688776, -0.5163977794943222, 3.0237157840738176],
            ["MulBackward0", "RsqrtBackward0", "AddBackward1", "MulBackward0"],
            [4.000000000000003, -0.14222222222222214, 31.34693877551019],
            ["AddBackward0", "NegBackward0", "MulBackward0", _ACC],
        ),
        (
            lambda t: FUNCTIONS["acosh"](t),
            [1.5, 2.25, 3.0],
            [1.3416407864998738, -0.24806946917841693, 0.7071067811865475],
            ["MulBackward0", "RsqrtBackward0", "SubBackward1", "MulBackward0"],
            [-4.319999999999999, -0.0681656804733728, -0.3749999999999999],
            ["AddBackward0", "MulBackward0", _ACC],
        ),
        (
            lambda t: FUNCTIONS["atanh"](t),
            _X0,
            [2.0, -0.5333333333333333, 4.571428571428571],
            ["DivBackward0", "SubBackward0", "PowBackward0", _ACC],
            [10.666666666666666, -0.3034074074074074, 143.30029154518948],
            ["MulBackward0", "MulBackward1", "PowBackward0", _ACC],
        ),
        (
            lambda t: FUNCTIONS["tan"](t),
            _X0,
            [1.9476696156142872, -0.532599748366425, 3.7357439283606557],
            ["MulBackward0", "AddBackward1", "PowBackward0", "TanBackward0"],
            [8.28941245896651, -0.2897237027016314, 52.00463102987859],
            ["MulBackward0", "AddBackward1", "PowBackward0", "TanBackward0"],
        ),
        (
            lambda t: FUNCTIONS["rsqrt"](t),
            [0.5, 1.25, 0.75],
            [-2.121320343559642, 0.17888543819998315, -1.5396007178390028],
            ["MulBackward0", "PowBackward0", "RsqrtBackward0", _ACC],
            [-26.999999999999975, -0.07679999999999998, -9.481481481481493],
            ["MulBackward0", "PowBackward0", "RsqrtBackward0", _ACC],
        ),
        (
            lambda t: unary.silu(t),
            _X0,
            [1.1099417809539778, -0.18814498921490116, 1.6851998889935071],
            ["MulBackward0", "AddBackward1", "MulBackward0", "SubBackward0"],
            [1.4692155960344215, 0.09117812617912957, 2.54281007887092],
            ["AddBackward0", "SigmoidBackwardBackward0", "SigmoidBackward0", _ACC],
        ),
        (
            lambda t: unary_args.gelu(t),
            _X0,
            [1.3012426869842444, -0.152313322558182, 1.9984514434784704],
            ["GeluBackwardBackward0", _ACC],
            [2.4051427669120065, 0.11410849209526702, 3.460399081857221],
            ["MulBackward0", "SubBackward0", "MulBackward0", "MulBackward1"],
        ),
        (
            lambda t: unary_args.gelu(t, "tanh"),
            _X0,
            [1.3010548553019636, -0.15232295242446978, 1.9978765122748285],
            ["GeluBackwardBackward0", _ACC],
            [2.4024247030874664, 0.11408206413276167, 3.4547879235754273],
            ["MulBackward0", "AddBackward0", "MulBackward0", "MulBackward1"],
        ),
        (
            lambda t: unary_args.softplus(t),
            _X0,
            [0.9336889968027818, -0.21891174955710094, 1.358357398350786],
            ["SoftplusBackwardBackward0", _ACC],
            [0.6582611408713093, 0.053881642677719895, 1.1839171073598338],
            ["MulBackward1", "MulBackward0"],
        ),
        (
            lambda t: unary_args.elu(t),
            _X0,
            [1.5, -0.38940039153570244, 2.0],
            ["EluBackwardBackward0", _ACC],
            [0.0, 0.3032653298563167, 0.0],
            ["MulBackward0"],
        ),
    ],
    ids=["asin", "acosh", "atanh", "tan", "rsqrt", "silu", "gelu", "gelu_tanh", "softplus", "elu"],
)
def test_unary_gradients_record_pytorchs_formulas(make, v, first, first_chain, second, second_chain):
    """Under create_graph, unary ops' gradients record the ops of PyTorch's formulas
    (Scalar operands as MulBackward1/AddBackward1/SubBackward1, `1 - t` as SubBackward0,
    x.pow(2), rsqrt, gelu_backward as GeluBackwardBackward0 with gelu_double_backward,
    softplus/elu double backward), down to the second derivative (torch 2.13)."""
    x = T(v)
    w = T([1.5, -0.5, 2.0])
    (g,) = grad((make(x) * w).sum(), x, create_graph=True)
    assert _chain(g.grad_fn, 4) == first_chain
    assert vals(g) == pytest.approx(first, rel=1e-14)
    (h,) = grad((g * g).sum(), x, create_graph=True)
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
    (g,) = grad((amax(x, 1) * w).sum(), x, create_graph=True)
    div = g.grad_fn.next_functions[0][0]
    assert [g.grad_fn.name(), div.name(), div.next_functions[0][0].name()] == [
        "MulBackward0",
        "DivBackward0",
        "ViewBackward0",
    ]
    assert g.grad_fn.next_functions[1][0] is None  # the mask is a constant
    assert vals(g) == [[0.0, 0.0, 1.5], [-1.0, -1.0, -0.0]]
    assert [math.copysign(1.0, v) for v in vals(g)[1]] == [-1.0, -1.0, -1.0]
    (h,) = grad((g * g).sum(), w)
    assert vals(h) == [3.0, -2.0]
    n = T([[1.0, math.nan, 2.0], [3.0, 3.0, 1.0]])
    (g,) = grad((amax(n, 1) * tensor([1.5, -2.0])).sum(), n, create_graph=True)
    assert not g.requires_grad
    assert all(math.isnan(v) for v in vals(g)[0]) and vals(g)[1] == [-1.0, -1.0, -0.0]
