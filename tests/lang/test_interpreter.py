"""The interpreter's dispatch: every node class is reached, and the fast paths for the
shapes of long straight-line scripts (`y = x * 0.5`, `y = sin(x)`) give the values,
bookkeeping and errors of the general path."""
import math

import pytest

from diffcli.lang import ast as A
from diffcli.lang.errors import ScriptError
from diffcli.lang.interpreter import Interpreter, Limits
from diffcli.lang.parse import parse


def run(text, **kw):
    out = []
    result = Interpreter(write=out.append, **kw).run(parse(text))
    return result, "".join(out)


def error(text, **kw):
    with pytest.raises(ScriptError) as err:
        run(text, **kw)
    e = err.value
    return e.type_name, e.message, e.line, e.column


def test_every_statement_class_has_a_runner():
    assert set(A.Stmt.__subclasses__()) <= set(Interpreter()._statements)


# one expression of each class `eval` handles (FormattedValue only lives inside FString)
EXPRESSIONS = [
    ("1 + 2", "3"), ("-(2)", "-2"), ("'s'", "s"), ("f'{1 + 1}'", "2"), ("None", "None"),
    ("[1, 2]", "[1, 2]"), ("(1, 2)", "(1, 2)"), ("1 < 2", "True"), ("1 and 0", "0"),
    ("not 1", "False"), ("abs(-3)", "3"), ("math.pi > 3", "True"), ("[1, 2, 3][1:][0]", "2"),
    ("1 if 0 else 2", "2"), ("[i * 2 for i in range(3)]", "[0, 2, 4]"), ("tensor([1.0, 2.0])[...].shape", "torch.Size([2])"),
]


@pytest.mark.parametrize("expr, printed", EXPRESSIONS)
def test_every_expression_class_evaluates(expr, printed):
    assert run(f"print({expr})")[1] == printed + "\n"


def test_expression_table_and_eval_cover_every_expression_class():
    covered = {c.__name__ for c in Interpreter()._expressions}
    covered |= {"Name", "Num", "BinOp", "Call", "Attribute", "UnaryOp", "Not", "IfExp",
                "Subscript", "BoolOp"}   # tested in `eval` itself
    assert {c.__name__ for c in A.Expr.__subclasses__()} - covered == {"FormattedValue"}


def test_a_straight_line_chain_keeps_values_order_and_names():
    ops = ["x{i} = x{j} + 0.1", "x{i} = x{j} * 0.999", "x{i} = sin(x{j})", "x{i} = x{j} ** 2",
           "x{i} = x{j} / 1.001"]
    lines = ["x0 = 0.5"] + [ops[i % 5].format(i=i, j=i - 1) for i in range(1, 50)]
    result, _ = run("\n".join(lines), wrt=("x0",))
    v = 0.5
    for i in range(1, 50):
        v = [v + 0.1, v * 0.999, math.sin(v), v ** 2, v / 1.001][i % 5]
    assert result.env["x49"].item() == pytest.approx(v, rel=1e-15)
    assert list(result.order) == [f"x{i}" for i in range(50)]
    assert result.last_assigned == "x49"
    assert result.names[id(result.env["x7"])] == "x7"
    assert result.env["x0"].requires_grad and result.env["x49"].grad_fn is not None


def test_rebinding_keeps_the_first_place_in_order():
    result, _ = run("a = 1.0\nb = a * 2\na = b + 1\nc = a")
    assert result.order == ["a", "b", "c"]
    assert result.names[id(result.env["a"])] == "a"
    assert result.names[id(result.env["c"])] == "a"     # `c = a` names no new tensor


ERRORS = [
    # (script, (type, message, line, column)) through each fast path
    ("x = tensor([1.0, 2.0])\ny = x + tensor([1.0, 2.0, 3.0])",
     ("RuntimeError", "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
      "dimension 0", 2, 5)),
    ("x = 1.0\ny = x / 0", None),                   # a tensor divided by zero is inf, no error
    ("y = 1 / 0", ("ZeroDivisionError", "division by zero", 1, 5)),
    ("y = sin(1, 2)", ("TypeError", "sin() takes 1 positional argument but 2 were given", 1, 5)),
    ("y = undefined * 2", ("NameError", "name 'undefined' is not defined (a free variable: give it a "
                           "value with --set undefined=VALUE)", 1, 5)),
    ("y = nosuch(1)", ("NameError", "name 'nosuch' is not defined (diffcli scripts have no such "
                       "function)", 1, 5)),
    ("x = 1.0\ny = x(2)", ("TypeError", "'Tensor' object is not callable", 2, 5)),
    ("y = 10 ** 100000", ("OverflowError", "integer result of '**' too large (more than 65536 bits; "
                          "write a float such as 10.0 for huge numbers)", 1, 5)),
    ("y = [0] * 20000000", ("LimitError", "list of 20000000 elements exceeds the limit of 10000000 "
                            "elements (raise it with --max-elements)", 1, 5)),
]


