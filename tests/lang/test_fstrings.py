"""f-strings, as tutorials print with them: fields are parsed when evaluated, formatted
with Python's format() (0-d tensors format their item(), as torch's __format__ does)."""

import pytest

from diffcli.lang import ast
from diffcli.lang.parse import ScriptSyntaxError, parse
from tests.cli.samples import invoke


def run(text):
    return invoke(["run", "-e", text])


def test_parts_split_into_literals_and_fields():
    s = parse('print(f"a {x!r:>5} {{b}} {y[0]:.3f}")')
    parts = s.body[0].value.args[0].parts
    assert parts[0] == "a "
    assert (parts[1].expr, parts[1].conversion, parts[1].spec) == ("x", "r", ">5")
    assert parts[2] == " {b} "
    assert (parts[3].expr, parts[3].conversion, parts[3].spec) == ("y[0]", None, ".3f")
    assert isinstance(s.body[0].value.args[0], ast.FString)


@pytest.mark.parametrize(
    "script, printed",
    [
        ('x = 2.0\ny = x ** 3\ny.backward()\nprint(f"dy/dx = {x.grad}")', "dy/dx = 12.0\n"),
        ('x = 2.0\nprint(f"{x.item():.4f}|{x!r}|{{x}}")', "2.0000|tensor(2., requires_grad=True)|{x}\n"),
        ('import torch\nv = torch.tensor([1.0, 2.0])\nprint(f"{v} {v.sum():.1f}")', "tensor([1., 2.]) 3.0\n"),
        ("print(f'{1 + 2}' 'x' f\"{'q'}\")", "3xq\n"),
        ('n = 3\nprint(rf"\\n{n}")', "\\n3.0\n"),
    ],
)
def test_fstring_output_matches_python(script, printed):
    code, out, err = run(script)
    assert (code, out) == (0, printed), err


@pytest.mark.parametrize(
    "script, message",
    [
        ('print(f"{}")', "f-string: empty expression not allowed"),
        ('print(f"{x")', "f-string: expecting '}'"),
        ('print(f"}")', "f-string: single '}' is not allowed"),
        ('print(f"{x!z}")', "f-string: invalid conversion character: expected 's', 'r', or 'a'"),
    ],
)
def test_malformed_fstrings_are_syntax_errors(script, message):
    with pytest.raises(ScriptSyntaxError) as e:
        parse(script)
    assert e.value.message == message


def test_errors_inside_fields_point_at_the_fstring():
    code, out, err = run('import torch\nv = torch.tensor([1.0, 2.0])\nprint(f"{v:.2f}")')
    assert code == 1
    assert err.splitlines()[0] == (
        "error: <expr>:3:7: TypeError: unsupported format string passed to Tensor.__format__"
    )
    code, out, err = run('print(f"{q}")')
    assert code == 1 and "NameError: name 'q' is not defined" in err
    code, out, err = run('x = 1.0\nprint(f"{x.__class__}")')
    assert code == 1 and "AttributeError" in err and "__class__" in err


def test_self_documenting_fields_show_their_text_then_the_repr():
    """Python 3.8+'s `{expr=}`: the expression as written (spaces kept), then repr() unless
    a conversion or a format spec is given (output recorded with Python and torch 2.13)."""
    out = run(
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        'print(f"{x=}")\nprint(f"{x.sum() = }")\nprint(f"{x.sum().item()=:.2f}")\n'
        'print(f"{x.shape=!s}|{1 == 1}|{2 >= 3}")\n'
    )
    assert out == (
        0,
        "x=tensor([1., 2.], requires_grad=True)\n"
        "x.sum() = tensor(3., grad_fn=<SumBackward0>)\n"
        "x.sum().item()=3.00\n"
        "x.shape=torch.Size([2])|True|False\n",
        "",
    )
