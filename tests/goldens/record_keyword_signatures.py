"""Record PyTorch's Python signatures of diffcli's functions and tensor methods into
diffcli/lang/torchsig.py (issue 11, item 3: scripts pass PyTorch's keyword names).

Run with the python3 that has torch 2.13 installed, from the repository root:

    python3 tests/goldens/record_keyword_signatures.py

The signatures come from torch's generated stubs (torch/_C/_VariableFunctions.pyi for
`torch.X`, torch/nn/functional.pyi and torch/_C/_nn.pyi for `F.X`, torch/_C/__init__.pyi for `Tensor.X`), which are generated from the same
declarations as torch's argument parser; functions written in Python (torch.nn.functional,
torch.manual_seed) are read with inspect.signature. Each overload is a tuple of names:
positional parameters in order (with "=" after a name that has a default), then "*", then
the keyword-only ones; a var-positional parameter is written "*size".
"""
from __future__ import annotations

import ast
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
STUBS = Path(os.path.dirname(torch.__file__)) / "_C"


def _names():
    """diffcli's function and method names (asked of diffcli, with the repository's venv
    python if there is one, else this python)."""
    python = ROOT / ".venv" / "bin" / "python"
    code = ("import json; from diffcli import engine; from diffcli.lang import values; "
            "print(json.dumps([sorted(engine.FUNCTIONS), sorted(values.TENSOR_METHODS)]))")
    out = subprocess.run([str(python) if python.exists() else sys.executable, "-c", code], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


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


def main():
    functions, methods = _names()
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
                except (TypeError, ValueError):      # a builtin without a Python signature
                    pass
    for name in methods:
        if name in tensor_methods:
            m_table[name] = tensor_methods[name]
    lines = ['"""PyTorch\'s Python signatures of diffcli\'s functions (FUNCTIONS, torch.X and F.X)',
             f"and tensor methods (METHODS), recorded from torch {torch.__version__} by",
             "tests/goldens/record_keyword_signatures.py; generated, not edited by hand. Each overload is a",
             'tuple of parameter names: positional ones ("name=" has a default), then "*", then',
             'keyword-only ones ("*size": a var-positional parameter). Read by diffcli/lang/signatures.py."""', "", "FUNCTIONS = {"]
    for name in sorted(f_table):
        lines.append(f"    {name!r}: {tuple(f_table[name])!r},")
    lines += ["}", "", "METHODS = {"]
    for name in sorted(m_table):
        lines.append(f"    {name!r}: {tuple(m_table[name])!r},")
    lines.append("}")
    (ROOT / "diffcli" / "lang" / "torchsig.py").write_text("\n".join(lines) + "\n")
    print(f"{len(f_table)} functions, {len(m_table)} methods")


if __name__ == "__main__":
    main()
