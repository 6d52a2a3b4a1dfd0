"""Tests for diffcli.lang.parse: the grammar, the AST it builds, and its errors."""

from __future__ import annotations

import ast as pyast
import logging
import random
import time
from pathlib import Path

import pytest

from diffcli.lang import ast, larkparse
from diffcli.lang import parse as parse_module
from diffcli.lang.parse import ScriptSyntaxError, parse

SEEDS = Path(__file__).resolve().parents[1] / "goldens" / "torchref" / "seeds"
SPAN_FIELDS = ("line", "column", "end_line", "end_column")


def sx(node) -> str:
    """A node as a compact S-expression without spans, e.g. ``BinOp('+', Name('a'), Num(1))``."""
    if isinstance(node, list):
        return "[" + ", ".join(sx(item) for item in node) + "]"
    if isinstance(node, tuple):
        return "(" + ", ".join(sx(item) for item in node) + ")"
    if isinstance(node, ast.Num):
        return f"Num({node.text})"
    if isinstance(node, ast.Node):
        fields = [f for f in ast.fields(node) if f not in SPAN_FIELDS]
        return f"{type(node).__name__}(" + ", ".join(sx(getattr(node, f)) for f in fields) + ")"
    return repr(node)


def expr(src: str) -> str:
    (stmt,) = parse(src).body
    assert isinstance(stmt, ast.ExprStmt)
    return sx(stmt.value)


def stmts(src: str) -> str:
    return sx(parse(src).body)


def syntax_error(src) -> ScriptSyntaxError:
    with pytest.raises(ScriptSyntaxError) as info:
        parse(src)
    return info.value


# ------------------------------------------------------------------ precedence

PRECEDENCE = [
    ("-x^2", "UnaryOp('-', BinOp('**', Name('x'), Num(2)))"),
    ("-x**2", "UnaryOp('-', BinOp('**', Name('x'), Num(2)))"),
    ("2^3^2", "BinOp('**', Num(2), BinOp('**', Num(3), Num(2)))"),
    ("2^-1", "BinOp('**', Num(2), UnaryOp('-', Num(1)))"),
    ("a-b-c", "BinOp('-', BinOp('-', Name('a'), Name('b')), Name('c'))"),
    ("a/b*c", "BinOp('*', BinOp('/', Name('a'), Name('b')), Name('c'))"),
    ("a+b*c", "BinOp('+', Name('a'), BinOp('*', Name('b'), Name('c')))"),
    ("(a+b)*c", "BinOp('*', BinOp('+', Name('a'), Name('b')), Name('c'))"),
    ("a @ b // c % d", "BinOp('%', BinOp('//', BinOp('@', Name('a'), Name('b')), Name('c')), Name('d'))"),
    ("-a*b", "BinOp('*', UnaryOp('-', Name('a')), Name('b'))"),
    ("x.w^2", "BinOp('**', Attribute(Name('x'), 'w'), Num(2))"),
    ("f(x)[0].T", "Attribute(Subscript(Call(Name('f'), [Name('x')], []), Num(0)), 'T')"),
    ("a < b + 1", "Compare('<', Name('a'), BinOp('+', Name('b'), Num(1)))"),
    (
        "a < b <= c",
        "BoolOp('and', [Compare('<', Name('a'), Name('b')), Compare('<=', Name('b'), Name('c'))])",
    ),
    ("not a == b", "Not(Compare('==', Name('a'), Name('b')))"),
    ("a or b and not c", "BoolOp('or', [Name('a'), BoolOp('and', [Name('b'), Not(Name('c'))])])"),
    ("a is not b", "Compare('is not', Name('a'), Name('b'))"),
    ("a not in b", "Compare('not in', Name('a'), Name('b'))"),
    ("a if b else c if d else e", "IfExp(Name('b'), Name('a'), IfExp(Name('d'), Name('c'), Name('e')))"),
    (
        "a + b if c or d else e",
        "IfExp(BoolOp('or', [Name('c'), Name('d')]), BinOp('+', Name('a'), Name('b')), Name('e'))",
    ),
]


@pytest.mark.parametrize("src, tree", PRECEDENCE)
def test_precedence(src, tree):
    assert expr(src) == tree


