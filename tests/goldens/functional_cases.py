"""The cases of torch.autograd.functional and torch.func that `record_functional.py` runs
through PyTorch and `tests/lang/test_functional.py` runs through diffcli.

Each case is a script in the PyTorch flavour (its own Python program) that binds `result`
(values) or fails (errors). Every function is written twice, as a `def` and as a `lambda`,
and every API is called with each. `flatten` turns a result into plain data: nesting
(tuple/list), and per tensor its shape, dtype, requires_grad and values.
"""

from __future__ import annotations

HEADER = """\
import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp
import torch.func as func
x = torch.tensor([0.3, -1.2, 0.7], dtype=torch.float64)
y = torch.tensor([1.5, 0.4, -0.6], dtype=torch.float64)
M = torch.tensor([[0.2, -0.5, 1.0], [0.9, 0.3, -0.4]], dtype=torch.float64)
s = torch.tensor(0.8, dtype=torch.float64)
w = torch.tensor([0.5, -0.25, 2.0], dtype=torch.float64, requires_grad=True)
"""

# name: (def text, lambda text); each binds the name to the function
FUNCTIONS = {
    "pair": (
        "def pair(a, b):\n    return torch.sin(a) * b.sum(), a * b\n",
        "pair = lambda a, b: (torch.sin(a) * b.sum(), a * b)\n",
    ),
    "loss": (
        "def loss(a):\n    return (a ** 3).sum() * torch.exp(a[0])\n",
        "loss = lambda a: (a ** 3).sum() * torch.exp(a[0])\n",
    ),
    "loss2": (
        "def loss2(a, b):\n    return (torch.tanh(a) * b * b).sum() + (a * a).sum() * b[1]\n",
        "loss2 = lambda a, b: (torch.tanh(a) * b * b).sum() + (a * a).sum() * b[1]\n",
    ),
    "layer": ("def layer(m, v):\n    return torch.tanh(m @ v)\n", "layer = lambda m, v: torch.tanh(m @ v)\n"),
    "vec": ("def vec(a):\n    return torch.exp(a) / a.sum()\n", "vec = lambda a: torch.exp(a) / a.sum()\n"),
    "aux": (
        "def aux(a):\n    return (a * a).sum(), torch.cos(a)\n",
        "aux = lambda a: ((a * a).sum(), torch.cos(a))\n",
    ),
    "lin": ("def lin(a, b):\n    return a * 2 + b.sum()\n", "lin = lambda a, b: a * 2 + b.sum()\n"),
    "cube": ("def cube(a):\n    return a ** 3 * torch.sin(a)\n", "cube = lambda a: a ** 3 * torch.sin(a)\n"),
    "closure": ("def closure(a):\n    return (a * a * w).sum()\n", "closure = lambda a: (a * a * w).sum()\n"),
    "const": ("def const(a):\n    return 1.0\n", "const = lambda a: 1.0\n"),
    "ones": (
        "def ones(a):\n    return torch.ones(2, dtype=torch.float64)\n",
        "ones = lambda a: torch.ones(2, dtype=torch.float64)\n",
    ),
    "ident": ("def ident(a):\n    return a\n", "ident = lambda a: a\n"),
    "twice": ("def twice(a):\n    return a, a * 2\n", "twice = lambda a: (a, a * 2)\n"),
    "longout": ("def longout(a):\n    return a.long()\n", "longout = lambda a: a.long()\n"),
    "rowsum": ("def rowsum(r, c):\n    return (r * c).sum()\n", "rowsum = lambda r, c: (r * c).sum()\n"),
}

