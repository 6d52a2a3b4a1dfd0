"""The graph as a learner draws it, for every picture format (DOT, Mermaid, SVG, PNG, HTML).

From the rows of `session.build_graph`:

- a variable (a leaf, or a named intermediate) is an ellipse with its name, its value, its
  shape written as a shape (`[1]`, `[2, 3]`, `[]`) and, after a backward, its grad;
- an operator is a box with its grad_fn (and, when no name holds its result, the value
  it made); a named intermediate is the box and, after it, the variable's ellipse;
- a constant (requires_grad=False) is drawn with its value, dashed and grey: visibly not
  a variable autograd tracks;
- `depth`: a chain of more than `depth` unnamed operators (one input, one use each) is
  drawn as its first and last ones around one box saying how many were left out.
"""

from __future__ import annotations

from ..explain import show


class PNode:
    __slots__ = ("key", "kind", "lines", "graph_id", "requires_grad", "title")

    def __init__(self, key, kind, lines, graph_id, requires_grad, title=""):
        self.key, self.kind, self.lines = key, kind, lines  # kind: var, op, const, more
        self.graph_id, self.requires_grad, self.title = graph_id, requires_grad, title


class Picture:
    def __init__(self, nodes, edges):
        self.nodes = nodes  # [PNode], inputs first
        self.edges = edges  # [(key, key)]


def _grad(t):
    g = t._grad
    return "None" if g is None else show.value(g.array)


def _var_lines(name, t, show_grad):
    lines = [name, f"= {show.value(t.array)}", f"shape {show.shape(t.array.shape)}"]
    if show_grad:
        lines.append(f"grad {_grad(t)}")
    return lines


def picture(nodes, show_grad=False, depth=None) -> Picture:
    uses = {}
    for n in nodes:
        for i in n.inputs:
            uses[i] = uses.get(i, 0) + 1
    by_id = {n.id: n for n in nodes}
    out_key, pnodes, edges = {}, [], []
    hidden = _collapsed(nodes, by_id, uses, depth) if depth else {}
    more_made = set()
    for n in nodes:
        t = n.tensor
        if n.id in hidden:
            first, count, names = hidden[n.id]
            key = f"m{first}"
            if key not in more_made:
                more_made.add(key)
                pnodes.append(
                    PNode(
                        key,
                        "more",
                        [f"... {count} more nodes", names],
                        None,
                        True,
                        f"{count} nodes left out (--depth)",
                    )
                )
                for i in by_id[first].inputs:
                    edges.append((out_key[i], key))
            out_key[n.id] = key
            continue
        if t.grad_fn is None:
            key = f"n{n.id}"
            if t.needs_grad:
                pnodes.append(
                    PNode(
                        key,
                        "var",
                        _var_lines(n.name or f"#{n.id}", t, show_grad),
                        n.id,
                        True,
                        f"#{n.id} leaf",
                    )
                )
            else:
                pnodes.append(
                    PNode(
                        key,
                        "const",
                        _var_lines(n.name or "constant", t, False),
                        n.id,
                        False,
                        f"#{n.id} constant (requires_grad=False)",
                    )
                )
            out_key[n.id] = key
        else:
            key = f"n{n.id}"
            op = t.grad_fn.name()
            lines = [op, f"#{n.id}"]
            if not n.name:
                lines.append(f"= {show.value(t.array)}")
                if show_grad and t.retains_grad:
                    lines.append(f"grad {_grad(t)}")
            pnodes.append(PNode(key, "op", lines, n.id, True, f"#{n.id} {op}"))
            out_key[n.id] = key
            if n.name:
                vkey = f"v{n.id}"
                lines = _var_lines(n.name, t, show_grad)
                if show_grad and not t.retains_grad:
                    lines[-1] = "grad None (not kept)"
                pnodes.append(PNode(vkey, "var", lines, n.id, True, f"#{n.id} {n.name}"))
                out_key[n.id] = vkey
        for i in n.inputs:  # an input used twice (x * x) is two edges
            edges.append((out_key[i], key))
        if out_key[n.id] != key and not out_key[n.id].startswith("m"):
            edges.append((key, out_key[n.id]))
    return Picture(pnodes, edges)


def _collapsed(nodes, by_id, uses, depth):
    """{hidden row id: (first hidden id, how many, their grad_fns)} for chains longer than `depth`."""

    def link(n):  # an unnamed operator with one input, used once
        return n.tensor.grad_fn is not None and not n.name and len(n.inputs) == 1 and uses.get(n.id, 0) == 1

    consumer = {}
    for n in nodes:
        for i in n.inputs:
            consumer[i] = n.id
    hidden, seen = {}, set()
    for n in nodes:
        if n.id in seen or not link(n):
            continue
        prev = by_id.get(n.inputs[0])
        if prev is not None and link(prev):
            continue  # not the chain's first link
        chain = [n.id]
        while chain[-1] in consumer and link(by_id[consumer[chain[-1]]]):
            chain.append(consumer[chain[-1]])
        seen.update(chain)
        if len(chain) > depth:
            keep_head = (depth + 1) // 2
            keep_tail = depth - keep_head
            middle = chain[keep_head : len(chain) - keep_tail]
            kinds = []
            for m in middle:
                name = by_id[m].tensor.grad_fn.name()
                if name not in kinds:
                    kinds.append(name)
            names = ", ".join(kinds[:3]) + (", ..." if len(kinds) > 3 else "")
            for m in middle:
                hidden[m] = (middle[0], len(middle), names)
    return hidden