def _canon_mine(node) -> str:
    """Fully parenthesised text of one of our expressions."""
    c = _canon_mine
    if isinstance(node, ast.BinOp):
        return f"({c(node.left)} {node.op} {c(node.right)})"
    if isinstance(node, ast.UnaryOp):
        return f"({node.op}{c(node.operand)})"
    if isinstance(node, ast.Not):
        return f"(not {c(node.operand)})"
    if isinstance(node, ast.Compare):
        return f"({c(node.left)} {node.op} {c(node.right)})"
    if isinstance(node, ast.BoolOp):
        return "(" + f" {node.op} ".join(c(v) for v in node.values) + ")"
    if isinstance(node, ast.IfExp):
        return f"({c(node.body)} if {c(node.test)} else {c(node.orelse)})"
    if isinstance(node, ast.Call):
        args = [c(a) for a in node.args] + [f"{k}={c(v)}" for k, v in node.kwargs]
        return f"{c(node.func)}(" + ", ".join(args) + ")"
    if isinstance(node, ast.Attribute):
        return f"{c(node.obj)}.{node.name}"
    if isinstance(node, ast.Subscript):
        return f"{c(node.obj)}[{c(node.index)}]"
    if isinstance(node, ast.Slice):
        return ":".join("" if part is None else c(part) for part in (node.lo, node.hi, node.step))
    if isinstance(node, ast.TupleLit):
        return "(" + "".join(c(item) + ", " for item in node.items) + ")"
    if isinstance(node, ast.ListLit):
        return "[" + ", ".join(c(item) for item in node.items) + "]"
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, (ast.Num, ast.Str, ast.Const)):
        return repr(node.value)
    if isinstance(node, ast.EllipsisLit):
        return "..."
    raise AssertionError(f"no canonical form for {node!r}")


_PY_OPS = {
    pyast.Add: "+",
    pyast.Sub: "-",
    pyast.Mult: "*",
    pyast.Div: "/",
    pyast.MatMult: "@",
    pyast.FloorDiv: "//",
    pyast.Mod: "%",
    pyast.Pow: "**",
    pyast.USub: "-",
    pyast.UAdd: "+",
    pyast.And: "and",
    pyast.Or: "or",
    pyast.Lt: "<",
    pyast.LtE: "<=",
    pyast.Gt: ">",
    pyast.GtE: ">=",
    pyast.Eq: "==",
    pyast.NotEq: "!=",
    pyast.Is: "is",
    pyast.IsNot: "is not",
    pyast.In: "in",
    pyast.NotIn: "not in",
}


def _canon_python(node) -> str:
    """The same fully parenthesised text, from Python's own parser."""
    c = _canon_python
    op = _PY_OPS.get(type(getattr(node, "op", None)))
    if isinstance(node, pyast.BinOp):
        return f"({c(node.left)} {op} {c(node.right)})"
    if isinstance(node, pyast.UnaryOp):
        return f"(not {c(node.operand)})" if op is None else f"({op}{c(node.operand)})"
    if isinstance(node, pyast.Compare):
        operands = [node.left, *node.comparators]
        links = [f"({c(a)} {_PY_OPS[type(o)]} {c(b)})" for a, o, b in zip(operands, node.ops, operands[1:])]
        return links[0] if len(links) == 1 else "(" + " and ".join(links) + ")"
    if isinstance(node, pyast.BoolOp):
        return "(" + f" {op} ".join(c(v) for v in node.values) + ")"
    if isinstance(node, pyast.IfExp):
        return f"({c(node.body)} if {c(node.test)} else {c(node.orelse)})"
    if isinstance(node, pyast.Call):
        args = [c(a) for a in node.args] + [f"{k.arg}={c(k.value)}" for k in node.keywords]
        return f"{c(node.func)}(" + ", ".join(args) + ")"
    if isinstance(node, pyast.Attribute):
        return f"{c(node.value)}.{node.attr}"
    if isinstance(node, pyast.Subscript):
        return f"{c(node.value)}[{c(node.slice)}]"
    if isinstance(node, pyast.Slice):
        return ":".join("" if part is None else c(part) for part in (node.lower, node.upper, node.step))
    if isinstance(node, pyast.Tuple):
        return "(" + "".join(c(item) + ", " for item in node.elts) + ")"
    if isinstance(node, pyast.List):
        return "[" + ", ".join(c(item) for item in node.elts) + "]"
    if isinstance(node, pyast.Name):
        return node.id
    if isinstance(node, pyast.Constant):
        return "..." if node.value is Ellipsis else repr(node.value)
    raise AssertionError(f"no canonical form for {pyast.dump(node)}")


