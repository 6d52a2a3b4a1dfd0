"""A non-editable install gets every package: pyproject.toml lists each folder of diffcli/
that holds an __init__.py (a folder left out installs without it, and only an installed
diffcli would notice)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_lists_every_package():
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.search(r"^packages = \[(.*)\]$", text, re.M).group(1).replace('"', "").split(", "))
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "diffcli").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
    assert listed - found == {"diffcli.grammar"}
