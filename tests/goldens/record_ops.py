#!/usr/bin/env python
"""Record PyTorch goldens for diffcli's op table into ops.json.

Run by hand, with torch installed:   python tests/goldens/record_ops.py
The test suite never imports torch: tests/engine/test_grad_fn_names.py and
tests/engine/test_edge_points.py replay the same snippets on diffcli's engine and
compare against the committed ops.json.

Each snippet is (group, label, setup, expr), Python evaluated with
    T(v, dtype=None) = torch.tensor(v, requires_grad=True, dtype=dtype)   # a leaf variable
    C(v, dtype=None) = torch.tensor(v, dtype=dtype)                       # a constant
    and `torch`, `F` (torch.nn.functional) and `math` in scope,
under torch.set_default_dtype(torch.float64) (diffcli's default). The first groups repeat
every supported row of tests/goldens/torchref/REFERENCE.md §1 (recorded there in float32), so
values here are float64; the rest extend the coverage to every op of diffcli's table.

A snippet whose expression raises records the exception's type and message instead.
For each other snippet the record holds the output (values, shape, dtype, grad_fn), the
grad_fn's next_functions, the whole backward graph as text, the leaf gradients after
`out.backward()` (0-dim output) or `out.backward(g)` with a fixed upstream gradient g,
and the warnings raised. g is ((arange(n) % 4) + 1) * 0.5 shaped like the output, except
for the edge_point_gradients group, which uses ones (as REFERENCE.md does).

Snippets in SECOND_ORDER also record "second_order": the gradients under create_graph
(values, grad_fn, graph) and a Hessian-vector product (see second_order()).

Non-finite floats are stored as the strings "nan", "inf", "-inf"; -0.0 keeps its sign.
"""

import json
import math
import os
import sys
import warnings

EDGE_GROUP = "edge_point_gradients"

