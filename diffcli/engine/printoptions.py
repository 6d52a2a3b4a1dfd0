"""`torch.set_printoptions(precision, threshold, edgeitems, linewidth, profile, sci_mode)`,
as PyTorch 2.13 sets them (`torch/_tensor_str.py`): the options of the engine's printing
(`diffcli.engine.printing`), for the rest of the run (each run starts from the defaults: `reset`).

They are run settings like those of `context.py`, kept in `printing`'s globals, which
only this module writes."""

from __future__ import annotations

import math

from . import printing

_DEFAULTS = {"PRECISION": 4, "THRESHOLD": 1000, "EDGEITEMS": 3, "LINEWIDTH": 80, "SCI_MODE": None}
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def reset() -> None:
    for name, value in _DEFAULTS.items():
        setattr(printing, name, value)


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    if profile in _PROFILES:  # (an unknown profile is ignored, as in PyTorch)
        printing.PRECISION, printing.THRESHOLD, printing.EDGEITEMS, printing.LINEWIDTH = _PROFILES[profile]
    if precision is not None:
        printing.PRECISION = precision
    if threshold is not None:
        printing.THRESHOLD = threshold
    if edgeitems is not None:
        printing.EDGEITEMS = edgeitems
    if linewidth is not None:
        printing.LINEWIDTH = linewidth
    printing.SCI_MODE = sci_mode  # (always: set_printoptions() turns sci_mode back to auto)