@pytest.mark.parametrize("text, expected", ERRORS)
def test_errors_on_the_fast_paths_keep_their_messages_and_positions(text, expected):
    if expected is None:
        run(text)
    else:
        assert error(text) == expected


def test_the_statement_cap_counts_straight_line_statements():
    text = "\n".join(f"x{i} = {i}.0" for i in range(10))
    run(text, limits=Limits(max_statements=10))
    assert error(text, limits=Limits(max_statements=9)) == (
        "LimitError", "more than 9 statements executed (raise the cap with --max-statements)", 10, 1)


def test_a_user_function_shadowing_an_op_is_called_as_a_user_function():
    assert run("def sin(x):\n    return 42\nprint(sin(1.0))")[1] == "42\n"


def test_backward_through_a_plain_call_still_counts_as_backward():
    result, _ = run("x = 2.0\ny = x * x\nbackward(y)")
    assert result.called_backward


def test_grad_fn_name_keeps_the_namespace_of_pytorchs_hand_written_nodes():
    """torch 2.13: `name()` of AccumulateGrad, CopySlices and CopyBackwards is
    'torch::autograd::...', while their repr (and a tensor's) shows the bare class name."""
    _, out = run("import torch\n"
              "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
              "h = a * 1\n"
              "h[0] = 2.0\n"
              "print(h.grad_fn.name(), h.grad_fn)\n"
              "print((a * 2).grad_fn.next_functions[0][0].name(), (a * 2).grad_fn.name())\n"
              "b = torch.zeros(3)\n"
              "b[:] = a\n"
              "print(b.grad_fn.name(), b)\n")
    assert out == ("torch::autograd::CopySlices <CopySlices object>\n"
                   "torch::autograd::AccumulateGrad MulBackward0\n"
                   "torch::autograd::CopyBackwards tensor([1., 2., 3.], grad_fn=<CopyBackwards>)\n")


def test_iterating_over_a_tensor_gives_unbind_views():
    """PyTorch's Tensor.__iter__ is iter(self.unbind(0)): elements with UnbindBackward0
    (torch 2.13 output), in for loops, list(), and Python's max/min over a tensor."""
    _, out = run("import torch\n"
                 "t = torch.tensor([1.5, -2.0, 3.25], requires_grad=True)\n"
                 "for v in t:\n"
                 "    print(v)\n"
                 "print(list(torch.ones(2, 2, requires_grad=True))[1])\n"
                 "print(sum([t, t]))\n")
    assert out == ("tensor(1.5000, grad_fn=<UnbindBackward0>)\ntensor(-2., grad_fn=<UnbindBackward0>)\n"
                   "tensor(3.2500, grad_fn=<UnbindBackward0>)\ntensor([1., 1.], grad_fn=<UnbindBackward0>)\n"
                   "tensor([ 3.0000, -4.0000,  6.5000], grad_fn=<AddBackward0>)\n")
    assert error("import torch\nfor v in torch.tensor(1.0):\n    print(v)\n")[:2] == (
        "TypeError", "iteration over a 0-d tensor")


def test_max_min_sum_round_of_plain_numbers_are_pythons():
    """On numbers and lists they are Python's builtins (where the torch functions fail);
    with a tensor argument, the torch functions (SPEC: the bare names are torch's)."""
    _, out = run("import torch\n"
                 "print(max(1.5, 0.5), min(3, 2), round(2.567, 2), sum([1, 2]), max([4, 7, 5]))\n"
                 "a = torch.tensor(2.0, requires_grad=True)\n"
                 "b = torch.tensor(3.0, requires_grad=True)\n"
                 "print(max(a, b), sum(a), round(a))\n")
    assert out == ("1.5 2 2.57 3 7\n"
                   "tensor(3., grad_fn=<MaximumBackward0>) tensor(2., grad_fn=<SumBackward0>) "
                   "tensor(2., grad_fn=<RoundBackward0>)\n")
