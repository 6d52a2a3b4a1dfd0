"""The interpreter's dispatch: every node class is reached, and the fast paths for the
shapes of long straight-line scripts (`y = x * 0.5`, `y = sin(x)`) give the values,
bookkeeping and errors of the general path."""

import math

import pytest

from diffcli.lang import ast
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
    assert set(ast.Stmt.__subclasses__()) <= set(Interpreter()._statements)


# one expression of each class `eval` handles (FormattedValue only lives inside FString)
EXPRESSIONS = [
    ("1 + 2", "3"),
    ("-(2)", "-2"),
    ("'s'", "s"),
    ("f'{1 + 1}'", "2"),
    ("None", "None"),
    ("[1, 2]", "[1, 2]"),
    ("(1, 2)", "(1, 2)"),
    ("1 < 2", "True"),
    ("1 and 0", "0"),
    ("not 1", "False"),
    ("abs(-3)", "3"),
    ("math.pi > 3", "True"),
    ("[1, 2, 3][1:][0]", "2"),
    ("1 if 0 else 2", "2"),
    ("[i * 2 for i in range(3)]", "[0, 2, 4]"),
    ("tensor([1.0, 2.0])[...].shape", "torch.Size([2])"),
]


@pytest.mark.parametrize("expr, printed", EXPRESSIONS)
def test_every_expression_class_evaluates(expr, printed):
    assert run(f"print({expr})")[1] == printed + "\n"


def test_expression_table_and_eval_cover_every_expression_class():
    covered = {c.__name__ for c in Interpreter()._expressions}
    covered |= {
        "Name",
        "Num",
        "BinOp",
        "Call",
        "Attribute",
        "UnaryOp",
        "Not",
        "IfExp",
        "Subscript",
        "BoolOp",
    }  # tested in `eval` itself
    assert {c.__name__ for c in ast.Expr.__subclasses__()} - covered == {"FormattedValue"}


def test_a_straight_line_chain_keeps_values_order_and_names():
    ops = [
        "x{i} = x{j} + 0.1",
        "x{i} = x{j} * 0.999",
        "x{i} = sin(x{j})",
        "x{i} = x{j} ** 2",
        "x{i} = x{j} / 1.001",
    ]
    lines = ["x0 = 0.5"] + [ops[i % 5].format(i=i, j=i - 1) for i in range(1, 50)]
    result, _ = run("\n".join(lines), wrt=("x0",))
    v = 0.5
    for i in range(1, 50):
        v = [v + 0.1, v * 0.999, math.sin(v), v**2, v / 1.001][i % 5]
    assert result.env["x49"].item() == pytest.approx(v, rel=1e-15)
    assert list(result.order) == [f"x{i}" for i in range(50)]
    assert result.last_assigned == "x49"
    assert result.names[id(result.env["x7"])] == "x7"
    assert result.env["x0"].requires_grad and result.env["x49"].grad_fn is not None


def test_rebinding_keeps_the_first_place_in_order():
    result, _ = run("a = 1.0\nb = a * 2\na = b + 1\nc = a")
    assert result.order == ["a", "b", "c"]
    assert result.names[id(result.env["a"])] == "a"
    assert result.names[id(result.env["c"])] == "a"  # `c = a` names no new tensor


ERRORS = [
    # (script, (type, message, line, column)) through each fast path
    (
        "x = tensor([1.0, 2.0])\ny = x + tensor([1.0, 2.0, 3.0])",
        (
            "RuntimeError",
            "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
            2,
            5,
        ),
    ),
    ("x = 1.0\ny = x / 0", None),  # a tensor divided by zero is inf, no error
    ("y = 1 / 0", ("ZeroDivisionError", "division by zero", 1, 5)),
    ("y = sin(1, 2)", ("TypeError", "sin() takes 1 positional argument but 2 were given", 1, 5)),
    (
        "y = undefined * 2",
        (
            "NameError",
            "name 'undefined' is not defined (a free variable: give it a "
            "value with --set undefined=VALUE, or see its formulas with --symbolic)",
            1,
            5,
        ),
    ),
    (
        "y = nosuch(1)",
        ("NameError", "name 'nosuch' is not defined (diffcli scripts have no such function)", 1, 5),
    ),
    ("x = 1.0\ny = x(2)", ("TypeError", "'Tensor' object is not callable", 2, 5)),
    (
        "y = 10 ** 100000",
        (
            "OverflowError",
            "integer result of '**' too large (more than 65536 bits; "
            "write a float such as 10.0 for huge numbers)",
            1,
            5,
        ),
    ),
    (
        "y = [0] * 20000000",
        (
            "LimitError",
            "list of 20000000 elements exceeds the limit of 10000000 elements (raise it with --max-elements)",
            1,
            5,
        ),
    ),
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
        "LimitError",
        "more than 9 statements executed (raise the cap with --max-statements)",
        10,
        1,
    )


