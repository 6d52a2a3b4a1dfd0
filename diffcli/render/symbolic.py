"""`grad --symbolic` output: text (diffcli syntax), LaTeX, and JSON.

Text: `p = FORMULA`, then `dp/da = FORMULA` per leaf that requires grad; when every
variable has a value (no stand-ins), each formula is followed by `  = VALUE`, the engine's
number. A formula with temporaries prints them indented on the lines after its name.

JSON: the `grad` document (target, leaves, retained) with, beside each record, "formula"
(diffcli syntax) and "latex" (the target's own expression for the target, d target /
d leaf for a leaf; null for a leaf that does not require grad), and "free": the variables
that had no value (their records' "value" and "grad" are null, and so are the target's).
"""

from __future__ import annotations

from .jsonout import dumps
from .text import tensor_text


def _value_line(width, text):
    return " " * width + "= " + text


def _entry(label, formula, value=None):
    text = formula.text
    if "\n" in text:
        lines = [f"{label} =", *("    " + line for line in text.split("\n"))]
    else:
        lines = [f"{label} = {text}"]
    if value is not None:
        lines.append(_value_line(len(label) + 1, value))
    return lines


def grad_text(sym) -> str:
    lines = []
    known = sym.values_known
    t = sym.report.target
    lines += _entry(sym.target_name, sym.target, tensor_text(t.array) if known else None)
    for name, leaf, f in sym.leaves:
        if f is None:
            continue
        g = leaf._grad
        value = (tensor_text(g.array) if g is not None else "None") if known else None
        lines += _entry(f"d{sym.target_name}/d{name}", f, value)
    return "\n".join(lines) + "\n"


def grad_latex(sym) -> str:
    lines = [f"{_latex_name(sym.target_name)} = {sym.target.latex}"]
    for name, _, f in sym.leaves:
        if f is not None:
            lines.append(
                rf"\frac{{\partial {_latex_name(sym.target_name)}}}{{\partial {_latex_name(name)}}}"
                f" = {f.latex}"
            )
    return "\n".join(lines) + "\n"


def _latex_name(name):
    import sympy as S

    return S.latex(S.Symbol(name))


def grad_json(sym) -> str:
    from ..session import tensor_record

    free = set(sym.free)
    known = not free

    def record(t, formula, unknown, name=None):
        rec = tensor_record(t)
        if unknown:
            rec["grad"] = None
            if name is None or name in free:
                rec["value"] = None
        rec["formula"] = None if formula is None else formula.text
        rec["latex"] = None if formula is None else formula.latex
        return rec

    report = sym.report
    out = {
        "target": {"name": report.target_name, **record(report.target, sym.target, not known)},
        "leaves": {n: record(t, f, not known, n) for n, t, f in sym.leaves},
        "retained": {n: tensor_record(t) for n, t in report.retained},
        "free": sorted(free, key=sym.free.index),
    }
    if not known:
        for rec in out["retained"].values():
            rec["value"] = rec["grad"] = None
    return dumps(out)