SAME_AS_PYTHON = [
    "-x**2",
    "2**3**2",
    "2**-1",
    "-2**-1",
    "a**-b**c",
    "-a**b",
    "(-a)**b",
    "a*-b**c",
    "a - -b",
    "+a-b",
    "a-b+c-d",
    "a/b/c",
    "a*b+c*d",
    "a@b*c",
    "a//b%c*d",
    "x.y**2",
    "f(x)**-g(y)",
    "a.b.c(d)[e].f",
    "f(a)(b)",
    "x[1:2, ::3]",
    "x[a, b:c]",
    "x[..., None]",
    "a < b == c",
    "a < b < c < d",
    "not a < b",
    "not not a",
    "a and b or c and d",
    "a or b and not c",
    "(a or b) or c",
    "a if b else c",
    "a if b or c else d if e else f",
    "a in b and c not in d",
    "a is not b",
    "[a, (b, c), [d], (e,), ()]",
    "f(a, b=1, c=d+2)",
    "0.5*y**2 - 1",
    "sin((0.5*y**2-1)/2-0.1)",
    "1e-3 + .5 + 2. + 2",
    "'a' 'b'",
    "True or None and False",
    "x[::2][1:][:-1]",
]


@pytest.mark.parametrize("src", SAME_AS_PYTHON)
def test_expression_structure_matches_python(src):
    (stmt,) = parse(src).body
    assert _canon_mine(stmt.value) == _canon_python(pyast.parse(src, mode="eval").body)


def test_caret_and_double_star_are_the_same_power():
    assert expr("a^b^-c") == expr("a**b**-c")


# ----------------------------------------------------- statements and lexing


def test_semicolons_and_newlines_separate_statements():
    one_line = stmts("x = a + b; y = x*w; p = sin((0.5*y^2-1)/2-0.1)")
    several = stmts("x = a + b\ny = x*w\n\np = sin((0.5*y^2-1)/2-0.1);\n")
    assert one_line == several
    assert one_line.count("Assign(") == 3


@pytest.mark.parametrize(
    "src",
    [
        "x = 1  # a comment\n# a whole-line comment\ny = 2\n",
        "# leading comment\n\n\nx = 1\n   # indented comment\ny = 2   ",
        "x = 1\r\ny = 2\r\n",
        "x = 1\ny = 2",
        "\ufeffx = 1\ny = 2\n",
        "x = 1\ty\t= 2".replace("\ty\t", "\ny\t"),
        b"x = 1\ny = 2\n",
        "x = \\\n  1\ny = 2\n",
    ],
)
def test_comments_line_endings_and_whitespace(src):
    assert stmts(src) == "[Assign([Name('x')], Num(1)), Assign([Name('y')], Num(2))]"


def test_newlines_inside_brackets_do_not_end_a_statement():
    assert stmts("x = f(1,\n      2)\ny = [1,\n2]\n") == (
        "[Assign([Name('x')], Call(Name('f'), [Num(1), Num(2)], [])), "
        "Assign([Name('y')], ListLit([Num(1), Num(2)]))]"
    )


NUMBERS = [
    ("2", 2, True),
    ("2.5", 2.5, False),
    (".5", 0.5, False),
    ("1e-3", 0.001, False),
    ("2.", 2.0, False),
    ("1E+2", 100.0, False),
    ("007", 7, True),
]


@pytest.mark.parametrize("text, value, is_int", NUMBERS)
def test_numbers(text, value, is_int):
    (stmt,) = parse(text).body
    num = stmt.value
    assert (num.value, num.is_int, num.text) == (value, is_int, text)
    assert type(num.value) is (int if is_int else float)


