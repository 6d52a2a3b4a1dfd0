"""The pytest plugin (issue 16 item 5): `pytest --diffcli DIR` collects the scripts as
items that run check, and grad --expect where a golden sits beside; run on the project's
samples."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from .samples import ROOT

pytest_plugins = ["pytester"]
# (in a subprocess: an in-process run drops the modules it imported from sys.modules, and the
# re-imported ones no longer match the classes the rest of the suite's diffcli holds)

# the samples that fail `check`: three raise PyTorch's errors on purpose; in four the last
# assigned name is no tensor that requires grad (they need --of to be checked); torch_func
# differentiates with torch.func itself, so no leaf requires grad
FAILING = {
    "backward_twice_error",
    "inplace_leaf_error",
    "inplace_version_error",
    "create_graph_second",
    "pytorch_flavour_loop",
    "seed2_basic",
    "seed2_create_graph",
    "torch_func",
}


def test_the_plugin_collects_and_runs_the_samples(pytester):
    samples = pytester.path / "samples"
    shutil.copytree(ROOT / "samples", samples)
    names = sorted(p.stem for p in samples.glob("*.txt"))
    (samples / "matmul.golden.json").write_text(_grad_json(samples / "matmul.txt"))
    result = pytester.runpytest_subprocess("--diffcli", "samples", "-p", "no:cacheprovider", "-q", "-rf")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == len(FAILING)
    assert outcomes.get("passed") == len(names) - len(FAILING) + 1  # + the matmul --expect item
    failed = sorted(
        line.split("::")[0].split("/")[-1][:-4] for line in result.outlines if line.startswith("FAILED ")
    )
    assert failed == sorted(FAILING)
    result.stdout.fnmatch_lines(
        [
            "*diffcli check samples/backward_twice_error.txt exited 1*",
            "*--- stderr*",
            "*RuntimeError: Trying to backward through the graph a second time*",
        ]
    )


def test_a_drifted_golden_fails_its_expect_item(pytester):
    d = pytester.path / "scripts"
    d.mkdir()
    (d / "s.txt").write_text("x = 2.0\ny = x * x\n")
    (d / "s.golden.json").write_text(_grad_json(d / "s.txt").replace('"grad": 4.0', '"grad": 5.0'))
    result = pytester.runpytest_subprocess("--diffcli", "scripts", "-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*diffcli grad scripts/s.txt --expect scripts/s.golden.json exited 1*", "*drift: x: 5.0 -> 4.0*"]
    )


def _grad_json(path):
    # (a child process: pytester's teardown drops the modules a test imported, so diffcli
    # run in-process here could mix two imports of its own modules)
    r = subprocess.run(
        [sys.executable, "-m", "diffcli", "grad", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture(autouse=True)
def _no_cd(monkeypatch):
    """(pytester changes to its own directory)"""
    yield
