"""Record what PyTorch's engine does at every node of a backward pass, for `diffcli explain`
(tests/explain/test_explain.py): explain.json.

Run by hand, with PyTorch installed, from the repository root:

    python3 tests/goldens/record_explain.py       # rewrites tests/goldens/explain.json

Cases: the chains of the two samples the README explains (samples/card.txt, the math
flavour, and samples/seed1.txt, z = w * x + b) and random scripts of the script generator
(tests/lang/script_gen.py, derandomized, without errors): each script's forward part,
differentiated at its target. PyTorch runs the same program (the generator writes it line
for line); before the backward, a pre-hook and a hook go on every node reached from the
target's grad_fn through next_functions (depth first, in next_functions order, each node
once: `dfs` in the test walks diffcli's graph the same way). Recorded per node: its name,
the gradient arriving at its output (pre-hook: what retain_grad() would give), the
gradient it sends to each input (hook: None where no gradient flows), and its saved
tensors (`_saved_self`, `_saved_result`, ...: the inputs its formulas read); then every
named leaf's .grad.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = HERE / "explain.json"
RANDOM_SCRIPTS = 30  # kept: those whose target's graph has two op nodes at least
DRAWN = 150

CARD_TORCH = """import torch
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
w = torch.tensor(0.5, requires_grad=True)
x = a + b; y = x*w; p = torch.sin((0.5*y**2-1)/2-0.1)
"""


def sample_cases():
    seed1 = (ROOT / "samples" / "seed1.txt").read_text()
    forward = "\n".join(
        line for line in seed1.splitlines() if ".backward()" not in line and "print(" not in line
    )
    return [
        {
            "id": "card",
            "script": (ROOT / "samples" / "card.txt").read_text(),
            "sets": ["a=1", "b=2", "w=0.5"],
            "of": "p",
            "grad_tensors": None,
            "torch": CARD_TORCH,
            "target": "p",
            "dtype": "float64",
        },
        {
            "id": "seed1",
            "script": seed1,
            "sets": [],
            "of": None,
            "grad_tensors": None,
            "torch": forward + "\n",
            "target": "z",
            "dtype": "float32",
        },
    ]


def random_cases(n=RANDOM_SCRIPTS):
    """n distinct programs of the script generator (a fixed seed: the same ones every
    time, for a given generator), generated without shrinking."""
    sys.path.insert(0, str(ROOT))  # (tests.lang.script_gen imports its sibling generators)
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from tests.lang.script_gen import programs

    out, seen = [], set()

    @seed(13)
    @settings(
        max_examples=n * 10,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(programs(errors=False))
    def collect(prog):
        if (
            len(out) >= n
            or prog.expect_error
            or prog.forward_script in seen
            or len(prog.forward_script.splitlines()) < 4
        ):  # a chain of some length
            return
        seen.add(prog.forward_script)
        lines = prog.forward_script.splitlines()
        out.append(
            {
                "id": f"random{len(out)}",
                "script": prog.forward_script + "\n",
                "sets": [],
                "of": prog.target,
                "grad_tensors": None if prog.gradient is None else json.dumps(prog.gradient),
                "torch": "\n".join(prog.torch_program.splitlines()[: len(lines)]) + "\n",
                "target": prog.target,
                "dtype": prog.dtype,
                "leaves": list(prog.leaves),
            }
        )

    collect()
    return out


def _plain(t):
    if t is None:
        return None
    v = t.detach().double().tolist()
    return _fix(v)


def _fix(v):
    if isinstance(v, list):
        return [_fix(x) for x in v]
    if isinstance(v, bool) or not isinstance(v, float):
        return v
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def dfs(root, children):
    """Nodes reached from `root`, depth first in `children` order, each once."""
    order, seen, stack = [], set(), [root]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        order.append(n)
        stack.extend(reversed(children(n)))
    return order


def torch_record(case):
    """Run the case's PyTorch program; hooks on every node; backward of the target."""
    import torch

    prev = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, case["dtype"]))
    try:
        ns = {}
        with contextlib.redirect_stdout(io.StringIO()):  # the programs' prints
            exec(compile(case["torch"], "<torch>", "exec"), ns)
        target = ns[case["target"]]
        if target.grad_fn is None:
            return None
        nodes = dfs(target.grad_fn, lambda n: [f for f, _ in n.next_functions])
        rec = [
            {"grad_fn": type(n).__name__, "grad_output": None, "grad_inputs": None, "saved": {}}
            for n in nodes
        ]
        for r, n in zip(rec, nodes):
            for attr in dir(n):
                if attr.startswith("_saved_"):
                    try:
                        v = getattr(n, attr)
                    except RuntimeError:
                        continue
                    if isinstance(v, torch.Tensor):
                        r["saved"][attr[7:]] = _plain(v)
                    elif isinstance(v, (int, float, bool)):
                        r["saved"][attr[7:]] = _fix(v)
            if type(n).__name__ == "AccumulateGrad":
                continue

            def pre(grad_outputs, r=r):
                if len(grad_outputs) == 1:
                    r["grad_output"] = _plain(grad_outputs[0])

            def post(grad_inputs, grad_outputs, r=r):
                r["grad_inputs"] = [_plain(g) for g in grad_inputs]

            n.register_prehook(pre)
            n.register_hook(post)
        gradient = None
        if case["grad_tensors"] is not None:
            gradient = torch.tensor(json.loads(case["grad_tensors"]), dtype=target.dtype)
        target.backward(gradient)
        leaves = {
            k: _plain(v.grad)
            for k, v in ns.items()
            if isinstance(v, torch.Tensor) and v.is_leaf and v.requires_grad and not k.startswith("_")
        }
        return {"nodes": rec, "leaves": leaves}
    finally:
        torch.set_default_dtype(prev)


def main() -> int:
    import torch

    records = []
    kept = 0
    for case in sample_cases() + random_cases(DRAWN):
        try:
            got = torch_record(case)
        except Exception as e:  # noqa: BLE001 - a program PyTorch refuses is left out
            print(f"{case['id']}: left out ({type(e).__name__}: {e})")
            continue
        if got is None:
            continue
        if case["id"].startswith("random"):
            if kept >= RANDOM_SCRIPTS or sum(n["grad_fn"] != "AccumulateGrad" for n in got["nodes"]) < 2:
                continue
            kept += 1
        records.append({**case, **got})
    OUT.write_text(json.dumps({"torch": torch.__version__, "cases": records}, indent=1) + "\n")
    print(f"wrote {len(records)} cases to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