def test_a_user_function_shadowing_an_op_is_called_as_a_user_function():
    assert run("def sin(x):\n    return 42\nprint(sin(1.0))")[1] == "42\n"


def test_backward_through_a_plain_call_still_counts_as_backward():
    result, _ = run("x = 2.0\ny = x * x\nbackward(y)")
    assert result.called_backward


def test_grad_fn_name_keeps_the_namespace_of_pytorchs_hand_written_nodes():
    """torch 2.13: `name()` of AccumulateGrad, CopySlices and CopyBackwards is
    'torch::autograd::...', while their repr (and a tensor's) shows the bare class name."""
    _, out = run(
        "import torch\n"
        "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
        "h = a * 1\n"
        "h[0] = 2.0\n"
        "print(h.grad_fn.name(), h.grad_fn)\n"
        "print((a * 2).grad_fn.next_functions[0][0].name(), (a * 2).grad_fn.name())\n"
        "b = torch.zeros(3)\n"
        "b[:] = a\n"
        "print(b.grad_fn.name(), b)\n"
    )
    assert out == (
        "torch::autograd::CopySlices <CopySlices object>\n"
        "torch::autograd::AccumulateGrad MulBackward0\n"
        "torch::autograd::CopyBackwards tensor([1., 2., 3.], grad_fn=<CopyBackwards>)\n"
    )


def test_iterating_over_a_tensor_gives_unbind_views():
    """PyTorch's Tensor.__iter__ is iter(self.unbind(0)): elements with UnbindBackward0
    (torch 2.13 output), in for loops, list(), and Python's max/min over a tensor."""
    _, out = run(
        "import torch\n"
        "t = torch.tensor([1.5, -2.0, 3.25], requires_grad=True)\n"
        "for v in t:\n"
        "    print(v)\n"
        "print(list(torch.ones(2, 2, requires_grad=True))[1])\n"
        "print(sum([t, t]))\n"
    )
    assert out == (
        "tensor(1.5000, grad_fn=<UnbindBackward0>)\ntensor(-2., grad_fn=<UnbindBackward0>)\n"
        "tensor(3.2500, grad_fn=<UnbindBackward0>)\ntensor([1., 1.], grad_fn=<UnbindBackward0>)\n"
        "tensor([ 3.0000, -4.0000,  6.5000], grad_fn=<AddBackward0>)\n"
    )
    assert error("import torch\nfor v in torch.tensor(1.0):\n    print(v)\n")[:2] == (
        "TypeError",
        "iteration over a 0-d tensor",
    )


def test_max_min_sum_round_of_plain_numbers_are_pythons():
    """On numbers and lists they are Python's builtins (where the torch functions fail);
    with a tensor argument, the torch functions (SPEC: the bare names are torch's)."""
    _, out = run(
        "import torch\n"
        "print(max(1.5, 0.5), min(3, 2), round(2.567, 2), sum([1, 2]), max([4, 7, 5]))\n"
        "a = torch.tensor(2.0, requires_grad=True)\n"
        "b = torch.tensor(3.0, requires_grad=True)\n"
        "print(max(a, b), sum(a), round(a))\n"
    )
    assert out == (
        "1.5 2 2.57 3 7\n"
        "tensor(3., grad_fn=<MaximumBackward0>) tensor(2., grad_fn=<SumBackward0>) "
        "tensor(2., grad_fn=<RoundBackward0>)\n"
    )