# (name, function names it uses, the call that binds `result`)
VALUES = [
    # torch.autograd.functional.jacobian
    ("jacobian_single", ["vec"], "result = jacobian(vec, x)"),
    ("jacobian_tuple", ["pair"], "result = jacobian(pair, (x, y))"),
    ("jacobian_layer", ["layer"], "result = jacobian(layer, (M, x))"),
    ("jacobian_create_graph", ["pair"], "result = jacobian(pair, (x, y), create_graph=True)"),
    ("jacobian_vectorize", ["pair"], "result = jacobian(pair, (x, y), vectorize=True)"),
    (
        "jacobian_vectorize_create_graph",
        ["pair"],
        "result = jacobian(pair, (x, y), create_graph=True, vectorize=True)",
    ),
    (
        "jacobian_forward_mode",
        ["pair"],
        "result = jacobian(pair, (x, y), vectorize=True, strategy='forward-mode')",
    ),
    ("jacobian_strict_ok", ["vec"], "result = jacobian(vec, x, strict=True)"),
    ("jacobian_unused_input", ["lin"], "result = jacobian(lambda a, b: a * 3, (x, y))"),
    ("jacobian_requires_grad_input", ["cube"], "result = jacobian(cube, w, create_graph=True)"),
    ("jacobian_keyword_func", ["vec"], "result = jacobian(func=vec, inputs=x)"),
    # hessian
    ("hessian_single", ["loss"], "result = hessian(loss, x)"),
    ("hessian_tuple", ["loss2"], "result = hessian(loss2, (x, y))"),
    ("hessian_vectorize", ["loss2"], "result = hessian(loss2, (x, y), vectorize=True)"),
    ("hessian_create_graph", ["loss"], "result = hessian(loss, x, create_graph=True)"),
    (
        "hessian_forward_outer",
        ["loss2"],
        "result = hessian(loss2, (x, y), vectorize=True, outer_jacobian_strategy='forward-mode')",
    ),
    ("hessian_scalar_input", ["cube"], "result = hessian(lambda a: cube(a).sum(), s)"),
    # vjp / jvp / hvp / vhp
    ("vjp_tuple", ["pair"], "result = vjp(pair, (x, y), (y, x))"),
    ("vjp_single", ["vec"], "result = vjp(vec, x, y)"),
    ("vjp_scalar_v_none", ["loss"], "result = vjp(loss, x)"),
    ("vjp_create_graph", ["vec"], "result = vjp(vec, x, y, create_graph=True)"),
    ("jvp_tuple", ["pair"], "result = jvp(pair, (x, y), (y, x))"),
    ("jvp_single", ["vec"], "result = jvp(vec, x, y)"),
    ("jvp_scalar_v_none", ["cube"], "result = jvp(cube, s)"),
    ("jvp_create_graph", ["vec"], "result = jvp(vec, x, y, create_graph=True)"),
    ("hvp_single", ["loss"], "result = hvp(loss, x, y)"),
    ("hvp_tuple", ["loss2"], "result = hvp(loss2, (x, y), (y, x))"),
    ("hvp_create_graph", ["loss"], "result = hvp(loss, x, y, create_graph=True)"),
    ("vhp_single", ["loss"], "result = vhp(loss, x, y)"),
    ("vhp_tuple", ["loss2"], "result = vhp(loss2, (x, y), (y, x))"),
    ("vhp_strict_ok", ["loss2"], "result = vhp(loss2, (x, y), (y, x), strict=True)"),
    # torch.func
    ("func_grad", ["loss"], "result = func.grad(loss)(x)"),
    ("func_grad_argnums_1", ["loss2"], "result = func.grad(loss2, argnums=1)(x, y)"),
    ("func_grad_argnums_tuple", ["loss2"], "result = func.grad(loss2, argnums=(0, 1))(x, y)"),
    ("func_grad_argnums_negative", ["loss2"], "result = func.grad(loss2, argnums=-1)(x, y)"),
    ("func_grad_has_aux", ["aux"], "result = func.grad(aux, has_aux=True)(x)"),
    ("func_grad_of_grad", ["cube"], "result = func.grad(func.grad(lambda a: cube(a)))(s)"),
    ("func_grad_closure", ["closure"], "result = func.grad(closure)(x)"),
    ("func_grad_requires_grad_input", ["loss"], "result = func.grad(loss)(w)"),
    ("func_grad_and_value", ["loss2"], "result = func.grad_and_value(loss2, argnums=(0, 1))(x, y)"),
    ("func_grad_and_value_aux", ["aux"], "result = func.grad_and_value(aux, has_aux=True)(x)"),
    ("func_jacrev", ["pair"], "result = func.jacrev(pair)(x, y)"),
    ("func_jacrev_argnums", ["pair"], "result = func.jacrev(pair, argnums=(0, 1))(x, y)"),
    ("func_jacrev_layer", ["layer"], "result = func.jacrev(layer, argnums=1)(M, x)"),
    ("func_jacrev_has_aux", ["aux"], "result = func.jacrev(aux, has_aux=True)(x)"),
    ("func_jacfwd", ["vec"], "result = func.jacfwd(vec)(x)"),
    ("func_jacfwd_argnums", ["pair"], "result = func.jacfwd(pair, argnums=(0, 1))(x, y)"),
    ("func_jacfwd_negative_argnum", ["pair"], "result = func.jacfwd(pair, argnums=-1)(x, y)"),
    ("func_hessian", ["loss"], "result = func.hessian(loss)(x)"),
    ("func_hessian_argnums", ["loss2"], "result = func.hessian(loss2, argnums=(0, 1))(x, y)"),
    ("func_vjp", ["pair"], "out, pull = func.vjp(pair, x, y)\nresult = (out, pull((y, x)))"),
    (
        "func_vjp_has_aux",
        ["aux"],
        "out, pull, extra = func.vjp(aux, x, has_aux=True)\nresult = (out, pull(s), extra)",
    ),
    ("func_jvp", ["pair"], "result = func.jvp(pair, (x, y), (y, x))"),
    ("func_jvp_has_aux", ["aux"], "result = func.jvp(aux, (x,), (y,), has_aux=True)"),
    ("func_vmap", ["rowsum"], "result = func.vmap(rowsum, in_dims=(0, None))(M, x)"),
    ("func_vmap_out_dims", ["vec"], "result = func.vmap(vec, out_dims=1)(M)"),
    ("func_vmap_grad", ["loss"], "result = func.vmap(func.grad(loss))(M)"),
    ("func_vmap_tuple_out", ["twice"], "result = torch.vmap(twice, in_dims=1)(M)"),
]

