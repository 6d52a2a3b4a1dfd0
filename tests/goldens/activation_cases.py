"""The torch.nn.functional activations diffcli gained with engine/ops/activations.py
(hardtanh, relu6, selu, celu, threshold, hardsigmoid, hardswish, mish, hardshrink,
softshrink, logsigmoid, softsign, tanhshrink): snippets for tests/goldens/record_ops.py,
in its (group, label, setup, expr) form, written for these tests: values, grad_fn, the
gradients (and second order for those in SECOND_ORDER), an integer input, and the points
where the op has a kink. `SECOND_ORDER` names those whose second-order gradients are
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
}