def test_slices_and_sums_of_a_size_are_sizes():
    """torch.Size sliced, concatenated with a tuple (either side) or repeated is a
    torch.Size again (torch 2.13 output); an index is an int."""
    _, out = run(
        "import torch\n"
        "x = torch.zeros(2, 3, 4)\n"
        "s = x.shape\n"
        "print(x.shape[1:], x.size()[-2:], x.shape[::-1], x.shape + (1,), (1,) + x.shape)\n"
        "print(s * 2, x.shape[:0], s[1:][0], len(s[1:]), tuple(s[1:]), s[1:] == (3, 4))\n"
        "print(torch.zeros(s[1:]).shape, x.view(s[:1] + (-1,)).shape)\n"
    )
    assert out == (
        "torch.Size([3, 4]) torch.Size([3, 4]) torch.Size([4, 3, 2]) torch.Size([2, 3, 4, 1]) "
        "torch.Size([1, 2, 3, 4])\n"
        "torch.Size([2, 3, 4, 2, 3, 4]) torch.Size([]) 3 2 (3, 4) True\n"
        "torch.Size([3, 4]) torch.Size([2, 12])\n"
    )
    assert error("import torch\nprint(torch.zeros(2).shape + [1])")[:2] == (
        "TypeError",
        "can only concatenate tuple (not list) to torch.Size",
    )
    assert error("import torch\nprint(torch.zeros(2).shape * 1.5)")[:2] == (
        "TypeError",
        "can't multiply sequence by non-int of type 'float'",
    )
    assert error("import torch\nprint(torch.zeros(2).shape * 100000000)")[:2] == (
        "LimitError",
        "torch.Size of 100000000 elements exceeds the limit of 10000000 elements "
        "(raise it with --max-elements)",
    )


def test_type_prints_pytorchs_and_pythons_class_names():
    """type(x) as torch 2.13 and Python print it; one class object per class, so `==` and
    `is` compare classes; `__name__` is the bare name."""
    _, out = run(
        "import torch\n"
        "x = torch.zeros(2, 3, requires_grad=True)\n"
        "y = x * 2\n"
        "def f(a):\n"
        "    return a\n"
        "print(type(x), type(1.5), type(len([1])), type([1]), type('s'), type(True), type(x.shape))\n"
        "print(type(None), type((1,)), type(y.grad_fn), type(torch.float32), type(range(3)), type(torch))\n"
        "print(type(print), type(torch.sin), type(x.sum), type(f), type(float), type(torch.max(x, 0)))\n"
        "print(type(torch.no_grad()), type(y.grad_fn.next_functions[0][0]), type(x.shape[1:]), type((1,) + x.shape))\n"
        "print(type(x).__name__, type(x.shape).__name__, type(print).__name__, type(f).__name__)\n"
        "print(type(x) == type(y), type(1.0) == type(2.0), type(x) is type(y), type(x) == type(x.shape))\n"
    )
    assert out == (
        "<class 'torch.Tensor'> <class 'float'> <class 'int'> <class 'list'> <class 'str'> <class 'bool'> "
        "<class 'torch.Size'>\n"
        "<class 'NoneType'> <class 'tuple'> <class 'MulBackward0'> <class 'torch.dtype'> <class 'range'> "
        "<class 'module'>\n"
        "<class 'builtin_function_or_method'> <class 'builtin_function_or_method'> "
        "<class 'builtin_function_or_method'> <class 'function'> <class 'type'> <class 'torch.return_types.max'>\n"
        "<class 'torch.autograd.grad_mode.no_grad'> <class 'AccumulateGrad'> <class 'torch.Size'> <class 'torch.Size'>\n"
        "Tensor Size builtin_function_or_method function\n"
        "True True True False\n"
    )
    assert error("import torch\nx = torch.zeros(2)\nx.sum[0]")[:2] == (
        "TypeError",
        "'builtin_function_or_method' object is not subscriptable",
    )


