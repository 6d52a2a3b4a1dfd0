"""The op rows (diffcli/engine/ops/rows.py): every differentiable op has one, with a text per
input that diffcli's own language evaluates, and the texts say what the engine computes.

- every differentiable function, method and operator of the op table names its rows, and
  every row has a text for each of its inputs; every node the PyTorch goldens show has a row;
- every text parses as a diffcli expression;
- at the inputs the goldens record, each row's text, evaluated by diffcli's interpreter,
  gives the engine's gradient: for an elementwise row grad * text (summed over broadcast
  dims), for the others the text itself (a vector-Jacobian product in `grad`);
- every formula binds in both namespaces (Tensor ops and, for the scalar lane, floats);
- every row has its formulas (or a joint one), those of ops written by hand too, but the
  few listed in HAND_WRITTEN with the reason; each is checked at recorded inputs, by a
  golden whose graph shows its node, or by the test CHECKED_ELSEWHERE names;
- the nodes only backward formulas record (_softmax_backward_data, tanh_backward, the
  scatter/gather of max.dim's gradient...) have rows too: no call in ops/ passes record()
  a backward by hand, but those OWN_BACKWARD lists with the reason.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from diffcli.engine import FUNCTIONS, INPLACE, METHODS, Tensor, grad, tensor
from diffcli.engine.ops import assignment, indexing, inplace, rows
from diffcli.lang.interpreter import Interpreter
from diffcli.lang.parse import parse
from tests.helpers import NOT_DIFFERENTIABLE, as_array, load_ops_goldens, snippet_namespace, upstream_gradient

RECORDS = [r for r in load_ops_goldens() if "error" not in r]

# nodes the engine makes that are not ops of their own (a leaf's sink, a missing derivative)
NOT_OPS = {"AccumulateGrad", "NotImplemented"}


def _row_names(fn):
    return [r.name for r in getattr(fn, "rows", ())]


def _differentiable():
    table = {
        **{f"torch.{k}": v for k, v in FUNCTIONS.items()},
        **{f"Tensor.{k}": v for k, v in METHODS.items()},
        **{f"Tensor.{k}": v for k, v in INPLACE.items()},
    }
    ops = {name: fn for name, fn in table.items() if name.split(".")[1] not in NOT_DIFFERENTIABLE}
    ops.update(
        {
            "x[key]": indexing.getitem,
            "x[key] = v": assignment.setitem,
            "iter(x)": indexing.unbind,
            "Tensor.zero_": inplace.zero_,
            "Tensor.fill_": inplace.fill_,
        }
    )
    return ops


def test_every_differentiable_op_has_rows_with_a_text_per_input():
    missing, untexted = [], []
    for name, fn in _differentiable().items():
        target = getattr(fn, "rows", None)
        if target is None and name.startswith("Tensor.") and name.endswith("_"):
            target = getattr(METHODS.get(name[7:-1]), "rows", None)  # x.op_(): op's rows
        if not target:
            missing.append(name)
    for row in rows.ROWS.values():
        if len(row.grads) != len(row.inputs) or not all(d.text.strip() for d in row.grads):
            untexted.append(row.name)
    assert not missing, f"differentiable ops without rows: {sorted(missing)}"
    assert not untexted, f"rows without a text per input: {untexted}"


def test_every_node_the_goldens_show_has_a_row():
    shown = set()
    for r in RECORDS:
        shown |= set(re.findall(r"(\w+)\(", r["graph"]))
    have = {row.grad_fn for row in rows.ROWS.values()}
    assert not sorted(shown - have - NOT_OPS), "nodes without a row"


def test_the_added_ops_are_one_row_each():
    for name, grad_fn in (
        ("hypot", "HypotBackward0"),
        ("erf", "ErfBackward0"),
        ("logaddexp", "LogaddexpBackward0"),
        ("sinc", "SincBackward0"),
    ):
        (row,) = FUNCTIONS[name].rows
        assert row.grad_fn == grad_fn and all(d.formula is not None for d in row.grads)


@pytest.mark.parametrize("row", list(rows.ROWS.values()), ids=list(rows.ROWS))
def test_texts_are_diffcli_expressions(row):
    for d in row.grads:
        parse(f"d = {d.text}\n")


# --- the texts against the engine, at the goldens' inputs ----------------------------------

_LEAF = re.compile(r"^AccumulateGrad\[(\w+)\]$")


def _leaf_inputs(record, row):
    """The leaf names feeding the record's output node, in the row's input order, or None
    (an input that is not a leaf: a constant, a Python number, another op)."""
    m = re.match(r"^(\w+)\((.*)\)$", record["graph"])
    if m is None or m.group(1) != row.grad_fn:
        return None
    parts = [p.strip() for p in m.group(2).split(", ")] if m.group(2) else []
    names = [_LEAF.match(p) for p in parts]
    if len(names) != len(row.inputs) or not all(names):
        return None
    return [n.group(1) for n in names]


def _evaluate(text, env):
    interp = Interpreter(write=lambda s: None)
    interp.env.update(env)
    return interp.run(parse(f"d = {text}\n")).env["d"]


def _sum_to(g, shape):
    g = g.sum(axis=tuple(range(g.ndim - len(shape)))) if g.ndim > len(shape) else g
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape)


def _has_formulas(row):
    return row.joint is not None or any(d.formula is not None for d in row.grads)


def _op_args(row):
    """The row's args a record's expression gives (unknown here); not the input's sizes
    a hand-written op passes its row (`self_sym_sizes`: the input's shape)."""
    return [a for a, _ in row.args if not a.endswith("_sym_sizes")]


def _cases():
    """(row, record) for each row that takes no args (the record's expression is then the
    op at its inputs) or whose op the row makes (called here with the args' defaults), at
    each record whose output is the row's node on distinct leaves (away from the edge
    points' kinks)."""
    for row in rows.ROWS.values():
        if row.name not in rows.OPS and _op_args(row):
            continue
        for r in RECORDS:
            names = _leaf_inputs(r, row)
            if (
                r["group"] != "edge_point_gradients"
                and r["output"]["requires_grad"]
                and names is not None
                and len(set(names)) == len(names)
            ):
                yield pytest.param(row, r, id=f"{row.name}@{r['id']}")


CASES = list(_cases())
FORMULA_ROWS = {row.name for row in rows.ROWS.values() if _has_formulas(row)}


def test_every_formula_row_is_checked_at_recorded_inputs():
    """A row whose op the row makes (and a hand-written op's row without args a record
    must give) is checked here at some recorded input; a hand-written op's row with such
    args (sum.dim_IntList's dim) by a golden whose graph shows its node, whose gradients
    tests/engine/test_grad_fn_names.py replays against PyTorch's."""
    checked = {c.values[0].name for c in CASES}
    shown = set()
    for r in RECORDS:
        if r["output"]["requires_grad"]:
            shown |= set(re.findall(r"(\w+)\(", r["graph"]))
    unchecked = {
        name
        for name in FORMULA_ROWS - checked - set(CHECKED_ELSEWHERE)
        if name in rows.OPS or rows.ROWS[name].grad_fn not in shown
    }
    assert not sorted(unchecked), "rows without a golden"


# rows no golden of ops.json shows (a node only a backward formula makes; an op recorded
# by its own test), with the test that checks their gradients against PyTorch's
CHECKED_ELSEWHERE = {
    "clamp_min.Tensor": "test_torchdiff.py::test_script_prints_and_fails_as_pytorch_did[clamp_min_tensor_bound_create_graph]",
    "clamp_max.Tensor": "test_torchdiff.py::test_script_prints_and_fails_as_pytorch_did[clamp_max_broadcast_0d_bound_backward]",
    "diagonal_backward": "test_method_ops.py::test_diagonal_gradient_is_diagonal_backward_whose_gradient_is_a_diagonal",
    "unfold_backward": "test_method_ops.py::test_unfold_gradient_is_unfold_backward_whose_gradient_is_an_unfold",
    "cumprod": "test_create_graph.py::test_prod_gradient_under_create_graph_records_what_pytorch_records",
    "binary_cross_entropy_with_logits": "test_losses_logits.py::test_recorded",
    "unbind.int": "test_views.py::test_unbind_views_give_each_element_its_gradient",
    "fill_.Scalar": "test_views.py::test_fill_with_a_number_cuts_the_gradient",
    "add.Scalar": "test_create_graph.py::test_unary_gradients_record_pytorchs_formulas",
    "sub.Scalar": "test_create_graph.py::test_unary_gradients_record_pytorchs_formulas",
    "_softmax_backward_data": "test_create_graph.py::test_softmax_gradients_record_their_backward_data_ops",
    "_log_softmax_backward_data": "test_create_graph.py::test_softmax_gradients_record_their_backward_data_ops",
    "gelu_backward": "test_create_graph.py::test_unary_gradients_record_pytorchs_formulas",
    "threshold_backward": "test_create_graph.py::test_relu_second_derivative_is_zero",
    "leaky_relu_backward": "test_rows.py::test_leaky_relu_gradient_of_its_gradient_as_pytorch",
    "softplus_backward": "test_create_graph.py::test_unary_gradients_record_pytorchs_formulas",
    "elu_backward": "test_create_graph.py::test_unary_gradients_record_pytorchs_formulas",
    "tanh_backward": "test_create_graph.py::test_tanh_and_sigmoid_gradients_record_their_backward_ops",
    "sigmoid_backward": "test_create_graph.py::test_tanh_and_sigmoid_gradients_record_their_backward_ops",
    "convolution": "tests/lang/test_nn_conv.py::test_conv_grid_forward_is_bit_exact_and_gradients_close",
    "max_pool2d_with_indices": "tests/lang/test_nn_conv.py::test_script_prints_what_pytorch_printed",
    "avg_pool2d": "tests/lang/test_nn_conv.py::test_script_prints_what_pytorch_printed",
    "native_layer_norm": "tests/lang/test_nn_conv.py::test_close_cases_match_to_a_tolerance",
    "backward_hook_function": "tests/lang/test_nn_conv.py::test_script_prints_what_pytorch_printed",
    "native_batch_norm": "tests/lang/test_nn_conv.py::test_close_cases_match_to_a_tolerance",
    # the activations' backward ops: their nodes and gradients are in the second-order
    # records of tests/goldens/activation_cases.py (the gradient's graph and an HVP)
    "hardtanh_backward": "test_grad_fn_names.py::test_second_order_matches_pytorch[activations/F.hardtanh]",
    "hardshrink_backward": "test_grad_fn_names.py::test_second_order_matches_pytorch[activations/F.hardshrink]",
    "softshrink_backward": "test_grad_fn_names.py::test_second_order_matches_pytorch[activations/F.softshrink]",
    "hardswish_backward": "test_grad_fn_names.py::test_second_order_matches_pytorch[activations/F.hardswish]",
    "log_sigmoid_backward": "test_grad_fn_names.py::test_second_order_matches_pytorch[activations/F.logsigmoid]",
}


# the rows whose op still passes its backward to Row.record by hand (row name -> why it
# cannot be a row formula without changing behaviour)
HAND_WRITTEN = {
    "clamp.Tensor": (
        "selection.py:clamp with Tensor bounds: an absent bound is no input, and the node saves"
        " the present inputs, always; the row's rule would save a placeholder for it (a pack"
        " hook would see one more tensor) or drop a bound a formula reads"
    ),
}


def test_every_differentiable_row_has_its_formulas():
    """The backward is written once, in the row: every row has a formula per input (or a
    `joint`), but those listed in HAND_WRITTEN (and only they: an entry goes once its op
    records through its row's formulas)."""
    without = {row.name for row in rows.ROWS.values() if not _has_formulas(row)}
    assert sorted(without - set(HAND_WRITTEN)) == [], "rows without formulas"
    assert sorted(set(HAND_WRITTEN) - without) == [], "listed as hand-written, yet have formulas"


# the calls in diffcli/engine/ops/ that give a node a backward not made from a row's
# formulas by Row.record: function.record(name, out, inputs, backward, ...), or
# ROW.record(out, inputs, backward, ...); (module, function) -> why
OWN_BACKWARD = {
    ("rows.py", "record"): "Row.record itself: the backward bound from the row's formulas",
    ("elementwise.py", "ordinary_path"): (
        "an elementwise row's op (one input): the backward is the row's variant (rows.variant)"
    ),
    ("elementwise.py", "ordinary"): (
        "an elementwise row's op (two inputs): the backward is the row's variant (rows.variant)"
    ),
    ("arithmetic.py", "_not_implemented_node"): (
        "PyTorch's NotImplemented node (floor_divide/remainder): no derivative, its backward raises"
    ),
    ("selection.py", "clamp"): "clamp.Tensor, listed in HAND_WRITTEN",
    ("counting.py", "_no_derivative_node"): (
        "unique's Unique2Backward0/UniqueDimBackward0: PyTorch implements no derivative, its backward raises"
    ),
    ("inplace.py", "_gather"): (
        "CopySlices' read of a view's elements by flat offsets: a 0-d base has no index key for them"
    ),
    ("inplace.py", "_scatter"): "the write that _gather's read is the gradient of (and the other way)",
}


def _own_backward_calls():
    """(module, enclosing function) of each call in ops/ that passes a backward by hand."""
    found = set()
    for path in sorted(Path(rows.__file__).parent.glob("*.py")):

        def walk(node, fn, path=path):
            for ch in ast.iter_child_nodes(node):
                f = ch.name if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)) else fn
                if isinstance(ch, ast.Call):
                    func = ch.func
                    by_hand = (isinstance(func, ast.Name) and func.id == "record") or (
                        isinstance(func, ast.Attribute)
                        and func.attr == "record"
                        and (len(ch.args) >= 3 or any(k.arg == "backward" for k in ch.keywords))
                    )
                    if by_hand:
                        found.add((path.name, fn))
                walk(ch, f)

        walk(ast.parse(path.read_text()), None)
    return found


