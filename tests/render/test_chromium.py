"""The pictures and pages in a real browser: headless Chromium (Debian's `chromium`
package; .ci/run installs it) draws the SVG of `graph --format svg` and the HTML pages of
`graph` and `explain --format html` with no console message or script error, and
selecting a node (`#node-ID`) shows its step. Skipped, with the reason, without Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from diffcli.cli import app

ROOT = Path(__file__).resolve().parents[2]
CARD = ["samples/card.txt", "--set", "a=1", "--set", "b=2", "--set", "w=0.5"]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (Debian: apt-get install chromium)"
)


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def diffcli(*args):
    r = CliRunner().invoke(app, list(args))
    assert r.exit_code == 0, r.stderr
    return r.stdout


def browse(tmp_path, url, *extra):
    """(the DOM after load, the console's messages) of `url` in headless Chromium."""
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
            f"--user-data-dir={tmp_path / 'profile'}",
            *extra,
            url,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console


def test_the_console_check_sees_a_script_error(tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><script>undefinedFunction();</script></body></html>")
    _, console = browse(tmp_path, bad.as_uri(), "--dump-dom")
    assert any("Uncaught ReferenceError" in line for line in console)


def test_the_explain_page_draws_and_selecting_a_node_shows_its_step(tmp_path):
    page = tmp_path / "card.html"
    page.write_text(diffcli("explain", *CARD, "-f", "html"))
    dom, console = browse(tmp_path, page.as_uri() + "#node-4", "--dump-dom")
    assert console == []
    body = re.search(r"<body[^>]*>", dom).group()
    assert 'data-ready="1"' in body and 'data-selected="4"' in body and "data-errors" not in body
    detail = re.search(r'<div id="detail">(.*?)</div>\s*<div id="list">', dom, re.S).group(1)
    assert "step 6: y = x * w   [MulBackward0]" in detail and "dy/dw = x = 3" in detail
    assert re.search(r'<div class="step selected" id="step-6" data-node="4">', dom)
    assert re.search(r'<g class="node op selected" id="node-n4" data-node="4">', dom)


def test_the_graph_page_draws_and_selects_rows(tmp_path):
    page = tmp_path / "graph.html"
    page.write_text(diffcli("graph", *CARD, "--backward", "-f", "html"))
    dom, console = browse(tmp_path, page.as_uri() + "#node-3", "--dump-dom")
    assert console == []
    body = re.search(r"<body[^>]*>", dom).group()
    assert 'data-ready="1"' in body and 'data-selected="3"' in body and "data-errors" not in body
    assert '<tr class="row selected" data-node="3"><td>#3</td><td>w</td>' in dom


def test_the_svg_renders(tmp_path):
    picture = tmp_path / "card.svg"
    picture.write_text(diffcli("graph", *CARD, "--backward", "-f", "svg"))
    wrapper = tmp_path / "view.html"
    wrapper.write_text(
        '<html><body><img src="card.svg" onload="document.body.dataset.width = this.naturalWidth" '
        'onerror="document.body.dataset.failed = 1"></body></html>'
    )
    dom, console = browse(tmp_path, wrapper.as_uri(), "--dump-dom")
    assert console == []
    width = re.search(r'data-width="(\d+)"', dom)
    assert width and int(width.group(1)) > 500 and "data-failed" not in dom
    shot = tmp_path / "card.png"
    browse(tmp_path, picture.as_uri(), f"--screenshot={shot}", "--window-size=1800,400")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