@pytest.mark.parametrize(
    "src, message",
    [
        # Python's and torch 2.13's own errors, word for word
        ("w.grad.zero_()", "'NoneType' object has no attribute 'zero_'"),
        ("w.foo", "'Tensor' object has no attribute 'foo'"),
        ("torch.foo", "module 'torch' has no attribute 'foo'"),
        ("w.sum().item().foo", "'float' object has no attribute 'foo'"),
        ("(w * 2).grad_fn.foo", "'MulBackward0' object has no attribute 'foo'"),
        ("torch.float32.foo", "'torch.dtype' object has no attribute 'foo'"),
        ("w.shape.foo", "'torch.Size' object has no attribute 'foo'"),
        ("torch.max(w, 0).foo", "'torch.return_types.max' object has no attribute 'foo'"),
        ("print.foo", "'builtin_function_or_method' object has no attribute 'foo'"),
        ("torch.nn.functional.foo", "module 'torch.nn.functional' has no attribute 'foo'"),
        ("math.foo", "module 'math' has no attribute 'foo'"),
        # attributes Python or torch has that diffcli does not reach
        (
            "w.storage()",
            "'Tensor' object has no attribute 'storage' (or diffcli does not support it)",
        ),  # (numpy() is supported now)
        ("torch.fft", "module 'torch' has no attribute 'fft' (or diffcli does not support it)"),
        (
            "torch.nn.functional.conv3d",
            "module 'torch.nn.functional' has no attribute 'conv3d' (or diffcli does not support it)",
        ),
        ("math.gamma", "module 'math' has no attribute 'gamma' (or diffcli does not support it)"),
        ("'s'.encode", "'str' object has no attribute 'encode' (or diffcli does not support it)"),
        (
            "(w * 2).grad_fn._sequence_nr",  # (register_hook is reached since issue 12)
            "'MulBackward0' object has no attribute '_sequence_nr' (or diffcli does not support it)",
        ),
        (
            "torch.float32.itemsize",
            "'torch.dtype' object has no attribute 'itemsize' (or diffcli does not support it)",
        ),
    ],
)
def test_attribute_errors_add_the_hint_only_where_python_or_torch_has_the_attribute(src, message):
    name = message.split("has no attribute '")[1].split("'")[0]
    column = src.rindex("." + name) + 2  # the caret is under the attribute (issue 9)
    assert error(f"import torch\nimport math\nw = torch.ones(2, requires_grad=True)\n{src}") == (
        "AttributeError",
        message,
        4,
        column,
    )


def test_bitwise_and_or_invert_and_their_precedence():
    """`&`, `|`, `~` as Python's (logical on bool tensors); comparisons bind looser than
    `|`, which binds looser than `&`; `^` stays power (torch 2.13 / Python output)."""
    _, out = run(
        "import torch\n"
        "x = torch.tensor([-1.0, 0.5, 2.0, 0.25])\n"
        "m = (x > 0) & (x < 1)\n"
        "print(m, (x < 0) | (x > 1), ~m, ~(x > 0) & (x < 1), x[m])\n"
        "print(5 & 3, 5 | 3, ~5, True & False, True | False, 1 < 2 | 4, 6 & 3 | 8, 2 ^ 3)\n"
        "print(torch.where((x > 0) & (x < 1), x, torch.zeros(4)))\n"
    )
    assert out == (
        "tensor([False,  True, False,  True]) tensor([ True, False,  True, False]) "
        "tensor([ True, False,  True, False]) tensor([ True, False, False, False]) "
        "tensor([0.5000, 0.2500])\n"
        "1 7 -6 False True True 10 8\n"
        "tensor([0.0000, 0.5000, 0.0000, 0.2500])\n"
    )
    tree = parse("y = a < b | c & d + e").body[0].value
    assert (tree.op, tree.right.op, tree.right.right.op, tree.right.right.right.op) == ("<", "|", "&", "+")


def test_assert_statement():
    _, out = run(
        "import torch\nx = torch.ones(4)\nassert x.shape == (4,), 'bad shape'\nassert True\n"
        "try:\n    assert x.sum() < 0, f'sum is {x.sum().item()}'\n"
        "except AssertionError as e:\n    print('caught', e)\n"
    )
    assert out == "caught sum is 4.0\n"
    assert error("x = [1]\nassert len(x) == 3, 'length must be 3'") == (
        "AssertionError",
        "length must be 3",
        2,
        8,
    )
    assert error("assert False") == ("AssertionError", "", 1, 8)


def test_list_methods():
    """append, extend, insert, pop, remove, index, count, reverse, clear, copy of a
    script's lists, with Python's results and errors; growth obeys --max-elements."""
    _, out = run(
        "import torch\nlosses = []\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "for i in range(3):\n    loss = (w * i).sum()\n    losses.append(loss.item())\n"
        "print(losses)\nhist = []\nhist.extend([1, 2])\nhist.extend(range(2))\nhist.extend((5,))\n"
        "hist.insert(0, 9)\nprint(hist, hist.pop(), hist.pop(0), hist, hist.index(2), hist.count(0))\n"
        "hist.reverse(); print(hist)\nc = hist.copy(); c.remove(2); hist.clear(); print(c, hist)\n"
        "ts = []\nts.append(w * 2)\nprint(ts, torch.stack(ts), [].append(1))\n"
    )
    assert out == (
        "[0.0, 3.0, 6.0]\n[1, 2, 0, 1] 5 9 [1, 2, 0, 1] 1 1\n[1, 0, 2, 1]\n[1, 0, 1] []\n"
        "[tensor([2., 4.], grad_fn=<MulBackward0>)] tensor([[2., 4.]], grad_fn=<StackBackward0>) None\n"
    )
    assert error("[].pop()")[:2] == ("IndexError", "pop from empty list")
    assert error("[1].remove(3)")[:2] == ("ValueError", "list.remove(x): x not in list")
    assert error("a = []\na.extend(5)")[:2] == ("TypeError", "'int' object is not iterable")
    assert error("a = []\na.extend(range(100))", limits=Limits(max_elements=10))[:2] == (
        "LimitError",
        "list of 11 elements exceeds the limit of 10 elements (raise it with --max-elements)",
    )
    assert error("a = list(range(2))\na.sort()")[:2] == (
        "AttributeError",
        "'list' object has no attribute 'sort' (or diffcli does not support it)",
    )


