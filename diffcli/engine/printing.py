"""PyTorch's tensor printing, reproduced on numpy arrays.

This module follows ``torch/_tensor_str.py`` (PyTorch 2.13) with the default
print options (precision 4, threshold 1000, edgeitems 3, linewidth 80,
sci_mode None).  The rules it reproduces:

* One ``_Formatter`` per tensor, built from the (summarised) values.  For
  floats it looks only at the nonzero finite values:
  - *int mode* when every such value is whole: ``2.``; nan/inf get no dot;
  - *sci mode* when ``max/min > 1000``, ``max > 1e8`` or ``min < 1e-4``
    (of the absolute values): ``1.0000e+05``;
  - otherwise fixed point with 4 decimals: ``2.5000``.
  Every element is right-aligned to the widest formatted nonzero finite value
  (in int mode, ``len("%.0f") + 1``); wider strings (``-inf``) are not cut.
  Integers and bools are right-aligned to their widest ``str()``.
* Layout: ``tensor(`` is the indent (7).  A 1-D row holds
  ``floor((80 - indent) / (width + 2))`` elements per line, continuation lines
  are indented by ``indent + 1``.  Deeper dimensions join their slices with
  ``",\\n"`` plus one blank line per extra dimension, each level indented one
  more column.
* Summarisation when there are more than 1000 elements: each dimension longer
  than 6 keeps its first and last 3 entries, with ``...`` between them; the
  formatter only sees the kept values.
* Suffixes: ``size=(...)`` for empty tensors that are not 1-D, then
  ``dtype=torch.X`` for non-default dtypes, then the caller's suffixes
  (``grad_fn=<...>`` or ``requires_grad=True``), joined by ``", "``.  A suffix
  that would make the last line longer than the linewidth goes on a new line,
  indented by 7.

As in PyTorch, the default float dtype is the run's (``dtypes.default_float()``):
float32 in the PyTorch flavour, float64 in the math flavour, or what
``torch.set_default_dtype`` made it.  A tensor of the default float dtype (like int64
and bool) prints no dtype; any other float prints ``dtype=torch.X``.  An empty tensor
prints its dtype unless it is the default float dtype.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from . import dtypes, errors

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80
SCI_MODE = None  # torch.set_printoptions(sci_mode=...): None decides per tensor (these five
# are set by diffcli/engine/printoptions.py)

_PREFIX = "tensor("
POLL_EVERY = 1 << 14  # elements formatted between two polls of the run's limits (--timeout)
_ALWAYS_DEFAULT = (np.dtype(np.int64), np.dtype(np.bool_))  # besides the default float

__all__ = ["format_tensor", "format_scalar_item", "format_size", "dtype_name"]


def dtype_name(dtype) -> str:
    """``torch.float64`` style name of a numpy dtype (real types only)."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "fiub":
        raise TypeError(f"cannot print tensors of dtype {dtype}")
    return "torch." + dtype.name


class _Formatter:
    """Chooses one number format and width for every element of a tensor."""

    def __init__(self, values: np.ndarray):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1

        if not self.floating:
            for value in values.reshape(-1).tolist():
                self.max_width = max(self.max_width, len(str(value)))
            return

        flat = values.reshape(-1).astype(np.float64)
        nonzero_finite = flat[np.isfinite(flat) & (flat != 0)]
        if nonzero_finite.size == 0:
            return

        magnitudes = np.abs(nonzero_finite)
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(nonzero_finite == np.ceil(nonzero_finite)))
        self.sci_mode = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        if SCI_MODE is not None:
            self.sci_mode = SCI_MODE

        for value in _polled(nonzero_finite.tolist()):
            if self.sci_mode:
                width = len(f"{value:.{PRECISION}e}")
            elif self.int_mode:
                width = len(f"{value:.0f}") + 1
            else:
                width = len(f"{value:.{PRECISION}f}")
            self.max_width = max(self.max_width, width)

    def format(self, value) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{PRECISION}f}"
        return text.rjust(self.max_width)


def _polled(items: list) -> Iterable:
    """`items`, polling the run's limits (the engine's `poll` setting) every POLL_EVERY of
    them: printing a huge tensor with the threshold raised (set_printoptions(threshold=...))
    takes a Python step per element, and must stop at --timeout like any long loop."""
    poll = errors.POLL[0]
    if poll is None or len(items) < POLL_EVERY:
        return items
    return _polling(items, poll)


