"""The torch.nn.functional activations diffcli gained with engine/ops/activations.py
(hardtanh, relu6, selu, celu, threshold, hardsigmoid, hardswish, mish, hardshrink,
softshrink, logsigmoid, softsign, tanhshrink): snippets for tests/goldens/record_ops.py,
in its (group, label, setup, expr) form, written for these tests: values, grad_fn, the
gradients (and second order for those in SECOND_ORDER), an integer input, and the points
where the op has a kink; and the compositions of engine/ops/functional.py (F.normalize,
F.l1_loss, F.one_hot, torch.linalg.vector_norm / norm, torch.special's aliases, greater /
less..., ravel, positive). `SECOND_ORDER` names those whose second-order gradients are
recorded too."""

X = "a = T([-3.5, -3.0, -1.2, -0.3, 0.0, 0.4, 0.5, 1.0, 3.0, 6.5])"  # bounds and kinks
INT = "i = C([1, -2, 5, 7])"
F32 = "f = T([-2.0, -0.5, 0.25, 4.0], dtype=torch.float32)"

G = "activations"
SNIPPETS = [
    (G, "F.hardtanh", X, "F.hardtanh(a)"),
    (G, "F.hardtanh(min_val, max_val)", X, "F.hardtanh(a, -0.3, 3.0)"),
    (G, "F.hardtanh(a, max_val=)", X, "F.hardtanh(a, max_val=0.5)"),
    (G, "F.hardtanh int", INT, "F.hardtanh(i)"),
    (G, "F.relu6", X, "F.relu6(a)"),
    (G, "F.relu6 int", INT, "F.relu6(i)"),
    (G, "F.relu6 float32", F32, "F.relu6(f * 2)"),
    (G, "F.selu", X, "F.selu(a)"),
    (G, "torch.selu", X, "torch.selu(a)"),
    (G, "F.selu float32", F32, "F.selu(f)"),
    (G, "F.selu int", INT, "F.selu(i)"),
    (G, "F.celu", X, "F.celu(a)"),
    (G, "F.celu(alpha)", X, "F.celu(a, 0.7)"),
    (G, "F.celu(alpha=2)", X, "F.celu(a, alpha=2.0)"),
    (G, "F.threshold", X, "F.threshold(a, 0.4, 20.0)"),
    (G, "F.threshold int", INT, "F.threshold(i, 1, 20)"),
    (G, "F.hardsigmoid", X, "F.hardsigmoid(a)"),
    (G, "F.hardsigmoid int", INT, "F.hardsigmoid(i)"),
    (G, "F.hardswish", X, "F.hardswish(a)"),
    (G, "F.hardswish float32", F32, "F.hardswish(f)"),
    (G, "F.mish", X, "F.mish(a)"),
    (G, "F.mish int", INT, "F.mish(i)"),
    (G, "F.hardshrink", X, "F.hardshrink(a)"),
    (G, "a.hardshrink(lambd)", X, "a.hardshrink(1.0)"),
    (G, "F.softshrink", X, "F.softshrink(a)"),
    (G, "F.softshrink(lambd)", X, "F.softshrink(a, 1.0)"),
    (G, "F.softshrink int", INT, "F.softshrink(i)"),
    (G, "F.logsigmoid", X, "F.logsigmoid(a)"),
    (G, "F.logsigmoid tails", "a = T([-800.0, -40.0, 40.0, 800.0])", "F.logsigmoid(a)"),
    (G, "F.logsigmoid int", INT, "F.logsigmoid(i)"),
    (G, "F.softsign", X, "F.softsign(a)"),
    (G, "F.softsign int", INT, "F.softsign(i)"),
    (G, "F.tanhshrink", X, "F.tanhshrink(a)"),
    (G, "F.relu6 of a product", f"{X}; w = T([2.0])", "F.relu6(a * w)"),
    (G, "F.mish 2-D sum", "m = T([[0.5, -1.0], [2.0, -0.25]])", "F.mish(m).sum()"),
]

