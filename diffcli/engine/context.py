"""The engine's run settings, and the one way to change them from outside the engine.

Four settings shape what the engine does while a script runs:

- grad mode (PyTorch's `torch.is_grad_enabled()`): whether ops record the graph;
- max elements (`--max-elements`): the largest tensor a constructor may make;
- trace: a list that every op appends `(output, inputs, node, value)` to (`diffcli
  graph`), or None;
- poll: a function the engine's long loops (backward passes, unbind) call every so many
  steps to check the caller's limits (`--timeout`, `--max-memory`), or None.

The engine reads each from a cell below (a one-element list: the cheapest read on the
hot path of every op). Code outside the engine never writes the cells: it makes a
`RunContext` naming the settings it wants and either enters it (`with RunContext(...):`,
the previous settings come back on exit) or applies it (`RunContext(...).apply()`, the
settings hold until something sets them again: a run starts in grad mode with its
`--max-elements`, and both still hold for the backward passes its caller makes after
it). Grad mode alone is also set by `no_grad`, `enable_grad` and `set_grad_enabled`
(`grad_mode.py`), as in PyTorch. This module imports nothing, so every engine module can
read it.
"""

from __future__ import annotations

DEFAULT_MAX_ELEMENTS = 10_000_000

GRAD_ENABLED = [True]
MAX_ELEMENTS = [DEFAULT_MAX_ELEMENTS]
TRACE = [None]
POLL = [None]

_CELLS = {"grad_enabled": GRAD_ENABLED, "max_elements": MAX_ELEMENTS, "trace": TRACE, "poll": POLL}
KEEP = object()  # a setting left as it is


class RunContext:
    """Run settings for the engine; a setting not given (KEEP) is left as it is.

    `with RunContext(trace=[]) as ctx:` puts them in force and restores the previous
    ones on exit (also when the block raises); `.apply()` puts them in force for good.
    """

    __slots__ = ("settings", "_saved")

    def __init__(self, *, grad_enabled=KEEP, max_elements=KEEP, trace=KEEP, poll=KEEP):
        given = {"grad_enabled": grad_enabled, "max_elements": max_elements, "trace": trace, "poll": poll}
        self.settings = {k: v for k, v in given.items() if v is not KEEP}
        if "grad_enabled" in self.settings:
            self.settings["grad_enabled"] = bool(grad_enabled)
        self._saved = []

    def apply(self) -> RunContext:
        for name, value in self.settings.items():
            _CELLS[name][0] = value
        return self

    def __enter__(self) -> RunContext:
        self._saved.append({name: _CELLS[name][0] for name in self.settings})
        return self.apply()

    def __exit__(self, *exc) -> bool:
        for name, value in self._saved.pop().items():
            _CELLS[name][0] = value
        return False

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.settings.items())
        return f"RunContext({inner})"


def current() -> dict:
    """The settings in force now, by name (for tests and diagnostics)."""
    return {name: cell[0] for name, cell in _CELLS.items()}
