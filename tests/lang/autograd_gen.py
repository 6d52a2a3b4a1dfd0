"""Random scripts of custom autograd Functions and hooks (issue 12), each both a diffcli
script and a Python + torch program (the PyTorch flavour is its own program).

`function_scripts()` is a hypothesis strategy drawing one script: a
`torch.autograd.Function` subclass for an op (exp, sin, tanh, sigmoid, cube, square,
log) whose forward saves its input or its output, optionally takes a Python number as
a second argument (a scale, with a `None` gradient), optionally uses `setup_context`,
optionally marks its backward `@once_differentiable`; leaves of random shapes; tensor
hooks on the leaf and on the output (printing, scaling, or returning None), a node
pre-hook or post-hook, retain_grad, saved_tensors_hooks around the forward; then a plan:
`backward()`, `backward(retain_graph=True)` twice, `torch.autograd.grad`, or a double
backward through the Function (create_graph, when its backward is differentiable).
Everything compared is printed (tensors, grads, hook calls, grad_fn names).
"""

from __future__ import annotations

from hypothesis import strategies as st

# name: (forward expression of x, saves "x" or "r" (the result), backward of g from the saved s)
OPS = {
    "exp": ("x.exp()", "r", "g * s"),
    "sin": ("x.sin()", "x", "g * s.cos()"),
    "tanh": ("torch.tanh(x)", "r", "g * (1 - s * s)"),
    "sigmoid": ("x.sigmoid()", "r", "g * s * (1 - s)"),
    "cube": ("x ** 3", "x", "g * 3 * s ** 2"),
    "square": ("x * x", "x", "2 * s * g"),
    "log": ("(x * x + 1).log()", "x", "g * 2 * s / (s * s + 1)"),
}
SHAPES = [(), (3,), (2, 3), (1, 3)]


def _values(draw, shape):
    n = 1
    for s in shape:
        n *= s
    vals = [draw(st.integers(-20, 20)) / 10 for _ in range(n)]
    if not shape:
        return repr(vals[0])
    if len(shape) == 1:
        return repr(vals)
    rows = [vals[i * shape[1] : (i + 1) * shape[1]] for i in range(shape[0])]
    return repr(rows)


@st.composite
def function_scripts(draw):
    op = draw(st.sampled_from(sorted(OPS)))
    fwd, saves, bwd = OPS[op]
    scale = draw(st.sampled_from([None, 2, 0.5, -3]))
    setup = draw(st.booleans())
    once = draw(st.booleans())
    shape = draw(st.sampled_from(SHAPES))
    args = "x, k" if scale is not None else "x"
    scaled = f"({fwd}) * k" if scale is not None else fwd
    scaled_bwd = f"({bwd}) * ctx.k" if scale is not None else bwd
    grads = f"{scaled_bwd}, None" if scale is not None else scaled_bwd
    lines = [
        "import torch",
        "from torch.autograd.function import once_differentiable",
        f"class My{op.capitalize()}(torch.autograd.Function):",
        "    @staticmethod",
    ]
    if setup:
        lines += [
            f"    def forward({args}):",
            f"        return {scaled}",
            "    @staticmethod",
            "    def setup_context(ctx, inputs, output):",
        ]
        lines += ["        x = inputs[0]", "        r = output"]
        if scale is not None:
            lines += ["        ctx.k = inputs[1]"]
        lines += [f"        ctx.save_for_backward({saves})"]
    else:
        lines += [f"    def forward(ctx, {args}):", f"        r = {scaled}"]
        if scale is not None:
            lines += ["        ctx.k = k"]
        lines += [f"        ctx.save_for_backward({saves})", "        return r"]
    lines += ["    @staticmethod"]
    if once:
        lines += ["    @once_differentiable"]
    lines += ["    def backward(ctx, g):", "        s, = ctx.saved_tensors", f"        return {grads}"]
    fn = f"My{op.capitalize()}"
    lines += [f"a = torch.tensor({_values(draw, shape)}, requires_grad=True)"]
    if draw(st.booleans()):
        lines += [
            "def pack(t):",
            "    print('pack', t.shape)",
            "    return t",
            "def unpack(t):",
            "    print('unpack', t.shape)",
            "    return t",
            "with torch.autograd.graph.saved_tensors_hooks(pack, unpack):",
            f"    y = {fn}.apply(a{', ' + repr(scale) if scale is not None else ''})",
        ]
    else:
        lines += [f"y = {fn}.apply(a{', ' + repr(scale) if scale is not None else ''})"]
    lines += ["print(y, y.grad_fn, y.requires_grad, y.is_leaf)"]
    leaf_hook = draw(st.sampled_from([None, "print", "scale", "none"]))
    if leaf_hook == "print":
        lines += ["ha = a.register_hook(lambda g: print('leaf', g))"]
    elif leaf_hook == "scale":
        lines += ["ha = a.register_hook(lambda g: g * 2)"]
    elif leaf_hook == "none":
        lines += ["ha = a.register_hook(lambda g: None)"]
    out_hook = draw(st.sampled_from([None, "print", "scale", "prehook", "posthook"]))
    if out_hook == "print":
        lines += ["y.register_hook(lambda g: print('out', g))"]
    elif out_hook == "scale":
        lines += ["y.register_hook(lambda g: g * 0.5)"]
    elif out_hook == "prehook":
        lines += ["y.grad_fn.register_prehook(lambda go: (go[0] * 3,))"]
    elif out_hook == "posthook":
        lines += ["y.grad_fn.register_hook(lambda gi, go: print('post', gi, go))"]
    if draw(st.booleans()):
        lines += ["y.retain_grad()"]
    reduce = draw(st.sampled_from(["y.sum()", "(y * y).sum()", "(y * 2).mean()"]))
    lines += [f"z = {reduce}"]
    plans = ["backward", "twice", "grad"] + ([] if once else ["double"])
    plan = draw(st.sampled_from(plans))
    if plan == "backward":
        lines += ["z.backward()", "print(a.grad)"]
    elif plan == "twice":
        lines += ["z.backward(retain_graph=True)", "z.backward()", "print(a.grad)"]
    elif plan == "grad":
        lines += ["ga, = torch.autograd.grad(z, a)", "print(ga, a.grad)"]
    else:
        lines += [
            "ga, = torch.autograd.grad(z, a, create_graph=True)",
            "print(ga, ga.requires_grad)",
            "ga.sum().backward()",
            "print(a.grad)",
        ]
    if "retain_grad" in "\n".join(lines) and plan != "grad":
        lines += ["print(y.grad)"]
    if leaf_hook is not None:
        lines += ["ha.remove()", "(a * 1).sum().backward()", "print(a.grad)"]
    return "\n".join(lines) + "\n"