STRINGS = [
    (r"'a\nb'", "a\nb"),
    (r'"a\tb"', "a\tb"),
    (r"'a\\b'", "a\\b"),
    (r"'it\'s'", "it's"),
    (r'"say \"hi\""', 'say "hi"'),
    (r"'\x41\u00e9\101'", "A\u00e9A"),
    (r"'\N{GREEK SMALL LETTER ALPHA}'", "\u03b1"),
    (r"'\q'", "\\q"),
    (r"r'\n\d'", "\\n\\d"),
    ("u'\u00e9'", "\u00e9"),
    ("'a' \"b\"", "ab"),
    ("'''a\nb'''", "a\nb"),
    ('""', ""),
    ("'a\\\nb'", "ab"),
]


@pytest.mark.parametrize("src, value", STRINGS)
def test_string_literals_and_escapes(src, value):
    (stmt,) = parse(src).body
    assert stmt.value == ast.Str(
        value, line=1, column=1, end_line=stmt.value.end_line, end_column=stmt.value.end_column
    )


STATEMENTS = [
    ("import torch", "[Import([Alias('torch', None)])]"),
    (
        "import torch.nn.functional as F, math",
        "[Import([Alias('torch.nn.functional', 'F'), Alias('math', None)])]",
    ),
    ("from torch import autograd", "[FromImport('torch', [Alias('autograd', None)])]"),
    (
        "from torch.nn import functional as F, init",
        "[FromImport('torch.nn', [Alias('functional', 'F'), Alias('init', None)])]",
    ),
    ("from torch import (a,\n  b,)", "[FromImport('torch', [Alias('a', None), Alias('b', None)])]"),
    ("x = y = 1", "[Assign([Name('x'), Name('y')], Num(1))]"),
    ("a, b = b, a", "[Assign([TupleLit([Name('a'), Name('b')])], TupleLit([Name('b'), Name('a')]))]"),
    ("(a, [b, c]) = t", "[Assign([TupleLit([Name('a'), ListLit([Name('b'), Name('c')])])], Name('t'))]"),
    ("y[0] = 5", "[Assign([Subscript(Name('y'), Num(0))], Num(5))]"),
    ("x.requires_grad = True", "[Assign([Attribute(Name('x'), 'requires_grad')], Const(True))]"),
    (
        "x += 1; x -= 2; x *= w; x /= 2",
        "[AugAssign(Name('x'), '+', Num(1)), AugAssign(Name('x'), '-', Num(2)), "
        "AugAssign(Name('x'), '*', Name('w')), AugAssign(Name('x'), '/', Num(2))]",
    ),
    ("w.grad.zero_()", "[ExprStmt(Call(Attribute(Attribute(Name('w'), 'grad'), 'zero_'), [], []))]"),
    (
        "with torch.no_grad():\n    y = x * 2\n",
        "[With([(Call(Attribute(Name('torch'), 'no_grad'), [], []), None)], "
        "[Assign([Name('y')], BinOp('*', Name('x'), Num(2)))])]",
    ),
    (
        "with no_grad(): y = 1",
        "[With([(Call(Name('no_grad'), [], []), None)], [Assign([Name('y')], Num(1))])]",
    ),
    ("with a as b, c: pass", "[With([(Name('a'), 'b'), (Name('c'), None)], [Pass()])]"),
    (
        "for i in range(3):\n    x += i\n",
        "[For(Name('i'), Call(Name('range'), [Num(3)], []), [AugAssign(Name('x'), '+', Name('i'))])]",
    ),
    (
        "for name, t in [('x', x)]: print(name)",
        "[For(TupleLit([Name('name'), Name('t')]), ListLit([TupleLit([Str('x'), Name('x')])]), "
        "[ExprStmt(Call(Name('print'), [Name('name')], []))])]",
    ),
    ("for x in a, b: pass", "[For(Name('x'), TupleLit([Name('a'), Name('b')]), [Pass()])]"),
    (
        "while x < 3:\n    x += 1\n    if x: break\n    continue\n",
        "[While(Compare('<', Name('x'), Num(3)), [AugAssign(Name('x'), '+', Num(1)), "
        "If(Name('x'), [Break()], []), Continue()])]",
    ),
    (
        "if a:\n  x = 1\nelif b:\n  x = 2\nelse:\n  x = 3\n",
        "[If(Name('a'), [Assign([Name('x')], Num(1))], [If(Name('b'), [Assign([Name('x')], Num(2))], "
        "[Assign([Name('x')], Num(3))])])]",
    ),
    (
        "try:\n    p.backward()\nexcept Exception as e:\n    print(e)\nexcept:\n    pass\n"
        "else:\n    pass\nfinally:\n    x = 1\n",
        "[Try([ExprStmt(Call(Attribute(Name('p'), 'backward'), [], []))], "
        "[ExceptHandler(Name('Exception'), 'e', [ExprStmt(Call(Name('print'), [Name('e')], []))]), "
        "ExceptHandler(None, None, [Pass()])], [Pass()], [Assign([Name('x')], Num(1))])]",
    ),
    ("try:\n    pass\nfinally:\n    pass\n", "[Try([Pass()], [], [], [Pass()])]"),
    (
        "def walk(fn, depth=0):\n    return fn, depth\n",
        "[FuncDef('walk', [Param('fn', None, ''), Param('depth', Num(0), '')], "
        "[Return(TupleLit([Name('fn'), Name('depth')]))], [])]",
    ),
    ("def f(): return", "[FuncDef('f', [], [Return(None)], [])]"),
    (
        "print(x, y, sep='\\n')",
        "[ExprStmt(Call(Name('print'), [Name('x'), Name('y')], [('sep', Str('\\n'))]))]",
    ),
    (
        "y = [(f(x), i) for f, i in xs if f is not None]",
        "[Assign([Name('y')], ListComp(TupleLit([Call(Name('f'), [Name('x')], []), Name('i')]), "
        "[Comprehension(TupleLit([Name('f'), Name('i')]), Name('xs'), [Compare('is not', Name('f'), Const(None))])]))]",
    ),
    (
        "y = [a for r in m for a in r]",
        "[Assign([Name('y')], ListComp(Name('a'), [Comprehension(Name('r'), Name('m'), []), "
        "Comprehension(Name('a'), Name('r'), [])]))]",
    ),
    (
        "v = [[1, 2], [3, 4,],]",
        "[Assign([Name('v')], ListLit([ListLit([Num(1), Num(2)]), ListLit([Num(3), Num(4)])]))]",
    ),
    (
        "t = (); u = (a,); w = (a, b)",
        "[Assign([Name('t')], TupleLit([])), Assign([Name('u')], TupleLit([Name('a')])), "
        "Assign([Name('w')], TupleLit([Name('a'), Name('b')]))]",
    ),
    ("x = None", "[Assign([Name('x')], Const(None))]"),
    (
        "for i in x:\n\ty = i\n\tif y:\n\t\tpass\nz = 1",
        "[For(Name('i'), Name('x'), [Assign([Name('y')], Name('i')), If(Name('y'), [Pass()], [])]), "
        "Assign([Name('z')], Num(1))]",
    ),
]


