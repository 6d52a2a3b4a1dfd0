"""Fixtures every test gets. Helpers the tests import are in tests/helpers.py."""

from __future__ import annotations

import pytest

from diffcli.engine import dtypes


@pytest.fixture(autouse=True)
def _engine_dtype_defaults():
    """Each test starts with the engine's own dtype settings (float64): a session run
    leaves its script's settings in force for the command's later work (session.Run)."""
    prev = dtypes.use_defaults(dtypes.MATH)
    yield
    dtypes.use_defaults(prev)