SNIPPETS = [
    # --- arithmetic (REFERENCE.md §1) ---
    ("arithmetic", "a+b", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "a + b"),
    ("arithmetic", "a+2", "a = T([0.5, 1.5, 2.5])", "a + 2"),
    ("arithmetic", "2+a", "a = T([0.5, 1.5, 2.5])", "2 + a"),
    ("arithmetic", "a-b", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "a - b"),
    ("arithmetic", "a-2", "a = T([0.5, 1.5, 2.5])", "a - 2"),
    ("arithmetic", "2-a", "a = T([0.5, 1.5, 2.5])", "2 - a"),
    ("arithmetic", "a*b", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "a * b"),
    ("arithmetic", "a*2", "a = T([0.5, 1.5, 2.5])", "a * 2"),
    ("arithmetic", "2*a", "a = T([0.5, 1.5, 2.5])", "2 * a"),
    ("arithmetic", "a*2.5", "a = T([0.5, 1.5, 2.5])", "a * 2.5"),
    ("arithmetic", "a/b", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "a / b"),
    ("arithmetic", "a/2", "a = T([0.5, 1.5, 2.5])", "a / 2"),
    ("arithmetic", "2/a", "a = T([0.5, 1.5, 2.5])", "2 / a"),
    ("arithmetic", "-a", "a = T([0.5, 1.5, 2.5])", "-a"),
    ("arithmetic", "a**2", "a = T([0.5, 1.5, 2.5])", "a ** 2"),
    ("arithmetic", "a**3", "a = T([0.5, 1.5, 2.5])", "a ** 3"),
    ("arithmetic", "a**b (tensor exponent)", "a = T([0.5, 1.5, 2.5]); b = T([2.0, 0.5, -1.0])", "a ** b"),
    ("arithmetic", "2**a", "a = T([0.5, 1.5, 2.5])", "2 ** a"),
    ("arithmetic", "a**0.5", "a = T([0.5, 1.5, 2.5])", "a ** 0.5"),
    ("arithmetic", "a**-1", "a = T([0.5, 1.5, 2.5])", "a ** -1"),
    ("arithmetic", "torch.pow(a, 2)", "a = T([0.5, 1.5, 2.5])", "torch.pow(a, 2)"),
    ("arithmetic", "torch.pow(a, b)", "a = T([0.5, 1.5, 2.5]); b = T([2.0, 0.5, -1.0])", "torch.pow(a, b)"),
    ("arithmetic", "torch.pow(2, a)", "a = T([0.5, 1.5, 2.5])", "torch.pow(2, a)"),
    ("arithmetic", "a.pow(3)", "a = T([0.5, 1.5, 2.5])", "a.pow(3)"),
    ("arithmetic", "torch.square(a)", "a = T([0.5, 1.5, 2.5])", "torch.square(a)"),
    ("arithmetic", "a.reciprocal()", "a = T([0.5, 1.5, 2.5])", "a.reciprocal()"),
    ("arithmetic", "torch.add(a, b)", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.add(a, b)"),
    (
        "arithmetic",
        "torch.add(a, b, alpha=2)",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])",
        "torch.add(a, b, alpha=2)",
    ),
    (
        "arithmetic",
        "torch.sub(a, b, alpha=2)",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])",
        "torch.sub(a, b, alpha=2)",
    ),
    ("arithmetic", "torch.mul(a, b)", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.mul(a, b)"),
    ("arithmetic", "torch.mul(a, 2)", "a = T([0.5, 1.5, 2.5])", "torch.mul(a, 2)"),
    ("arithmetic", "torch.div(a, b)", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.div(a, b)"),
    ("arithmetic", "torch.neg(a)", "a = T([0.5, 1.5, 2.5])", "torch.neg(a)"),
    ("arithmetic", "a+c (c constant tensor)", "a = T([1.5, 2.0, 3.0]); c = C([0.5, -1.0, 4.0])", "a + c"),
    ("arithmetic", "c+a (c constant tensor)", "a = T([1.5, 2.0, 3.0]); c = C([0.5, -1.0, 4.0])", "c + a"),
    ("arithmetic", "a*c (c constant tensor)", "a = T([1.5, 2.0, 3.0]); c = C([0.5, -1.0, 4.0])", "a * c"),
    ("arithmetic", "c-a (c constant tensor)", "a = T([1.5, 2.0, 3.0]); c = C([0.5, -1.0, 4.0])", "c - a"),
    ("arithmetic", "c/a (c constant tensor)", "a = T([1.5, 2.0, 3.0]); c = C([0.5, -1.0, 4.0])", "c / a"),
    ("arithmetic", "a+a (same tensor twice)", "a = T([0.5, 1.5, 2.5])", "a + a"),
    ("arithmetic", "a*a (same tensor twice)", "a = T([0.5, 1.5, 2.5])", "a * a"),
    ("arithmetic", "a*s (s 0-dim requires_grad, broadcast)", "a = T([1.5, 2.0, 3.0]); s = T(2.0)", "a * s"),
    (
        "arithmetic",
        "torch.div(a, b, rounding_mode='floor')",
        "a = T([1.5, -2.5, 3.0]); b = T([0.5, 2.0, -4.0])",
        "torch.div(a, b, rounding_mode='floor')",
    ),
    (
        "arithmetic",
        "torch.remainder(a, b)",
        "a = T([1.5, -2.5, 3.0]); b = T([0.5, 2.0, -4.0])",
        "torch.remainder(a, b)",
    ),
    ("arithmetic", "a % 2.5", "a = T([1.5, -2.5, 3.0])", "a % 2.5"),
    # --- unary_math (REFERENCE.md §1) ---
    ("unary_math", "sin", "a = T([-1.5, 0.5, 2.5])", "torch.sin(a)"),
    ("unary_math", "cos", "a = T([-1.5, 0.5, 2.5])", "torch.cos(a)"),
    ("unary_math", "tan", "a = T([-1.5, 0.5, 2.5])", "torch.tan(a)"),
    ("unary_math", "exp", "a = T([-1.5, 0.5, 2.5])", "torch.exp(a)"),
    ("unary_math", "a.exp() (method)", "a = T([-1.5, 0.5, 2.5])", "a.exp()"),
    ("unary_math", "log", "a = T([0.5, 1.5, 2.5])", "torch.log(a)"),
    ("unary_math", "log2", "a = T([0.5, 1.5, 2.5])", "torch.log2(a)"),
    ("unary_math", "log10", "a = T([0.5, 1.5, 2.5])", "torch.log10(a)"),
    ("unary_math", "log1p", "a = T([0.5, 1.5, 2.5])", "torch.log1p(a)"),
    ("unary_math", "expm1", "a = T([-1.5, 0.5, 2.5])", "torch.expm1(a)"),
    ("unary_math", "sqrt", "a = T([0.5, 1.5, 2.5])", "torch.sqrt(a)"),
    ("unary_math", "rsqrt", "a = T([0.5, 1.5, 2.5])", "torch.rsqrt(a)"),
    ("unary_math", "abs", "a = T([-1.5, 0.5, 2.5])", "torch.abs(a)"),
    ("unary_math", "abs (builtin abs(a))", "a = T([-1.5, 0.5, 2.5])", "abs(a)"),
    ("unary_math", "sign", "a = T([-1.5, 0.5, 2.5])", "torch.sign(a)"),
    ("unary_math", "tanh", "a = T([-1.5, 0.5, 2.5])", "torch.tanh(a)"),
    ("unary_math", "sigmoid", "a = T([-1.5, 0.5, 2.5])", "torch.sigmoid(a)"),
    ("unary_math", "F.sigmoid", "a = T([-1.5, 0.5, 2.5])", "F.sigmoid(a)"),
    ("unary_math", "relu (torch.relu)", "a = T([-1.5, 0.5, 2.5])", "torch.relu(a)"),
    ("unary_math", "relu (F.relu)", "a = T([-1.5, 0.5, 2.5])", "F.relu(a)"),
    ("unary_math", "relu (a.relu())", "a = T([-1.5, 0.5, 2.5])", "a.relu()"),
    ("unary_math", "F.gelu", "a = T([-1.5, 0.5, 2.5])", "F.gelu(a)"),
    ("unary_math", "F.gelu(approximate='tanh')", "a = T([-1.5, 0.5, 2.5])", "F.gelu(a, approximate='tanh')"),
    ("unary_math", "F.softplus", "a = T([-1.5, 0.5, 2.5])", "F.softplus(a)"),
    ("unary_math", "F.softplus(beta=2)", "a = T([-1.5, 0.5, 2.5])", "F.softplus(a, beta=2)"),
    ("unary_math", "F.elu", "a = T([-1.5, 0.5, 2.5])", "F.elu(a)"),
    ("unary_math", "F.leaky_relu", "a = T([-1.5, 0.5, 2.5])", "F.leaky_relu(a)"),
    ("unary_math", "F.leaky_relu(0.2)", "a = T([-1.5, 0.5, 2.5])", "F.leaky_relu(a, 0.2)"),
    ("unary_math", "F.silu", "a = T([-1.5, 0.5, 2.5])", "F.silu(a)"),
    ("unary_math", "F.tanh", "a = T([-1.5, 0.5, 2.5])", "F.tanh(a)"),
    ("unary_math", "asin", "a = T([-0.5, 0.25, 0.75])", "torch.asin(a)"),
    ("unary_math", "acos", "a = T([-0.5, 0.25, 0.75])", "torch.acos(a)"),
    ("unary_math", "atan", "a = T([-1.5, 0.5, 2.5])", "torch.atan(a)"),
    ("unary_math", "atan2(a, b)", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.atan2(a, b)"),
    ("unary_math", "sinh", "a = T([-1.5, 0.5, 2.5])", "torch.sinh(a)"),
    ("unary_math", "cosh", "a = T([-1.5, 0.5, 2.5])", "torch.cosh(a)"),
    ("unary_math", "asinh", "a = T([-1.5, 0.5, 2.5])", "torch.asinh(a)"),
    ("unary_math", "acosh", "a = T([1.5, 2.0, 3.0])", "torch.acosh(a)"),
    ("unary_math", "atanh", "a = T([-0.5, 0.25, 0.75])", "torch.atanh(a)"),
    ("unary_math", "floor", "a = T([-1.5, 0.5, 2.5])", "torch.floor(a)"),
    ("unary_math", "ceil", "a = T([-1.5, 0.5, 2.5])", "torch.ceil(a)"),
    ("unary_math", "round", "a = T([-1.5, 0.5, 2.5])", "torch.round(a)"),
    ("unary_math", "trunc", "a = T([-1.5, 0.5, 2.5])", "torch.trunc(a)"),
    ("unary_math", "clamp(min, max)", "a = T([-1.5, 0.5, 2.5])", "torch.clamp(a, -1.0, 1.0)"),
    ("unary_math", "a.clamp(min=-1, max=1)", "a = T([-1.5, 0.5, 2.5])", "a.clamp(min=-1.0, max=1.0)"),
    ("unary_math", "clamp(min) only", "a = T([-1.5, 0.5, 2.5])", "torch.clamp(a, min=0.0)"),
    ("unary_math", "clamp(max) only", "a = T([-1.5, 0.5, 2.5])", "torch.clamp(a, max=0.0)"),
    ("unary_math", "a.clamp_min(0)", "a = T([-1.5, 0.5, 2.5])", "a.clamp_min(0.0)"),
    (
        "unary_math",
        "clamp(min=tensor, max=tensor)",
        "a = T([-1.5, 0.5, 2.5]); lo = C([-1.0, 0.0, 0.0]); hi = C([1.0, 1.0, 1.0])",
        "torch.clamp(a, lo, hi)",
    ),
    ("unary_math", "torch.clip(a, -1, 1)", "a = T([-1.5, 0.5, 2.5])", "torch.clip(a, -1.0, 1.0)"),
    ("unary_math", "maximum", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.maximum(a, b)"),
    ("unary_math", "minimum", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.minimum(a, b)"),
    (
        "unary_math",
        "torch.max(a, b) (binary)",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])",
        "torch.max(a, b)",
    ),
    (
        "unary_math",
        "torch.min(a, b) (binary)",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])",
        "torch.min(a, b)",
    ),
    # --- ops added as one row each (diffcli/engine/ops/rows.py); second order too ---
    ("unary_math", "erf", "a = T([-1.5, 0.5, 2.5])", "torch.erf(a)"),
    ("unary_math", "a.erf() (0-dim)", "a = T(0.75)", "a.erf()"),
    ("unary_math", "sinc", "a = T([-1.5, 0.5, 2.5])", "torch.sinc(a)"),
    ("unary_math", "a.sinc() (0-dim)", "a = T(0.25)", "a.sinc()"),
    ("unary_math", "hypot(a, b)", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.hypot(a, b)"),
    (
        "unary_math",
        "a.hypot(c) (c constant)",
        "a = T([1.5, 2.0, 3.0]); c = C([0.5, -1.0, 4.0])",
        "a.hypot(c)",
    ),
    (
        "unary_math",
        "hypot (2,3) with (3,)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]); b = T([0.5, -1.0, 2.0])",
        "torch.hypot(a, b)",
    ),
    ("unary_math", "hypot (0-dim)", "a = T(3.0); b = T(-4.0)", "torch.hypot(a, b)"),
    (
        "unary_math",
        "logaddexp(a, b)",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])",
        "torch.logaddexp(a, b)",
    ),
    (
        "unary_math",
        "a.logaddexp(s) (0-dim s, broadcast)",
        "a = T([1.5, 2.0, 3.0]); s = T(2.0)",
        "a.logaddexp(s)",
    ),
    ("unary_math", "logaddexp (0-dim)", "a = T(-0.5); b = T(1.25)", "torch.logaddexp(a, b)"),
    # --- reductions (REFERENCE.md §1) ---
    ("reductions", "max() full reduction", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.max()"),
    ("reductions", "torch.max(a) full", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "torch.max(a)"),
    ("reductions", "max(dim) .values", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.max(dim=1).values"),
    ("reductions", "max(dim)[0]", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.max(1)[0]"),
    (
        "reductions",
        "max(dim) .indices",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.max(dim=1).indices",
    ),
    (
        "reductions",
        "max(dim, keepdim=True).values",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.max(dim=1, keepdim=True).values",
    ),
    ("reductions", "min() full reduction", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.min()"),
    ("reductions", "min(dim) .values", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.min(dim=0).values"),
    ("reductions", "amax()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.amax()"),
    ("reductions", "amax(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.amax(dim=1)"),
    ("reductions", "sum()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.sum()"),
    ("reductions", "torch.sum(a)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "torch.sum(a)"),
    ("reductions", "sum(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.sum(dim=0)"),
    (
        "reductions",
        "sum(dim, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.sum(dim=1, keepdim=True)",
    ),
    ("reductions", "sum(dim=(0,1))", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.sum(dim=(0, 1))"),
    ("reductions", "sum(1D)", "a = T([0.5, 1.5, 2.5])", "a.sum()"),
    ("reductions", "mean()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.mean()"),
    ("reductions", "mean(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.mean(dim=0)"),
    (
        "reductions",
        "mean(dim, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.mean(dim=1, keepdim=True)",
    ),
    ("reductions", "prod()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.prod()"),
    ("reductions", "prod(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.prod(dim=1)"),
    ("reductions", "var()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.var()"),
    ("reductions", "var(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.var(dim=1)"),
    (
        "reductions",
        "var(unbiased=False)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.var(unbiased=False)",
    ),
    ("reductions", "var(correction=0)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.var(correction=0)"),
    ("reductions", "std()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.std()"),
    ("reductions", "std(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.std(dim=0)"),
    ("reductions", "norm()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.norm()"),
    ("reductions", "torch.norm(a)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "torch.norm(a)"),
    ("reductions", "norm(p=1)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.norm(p=1)"),
    ("reductions", "norm(dim=1)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.norm(dim=1)"),
    # not in diffcli's op table: 'torch.linalg.norm(a) (2D, fro)': torch.linalg.norm(a)
    # not in diffcli's op table: 'torch.linalg.vector_norm(a)': torch.linalg.vector_norm(a)
    ("reductions", "softmax(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "torch.softmax(a, dim=1)"),
    ("reductions", "a.softmax(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.softmax(dim=1)"),
    ("reductions", "F.softmax(dim)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "F.softmax(a, dim=1)"),
    (
        "reductions",
        "log_softmax(dim)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.log_softmax(a, dim=1)",
    ),
    (
        "reductions",
        "F.log_softmax(dim)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "F.log_softmax(a, dim=1)",
    ),
    (
        "reductions",
        "logsumexp(dim)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.logsumexp(a, dim=1)",
    ),
    (
        "reductions",
        "a.logsumexp(dim=(0,1))",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.logsumexp(dim=(0, 1))",
    ),
    (
        "reductions",
        "torch.cumsum(dim)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.cumsum(a, dim=1)",
    ),
    ("reductions", "a.cumsum(0)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.cumsum(0)"),
    # not in diffcli's op table: 'a.cumprod(1)': a.cumprod(1)
    # --- matmul (REFERENCE.md §1) ---
    (
        "matmul",
        "matmul 2D@2D",
        "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = T([[0.5, -1.0], [1.5, 2.0], [-0.5, 1.0]])",
        "a @ b",
    ),
    ("matmul", "matmul 1D@1D", "a = T([1.0, 2.0, 3.0]); b = T([0.5, -1.0, 2.0])", "a @ b"),
    ("matmul", "matmul 2D@1D", "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = T([0.5, -1.0, 2.0])", "a @ b"),
    ("matmul", "matmul 1D@2D", "a = T([1.0, 2.0]); b = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "a @ b"),
    (
        "matmul",
        "matmul 3D@3D batched",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "a @ b",
    ),
    (
        "matmul",
        "matmul 3D@2D broadcast",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])",
        "a @ b",
    ),
    (
        "matmul",
        "matmul 2D@3D broadcast",
        "a = T([[1.0, 2.0], [3.0, 4.0]]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "a @ b",
    ),
    (
        "matmul",
        "matmul 3D@1D",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([1.0, -1.0])",
        "a @ b",
    ),
    (
        "matmul",
        "torch.matmul(a, b) 2D@2D",
        "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = T([[0.5, -1.0], [1.5, 2.0], [-0.5, 1.0]])",
        "torch.matmul(a, b)",
    ),
    (
        "matmul",
        "mm",
        "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = T([[0.5, -1.0], [1.5, 2.0], [-0.5, 1.0]])",
        "torch.mm(a, b)",
    ),
    ("matmul", "mv", "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = T([0.5, -1.0, 2.0])", "torch.mv(a, b)"),
    ("matmul", "dot", "a = T([1.0, 2.0, 3.0]); b = T([0.5, -1.0, 2.0])", "torch.dot(a, b)"),
    ("matmul", "outer", "a = T([1.0, 2.0, 3.0]); b = T([0.5, -1.0])", "torch.outer(a, b)"),
    (
        "matmul",
        "bmm",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "torch.bmm(a, b)",
    ),
    (
        "matmul",
        "x @ W.t() + b",
        "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); W = T([[0.5, -1.0, 1.0], [1.5, 2.0, 0.0]]); b = T([0.1, -0.2])",
        "x @ W.t() + b",
    ),
    # not in diffcli's op table: 'F.linear(x, W, b) 2D': F.linear(x, W, b)
    # not in diffcli's op table: 'F.linear(x, W) no bias': F.linear(x, W)
    # not in diffcli's op table: 'F.linear(x1d, W, b) 1D input': F.linear(x, W, b)
    # not in diffcli's op table: 'torch.addmm(b, x, W)': torch.addmm(b, x, W)
    # --- shape_ops (REFERENCE.md §1) ---
    ("shape_ops", "t()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.t()"),
    ("shape_ops", "a.T", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.T"),
    ("shape_ops", "transpose(0,1)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.transpose(0, 1)"),
    ("shape_ops", "permute(1,0)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.permute(1, 0)"),
    (
        "shape_ops",
        "permute 3D (2,0,1)",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])",
        "a.permute(2, 0, 1)",
    ),
    ("shape_ops", "reshape contiguous", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.reshape(3, 2)"),
    ("shape_ops", "reshape(-1) contiguous", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.reshape(-1)"),
    (
        "shape_ops",
        "reshape non-contiguous (a.t().reshape(6))",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.t().reshape(6)",
    ),
    (
        "shape_ops",
        "reshape same shape (no-op)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.reshape(2, 3)",
    ),
    ("shape_ops", "view", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.view(3, 2)"),
    ("shape_ops", "view(-1)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.view(-1)"),
    ("shape_ops", "flatten", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.flatten()"),
    ("shape_ops", "flatten non-contiguous", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.t().flatten()"),
    ("shape_ops", "flatten 1D (no-op)", "a = T([0.5, 1.5, 2.5])", "a.flatten()"),
    ("shape_ops", "squeeze()", "a = T([[1.0, 2.0, 3.0]])", "a.squeeze()"),
    ("shape_ops", "squeeze(0)", "a = T([[1.0, 2.0, 3.0]])", "a.squeeze(0)"),
    ("shape_ops", "squeeze((0,))", "a = T([[1.0, 2.0, 3.0]])", "a.squeeze((0,))"),
    ("shape_ops", "unsqueeze(0)", "a = T([0.5, 1.5, 2.5])", "a.unsqueeze(0)"),
    ("shape_ops", "unsqueeze(-1)", "a = T([0.5, 1.5, 2.5])", "a.unsqueeze(-1)"),
    ("shape_ops", "expand", "a = T([[1.0, 2.0, 3.0]])", "a.expand(2, 3)"),
    (
        "shape_ops",
        "expand_as",
        "a = T([[1.0], [2.0]]); c = C([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])",
        "a.expand_as(c)",
    ),
    ("shape_ops", "repeat", "a = T([[1.0, 2.0, 3.0]])", "a.repeat(2, 1)"),
    ("shape_ops", "cat", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.cat([a, b])"),
    (
        "shape_ops",
        "cat dim=1 (2D)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]); b = T([[0.5, 1.0, -1.0], [2.0, 0.0, 1.5]])",
        "torch.cat([a, b], dim=1)",
    ),
    ("shape_ops", "cat with constant", "a = T([1.0, 2.0]); c = C([3.0])", "torch.cat([a, c])"),
    ("shape_ops", "stack", "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])", "torch.stack([a, b])"),
    (
        "shape_ops",
        "stack dim=1",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])",
        "torch.stack([a, b], dim=1)",
    ),
    # not in diffcli's op table: 'chunk(2)[0]': a.chunk(2)[0]
    # not in diffcli's op table: 'split(2)[1]': a.split(2)[1]
    # not in diffcli's op table: 'unbind()[1]': a.unbind()[1]
    (
        "shape_ops",
        "contiguous() on non-contiguous",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.t().contiguous()",
    ),
    (
        "shape_ops",
        "contiguous() on contiguous (returns self)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.contiguous()",
    ),
    ("shape_ops", "clone", "a = T([0.5, 1.5, 2.5])", "a.clone()"),
    ("shape_ops", "torch.clone", "a = T([0.5, 1.5, 2.5])", "torch.clone(a)"),
    ("shape_ops", "detach", "a = T([0.5, 1.5, 2.5])", "a.detach()"),
    ("shape_ops", "flip", "a = T([0.5, 1.5, 2.5])", "a.flip(0)"),
    # --- indexing (REFERENCE.md §1) ---
    ("indexing", "x[0] (1D -> 0-dim)", "x = T([1.0, 2.0, 3.0, 4.0])", "x[0]"),
    ("indexing", "x[-1]", "x = T([1.0, 2.0, 3.0, 4.0])", "x[-1]"),
    ("indexing", "x[0] (2D -> row)", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[0]"),
    ("indexing", "x[0, 1]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[0, 1]"),
    ("indexing", "x[:, 1]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[:, 1]"),
    ("indexing", "x[1:3]", "x = T([1.0, 2.0, 3.0, 4.0])", "x[1:3]"),
    ("indexing", "x[::2]", "x = T([1.0, 2.0, 3.0, 4.0])", "x[::2]"),
    ("indexing", "x[:] (full slice)", "x = T([1.0, 2.0, 3.0, 4.0])", "x[:]"),
    ("indexing", "x[1:] (2D)", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[1:]"),
    ("indexing", "x[[0,2]]", "x = T([1.0, 2.0, 3.0, 4.0])", "x[[0, 2]]"),
    ("indexing", "x[[0,0,2]] (repeated index)", "x = T([1.0, 2.0, 3.0, 4.0])", "x[[0, 0, 2]]"),
    ("indexing", "x[idx tensor]", "x = T([1.0, 2.0, 3.0, 4.0]); idx = C([3, 1])", "x[idx]"),
    ("indexing", "x[mask]", "x = T([1.0, 2.0, 3.0, 4.0]); mask = C([True, False, True, False])", "x[mask]"),
    ("indexing", "x[x > 2] (mask from x)", "x = T([1.0, 2.0, 3.0, 4.0])", "x[x > 2]"),
    ("indexing", "x[None]", "x = T([1.0, 2.0, 3.0])", "x[None]"),
    ("indexing", "x[..., None]", "x = T([1.0, 2.0, 3.0])", "x[..., None]"),
    ("indexing", "x[0][1] (chained)", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[0][1]"),
    # not in diffcli's op table: 'torch.gather': torch.gather(x, 1, idx)
    # not in diffcli's op table: 'index_select': x.index_select(0, idx)
    # --- where_and_masking (REFERENCE.md §1) ---
    (
        "where_and_masking",
        "torch.where(cond, a, b)",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0]); cond = C([True, False, True])",
        "torch.where(cond, a, b)",
    ),
    (
        "where_and_masking",
        "a.where(cond, b) (method)",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0]); cond = C([True, False, True])",
        "a.where(cond, b)",
    ),
    (
        "where_and_masking",
        "torch.where(cond, a, 0.0) scalar other",
        "a = T([0.5, 1.5, 2.5]); cond = C([True, False, True])",
        "torch.where(cond, a, 0.0)",
    ),
    (
        "where_and_masking",
        "torch.where(cond, a, c) constant c",
        "a = T([0.5, 1.5, 2.5]); cond = C([True, False, True]); c = C([9.0, 9.0, 9.0])",
        "torch.where(cond, a, c)",
    ),
    ("where_and_masking", "torch.where(a > 1, a, -a)", "a = T([0.5, 1.5, 2.5])", "torch.where(a > 1, a, -a)"),
    # not in diffcli's op table: 'masked_fill': a.masked_fill(mask, 0.0)
    # --- inplace_on_nonleaf (REFERENCE.md §1) ---
    ("inplace_on_nonleaf", "y = a*2; y.exp_()", "a = T([0.5, 1.5, 2.5]); y = a * 2", "y.exp_()"),
    ("inplace_on_nonleaf", "y = a*2; y.add_(1)", "a = T([0.5, 1.5, 2.5]); y = a * 2", "y.add_(1)"),
    (
        "inplace_on_nonleaf",
        "y = a*2; y.add_(b)",
        "a = T([0.5, 1.5, 2.5]); b = T([1.0, 2.0, 3.0]); y = a * 2",
        "y.add_(b)",
    ),
    ("inplace_on_nonleaf", "y = a*2; y.mul_(3)", "a = T([0.5, 1.5, 2.5]); y = a * 2", "y.mul_(3)"),
    ("inplace_on_nonleaf", "y = a*2; y += 1", "a = T([0.5, 1.5, 2.5]); y = a * 2; y += 1", "y"),
    ("inplace_on_nonleaf", "y = a*2; y.relu_()", "a = T([-0.5, 1.5, 2.5]); y = a * 2", "y.relu_()"),
    ("inplace_on_nonleaf", "y = a*2; y.sigmoid_()", "a = T([-0.5, 1.5, 2.5]); y = a * 2", "y.sigmoid_()"),
    ("inplace_on_nonleaf", "y = a.clone(); y.exp_()", "a = T([0.5, 1.5, 2.5]); y = a.clone()", "y.exp_()"),
    (
        "inplace_on_nonleaf",
        "y = a*2; y[0] = 0 (setitem)",
        "a = T([0.5, 1.5, 2.5]); y = a * 2; y[0] = 0.0",
        "y",
    ),
    (
        "inplace_on_nonleaf",
        "y = a*2; y[1:] = b (setitem with grad source)",
        "a = T([0.5, 1.5, 2.5]); b = T([7.0, 8.0]); y = a * 2; y[1:] = b",
        "y",
    ),
    ("inplace_on_nonleaf", "y = a*2; y.zero_()", "a = T([0.5, 1.5, 2.5]); y = a * 2", "y.zero_()"),
    (
        "inplace_on_nonleaf",
        "y = a*2; y[1:].mul_(10) (in-place on a view)",
        "a = T([0.5, 1.5, 2.5]); y = a * 2; v = y[1:]; v.mul_(10)",
        "y",
    ),
    # --- losses (REFERENCE.md §1) ---
    ("losses", "mse_loss", "a = T([1.0, 2.0, 3.0]); t = C([1.5, 1.0, 3.5])", "F.mse_loss(a, t)"),
    (
        "losses",
        "mse_loss(reduction='sum')",
        "a = T([1.0, 2.0, 3.0]); t = C([1.5, 1.0, 3.5])",
        "F.mse_loss(a, t, reduction='sum')",
    ),
    (
        "losses",
        "mse_loss(reduction='none')",
        "a = T([1.0, 2.0, 3.0]); t = C([1.5, 1.0, 3.5])",
        "F.mse_loss(a, t, reduction='none')",
    ),
    (
        "losses",
        "mse_loss target requires grad",
        "a = T([1.0, 2.0, 3.0]); t = T([1.5, 1.0, 3.5])",
        "F.mse_loss(a, t)",
    ),
    (
        "losses",
        "binary_cross_entropy",
        "p = T([0.2, 0.7, 0.9]); t = C([0.0, 1.0, 1.0])",
        "F.binary_cross_entropy(p, t)",
    ),
    (
        "losses",
        "binary_cross_entropy(sigmoid(z))",
        "z = T([-1.0, 0.5, 2.0]); t = C([0.0, 1.0, 1.0])",
        "F.binary_cross_entropy(torch.sigmoid(z), t)",
    ),
    # not in diffcli's op table: 'binary_cross_entropy_with_logits': F.binary_cross_entropy_with_logits(z, t)
    (
        "losses",
        "cross_entropy (class indices)",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([1, 2])",
        "F.cross_entropy(z, t)",
    ),
    (
        "losses",
        "cross_entropy(reduction='sum')",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([1, 2])",
        "F.cross_entropy(z, t, reduction='sum')",
    ),
    (
        "losses",
        "cross_entropy(reduction='none')",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([1, 2])",
        "F.cross_entropy(z, t, reduction='none')",
    ),
    (
        "losses",
        "cross_entropy 1D logits, 0-dim target",
        "z = T([1.0, 2.0, 0.5]); t = C(1)",
        "F.cross_entropy(z, t)",
    ),
    (
        "losses",
        "cross_entropy (probability targets)",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([[0.2, 0.8, 0.0], [0.0, 0.5, 0.5]])",
        "F.cross_entropy(z, t)",
    ),
    (
        "losses",
        "nll_loss(log_softmax)",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([1, 2])",
        "F.nll_loss(F.log_softmax(z, dim=1), t)",
    ),
    # not in diffcli's op table: 'l1_loss': F.l1_loss(a, t)
    # not in diffcli's op table: 'smooth_l1_loss': F.smooth_l1_loss(a, t)
    # --- broadcasting (REFERENCE.md §1) ---
    (
        "broadcasting",
        "(3,1)+(1,4)",
        "a = T([[1.0], [2.0], [3.0]]); b = T([[10.0, 20.0, 30.0, 40.0]])",
        "a + b",
    ),
    (
        "broadcasting",
        "(3,1)*(1,4)",
        "a = T([[1.0], [2.0], [3.0]]); b = T([[10.0, 20.0, 30.0, 40.0]])",
        "a * b",
    ),
    (
        "broadcasting",
        "(2,3)+(3,)",
        "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = T([0.5, -1.0, 2.0])",
        "a + b",
    ),
    ("broadcasting", "(2,3)*(1,)", "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = T([2.0])", "a * b"),
    ("broadcasting", "(2,3)-() 0-dim", "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); b = T(2.0)", "a - b"),
    (
        "broadcasting",
        "(3,)/(2,1,3)",
        "a = T([1.0, 2.0, 3.0]); b = T([[[1.0, 2.0, 4.0]], [[0.5, 1.0, 2.0]]])",
        "a / b",
    ),
    # --- dtype_and_conversion (REFERENCE.md §1) ---
    (
        "dtype_and_conversion",
        "float64 a*b",
        "a = T([1.5, 2.0], dtype=torch.float64); b = T([0.5, -1.0], dtype=torch.float64)",
        "a * b",
    ),
    (
        "dtype_and_conversion",
        "float32 * float64 (promotion)",
        "a = T([1.5, 2.0]); b = T([0.5, -1.0], dtype=torch.float64)",
        "a * b",
    ),
    ("dtype_and_conversion", "float32 leaf * int64 constant", "a = T([1.5, 2.0]); k = C([2, 3])", "a * k"),
    ("dtype_and_conversion", "a.double()", "a = T([0.5, 1.5, 2.5])", "a.double()"),
    ("dtype_and_conversion", "erf of an int tensor", "c = C([1, 2])", "torch.erf(c)"),
    ("dtype_and_conversion", "sinc of a bool tensor", "c = C([True, False])", "torch.sinc(c)"),
    (
        "dtype_and_conversion",
        "hypot float32 with float64",
        "a = T([1.5, 2.0], dtype=torch.float32); b = T([0.5, -1.0])",
        "torch.hypot(a, b)",
    ),
    ("dtype_and_conversion", "a.to(torch.float64)", "a = T([0.5, 1.5, 2.5])", "a.to(torch.float64)"),
    ("dtype_and_conversion", "a.float() on float32 (returns self)", "a = T([0.5, 1.5, 2.5])", "a.float()"),
    ("dtype_and_conversion", "a.long() (non-differentiable)", "a = T([0.5, 1.5, 2.5])", "a.long()"),
    ("dtype_and_conversion", "a > 1 (comparison)", "a = T([0.5, 1.5, 2.5])", "a > 1"),
    # not in diffcli's op table: 'a.argmax()': a.argmax()
    # --- edge_point_gradients (REFERENCE.md §1) ---
    ("edge_point_gradients", "abs at 0", "a = T([-1.0, 0.0, 2.0])", "a.abs()"),
    ("edge_point_gradients", "abs at -0.0", "a = T([-0.0, 0.0])", "a.abs()"),
    ("edge_point_gradients", "relu at 0", "a = T([-1.0, 0.0, 2.0])", "torch.relu(a)"),
    ("edge_point_gradients", "leaky_relu at 0", "a = T([-1.0, 0.0, 2.0])", "F.leaky_relu(a, 0.1)"),
    ("edge_point_gradients", "elu at 0", "a = T([-1.0, 0.0, 2.0])", "F.elu(a)"),
    ("edge_point_gradients", "sign (zero grad)", "a = T([-1.0, 0.0, 2.0])", "a.sign()"),
    ("edge_point_gradients", "round half-to-even values", "a = T([0.5, 1.5, 2.5, -0.5])", "a.round()"),
    ("edge_point_gradients", "floor (zero grad)", "a = T([-1.5, 0.0, 2.7])", "a.floor()"),
    (
        "edge_point_gradients",
        "clamp at boundaries",
        "a = T([-2.0, -1.0, 0.0, 1.0, 2.0])",
        "a.clamp(-1.0, 1.0)",
    ),
    ("edge_point_gradients", "clamp(min=0) at 0", "a = T([-1.0, 0.0, 1.0])", "a.clamp(min=0.0)"),
    ("edge_point_gradients", "clamp min>max", "a = T([-1.0, 0.0, 3.0])", "a.clamp(min=2.0, max=1.0)"),
    (
        "edge_point_gradients",
        "maximum tie",
        "a = T([1.0, 2.0, 3.0]); b = T([1.0, 1.0, 4.0])",
        "torch.maximum(a, b)",
    ),
    (
        "edge_point_gradients",
        "minimum tie",
        "a = T([1.0, 2.0, 3.0]); b = T([1.0, 1.0, 4.0])",
        "torch.minimum(a, b)",
    ),
    ("edge_point_gradients", "max() full reduction ties", "a = T([1.0, 3.0, 3.0])", "a.max()"),
    ("edge_point_gradients", "min() full reduction ties", "a = T([1.0, 1.0, 3.0])", "a.min()"),
    ("edge_point_gradients", "amax ties", "a = T([1.0, 3.0, 3.0])", "a.amax()"),
    (
        "edge_point_gradients",
        "max(dim) ties",
        "a = T([[1.0, 3.0, 3.0], [5.0, 5.0, 5.0]])",
        "a.max(dim=1).values",
    ),
    # not in diffcli's op table: 'topk(2)': a.topk(2).values
    ("edge_point_gradients", "sqrt at 0", "a = T([0.0, 1.0])", "a.sqrt()"),
    ("edge_point_gradients", "a**0.5 at 0", "a = T([0.0, 1.0])", "a ** 0.5"),
    ("edge_point_gradients", "a**2 at 0", "a = T([0.0, 1.0])", "a ** 2"),
    ("edge_point_gradients", "a**0 (exponent zero)", "a = T([0.0, 2.0])", "a ** 0"),
    (
        "edge_point_gradients",
        "0**b and a**b at a=0",
        "a = T([0.0, 0.0, 2.0]); b = T([2.0, 0.0, 3.0])",
        "a ** b",
    ),
    ("edge_point_gradients", "2**a base scalar", "a = T([0.0, 1.0])", "2 ** a"),
    ("edge_point_gradients", "(-8)**(1/3) base negative", "a = T([-8.0])", "a ** (1.0 / 3.0)"),
    ("edge_point_gradients", "log at 0", "a = T([0.0, 1.0])", "a.log()"),
    ("edge_point_gradients", "1/a at 0", "a = T([0.0, 2.0])", "1 / a"),
    ("edge_point_gradients", "norm of zero vector", "a = T([0.0, 0.0, 0.0])", "a.norm()"),
    ("edge_point_gradients", "std of one element", "a = T([3.0])", "a.std()"),
    ("edge_point_gradients", "var of one element", "a = T([3.0])", "a.var()"),
    ("edge_point_gradients", "prod with one zero", "a = T([2.0, 0.0, 3.0])", "a.prod()"),
    ("edge_point_gradients", "prod with two zeros", "a = T([2.0, 0.0, 0.0])", "a.prod()"),
    (
        "edge_point_gradients",
        "where hides nan? torch.where(a>0, a.log(), 0)",
        "a = T([-1.0, 0.0, 2.0])",
        "torch.where(a > 0, a.log(), 0.0)",
    ),
    (
        "edge_point_gradients",
        "where hides inf? torch.where(a>0, a.sqrt(), 0)",
        "a = T([-1.0, 0.0, 4.0])",
        "torch.where(a > 0, a.sqrt(), 0.0)",
    ),
    ("edge_point_gradients", "sigmoid saturated", "a = T([-100.0, 0.0, 100.0])", "torch.sigmoid(a)"),
    ("edge_point_gradients", "softplus above threshold", "a = T([-30.0, 0.0, 30.0])", "F.softplus(a)"),
    ("edge_point_gradients", "atan2 at (0,0)", "a = T([0.0]); b = T([0.0])", "torch.atan2(a, b)"),
    ("edge_point_gradients", "asin at 1", "a = T([1.0, 0.0])", "torch.asin(a)"),
    (
        "edge_point_gradients",
        "x[[0,0,2]] repeated index accumulates",
        "a = T([1.0, 2.0, 3.0])",
        "a[[0, 0, 2]]",
    ),
    (
        "edge_point_gradients",
        "log_softmax extreme",
        "a = T([1000.0, 0.0, -1000.0])",
        "torch.log_softmax(a, dim=0)",
    ),
    (
        "edge_point_gradients",
        "logsumexp with -inf",
        "a = T([float('-inf'), 0.0, 1.0])",
        "torch.logsumexp(a, dim=0)",
    ),
    ("edge_point_gradients", "gelu at 0", "a = T([0.0])", "F.gelu(a)"),
    # --- more arithmetic: every binary op of the table, scalar/tensor operand mixes ---
    ("more_arithmetic", "torch.sub(a, 2)", "a = T([0.5, 1.5, 2.5])", "torch.sub(a, 2)"),
    ("more_arithmetic", "torch.rsub(a, 2)", "a = T([0.5, 1.5, 2.5])", "torch.rsub(a, 2)"),
    (
        "more_arithmetic",
        "torch.rsub(a, b)",
        "a = T([1.5, 2.0, 3.0]); b = T([0.5, -1.0, 4.0])",
        "torch.rsub(a, b)",
    ),
    (
        "more_arithmetic",
        "torch.add(a, b, alpha=0.5) broadcast",
        "a = T([[1.5, 2.0, 3.0], [0.25, -0.5, 1.0]]); b = T([0.5, -1.0, 4.0])",
        "torch.add(a, b, alpha=0.5)",
    ),
    ("more_arithmetic", "a - 0-dim constant", "a = T([1.5, 2.0, 3.0]); c = C(2.0)", "a - c"),
    ("more_arithmetic", "0-dim constant - a", "a = T([1.5, 2.0, 3.0]); c = C(2.0)", "c - a"),
    ("more_arithmetic", "0-dim constant / a", "a = T([1.5, 2.0, 3.0]); c = C(2.0)", "c / a"),
    (
        "more_arithmetic",
        "a / b broadcast (2,3)/(3,1)",
        "a = T([[1.5, 2.0, 3.0], [0.25, -0.5, 1.0]]); b = T([[0.5], [-1.0]])",
        "a / b",
    ),
    (
        "more_arithmetic",
        "a * b (3,1)*(1,4) one constant",
        "a = T([[1.0], [2.0], [3.0]]); b = C([[1.0, -2.0, 0.5, 3.0]])",
        "a * b",
    ),
    ("more_arithmetic", "a ** 2.5", "a = T([0.5, 1.5, 2.5])", "a ** 2.5"),
    (
        "more_arithmetic",
        "a ** c (constant tensor exponent)",
        "a = T([0.5, 1.5, 2.5]); c = C([2.0, 0.5, -1.0])",
        "a ** c",
    ),
    (
        "more_arithmetic",
        "c ** a (constant tensor base)",
        "a = T([0.5, 1.5, 2.5]); c = C([2.0, 0.5, 3.0])",
        "c ** a",
    ),
    ("more_arithmetic", "torch.pow(2.5, a) float base", "a = T([0.5, 1.5, 2.5])", "torch.pow(2.5, a)"),
    ("more_arithmetic", "a.square() 2D", "a = T([[1.5, -2.0, 3.0], [0.25, -0.5, 1.0]])", "a.square()"),
    (
        "more_arithmetic",
        "maximum broadcast with constant",
        "a = T([[1.5, -2.0, 3.0], [0.25, -0.5, 1.0]]); c = C(0.5)",
        "torch.maximum(a, c)",
    ),
    (
        "more_arithmetic",
        "minimum broadcast (2,3),(3,)",
        "a = T([[1.5, -2.0, 3.0], [0.25, -0.5, 1.0]]); b = T([0.5, 0.0, 2.0])",
        "torch.minimum(a, b)",
    ),
    (
        "more_arithmetic",
        "atan2 broadcast with constant",
        "a = T([[1.5, -2.0, 3.0], [0.25, -0.5, 1.0]]); c = C(1.0)",
        "torch.atan2(a, c)",
    ),
    ("more_arithmetic", "clamp_max", "a = T([-1.5, 0.5, 2.5])", "a.clamp_max(0.5)"),
    (
        "more_arithmetic",
        "clamp(min=tensor) only",
        "a = T([-1.5, 0.5, 2.5]); lo = C([-1.0, 1.0, 0.0])",
        "torch.clamp(a, min=lo)",
    ),
    (
        "more_arithmetic",
        "where with 0-dim constant other",
        "a = T([-1.5, 0.5, 2.5]); c = C(0.0)",
        "torch.where(a > 0, a, c)",
    ),
    (
        "more_arithmetic",
        "where both branches require grad, broadcast",
        "a = T([[1.5, -2.0, 3.0], [0.25, -0.5, 1.0]]); b = T([0.5, 0.0, 2.0])",
        "torch.where(a > b, a, b)",
    ),
    ("more_arithmetic", "polynomial 0.5*x^2 - 1", "x = T([0.5, 1.5, 2.5])", "0.5 * x ** 2 - 1"),
    (
        "more_arithmetic",
        "sin((0.5*y^2-1)/2-0.1)",
        "a = T(1.5); b = T(0.5); w = T(2.0)",
        "torch.sin((0.5 * ((a + b) * w) ** 2 - 1) / 2 - 0.1)",
    ),
    # --- more unary ---
    ("more_unary", "round(decimals=1)", "a = T([-1.25, 0.55, 2.45])", "torch.round(a, decimals=1)"),
    ("more_unary", "F.elu(alpha=0.5)", "a = T([-1.5, 0.5, 2.5])", "F.elu(a, alpha=0.5)"),
    (
        "more_unary",
        "F.softplus(beta=2, threshold=1)",
        "a = T([-1.5, 0.25, 2.5])",
        "F.softplus(a, beta=2, threshold=1)",
    ),
    ("more_unary", "reciprocal 2D", "a = T([[1.5, -2.0, 3.0], [0.25, -0.5, 1.0]])", "torch.reciprocal(a)"),
    ("more_unary", "rsqrt 0-dim", "a = T(2.5)", "a.rsqrt()"),
    ("more_unary", "exp 0-dim", "a = T(0.75)", "torch.exp(a)"),
    ("more_unary", "chain exp(sin(a))", "a = T([-1.5, 0.5, 2.5])", "a.sin().exp()"),
    # --- more reductions: dim / keepdim variants ---
    (
        "more_reductions",
        "sum(dim=-1, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.sum(-1, keepdim=True)",
    ),
    (
        "more_reductions",
        "sum(dim=()) (empty dim list)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.sum(a, dim=())",
    ),
    (
        "more_reductions",
        "sum 3D dims (0,2)",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]])",
        "a.sum(dim=(0, 2))",
    ),
    ("more_reductions", "sum 0-dim", "a = T(2.5)", "a.sum()"),
    (
        "more_reductions",
        "mean(dim=(0,1), keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.mean(dim=(0, 1), keepdim=True)",
    ),
    ("more_reductions", "mean(-1)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "torch.mean(a, -1)"),
    (
        "more_reductions",
        "prod(dim=0, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.prod(0, keepdim=True)",
    ),
    ("more_reductions", "prod 1D", "a = T([1.5, -2.0, 0.5, 3.0])", "torch.prod(a)"),
    (
        "more_reductions",
        "max(dim=0, keepdim=True).values",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.max(0, keepdim=True).values",
    ),
    (
        "more_reductions",
        "min(dim=1).values",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.min(a, 1).values",
    ),
    ("more_reductions", "min(dim=-1)[0] 1D", "a = T([1.0, -2.0, 3.0])", "a.min(-1)[0]"),
    (
        "more_reductions",
        "amax(dim=(0,1))",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.amax(a, dim=(0, 1))",
    ),
    (
        "more_reductions",
        "amax(dim=0, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.amax(0, keepdim=True)",
    ),
    (
        "more_reductions",
        "var(dim=0, unbiased=False)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.var(0, unbiased=False)",
    ),
    (
        "more_reductions",
        "var(dim=1, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.var(a, 1, keepdim=True)",
    ),
    (
        "more_reductions",
        "std(unbiased=False)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.std(unbiased=False)",
    ),
    (
        "more_reductions",
        "std(dim=1, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.std(dim=1, keepdim=True)",
    ),
    ("more_reductions", "std(correction=2)", "a = T([1.0, -2.0, 3.0, 0.5, 4.0])", "a.std(correction=2)"),
    ("more_reductions", "norm(p=3)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.norm(p=3)"),
    (
        "more_reductions",
        "norm(p=inf)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.norm(p=float('inf'))",
    ),
    (
        "more_reductions",
        "norm(p=1, dim=0)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.norm(a, p=1, dim=0)",
    ),
    (
        "more_reductions",
        "norm(dim=1, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.norm(dim=1, keepdim=True)",
    ),
    (
        "more_reductions",
        "logsumexp(dim=1, keepdim=True)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.logsumexp(a, 1, keepdim=True)",
    ),
    ("more_reductions", "logsumexp 1D", "a = T([1.0, -2.0, 3.0])", "a.logsumexp(0)"),
    (
        "more_reductions",
        "softmax(dim=0)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.softmax(a, dim=0)",
    ),
    ("more_reductions", "softmax 1D", "a = T([1.0, -2.0, 3.0])", "F.softmax(a, dim=-1)"),
    (
        "more_reductions",
        "log_softmax(dim=-1) 3D",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]])",
        "F.log_softmax(a, dim=-1)",
    ),
    ("more_reductions", "cumsum 1D", "a = T([1.0, -2.0, 3.0])", "a.cumsum(0)"),
    (
        "more_reductions",
        "cumsum(dim=-1)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.cumsum(a, -1)",
    ),
    # --- matmul over all rank combinations ---
    ("matmul_ranks", "1D@1D", "a = T([1.0, 2.0, -0.5]); b = T([0.5, -1.0, 2.0])", "a @ b"),
    (
        "matmul_ranks",
        "2D@1D",
        "a = T([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]]); b = T([0.5, -1.0, 2.0])",
        "torch.matmul(a, b)",
    ),
    (
        "matmul_ranks",
        "1D@2D",
        "a = T([1.0, -2.0]); b = T([[1.0, 2.0, 3.0], [4.0, 5.0, -6.0]])",
        "torch.matmul(a, b)",
    ),
    (
        "matmul_ranks",
        "2D@2D",
        "a = T([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]]); b = T([[0.5, -1.0], [1.5, 2.0], [-0.5, 1.0]])",
        "a @ b",
    ),
    (
        "matmul_ranks",
        "3D@3D",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "a @ b",
    ),
    (
        "matmul_ranks",
        "3D@2D",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])",
        "a @ b",
    ),
    (
        "matmul_ranks",
        "2D@3D",
        "a = T([[1.0, 2.0], [3.0, -4.0]]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "a @ b",
    ),
    (
        "matmul_ranks",
        "3D@1D",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([1.0, -1.5])",
        "a @ b",
    ),
    (
        "matmul_ranks",
        "1D@3D",
        "a = T([1.0, -1.5]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "a @ b",
    ),
    (
        "matmul_ranks",
        "3D@2D constant matrix",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); c = C([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])",
        "a @ c",
    ),
    (
        "matmul_ranks",
        "3D constant @ 2D",
        "c = C([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])",
        "c @ b",
    ),
    (
        "matmul_ranks",
        "2D constant @ 3D",
        "c = C([[1.0, 2.0], [3.0, -4.0]]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "c @ b",
    ),
    (
        "matmul_ranks",
        "1D constant @ 3D",
        "c = C([1.0, -1.5]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "c @ b",
    ),
    (
        "matmul_ranks",
        "3D(batch 1)@3D",
        "a = T([[[1.0, 2.0], [3.0, 4.0]]]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]], [[2.0, 1.0, 0.0], [1.0, -1.0, 1.0]]])",
        "a @ b",
    ),
    (
        "matmul_ranks",
        "3D@3D(batch 1)",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); b = T([[[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]]])",
        "a @ b",
    ),
    (
        "matmul_ranks",
        "mm",
        "a = T([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]]); b = T([[0.5, -1.0], [1.5, 2.0], [-0.5, 1.0]])",
        "a.mm(b)",
    ),
    ("matmul_ranks", "mv", "a = T([[1.0, 2.0, 3.0], [4.0, -5.0, 6.0]]); b = T([0.5, -1.0, 2.0])", "a.mv(b)"),
    ("matmul_ranks", "dot method", "a = T([1.0, 2.0, -0.5]); b = T([0.5, -1.0, 2.0])", "a.dot(b)"),
    ("matmul_ranks", "outer constant", "a = T([1.0, 2.0, -0.5]); c = C([0.5, -1.0])", "torch.outer(a, c)"),
    (
        "matmul_ranks",
        "bmm one constant",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]]); c = C([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 1.0], [1.0, -1.0]]])",
        "torch.bmm(a, c)",
    ),
    (
        "matmul_ranks",
        "x @ W.T",
        "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); W = T([[0.5, -1.0, 1.0], [1.5, 2.0, 0.0]])",
        "x @ W.T",
    ),
    # --- more shape ops ---
    (
        "more_shape",
        "reshape non-contiguous but viewable",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.t().reshape(3, 1, 2)",
    ),
    (
        "more_shape",
        "reshape of an expand (viewable)",
        "a = T([[1.0, -2.0, 3.0]])",
        "a.expand(2, 3).reshape(2, 1, 3)",
    ),
    ("more_shape", "reshape of an expand (copy)", "a = T([[1.0, -2.0, 3.0]])", "a.expand(2, 3).reshape(6)"),
    (
        "more_shape",
        "reshape of a step slice (copy)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a[:, ::2].reshape(4)",
    ),
    (
        "more_shape",
        "view of a transpose (same shape)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.t().view(3, 2)",
    ),
    ("more_shape", "reshape 0-dim to (1,)", "a = T(2.5)", "a.reshape(1)"),
    ("more_shape", "reshape (1,) to 0-dim", "a = T([2.5])", "a.reshape(())"),
    (
        "more_shape",
        "flatten(0, 1) 3D",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]])",
        "a.flatten(0, 1)",
    ),
    ("more_shape", "flatten 0-dim", "a = T(2.5)", "torch.flatten(a)"),
    ("more_shape", "squeeze(1)", "a = T([[1.0], [2.0], [3.0]])", "a.squeeze(1)"),
    (
        "more_shape",
        "squeeze(0) no-op on size 2",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.squeeze(0)",
    ),
    ("more_shape", "unsqueeze 0-dim", "a = T(2.5)", "torch.unsqueeze(a, 0)"),
    (
        "more_shape",
        "transpose 3D (0, 2)",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]])",
        "a.transpose(0, 2)",
    ),
    (
        "more_shape",
        "transpose(-1, -2)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.transpose(a, -1, -2)",
    ),
    ("more_shape", "t() of 1D", "a = T([1.0, -2.0, 3.0])", "a.t()"),
    ("more_shape", "t().t()", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.t().t()"),
    (
        "more_shape",
        "permute(-1, 0, 1)",
        "a = T([[[1.0, 2.0], [3.0, 4.0]], [[0.5, -1.0], [2.0, 0.0]]])",
        "torch.permute(a, (-1, 0, 1))",
    ),
    ("more_shape", "expand(-1, 3)", "a = T([[1.0], [2.0]])", "a.expand(-1, 3)"),
    ("more_shape", "expand new leading dim", "a = T([1.0, -2.0, 3.0])", "a.expand(2, 2, 3)"),
    ("more_shape", "repeat 1D to 2D", "a = T([1.0, -2.0, 3.0])", "a.repeat(2, 2)"),
    (
        "more_shape",
        "cat three, dim=-1",
        "a = T([[1.0], [2.0]]); b = T([[0.5, -1.0], [2.0, 0.0]]); c = C([[3.0], [4.0]])",
        "torch.cat([a, b, c], dim=-1)",
    ),
    (
        "more_shape",
        "stack dim=-1 2D",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]); b = T([[0.5, 1.0, -1.0], [2.0, 0.0, 1.5]])",
        "torch.stack([a, b], dim=-1)",
    ),
    ("more_shape", "stack 0-dim", "a = T(1.5); b = T(-2.0)", "torch.stack([a, b])"),
    ("more_shape", "flip(0, 1)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.flip(0, 1)"),
    (
        "more_shape",
        "view_as",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]); c = C([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])",
        "a.view_as(c)",
    ),
    (
        "more_shape",
        "reshape_as",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]); c = C([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])",
        "a.reshape_as(c)",
    ),
    (
        "more_shape",
        "expand_as then sum",
        "a = T([1.0, -2.0, 3.0]); c = C([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])",
        "a.expand_as(c).sum()",
    ),
    ("more_shape", "select(1, 0)", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "torch.select(a, 1, 0)"),
    ("more_shape", "clone 0-dim", "a = T(2.5)", "a.clone()"),
    # --- more indexing: int, slice, step slice, list with repeats, mask, None, ellipsis ---
    (
        "more_indexing",
        "x[0:2, 1] (full slice skipped)",
        "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])",
        "x[0:2, 1]",
    ),
    (
        "more_indexing",
        "x[0:5] (single full slice kept)",
        "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])",
        "x[0:5]",
    ),
    ("more_indexing", "x[...] (alias)", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[...]"),
    ("more_indexing", "x[:, :] (alias)", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[:, :]"),
    ("more_indexing", "x[..., 1]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[..., 1]"),
    ("more_indexing", "x[:, None, 1]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[:, None, 1]"),
    ("more_indexing", "x[None, ..., 0]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[None, ..., 0]"),
    ("more_indexing", "x[1, ::2]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[1, ::2]"),
    ("more_indexing", "x[-1, -2:]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[-1, -2:]"),
    ("more_indexing", "x[1::2] 1D", "x = T([1.0, 2.0, 3.0, 4.0, 5.0])", "x[1::2]"),
    ("more_indexing", "x[[1, 1, 0]] 2D rows", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[[1, 1, 0]]"),
    ("more_indexing", "x[:, [0, 2, 0]]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[:, [0, 2, 0]]"),
    ("more_indexing", "x[[0, 1], [2, 0]]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[[0, 1], [2, 0]]"),
    (
        "more_indexing",
        "x[mask 2D]",
        "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); m = C([[True, False, True], [False, True, True]])",
        "x[m]",
    ),
    (
        "more_indexing",
        "x[row mask]",
        "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]); m = C([False, True])",
        "x[m]",
    ),
    ("more_indexing", "x[idx 2D tensor]", "x = T([1.0, 2.0, 3.0, 4.0]); i = C([[0, 3], [3, 3]])", "x[i]"),
    ("more_indexing", "x[0][None]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[0][None]"),
    ("more_indexing", "x[1:][0]", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[1:][0]"),
    # --- more losses ---
    (
        "more_losses",
        "mse_loss 2D",
        "a = T([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]); t = C([[1.5, 1.0, 3.5], [0.0, 0.0, 0.0]])",
        "F.mse_loss(a, t)",
    ),
    (
        "more_losses",
        "binary_cross_entropy sum",
        "p = T([0.2, 0.7, 0.9]); t = C([0.0, 1.0, 0.5])",
        "F.binary_cross_entropy(p, t, reduction='sum')",
    ),
    (
        "more_losses",
        "binary_cross_entropy none",
        "p = T([0.2, 0.7, 0.9]); t = C([0.0, 1.0, 0.5])",
        "F.binary_cross_entropy(p, t, reduction='none')",
    ),
    (
        "more_losses",
        "binary_cross_entropy weight",
        "p = T([0.2, 0.7, 0.9]); t = C([0.0, 1.0, 0.5]); w = C([1.0, 2.0, 0.5])",
        "F.binary_cross_entropy(p, t, weight=w)",
    ),
    (
        "more_losses",
        "cross_entropy prob targets sum",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([[0.2, 0.8, 0.0], [0.0, 0.5, 0.5]])",
        "F.cross_entropy(z, t, reduction='sum')",
    ),
    (
        "more_losses",
        "cross_entropy prob targets none",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([[0.2, 0.8, 0.0], [0.0, 0.5, 0.5]])",
        "F.cross_entropy(z, t, reduction='none')",
    ),
    (
        "more_losses",
        "cross_entropy prob targets 1D",
        "z = T([1.0, 2.0, 0.5]); t = C([0.2, 0.8, 0.0])",
        "F.cross_entropy(z, t)",
    ),
    (
        "more_losses",
        "cross_entropy label_smoothing",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([1, 2])",
        "F.cross_entropy(z, t, label_smoothing=0.1)",
    ),
    (
        "more_losses",
        "nll_loss ignore_index",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [0.5, 0.5, -2.0]]); t = C([0, -100, 2])",
        "F.nll_loss(z, t)",
    ),
    (
        "more_losses",
        "nll_loss 1D input, 0-dim target",
        "z = T([1.0, 2.0, 0.5]); t = C(1)",
        "F.nll_loss(z, t)",
    ),
    (
        "more_losses",
        "nll_loss none",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([2, 0])",
        "F.nll_loss(z, t, reduction='none')",
    ),
    (
        "more_losses",
        "nll_loss sum",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([2, 0])",
        "F.nll_loss(z, t, reduction='sum')",
    ),
    # --- conversions ---
    ("conversion", "to(float32)", "a = T([0.5, 1.5, 2.5])", "a.to(torch.float32)"),
    ("conversion", "float().double()", "a = T([0.5, 1.5, 2.5])", "a.float().double()"),
    ("conversion", "double() on float64 (returns self)", "a = T([0.5, 1.5, 2.5])", "a.double()"),
    (
        "conversion",
        "float32 leaf * float64 leaf",
        "a = T([1.5, 2.0], dtype=torch.float32); b = T([0.5, -1.0])",
        "a * b",
    ),
    ("conversion", "type_as", "a = T([0.5, 1.5, 2.5]); c = C([1.0], dtype=torch.float32)", "a.type_as(c)"),
    ("conversion", "int constant * float leaf", "a = T([0.5, 1.5, 2.5]); k = C([2, 3, -1])", "k * a"),
    ("conversion", "detach", "a = T([0.5, 1.5, 2.5])", "torch.detach(a)"),
    ("conversion", "comparison", "a = T([0.5, 1.5, 2.5])", "a >= 1.5"),
    # --- regressions: behaviours that once differed from PyTorch ---
    ("regressions", "norm(p=0): .grad stays None", "a = T([[1.0, 0.0, 3.0], [0.5, 4.0, 0.0]])", "a.norm(0)"),
    (
        "regressions",
        "softmax(dtype=float32)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.softmax(a, dim=1, dtype=torch.float32)",
    ),
    (
        "regressions",
        "log_softmax(dtype=float32)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "F.log_softmax(a, 0, dtype=torch.float32)",
    ),
    (
        "regressions",
        "cumsum(dtype=float32)",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "torch.cumsum(a, 1, dtype=torch.float32)",
    ),
    (
        "regressions",
        "contiguous() then view",
        "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])",
        "a.t().contiguous().view(6)",
    ),
    ("regressions", "x[-2:, 1] keeps its slice", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[-2:, 1]"),
    ("regressions", "x[0:5, 1] skips its slice", "x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "x[0:5, 1]"),
    ("regressions", "int ** negative int tensor", "c = C([1, 2, -3, 0]); d = C([0, 2, -1, 1])", "d ** c"),
    ("regressions", "2 ** negative int tensor", "c = C([1, 2, -3, 0])", "2 ** c"),
    ("regressions", "sign of bool", "c = C([True, False])", "torch.sign(c)"),
    ("regressions", "sum(dim=0) of 0-dim", "s = T(1.5)", "s.sum(0)"),
    ("regressions", "mean(()) ", "a = T([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])", "a.mean(())"),
    (
        "regressions",
        "cross_entropy every target ignored",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([-100, -100])",
        "F.cross_entropy(z, t)",
    ),
    (
        "regressions",
        "cross_entropy weight",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([0, 2]); w = C([1.0, 2.0, 3.0])",
        "F.cross_entropy(z, t, w)",
    ),
    (
        "regressions",
        "cross_entropy weight, ignore_index",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [0.3, 0.2, 0.1]]); t = C([0, -100, 1]); w = C([1.0, 2.0, 3.0])",
        "F.cross_entropy(z, t, weight=w)",
    ),
    (
        "regressions",
        "cross_entropy weight none",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([0, 2]); w = C([1.0, 2.0, 3.0])",
        "F.cross_entropy(z, t, weight=w, reduction='none')",
    ),
    (
        "regressions",
        "cross_entropy probabilities weight",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([[0.2, 0.8, 0.0], [0.0, 0.5, 0.5]]); w = C([1.0, 2.0, 3.0])",
        "F.cross_entropy(z, t, weight=w)",
    ),
    (
        "regressions",
        "cross_entropy probabilities label_smoothing",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([[0.2, 0.8, 0.0], [0.0, 0.5, 0.5]])",
        "F.cross_entropy(z, t, label_smoothing=0.2)",
    ),
    (
        "regressions",
        "cross_entropy label_smoothing none",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([0, 2])",
        "F.cross_entropy(z, t, label_smoothing=0.3, reduction='none')",
    ),
    (
        "regressions",
        "cross_entropy label_smoothing sum",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([0, 2])",
        "F.cross_entropy(z, t, label_smoothing=0.3, reduction='sum')",
    ),
    (
        "regressions",
        "cross_entropy label_smoothing weight ignore",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0], [0.3, 0.2, 0.1]]); t = C([0, -100, 1]); w = C([1.0, 2.0, 3.0])",
        "F.cross_entropy(z, t, weight=w, label_smoothing=0.3)",
    ),
    (
        "regressions",
        "cross_entropy (N, C, d)",
        "z = T([[[1.0, 2.0], [0.5, 0.1], [-1.0, 3.0]]]); t = C([[0, 2]])",
        "F.cross_entropy(z, t)",
    ),
    (
        "regressions",
        "cross_entropy (N, C, d) none",
        "z = T([[[1.0, 2.0], [0.5, 0.1], [-1.0, 3.0]]]); t = C([[0, 2]])",
        "F.cross_entropy(z, t, reduction='none')",
    ),
    (
        "regressions",
        "nll_loss (N, C, d) non-contiguous",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])",
        "F.nll_loss(z[None].permute(0, 2, 1), C([[0, 2]]))",
    ),
    (
        "regressions",
        "nll_loss (N, C, H, W)",
        "z = T([[[[1.0, 2.0]], [[0.5, 0.1]], [[-1.0, 3.0]]]])",
        "F.nll_loss(z, C([[[0, 2]]]))",
    ),
    (
        "regressions",
        "nll_loss weight sum",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]); t = C([0, 2]); w = C([1.0, 2.0, 3.0])",
        "F.nll_loss(z, t, w, reduction='sum')",
    ),
    (
        "regressions",
        "clamp tensor bounds that require grad",
        "a = T([-1.5, 0.5, 2.5, 0.0]); lo = T([-1.0, 0.0, 0.0, 0.5]); hi = T([1.0, 1.0, 1.0, 0.25])",
        "torch.clamp(a, lo, hi)",
    ),
    (
        "regressions",
        "clamp(min=tensor) broadcast, requires grad",
        "a = T([-1.5, 0.5, 2.5]); lo = T([[-1.0], [0.0]])",
        "torch.clamp(a, min=lo)",
    ),
    (
        "regressions",
        "clamp(max=0-dim tensor) requires grad",
        "a = T([-1.5, 0.5, 2.5]); hi = T(1.0)",
        "torch.clamp(a, max=hi)",
    ),
    ("regressions", "a.T on 1-D (deprecation warning)", "a = T([1.0, -2.0, 3.0])", "a.T"),
    ("regressions", "a.T on 0-D (deprecation warning)", "a = T(1.5)", "a.T"),
    ("regressions", "a.mT on 2-D (TransposeBackward0)", "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "a.mT"),
    ("regressions", "a.mT on 3-D", "a = T([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])", "a.mT"),
    ("regressions", "a.mT on 0-D (the tensor itself, deprecation warning)", "a = T(1.5)", "a.mT"),
    ("regressions", "a.mT on 1-D (error)", "a = T([1.0, 2.0])", "a.mT"),
    (
        "regressions",
        "torch.round(a, decimals=0) is RoundBackward1",
        "a = T([0.4, 1.6, -2.5])",
        "torch.round(a, decimals=0)",
    ),
    ("regressions", "amax(0) of 0-dim", "a = T(1.5)", "a.amax(0)"),
    ("regressions", "var(0) of 0-dim", "a = T(1.5)", "a.var(0)"),
    ("regressions", "std(0) of 0-dim", "a = T(1.5)", "a.std(0)"),
    ("regressions", "norm(dim=0) of 0-dim", "a = T(-1.5)", "a.norm(dim=0)"),
    ("regressions", "softmax of empty", "a = T([])", "torch.softmax(a, 0)"),
    ("regressions", "log_softmax of empty", "a = T([])", "torch.log_softmax(a, 0)"),
    (
        "regressions",
        "softmax of empty int (no kernel needed)",
        "c = C([], dtype=torch.int64)",
        "torch.softmax(c, 0)",
    ),
    # --- setitem, composed as PyTorch's set_item: copy_/fill_ on the whole tensor or a view
    # (CopyBackwards, FillBackward3, CopySlices), index_put_ for lists/masks; a value of
    # another shape is viewed without leading 1s and expanded ---
    ("setitem", "t[...] = t*2 (CopyBackwards)", "x = T([1.0, 2.0]); t = x.clone(); t[...] = t * 2", "t"),
    (
        "setitem",
        "t[:] = t*2 (whole slice: CopyBackwards)",
        "x = T([1.0, 2.0]); t = x.clone(); t[:] = t * 2",
        "t",
    ),
    (
        "setitem",
        "t[0:5] = t*2 (slice past the end: CopyBackwards)",
        "x = T([[1.0, 2.0], [3.0, 4.0]]); t = x.clone(); t[0:5] = t * 2",
        "t",
    ),
    (
        "setitem",
        "t[:, :] = t*2 (CopyBackwards)",
        "x = T([[1.0, 2.0], [3.0, 4.0]]); t = x.clone(); t[:, :] = t * 2",
        "t",
    ),
    (
        "setitem",
        "t[-2:] = t*2 (negative start: CopySlices)",
        "x = T([1.0, 2.0]); t = x.clone(); t[-2:] = t * 2",
        "t",
    ),
    ("setitem", "0-dim t[...] = t*2 (CopyBackwards)", "x = T(1.5); t = x.clone(); t[...] = t * 2", "t"),
    ("setitem", "t[...] = 5.0 (FillBackward3)", "x = T([1.0, 2.0]); t = x.clone(); t[...] = 5.0", "t"),
    (
        "setitem",
        "t[...] = v, v 0-dim (FillBackward3)",
        "x = T([1.0, 2.0]); v = T(3.0); t = x.clone(); t[...] = v",
        "t",
    ),
    (
        "setitem",
        "t[...] = v, v (1, 2) (ViewBackward0)",
        "x = T([1.0, 2.0]); v = T([[3.0, 4.0]]); t = x.clone(); t[...] = v",
        "t",
    ),
    (
        "setitem",
        "t[...] = v, broadcast row (ExpandBackward0)",
        "x = T([[1.0, 2.0], [3.0, 4.0]]); v = T([3.0, 4.0]); t = x.clone(); t[...] = v",
        "t",
    ),
    (
        "setitem",
        "t[0:1] = v, v (1, 1, 2) (CopySlices over ViewBackward0)",
        "x = T([[1.0, 2.0], [3.0, 4.0]]); v = T([[[5.0, 6.0]]]); t = x.clone(); t[0:1] = v",
        "t",
    ),
    (
        "setitem",
        "t[None] = v (CopySlices over ExpandBackward0)",
        "x = T([1.0, 2.0]); v = T([3.0, 4.0]); t = x.clone(); t[None] = v",
        "t",
    ),
    (
        "setitem",
        "t[1:] = v 0-dim (CopySlices, fill)",
        "x = T([1.0, 2.0, 3.0]); v = T(4.0); t = x.clone(); t[1:] = v",
        "t",
    ),
    (
        "setitem",
        "t[0] = C([7.0]) (leading 1 dropped)",
        "x = T([1.0, 2.0]); t = x.clone(); t[0] = C([7.0])",
        "t",
    ),
    (
        "setitem",
        "t[[0, 2]] = v (IndexPutBackward0)",
        "x = T([1.0, 2.0, 3.0]); v = T([5.0, 6.0]); t = x.clone(); t[[0, 2]] = v",
        "t",
    ),
    (
        "setitem",
        "t[mask] = v 0-dim (IndexPutBackward0)",
        "x = T([1.0, 2.0, 3.0]); v = T(5.0); m = C([True, False, True]); t = x.clone(); t[m] = v",
        "t",
    ),
    (
        "setitem",
        "t[:, [0]] = v (IndexPutBackward0)",
        "x = T([[1.0, 2.0], [3.0, 4.0]]); v = T([[5.0], [6.0]]); t = x.clone(); t[:, [0]] = v",
        "t",
    ),
    (
        "setitem",
        "t[0, [0]] = v (CopySlices over index_put_, ViewBackward0)",
        "x = T([[1.0, 2.0], [3.0, 4.0]]); v = T([5.0]); t = x.clone(); t[0, [0]] = v",
        "t",
    ),
    (
        "setitem",
        "t[[0, 0]] = v (repeated index)",
        "x = T([1.0, 2.0]); v = T([5.0, 6.0]); t = x.clone(); t[[0, 0]] = v",
        "t",
    ),
    ("setitem", "t[False] = v (nothing happens)", "x = T([1.0, 2.0]); t = x.clone(); t[False] = x * 3", "t"),
    (
        "setitem",
        "c[...] = v on a constant (CopyBackwards)",
        "v = T([1.0, 2.0]); c = C([0.0, 0.0]); c[...] = v",
        "c",
    ),
    (
        "setitem",
        "int tensor from a float requiring grad (no history)",
        "v = T([1.5, 2.5]); c = C([1, 2, 3]); c[0:2] = v",
        "c",
    ),
    (
        "setitem",
        "w[...] on a view (base CopySlices)",
        "x = T([[1.0, 2.0], [3.0, 4.0]]); t = x.clone(); w = t[0]; w[...] = w * 3",
        "t",
    ),
    (
        "setitem",
        "error: value does not expand",
        "x = T([1.0, 2.0]); t = x.clone()",
        "t.__setitem__(slice(None, 1), C([1.0, 2.0]))",
    ),
    (
        "setitem",
        "error: 1-D value into an element",
        "x = T([1.0, 2.0]); t = x.clone()",
        "t.__setitem__(0, C([1.0, 2.0]))",
    ),
    (
        "setitem",
        "error: index_put_ dtype mismatch",
        "x = T([1.0, 2.0]); t = x.clone()",
        "t.__setitem__([0], C([1]))",
    ),
    (
        "setitem",
        "error: index_put_ shape mismatch",
        "x = T([1.0, 2.0, 3.0]); t = x.clone()",
        "t.__setitem__([0, 1], C([[1.0, 2.0, 3.0]]))",
    ),
    ("setitem", "error: assign a list", "x = T([1.0, 2.0]); t = x.clone()", "t.__setitem__(0, [1.0])"),
    ("setitem", "error: int index into 0-dim", "x = T(1.0); t = x.clone()", "t.__setitem__(0, 2.0)"),
    (
        "setitem",
        "error: out of bounds in a tuple key",
        "x = T([[1.0, 2.0]]); t = x.clone()",
        "t.__setitem__((0, 5), 1.0)",
    ),
    ("setitem", "error: leaf x[...] (not a view)", "x = T([1.0, 2.0])", "x.__setitem__(Ellipsis, 2.0)"),
    ("setitem", "error: leaf x[[0]] (not a view)", "x = T([1.0, 2.0])", "x.__setitem__([0], 2.0)"),
    ("setitem", "error: leaf x[0] (a view)", "x = T([1.0, 2.0])", "x.__setitem__(0, 2.0)"),
    # --- dtypes PyTorch's CPU kernels refuse: NotImplementedError ---
    ("dtype_errors", "abs of bool", "c = C([True, False])", "c.abs()"),
    ("dtype_errors", "floor of bool", "c = C([True, False])", "torch.floor(c)"),
    ("dtype_errors", "ceil of bool 0-dim", "c = C(True)", "torch.ceil(c)"),
    ("dtype_errors", "round of bool", "c = C([True, False])", "torch.round(c)"),
    ("dtype_errors", "trunc of bool", "c = C([True, False])", "c.trunc()"),
    ("dtype_errors", "round of int (kept)", "c = C([1, -2])", "torch.round(c)"),
    ("dtype_errors", "round(decimals=1) of int", "c = C([1, -2])", "torch.round(c, decimals=1)"),
    ("dtype_errors", "round(decimals=0) of int", "c = C([1, -2])", "torch.round(c, decimals=0)"),
    ("dtype_errors", "gelu of int", "c = C([1, -2])", "F.gelu(c)"),
    (
        "dtype_errors",
        "gelu(approximate='tanh') of bool",
        "c = C([True, False])",
        "F.gelu(c, approximate='tanh')",
    ),
    ("dtype_errors", "silu of int", "c = C([1, -2])", "F.silu(c)"),
    ("dtype_errors", "softplus of int", "c = C([1, -2])", "F.softplus(c)"),
    ("dtype_errors", "elu of bool", "c = C([True, False])", "F.elu(c)"),
    ("dtype_errors", "leaky_relu of int 0-dim", "c = C(3)", "F.leaky_relu(c)"),
    ("dtype_errors", "softmax of int, dim 0 of 2-D", "c = C([[1, 2], [3, 4]])", "torch.softmax(c, 0)"),
    ("dtype_errors", "softmax of int, last dim", "c = C([[1, 2], [3, 4]])", "torch.softmax(c, 1)"),
    ("dtype_errors", "log_softmax of int, dim 0 of 2-D", "c = C([[1, 2], [3, 4]])", "F.log_softmax(c, 0)"),
    ("dtype_errors", "log_softmax of bool 0-dim", "c = C(True)", "torch.log_softmax(c, 0)"),
    (
        "dtype_errors",
        "softmax of int with dtype=float64",
        "c = C([[1, 2], [3, 4]])",
        "torch.softmax(c, 1, dtype=torch.float64)",
    ),
    ("dtype_errors", "var of int", "c = C([1, 2])", "c.var()"),
    ("dtype_errors", "std(dim=0) of bool", "c = C([[True, False], [True, True]])", "c.std(0)"),
    ("dtype_errors", "var(1) of int 0-dim (dtype checked first)", "c = C(3)", "c.var(1)"),
    # --- torch.tensor / torch.Tensor from nested data: PyTorch's shape and element errors ---
    ("creation", "torch.Tensor() is empty (0,)", "", "torch.Tensor()"),
    ("creation", "tensor([1, [2]])", "", "torch.tensor([1, [2]])"),
    ("creation", "tensor([[1], 2])", "", "torch.tensor([[1], 2])"),
    ("creation", "tensor([[1, 2], [3]])", "", "torch.tensor([[1, 2], [3]])"),
    ("creation", "tensor([[1], [2, 3]])", "", "torch.tensor([[1], [2, 3]])"),
    ("creation", "tensor([[[1, 2]], [[3]]]) (dim 2)", "", "torch.tensor([[[1, 2]], [[3]]])"),
    ("creation", "tensor([[], [1]]) is empty", "", "torch.tensor([[], [1]])"),
    ("creation", "tensor([[1], []])", "", "torch.tensor([[1], []])"),
    ("creation", "tensor([1.0, [2.0, 3.0]])", "", "torch.tensor([1.0, [2.0, 3.0]])"),
    ("creation", "tensor([True, [False]])", "", "torch.tensor([True, [False]])"),
    ("creation", "tensor([1, None])", "", "torch.tensor([1, None])"),
    ("creation", "tensor([1, 'a'])", "", "torch.tensor([1, 'a'])"),
    ("creation", "tensor(['a'])", "", "torch.tensor(['a'])"),
    ("creation", "Tensor([1, None])", "", "torch.Tensor([1, None])"),
    ("creation", "Tensor([[1, 2], [3]])", "", "torch.Tensor([[1, 2], [3]])"),
    ("creation", "tensor of multi-element tensors", "", "torch.tensor([C([1.0, 2.0]), C([3.0, 4.0])])"),
    (
        "creation",
        "tensor([C([1.0]), 2.0]) (one-element tensors are scalars)",
        "",
        "torch.tensor([C([1.0]), 2.0])",
    ),
    (
        "creation",
        "tensor([[1.0, 2.0], C([3.0, 4.0])]) (a row from a tensor)",
        "",
        "torch.tensor([[1.0, 2.0], C([3.0, 4.0])])",
    ),
    ("creation", "tensor([[1], C(2)])", "", "torch.tensor([[1], C(2)])"),
    ("creation", "tensor([1, 2**63]) overflows", "", "torch.tensor([1, 2 ** 63])"),
    (
        "creation",
        "tensor([1.5, -2.7], dtype=int64) truncates",
        "",
        "torch.tensor([1.5, -2.7], dtype=torch.int64)",
    ),
    ("creation", "tensor([1, [2]], dtype=bool)", "", "torch.tensor([1, [2]], dtype=torch.bool)"),
    # --- op errors: PyTorch's exception type and message ---
    ("op_errors", "matmul 2D@2D mismatch", "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "a @ a"),
    (
        "op_errors",
        "matmul 3D@2D fold mismatch",
        "a = T([[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]]); b = T([[1.0, 2.0], [3.0, 4.0]])",
        "a @ b",
    ),
    (
        "op_errors",
        "matmul 2D@3D fold mismatch",
        "a = T([[1.0, 2.0]]); b = T([[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]])",
        "a @ b",
    ),
    (
        "op_errors",
        "matmul 3D@3D batch mismatch",
        "a = T([[[1.0, 2.0]], [[3.0, 4.0]]]); b = T([[[1.0], [2.0]], [[3.0], [4.0]], [[5.0], [6.0]]])",
        "a @ b",
    ),
    ("op_errors", "matmul with 0-dim", "a = T([1.0, 2.0]); s = T(2.0)", "a @ s"),
    ("op_errors", "relu of bool", "c = C([True, False])", "torch.relu(c)"),
    ("op_errors", "norm of int", "c = C([1, 2])", "c.norm()"),
    ("op_errors", "int tensor ** negative int", "c = C([1, 2])", "c ** -1"),
    (
        "op_errors",
        "binary_cross_entropy target dtype",
        "p = T([0.5], dtype=torch.float32); t = C([1.0])",
        "F.binary_cross_entropy(p, t)",
    ),
    (
        "op_errors",
        "binary_cross_entropy input out of range",
        "p = T([1.5]); t = C([1.0])",
        "F.binary_cross_entropy(p, t)",
    ),
    (
        "op_errors",
        "nll_loss target out of bounds",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])",
        "F.nll_loss(z, C([0, 3]))",
    ),
    (
        "op_errors",
        "nll_loss float target",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])",
        "F.nll_loss(z, C([0.0, 2.0]))",
    ),
    (
        "op_errors",
        "cross_entropy batch mismatch",
        "z = T([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])",
        "F.cross_entropy(z, C([0, 1, 2]))",
    ),
    (
        "op_errors",
        "cross_entropy 1D input, 1D target",
        "z = T([1.0, 2.0, 0.5])",
        "F.cross_entropy(z, C([0, 1]))",
    ),
    (
        "op_errors",
        "nll_loss (N, C, d) target shape",
        "z = T([[[1.0, 2.0], [0.5, 0.1], [-1.0, 3.0]]])",
        "F.nll_loss(z, C([[0, 2, 1]]))",
    ),
    (
        "op_errors",
        "mse_loss bad reduction",
        "a = T([1.0, 2.0]); t = C([1.0, 0.0])",
        "F.mse_loss(a, t, reduction='bogus')",
    ),
    ("op_errors", "view of a transpose", "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "a.t().view(6)"),
    ("op_errors", "reshape invalid size", "a = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])", "a.reshape(4)"),
    ("op_errors", "cat size mismatch", "a = T([[1.0, 2.0, 3.0]]); b = T([[1.0, 2.0]])", "torch.cat([a, b])"),
    ("op_errors", "stack size mismatch", "a = T([1.0, 2.0, 3.0]); b = T([1.0, 2.0])", "torch.stack([a, b])"),
    ("op_errors", "index out of range", "x = T([1.0, 2.0, 3.0])", "x[5]"),
    ("op_errors", "too many indices", "x = T([1.0, 2.0, 3.0])", "x[0, 1]"),
    ("op_errors", "broadcast mismatch", "a = T([1.0, 2.0, 3.0]); b = T([1.0, 2.0])", "a * b"),
    ("op_errors", "dim out of range", "a = T([1.0, 2.0, 3.0])", "a.sum(1)"),
    ("op_errors", "clamp without bounds", "a = T([1.0, 2.0, 3.0])", "torch.clamp(a)"),
    ("op_errors", "t() of 3-D", "a = T([[[1.0, 2.0]]])", "a.t()"),
    ("op_errors", "permute wrong length", "a = T([[1.0, 2.0]])", "a.permute(1, 0, 2)"),
    ("op_errors", "expand incompatible", "a = T([1.0, 2.0])", "a.expand(3, 3)"),
    ("op_errors", "mean of int", "c = C([1, 2])", "c.mean()"),
    ("op_errors", "where non-bool condition", "a = T([1.0, 2.0])", "torch.where(a, a, a)"),
    ("op_errors", "x[0, 5] out of bounds (the dim is the key position)", "x = T([[1.0, 2.0]])", "x[0, 5]"),
    ("op_errors", "x[None, 0, 5] out of bounds", "x = T([[1.0, 2.0]])", "x[None, 0, 5]"),
    ("op_errors", "x[0] of 0-dim", "x = T(1.0)", "x[0]"),
    ("op_errors", "x[0:1] of 0-dim", "x = T(1.0)", "x[0:1]"),
    ("op_errors", "max(0) over an empty dim", "a = T([])", "a.max(0)"),
    ("op_errors", "amax() of empty", "a = T([])", "a.amax()"),
    ("op_errors", "amax(0) over an empty dim", "a = T([])", "a.amax(0)"),
    ("op_errors", "hypot with a float other", "a = T([1.0, 2.0])", "torch.hypot(a, 2.0)"),
    ("op_errors", "a.hypot(2.0)", "a = T([1.0, 2.0])", "a.hypot(2.0)"),
    ("op_errors", "hypot of int tensors", "c = C([1, 2])", "torch.hypot(c, c)"),
    ("op_errors", "logaddexp of bool tensors", "c = C([True, False])", "torch.logaddexp(c, c)"),
    ("op_errors", "logaddexp with an int other", "a = T([1.0, 2.0])", "torch.logaddexp(a, 2)"),
    ("op_errors", "hypot shape mismatch", "a = T([1.0, 2.0, 3.0]); b = T([1.0, 2.0])", "torch.hypot(a, b)"),
    # --- more edge points (upstream ones) ---
    ("edge_point_gradients", "relu at -0.0", "a = T([-0.0, 0.0])", "torch.relu(a)"),
    ("edge_point_gradients", "sign at -0.0", "a = T([-0.0, 0.0])", "a.sign()"),
    ("edge_point_gradients", "clamp_min at bound", "a = T([-1.0, 0.0, 1.0])", "a.clamp_min(0.0)"),
    ("edge_point_gradients", "clamp_max at bound", "a = T([-1.0, 0.0, 1.0])", "a.clamp_max(0.0)"),
    (
        "edge_point_gradients",
        "clamp tensor bounds at bounds",
        "a = T([-1.0, 0.0, 1.0, 3.0]); lo = C([-1.0, 0.5, 0.0, 2.0]); hi = C([1.0, 1.0, 1.0, 1.0])",
        "torch.clamp(a, lo, hi)",
    ),
    (
        "edge_point_gradients",
        "maximum tie with 0-dim",
        "a = T([[1.0, 2.0], [2.0, 3.0]]); b = T(2.0)",
        "torch.maximum(a, b)",
    ),
    (
        "edge_point_gradients",
        "max(dim=0) ties",
        "a = T([[1.0, 3.0, 3.0], [1.0, 3.0, 2.0]])",
        "a.max(dim=0).values",
    ),
    (
        "edge_point_gradients",
        "min(dim=1) ties",
        "a = T([[3.0, 1.0, 1.0], [2.0, 2.0, 2.0]])",
        "a.min(dim=1).values",
    ),
    (
        "edge_point_gradients",
        "max(dim, keepdim) ties",
        "a = T([[1.0, 3.0, 3.0], [5.0, 5.0, 5.0]])",
        "a.max(1, keepdim=True)[0]",
    ),
    ("edge_point_gradients", "max() with nan", "a = T([1.0, float('nan'), 3.0])", "a.max()"),
    ("edge_point_gradients", "amax(dim) ties", "a = T([[1.0, 3.0, 3.0], [5.0, 5.0, 5.0]])", "a.amax(1)"),
    ("edge_point_gradients", "rsqrt at 0", "a = T([0.0, 4.0])", "a.rsqrt()"),
    ("edge_point_gradients", "reciprocal at 0", "a = T([0.0, -0.0, 2.0])", "a.reciprocal()"),
    ("edge_point_gradients", "log2 at 0", "a = T([0.0, 1.0])", "torch.log2(a)"),
    ("edge_point_gradients", "log1p at -1", "a = T([-1.0, 0.0])", "torch.log1p(a)"),
    ("edge_point_gradients", "log of negative", "a = T([-1.0])", "a.log()"),
    ("edge_point_gradients", "a**-1 at 0", "a = T([0.0, 2.0])", "a ** -1"),
    ("edge_point_gradients", "a**3 at 0 and negative", "a = T([0.0, -2.0])", "a ** 3"),
    ("edge_point_gradients", "a**0.5 negative base", "a = T([-4.0, 4.0])", "a ** 0.5"),
    ("edge_point_gradients", "a**b negative base", "a = T([-2.0, -2.0]); b = T([2.0, 0.5])", "a ** b"),
    (
        "edge_point_gradients",
        "0**b negative exponent",
        "a = T([0.0, 0.0, 0.0]); b = T([-1.0, 0.5, 1.0])",
        "a ** b",
    ),
    (
        "edge_point_gradients",
        "a**b at a=0, b=0 with constant exponent",
        "a = T([0.0, 0.0]); c = C([0.0, 1.0])",
        "a ** c",
    ),
    ("edge_point_gradients", "0**a scalar base zero", "a = T([-1.0, 0.0, 1.0])", "0 ** a"),
    ("edge_point_gradients", "(-2)**a scalar base negative", "a = T([1.0, 2.0])", "(-2) ** a"),
    ("edge_point_gradients", "1**a scalar base one", "a = T([1.0, 2.0])", "1 ** a"),
    ("edge_point_gradients", "a/b at b=0", "a = T([1.0, 0.0, -1.0]); b = T([0.0, 0.0, 0.0])", "a / b"),
    (
        "edge_point_gradients",
        "prod(dim) with zeros",
        "a = T([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.0, 2.0, 3.0]])",
        "a.prod(1)",
    ),
    ("edge_point_gradients", "prod all zeros", "a = T([0.0, 0.0, 0.0])", "a.prod()"),
    ("edge_point_gradients", "norm(p=1) of zero vector", "a = T([0.0, 0.0, 0.0])", "a.norm(p=1)"),
    (
        "edge_point_gradients",
        "norm(dim=1) with a zero row",
        "a = T([[0.0, 0.0], [3.0, 4.0]])",
        "a.norm(dim=1)",
    ),
    ("edge_point_gradients", "norm(p=3) of zero vector", "a = T([0.0, 0.0])", "a.norm(p=3)"),
    ("edge_point_gradients", "std(dim=1) of one element rows", "a = T([[3.0], [4.0]])", "a.std(dim=1)"),
    ("edge_point_gradients", "var(correction=2) of two elements", "a = T([3.0, 4.0])", "a.var(correction=2)"),
    ("edge_point_gradients", "std of constant vector", "a = T([2.0, 2.0, 2.0])", "a.std()"),
    (
        "edge_point_gradients",
        "atan2 at (0,0) 2D with signed zeros",
        "a = T([0.0, -0.0, 0.0]); b = T([0.0, 0.0, -0.0])",
        "torch.atan2(a, b)",
    ),
    ("edge_point_gradients", "acos at 1", "a = T([1.0, -1.0])", "torch.acos(a)"),
    ("edge_point_gradients", "atanh at 1", "a = T([1.0, -1.0])", "torch.atanh(a)"),
    ("edge_point_gradients", "acosh at 1", "a = T([1.0])", "torch.acosh(a)"),
    ("edge_point_gradients", "repeated rows accumulate", "x = T([[1.0, 2.0], [3.0, 4.0]])", "x[[0, 0, 0]]"),
    ("edge_point_gradients", "softmax extreme", "a = T([1000.0, 0.0, -1000.0])", "torch.softmax(a, dim=0)"),
    (
        "edge_point_gradients",
        "log_softmax with -inf",
        "a = T([float('-inf'), 0.0, 1.0])",
        "torch.log_softmax(a, dim=0)",
    ),
    (
        "edge_point_gradients",
        "logsumexp all -inf",
        "a = T([float('-inf'), float('-inf')])",
        "torch.logsumexp(a, dim=0)",
    ),
    (
        "edge_point_gradients",
        "logsumexp with +inf",
        "a = T([float('inf'), 0.0])",
        "torch.logsumexp(a, dim=0)",
    ),
    (
        "edge_point_gradients",
        "logsumexp extreme",
        "a = T([1000.0, 0.0, -1000.0])",
        "torch.logsumexp(a, dim=0)",
    ),
    ("edge_point_gradients", "gelu tanh at 0", "a = T([0.0])", "F.gelu(a, approximate='tanh')"),
    ("edge_point_gradients", "gelu far tails", "a = T([-40.0, 40.0])", "F.gelu(a)"),
    ("edge_point_gradients", "softplus at threshold", "a = T([20.0, 20.5, -20.0])", "F.softplus(a)"),
    ("edge_point_gradients", "softplus beta threshold", "a = T([10.0, 10.5])", "F.softplus(a, beta=2)"),
    ("edge_point_gradients", "sigmoid overflow", "a = T([-800.0, 800.0])", "torch.sigmoid(a)"),
    ("edge_point_gradients", "tanh saturated", "a = T([-30.0, 0.0, 30.0])", "torch.tanh(a)"),
    ("edge_point_gradients", "silu at 0 and tails", "a = T([-800.0, 0.0, 800.0])", "F.silu(a)"),
    ("edge_point_gradients", "elu far negative", "a = T([-800.0, -0.0])", "F.elu(a)"),
    ("edge_point_gradients", "exp overflow", "a = T([800.0, -800.0])", "a.exp()"),
    (
        "edge_point_gradients",
        "binary_cross_entropy at 0 and 1",
        "p = T([0.0, 1.0, 0.0, 1.0]); t = C([0.0, 0.0, 1.0, 1.0])",
        "F.binary_cross_entropy(p, t, reduction='none')",
    ),
    (
        "edge_point_gradients",
        "cross_entropy extreme logits",
        "z = T([[1000.0, 0.0, -1000.0]]); t = C([2])",
        "F.cross_entropy(z, t)",
    ),
    (
        "edge_point_gradients",
        "hypot at (0, 0)",
        "a = T([0.0, 0.0, 3.0]); b = T([0.0, -0.0, 4.0])",
        "torch.hypot(a, b)",
    ),
    ("edge_point_gradients", "sinc at 0", "a = T([0.0, -0.0])", "torch.sinc(a)"),
    ("edge_point_gradients", "erf at 0 and in its tails", "a = T([0.0, -30.0, 30.0])", "torch.erf(a)"),
    (
        "edge_point_gradients",
        "logaddexp with infinities",
        "a = T([float('inf'), float('-inf'), float('-inf'), 0.0]); b = T([float('inf'), float('-inf'), 0.0, float('inf')])",
        "torch.logaddexp(a, b)",
    ),
    (
        "edge_point_gradients",
        "mse_loss zero residual",
        "a = T([1.0, 2.0]); t = C([1.0, 2.0])",
        "F.mse_loss(a, t)",
    ),
]