@pytest.mark.parametrize("src, tree", STATEMENTS)
def test_statement_kinds(src, tree):
    assert stmts(src) == tree


SUBSCRIPTS = [
    ("x[0]", "Num(0)"),
    ("x[1:3]", "Slice(Num(1), Num(3), None)"),
    ("x[:, 0]", "TupleLit([Slice(None, None, None), Num(0)])"),
    ("x[::2]", "Slice(None, None, Num(2))"),
    ("x[..., None]", "TupleLit([EllipsisLit(), Const(None)])"),
    ("x[[0, 2]]", "ListLit([Num(0), Num(2)])"),
    ("x[1:]", "Slice(Num(1), None, None)"),
    ("x[:-1]", "Slice(None, UnaryOp('-', Num(1)), None)"),
    ("x[1,]", "TupleLit([Num(1)])"),
    ("x[a:b:c]", "Slice(Name('a'), Name('b'), Name('c'))"),
]


@pytest.mark.parametrize("src, index", SUBSCRIPTS)
def test_indexing_and_slices(src, index):
    assert expr(src) == f"Subscript(Name('x'), {index})"


def test_keyword_arguments_keep_their_order():
    call = parse("torch.autograd.grad(a.grad, [a, b], retain_graph=True, create_graph=False)").body[0].value
    assert [name for name, _ in call.kwargs] == ["retain_graph", "create_graph"]
    assert sx(call.args) == "[Attribute(Name('a'), 'grad'), ListLit([Name('a'), Name('b')])]"


# ----------------------------------------------------------------------- spans


def _span(node):
    return (node.line, node.column, node.end_line, node.end_column)


