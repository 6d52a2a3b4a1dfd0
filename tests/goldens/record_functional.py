"""Record what PyTorch gives for the torch.autograd.functional / torch.func cases
(`functional_cases.py`) into functional.json, for tests/lang/test_functional.py.

Run by hand, with PyTorch installed, from the repository root:

    python3 tests/goldens/record_functional.py       # rewrites tests/goldens/functional.json

Each case is its own Python program (a PyTorch-flavour script): a value case binds
`result`, recorded as nesting plus, per tensor, shape, dtype, requires_grad and values; an
error case raises, recorded as the exception's type and message.
"""

from __future__ import annotations

import json
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from functional_cases import COMMAND_CASES, all_cases, flatten, nested  # noqa: E402

OUT = HERE / "functional.json"


def _info(t):
    return list(t.shape), str(t.dtype).replace("torch.", ""), t.requires_grad, t.detach().reshape(-1).tolist()


def record():
    out = {"torch": torch.__version__, "cases": {}}
    for case, kind, text in all_cases():
        namespace = {}
        try:
            exec(compile(text, case, "exec"), namespace)
        except Exception as e:
            if kind == "value":
                raise AssertionError(f"{case} failed in PyTorch: {e!r}") from e
            out["cases"][case] = {"script": text, "error": {"type": type(e).__name__, "message": str(e)}}
            continue
        if kind == "error":
            raise AssertionError(f"{case} did not fail in PyTorch")
        result = flatten(namespace["result"], lambda v: isinstance(v, torch.Tensor), _info)
        out["cases"][case] = {"script": text, "result": result}
    out["commands"] = {}
    for name, argv, program in COMMAND_CASES:
        namespace = {}
        exec(compile(program, name, "exec"), namespace)
        out["commands"][name] = {
            "argv": argv,
            "program": program,
            "result": nested(namespace["result"], lambda t: t.tolist()),
        }
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {OUT}")
