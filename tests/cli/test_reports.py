"""check's reports for CI systems (issue 16 item 3): JUnit XML valid against the JUnit
schema, with the right counts; GitHub annotations and step summary, pinned."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .samples import cli

SCHEMA = Path(__file__).parent / "schemas" / "junit.xsd"
PROD = "a = [1.0, 2.0]\nb = 0.5\nc = a * b\nd = c + 1.0\ny = d.sum()\n"
KINK = "x = 0.0\ny = relu(x)\n"
TIGHT = ["--atol", "1e-12", "--rtol", "0"]  # below what float64's differences can tell: both leaves fail


@pytest.fixture
def here(tmp_path, monkeypatch):
    (tmp_path / "prod.txt").write_text(PROD)
    (tmp_path / "kink.txt").write_text(KINK)
    (tmp_path / "bad.txt").write_text("y = q * 2\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    return tmp_path


def test_junit_validates_against_the_schema_and_counts(here):
    xmlschema = pytest.importorskip("xmlschema")
    r = cli("check", "prod.txt", "kink.txt", "bad.txt", *TIGHT, "-f", "junit")
    assert r.exit_code == 1
    xmlschema.XMLSchema(str(SCHEMA)).validate(r.stdout)
    root = ET.fromstring(r.stdout)
    suites = root.findall("testsuite")
    assert [(s.get("name"), s.get("tests"), s.get("failures"), s.get("errors")) for s in suites] == [
        ("prod.txt", "2", "2", "0"),
        ("kink.txt", "1", "0", "0"),
        ("bad.txt", "1", "0", "1"),
    ]
    assert {s.get("timestamp") for s in suites} == {"2023-11-14T22:13:20"}
    cases = suites[0].findall("testcase")
    assert [c.get("name") for c in cases] == ["a (order 1)", "b (order 1)"]
    failure = cases[0].find("failure")
    assert failure.get("type") == "GradcheckError"
    assert failure.get("message") == (
        "a (order 1): a[0]: analytic 0.5, numeric 0.5000000000832667, abs error 8.327e-11 > tolerance "
        "1.000e-12 (finite-difference error estimate 7.818e-10): precision-limited"
    )
    assert "kink: one-sided differences 0 (left) and 1 (right)" in suites[1].find("system-out").text
    error = suites[2].find("testcase").find("error")
    assert error.get("message").startswith("bad.txt:1:5: NameError: name 'q' is not defined")


def test_junit_of_passing_scripts_has_no_failures(here):
    xmlschema = pytest.importorskip("xmlschema")
    r = cli("check", "prod.txt", "kink.txt", "-f", "junit")
    assert r.exit_code == 0
    xmlschema.XMLSchema(str(SCHEMA)).validate(r.stdout)
    root = ET.fromstring(r.stdout)
    assert [s.get("failures") for s in root.findall("testsuite")] == ["0", "0"]
    assert not root.findall(".//failure") and not root.findall(".//error")


ANNOTATIONS = """\
::error file=prod.txt,line=1,title=gradcheck y%3A a (order 1) MISMATCH (precision-limited)::a (order 1): \
a[0]: analytic 0.5, numeric 0.5000000000832667, abs error 8.327e-11 > tolerance 1.000e-12 (finite-difference \
error estimate 7.818e-10): precision-limited
::error file=prod.txt,line=2,title=gradcheck y%3A b (order 1) MISMATCH (precision-limited)::b (order 1): \
b: analytic 3.0, numeric 2.9999999999722444, abs error 2.776e-11 > tolerance 1.000e-12 (finite-difference \
error estimate 8.003e-10): precision-limited
::notice file=kink.txt,line=1,title=gradcheck y%3A x (order 1) kink::x (order 1): x: analytic 0.0, numeric \
0.5: kink: one-sided differences 0 (left) and 1 (right); the analytic value lies between them
"""
SUMMARY = """\
## diffcli check

| script | leaf | order | worst | abs error | tolerance | result |
| --- | --- | --- | --- | --- | --- | --- |
| `prod.txt` | `a` | 1 | `a[0]` | 8.327e-11 | 1.000e-12 | MISMATCH (precision-limited) |
| `prod.txt` | `b` | 1 | `b` | 2.776e-11 | 1.000e-12 | MISMATCH (precision-limited) |
| `kink.txt` | `x` | 1 | `x` | 5.000e-01 | 1.000e-12 | kink |

### `prod.txt`: `y` against `a`, `b`

```mermaid
flowchart LR
  n0(["a<br/>= [1, 2]<br/>shape [2]"])
  n1(["b<br/>= 0.5<br/>shape []"])
  n2["MulBackward0<br/>#2"]
  v2(["c<br/>= [0.5, 1]<br/>shape [2]"])
  n3["AddBackward0<br/>#3"]
  v3(["d<br/>= [1.5, 2]<br/>shape [2]"])
  n4["SumBackward0<br/>#4"]
  v4(["y<br/>= 3.5<br/>shape []"])
  n0 --> n2
  n1 --> n2
  n2 --> v2
  v2 --> n3
  n3 --> v3
  v3 --> n4
  n4 --> v4
```
"""


def test_github_annotations_and_summary_are_pinned(here):
    r = cli("check", "prod.txt", "kink.txt", *TIGHT, "-f", "github")
    assert r.exit_code == 1
    assert r.stdout == ANNOTATIONS + "\n" + SUMMARY
    assert r.stderr == (
        "error: prod.txt: GradcheckError: analytic and finite-difference gradients of 'y' "
        "differ for a (order 1), b (order 1)\n"
    )


def test_github_summary_goes_to_the_step_summary_file(here, monkeypatch):
    summary = here / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    r = cli("check", "prod.txt", "kink.txt", *TIGHT, "-f", "github")
    assert (r.exit_code, r.stdout) == (1, ANNOTATIONS)
    assert summary.read_text() == "earlier step\n" + SUMMARY


def test_the_failing_subgraph_leaves_out_what_the_failing_leaf_does_not_reach(here):
    from diffcli import session
    from diffcli.checks.scripts import check
    from diffcli.cli.reports import failing_subgraph
    from diffcli.source import Source

    src = Source("a = 1.5\nb = 2.0\nu = a * a\nv = sin(b)\ny = u + v\n", "s.txt")
    report = check(src, session.Options(trace=True))
    assert failing_subgraph(report, ["a"]) == (
        "flowchart LR\n"
        '  n0(["a<br/>= 1.5<br/>shape []"])\n'
        '  n1["MulBackward0<br/>#1"]\n'
        '  v1(["u<br/>= 2.25<br/>shape []"])\n'
        '  n4["AddBackward0<br/>#4"]\n'
        '  v4(["y<br/>= 3.1593<br/>shape []"])\n'
        "  n0 --> n1\n"
        "  n0 --> n1\n"
        "  n1 --> v1\n"
        "  v1 --> n4\n"
        "  n4 --> v4\n"
    )  # (a * a: a is both inputs, as `graph` draws it)