def _polling(items, poll):
    for start in range(0, len(items), POLL_EVERY):
        poll()
        yield from items[start : start + POLL_EVERY]


def _scalar_float(value: float) -> str:
    """What the formatter makes of one float alone (a 0-d tensor's body): the same rules,
    without arrays, since the value is its own widest, smallest and largest."""
    if value != value or value in (math.inf, -math.inf):
        return f"{value:.0f}"  # nan, inf, -inf: int mode, no dot
    if value == 0:
        return f"{value:.0f}."
    magnitude = abs(value)
    sci = magnitude > 1.0e8 or magnitude < 1.0e-4 if SCI_MODE is None else SCI_MODE
    if sci:
        return f"{value:.{PRECISION}e}"
    if value == math.ceil(value):
        return f"{value:.0f}."
    return f"{value:.{PRECISION}f}"


def _edge_indices(length: int, summarize: bool) -> list[int | None]:
    """Indices to show along one dimension; ``None`` marks the ``...``."""
    if summarize and length > 2 * EDGEITEMS:
        return [*range(EDGEITEMS), None, *range(length - EDGEITEMS, length)]
    return list(range(length))


def _summarized_values(data: np.ndarray) -> np.ndarray:
    """The values PyTorch's formatter sees: the edges of every long dimension."""
    for axis, length in enumerate(data.shape):
        kept = [i for i in _edge_indices(length, True) if i is not None]
        data = np.take(data, kept, axis=axis)
    return data


def _vector_str(data: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    elements_per_line = max(1, math.floor((LINEWIDTH - indent) / (fmt.max_width + 2)))
    values = data.tolist()
    items = [
        " ..." if i is None else fmt.format(values[i]) for i in _polled(_edge_indices(len(values), summarize))
    ]
    lines = [", ".join(items[i : i + elements_per_line]) for i in range(0, len(items), elements_per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(data: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if data.ndim == 0:
        return fmt.format(data.item())
    if data.ndim == 1:
        return _vector_str(data, indent, summarize, fmt)
    slices = [
        "..." if i is None else _tensor_str(data[i], indent + 1, summarize, fmt)
        for i in _edge_indices(data.shape[0], summarize)
    ]
    separator = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(slices) + "]"


def _add_suffixes(tensor_str: str, suffixes: Iterable[str], indent: int) -> str:
    # Same arithmetic as torch: the "+ 1" over-counts the last line by two.
    parts = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(data: np.ndarray, *, suffixes: Sequence[str] = ()) -> str:
    """What ``str(tensor)`` prints for a tensor holding ``data``.

    ``suffixes`` (e.g. ``"requires_grad=True"``, ``"grad_fn=<MulBackward0>"``)
    are appended after the size/dtype suffixes this function adds itself.
    """
    data = np.asarray(data)
    indent = len(_PREFIX)
    own_suffixes = []
    if data.size == 0:
        if data.ndim != 1:
            own_suffixes.append(f"size={tuple(int(n) for n in data.shape)}")
        if data.dtype != dtypes.default_float():
            own_suffixes.append("dtype=" + dtype_name(data.dtype))
        body = "[]"
    else:
        if data.dtype != dtypes.default_float() and data.dtype not in _ALWAYS_DEFAULT:
            own_suffixes.append("dtype=" + dtype_name(data.dtype))
        if not data.ndim and data.dtype.kind == "f":
            body = _scalar_float(data.item())
        else:
            summarize = data.size > THRESHOLD
            fmt = _Formatter(_summarized_values(data) if summarize else data)
            body = _tensor_str(data, indent, summarize, fmt)
    return _add_suffixes(_PREFIX + body, [*own_suffixes, *suffixes], indent)


def format_scalar_item(value, dtype) -> str:
    """What Python prints for ``t.item()`` of a one-element tensor of ``dtype``.

    The value is first rounded to ``dtype`` (so float32 ``0.1`` prints as
    ``0.10000000149011612``), then shown as a Python bool, int or float.
    """
    scalar = np.asarray(value, dtype=np.dtype(dtype)).item()
    kind = np.dtype(dtype).kind
    if kind == "b":
        return str(bool(scalar))
    if kind in "iu":
        return str(int(scalar))
    return repr(float(scalar))


def format_size(shape: Iterable[int]) -> str:
    """``torch.Size([2, 3])`` for a shape; ``torch.Size([])`` for a 0-d tensor."""
    return "torch.Size([" + ", ".join(str(int(n)) for n in shape) + "])"
