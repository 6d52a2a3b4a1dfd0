import pytest

from .samples import ROOT


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    """CLI tests name samples relative to the repository root."""
    monkeypatch.chdir(ROOT)
