"""Record what PyTorch prints for the flavour tests (tests/lang/test_flavours.py) into
flavours.json.

Run by hand, with PyTorch installed, from the repository root:

    python tests/goldens/record_flavours.py          # rewrites tests/goldens/flavours.json

Each case is a diffcli script and the Python + torch program that means the same. A
PyTorch-flavour script (it imports torch) is its own program, run with PyTorch's own
float32 default dtype. A math-flavour script (no torch import: float64, a name bound to a
bare literal is a variable) has a separate program, run after
`torch.set_default_dtype(torch.float64)`, in which each such name is
`torch.tensor(..., requires_grad=True)`; its lines are the script's lines (imports share
the first line), so errors are on the same line. Every program runs in this process with
a fresh namespace after `torch.manual_seed(0)` (a diffcli run starts from seed 0), the
default dtype put back afterwards. Recorded: stdout, and the error (type, message, line)
if the program failed.

`CLI` cases are `diffcli grad` command lines; their programs print the values the test
then reads from diffcli's JSON output (arithmetic only: correctly rounded in both, so
float32 results agree bit for bit; transcendental functions may differ in the last bit,
issue 11 item 4).
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "flavours.json"

# (name, flavour, script, program or None for the script itself)
RUNS = [
    (
        "python_numbers",
        "pytorch",
        """\
import torch
a = 1.5
i = 0
for k in range(3):
    i += 1
