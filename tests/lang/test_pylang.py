"""The Python of autograd tutorials (issue 11, item 2), feature by feature, against what
real Python printed for the very same script.

The scripts are in `pylang_cases.py`; what CPython 3.11 with torch 2.13.0 printed for each
(its standard output, and the error it stopped with: type, message, line) is recorded in
`pylang_recorded.py`. To record again (needs the system python3 with torch):

    python tests/lang/test_pylang.py --record /path/to/python3-with-torch

Python prints an address in the repr of functions, classes' instances and methods
(`<function f at 0x7f...>`); diffcli prints none (SPEC §1 "Printing"), so the recorder
drops ` at 0x...` from Python's output. Nothing else is changed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":  # run as a script: import the cases without the package
    sys.path.insert(0, str(HERE))
    from pylang_cases import CASES  # noqa: E402
else:
    from .pylang_cases import CASES
    from .pylang_recorded import RECORDED

# run by the recorder, in real Python: the script's output and the error it stopped with
DRIVER = r"""
import contextlib, io, json, sys
src = sys.stdin.read()
out = io.StringIO()
error = None
try:
    code = compile(src, "<script>", "exec")
    with contextlib.redirect_stdout(out):
        exec(code, {"__name__": "__main__"})
except SyntaxError as e:
    error = ["SyntaxError", e.msg, e.lineno]
except BaseException as e:
    line, tb = 0, e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<script>":
            line = tb.tb_lineno
        tb = tb.tb_next
    t = type(e)
    name = t.__qualname__ if t.__module__ == "builtins" else t.__module__ + "." + t.__qualname__
    error = [name, str(e), line]
print(json.dumps({"out": out.getvalue(), "error": error}))
"""
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def run_diffcli(text):
    from diffcli.lang.errors import ScriptError
    from diffcli.lang.interpreter import Interpreter
    from diffcli.lang.parse import ScriptSyntaxError
    from diffcli.session import parse_source
    from diffcli.source import Source

    out = []
    error = None
    try:
        Interpreter(write=out.append).run(parse_source(Source(text, "<script>")))
    except ScriptError as e:
        error = [e.type_name, e.message, e.line]
    except ScriptSyntaxError as e:
        error = [e.type_name, e.message, e.line]
    return {"out": "".join(out), "error": error}


if __name__ != "__main__":

    def test_every_case_is_recorded():
        assert sorted(RECORDED) == sorted(CASES)

    def test_both_parsers_agree_on_every_case():
        """The lean driver and Lark build the same trees (or both refuse) for the new syntax."""
        from diffcli.lang import parse as parse_module

        from .test_fastparse import _check

        parsed = sum(_check(parse_module._normalise(text)) for text in CASES.values())
        assert parsed == sum(1 for r in RECORDED.values() if not r["error"] or r["error"][0] != "SyntaxError")

    @pytest.mark.parametrize("name", sorted(CASES))
    def test_case_prints_what_python_printed(name):
        got = run_diffcli(CASES[name])
        want = RECORDED[name]
        assert got["out"] == want["out"], (
            f"{name}\n--- diffcli ---\n{got['out']}\n--- python ---\n{want['out']}"
        )
        assert got["error"] == want["error"]


if __name__ != "__main__":

    def test_torch_version_is_the_pytorch_release_diffcli_reproduces():
        # the torch wheel this was recorded with says '2.13.0+cpu' (its local build tag)
        assert (
            run_diffcli("import torch\nprint(torch.__version__)\n")["out"] == "2.13.0+cpu\n"
        )  # as the recorded torch printed

    def test_warnings_of_the_torch_signatures_are_pytorchs():
        from diffcli.lang.interpreter import Interpreter
        from diffcli.session import parse_source
        from diffcli.source import Source

        warned = []
        text = (
            "import torch\na = torch.tensor([1.0], requires_grad=True)\n"
            "g = torch.autograd.grad(a * 2, a, only_inputs=False)\n"
            "with torch.no_grad():\n    torch.add(a, 1, out=torch.zeros(3))\n"
        )
        Interpreter(write=lambda s: None, warn=lambda c, m, line: warned.append((c, m, line))).run(
            parse_source(Source(text, "<script>"))
        )
        # recorded from torch 2.13: python3 -W always on the same script
        assert warned == [
            (
                "FutureWarning",
                "only_inputs argument is deprecated and is ignored now (defaults to True). To "
                "accumulate gradient for other parts of the graph, please use torch.autograd.backward.",
                3,
            ),
            (
                "UserWarning",
                "An output with one or more elements was resized since it had shape [3], which "
                "does not match the required output shape [1]. This behavior is deprecated, and in a future "
                "PyTorch release outputs will not be resized unless they have zero elements. You can explicitly "
                "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0). (Triggered "
                "internally at /__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)",
                5,
            ),
        ]


def record(python):
    recorded = {}
    for name, text in sorted(CASES.items()):
        r = subprocess.run(
            [python, "-c", DRIVER], input=text, capture_output=True, text=True, timeout=300, cwd="/tmp"
        )
        result = json.loads(r.stdout.splitlines()[-1])
        result["out"] = ADDRESS.sub("", result["out"])
        if result["error"]:
            result["error"][1] = ADDRESS.sub("", result["error"][1])
        recorded[name] = result
    version = subprocess.run(
        [python, "-c", "import sys, torch; print(sys.version.split()[0], torch.__version__)"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    lines = [
        '"""What real Python printed for each script of pylang_cases.py: generated by',
        f"`python tests/lang/test_pylang.py --record` with CPython and torch {version}",
        '(addresses dropped from reprs). Do not edit by hand."""',
        "",
        "RECORDED = {",
    ]
    for name, result in recorded.items():
        lines.append(f"    {name!r}: {{")
        lines.append(f"        'out': {result['out']!r},")
        lines.append(f"        'error': {result['error']!r},")
        lines.append("    },")
    lines.append("}")
    (HERE / "pylang_recorded.py").write_text("\n".join(lines) + "\n")
    print(f"recorded {len(recorded)} cases with {version}")


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--record":
        record(sys.argv[2] if len(sys.argv) > 2 else "python3")