# Snippets whose record also holds second-order gradients ("second_order", below).
SECOND_ORDER = {
    f"unary_math/{label}"
    for label in (
        "erf",
        "a.erf() (0-dim)",
        "sinc",
        "a.sinc() (0-dim)",
        "hypot(a, b)",
        "a.hypot(c) (c constant)",
        "hypot (2,3) with (3,)",
        "hypot (0-dim)",
        "logaddexp(a, b)",
        "a.logaddexp(s) (0-dim s, broadcast)",
        "logaddexp (0-dim)",
    )
}


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import method_cases  # noqa: E402

SNIPPETS += method_cases.SNIPPETS
SECOND_ORDER |= method_cases.SECOND_ORDER
import activation_cases  # noqa: E402

SNIPPETS += activation_cases.SNIPPETS
SECOND_ORDER |= activation_cases.SECOND_ORDER

from diffcli.render.jsonout import json_number as _fnum  # noqa: E402


def _values(t):
    def rec(x):
        return [rec(y) for y in x] if isinstance(x, list) else _fnum(x)

    if t._is_zerotensor():  # (sgn's gradient of a real tensor: ATen's efficient zeros)
        t = t.new_zeros(t.shape)
    return rec(t.detach().tolist())


def _fn_name(fn):
    return None if fn is None else type(fn).__name__


