"""Security (SPEC §4, README "Security"): a script cannot reach host code. Escape attempts
are refused with a clear error (exit 1, or 2 for syntax), and an audit checks that every
value a script can reach, and every attribute it can read on it, is on a whitelist."""

from __future__ import annotations

import builtins
import re
import types
from pathlib import Path

import numpy
import pytest
from typer.testing import CliRunner

from diffcli import engine
from diffcli.cli import app
from diffcli.engine import dtypes
from diffcli.engine.node import Node
from diffcli.engine.ops import reductions
from diffcli.engine.tensor import Size, Tensor
from diffcli.lang import ast as A
from diffcli.lang import numpy_subset, objects, pyfunctools, pymethods, values
from diffcli.lang.errors import ScriptError
from diffcli.lang.exceptions import ExceptionClass
from diffcli.lang.interpreter import Interpreter
from diffcli.lang.parse import parse

PACKAGE = Path(__file__).resolve().parents[2] / "diffcli"
SETUP = "x = 1.0\ny = x * 2\n"


def run(script, *args):
    result = CliRunner().invoke(app, ["run", "-e", SETUP + script, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert (
        "Traceback" not in result.stderr
        and "InternalError" not in result.stderr
        and "internal error" not in result.stderr
    )
    return result


def refused(script, type_name, message, code=1):
    r = run(script)
    assert r.exit_code == code, r.stdout + r.stderr
    first = r.stderr.splitlines()[0]
    assert f" {type_name}: " in first, first
    assert message in first, first
    return first


DUNDER = "is not allowed in diffcli scripts"


@pytest.mark.parametrize(
    "script, type_name, message",
    [
        ("print(x.__class__)", "AttributeError", f"access to '__class__' {DUNDER}"),
        ("print(().__class__.__bases__)", "AttributeError", f"access to '__class__' {DUNDER}"),
        ("print(print.__self__)", "AttributeError", f"access to '__self__' {DUNDER}"),
        ("print(print.__call__)", "AttributeError", f"access to '__call__' {DUNDER}"),
        ("print(range.__class__)", "AttributeError", f"access to '__class__' {DUNDER}"),
        ("print(len.__self__)", "AttributeError", f"access to '__self__' {DUNDER}"),
        ("print(x.backward.__func__)", "AttributeError", f"access to '__func__' {DUNDER}"),
        ("print(x.sum.__self__)", "AttributeError", f"access to '__self__' {DUNDER}"),
        (
            "print(y.grad_fn.next_functions[0][0].variable.__class__)",
            "AttributeError",
            f"access to '__class__' {DUNDER}",
        ),
        # (a node's __class__ is the TypeValue type() gives since issue 12; its __mro__ is refused)
        ("print(y.grad_fn.__class__.__mro__)", "AttributeError", f"access to '__mro__' {DUNDER}"),
        ("print(type(x).__subclasses__)", "AttributeError", f"access to '__subclasses__' {DUNDER}"),
        ("print(type(x).__subclasses__())", "AttributeError", f"access to '__subclasses__' {DUNDER}"),
        ("print(torch.__dict__)", "AttributeError", f"access to '__dict__' {DUNDER}"),
        ("print(math.__loader__)", "AttributeError", f"access to '__loader__' {DUNDER}"),
        (
            "from functools import partial\nprint(partial(print).func.__self__)",
            "AttributeError",
            f"access to '__self__' {DUNDER}",
        ),
        ("from functools import partial\nprint(partial(print).fn)", "AttributeError", "no attribute 'fn'"),
        ("print(torch.autograd.grad.__globals__)", "AttributeError", f"access to '__globals__' {DUNDER}"),
        ("print(torch.sin.__code__)", "AttributeError", f"access to '__code__' {DUNDER}"),
        ("print(x.shape.__class__.__bases__)", "AttributeError", f"access to '__class__' {DUNDER}"),
        ("print(torch.no_grad().__enter__)", "AttributeError", f"access to '__enter__' {DUNDER}"),
        ("print(range(3).__iter__)", "AttributeError", f"access to '__iter__' {DUNDER}"),
        ("print(x.__dict__)", "AttributeError", f"access to '__dict__' {DUNDER}"),
        (
            "try:\n    z = 1 / 0\nexcept Exception as e:\n    print(e.__traceback__)",
            "AttributeError",
            f"access to '__traceback__' {DUNDER}",
        ),
        (
            "__import__('os')",
            "NameError",
            "name '__import__' is not defined (names starting with '__' do not exist in diffcli scripts)",
        ),
        ("print(__builtins__)", "NameError", "name '__builtins__' is not defined"),
        (
            "open('/etc/passwd')",
            "NameError",
            "name 'open' is not defined (diffcli scripts have no such function)",
        ),
        ("with open('/etc/passwd') as f:\n    pass", "NameError", "name 'open' is not defined"),
        ("eval('1')", "NameError", "name 'eval' is not defined"),
        ("exec('x=1')", "NameError", "name 'exec' is not defined"),
        ("compile('1', 'f', 'eval')", "NameError", "name 'compile' is not defined"),
        ("getattr(x, 'data')", "NameError", "name 'getattr' is not defined"),
        ("setattr(x, 'data', 1)", "NameError", "name 'setattr' is not defined"),
        ("globals()", "NameError", "name 'globals' is not defined"),
        ("vars(x)", "NameError", "name 'vars' is not defined"),
        ("dir(x)", "NameError", "name 'dir' is not defined"),
        ("breakpoint()", "NameError", "name 'breakpoint' is not defined"),
        ("print(object)", "NameError", "name 'object' is not defined"),
        ("import os", "ModuleNotFoundError", "No module named 'os'"),
        ("import sys", "ModuleNotFoundError", "No module named 'sys'"),
        ("import importlib", "ModuleNotFoundError", "No module named 'importlib'"),
        ("from os import path", "ModuleNotFoundError", "No module named 'os'"),
        (
            "import torch.utils.cpp_extension",
            "ModuleNotFoundError",
            "No module named 'torch.utils.cpp_extension'",
        ),
        (
            "from torch.utils import checkpoint",
            "ImportError",
            "cannot import name 'checkpoint' from 'torch.utils'",
        ),
        ("from torch import _C", "ImportError", "cannot import name '_C' from 'torch'"),
        ("from math import __loader__", "ImportError", "cannot import name '__loader__' from 'math'"),
        (
            "print('{0.__class__}'.format(x))",
            "ValueError",
            "diffcli formats plain fields only ('{}', '{0}', '{name}'), not '{0.__class__}'",
        ),
        # (str's own methods, join among them, are in the language: lang/pymethods.STR_METHODS)
        ("print(str(x).encode)", "AttributeError", "'str' object has no attribute 'encode'"),
        ("print(str(x).maketrans)", "AttributeError", "'str' object has no attribute 'maketrans'"),
        ("print(str(x).format_map)", "AttributeError", "'str' object has no attribute 'format_map'"),
        ("print([].sort)", "AttributeError", "'list' object has no attribute 'sort'"),
        ("print(int.from_bytes)", "AttributeError", "'type' object has no attribute 'from_bytes'"),
        ("print(torch.float64.np)", "AttributeError", "'torch.dtype' object has no attribute 'np'"),
        ("print(x.array)", "AttributeError", "'Tensor' object has no attribute 'array'"),
        ("print(x._grad)", "AttributeError", "'Tensor' object has no attribute '_grad'"),
        (
            "print(x.numpy())",
            "RuntimeError",
            "Can't call numpy() on Tensor that requires grad",
        ),  # (PyTorch's refusal)
        (
            "print(y.grad_fn.backward_fn)",
            "AttributeError",
            "'MulBackward0' object has no attribute 'backward_fn'",
        ),
        ("print(y.grad_fn.saved)", "AttributeError", "'MulBackward0' object has no attribute 'saved'"),
        ("print(y.grad_fn._name)", "AttributeError", "'MulBackward0' object has no attribute '_name'"),
        ("print(torch.engine)", "AttributeError", "module 'torch' has no attribute 'engine'"),
        ("print(torch.Size.__mro__)", "AttributeError", f"access to '__mro__' {DUNDER}"),
        ("print(type(x)(1))", "TypeError", "'type' object is not callable"),
        ("torch.sin = print", "AttributeError", "cannot set attribute 'sin' of 'module' object"),
        ("import math\nmath.pi = 3", "AttributeError", "cannot set attribute 'pi' of 'module' object"),
        ("F.relu = 1", "AttributeError", "cannot set attribute 'relu' of 'module' object"),
        (
            "y.grad_fn.variable = x",
            "AttributeError",
            "cannot set attribute 'variable' of 'MulBackward0' object",
        ),
        ("x.grad_fn = y.grad_fn", "AttributeError", "cannot set attribute 'grad_fn' of 'Tensor' object"),
        ("x.__class__ = int", "AttributeError", "cannot set attribute '__class__' of 'Tensor' object"),
        ("torch['sin']", "TypeError", "'module' object is not subscriptable"),
    ],
)
def test_escape_attempts_are_refused(script, type_name, message):
    refused(script, type_name, message)


CANNOT_DEFINE = "TypeError: a diffcli class cannot define"
NO_HOST_BASE = "a diffcli class derives only from classes of the script and the classes diffcli provides"


@pytest.mark.parametrize(
    "script, type_name, message",
    [
        # a class cannot define the hooks that change how the host finds, makes or frees objects
        (
            "class A:\n    def __getattr__(self, n):\n        return 1",
            "TypeError",
            "cannot define '__getattr__'",
        ),
        (
            "class A:\n    def __getattribute__(self, n):\n        return 1",
            "TypeError",
            "cannot define '__getattribute__'",
        ),
        (
            "class A:\n    def __setattr__(self, n, v):\n        pass",
            "TypeError",
            "cannot define '__setattr__'",
        ),
        ("class A:\n    def __new__(cls):\n        pass", "TypeError", "cannot define '__new__'"),
        (
            "class A:\n    def __init_subclass__(cls):\n        pass",
            "TypeError",
            "cannot define '__init_subclass__'",
        ),
        (
            "class A:\n    def __class_getitem__(cls, k):\n        pass",
            "TypeError",
            "cannot define '__class_getitem__'",
        ),
        ("class A:\n    def __del__(self):\n        pass", "TypeError", "cannot define '__del__'"),
        ("class A:\n    def __reduce__(self):\n        pass", "TypeError", "cannot define '__reduce__'"),
        ("class A:\n    def __index__(self):\n        return 1", "TypeError", "cannot define '__index__'"),
        ("class A:\n    def __array__(self):\n        return 1", "TypeError", "cannot define '__array__'"),
        (
            "class A:\n    def __torch_function__(self, *a):\n        return 1",
            "TypeError",
            "cannot define '__torch_function__'",
        ),
        ("class A:\n    __slots__ = ()", "TypeError", "cannot define '__slots__'"),
        ("class A:\n    __dict__ = {}", "TypeError", "cannot define '__dict__'"),
        ("class A:\n    __private = 1", "TypeError", "cannot define '__private'"),
        ("class A:\n    for __x in range(1):\n        pass", "TypeError", "cannot define '__x'"),
        # classes derive from script classes and diffcli's bases only: no host types
        ("class A(int):\n    pass", "TypeError", f"cannot derive from the host type 'int': {NO_HOST_BASE}"),
        ("class A(dict):\n    pass", "TypeError", "cannot derive from the host type 'dict'"),
        ("class A(type(x)):\n    pass", "TypeError", "cannot derive from a value of type 'type'"),
        (
            "class A(torch.Tensor):\n    pass",
            "TypeError",
            "cannot derive from a value of type 'builtin_function_or_method'",
        ),
        (
            "class A(print):\n    pass",
            "TypeError",
            "cannot derive from a value of type 'builtin_function_or_method'",
        ),
        (
            "class A(metaclass=print):\n    pass",
            "TypeError",
            "diffcli classes take no keyword arguments ('metaclass=')",
        ),
        ("class A(object):\n    pass\nprint(object)", "NameError", "name 'object' is not defined"),
        (
            "super(int, 1)",
            "TypeError",
            "super() argument 1 must be a class of the script, not the host type 'int'",
        ),
        # no internals of a script's classes, instances, functions, methods, super() or exceptions
        ("class A:\n    pass\nprint(A.__dict__)", "AttributeError", f"access to '__dict__' {DUNDER}"),
        ("class A:\n    pass\nprint(A.__mro__)", "AttributeError", f"access to '__mro__' {DUNDER}"),
        ("class A:\n    pass\nprint(A.__bases__)", "AttributeError", f"access to '__bases__' {DUNDER}"),
        (
            "class A:\n    pass\nprint(A.__subclasses__())",
            "AttributeError",
            f"access to '__subclasses__' {DUNDER}",
        ),
        ("class A:\n    pass\nprint(A().__dict__)", "AttributeError", f"access to '__dict__' {DUNDER}"),
        (
            "class A:\n    pass\nprint(A().__class__.__bases__)",
            "AttributeError",
            f"access to '__bases__' {DUNDER}",
        ),
        (
            "class A:\n    pass\nprint(A().__class__.__class__)",
            "AttributeError",
            f"access to '__class__' {DUNDER}",
        ),
        ("class A:\n    pass\nprint(A()._cls)", "AttributeError", "'A' object has no attribute '_cls'"),
        ("class A:\n    pass\nprint(A()._attrs)", "AttributeError", "'A' object has no attribute '_attrs'"),
        ("class A:\n    pass\nprint(A.host)", "AttributeError", "type object 'A' has no attribute 'host'"),
        ("class A:\n    pass\nprint(A.ns)", "AttributeError", "type object 'A' has no attribute 'ns'"),
        (
            "class A:\n    def __init__(self):\n        pass\nprint(A.__init__.__globals__)",
            "AttributeError",
            f"access to '__globals__' {DUNDER}",
        ),
        ("f = lambda: 0\nprint(f.__globals__)", "AttributeError", f"access to '__globals__' {DUNDER}"),
        ("f = lambda: 0\nprint(f.__code__)", "AttributeError", f"access to '__code__' {DUNDER}"),
        (
            "def f(a=1):\n    pass\nprint(f.__defaults__)",
            "AttributeError",
            f"access to '__defaults__' {DUNDER}",
        ),
        ("def f():\n    pass\nprint(f.__closure__)", "AttributeError", f"access to '__closure__' {DUNDER}"),
        (
            "def f():\n    pass\nprint(f.closure)",
            "AttributeError",
            "'function' object has no attribute 'closure'",
        ),
        ("def f():\n    pass\nprint(f.node)", "AttributeError", "'function' object has no attribute 'node'"),
        (
            "@torch.no_grad()\ndef f():\n    pass\nprint(f.__wrapped__)",
            "AttributeError",
            f"access to '__wrapped__' {DUNDER}",
        ),
        (
            "class A:\n    def m(self):\n        pass\nprint(A().m.__func__)",
            "AttributeError",
            f"access to '__func__' {DUNDER}",
        ),
        (
            "class A:\n    def m(self):\n        pass\nprint(A().m.__self__)",
            "AttributeError",
            f"access to '__self__' {DUNDER}",
        ),
        (
            "class A:\n    def m(self):\n        pass\nprint(A().m.owner)",
            "AttributeError",
            "'method' object has no attribute 'owner'",
        ),
        (
            "class A:\n    def f(self):\n        return super().__self__\nA().f()",
            "AttributeError",
            f"access to '__self__' {DUNDER}",
        ),
        (
            "class A:\n    def f(self):\n        return super().__thisclass__\nA().f()",
            "AttributeError",
            f"access to '__thisclass__' {DUNDER}",
        ),
        ("print(ValueError.__subclasses__())", "AttributeError", f"access to '__subclasses__' {DUNDER}"),
        ("print(ValueError.__mro__)", "AttributeError", f"access to '__mro__' {DUNDER}"),
        ("print(ValueError.host)", "AttributeError", "type object 'ValueError' has no attribute 'host'"),
        ("print(ValueError('x').__traceback__)", "AttributeError", f"access to '__traceback__' {DUNDER}"),
        ("print(ValueError('x')._args)", "AttributeError", "'ValueError' object has no attribute '_args'"),
        ("print({}.__class__)", "AttributeError", f"access to '__class__' {DUNDER}"),
        ("print({1}.__class__)", "AttributeError", f"access to '__class__' {DUNDER}"),
        ("print({1}.__iand__)", "AttributeError", f"access to '__iand__' {DUNDER}"),
        ("print({}.__getitem__)", "AttributeError", f"access to '__getitem__' {DUNDER}"),
        ("print(iter([]).__next__)", "AttributeError", f"access to '__next__' {DUNDER}"),
        ("print(id(x).__class__)", "AttributeError", f"access to '__class__' {DUNDER}"),
        ("print(sorted.fn)", "AttributeError", "'builtin_function_or_method' object has no attribute 'fn'"),
        ("print(property(print).fget)", "AttributeError", "'property' object has no attribute 'fget'"),
        ("print(__file__)", "NameError", "name '__file__' is not defined"),
        ("print(torch.__file__)", "AttributeError", f"access to '__file__' {DUNDER}"),
        ("print(torch.__dict__)", "AttributeError", f"access to '__dict__' {DUNDER}"),
        # no dunder can be set, on a class, an instance or a function
        ("class A:\n    pass\nA.__init__ = print", "AttributeError", f"access to '__init__' {DUNDER}"),
        ("class A:\n    pass\nA().__class__ = int", "AttributeError", f"access to '__class__' {DUNDER}"),
        ("class A:\n    pass\na = A()\na.__dict__ = {}", "AttributeError", f"access to '__dict__' {DUNDER}"),
        (
            "def f():\n    pass\nf.__code__ = 1",
            "AttributeError",
            "cannot set attribute '__code__' of 'function' object",
        ),
        # still no host builtins, whatever a script function is handed to
        ("print(sorted([1], key=getattr))", "NameError", "name 'getattr' is not defined"),
        ("print(list(map(eval, ['1'])))", "NameError", "name 'eval' is not defined"),
        ("print(isinstance(x, object))", "NameError", "name 'object' is not defined"),
        ("raise SystemExit", "NameError", "name 'SystemExit' is not defined"),
    ],
)
def test_escape_attempts_through_classes_functions_and_exceptions_are_refused(script, type_name, message):
    refused(script, type_name, message)


@pytest.mark.parametrize(
    "script, type_name, message",
    [
        # special methods run as script code, under the caps, with Python's checks on what they return
        (
            "class A:\n    def __repr__(self):\n        return 5\nprint(A())",
            "TypeError",
            "__str__ returned non-string (type int)",
        ),
        (
            "class A:\n    def __repr__(self):\n        return repr(self)\nprint(A())",
            "RecursionError",
            "maximum recursion depth exceeded",
        ),
        (
            "class A:\n    def __len__(self):\n        return 10**30\nprint(len(A()))",
            "OverflowError",
            "cannot fit 'int' into an index-sized integer",
        ),
        (
            "class A:\n    def __hash__(self):\n        return 'x'\nd = {A(): 1}",
            "TypeError",
            "__hash__ method should return an integer",
        ),
        (
            "class A:\n    def __bool__(self):\n        return 2\nif A():\n    pass",
            "TypeError",
            "__bool__ should return bool, returned int",
        ),
        (
            "class I:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return 1\n"
            "for k in I():\n    pass",
            "LimitError",
            "loop iterations",
        ),
        (
            "class I:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return 1\n"
            "z = [*I()]",
            "LimitError",
            "elements (raise it with --max-elements)",
        ),
        ("def f():\n    return f()\nf()", "RecursionError", "maximum recursion depth exceeded"),
        ("f = lambda: f()\nf()", "RecursionError", "maximum recursion depth exceeded"),
        ("d = {}\nfor i in range(10**9):\n    d[i] = i", "LimitError", "loop of 1000000000 iterations"),
        ("d = {i: i for i in range(10**9)}", "LimitError", "loop of 1000000000 iterations"),
        ("d = dict(zip(range(10**9), range(10**9)))", "LimitError", "elements"),
        ("s = set(range(10**9))", "LimitError", "elements"),
        ("s = set()\ns.update(range(10**9))", "LimitError", "elements"),
        ("s = {i for i in range(10**9)}", "LimitError", "loop of 1000000000 iterations"),
        # diffcli's limits are not exceptions a script can catch
        (
            "try:\n    while True:\n        pass\nexcept BaseException:\n    print('caught')",
            "LimitError",
            "loop iterations",
        ),
        (
            "class A:\n    def __exit__(self, *a):\n        return True\n    def __enter__(self):\n        pass\n"
            "with A():\n    while True:\n        pass",
            "LimitError",
            "loop iterations",
        ),
    ],
)
def test_script_code_run_by_pythons_protocols_stays_within_the_caps(script, type_name, message):
    r = CliRunner().invoke(
        app, ["run", "-e", SETUP + script, "--max-iterations", "1000", "--max-elements", "100000"]
    )
    assert (
        "Traceback" not in r.stderr and "InternalError" not in r.stderr and "internal error" not in r.stderr
    ), r.stderr
    assert r.exit_code == 1, r.stdout + r.stderr
    first = r.stderr.splitlines()[0]
    assert f" {type_name}: " in first and message in first, first
    assert "caught" not in r.stdout


@pytest.mark.parametrize(
    "script, message",
    [
        ("global x", "'global' is not supported in diffcli scripts"),
        ("nonlocal x", "'nonlocal' is not supported in diffcli scripts"),
        ("print(f'{x:{y}}')", "f-string: nested replacement fields are not supported"),
        ("def g():\n    yield 1", "'yield' is not supported in diffcli scripts"),
        ("async def f():\n    pass", "'async' is not supported in diffcli scripts"),
        ("match x:\n    case 1:\n        pass", "'match' is not supported in diffcli scripts"),
    ],
)
def test_constructs_outside_the_grammar_are_syntax_errors(script, message):
    refused(script, "SyntaxError", message, code=2)


@pytest.mark.parametrize(
    "script",
    [
        "import torch\nclass A:\n    pass\na = A()\ndel a.__dict__",
        "import torch\nclass A:\n    pass\ndel A.__init__",
        "import torch\nt = torch.ones(1)\ndel t.__class__",
        "import torch\nimport torch.nn as nn\nm = nn.Linear(1, 1)\ndel m.__dict__",
        "x = 1\ndel x.__class__",
    ],
)
def test_del_of_a_dunder_attribute_is_refused(script):
    # `del` is in the language (statements of the script's own names, items and attributes),
    # but never reaches a dunder, as reading and assigning do not
    refused(script, "AttributeError", DUNDER)


@pytest.mark.parametrize(
    "script", ["print(f'{x.__class__}')", "print(f'{x!r.__class__}')", "print(f'{print.__self__}')"]
)
def test_fstring_fields_obey_the_same_whitelists(script):
    r = run(script)
    assert r.exit_code in (1, 2)
    assert "__class__" not in r.stdout and "builtins" not in r.stdout and r.stdout == ""


def test_the_single_readable_dunder_is_a_type_name():
    r = run("print(type(x).__name__, type(print).__name__, type(torch).__name__, type(y.grad_fn).__name__)")
    assert r.stdout == "Tensor builtin_function_or_method module MulBackward0\n"
    assert run("print(hasattr(x, '__class__'), hasattr(x, 'grad'))").stdout == "False True\n"


def test_reachable_pytorch_surface_still_works():
    r = run(
        "print(y.grad_fn.next_functions[0][0].variable is x, y.grad_fn.name(), x.shape.numel())\n"
        "print(len([1, 2]), float(2), int(2.5), abs(-2), str(3), type(2).__name__)"
    )
    assert r.exit_code == 0
    assert r.stdout == "True MulBackward0 1\n2 2.0 2 2 3 int\n"


def test_command_line_values_are_literals_only(tmp_path):
    marker = tmp_path / "pwned"
    for value in (f"__import__('os').system('touch {marker}')", f"open('{marker}', 'w')"):
        r = CliRunner().invoke(app, ["grad", "-e", "y = a * 2", "--set", f"a={value}"])
        assert r.exit_code == 2 and r.stderr.startswith("error: UsageError: --set a: expected a number")
        r = CliRunner().invoke(app, ["grad", "-e", "x = [1.0]\ny = x * 2", "--grad-tensors", value])
        assert r.exit_code == 1 and "NameError: --grad-tensors: name " in r.stderr
    assert not marker.exists()


def test_grad_tensors_expression_is_evaluated_with_the_same_whitelists():
    r = CliRunner().invoke(
        app, ["grad", "-e", "x = [1.0]\ny = x * 2", "--grad-tensors", "ones_like(y.__class__)"]
    )
    assert r.exit_code == 1
    assert "AttributeError: --grad-tensors: access to '__class__' is not allowed" in r.stderr
    r = CliRunner().invoke(app, ["grad", "-e", "x = [1.0]\ny = x * 2", "--grad-tensors", "__import__('os')"])
    assert r.exit_code == 1 and "NameError: --grad-tensors: name '__import__' is not defined" in r.stderr


# --- the audit: everything reachable is whitelisted ---------------------------------------

_DANGEROUS_BUILTINS = {
    getattr(builtins, n)
    for n in (
        "eval",
        "exec",
        "compile",
        "open",
        "getattr",
        "setattr",
        "delattr",
        "globals",
        "locals",
        "vars",
        "dir",
        "__import__",
        "input",
        "breakpoint",
        "help",
        "memoryview",
        "object",
        "type",
        "super",
        "classmethod",
        "staticmethod",
        "property",
        "exit",
        "quit",
        "id",
        "hash",
        "iter",
        "next",
    )
    if hasattr(builtins, n)
}
_ALLOWED_PY_CALLABLES = {
    float,
    int,
    bool,
    list,
    tuple,
    dict,
    set,
    frozenset,
    enumerate,
    zip,
    reversed,
    len,
    any,
    all,
}


def _allowed_callable(v) -> bool:
    if v in _ALLOWED_PY_CALLABLES:
        return True
    if v in _DANGEROUS_BUILTINS:
        return False
    if isinstance(v, objects.Builtin):  # isinstance, sorted, super...: diffcli's own
        return v.fn.__module__.startswith("diffcli.")
    if isinstance(v, ExceptionClass):  # ValueError & co.: diffcli's values
        return True
    if isinstance(v, objects.ProvidedBase):  # nn.Module, nn.Linear, optim.SGD...: diffcli's
        return type(v).__module__.startswith("diffcli.")
    if isinstance(v, type) and issubclass(v, numpy.generic):  # numpy's numeric scalar types (np.float32...)
        return v in set(numpy_subset.DTYPES.values())
    if isinstance(v, types.BuiltinFunctionType):  # math.sin & co.
        return getattr(v, "__module__", None) == "math"
    if isinstance(v, (types.FunctionType, type)):
        module = getattr(v, "__module__", "") or ""
        return module.startswith("diffcli.")
    return False


def _walk_namespace(ns, seen):
    for name, v in ns.members.items():
        assert not name.startswith("__"), (ns.name, name)
        if isinstance(v, values.Namespace):
            if id(v) not in seen:
                seen.add(id(v))
                _walk_namespace(v, seen)
        elif v is None or isinstance(v, (int, float, dtypes.DType, values.TypeValue)):  # (typing: TypeValues)
            pass
        elif isinstance(v, objects.ProvidedBase):  # torch.autograd.Function: diffcli's own
            assert type(v).__module__.startswith("diffcli."), (ns.name, name, v)
        else:
            assert (
                callable(v) or isinstance(v, (objects.Builtin, objects.ProvidedBase))
            ) and _allowed_callable(v), (ns.name, name, v)


def test_every_builtin_and_namespace_member_is_an_allowed_value():
    interp = Interpreter()
    seen = set()
    for name, v in interp.builtins.items():
        assert not name.startswith("__"), name
        if isinstance(v, values.Namespace):
            _walk_namespace(v, seen)
        elif isinstance(v, (int, float)) or v is NotImplemented:
            pass
        else:
            assert (callable(v) or isinstance(v, (objects.Builtin, ExceptionClass))) and _allowed_callable(
                v
            ), (name, v)
    assert seen  # the walk reached torch.nn.functional etc.
    for ns in values.MODULES.values():
        _walk_namespace(ns, seen)
    assert isinstance(values.MATH.members["sin"], types.BuiltinFunctionType)


def _sample_values():
    interp = Interpreter(write=lambda s: None)
    interp.run(
        parse(
            "import torch\nx = torch.tensor(1.0, requires_grad=True)\nv = tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\n"
            "m = v.max(0)\ns = v.shape\nd = v.dtype\nt = type(v)\nn = torch.no_grad()\n"
            "def f(a):\n    return a\n"
            "try:\n    z = 1 / 0\nexcept Exception as e:\n    err = e\n"
            "r = range(3)\nen = enumerate([1])\nl = [1]\ntp = (1,)\nst = 'a'\ni = int(1)\n"
            "fl = float(1)\nb = True\nmeth = v.sum\n" + _PYTHON_SAMPLES
        )
    )
    env = interp.env
    extra = {
        "AccumulateGrad": env["y"].grad_fn.next_functions[0][0],
        "print": interp.builtins["print"],
        "range_fn": interp.builtins["range"],
        "len": len,
        "torch": values.TORCH,
        "math": values.MATH,
        "F": values.MODULES["torch.nn.functional"],
        "sin": engine.FUNCTIONS["sin"],
        "grad_fn": env["y"].grad_fn,
        "None": None,
    }
    return interp, {**{k: env[k] for k in env if k != "torch"}, **extra}


# the Python values of a script (classes, instances, methods, dicts, exceptions...)
_PYTHON_SAMPLES = """
class Base:
    k = 1
    def __init__(self, a):
        self.a = a
    def m(self):
        return self.a
    @staticmethod
    def s():
        return 1
    @classmethod
    def c(cls):
        return cls
    @property
    def p(self):
        return 2
    def __repr__(self):
        return 'B'
    def __add__(self, other):
        return self
class Sub(Base):
    def __init__(self):
        super().__init__(1)
        self.sup = super()
obj = Sub()
sup = obj.sup
bm = obj.m
cm = Sub.c
lam = lambda q: q
dct = {'a': 1}
dk = dct.keys()
sset = {1, 2}
fset = frozenset(sset)
sit = iter(sset)
class MyErr(ValueError):
    pass
try:
    raise MyErr('x')
except MyErr as e2:
    merr = e2
exc_cls = ValueError
mp = map(lambda q: q, [1])
rv = reversed([1])
stm = staticmethod(f)
clm = classmethod(f)
prop = property(f)
srt = sorted
dec = torch.no_grad()(f)
tgrad = torch.func.grad(lambda q: q.sum())
tpull = torch.func.vjp(lambda q: q * 2, torch.tensor([1.0]))[1]
tvmap = torch.vmap(f)
tjac = torch.autograd.functional.jacobian
from functools import partial
prt = partial(f, 1)
prt2 = partial(prt, a=2)
"""
_OBJECT_DEFAULTS = {"__init__", "__repr__", "__str__"}
# issue 12 (tests/cli/test_security_autograd.py audits these objects in full)
_TENSOR_HOOKS = {"register_hook", "register_post_accumulate_grad_hook", "type", "is_inference"}
_NODE_NAMES = {
    "metadata",
    "register_hook",
    "register_prehook",
    "requires_grad",
    "_saved_other",
    "_saved_self",
    "_raw_saved_other",
    "_raw_saved_self",
    "_saved_alpha",
}  # object's, at the end of every MRO


def _class_names(cls):
    return {
        n for klass in cls.mro if isinstance(klass, objects.ClassValue) for n in klass.ns
    } | _OBJECT_DEFAULTS


def _allowed_attributes(v):
    if isinstance(v, values.ExceptionValue):
        return {"args", "__class__"} | set(v._attrs) | _class_names(v._cls)
    if isinstance(v, objects.Instance):
        return {"__class__"} | set(v._attrs) | _class_names(v._cls)
    if isinstance(v, (objects.ClassValue, ExceptionClass)):
        return {"__name__", "__qualname__"} | _class_names(v)
    if isinstance(v, objects.SuperProxy):
        return _class_names(v.start) - set(v.start.ns) | set(v.start.bases[0].ns)
    if isinstance(v, pyfunctools.Partial):  # functools.partial: its function and arguments
        return {"__name__", "__qualname__", *pyfunctools.ATTRS}
    if isinstance(v, (values.UserFunction, objects.BoundMethod, objects.GradModeFunction, objects.Builtin)):
        return {"__name__", "__qualname__"}
    if isinstance(v, objects.Property):
        return {"setter", "getter"}
    if type(v) is dict:
        return values.DICT_METHODS
    if type(v) in (set, frozenset):
        return values.SET_METHODS
    if isinstance(v, Tensor):
        return values.TENSOR_ATTRS | values.TENSOR_METHODS | _TENSOR_HOOKS
    if isinstance(v, Node):
        return values.NODE_ATTRS | _NODE_NAMES | {"__class__"}  # (__class__: the TypeValue type() gives)
    if isinstance(v, values.Namespace):
        return set(v.members) | ({"__version__"} if v is values.TORCH else set())
    if isinstance(v, values.TypeValue):
        return {"__name__", "__qualname__"}
    if isinstance(v, reductions.ReturnTypes):
        return {"values", "indices"}
    if isinstance(v, Size):
        return {"numel"}
    if isinstance(v, dtypes.DType):
        return {"is_floating_point"}
    if isinstance(v, values.Device):
        return {"type", "index"}
    if type(v) is list:
        return values.LIST_METHODS
    if type(v) is str:
        # format: plain fields only (test_str_format_reads_no_attribute_or_item); the other
        # methods are Python's own on the string, held to --max-elements where they grow it
        return {"format"} | pymethods.STR_METHODS
    return set()


_PROBES = [
    "__class__",
    "__dict__",
    "__globals__",
    "__code__",
    "__self__",
    "__func__",
    "__module__",
    "__builtins__",
    "__subclasses__",
    "__bases__",
    "__mro__",
    "__init__",
    "__call__",
    "__reduce__",
    "__getattribute__",
    "_name",
    "_grad",
    "array",
    "np",
    "name",
    "mro",
    "format",
    "join",
    "f_globals",
    "gi_frame",
    "im_func",
    "func_globals",
    "saved",
    "backward_fn",
    "closure",
    "node",
    "members",
    "message",
    "type_name",
    "real",
    "start",
    "count",
    "index",
    "append",
    "keys",
    "__version__",
    "__qualname__",
    "__name__",
    "__closure__",
    "__defaults__",
    "__kwdefaults__",
    "__wrapped__",
    "__getattr__",
    "__setattr__",
    "__new__",
    "__init_subclass__",
    "__slots__",
    "__weakref__",
    "_cls",
    "_attrs",
    "_args",
    "_script_class",
    "ns",
    "host",
    "interp",
    "func",
    "owner",
    "fget",
    "fn",
    "obj",
    "qualname",
    "class_scope",
    "defaults",
    "lookup",
    "full_name",
    "bases",
    "parent",
]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_no_attribute_outside_the_whitelists_is_readable():
    interp, samples = _sample_values()
    checked = 0
    for label, v in samples.items():
        names = set(_PROBES) | {n for n in dir(v) if isinstance(n, str)}
        allowed = _allowed_attributes(v)
        for name in sorted(names):
            node = A.Attribute(A.Name("o"), name)
            try:
                interp.attribute(v, node)
            except ScriptError as e:
                # a whitelisted attribute may raise PyTorch's own error (`x.mT` of a 1-D tensor)
                assert e.type_name == "AttributeError" or name in allowed, (label, name, e)
                continue
            finally:
                checked += 1
            assert name in allowed, f"{label}.{name} is readable but not whitelisted"
    assert checked > 2000


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_whitelisted_tensor_attributes_return_plain_values():
    interp, samples = _sample_values()
    v = samples["v"]
    for name in sorted(values.TENSOR_ATTRS):
        try:
            got = interp.attribute(v, A.Attribute(A.Name("o"), name))
        except ScriptError as e:  # PyTorch refuses `mT` of a 1-D tensor
            assert (name, e.type_name) == ("mT", "RuntimeError"), (name, e)
            continue
        assert got is None or isinstance(got, (Tensor, Node, bool, int, Size, dtypes.DType, values.Device)), (
            name,
            got,
        )


def test_no_eval_exec_or_compile_of_script_text_in_the_package():
    pattern = re.compile(r"(?<![\w.])(?<!def )(eval|exec|compile|__import__|execfile)\s*\(")
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if pattern.search(code):
                offenders.append(f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}")
    assert offenders == []


@pytest.mark.parametrize("template", ["{0.__class__}", "{0[0]}", "{x.grad_fn}", "{:{0.__class__}}"])
def test_str_format_reads_no_attribute_or_item(template):
    """str.format's fields may not reach attributes or items of their arguments (the
    classic format-string escape); plain fields only."""
    from .samples import cli

    r = cli("run", "-e", f"x = tensor([1.0])\nprint('{template}'.format(x, x=x))")
    assert r.exit_code == 1 and "ValueError: diffcli formats plain fields only" in r.stderr, r.stderr
    assert "class" not in r.stdout and "Traceback" not in r.stderr


# --- torch.nn, torch.optim and the numpy subset (issue 12 items 4-5) -------------------------

_NN_SETUP = """import torch
import torch.nn as nn
import numpy as np
model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
loss_fn = nn.MSELoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
adam = torch.optim.Adam(model.parameters())
arr = np.zeros(3)
sched = torch.optim.lr_scheduler.StepLR(opt, 2)
"""


@pytest.mark.parametrize(
    "expr",
    [
        "model.__dict__",
        "model._attrs",
        "model.host",
        "model.__init__.__globals__",
        "model.forward.__self__",
        "opt._attrs",
        "opt._cls_update",
        "adam.state.__class__",
        "nn.Module.host",
        "nn.Module.__subclasses__",
        "nn.Linear.methods",
        "nn.init.__dict__",
        "torch.optim.__loader__",
        "model[0].weight.__class__",
        "nn.Parameter.fn",
        "arr.__class__",
        "arr.ctypes",
        "arr.data",
        "arr.base",
        "arr.tofile",
        "arr.dump",
        "arr.dumps",
        "arr.__array_interface__",
        "arr.view",
        "arr.flags",
        "arr.tobytes",
        "arr.setflags",
        "np.load",
        "np.save",
        "np.savez",
        "np.savetxt",
        "np.loadtxt",
        "np.genfromtxt",
        "np.fromfile",
        "np.memmap",
        "np.ctypeslib",
        "np.lib",
        "np.core",
        "np.frombuffer",
        "np.fromstring",
        "np.empty",
        "np.ndarray",
        "np.object_",
        "np.dtype",
        "np.testing",
        "np.f2py",
        "np.distutils",
        "np.__config__",
        "np.random.__dict__",
        "np.random.bit_generator",
        "np.random.RandomState",
        "np.random.get_state",
        "np.sum.__globals__",
        "np.float32.__mro__",
        "arr.sum.__self__",
        "model._nn",  # (a module's buffers and hooks: lang/nn_registry.py)
        "model.register_forward_hook(print).handle",
        "model.register_forward_hook(print).__dict__",
        "model.register_backward_hook(print).remove.__self__",
        "list(model.named_buffers()).__class__",
        "model.register_forward_pre_hook.__self__",
        "sched.__dict__",
        "sched.step.__self__",
        "sched._cls",
        "torch.optim.lr_scheduler.StepLR.__subclasses__",
        "torch.optim.lr_scheduler.__dict__",
    ],
)
def test_nn_optim_numpy_objects_expose_no_dunder_or_host_access(expr):
    r = run(_NN_SETUP + f"print({expr})\n")
    assert r.exit_code == 1, r.stdout + r.stderr
    assert r.stderr.startswith("error: ") and (
        "AttributeError" in r.stderr
        or "TypeError" in r.stderr
        or "may not read" in r.stderr
        or "dunder" in r.stderr
        or "'__" in r.stderr
    ), r.stderr


@pytest.mark.parametrize(
    "script",
    [
        "np.array([model])",
        "np.array(['a', 'b'])",
        "np.zeros(3, dtype=object)",
        "arr.astype(object)",
        "np.zeros(10 ** 9)",
        "np.random.rand(10 ** 5, 10 ** 5)",
        "np.array([1.0]).astype('U3')",
    ],
)
def test_numpy_subset_makes_only_bounded_numeric_arrays(script):
    r = run(_NN_SETUP + f"print({script})\n")
    assert r.exit_code == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr


def test_numpy_subset_members_are_a_whitelist_without_file_or_host_access():
    from diffcli.lang import numpy_subset

    members = set(numpy_subset.NUMPY.members) | set(numpy_subset.RANDOM.members)
    for bad in (
        "load",
        "save",
        "savez",
        "savetxt",
        "loadtxt",
        "fromfile",
        "memmap",
        "ctypeslib",
        "lib",
        "frombuffer",
        "fromstring",
        "empty",
        "ndarray",
        "object_",
        "genfromtxt",
        "tofile",
        "core",
        "RandomState",
        "get_state",
        "set_state",
        "bit_generator",
        "Generator",
        "default_rng",
    ):
        assert bad not in members, bad
    assert not (
        numpy_subset.ARRAY_ATTRS
        & {
            "tofile",
            "dump",
            "dumps",
            "ctypes",
            "data",
            "base",
            "view",
            "flags",
            "tobytes",
            "setflags",
            "__array_interface__",
        }
    )
    for v in numpy_subset.NUMPY.members.values():
        assert isinstance(v, (objects.Builtin, values.Namespace, type, float, type(None))), v
