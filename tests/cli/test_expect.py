"""`grad --expect GOLDEN` (issue 16 item 4): a golden written by --format json passes; a
changed script fails with a precise diff (name, index, old, new)."""

from __future__ import annotations

import json

from diffcli.checks.golden import drift

from .samples import cli

SCRIPT = (
    "import torch\na = torch.tensor([1.0, 2.0], requires_grad=True)\nb = torch.tensor(0.5, requires_grad=True)\n"
    "y = (a * b).sum()\n"
)


def golden(tmp_path, text=SCRIPT):
    script = tmp_path / "s.txt"
    script.write_text(text)
    r = cli("grad", str(script), "--format", "json")
    assert r.exit_code == 0
    path = tmp_path / "s.golden.json"
    path.write_text(r.stdout)
    return str(script), str(path)


def test_a_golden_written_by_format_json_round_trips(tmp_path):
    script, path = golden(tmp_path)
    for fmt in ("table", "json", "tsv"):
        r = cli("grad", script, "--expect", path, "-f", fmt)
        assert (r.exit_code, r.stderr) == (0, ""), fmt


def test_a_changed_script_fails_with_a_precise_diff(tmp_path):
    script, path = golden(tmp_path)
    (tmp_path / "s.txt").write_text(SCRIPT.replace("0.5", "0.75"))
    r = cli("grad", script, "--expect", path)
    assert r.exit_code == 1
    assert r.stderr == (
        "drift: y (value): 1.5 -> 2.25\n"
        "drift: a[0]: 0.5 -> 0.75\n"
        "drift: a[1]: 0.5 -> 0.75\n"
        f"error: {script}: GradientDrift: 3 values differ from {path} (rtol 1e-07, atol 0)\n"
    )
    assert r.stdout.startswith("y = tensor(2.2500, grad_fn=<SumBackward0>)")  # the report as usual
    r = cli("grad", script, "--expect", path, "--format", "json")
    drifts = [json.loads(line) for line in r.stderr.splitlines()]
    assert drifts[1] == {"drift": {"file": script, "name": "a", "index": [0], "old": 0.5, "new": 0.75}}
    assert drifts[-1]["error"]["type"] == "GradientDrift"
    # within tolerance: no drift
    assert cli("grad", script, "--expect", path, "--rtol", "0.6").exit_code == 0


def test_shapes_and_leaves_that_change_are_differences_too():
    old = {"target": None, "leaves": {"a": {"grad": [1.0, 2.0]}, "b": {"grad": None}}}
    new = {"target": None, "leaves": {"a": {"grad": [1.0, 2.0, 3.0]}, "c": {"grad": 1.0}}}
    assert [d.text() for d in drift(old, new)] == [
        "a: shape [2] -> shape [3]",
        "b: a leaf -> no such leaf",
        "c: no such leaf -> a leaf",
    ]
    assert drift({"leaves": {"a": {"grad": "nan"}}}, {"leaves": {"a": {"grad": "nan"}}}) == []
    assert [
        d.text() for d in drift({"leaves": {"a": {"grad": 1.0}}}, {"leaves": {"a": {"grad": "inf"}}})
    ] == ["a: 1.0 -> inf"]


def test_bad_golden_files_are_usage_errors(tmp_path):
    script, path = golden(tmp_path)
    assert cli("grad", script, "--expect", str(tmp_path / "none.json")).exit_code == 2
    (tmp_path / "x.json").write_text("{")
    r = cli("grad", script, "--expect", str(tmp_path / "x.json"))
    assert r.exit_code == 2 and "not a JSON document" in r.stderr
    r = cli("grad", script, script, "--expect", path)
    assert (r.exit_code, r.stderr) == (
        2,
        "error: UsageError: --expect GOLDEN compares one script: give one SCRIPT\n",
    )