def test_no_op_passes_its_backward_by_hand_but_the_listed_ones():
    """Every node an op (or a backward formula) records has its row: no call in ops/ gives
    record() a closure, but those OWN_BACKWARD lists with the reason."""
    found = _own_backward_calls()
    assert sorted(found - set(OWN_BACKWARD)) == [], "backwards passed by hand: give the node a row"
    assert sorted(set(OWN_BACKWARD) - found) == [], "listed, yet no longer passing a backward"


@pytest.mark.parametrize("row, record", CASES)
def test_text_gives_the_engines_gradient(row, record):
    ns = snippet_namespace()
    exec(record["setup"], ns)
    leaves = [ns[n] for n in _leaf_inputs(record, row)]
    if not all(t.array.dtype == np.float64 for t in leaves):
        pytest.skip("float32 inputs (the texts are checked in float64)")
    fn = rows.OPS.get(row.name)
    if fn is None:  # a row of an op written by hand: the record's own expression
        out = eval(record["expr"], ns)
    else:
        defaults = [d for _, d in row.args]
        if row.inputs == ("exponent",):  # pow(Scalar, Tensor): the number is its first arg
            defaults = [2.0]
        out = fn(*leaves, *defaults)
    g = Tensor(np.ones_like(out.array)) if out.array.ndim == 0 else upstream_gradient(out, record["group"])
    engine = grad(out, leaves, grad_outputs=g, allow_unused=True)
    env = {**dict(zip(row.inputs, leaves)), "result": out.detach(), "grad": g, **{a: d for a, d in row.args}}
    if row.inputs == ("exponent",):
        env["self"] = 2.0
    for name, leaf, want, d in zip(row.inputs, leaves, engine, row.grads):
        got = _evaluate(d.text, env)
        got = np.asarray(got.array if isinstance(got, Tensor) else got, dtype=np.float64)
        if row.elementwise:
            got = _sum_to(np.broadcast_to(got * g.array, out.array.shape), leaf.array.shape)
        want = np.zeros(leaf.array.shape) if want is None else want.array
        np.testing.assert_allclose(
            np.broadcast_to(got, want.shape), want, rtol=1e-10, atol=1e-12, err_msg=f"d/d{name}: {d.text}"
        )
        if fn is None or row.args:
            continue
        golden = record["grads"][_leaf_inputs(record, row)[row.inputs.index(name)]]
        np.testing.assert_allclose(want, as_array(golden["values"]), rtol=1e-12, atol=1e-15)