def test_span_of_a_name_on_line_3():
    script = parse("import torch\n\ny = 2 * torch.sin(x)\n")
    value = script.body[1].value
    name = value.right.args[0]
    assert (name.id, _span(name)) == ("x", (3, 19, 3, 20))
    assert _span(value.right) == (3, 9, 3, 21)
    assert _span(value) == (3, 5, 3, 21)
    assert _span(script.body[1]) == (3, 1, 3, 21)


def test_spans_of_blocks_and_parentheses():
    script = parse("for i in range(3):\n    y = (a + b) * c\n")
    loop = script.body[0]
    assert _span(loop) == (1, 1, 2, 20)
    product = loop.body[0].value
    assert _span(product) == (2, 9, 2, 20)
    assert _span(product.left) == (2, 9, 2, 16)  # the parentheses belong to the sum
    assert _span(script) == (1, 1, 2, 20)


def test_every_node_has_a_span():
    script = parse(_SAMPLE)
    pending = [script]
    while pending:
        node = pending.pop()
        if isinstance(node, (list, tuple)):
            pending.extend(node)
        elif isinstance(node, ast.Node):
            assert node.line >= 1 and node.column >= 1, node
            assert (node.end_line, node.end_column) > (node.line, node.column), node
            pending.extend(getattr(node, f) for f in ast.fields(node))


_SAMPLE = """\
import torch
from torch import autograd as ag
a = torch.tensor(1., requires_grad=True); v = [1, 2.5, .5]
with torch.no_grad():
    b = -a^2 if a is not None else a[..., 0:2:1]
for i, t in [(1, a), (2, b)]:
    if i > 1 and not t: continue
    elif i: break
    else: pass
def f(x, k=2):
    while x: x -= 1
    return [y * k for y in x if y]
try:
    f(a)[0].grad.zero_()
except Exception as e:
    print('failed:', e, sep='\\n')
"""


# ------------------------------------------------------------------ the seeds


def _seed_files():
    return sorted(SEEDS.glob("*.py"))


@pytest.mark.parametrize("path", _seed_files(), ids=lambda p: p.name)
def test_seed_parses_with_python_statement_spans(path):
    text = path.read_text()
    mine = parse(text, filename=str(path))

    def walk(body):
        for stmt in body:
            yield stmt
            for name in ("body", "orelse", "finalbody"):
                yield from walk(getattr(stmt, name, None) or [])
            for handler in getattr(stmt, "handlers", None) or []:
                yield from walk(handler.body)

    theirs = [
        (s.lineno, s.col_offset + 1, s.end_lineno, s.end_col_offset + 1) for s in walk(pyast.parse(text).body)
    ]
    assert [_span(s) for s in walk(mine.body)] == theirs


# ---------------------------------------------------------------------- errors

