"""The JSON contract: finite floats round-trip, non-finite ones are "nan"/"inf"/"-inf",
tensors are nested lists (0-d: a bare number), a missing gradient is null."""

from __future__ import annotations

import json
import math

import numpy as np


def plain(v):
    """numpy arrays and scalars -> JSON-ready Python values."""
    if isinstance(v, np.ndarray):
        return _fix(v.tolist())
    if isinstance(v, np.generic):
        return _fix(v.item())
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return _fix(v)


def json_number(v):
    """A float for JSON: itself if finite, else "nan", "inf" or "-inf"; other values pass."""
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def _fix(v):
    if isinstance(v, float):
        return json_number(v)
    if isinstance(v, list):
        return [_fix(x) for x in v]
    return v


def dumps(obj) -> str:
    return json.dumps(plain(obj), indent=2, allow_nan=False)


def grad_doc(report) -> dict:
    from ..session import tensor_record

    return {
        "target": None
        if report.target is None
        else {"name": report.target_name, **tensor_record(report.target)},
        "leaves": {n: tensor_record(t) for n, t in report.leaves},
        "retained": {n: tensor_record(t) for n, t in report.retained},
    }


def grad_json(report) -> str:
    return dumps(grad_doc(report))


def graph_doc(nodes) -> dict:
    from ..session import tensor_record

    return {
        "nodes": [
            {
                "id": n.id,
                "name": n.name,
                "op": n.op,
                "inputs": n.inputs,
                "next_functions": n.next_functions,
                **tensor_record(n.tensor),
            }
            for n in nodes
        ]
    }


def graph_json(nodes) -> str:
    return dumps(graph_doc(nodes))


def error_json(err, filename) -> str:
    record = {
        "type": err.type_name,
        "message": err.message,
        "file": filename,
        "line": err.line or None,
        "column": err.column or None,
    }
    if getattr(err, "note", ""):
        record["note"] = err.note  # which command-line option caused it
    return json.dumps({"error": record})