def test_device_idioms_on_the_cpu():
    """torch.device, device=, .to(device), .cpu(), torch.cuda.is_available() as on PyTorch's
    CPU-only build (torch 2.13 output with float64 default); CUDA fails with its error."""
    _, out = run(
        "import torch\n"
        "d = torch.device('cpu')\n"
        "print(d, [d], str(d), d.type, d == torch.device('cpu'), d == 'cpu', torch.device('cuda'), "
        "torch.device('cuda:0'), torch.device('cuda', 1), [torch.device('cpu:0')])\n"
        "x = torch.ones(2, device=d, requires_grad=True)\n"
        "print(x.device, x.to('cpu') is x, x.to(d) is x, x.cpu() is x, x.to(device='cpu'), x.is_cuda)\n"
        "print(torch.cuda.is_available(), torch.cuda.device_count(), torch.backends.mps.is_available())\n"
        "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
        "print(device, torch.zeros(2, device=device), torch.tensor([1.0], device=device).device)\n"
        "torch.autograd.set_detect_anomaly(True)\n"
        "with torch.autograd.set_detect_anomaly(False):\n    print(x.device.index, type(d))\n"
    )
    assert out == (
        "cpu [device(type='cpu')] cpu cpu True False cuda cuda:0 cuda:1 [device(type='cpu', index=0)]\n"
        "cpu True True True tensor([1., 1.], requires_grad=True) False\n"
        "False 0 False\n"
        "cpu tensor([0., 0.]) cpu\n"
        "None <class 'torch.device'>\n"
    )
    cuda = ("AssertionError", "Torch not compiled with CUDA enabled")
    for src in (
        "torch.zeros(2, device='cuda')",
        "torch.ones(2).to('cuda')",
        "torch.ones(2).cuda()",
        "torch.tensor([1.], device='cuda:0')",
        "torch.ones(2).to(torch.device('cuda'))",
    ):
        assert error(f"import torch\nprint({src})") == (*cuda, 2, 7), src
    assert error("import torch\ntorch.device('gpu')")[:2] == (
        "RuntimeError",
        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
        "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: gpu",
    )
    assert error("import torch\ntorch.zeros(2, device=3)")[:2] == (
        "RuntimeError",
        "Cannot access accelerator device when none is available.",
    )
    assert error("import torch\ntorch.zeros(2, device=1.5)")[:2] == (
        "TypeError",
        "zeros(): argument 'device' must be torch.device, not float",
    )


def test_bare_any_and_all_are_pythons():
    """Python's builtins (torch 2.13 + Python print True/False), the methods and torch.any
    are the tensor ops."""
    _, out = run(
        "import torch\nx = torch.tensor([0.5, -1.0, 2.0])\n"
        "print(any(x > 1), all(x > 0), any([False, True]), (x > 0).any(), torch.all(x > -2))\n"
    )
    assert out == "True False True tensor(True) tensor(True)\n"


def test_str_format_with_plain_fields_as_python():
    _, out = run(
        "import torch\nx = torch.tensor(0.123456, requires_grad=True)\n"
        "print('{:.3f}'.format(x.item()), '{} and {}'.format(1, 'a'), '{0}-{0}'.format(2),"
        " '{n:>5}|'.format(n=3))\n"
        "print('loss: {:.4f}, x={!r}'.format(x.item(), x), '{:.2f}'.format(x))\n"
    )
    assert out == ("0.123 1 and a 2-2     3|\nloss: 0.1235, x=tensor(0.1235, requires_grad=True) 0.12\n")
    assert error("print('{} {}'.format(1))\n") == (
        "IndexError",
        "Replacement index 1 out of range for positional args tuple",
        1,
        7,
    )