ERRORS = [
    # source, line, column, type, message
    ("x = )", 1, 5, "SyntaxError", "unmatched ')'"),
    ("x = f(1))", 1, 9, "SyntaxError", "unmatched ')'"),
    ("y = (1 + 2", 1, 5, "SyntaxError", "unexpected end of input — a '(' is not closed"),
    (
        "x = [1, 2\ny = 3\n",
        2,
        1,
        "SyntaxError",
        "unexpected 'y' — expected an operator, ',' or ']' (the '[' on line 1 is not closed)",
    ),
    ("x = (1, 2]", 1, 10, "SyntaxError", "closing ']' does not match opening '('"),
    ("x = $", 1, 5, "SyntaxError", "invalid character '$'"),
    ("x = 1 +\n", 1, 8, "SyntaxError", "unexpected end of line — expected an expression"),
    ("x = f(,)", 1, 7, "SyntaxError", "unexpected ',' — expected an expression or ')'"),
    ("x = 1 2", 1, 7, "SyntaxError", "unexpected '2' — expected an operator or end of line"),
    ("print(a b)", 1, 9, "SyntaxError", "unexpected 'b' — expected an operator, ',', ')' or '='"),
    ("with torch.no_grad()\n    y = 1\n", 1, 21, "SyntaxError", "expected ':' after 'with ...'"),
    ("for i in range(3)\n  x = 1\n", 1, 18, "SyntaxError", "expected ':' after 'for ...'"),
    ("if a:\n  x = 1\nelse\n  x = 2\n", 3, 5, "SyntaxError", "expected ':' after 'else'"),
    (
        "for i in range(3):\nx = 1\n",
        2,
        1,
        "IndentationError",
        "expected an indented block after 'for' statement on line 1",
    ),
    (
        "def f():\n",
        1,
        9,
        "IndentationError",
        "expected an indented block after function definition on line 1",
    ),
    ("x = 1\n    y = 2\n", 2, 5, "IndentationError", "unexpected indent"),
    ("  x = 1\n", 1, 3, "IndentationError", "unexpected indent"),
    (
        "if x:\n    y = 1\n  z = 2\n",
        3,
        3,
        "IndentationError",
        "unindent does not match any outer indentation level",
    ),
    ("try:\n  x = 1\ny = 2\n", 3, 1, "SyntaxError", "unexpected 'y' — expected 'except' or 'finally'"),
    ("if x = 1:\n  pass\n", 1, 6, "SyntaxError", "unexpected '=' — expected ':' (use '==' to compare)"),
    ("x = 'abc", 1, 5, "SyntaxError", "unterminated string literal"),
    ("x = '''abc", 1, 5, "SyntaxError", "unterminated triple-quoted string literal"),
    ("x = b'a'", 1, 5, "SyntaxError", "bytes literals are not supported"),
    ("x = f'{a'", 1, 5, "SyntaxError", "f-string: expecting '}'"),
    ("x = {1: 2, 3}", 1, 13, "SyntaxError", "unexpected '}' — expected ':'"),
    ("x = a if b", 1, 11, "SyntaxError", "unexpected end of line — expected 'else'"),
    ("x = yield 1", 1, 5, "SyntaxError", "'yield' is not supported in diffcli scripts"),
    ("1 = x", 1, 1, "SyntaxError", "cannot assign to a literal"),
    ("f() = 3", 1, 1, "SyntaxError", "cannot assign to a function call"),
    ("a, b + 1 = t", 1, 4, "SyntaxError", "cannot assign to an expression"),
    ("(a, b) += 1", 1, 1, "SyntaxError", "cannot use '+=' on a tuple"),
    ("f(x=1, 2)", 1, 8, "SyntaxError", "positional argument follows keyword argument"),
    ("f(a.b=1)", 1, 3, "SyntaxError", "a keyword argument must be a name (use '==' to compare)"),
    ("def f(x=1, y): pass", 1, 12, "SyntaxError", "a parameter without a default follows one with a default"),
    ("return 1", 1, 1, "SyntaxError", "'return' outside function"),
    ("for i in x:\n  def f():\n    break\n", 3, 5, "SyntaxError", "'break' outside loop"),
    ("else:\n  x = 1\n", 1, 1, "SyntaxError", "unexpected 'else'"),
    ("x = 1;;", 1, 7, "SyntaxError", "unexpected ';'"),
    ("import", 1, 7, "SyntaxError", "unexpected end of line — expected a name"),
    ("x = \x00", 1, 5, "SyntaxError", "source code cannot contain null bytes"),
    ("x = \x07", 1, 5, "SyntaxError", "invalid non-printable character U+0007"),
    ("x = 1 \\ 2", 1, 7, "SyntaxError", "unexpected character after line continuation character '\\'"),
    ("x = '\\x4'", 1, 5, "SyntaxError", "truncated \\x escape in string"),
    ("x = " + "9" * 5000, 1, 5, "SyntaxError", "number literal too long"),
    (b"x = 1\ny = \xff\n", 2, 5, "SyntaxError", "invalid UTF-8 byte 0xff"),
    (
        "x = " + "(" * 300 + "1" + ")" * 300,
        1,
        205,
        "SyntaxError",
        "expression nested too deeply (more than 200 brackets)",
    ),
]


@pytest.mark.parametrize(
    "src, line, column, type_name, message", ERRORS, ids=[repr(row[0])[:30] for row in ERRORS]
)
def test_error_position_type_and_message(src, line, column, type_name, message):
    err = syntax_error(src)
    assert (err.line, err.column, err.type_name, err.message) == (line, column, type_name, message)
    assert str(err) == message


def test_error_carries_the_filename():
    assert syntax_error("x = )").filename == "<script>"
    with pytest.raises(ScriptSyntaxError) as info:
        parse("x = )", filename="demo.txt")
    assert info.value.filename == "demo.txt"