ERRORS = [
    ("jacobian_float_output", ["const"], "jacobian(const, x)"),
    ("jacobian_int_input", ["vec"], "jacobian(vec, 3)"),
    ("jacobian_int_in_tuple", ["pair"], "jacobian(pair, (x, 2))"),
    ("jacobian_strict_independent", ["lin"], "jacobian(lambda a, b: a * 2, (x, y), strict=True)"),
    ("jacobian_strict_output", ["ones"], "jacobian(ones, x, strict=True)"),
    ("jacobian_strict_vectorize", ["ident"], "jacobian(ident, x, strict=True, vectorize=True)"),
    ("jacobian_bad_strategy", ["ident"], "jacobian(ident, x, strategy='sideways')"),
    ("jacobian_forward_no_vectorize", ["ident"], "jacobian(ident, x, strategy='forward-mode')"),
    (
        "jacobian_forward_create_graph",
        ["ident"],
        "jacobian(ident, x, create_graph=True, strategy='forward-mode')",
    ),
    (
        "jacobian_forward_strict",
        ["ident"],
        "jacobian(ident, x, strict=True, vectorize=True, strategy='forward-mode')",
    ),
    ("jacobian_bad_keyword", ["ident"], "jacobian(ident, x, bogus=1)"),
    ("hessian_vector_output", ["ident"], "hessian(ident, x)"),
    ("hessian_tuple_output", ["twice"], "hessian(lambda a: (a.sum(),), x)"),
    ("hessian_strict_linear", ["ident"], "hessian(lambda a: a.sum(), x, strict=True)"),
    ("hessian_bad_strategy", ["ident"], "hessian(lambda a: a.sum(), x, outer_jacobian_strategy='up')"),
    ("vjp_v_none", ["ident"], "vjp(ident, x)"),
    ("vjp_v_size", ["ident"], "vjp(ident, x, M)"),
    ("vjp_v_length", ["twice"], "vjp(twice, x, (x,))"),
    ("vjp_v_entry_size", ["twice"], "vjp(twice, x, (x, M))"),
    ("vjp_strict", ["lin"], "vjp(lambda a, b: a * 2, (x, y), x, strict=True)"),
    ("jvp_v_none", ["ident"], "jvp(ident, x)"),
    ("jvp_strict", ["lin"], "jvp(lambda a, b: a * 2, (x, y), (x, y), strict=True)"),
    ("hvp_v_none", ["ident"], "hvp(lambda a: a.sum(), x)"),
    ("hvp_strict", ["ident"], "hvp(lambda a: a.sum(), x, x, strict=True)"),
    ("hvp_vector_output", ["ident"], "hvp(ident, x, x)"),
    ("vhp_tuple_output", ["twice"], "vhp(twice, x, x)"),
    ("func_grad_vector_output", ["ident"], "func.grad(ident)(x)"),
    ("func_grad_argnum_out_of_range", ["loss"], "func.grad(loss, argnums=2)(x)"),
    ("func_grad_argnums_repeated", ["loss"], "func.grad(loss, argnums=(0, 0))(x)"),
    ("func_grad_argnums_empty", ["loss"], "func.grad(loss, argnums=())(x)"),
    ("func_grad_argnums_float", ["loss"], "func.grad(loss, argnums=1.0)(x)"),
    ("func_grad_float_input", ["loss"], "func.grad(loss)(1.0)"),
    ("func_grad_float_output", ["const"], "func.grad(const)(x)"),
    ("func_grad_has_aux_not_pair", ["loss"], "func.grad(loss, has_aux=True)(x)"),
    ("func_jacrev_float_output", ["const"], "func.jacrev(const)(x)"),
    ("func_jacfwd_float_output", ["const"], "func.jacfwd(const)(x)"),
    ("func_jacrev_chunk_size", ["ident"], "func.jacrev(ident, chunk_size=0)"),
    ("func_vjp_long_output", ["longout"], "func.vjp(longout, x)"),
    ("func_vjp_cotangent_structure", ["twice"], "out, pull = func.vjp(twice, x)\npull(x)"),
    ("func_jvp_structure", ["ident"], "func.jvp(ident, (x,), (x, x))"),
    ("func_jvp_not_tuple", ["ident"], "func.jvp(ident, x, x)"),
    ("func_jvp_strict", ["ones"], "func.jvp(ones, (x,), (x,), strict=True)"),
    ("func_vmap_sizes", ["rowsum"], "func.vmap(rowsum)(M, x)"),
    ("func_vmap_in_dims_structure", ["ident"], "func.vmap(ident, in_dims=(0, 0))(x)"),
    ("func_vmap_float_input", ["ident"], "func.vmap(ident)(1.0)"),
    ("func_vmap_in_dim_range", ["ident"], "func.vmap(ident, in_dims=1)(x)"),
    ("func_vmap_float_output", ["const"], "func.vmap(const)(x)"),
    ("func_vmap_nothing_mapped", ["ident"], "func.vmap(ident, in_dims=(None,))(x)"),
    ("func_grad_bad_keyword", ["ident"], "func.grad(ident, bogus=1)"),
    ("func_jacrev_too_many_positional", ["ident"], "func.jacrev(ident, 0, True)"),
    ("func_vmap_no_function", [], "func.vmap()"),
]

