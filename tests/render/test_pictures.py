"""Graph pictures (issue 13, item 4): SVG drawn by diffcli itself, parsed as XML, with every
named node, its value and (with --backward) its grad; constants drawn apart; PNG through
Graphviz's dot or an immediate error; --depth collapses long chains; --max-nodes caps;
the HTML pages are self-contained."""

from __future__ import annotations

import io
import os
import re
import stat
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from diffcli.cli import app
from diffcli.explain import show

ROOT = Path(__file__).resolve().parents[2]
CARD = ["samples/card.txt", "--set", "a=1", "--set", "b=2", "--set", "w=0.5"]
SVG = "{http://www.w3.org/2000/svg}"
MASK = "v = tensor([1.0, -2.0], requires_grad=True)\nmask = v > 0\nc = tensor([3.0, 4.0])\nz = where(mask, v * c, v)\n"


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def cli(*args):
    r = CliRunner().invoke(app, list(args))
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.stderr
    return r


def nodes_of(svg_text):
    """{graph id: [the lines of each <g> drawn for it]} of an SVG picture."""
    root = ET.fromstring(svg_text)
    assert root.tag == SVG + "svg"
    out = {}
    for g in root.iter(SVG + "g"):
        if "node" in g.get("class", "").split():
            out.setdefault(g.get("data-node"), []).append([t.text for t in g.iter(SVG + "text")])
    return out


def test_svg_parses_and_shows_every_named_node_with_value_and_grad():
    r = cli("graph", *CARD, "--backward", "-f", "svg")
    assert r.exit_code == 0, r.stderr
    nodes = nodes_of(r.stdout)
    drawn = {tuple(lines) for groups in nodes.values() for lines in groups}
    for want in [
        ("a", "= 1", "shape []", "grad 0.3747"),
        ("b", "= 2", "shape []", "grad 0.3747"),
        ("w", "= 0.5", "shape []", "grad 2.2484"),
        ("x", "= 3", "shape []", "grad None (not kept)"),
        ("y", "= 1.5", "shape []", "grad None (not kept)"),
        ("p", "= -0.0375", "shape []", "grad None (not kept)"),
        ("SinBackward0", "#10"),
        ("PowBackward0", "#5", "= 2.25"),
    ]:
        assert want in drawn, want
    assert set(nodes) == {str(i) for i in range(11)}  # every row of the graph
    root = ET.fromstring(r.stdout)
    kinds = {g.get("id"): g.get("class") for g in root.iter(SVG + "g")}
    assert kinds["node-n0"] == "node var" and kinds["node-n2"] == "node op" and kinds["node-v2"] == "node var"
    assert len([p for p in root.iter(SVG + "path") if p.get("class") == "edge"]) == 13


def test_svg_without_backward_has_no_grads_and_draws_constants_and_masks_apart():
    r = cli("graph", "-e", MASK, "-f", "svg")
    root = ET.fromstring(r.stdout)
    groups = {
        g.get("id"): (g.get("class"), [t.text for t in g.iter(SVG + "text")]) for g in root.iter(SVG + "g")
    }
    assert ("node const", ["c", "= [3, 4]", "shape [2]"]) in groups.values()
    assert ("node const", ["mask", "= [True, False]", "shape [2]"]) in groups.values()
    assert not any(line.startswith("grad") for _, lines in groups.values() for line in lines)


def test_shapes_are_written_as_shapes():
    r = cli(
        "graph", "-e", "import torch\nw = torch.tensor([0.5], requires_grad=True)\ny = w / 1", "-f", "dot"
    )
    assert 'label="w\\n= [0.5]\\nshape [1]"' in r.stdout
    r = cli(
        "graph", "-e", "import torch\nw = torch.ones(2, 3, requires_grad=True)\ny = w * 2", "-f", "mermaid"
    )
    assert "shape [2, 3]" in r.stdout


@pytest.mark.parametrize("fmt", ["dot", "mermaid", "tree", "json", "table", "svg", "html"])
def test_backward_works_in_every_format(fmt):
    plain = cli("graph", *CARD, "-f", fmt).stdout
    back = cli("graph", *CARD, "-f", fmt, "--backward").stdout
    assert "0.3747" in back and "2.2484" in back
    assert "2.2484" not in plain


