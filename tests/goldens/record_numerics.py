"""Record PyTorch's bits for the numerics goldens: every function of numerics_cases.UNARY on
3,000 0-d inputs per dtype, and every reduction on 1,000 arrays per dtype (sizes 1 to 10^5).

    python3 tests/goldens/record_numerics.py     # the system python3, with torch

Writes tests/goldens/numerics.json: the results only (the inputs are made again from their
seeds); a 0-d function's results are one base64 string of its little-endian bits, a
reduction's are per case the result's hex bits (sha256 of them for a result over 32 bytes).
ATen splits a reduction of 32,768 elements or more across its threads, so the thread count
is recorded too (the test gives diffcli the same)."""

from __future__ import annotations

import base64
import json
import pathlib
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import numerics_cases as C  # noqa: E402

OUT = pathlib.Path(__file__).with_name("numerics.json")


def torch_unary(name):
    return getattr(torch, name, None) or getattr(F, name)


def torch_reduce(op, t, dim):
    if op in ("softmax", "log_softmax", "cumsum", "logsumexp"):
        return getattr(torch, op)(t, 0 if dim is None else dim)
    if op == "norm" and dim is not None:
        return getattr(torch, op)(t, dim=dim)
    return getattr(torch, op)(t) if dim is None else getattr(torch, op)(t, dim)


def main(unary_only=False):
    """`--unary-only`: record the 0-d functions again and keep the reductions' records."""
    unary = {}
    for name in C.UNARY:
        fn = torch_unary(name)
        for dtype in C.DTYPES:
            xs = C.unary_inputs(name, dtype)
            out = np.array([fn(torch.tensor(x)).item() for x in xs], dtype=dtype)
            unary[f"{name}/{dtype}"] = base64.b64encode(
                out.astype("<" + out.dtype.str[1:]).tobytes()
            ).decode()
    reduce, threads = {}, torch.get_num_threads()
    if unary_only:
        old = json.loads(OUT.read_text())
        reduce, threads = old["reduce"], old["threads"]
    for dtype in () if unary_only else C.DTYPES:
        for i in range(C.N_REDUCE):
            x, dim = C.reduce_case(i, dtype)
            ops = C.REDUCTIONS_FULL if dim is None else C.REDUCTIONS_DIM
            for op in ops:
                src = C.prod_input(x) if op == "prod" else x
                r = torch_reduce(op, torch.from_numpy(src), dim).numpy()
                reduce.setdefault(f"{op}/{dtype}", []).append(C.digest(r))
    data = {
        "torch": torch.__version__,
        "threads": threads,
        "n_unary": C.N_UNARY,
        "n_reduce": C.N_REDUCE,
        "unary": unary,
        "reduce": reduce,
    }
    OUT.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main(unary_only="--unary-only" in sys.argv[1:])
