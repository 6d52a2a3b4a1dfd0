"""'Did you mean' for a name a script got wrong, in Python's words.

The candidates are the names that were in reach where the mistake was made: the script's
variables and the builtins and op table for a bare name (`sni(x)`), a namespace's members
for `torch.sine`, the tensor attribute and method whitelists for `x.backwards()`, the
callee's parameters for a keyword (`tensor(2.0, require_grad=True)`). A candidate is
close when a few edits make it (an insertion, a deletion, a change or a swap of two
neighbours each count one; at most one per four letters, and at least one), so a swap
such as `sni` -> `sin` is found while `foo` is not taken for `floor` (nor `q` for
`eq`: names of one or two letters get no suggestion); among the closest,
difflib's ratio decides. It is suggested in Python's words: 3.12's for names and
attributes (`. Did you mean: 'sin'?`), 3.13's for keywords (`. Did you mean 'x'?`).
"""

from __future__ import annotations

import difflib
import inspect


def closest(name: str, candidates) -> str | None:
    """The candidate closest to `name`, or None when none is close enough. Private and
    dunder names are never suggested, nor anything for a name of one or two letters (`q`
    is not a typo of `eq`); ties go to the alphabetically first."""
    if len(name) < 3:
        return None
    budget = max(1, len(name) // 4)
    best, best_key = None, None
    for c in candidates:
        if not isinstance(c, str) or c == name or c.startswith("_") or abs(len(c) - len(name)) > budget:
            continue
        d = edits(name, c, budget)
        if d > budget:
            continue
        key = (d, -difflib.SequenceMatcher(None, name, c).ratio(), c)
        if best_key is None or key < best_key:
            best, best_key = c, key
    return best


def edits(a: str, b: str, limit: int) -> int:
    """The optimal-string-alignment distance of `a` and `b` (limit + 1 once past limit)."""
    prev2, prev = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], prev2[j - 2] + 1)
        if min(row) > limit:
            return limit + 1
        prev2, prev = prev, row
    return prev[len(b)]


def name_hint(name: str, candidates) -> str:
    """`. Did you mean: 'sin'?` for a name or attribute, or ''."""
    best = closest(name, candidates)
    return f". Did you mean: '{best}'?" if best else ""


def keyword_hint(name: str, keywords) -> str:
    """`. Did you mean 'requires_grad'?` for a keyword not among `keywords`, or ''."""
    best = closest(name, keywords)
    return f". Did you mean '{best}'?" if best else ""


def keyword_names(fn) -> list:
    """The names `fn` accepts as keywords (none if it cannot be told)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]