def test_png_without_graphviz_fails_at_once_and_suggests_svg(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    r = cli("graph", "-e", "x = 1.0\nprint('ran')\ny = x * 2", "-f", "png")
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == (
        "error: UsageError: --format png needs Graphviz's `dot` program on PATH, and there is "
        "none; --format svg draws the same picture with no program needed\n"
    )  # the script never ran


def test_png_pipes_the_dot_picture_through_graphviz(monkeypatch, tmp_path):
    fake = tmp_path / "dot"  # a stand-in for Graphviz: checks its arguments, echoes a PNG header + its input
    fake.write_text("#!/bin/sh\n[ \"$1\" = -Tpng ] || exit 3\nprintf '\\211PNG\\r\\n'\ncat\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    r = CliRunner().invoke(app, ["graph", *CARD, "-f", "png"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout_bytes.startswith(b"\x89PNG\r\n")
    assert r.stdout_bytes[6:] == cli("graph", *CARD, "-f", "dot").stdout.encode()


CHAIN = "x = 0.5\ny = x\nfor i in range(60):\n    y = sin(y)\nz = y * 2\n"


def test_depth_collapses_long_chains_and_the_node_cap_says_what_to_do():
    r = cli("graph", "-e", CHAIN, "-f", "svg", "--max-nodes", "20")
    assert r.exit_code == 1
    assert r.stderr.startswith(
        "error: <expr>: LimitError: the picture would have 64 nodes, more than --max-nodes 20: "
        "give --depth N to collapse long chains, --of NAME for one tensor's graph"
    )
    assert cli("graph", "-e", CHAIN, "-f", "dot", "--max-nodes", "20").exit_code == 0  # text: no cap
    r = cli("graph", "-e", CHAIN, "-f", "dot", "--depth", "4")
    assert r.exit_code == 0, r.stderr
    assert 'label="... 55 more nodes\\nSinBackward0"' in r.stdout
    drawn = re.findall(r"^  (\w+) \[", r.stdout, re.M)
    assert drawn == [
        "node",
        "n0",
        "n1",
        "n2",
        "m3",
        "n58",
        "n59",
        "n60",
        "v60",
        "n61",
        "v61",
    ]  # x, 2 + 3 sines, y, z
    r = cli("graph", "-e", CHAIN, "-f", "svg", "--depth", "2")
    assert "... 57 more nodes" in r.stdout  # the 59 unnamed sines: the first, the last and 57 more
    ET.fromstring(r.stdout)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _graph_nodes(path, sets):
    from diffcli import session
    from diffcli.source import Source

    opts = session.Options(sets={k: float(v) for k, v in sets.items()}, trace=True)
    run = session.execute(Source((ROOT / path).read_text(), path), opts, write=lambda s: None)
    name = run.result.last_assigned
    if not run.result.called_backward:
        session.run_backward(run, name, retain_graph=True)
    return session.build_graph(run, None)


@pytest.mark.parametrize(
    "path, sets",
    [
        ("samples/card.txt", {"a": 1, "b": 2, "w": 0.5}),
        ("samples/seed1.txt", {}),
        ("samples/matmul.txt", {}),
        ("samples/broadcasting.txt", {}),
    ],
)
def test_the_default_table_fits_an_80_column_terminal(path, sets, monkeypatch):
    """The default columns and compact values, in an 80-column terminal: no line is longer,
    and no value is broken inside a number (the grid wraps cells at spaces only)."""
    from diffcli.render import table

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
    nodes = _graph_nodes(path, sets)
    out = _Terminal()
    table.graph_table(
        nodes,
        show_grad=True,
        file=out,
        columns=["id", "name", "node", "inputs", "shape", "value", "grad"],
        compact=True,
    )
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    words = set(text.split())
    for n in nodes:
        for word in show.value(n.tensor.array, rows=True).split():
            assert word in words, (word, text)


def test_columns_are_chosen():
    r = cli("graph", *CARD, "--columns", "id,name,requires_grad")
    assert r.stdout.splitlines()[0].split() == ["id", "name", "requires_grad"]
    r = cli("graph", *CARD, "--columns", "id,nope")
    assert r.exit_code == 2 and "--columns: unknown column 'nope'" in r.stderr
    out = cli("graph", *CARD, "--backward").stdout
    assert max(len(line) for line in out.splitlines()) <= 80


def test_html_pages_are_self_contained():
    for args in (["explain", *CARD], ["graph", *CARD, "--backward"]):
        page = cli(*args, "-f", "html").stdout
        assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script>" in page
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
        assert re.findall(r"https?://[^\s\"'<>]+", page) == ["http://www.w3.org/2000/svg"]
    page = cli("explain", *CARD, "-f", "html").stdout
    assert '<div class="step" id="step-0" data-node="10">' in page and 'data-node="10"' in page


def test_a_big_explain_page_draws_its_chains_collapsed():
    page = cli("explain", "-e", "x = 0.5\ny = x\nfor i in range(400):\n    y = sin(y)\n", "-f", "html").stdout
    assert "... 393 more nodes" in page  # 399 unnamed sines, 6 drawn and page.count('class="step"') == 400