# --- the formulas bind in both namespaces ---------------------------------------------------


@pytest.mark.parametrize(
    "row", [r for r in rows.ROWS.values() if r.name in FORMULA_ROWS], ids=lambda r: r.name
)
def test_formulas_bind_to_tensors_and_floats(row):
    """Every pattern of which inputs require grad binds (no name missing from
    TENSOR_NS), and a lane row's also on floats (none missing from FLOAT_NS)."""
    n = len(row.inputs)
    patterns = [p for p in itertools.product((False, True), repeat=n) if any(p)]
    for needs in patterns:
        v = rows.variant(row, needs)
        assert v.fast is None
        if row.lane is not None:
            lane_args = (row.args[0][0],) if n == 1 and row.args else ()
            assert rows.variant(row, needs, lane=True, lane_args=lane_args).fast is not None


# --- the rows of nodes only a backward formula records ---------------------------------------


def _names(t):
    """t's grad_fn and the names of the nodes below it."""
    out, todo = [], [t.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is not None and fn.name() not in out:
            out.append(fn.name())
            todo += [f for f, _ in fn.next_functions]
    return out


def test_max_dim_gradients_scatter_and_gather_as_pytorch():
    """max(dim)'s gradient is a scatter into zeros (scatter.src, ScatterBackward0, its first
    edge the zeros': None), whose gradient is a gather (GatherBackward0), whose gradient is
    a scatter_add (ScatterAddBackward0); names and values as torch 2.13's."""
    x = tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
    w = tensor([1.5, -2.0], requires_grad=True)
    v = tensor([[0.25, 0.5, 0.75], [1.0, 1.25, 1.5]], requires_grad=True)
    (gx,) = grad((x.max(1).values * w).sum(), x, create_graph=True)
    assert gx.grad_fn.name() == "ScatterBackward0"
    assert gx.grad_fn.next_functions[0] == (None, 0)
    assert gx.tolist() == [[0.0, 0.0, 1.5], [0.0, -2.0, 0.0]]
    (gw,) = grad((gx * v).sum(), w, create_graph=True)
    assert "GatherBackward0" in _names(gw)
    assert gw.tolist() == [0.75, 1.25]
    (gv,) = grad((gw * w).sum(), v, create_graph=True)
    assert "ScatterAddBackward0" in _names(gv)
    assert gv.tolist() == [[0.0, 0.0, 1.5], [0.0, -2.0, 0.0]]


def test_cross_entropy_mean_over_probabilities_divides_as_a_scalar_under_create_graph():
    """cross_entropy's 'mean' over class probabilities divides by the batch size as a Scalar
    (div.Scalar, DivBackward1), and so does its gradient under create_graph, as PyTorch's
    `grad / other` in C++ is (torch 2.13: the incoming gradient requiring grad shows it)."""
    a = tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], requires_grad=True)
    t = tensor([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
    loss = FUNCTIONS["cross_entropy"](a, t)
    assert loss.grad_fn.name() == "DivBackward1"
    go = tensor(2.0, requires_grad=True)
    (g,) = grad(loss, a, grad_outputs=go, create_graph=True)
    names = _names(g)
    assert names[0] == "LogSoftmaxBackwardDataBackward0" and "DivBackward1" in names
    assert "DivBackward0" not in names
    assert g.tolist() == [
        [-0.08150034546499044, -0.2941002495980972, 0.37560059506308763],
        [-0.07080359079233584, 0.3668522864827245, -0.2960486956903887],
    ]


def test_leaky_relu_gradient_of_its_gradient_as_pytorch():
    """leaky_relu's gradient is leaky_relu_backward (LeakyReluBackwardBackward0); its own
    gradient is the same op in the incoming gradient and zeros in the input (torch 2.13)."""
    x = tensor([0.5, -1.0, 2.0], requires_grad=True)
    go = tensor([1.5, -2.0, 0.25], requires_grad=True)
    (g,) = grad(FUNCTIONS["leaky_relu"](x, 0.1), x, grad_outputs=go, create_graph=True)
    assert g.grad_fn.name() == "LeakyReluBackwardBackward0"
    assert g.tolist() == [1.5, -0.2, 0.25]
    v = tensor([1.0, 3.0, -0.5])
    gg, gx = grad((g * v).sum(), (go, x))
    assert gg.tolist() == [1.0, 0.30000000000000004, -0.5]
    assert gx.tolist() == [0.0, 0.0, 0.0]