def _graph(fn, names):
    if fn is None:
        return "None"
    name = type(fn).__name__
    if name == "AccumulateGrad":
        return "AccumulateGrad[%s]" % names.get(id(fn.variable), "?")
    return "%s(%s)" % (name, ", ".join(_graph(f, names) for f, _ in fn.next_functions))


def upstream_gradient(torch, out, group):
    if group == EDGE_GROUP:
        return torch.ones_like(out)
    n = out.numel()
    g = (torch.arange(n, dtype=torch.float64) % 4 + 1) * 0.5
    return g.reshape(out.shape).to(out.dtype)


def direction(torch, x):
    """The second-order records' direction for leaf x: ((arange(n) % 3) + 1) * 0.25."""
    n = x.numel()
    return ((torch.arange(n, dtype=torch.float64) % 3 + 1) * 0.25).reshape(x.shape).to(x.dtype)


def second_order(torch, out, leaves, names, g):
    """g_i = grad(out, x_i, g, create_graph=True) (values, grad_fn, graph), then the
    gradient of sum_i (g_i * v_i).sum() with v_i = direction(x_i): a Hessian-vector
    product, which runs every first-order formula's own backward."""
    xs = {k: v for k, v in leaves.items() if v.is_leaf and v.requires_grad}
    gs = torch.autograd.grad(out, list(xs.values()), g, create_graph=True, allow_unused=True)
    rec = {"grads": {}, "directions": {}, "hvp": None}
    total = None
    for (k, x), gx in zip(xs.items(), gs):
        v = direction(torch, x)
        rec["directions"][k] = _values(v)
        rec["grads"][k] = (
            None
            if gx is None
            else {"values": _values(gx), "grad_fn": _fn_name(gx.grad_fn), "graph": _graph(gx.grad_fn, names)}
        )
        if gx is not None and gx.requires_grad:
            term = (gx * v).sum()
            total = term if total is None else total + term
    if total is not None:
        hs = torch.autograd.grad(total, list(xs.values()), retain_graph=True, allow_unused=True)
        rec["hvp"] = {k: None if h is None else _values(h) for k, h in zip(xs, hs)}
    return rec