n = 7
print(a, i, n / 2, n // 2, type(a), type(i))
a += 0.25
print(a * 2, -a, a ** 2)
""",
        None,
    ),
    (
        "python_lists_and_zip",
        "pytorch",
        """\
import torch
x_data = [1.0, 2.0, 3.0]
y_data = [2.0, 4.0, 6.0]
w = torch.tensor(1.0, requires_grad=True)
total = 0.0
for x_val, y_val in zip(x_data, y_data):
    print(x_val, y_val, type(x_val))
    l = (x_val * w - y_val) ** 2
    l.backward()
    total += l.item()
print(w.grad, total)
print(x_data, len(x_data), x_data[1:], type(x_data))
x_data.append(4.0)
print(sum(x_data), max(x_data), torch.tensor(x_data))
""",
        None,
    ),
    (
        "float32_default",
        "pytorch",
        """\
import torch
x = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
y = (x * x).sum()
y.backward()
print(x, x.dtype, y, y.item())
print(x.grad, x.grad.dtype, x.grad[0].item(), x.tolist())
print(torch.tensor(0.1).item(), torch.tensor(1.0) / 3, (torch.tensor(1.0) / 3).item())
print(torch.sin(torch.tensor(3.141592653589793)), torch.exp(torch.tensor([1.0, 2.0])))
print(torch.tensor([1, 2]) * 1.5, torch.ones(2), torch.zeros(2, 2), torch.Tensor([2]))
print(torch.get_default_dtype(), torch.tensor([1.0]).dtype, torch.tensor([1]).dtype)
print(torch.tensor([1.5], dtype=torch.float64), torch.tensor([]), torch.tensor([], dtype=torch.float64))
print(torch.arange(3) * 0.5, torch.linspace(0, 1, 3), torch.full((2,), 0.1), torch.eye(2))
print(torch.tensor([0.1, 0.2]).sum().item(), torch.tensor(2.5).dtype, torch.tensor(True).dtype)
""",
        None,
    ),
    (
        "float32_scalar_chain",
        "pytorch",
        """\
import torch
x = torch.tensor(0.1, requires_grad=True)
y = x
for k in range(50):
    y = y * 1.0009765625 + x / 7 - 0.001 * x * x
y.backward()
print(y.item(), x.grad.item(), y.dtype)
z = torch.tensor(2.0, requires_grad=True)
s = torch.sqrt(z) + z ** 2 / 3 + (1 - z) * (z + 0.3) - 1 / z
s.backward()
print(s.item(), z.grad.item(), s.dtype)
print((torch.tensor(0.1) + 0.2).item(), (torch.tensor(0.1) * 3).item(), (0.1 - torch.tensor(0.3)).item())
""",
        None,
    ),
    (
        "float64_tensors_print_their_dtype",
        "pytorch",
        """\
import torch
a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = a * b
print(a, b, c, c.dtype)
c.sum().backward()
print(a.grad, b.grad)
print(a.float(), b.double(), a.detach().float().dtype)
print(torch.tensor(0.1, dtype=torch.float64).item(), torch.zeros(2, dtype=torch.float64))
""",
        None,
    ),
    (
        "error_texts_say_float",
        "pytorch",
        """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as e:
    print(e)
try:
    torch.mm(torch.ones(2, 2), torch.ones(2, 2, dtype=torch.float64))
except RuntimeError as e:
    print(e)
try:
    torch.dot(torch.ones(2), torch.ones(2, dtype=torch.float64))
except RuntimeError as e:
    print(e)
""",
        None,
    ),
    (
        "set_default_dtype",
        "pytorch",
        """\
import torch
print(torch.get_default_dtype(), torch.tensor(0.1).item())
torch.set_default_dtype(torch.float64)
print(torch.get_default_dtype(), torch.tensor(0.1).item())
x = torch.tensor([0.1, 0.2], requires_grad=True)
f = torch.tensor([0.1], dtype=torch.float32)
print(x, f, torch.tensor([]), torch.tensor([1, 2]) * 0.1)
(x ** 2).sum().backward()
print(x.grad, x.dtype)
torch.manual_seed(0)
print(torch.randn(20))
torch.set_default_dtype(torch.float32)
torch.manual_seed(0)
print(torch.randn(20))
print(torch.randn_like(torch.zeros(3, dtype=torch.float64)), torch.rand(2))
try:
    torch.set_default_dtype(torch.int64)
except TypeError as e:
    print(e)
print(torch.get_default_dtype())
""",
        None,
    ),
    (
        "flavour_decided_statically",
        "pytorch",
        """\
def never_called():
    import torch
a = 1.5
v = [1, 2, 3]
print(type(a), type(v), a * 2, v)
""",
        None,
    ),
    (
        "from_torch_import",
        "pytorch",
        """\
from torch import autograd
a = 2.0
print(a, type(a))
""",
        None,
    ),
    (
        "import_functional_only",
        "pytorch",
        """\
import torch.nn.functional as F
b = [0.5, -1.0]
print(b, sum(b), type(b[0]))
""",
        None,
    ),
    (
        "leaves_are_requires_grad_tensors",
        "pytorch",
        """\
import torch
lr = 0.1
w = torch.tensor([1.0, -2.0], requires_grad=True)
x = torch.tensor([0.5, 1.5])
for step in range(3):
    loss = ((w * x).sum() - 1.0) ** 2
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad.zero_()
    print(step, loss.item(), w)
print(w.is_leaf, x.requires_grad, type(lr))
""",
        None,
    ),
    # --- the math flavour, today's rules -------------------------------------------------
    (
        "math_variables",
        "math",
        """\
a = 1.5
v = [1, 2, 3]
y = a * sin(v[0]) + (v ** 2).sum()
y.backward()
print(a, v, y)
print(a.grad, v.grad, a.dtype, a.requires_grad, a.is_leaf)
print(sin(pi), torch.tensor([1.0], dtype=torch.float32), a.item())
""",
        """\
import torch; from torch import sin; pi = torch.pi; a = torch.tensor(1.5, requires_grad=True)
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = a * sin(v[0]) + (v ** 2).sum()
y.backward()
print(a, v, y)
print(a.grad, v.grad, a.dtype, a.requires_grad, a.is_leaf)
print(sin(torch.tensor(pi)), torch.tensor([1.0], dtype=torch.float32), a.item())
""",
    ),
    (
        "math_counter_is_a_variable",
        "math",
        """\
i = 0
i += 1
""",
        """\
import torch; i = torch.tensor(0.0, requires_grad=True)
i += 1
""",
    ),
    (
        "math_default_dtype",
        "math",
        """\
x = tensor([0.1, 0.2])
print(x, x.dtype, x.sum().item(), tensor(1.0) / 3)
print(zeros(2), tensor([]), tensor([], dtype=torch.float32), tensor([1.5], dtype=torch.float32))
print(tensor([1, 2]) * 0.1, torch.get_default_dtype())
""",
        """\
import torch; from torch import tensor, zeros; x = tensor([0.1, 0.2])
print(x, x.dtype, x.sum().item(), tensor(1.0) / 3)
print(zeros(2), tensor([]), tensor([], dtype=torch.float32), tensor([1.5], dtype=torch.float32))
print(tensor([1, 2]) * 0.1, torch.get_default_dtype())
""",
    ),
    (
        "math_error_says_double",
        "math",
        """\
x = [1.0, 2.0]
y = x.exp()
y.add_(1)
y.sum().backward()
""",
        """\
import torch; x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
y.sum().backward()
""",
    ),
    (
        "math_random_draws_float32_numbers",
        "math",
        """\
manual_seed(0)
print(randn(20), rand(2))
""",
        """\
import torch; torch.manual_seed(0)
print(torch.randn(20, dtype=torch.float32).double(), torch.rand(2, dtype=torch.float32).double())
""",
    ),
]

# diffcli command lines; the program prints what the test compares with diffcli's JSON
CLI = [
    (
        "set_gives_a_float32_variable",
        ["grad", "-e", "import torch\ny = x * x * 3", "--set", "x=1.5", "--format", "json"],
        """\
import torch
x = torch.tensor(1.5, requires_grad=True)
y = x * x * 3
y.backward()
print(repr(y.item()), str(y.dtype)[6:], repr(x.item()), repr(x.grad.item()), str(x.dtype)[6:])
""",
    ),
    (
        "set_overrides_a_python_number",
        ["grad", "-e", "import torch\na = 1.5\ny = (a * a + 1) / a", "--set", "a=0.7", "--format", "json"],
        """\
import torch
a = torch.tensor(0.7, requires_grad=True)
y = (a * a + 1) / a
y.backward()
print(repr(y.item()), str(y.dtype)[6:], repr(a.item()), repr(a.grad.item()), str(a.dtype)[6:])
""",
    ),
    (
        "grad_reports_the_tensor_leaves",
        [
            "grad",
            "-e",
            "import torch\nlr = 0.1\nx = torch.tensor([0.5, 1.5])\n"
            "w = torch.tensor([2.0, -1.0], requires_grad=True)\n"
            "loss = ((w * x).sum() * lr + 1) ** 2",
            "--format",
            "json",
        ],
        """\
import torch
lr = 0.1
x = torch.tensor([0.5, 1.5])
w = torch.tensor([2.0, -1.0], requires_grad=True)
loss = ((w * x).sum() * lr + 1) ** 2
loss.backward()
print(repr(loss.item()), str(loss.dtype)[6:], x.grad, [repr(v) for v in w.grad.tolist()], str(w.dtype)[6:])
""",
    ),
]


def run_program(program: str, dtype) -> dict:
    import torch

    prev = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    torch.manual_seed(0)
    buf = io.StringIO()
    error = None
    try:
        with contextlib.redirect_stdout(buf):
            try:
                exec(compile(program, "<script>", "exec"), {"__name__": "__main__"})
            except Exception as e:  # noqa: BLE001 - the error is what is recorded
                line, tb = 0, e.__traceback__
                while tb is not None:
                    if tb.tb_frame.f_code.co_filename == "<script>":
                        line = tb.tb_lineno
                    tb = tb.tb_next
                error = [type(e).__name__, str(e), line]
    finally:
        torch.set_default_dtype(prev)
    return {"stdout": buf.getvalue(), "error": error}


def main() -> int:
    import torch

    runs = []
    for name, flavour, script, program in RUNS:
        dtype = torch.float32 if flavour == "pytorch" else torch.float64
        runs.append(
            {
                "name": name,
                "flavour": flavour,
                "script": script,
                "program": program or script,
                **run_program(program or script, dtype),
            }
        )
    cli = [
        {"name": name, "args": args, "program": program, **run_program(program, torch.float32)}
        for name, args, program in CLI
    ]
    OUT.write_text(json.dumps({"torch": torch.__version__, "runs": runs, "cli": cli}, indent=1) + "\n")
    print(f"wrote {len(runs)} runs and {len(cli)} command lines to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
