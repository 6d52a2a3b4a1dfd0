"""`diffcli explain` against PyTorch's engine, node by node (Done when 1 and 2 of issue 13).

Goldens: tests/goldens/explain.json, recorded by tests/goldens/record_explain.py (the two
samples' chains and random scripts of tests/lang/script_gen.py). For each case, diffcli's
explanation is matched to PyTorch's graph by walking both from the target's grad_fn
through next_functions (depth first, each node once) and:

- each step's grad_output is PyTorch's gradient at that node's output (its pre-hook:
  what retain_grad() gives), and each input's grad is what PyTorch's node sent to it;
- each named leaf's grad is PyTorch's;
- every input's grad is grad_output x local, summed over the broadcast dims, where the
  row gives a local derivative;
- every op node has a formula for each input (from its row), and the formula evaluated
  by diffcli's interpreter at the inputs PyTorch saved gives diffcli's `local`.

The live differential test does the same against torch itself, on more random scripts
(skipped without torch).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from diffcli import session
from diffcli.engine import dtypes
from diffcli.engine.ops import rows
from diffcli.engine.tensor import Tensor
from diffcli.explain import steps
from diffcli.lang.interpreter import Interpreter
from diffcli.lang.parse import parse
from diffcli.source import Source

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "goldens"))
import record_explain  # noqa: E402

GOLDENS = json.loads((ROOT / "tests" / "goldens" / "explain.json").read_text())["cases"]
TOL = {"float64": (1e-9, 1e-12), "float32": (2e-4, 1e-5)}


def as_array(v):
    if isinstance(v, list):
        return np.array([as_array(x) for x in v], dtype=np.float64)
    if isinstance(v, str):
        return np.float64(v)
    return np.float64(v)


def explain_case(case):
    """diffcli's Explanation of the case, and its nodes in the recorder's order."""
    sets = dict(s.split("=", 1) for s in case["sets"])
    opts = session.Options(sets={k: session.parse_literal(v, "--set") for k, v in sets.items()}, trace=True)
    obs = steps.Observer()
    run = steps.execute(Source(case["script"], "<case>"), opts, write=lambda s: None, observer=obs)
    do_backward = None
    if case["of"] is not None:

        def do_backward():
            gt = None
            if case["grad_tensors"] is not None:
                gt = Tensor(
                    np.asarray(json.loads(case["grad_tensors"]), dtype=run.env[case["of"]].array.dtype)
                )
            session.run_backward(run, case["of"], gt)

    ex = steps.explain(run, case["target"], do_backward)
    target = run.env[case["target"]]
    order = record_explain.dfs(target.grad_fn, lambda n: list(n.next_nodes))
    by_node = {}
    ids = {}
    for g in ex.graph:
        if g.tensor.grad_fn is not None:
            ids[g.tensor.grad_fn] = g.id
    for s in ex.steps:
        by_node.setdefault(s.node, s)
    return ex, [(n, by_node.get(ids.get(n))) for n in order]


def _close(got, want, tol):
    if want is None or got is None:
        return got is None and want is None
    got = np.asarray(got, dtype=np.float64)
    want = as_array(want)
    return got.shape == want.shape and bool(np.allclose(got, want, rtol=tol[0], atol=tol[1], equal_nan=True))


def _sum_to(g, shape):
    return steps._sum_to(g, shape)[0]


def check(case, torch_nodes, torch_leaves):
    tol = TOL["float32" if case["dtype"] == "float32" else "float64"]
    ex, mine = explain_case(case)
    assert len(mine) == len(torch_nodes), case["id"]
    for (node, step), rec in zip(mine, torch_nodes):
        assert node.name() == rec["grad_fn"], (case["id"], node.name(), rec["grad_fn"])
        if rec["grad_fn"] == "AccumulateGrad":
            continue
        if rec["grad_output"] is None:  # PyTorch did not run it (or several outputs)
            continue
        assert step is not None, (case["id"], node.name(), "no step")
        assert _close(step.grad_output, rec["grad_output"], tol), (case["id"], node.name(), "grad_output")
        assert len(step.inputs) == len(rec["grad_inputs"]), (case["id"], node.name())
        for k, (inp, want) in enumerate(zip(step.inputs, rec["grad_inputs"])):
            if node.next_nodes[k] is None:
                continue  # no edge: PyTorch may still compute one
            assert _close(inp.grad, want, tol), (case["id"], node.name(), k, inp.grad, want)
            if inp.local is not None:  # grad = grad_output x local, broadcast dims summed
                flow = _sum_to(np.asarray(step.grad_output) * inp.local, np.shape(inp.grad))
                assert _close(flow, inp.grad.tolist(), (max(tol[0], 1e-7), max(tol[1], 1e-9))), (
                    case["id"],
                    node.name(),
                    k,
                )
    for name, want in torch_leaves.items():
        if name in ex.leaves:
            assert _close(ex.leaves[name][0], want, tol), (case["id"], name)
    return ex, mine


@pytest.mark.parametrize("case", GOLDENS, ids=[c["id"] for c in GOLDENS])
def test_explain_matches_pytorchs_engine(case):
    check(case, case["nodes"], case["leaves"])


def test_the_goldens_cover_the_samples_and_random_scripts():
    ids = [c["id"] for c in GOLDENS]
    assert ids[:2] == ["card", "seed1"] and len(ids) >= 20


# --- the formulas, from the rows --------------------------------------------------------


def _evaluate(text, env):
    interp = Interpreter(write=lambda s: None)
    interp.env.update(env)
    out = interp.run(parse(f"d = {text}\n")).env["d"]
    return np.asarray(out.array if isinstance(out, Tensor) else out, dtype=np.float64)


def _formula_cases():
    for case in GOLDENS:
        yield pytest.param(case, id=case["id"])


@pytest.mark.parametrize("case", list(_formula_cases()))
def test_every_input_has_a_formula_that_gives_local_at_pytorchs_inputs(case):
    """Each op node's row gives a formula per input (a row without one fails here), and
    the formula evaluated at the inputs PyTorch saved is diffcli's local value."""
    prev = dtypes.use_defaults(dtypes.MATH)
    try:
        ex, mine = explain_case(case)
    finally:
        dtypes.use_defaults(prev)
    checked = 0
    for (node, step), rec in zip(mine, case["nodes"]):
        if step is None or rec["grad_fn"] == "AccumulateGrad":
            continue
        row = steps.row_of(node.name())
        assert row is not None, f"{node.name()}: no op row"
        assert len(row.grads) == len(row.inputs) and all(d.text.strip() for d in row.grads), (
            f"row {row.name}: no formula for each input"
        )
        assert all(i.formula for i in step.inputs[: len(row.inputs)]), (
            node.name(),
            "a step without a formula",
        )
        saved = {k: as_array(v) for k, v in rec["saved"].items()}
        for k, inp in enumerate(step.inputs):
            if inp.local is None or k >= len(row.inputs):
                continue
            text = row.grads[k].text
            needs = set(steps.re.findall(r"[A-Za-z_]\w*", text)) & set(row.params)
            if not needs <= set(saved):
                continue  # PyTorch did not save what this text reads
            tensors = set(row.inputs) | {rows.RESULT}
            if any(p not in tensors and np.size(saved[p]) != 1 for p in needs):
                continue  # an arg saved as a tensor (where's condition, recorded as floats)
            env = {p: Tensor(np.asarray(saved[p])) if p in tensors else saved[p].item() for p in needs}
            want = np.broadcast_to(_evaluate(text, env), np.shape(inp.local)) if row.elementwise else None
            if want is None:
                continue
            tol = 2e-4 if case["dtype"] == "float32" else 1e-9
            np.testing.assert_allclose(
                inp.local, want, rtol=tol, atol=tol, err_msg=f"{node.name()} d/d{row.inputs[k]}"
            )
            checked += 1
    if case["id"] in ("card", "seed1"):
        assert checked >= 3


# --- live, against torch --------------------------------------------------------------


@pytest.mark.slow
def test_live_differential_against_torch():
    torch = pytest.importorskip("torch")
    assert torch is not None
    cases = record_explain.sample_cases() + record_explain.random_cases(40)
    compared = 0
    for case in cases:
        try:
            got = record_explain.torch_record(case)
        except Exception:  # noqa: BLE001 - what PyTorch refuses is not compared
            continue
        if got is None:
            continue
        check(case, got["nodes"], got["leaves"])
        compared += 1
    assert compared >= 10