def test_deep_nesting_without_brackets_parses():
    for src in (
        "x = " + "-" * 50_000 + "1",
        "x = " + "not " * 20_000 + "a",
        "x = " + "2^" * 20_000 + "2",
        "x = " + "1+" * 50_000 + "1",
    ):
        assert isinstance(parse(src).body[0], ast.Assign)


@pytest.mark.parametrize(
    "src",
    [
        "x = " + "(" * 10_000 + "1" + ")" * 10_000,
        "x = " + "[" * 10_000,
        "x = " + "a" * 1_000_000,
        "x = '" + "a" * 1_000_000 + "'",
        "x = '" + "a" * 1_000_000,
        "# " + "c" * 1_000_000 + "\nx = 1",
        "$" * 1_000_000,
        "x = 1" + " " * 1_000_000 + ";" * 1000,
        "\x00" * 1000,
    ],
    ids=[
        "10k parens",
        "10k open brackets",
        "1MB name",
        "1MB string",
        "1MB unterminated string",
        "1MB comment",
        "1MB dollars",
        "1MB blanks",
        "NULs",
    ],
)
def test_huge_and_hostile_inputs_fail_cleanly(src):
    start = time.perf_counter()
    try:
        parse(src)
    except ScriptSyntaxError as err:
        assert err.line >= 1 and err.column >= 1
    assert time.perf_counter() - start < 20


_MUTATION_PIECES = [
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    ";",
    "=",
    "\n",
    "\n    ",
    "\t",
    " ",
    "'",
    '"',
    "\\",
    "#",
    ".",
    "^",
    "**",
    "-",
    "not ",
    " in ",
    "if ",
    "else",
    "for ",
    "with ",
    "def ",
    "return",
    "...",
    "1e",
    "é",
    "\x00",
    "\r",
    "{",
    "@",
    "lambda",
]


def _mutants(rng: random.Random, texts: list[str], count: int):
    for _ in range(count):
        chars = list(rng.choice(texts))
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(chars) + 1)
            action = rng.random()
            if action < 0.4 and chars:
                del chars[at : at + rng.randint(1, 3)]
            elif action < 0.8:
                chars[at:at] = rng.choice(_MUTATION_PIECES)
            else:
                chars[at:at] = chars[rng.randrange(len(chars) or 1) :][:5]
        yield "".join(chars)


def _only_script_syntax_errors(src) -> None:
    try:
        script = parse(src)
    except ScriptSyntaxError as err:
        assert isinstance(err.line, int) and isinstance(err.column, int)
        assert err.line >= 1 and err.column >= 1 and err.message
    else:
        assert isinstance(script, ast.Script)


def test_fuzz_random_bytes_give_only_script_syntax_errors():
    rng = random.Random(20241130)
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(120)))
        _only_script_syntax_errors(data)
        _only_script_syntax_errors(data.decode("latin-1"))


def test_fuzz_mutated_scripts_give_only_script_syntax_errors():
    texts = [path.read_text() for path in _seed_files()] + [_SAMPLE]
    for src in _mutants(random.Random(7), texts, 300):
        _only_script_syntax_errors(src)


# -------------------------------------------------------------- the machinery


def test_grammar_is_conflict_free(caplog):
    from lark import Lark, logger

    level = logger.level
    logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            Lark(
                parse_module.lark_grammar(),
                parser="lalr",
                lexer="basic",
                debug=True,
                postlex=larkparse._Indenter(),
                keep_all_tokens=True,
                maybe_placeholders=False,
            )
    finally:
        logger.setLevel(level)
    assert not [r for r in caplog.records if "conflict" in r.getMessage().lower()]


def test_lark_is_built_without_a_cache_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    parser = larkparse._Parser()
    assert parser.lark.options.cache is False
    assert parser.lark.parse(_SAMPLE).body == parse(_SAMPLE).body
    assert list(tmp_path.iterdir()) == []


def test_parse_speed_smoke():
    text = "".join(f"x{i} = a + b*c - sin((0.5*y^2-1)/2-0.1)\n" for i in range(5000))
    start = time.perf_counter()
    assert len(parse(text).body) == 5000
    assert time.perf_counter() - start < 15  # about 0.6 s on a slow machine