FLAVOURS = ("def", "lambda")


def script(uses, body, flavour) -> str:
    defs = "".join(FUNCTIONS[n][FLAVOURS.index(flavour)] for n in uses)
    return HEADER + defs + body + "\n"


def all_cases():
    """(case id, kind 'value' or 'error', script)."""
    out = []
    for kind, table in (("value", VALUES), ("error", ERRORS)):
        for name, uses, body in table:
            for flavour in FLAVOURS:
                out.append((f"{name}[{flavour}]", kind, script(uses, body, flavour)))
    return out


def flatten(value, is_tensor, info):
    """Plain data for a result: `info(t)` gives (shape, dtype name, requires_grad, values) of a tensor."""
    if is_tensor(value):
        shape, dtype, requires_grad, values = info(value)
        return {"tensor": values, "shape": shape, "dtype": dtype, "requires_grad": requires_grad}
    if isinstance(value, (tuple, list)):
        return {type(value).__name__: [flatten(v, is_tensor, info) for v in value]}
    return {"python": repr(value)}


# `diffcli jacobian` / `diffcli hessian` on a script, and the torch.autograd.functional
# program that computes the same from the script's values: (name, command line, program
# binding `result` to {WRT: ...} or {WRT_I: {WRT_J: ...}}, plus "vjp"/"jvp" when asked).
_LAYER = "W = [[1.0, -0.5], [0.25, 2.0]]\nx = [0.5, -1.0]\ny = tanh(W @ x)\np = sum(y^2)\n"
_LAYER_T = """\
import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp
W = torch.tensor([[1.0, -0.5], [0.25, 2.0]], dtype=torch.float64)
x = torch.tensor([0.5, -1.0], dtype=torch.float64)
y_of = lambda W, x: torch.tanh(W @ x)
p_of = lambda W, x: (torch.tanh(W @ x) ** 2).sum()
"""
_BCAST = "a = [[1.0], [2.0]]\nb = [0.5, -1.0, 2.0]\ny = exp(a * b) / 3\np = sum(y * y * b)\n"
_BCAST_T = """\
import torch
from torch.autograd.functional import jacobian, hessian
a = torch.tensor([[1.0], [2.0]], dtype=torch.float64)
b = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64)
y_of = lambda a, b: torch.exp(a * b) / 3
p_of = lambda a, b: (y_of(a, b) * y_of(a, b) * b).sum()
"""
_CARD = "x = a + b; y = x*w; p = sin((0.5*y^2-1)/2-0.1)\n"
_CARD_T = """\
import torch
from torch.autograd.functional import jacobian, hessian
a, b, w = (torch.tensor(v, dtype=torch.float64) for v in (1.0, 2.0, 0.5))
p_of = lambda a, b, w: torch.sin((0.5 * ((a + b) * w) ** 2 - 1) / 2 - 0.1)
"""
_MATMUL = (
    "import torch\nW = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
    "v = torch.tensor([0.5, -1.0], requires_grad=True)\nh = W @ v\ns = torch.tanh(h).sum()\n"
)
_MATMUL_T = """\
import torch
from torch.autograd.functional import jacobian, hessian
W = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
v = torch.tensor([0.5, -1.0])
h_of = lambda W, v: W @ v
s_of = lambda W, v: torch.tanh(W @ v).sum()
"""

