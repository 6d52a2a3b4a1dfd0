"""`diffcli graph` is linear in the graph's size, in every format (issue 9, finding 4).

`-f tree` printed a shared subtree once per path to it (60 doublings `y = y + y`: 2**60
lines; 9 GB in 40 s), the table took 37 s on a 20,000-term sum (rich's Table), and a
deep chain's indentation made the tree quadratic in characters. The tests bound work by
counts, not by the clock: the Python lines executed to build and render a graph (diffcli's
and its libraries': rich's Table took ~2,000 a row) and the characters written, at size n
and 2n, must grow about 2x (a quadratic renderer grows 4x), within a budget of lines per
node (an exponential or merely slow renderer exceeds it and stops at once).
"""

from __future__ import annotations

import io
import json
import sys

import pytest

from diffcli import session
from diffcli.render import jsonout, table, text
from diffcli.source import Source

from .samples import cli

FORMATS = ("table", "json", "dot", "mermaid", "tree")

SHAPES = {  # name: (the script at size n, how many nodes its graph has)
    "chain": (
        lambda n: f"x = tensor(1.0, requires_grad=True)\ny = x\nfor i in range({n}):\n    y = y * 1.01\n",
        lambda n: n + 1,
    ),
    "wide sum": (
        lambda n: "a = tensor(1.0, requires_grad=True)\np = " + " + ".join(["a"] * n) + "\n",
        lambda n: n,
    ),
    "doubling": (
        lambda n: f"x = tensor(1.0, requires_grad=True)\ny = x\nfor i in range({n}):\n    y = y + y\n",
        lambda n: n + 1,
    ),
    "fan-in": (
        lambda n: f"x = tensor(1.0, requires_grad=True)\ns = stack([x * i for i in range({n})])\n",
        lambda n: n + 2,
    ),
}


def run_of(script):
    return session.execute(Source(script, "<test>"), session.Options(trace=True), write=lambda s: None)


def render(fmt, nodes):
    if fmt == "table":
        out = io.StringIO()
        table.graph_table(nodes, file=out)
        return out.getvalue()
    if fmt == "json":
        return jsonout.graph_json(nodes)
    return getattr(text, "graph_" + fmt)(nodes)


class WorkBudgetExceeded(Exception):
    pass