def record(torch, F, group, label, setup, expr):
    def T(v, dtype=None):
        return torch.tensor(v, requires_grad=True, dtype=dtype)

    def C(v, dtype=None):
        return torch.tensor(v, dtype=dtype)

    ns = {"torch": torch, "F": F, "T": T, "C": C, "math": math}
    rec = {"id": "%s/%s" % (group, label), "group": group, "label": label, "setup": setup, "expr": expr}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(setup, ns)
        leaves = {k: v for k, v in ns.items() if isinstance(v, torch.Tensor)}
        names = {id(v): k for k, v in leaves.items()}
        try:
            out = eval(expr, ns)
        except Exception as e:  # an op error: its type and PyTorch's message are the record
            rec["error"] = {"type": type(e).__name__, "message": str(e)}
            rec["warnings"] = [str(w.message) for w in caught]
            return rec
        fn = out.grad_fn
        rec["output"] = {
            "values": _values(out),
            "shape": list(out.shape),
            "dtype": str(out.dtype),
            "requires_grad": out.requires_grad,
            "is_leaf": out.is_leaf,
            "grad_fn": _fn_name(fn),
        }
        rec["output_is_input"] = any(out is v for v in leaves.values())
        rec["next_functions"] = None if fn is None else [[_fn_name(f), i] for f, i in fn.next_functions]
        rec["graph"] = _graph(fn, names)
        rec["upstream_gradient"] = None
        rec["grads"] = None
        if out.requires_grad and rec["id"] in SECOND_ORDER:
            g = torch.ones_like(out) if out.dim() == 0 else upstream_gradient(torch, out, group)
            rec["second_order"] = second_order(torch, out, leaves, names, g)
        if out.requires_grad:
            if out.dim() == 0:
                out.backward()
            else:
                g = upstream_gradient(torch, out, group)
                rec["upstream_gradient"] = _values(g)
                out.backward(g)
            rec["grads"] = {
                k: None
                if v.grad is None
                else {"values": _values(v.grad), "shape": list(v.grad.shape), "dtype": str(v.grad.dtype)}
                for k, v in leaves.items()
                if v.is_leaf and v.requires_grad
            }
    rec["warnings"] = [str(w.message) for w in caught]
    return rec


def main():
    import torch
    import torch.nn.functional as F

    torch.set_default_dtype(torch.float64)
    ids = [f"{g}/{l}" for g, l, _, _ in SNIPPETS]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        sys.exit(f"duplicate snippet ids: {sorted(dupes)}")
    records = [record(torch, F, *s) for s in SNIPPETS]
    doc = {
        "generator": "tests/goldens/record_ops.py",
        "torch": torch.__version__,
        "default_dtype": str(torch.get_default_dtype()),
        "upstream_gradient": "((arange(n) % 4) + 1) * 0.5 reshaped to out.shape; ones for the "
        f"{EDGE_GROUP} group; out.backward() for 0-dim outputs",
        "records": records,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops.json")
    # one record per line: compact, and a re-recording diffs snippet by snippet
    head = json.dumps({k: v for k, v in doc.items() if k != "records"}, indent=1, allow_nan=False)
    lines = ",\n".join(json.dumps(r, allow_nan=False) for r in records)
    with open(path, "w") as f:
        f.write(head[:-2] + ',\n "records": [\n' + lines + "\n ]\n}\n")
    print(f"wrote {len(records)} records to {path}")


if __name__ == "__main__":
    main()
