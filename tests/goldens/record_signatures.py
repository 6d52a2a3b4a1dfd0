#!/usr/bin/env python
"""Record PyTorch 2.13's Python signatures of diffcli's functions and tensor methods into
diffcli/lang/torch_signatures.py (parameter names) and torch_printed.py (printed texts). Run by hand with the python3 that
has torch installed, from the repository root:

    python3 tests/goldens/record_signatures.py

Nothing at run time or in the test suite imports torch. The table has two views of the
signatures, each read from where PyTorch keeps it:

- PRINTED: the signatures as torch's argument parser prints them in its argument-type
  errors (for diffcli/lang/argcheck.py). A function with several overloads lists them
  all when it gets arguments that fit none (`pow() received an invalid combination of
  arguments ... expected one of: * (...)`); a function with one is probed position by
  position with an object of no known type (`sin(): argument 'input' (position 1) must
  be Tensor, not Bad`), so its signature holds its positional parameters only. Functions
  torch implements in Python (F.mse_loss, ...) are recorded through the C++ function they
  call, whose arguments come in the same order.
- FUNCTION_PARAMETERS and METHOD_PARAMETERS: the parameter names of each overload (for
  the keyword arguments of diffcli/lang/signatures.py), from torch's generated stubs
  (torch/_C/_VariableFunctions.pyi for `torch.X`, torch/nn/functional.pyi and
  torch/_C/_nn.pyi for `F.X`, torch/_C/__init__.pyi for `Tensor.X`), which are generated
  from the same declarations as the argument parser; functions written in Python
  (torch.nn.functional, torch.manual_seed) are read with inspect.signature. Each overload
  is a tuple of names: positional parameters in order (with "=" after a name that has a
  default), then "*", then the keyword-only ones; a var-positional parameter is "*size".
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
STUBS = Path(os.path.dirname(torch.__file__)) / "_C"
OUT = ROOT / "diffcli" / "lang" / "torch_signatures.py"
OUT_PRINTED = ROOT / "diffcli" / "lang" / "torch_printed.py"


def _names():
    """diffcli's function and method names (asked of diffcli, with the repository's venv
    python if there is one, else this python)."""
    python = ROOT / ".venv" / "bin" / "python"
    code = (
        "import json; from diffcli import engine; from diffcli.lang import values; "
        "print(json.dumps([sorted(engine.FUNCTIONS), sorted(values.TENSOR_METHODS)]))"
    )
    out = subprocess.run(
        [str(python) if python.exists() else sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


# --- PRINTED: what the argument parser prints --------------------------------------------

SKIP = {"tensor", "Tensor", "manual_seed"}  # constructors with their own rules in diffcli


class Bad:
    pass


def torch_function(name):
    for owner in (torch._C._nn, torch._C._VariableFunctions, torch):
        f = getattr(owner, name, None)
        if f is not None and type(f).__name__ == "builtin_function_or_method":
            return f
    return None


VALID = {
    "Tensor": lambda: torch.ones(2, 2),
    "Number": lambda: 1.0,
    "int": lambda: 0,
    "float": lambda: 1.0,
    "bool": lambda: False,
    "tuple of ints": lambda: (1,),
    "tuple of Tensors": lambda: [torch.ones(2)],
    "torch.dtype": lambda: torch.float32,
    "str": lambda: "mean",
}
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


def printed(functions):
    table = {}
    for name in sorted(functions):
        f = None if name in SKIP else torch_function(name)
        sigs = overloads(f) if f is not None else None
        if sigs:
            table[name] = sigs
    return table


# --- FUNCTION_PARAMETERS, METHOD_PARAMETERS: the names, from the stubs ----------------------


def _overload(args: ast.arguments, drop_self: bool):
    positional = args.posonlyargs + args.args
    first_default = len(positional) - len(args.defaults)
    params = [a.arg + ("=" if i >= first_default else "") for i, a in enumerate(positional)]
    if drop_self and params and params[0] == "self":
        params = params[1:]
    if args.vararg is not None:
        params.append("*" + args.vararg.arg)
    elif args.kwonlyargs:
        params.append("*")
    params += [a.arg for a in args.kwonlyargs]
    return tuple(params)


def _from_stub(path: Path, class_name=None):
    tree = ast.parse(path.read_text())
    body = tree.body
    if class_name is not None:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name).body
    table: dict = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            sig = _overload(node.args, class_name is not None)
            if sig not in table.setdefault(node.name, []):
                table[node.name].append(sig)
    return table


def _from_python(fn):
    sig = inspect.signature(fn)
    out, star = [], False
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            out.append("*" + p.name)
            star = True
        elif p.kind is p.KEYWORD_ONLY:
            if not star:
                out.append("*")
                star = True
            out.append(p.name)
        elif p.kind is not p.VAR_KEYWORD:
            out.append(p.name + ("=" if p.default is not p.empty else ""))
    return [tuple(out)]


def parameters(functions, methods):
    torch_functions = _from_stub(STUBS / "_VariableFunctions.pyi")
    tensor_methods = _from_stub(STUBS / "__init__.pyi", "TensorBase")
    functional = {**_from_stub(STUBS.parent / "nn" / "functional.pyi"), **_from_stub(STUBS / "_nn.pyi")}
    f_table, m_table = {}, {}
    for name in functions:
        if name == "Tensor":
            continue
        if name in torch_functions or name in functional:
            f_table[name] = torch_functions.get(name) or functional[name]
            continue
        for where in (torch.nn.functional, torch):
            if callable(getattr(where, name, None)):
                try:
                    f_table[name] = _from_python(getattr(where, name))
                    break
                except (TypeError, ValueError):  # a builtin without a Python signature
                    pass
    for name in methods:
        if name in tensor_methods:
            m_table[name] = tensor_methods[name]
    return f_table, m_table


def main():
    functions, methods = _names()
    texts = printed(functions)
    f_table, m_table = parameters(functions, methods)
    printed_lines = [
        "\"\"\"PyTorch's Python signatures of diffcli's functions (torch.X and F.X) as torch's argument",
        "parser prints them in its argument-type errors (a one-overload function lists its positional",
        f"parameters only), recorded from torch {torch.__version__} by tests/goldens/record_signatures.py",
        '(generated, not edited by hand); read by diffcli/lang/argcheck.py."""',
        "",
        "PRINTED = {",
    ]
    for name, sigs in texts.items():
        printed_lines.append(f"    {name!r}: {list(sigs)!r},")
    printed_lines.append("}")
    OUT_PRINTED.write_text("\n".join(printed_lines) + "\n")
    lines = [
        '"""PyTorch\'s Python signatures of diffcli\'s functions (torch.X and F.X) and tensor methods,',
        f"recorded from torch {torch.__version__} by tests/goldens/record_signatures.py (generated, not edited",
        "by hand; that script says where each view comes from; the printed texts are in",
        "torch_printed.py). FUNCTION_PARAMETERS, METHOD_PARAMETERS: each overload as a tuple of",
        'parameter names: positional ones ("name=" has a default), then "*", then keyword-only ones',
        '("*size": a var-positional parameter); read by diffcli/lang/signatures.py."""',
        "",
        "FUNCTION_PARAMETERS = {",
    ]
    for name in sorted(f_table):
        lines.append(f"    {name!r}: {tuple(f_table[name])!r},")
    lines += ["}", "", "METHOD_PARAMETERS = {"]
    for name in sorted(m_table):
        lines.append(f"    {name!r}: {tuple(m_table[name])!r},")
    lines.append("}")
    OUT.write_text("\n".join(lines) + "\n")
    print(
        f"wrote {len(texts)} printed signatures, {len(f_table)} functions and {len(m_table)} "
        f"methods to {OUT.relative_to(ROOT)}"
    )


if __name__ == "__main__":
    main()