def lines_executed(fn, budget):
    """How many lines of Python `fn()` executes; more than `budget` stops it."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count > budget:
                raise WorkBudgetExceeded(f"more than {budget} lines executed")
        return local

    def tracer(frame, event, arg):
        return local

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        result = fn()
    finally:
        sys.settrace(previous)
    return count, result


def build_and_render(run, fmt):
    nodes = session.build_graph(run)
    return nodes, render(fmt, nodes)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_work_and_output_grow_linearly_with_the_graph(shape, fmt):
    script, size = SHAPES[shape]
    n = 200 if shape == "doubling" else 400
    work, chars = [], []
    for k in (n, 2 * n):
        run = run_of(script(k))  # the script's run is not counted
        count, (nodes, out) = lines_executed(lambda: build_and_render(run, fmt), budget=1000 * size(k))
        assert len(nodes) == size(k)
        work.append(count)
        chars.append(len(out))
    assert 1.8 < work[1] / work[0] < 2.2, (work, chars)
    assert 1.8 < chars[1] / chars[0] < 2.2, (work, chars)


# --- the reproducers, end to end through the CLI (in process) -------------------------

SUM = "a = tensor(1.0, requires_grad=True)\np = " + "+".join(["a"] * 20000) + "\n"
DOUBLINGS = "x = tensor(1.0, requires_grad=True)\ny = x\nfor i in range(60):\n    y = y + y\n"


def graph_cli(script, fmt, *more):
    r = cli("graph", "-e", script, "-f", fmt, *more)
    assert (r.exit_code, r.stderr) == (0, "")
    return r.stdout


def test_a_20000_term_sum_in_every_format():
    # 20,000 nodes: the leaf a (id 0), then AddBackward0 i = (i-1) + a; the last is p
    n = 20000
    lines = graph_cli(SUM, "table", "--wide").splitlines()
    assert len(lines) == 2 + n
    assert lines[0].split()[:3] == ["id", "name", "op"]
    assert lines[2].split()[:3] == ["0", "a", "leaf"]
    assert lines[-1].split()[:5] == [str(n - 1), "p", "add", "AddBackward0", f"{n - 2},0"]
    assert lines[-1].split()[-1] == "tensor(20000.)"

    nodes = json.loads(graph_cli(SUM, "json"))["nodes"]
    assert [x["id"] for x in nodes] == list(range(n))
    assert nodes[1]["inputs"] == [0, 0] and nodes[-1]["inputs"] == [n - 2, 0]
    assert (nodes[-1]["name"], nodes[-1]["grad_fn"], nodes[-1]["value"]) == ("p", "AddBackward0", 20000.0)
    assert sum(x["name"] is not None for x in nodes) == 2

    # (issue 13: the named result p is drawn as its operator's box, then p's ellipse)
    dot = graph_cli(SUM, "dot").splitlines()
    assert dot[:2] == ["digraph G {", "  rankdir=LR;"]
    assert (
        dot[3]
        == '  n0 [shape=ellipse, style=filled, fillcolor="#fff4c2", color="#a07800", label="a\\n= 1\\nshape []"];'
    )
    assert sum(" -> " in x for x in dot) == 2 * (n - 1) + 1 and sum("[shape=" in x for x in dot) == n + 1
    mermaid = graph_cli(SUM, "mermaid").splitlines()
    assert (
        sum(" --> " in x for x in mermaid) == 2 * (n - 1) + 1
        and len(mermaid) == 1 + (n + 1) + 2 * (n - 1) + 1
    )

    tree = graph_cli(SUM, "tree").splitlines()  # a chain n-1 deep: one line per edge
    assert len(tree) == 1 + 2 * (n - 1)
    assert tree[0] == "AddBackward0 (p)" and tree[1] == "  AddBackward0"
    assert tree[-1] == "  AccumulateGrad (a)"  # p's second input, after the chain
    assert max(map(len, tree)) == len(" " * 2 * text.TREE_INDENT + f"[depth {n - 1}] AccumulateGrad (a)")


def test_60_doublings_in_every_format():
    # y = y + y: node i (1..60) is AddBackward0 with both inputs i-1; 2**60 paths
    lines = graph_cli(DOUBLINGS, "table", "--wide").splitlines()
    assert len(lines) == 2 + 61
    assert lines[-1].split()[:5] == ["60", "y", "add", "AddBackward0", "59,59"]
    assert lines[-1].split()[-1] == "tensor(1.1529e+18)"
    nodes = json.loads(graph_cli(DOUBLINGS, "json"))["nodes"]
    assert [x["inputs"] for x in nodes] == [[]] + [[i - 1, i - 1] for i in range(1, 61)]
    assert nodes[-1]["value"] == 2.0**60
    assert graph_cli(DOUBLINGS, "dot").count(" -> ") == 121  # 120, and y's box to y's ellipse
    assert graph_cli(DOUBLINGS, "mermaid").count(" --> ") == 121

    tree = graph_cli(DOUBLINGS, "tree").splitlines()
    assert len(tree) == 121  # each node in full once, then a reference
    assert tree[:3] == ["AddBackward0 (y)", "  AddBackward0 [#59]", "    AddBackward0 [#58]"]
    deep = " " * 2 * text.TREE_INDENT
    assert tree[59:63] == [
        deep + "[depth 59] AddBackward0 [#1]",
        deep + "[depth 60] AccumulateGrad (x)",
        deep + "[depth 60] AccumulateGrad (x)",
        deep + "[depth 59] AddBackward0 [#1 shown above]",
    ]
    assert tree[-1] == "  AddBackward0 [#59 shown above]"
    assert sum(x.endswith("shown above]") for x in tree) == 59


def test_a_100000_deep_chain_renders_without_recursion_and_with_bounded_lines():
    script = "x = tensor(1.0, requires_grad=True)\ny = x\nfor i in range(100000):\n    y = y * 1.0\n"
    tree = graph_cli(script, "tree").splitlines()
    assert len(tree) == 100001
    assert tree[0] == "MulBackward0 (y)"
    assert tree[-1] == " " * 2 * text.TREE_INDENT + "[depth 100000] AccumulateGrad (x)"
    assert max(map(len, tree)) == len(tree[-1])


SHARED = """\
x = tensor(1.0, requires_grad=True)
c = tensor(3.0)
a = x * c
b = a + a
d = (b * a).sin() + b
"""


def test_tree_prints_a_shared_subtree_once_then_refers_to_it_by_id():
    assert (
        graph_cli(SHARED, "tree")
        == """\
AddBackward0 (d)
  SinBackward0
    MulBackward0
      AddBackward0 (b) [#3]
        MulBackward0 (a) [#2]
          AccumulateGrad (x)
          constant (c)
        MulBackward0 (a) [#2 shown above]
      MulBackward0 (a) [#2 shown above]
  AddBackward0 (b) [#3 shown above]
"""
    )
    ids = {
        row.split()[1]: row.split()[0]
        for row in graph_cli(SHARED, "table").splitlines()[2:]
        if len(row.split()) > 1 and row.split()[1] in ("a", "b")
    }
    assert ids == {"a": "2", "b": "3"}  # the ids are the table's
