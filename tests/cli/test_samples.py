"""Every sample's output under `run`, `grad` and `graph` is pinned."""

import pytest

from .samples import COMMANDS, ROOT, SAMPLES, expected_path, render


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_output_is_pinned(path, command, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("NO_COLOR", raising=False)
    want = expected_path(path, command).read_text()
    assert render(path, command) == want


def test_every_sample_has_pins():
    assert len(SAMPLES) >= 12
    for p in SAMPLES:
        for c in COMMANDS:
            assert expected_path(p, c).exists(), f"{p.name}: no pinned output for {c}"


# --- the PyTorch-flavour samples print what PyTorch printed ---------------------------------
# tests/goldens/samples.json: each sample that imports torch, run by torch 2.13 as its own
# process (tests/goldens/record_samples.py), stdout without object addresses.
import json  # noqa: E402

TORCH_RUNS = json.loads((ROOT / "tests" / "goldens" / "samples.json").read_text())["samples"]


def test_every_pytorch_flavour_sample_was_recorded():
    importing = [p.name for p in SAMPLES if "\nimport torch" in "\n" + p.read_text()]
    assert sorted(importing) == sorted(r["sample"] for r in TORCH_RUNS)


@pytest.mark.parametrize("record", TORCH_RUNS, ids=lambda r: r["sample"])
def test_pytorch_flavour_sample_prints_what_pytorch_printed(record, monkeypatch):
    monkeypatch.chdir(ROOT)
    want = expected_path(ROOT / "samples" / record["sample"], "run").read_text()
    code, stdout = (
        int(want.split("\n", 1)[0].split()[1]),
        want.split("--- stdout\n", 1)[1].split("--- stderr\n")[0],
    )
    assert stdout == record["stdout"]  # the pinned run output is PyTorch's
    assert code == record["returncode"]
    if record["error"]:
        assert f": {record['error']}\n" in want
