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
