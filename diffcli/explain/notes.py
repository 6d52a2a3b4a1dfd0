"""The notes that end an explanation.

`why_none`: for every named tensor whose .grad is None after the backward, why (the
questions learners ask most): a constant (requires_grad=False); computed under no_grad or
detached; a non-leaf without retain_grad(); not on any path to the target.

`inplace_note`: when PyTorch's "modified by an inplace operation" error fires, which
statement (line and text) modified the saved tensor, and which node needed it. It reads
the run's LineTrace (steps.py): per op, its line and its inputs' versions when it ran.
"""

from __future__ import annotations

from ..engine.node import AccumulateGrad
from ..engine.tensor import Tensor

INPLACE_MESSAGE = "one of the variables needed for gradient computation has been modified by an inplace"


def _reached(obs):
    """The nodes any watched pass ran (AccumulateGrad included)."""
    out = set()
    for _, events in obs.passes:
        out.update(node for node, _, _ in events)
    return out


def why_none(run, ids, obs, target_name):
    """[(name, reason)] for the named tensors whose .grad is None, in order of definition."""
    reached = _reached(obs)
    trace = run.result.trace or []
    by_out = {}
    for out, inputs, node, _ in trace:
        by_out.setdefault(id(out), []).append((inputs, node))
    named = [(n, run.env.get(n)) for n in run.result.order]
    named = [(n, t) for n, t in named if isinstance(t, Tensor)]
    wanting = [t for _, t in named if t.needs_grad]
    target = f"'{target_name}'" if target_name else "the target"
    notes, seen = [], set()
    for name, t in named:
        if t._grad is not None or id(t) in seen:
            continue
        seen.add(id(t))
        if not t.needs_grad:
            source = next(
                (n for n, u in named if u is not t and u.needs_grad and u._version is t._version),
                None,
            )
            made = by_out.get(id(t), [])
            if source is not None:
                why = (
                    f"detached from '{source}' (detach() makes a tensor that shares the data and "
                    "does not require grad): no gradient flows into it"
                )
            elif (
                any(
                    node is None and any(x is not None and x.needs_grad for x in inputs)
                    for inputs, node in made
                )
                or t._no_grad_view
            ):
                why = (
                    "computed under no_grad() from tensors that require grad: it does not require "
                    "grad, so no gradient flows into it"
                )
            elif wanting or t.grad_fn is None:
                why = "a constant: requires_grad=False, so autograd computes no gradient for it"
            notes.append((name, why))
        elif t.grad_fn is not None and not t.retains_grad:
            notes.append(
                (
                    name,
                    f"a non-leaf tensor (grad_fn=<{t.grad_fn.name()}>): PyTorch keeps .grad "
                    f"only for leaves; call {name}.retain_grad() before the backward to keep it",
                )
            )
        else:
            node = (
                t.grad_fn
                if t.grad_fn is not None
                else (t._accumulator() if t._accumulator is not None else None)
            )
            if node is None or node not in reached:
                notes.append((name, f"not on any path to {target}: the backward pass never reaches it"))
            else:
                notes.append((name, "the backward pass reached it, but no gradient flowed into it"))
    return notes


def inplace_note(trace, source_text, names=None):
    """The note for PyTorch's in-place version error: the statement that modified the
    saved tensor, and the node that saved it; "" if it cannot be told."""
    if trace is None or not hasattr(trace, "inputs"):
        return ""
    names = names or {}
    for j in range(len(trace) - 1, -1, -1):
        out, _, node, _ = trace[j]
        if node is None or isinstance(node, AccumulateGrad) or node.released:
            continue
        for k, (t, v) in enumerate(zip(node.saved, node.saved_versions)):
            if t._version[0] == v:
                continue
            line = None
            for m in range(j + 1, len(trace)):
                for rec in trace.inputs[m]:
                    if rec is not None and rec[0] is t._version and rec[1] == v:
                        line = trace.lines[m]
            what = node.name()
            out_name = names.get(id(out))
            if out_name:
                what += f" (the node that computed '{out_name}')"
            kind = "its own output" if k in node.saved_outputs else "an input"
            if line is None:
                return f"{what} saved {kind} for its gradient, and it was modified in place afterwards"
            lines = source_text.splitlines()
            stmt = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            return (
                f"line {line}, `{stmt}`, modified in place the tensor that {what} saved "
                f"({kind}, at version {v}) and needs for its gradient"
            )
    return ""