M = "a = T([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]); t = C([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])"
FN = "functional_ops"
SNIPPETS += [
    (FN, "F.normalize", M, "F.normalize(a)"),
    (FN, "F.normalize(p=1, dim=0)", M, "F.normalize(a, p=1, dim=0)"),
    (FN, "F.normalize(dim=-1, eps)", M, "F.normalize(a, dim=-1, eps=1e-3)"),
    (FN, "F.normalize 1-D dim=0", "v = T([3.0, -4.0])", "F.normalize(v, dim=0)"),
    (FN, "F.normalize of a zero row", "z = T([[0.0, 0.0], [1.0, 2.0]])", "F.normalize(z)"),
    (FN, "F.l1_loss", M, "F.l1_loss(a, t)"),
    (FN, "F.l1_loss sum", M, "F.l1_loss(a, t, reduction='sum')"),
    (FN, "F.l1_loss none", M, "F.l1_loss(a, t, reduction='none')"),
    (FN, "F.l1_loss broadcast target", "a = T([[1.0], [2.5]]); t = C([0.5, 3.0])", "F.l1_loss(a, t)"),
    (FN, "F.l1_loss bad reduction", M, "F.l1_loss(a, t, reduction='bad')"),
    (FN, "F.one_hot", "i = C([0, 2, 1])", "F.one_hot(i)"),
    (FN, "F.one_hot num_classes", "i = C([[0], [2]])", "F.one_hot(i, 4)"),
    (FN, "F.one_hot float", "i = C([1.0])", "F.one_hot(i)"),
    (FN, "F.one_hot too large", "i = C([3])", "F.one_hot(i, 2)"),
    (FN, "F.one_hot negative", "i = C([-1])", "F.one_hot(i)"),
    (FN, "linalg.vector_norm", M, "torch.linalg.vector_norm(a)"),
    (FN, "linalg.vector_norm(ord=1, dim=1)", M, "torch.linalg.vector_norm(a, ord=1, dim=1)"),
    (FN, "linalg.vector_norm(ord=inf)", M, "torch.linalg.vector_norm(a, ord=float('inf'))"),
    (FN, "linalg.vector_norm(dim=0, keepdim)", M, "torch.linalg.vector_norm(a, dim=0, keepdim=True)"),
    (FN, "linalg.norm", M, "torch.linalg.norm(a)"),
    (FN, "linalg.norm(dim=1)", M, "torch.linalg.norm(a, dim=1)"),
    (FN, "linalg.norm 1-D ord=3", "v = T([3.0, -4.0, 1.0])", "torch.linalg.norm(v, 3)"),
    (FN, "special.expit", M, "torch.special.expit(a)"),
    (FN, "special.erf", M, "torch.special.erf(a)"),
    (FN, "special.expm1", M, "torch.special.expm1(a)"),
    (FN, "special.log1p", "v = T([0.5, 1.5, 3.0])", "torch.special.log1p(v)"),
    (FN, "special.logsumexp", M, "torch.special.logsumexp(a, 1)"),
    (FN, "special.softmax", M, "torch.special.softmax(a, 0)"),
    (FN, "torch.greater", M, "torch.greater(a, 0.5)"),
    (FN, "a.less_equal(t)", M, "a.less_equal(t)"),
    (FN, "torch.not_equal", M, "torch.not_equal(a, t)"),
    (FN, "a.greater_equal(t)", M, "a.greater_equal(t)"),
    (FN, "torch.less", M, "torch.less(a, t)"),
    (FN, "a.ravel()", M, "a.ravel()"),
    (FN, "torch.ravel of a transpose", M, "torch.ravel(a.t())"),
    (FN, "torch.positive", M, "torch.positive(a)"),
    (FN, "a.positive() of bool", "b = C([True, False])", "b.positive()"),
    (FN, "torch.erfc", "v = T([-1.5, 0.0, 0.5, 2.5, 30.0])", "torch.erfc(v)"),
    (FN, "a.erfc() float32", "f = T([-1.0, 0.25, 2.0], dtype=torch.float32)", "f.erfc()"),
    (FN, "torch.erfc int", "i = C([0, 1, 2])", "torch.erfc(i)"),
    (FN, "special.erfc", "v = T([-0.5, 0.75])", "torch.special.erfc(v)"),
    (
        FN,
        "F.cosine_similarity",
        f"{M}; b = T([[1.0, 2.0, 0.5], [0.0, 1.0, 1.0]])",
        "F.cosine_similarity(a, b)",
    ),
    (
        FN,
        "F.cosine_similarity(dim=0)",
        f"{M}; b = T([[1.0, 2.0, 0.5], [0.0, 1.0, 1.0]])",
        "F.cosine_similarity(a, b, dim=0)",
    ),
    (
        FN,
        "torch.cosine_similarity broadcast",
        f"{M}; b = T([1.0, 2.0, 0.5])",
        "torch.cosine_similarity(a, b)",
    ),
    (
        FN,
        "F.cosine_similarity of zeros",
        "z = T([[0.0, 0.0], [1.0, 2.0]]); b = C([[1.0, 1.0], [2.0, 0.5]])",
        "F.cosine_similarity(z, b)",
    ),
]

SECOND_ORDER = {
    f"{G}/{label}"
    for label in (
        "F.hardtanh",
        "F.relu6",
        "F.selu",
        "F.celu(alpha)",
        "F.threshold",
        "F.hardswish",
        "F.mish",
        "F.hardshrink",
        "F.softshrink",
        "F.logsigmoid",
        "F.softsign",
        "F.tanhshrink",
        "F.relu6 of a product",
    )
} | {
    f"{FN}/{label}"
    for label in (
        "F.normalize",
        "F.normalize(p=1, dim=0)",
        "F.l1_loss",
        "linalg.vector_norm",
        "torch.erfc",
        "F.cosine_similarity",
    )
}
