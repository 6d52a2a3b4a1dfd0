"""`diffcli explain` as text, Markdown and JSON (the JSON contract of the README).

Text: one block per step, in the order the engine ran them: the node, what it computes and
its grad_fn; the gradient that arrived at its output (and, when it came along several
paths, the sum); per input the local derivative as its row's formula, with the numbers
put in, its value, and the product that flows on (summed back over broadcast dims). Then
the leaves' gradients and, for each named tensor whose .grad is None, why.
"""

from __future__ import annotations

import textwrap

from ..explain import show
from . import jsonout

_WIDTH = 80


def _d(out, inp):
    return f"d{out}/d{inp}"


def _arrival(step):
    src = step.sources
    here = step.name or f"#{step.node}"
    if not src or all(i is None for i, _ in src):
        return f"grad arriving at {here}: {show.value(step.grad_output)} (the starting gradient)"
    parts = [f"{show.value(g)} (step {i})" if i is not None else f"{show.value(g)} (start)" for i, g in src]
    if len(parts) == 1:
        return f"grad arriving at {here}: {parts[0]}"
    return (
        f"grad arriving at {here}: {' + '.join(parts)} = {show.value(step.grad_output)}"
        f"  (a sum of {len(parts)} paths: {here} is used {len(parts)} times)"
    )


def _chain(*parts):
    """`a = b = c`, each part once (`d#9/d#8 = 1`, not `= 1 = 1`)."""
    out = []
    for p in parts:
        if p and (not out or out[-1] != p):
            out.append(p)
    return " = ".join(out)


def _wrapped(text, indent):
    return textwrap.wrap(
        text,
        _WIDTH,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent]


def _shown(inp):
    """An input is shown when a gradient flows to it or it is a named tensor."""
    return inp.grad is not None or inp.label is not None


def _input_lines(step, inp, k):
    out = step.name or f"#{step.node}"
    who = inp.label or f"input {k}"
    lines = []
    if inp.local is not None:
        lines.append(f"  {_chain(_d(out, who), inp.formula, inp.filled, show.value(inp.local))}")
        if inp.grad is not None:
            flow = f"{show.value(step.grad_output)} x {show.value(inp.local)}"
            if inp.reduced:
                flow += f", summed over dims {list(inp.reduced)} to {show.shape(inp.grad.shape)}"
            lines.append(f"    grad of {who}: {flow} = {show.value(inp.grad)}  ({step.rule})")
        else:
            lines.append(f"    ({who} does not require grad: nothing flows to it)")
    else:
        if inp.grad is not None:
            v = show.value(inp.vjp if inp.vjp is not None else inp.grad)
            lines.append(f"  {_chain(f'grad of {who}', inp.formula, inp.filled, v)}")
            if inp.reduced:
                lines.append(
                    f"    summed over dims {list(inp.reduced)} to {show.shape(inp.grad.shape)}: "
                    f"{show.value(inp.grad)}"
                )
        else:
            lines.append(f"  {who}: no gradient (it does not require grad)")
    return lines


def step_lines(s, passes=False):
    """One step as lines of text: the node, the gradient arriving, each input's part."""
    head = f"step {s.index}"
    if passes:
        head += f" (backward pass {s.pass_ + 1})"
    here = s.name or f"#{s.node}"
    lines = [f"{head}: {here} = {s.expr}   [{s.grad_fn}]", f"  {_arrival(s)}"]
    for k, inp in enumerate(s.inputs):
        if _shown(inp):
            lines += _input_lines(s, inp, k)
    return lines


def explain_text(ex) -> str:
    lines = []
    if ex.target is not None:
        lines.append(
            f"backward of {ex.target_name} = {show.value(ex.target.array)}"
            + (f" (grad_fn=<{ex.target.grad_fn.name()}>)" if ex.target.grad_fn else "")
        )
    passes = {s.pass_ for s in ex.steps}
    for s in ex.steps:
        lines += ["", *step_lines(s, len(passes) > 1)]
    if ex.leaves:
        lines += ["", "leaves:"]
        for name, (g, froms) in ex.leaves.items():
            src = (
                f"  (from step{'s' if len(froms) > 1 else ''} {', '.join(map(str, froms))})" if froms else ""
            )
            lines.append(f"  {name}.grad = {show.value(g)}{src}")
    if ex.notes:
        lines += ["", "why None:"]
        for name, why in ex.notes:
            lines += _wrapped(f"{name}.grad is None: {why}", "  ")
    wrapped = []
    for line in lines:
        if len(line) <= _WIDTH:
            wrapped.append(line)
        else:
            wrapped += _wrapped(line.lstrip(), " " * (len(line) - len(line.lstrip())))
    return "\n".join(wrapped).lstrip("\n") + "\n"


def _md(text):
    """Text outside code spans, with Markdown's special characters escaped."""
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in text)


def explain_markdown(ex) -> str:
    out = []
    if ex.target is not None:
        out.append(f"# backward of `{ex.target_name}` = `{show.value(ex.target.array)}`")
    for s in ex.steps:
        here = s.name or f"#{s.node}"
        out += ["", f"## step {s.index}: `{here} = {s.expr}` ({s.grad_fn})", "", f"- {_md(_arrival(s))}"]
        for k, inp in enumerate(s.inputs):
            if not _shown(inp):
                continue
            for line in _input_lines(s, inp, k):
                out.append(
                    f"- `{line.strip()}`" if not line.startswith("    ") else f"  - {_md(line.strip())}"
                )
    if ex.leaves:
        out += ["", "## leaves", "", "| leaf | grad | from steps |", "| --- | --- | --- |"]
        for name, (g, froms) in ex.leaves.items():
            out.append(f"| `{name}` | `{show.value(g)}` | {', '.join(map(str, froms))} |")
    if ex.notes:
        out += ["", "## why None", ""]
        out += [f"- `{name}.grad` is None: {_md(why)}" for name, why in ex.notes]
    return "\n".join(out).lstrip("\n") + "\n"


def explain_record(ex) -> dict:
    """The JSON contract (README): target, steps, leaves; plus notes."""
    from ..session import tensor_record

    def inp(i):
        rec = {"node": i.node, "name": i.name, "formula": i.formula, "local": i.local, "grad": i.grad}
        if i.filled:
            rec["values"] = i.filled
        if i.vjp is not None:
            rec["vjp"] = i.vjp
        if i.reduced:
            rec["reduced_dims"] = list(i.reduced)
        return rec

    return {
        "target": None if ex.target is None else {"name": ex.target_name, **tensor_record(ex.target)},
        "steps": [
            {
                "node": s.node,
                "name": s.name,
                "expr": s.expr,
                "grad_fn": s.grad_fn,
                "pass": s.pass_,
                "grad_output": s.grad_output,
                "rule": s.rule,
                "sources": [{"step": i, "grad": g} for i, g in s.sources],
                "inputs": [inp(i) for i in s.inputs],
            }
            for s in ex.steps
        ],
        "leaves": {n: {"grad": g, "from": froms} for n, (g, froms) in ex.leaves.items()},
        "notes": [{"name": n, "why": w} for n, w in ex.notes],
    }


def explain_json(ex) -> str:
    return jsonout.dumps(explain_record(ex))