COMMAND_CASES = [
    (
        "layer_jacobian_y",
        ["jacobian", "-e", _LAYER, "--of", "y", "--wrt", "W,x"],
        _LAYER_T + "J = jacobian(y_of, (W, x))\nresult = {'W': J[0], 'x': J[1]}\n",
    ),
    (
        "layer_jacobian_p_default_wrt",
        ["jacobian", "-e", _LAYER],
        _LAYER_T + "J = jacobian(p_of, (W, x))\nresult = {'W': J[0], 'x': J[1]}\n",
    ),
    (
        "layer_hessian_p",
        ["hessian", "-e", _LAYER, "--wrt", "W,x"],
        _LAYER_T
        + "H = hessian(p_of, (W, x))\nresult = {'W': {'W': H[0][0], 'x': H[0][1]}, 'x': {'W': H[1][0], 'x': H[1][1]}}\n",
    ),
    (
        "layer_hessian_x_only",
        ["hessian", "-e", _LAYER, "--of", "p", "--wrt", "x"],
        _LAYER_T + "result = {'x': {'x': hessian(lambda x: p_of(W, x), x)}}\n",
    ),
    (
        "layer_jacobian_vjp",
        ["jacobian", "-e", _LAYER, "--of", "y", "--wrt", "W,x", "--vjp", "[1.5, -2.0]"],
        _LAYER_T
        + "J = jacobian(y_of, (W, x))\n_, g = vjp(y_of, (W, x), torch.tensor([1.5, -2.0], dtype=torch.float64))\n"
        "result = {'W': J[0], 'x': J[1], 'vjp': {'W': g[0], 'x': g[1]}}\n",
    ),
    (
        "layer_jacobian_jvp",
        ["jacobian", "-e", _LAYER, "--of", "y", "--wrt", "x", "--jvp", "[0.25, 3.0]"],
        _LAYER_T + "J = jacobian(lambda x: y_of(W, x), x)\n"
        "_, u = jvp(lambda x: y_of(W, x), x, torch.tensor([0.25, 3.0], dtype=torch.float64))\n"
        "result = {'x': J, 'jvp': u}\n",
    ),
    (
        "broadcast_jacobian",
        ["jacobian", "-e", _BCAST, "--of", "y", "--wrt", "a,b"],
        _BCAST_T + "J = jacobian(y_of, (a, b))\nresult = {'a': J[0], 'b': J[1]}\n",
    ),
    (
        "broadcast_hessian",
        ["hessian", "-e", _BCAST, "--wrt", "b,a"],
        _BCAST_T + "H = hessian(p_of, (b, a)[::-1])\n"
        "result = {'b': {'b': H[1][1], 'a': H[1][0]}, 'a': {'b': H[0][1], 'a': H[0][0]}}\n",
    ),
    (
        "card_jacobian",
        ["jacobian", "-e", _CARD, "--set", "a=1", "--set", "b=2", "--set", "w=0.5"],
        _CARD_T + "J = jacobian(p_of, (a, b, w))\nresult = dict(zip('abw', J))\n",
    ),
    (
        "card_hessian",
        ["hessian", "-e", _CARD, "--set", "a=1", "--set", "b=2", "--set", "w=0.5", "--wrt", "a,b,w"],
        _CARD_T
        + "H = hessian(p_of, (a, b, w))\nresult = {n: dict(zip('abw', row)) for n, row in zip('abw', H)}\n",
    ),
    (
        "matmul_float32_jacobian",
        ["jacobian", "-e", _MATMUL, "--of", "h"],
        _MATMUL_T + "J = jacobian(h_of, (W, v))\nresult = {'W': J[0], 'v': J[1]}\n",
    ),
    (
        "matmul_float32_hessian",
        ["hessian", "-e", _MATMUL, "--of", "s"],
        _MATMUL_T
        + "H = hessian(s_of, (W, v))\nresult = {'W': {'W': H[0][0], 'v': H[0][1]}, 'v': {'W': H[1][0], 'v': H[1][1]}}\n",
    ),
]


def nested(value, tolist):
    """A command case's result as plain nested lists (dicts kept)."""
    if isinstance(value, dict):
        return {k: nested(v, tolist) for k, v in value.items()}
    return tolist(value)
