"""`diffcli jacobian` and `diffcli hessian` for people and pipelines: the matrix as a
labelled table (rows and columns named `y[0]`, `a`, `w[1,2]`, numbers in PyTorch's print
format, one format for the whole matrix), TSV (numbers that round-trip), and JSON:
`{"of", "wrt", "value", "jacobian": {WRT: nested list}}` or
`{"of", "wrt", "value", "hessian": {WRT_I: {WRT_J: block}}}`, each block shaped as
torch.autograd.functional returns it, plus `"vjp"`/`"jvp"` when they were asked for."""

from __future__ import annotations

import sys

import numpy as np

from ..engine.printing import _Formatter
from ..jacobians import MatrixReport, matrix
from .jsonout import dumps, json_number
from .table import _print
from .text import tensor_text


def title(report: MatrixReport) -> str:
    names = ", ".join(n for n, _ in report.wrt)
    return f"{report.kind} of {report.of} with respect to {names}"


def _cells(values: np.ndarray) -> list:
    fmt = _Formatter(values) if values.size else None
    return [[fmt.format(v) for v in row] for row in values.tolist()]


def matrix_table(report: MatrixReport, file=None) -> None:
    rows, cols, values = matrix(report)
    cells = _cells(values)
    file = file or sys.stdout
    file.write(title(report) + "\n")  # (a line of its own: the matrix may be narrower)
    _print(["", *cols], [[r, *c] for r, c in zip(rows, cells)], file)
    extra = []
    if report.vjp is not None:
        extra += [[f"vjp {n}", tensor_text(v)] for n, v in report.vjp.items()]
    if report.jvp is not None:
        extra.append(["jvp", tensor_text(report.jvp)])
    if extra:
        _print(["product", "value"], extra, file)


def _number(v) -> str:
    v = json_number(float(v))
    return v if isinstance(v, str) else repr(v)


def matrix_tsv(report: MatrixReport) -> str:
    rows, cols, values = matrix(report)
    lines = ["\t".join([report.kind, *cols])]
    lines += ["\t".join([r, *(_number(v) for v in row)]) for r, row in zip(rows, values.tolist())]
    return "\n".join(lines) + "\n"


def matrix_json(report: MatrixReport) -> str:
    from ..session import tensor_record

    out = {
        "of": report.of,
        "wrt": [n for n, _ in report.wrt],
        "value": tensor_record(report.target),
        report.kind: report.blocks,
    }
    if report.vjp is not None:
        out["vjp"] = report.vjp
    if report.jvp is not None:
        out["jvp"] = report.jvp
    return dumps(out)
