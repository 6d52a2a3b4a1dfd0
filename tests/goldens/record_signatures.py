#!/usr/bin/env python
"""Record PyTorch 2.13's Python signatures of diffcli's op-table functions into
diffcli/lang/torch_signatures.py, for the argument-type errors of diffcli/lang/argcheck.py.

Run by hand, with torch installed:   python tests/goldens/record_signatures.py
Nothing at run time or in the test suite imports torch.

A function with several overloads lists them all when it gets arguments that fit none
(`pow() received an invalid combination of arguments ... expected one of: * (...)`); a
function with one is probed position by position with an object of no known type
(`sin(): argument 'input' (position 1) must be Tensor, not Bad`), so its signature holds
its positional parameters only. Functions torch implements in Python (F.mse_loss, ...)
are recorded through the C++ function they call, whose arguments come in the same order.
"""
import re
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from diffcli.engine import FUNCTIONS  # noqa: E402

SKIP = {"tensor", "Tensor", "manual_seed"}       # constructors with their own rules in diffcli


class Bad:
    pass


def torch_function(name):
    for owner in (torch._C._nn, torch._C._VariableFunctions, torch):
        f = getattr(owner, name, None)
        if f is not None and type(f).__name__ == "builtin_function_or_method":
            return f
    return None


VALID = {"Tensor": lambda: torch.ones(2, 2), "Number": lambda: 1.0, "int": lambda: 0,
         "float": lambda: 1.0, "bool": lambda: False, "tuple of ints": lambda: (1,),
         "tuple of Tensors": lambda: [torch.ones(2)], "torch.dtype": lambda: torch.float32,
         "str": lambda: "mean"}
POSITION = re.compile(r"^\w+\(\): argument '(\w+)' \(position (\d+)\) must be (.+), not Bad$")


def overloads(f):
    try:
        f(*[Bad()] * 12)
    except TypeError as e:
        text = str(e)
    else:
        return None
    if "but expected one of:" in text:
        return [line[3:] for line in text.splitlines() if line.startswith(" * ")]
    m = re.search(r"but expected (\(.*\))$", text)
    if m:
        return [m.group(1)]
    params = []
    while len(params) < 12:
        try:
            f(*[VALID[t]() for t, _ in params], Bad())
        except TypeError as e:
            m = POSITION.match(str(e))
            if not m or int(m.group(2)) != len(params) + 1 or m.group(3) not in VALID:
                break
            params.append((m.group(3), m.group(1)))
            continue
        except Exception:
            break
        break
    return ["(" + ", ".join(f"{t} {n}" for t, n in params) + ")"] if params else None


def main():
    table = {}
    for name in sorted(FUNCTIONS):
        f = None if name in SKIP else torch_function(name)
        sigs = overloads(f) if f is not None else None
        if sigs:
            table[name] = sigs
    lines = ['"""PyTorch 2.13\'s Python signatures of the op-table functions, as its argument parser',
             "prints them; recorded by tests/goldens/record_signatures.py (generated, not edited",
             'by hand). A one-overload function lists its positional parameters only."""', "",
             "SIGNATURES = {"]
    for name, sigs in table.items():
        lines.append(f"    {name!r}: [")
        lines += [f"        {s!r}," for s in sigs]
        lines.append("    ],")
    lines.append("}")
    out = ROOT / "diffcli" / "lang" / "torch_signatures.py"
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(table)} signatures to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
