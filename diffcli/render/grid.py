"""Plain-text tables in the layout diffcli has always printed (rich's SIMPLE_HEAD box:
a header, a rule of `─`, rows; columns one space apart plus one space of padding each
side, none at the outer edges), in time linear in the total size of the cells.

rich's Table measures and renders every cell through its renderable machinery: about
2 ms a row here, so a 20,000-node `graph` took 37 s. This module does the same layout
with string operations. It follows rich 15's rules (column widths, shrinking the widest
columns when the table is wider than the console, word wrap that folds long words), so
the output is what diffcli printed through rich, with two differences: cells are text,
never rich markup (`tensor([nan, 1.])` used to print as `tensor()`), and the layout no
longer changes with the installed rich version (rich is imported only to measure
non-ASCII text, whose characters may be zero, one or two cells wide).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\s*\S+\s*")
_CONTROL = str.maketrans("", "", "\x07\x08\x0b\x0c\x0d")  # rich drops these from text
BOLD, ITALIC, RESET = "\x1b[1m", "\x1b[3m", "\x1b[0m"


def cell_len(s: str) -> int:
    """The width of `s` in terminal cells (wide East Asian characters take two)."""
    if s.isascii():
        return len(s)
    from rich.cells import cell_len as rich_cell_len

    return rich_cell_len(s)


def _chop(word: str, width: int) -> list:
    """`word` in pieces of at most `width` cells (rich's chop_cells)."""
    if word.isascii():
        return [word[i : i + width] for i in range(0, len(word), width)]
    from rich.cells import chop_cells

    return chop_cells(word, width) or [""]


def _crop(line: str, width: int) -> str:
    if line.isascii():
        return line[:width]
    from rich.cells import set_cell_size

    return set_cell_size(line, width).rstrip()


def wrap(text: str, width: int) -> list:
    """`text` as lines of at most `width` cells: split at newlines, then word-wrapped at
    spaces, a word longer than a line folded across lines (rich's divide_line). No
    room at all (`width` < 1) shows nothing."""
    if width < 1:
        return [""]
    if len(text) <= width and text.isascii() and text.isprintable():
        return [text]  # the common case: it fits as it is
    out = []
    for line in text.translate(_CONTROL).split("\n"):
        if "\t" in line:
            line = line.expandtabs(8)
        if cell_len(line) <= width:
            out.append(line)
            continue
        breaks, offset = [], 0
        for m in _WORD.finditer(line):
            start, word = m.start(), m.group(0)
            length = cell_len(word.rstrip())
            if width - offset >= length:
                offset += cell_len(word)
            elif length > width:
                pieces = _chop(word, width)
                for k, piece in enumerate(pieces):
                    if start:
                        breaks.append(start)
                    if k == len(pieces) - 1:
                        offset = cell_len(piece)
                    else:
                        start += len(piece)
            elif offset and start:
                breaks.append(start)
                offset = cell_len(word)
        for a, b in zip([0] + breaks, breaks + [len(line)]):
            out.append(_crop(line[a:b], width) if cell_len(line[a:b]) > width else line[a:b])
    return out


def _ratio_reduce(total, ratios, maximums, values):
    ratios = [r if m else 0 for r, m in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return values[:]
    result = []
    for r, m, v in zip(ratios, maximums, values):
        if r and total_ratio > 0:
            d = min(m, round(r * total / total_ratio))
            result.append(v - d)
            total -= d
            total_ratio -= r
        else:
            result.append(v)
    return result


def _collapse(widths, max_width):
    """Shrink the widest columns first until the table fits (rich's _collapse_widths),
    then, if it still does not fit, every column evenly."""
    excess = sum(widths) - max_width
    while sum(widths) and excess > 0:
        widest = max(widths)
        second = max((w for w in widths if w != widest), default=0)
        diff = widest - second
        if not diff:
            break
        ratios = [1 if w == widest else 0 for w in widths]
        widths = _ratio_reduce(excess, ratios, [min(excess, diff)] * len(widths), widths)
        excess = sum(widths) - max_width
    if excess > 0:
        widths = _ratio_reduce(excess, [1] * len(widths), widths, widths)
    return widths


def _pads(n):
    """(left, right) padding of each of n columns: one space inside, none at the edges."""
    return [(0 if i == 0 else 1, 0 if i == n - 1 else 1) for i in range(n)]


def _style(text, on, styled):
    return on + text + RESET if styled and text else text


def table(columns, rows, max_width=400, title=None, styled=False) -> str:
    """The table as text, one line per output line, each right-stripped.

    `rows` is an iterable of sequences of strings, one per column; a cell may hold
    several lines. `styled`: a bold header and an italic title (ANSI), for terminals."""
    rows = [list(r) for r in rows]
    n = len(columns)
    pads = _pads(n)
    avail = max(max_width - (n - 1), 0)
    natural = []
    for i, head in enumerate(columns):
        widest = cell_len(head)
        for r in rows:
            cell = r[i]
            if "\n" in cell or "\t" in cell or not cell.isascii():
                w = max(cell_len(x.expandtabs(8)) for x in cell.translate(_CONTROL).split("\n"))
            else:
                w = len(cell)
            if w > widest:
                widest = w
        natural.append(min(widest + sum(pads[i]), avail) or 1)
    widths = natural if sum(natural) <= avail else _collapse(natural, avail)
    inner = [max(w - a - b, 0) for w, (a, b) in zip(widths, pads)]
    table_width = sum(widths) + n - 1

    lines = []
    if title:
        lines.extend(_style(x.rstrip(), ITALIC, styled) for x in wrap(title, table_width))

    simple = not styled and all(w == i + a + b for w, i, (a, b) in zip(widths, inner, pads))

    def emit(cells, header):
        if simple and all(len(c) <= w and c.isascii() and c.isprintable() for c, w in zip(cells, inner)):
            lines.append("   ".join(c.ljust(w) for c, w in zip(cells, inner)).rstrip())
            return  # one line, every cell as it is
        wrapped = [wrap(c, w) for c, w in zip(cells, inner)]
        height = max(len(c) for c in wrapped)
        for k in range(height):
            parts = []
            for (a, b), full, w, cell in zip(pads, widths, inner, wrapped):
                if full < a + b + 1:  # no room inside the padding: blank
                    parts.append(" " * full)
                    continue
                j = k - (height - len(cell)) if header else k  # the header aligns bottom
                text = cell[j].rstrip() if 0 <= j < len(cell) else ""
                parts.append(" " * a + _style(text, BOLD, styled and header) + " " * (w - cell_len(text) + b))
            lines.append(" ".join(parts).rstrip())

    emit(columns, True)
    lines.append("─" * table_width)
    for r in rows:
        emit(r, False)
    return "\n".join(lines) + "\n"
