"""The expressions of a script: names, operators (with the size caps checked before an
operation builds something big), comparisons, comprehensions, indexing and f-strings
(attribute access: `attributes.py`). A mixin of `Interpreter`."""

from __future__ import annotations

import operator

import numpy as np

from ..engine.tensor import Size, Tensor
from . import (
    ast,
    callargs,
    cappedbuiltins,
    formatting,
    freevars,
    pydict,
)
from .errors import ScriptError
from .estimates import _SEQUENCES, _TUPLES, _check_int_size, _length, growth_estimate
from .flow import script_error
from .limits import MEMORY_CHECK_ELEMENTS
from .lookups import names_in_reach
from .objects import Instance
from .parse import ScriptSyntaxError, parse
from .suggest import name_hint
from .values import (
    type_name,
)
from .variables import variable

# the classes `eval` tests first, as module globals
_Name, _Num, _BinOp, _Call = ast.Name, ast.Num, ast.BinOp, ast.Call
_Attribute, _UnaryOp, _Not, _IfExp, _Subscript, _BoolOp = (
    ast.Attribute,
    ast.UnaryOp,
    ast.Not,
    ast.IfExp,
    ast.Subscript,
    ast.BoolOp,
)

_BINOPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "@": operator.matmul,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
}
_CMPOPS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def _constant(e, scope):
    return e.value


def _ellipsis(e, scope):
    return Ellipsis


def _starred(e, scope):
    raise ScriptError("SyntaxError", "can't use starred expression here", e.line, e.column)


class Expressions:
    # --- expressions ------------------------------------------------------------------
    def eval(self, e, scope):
        kind = e.__class__
        if kind is _Name:
            name = e.id
            if name in scope:
                return scope[name]
            return self.lookup(e, scope)
        if kind is _Num:
            return e.value
        if kind is _BinOp:
            return self.eval_binop(e, scope)
        if kind is _Call:
            return self.call(e, scope)
        # shapes that can nest thousands deep without brackets (`a.b.c...`, `- - x`,
        # `not not x`, `a if p else b if q else ...`) cost one frame a level, as before
        if kind is _Attribute:
            return self.attribute(self.eval(e.obj, scope), e)
        if kind is _UnaryOp:
            chain = []  # `- - - ... x`, iteratively
            while e.__class__ is _UnaryOp:
                chain.append(e)
                e = e.operand
            v = self.eval_binop(e, scope) if e.__class__ is _BinOp else self.eval(e, scope)
            for node in reversed(chain):
                v = self.unary(node, v)
            return v
        if kind is _Not:
            return not self.truth(self.eval(e.operand, scope), e)
        if kind is _IfExp:
            return self.eval(e.body if self.truth(self.eval(e.test, scope), e.test) else e.orelse, scope)
        if kind is _Subscript:
            obj = self.eval(e.obj, scope)
            key = self.eval_index(e.index, scope)
            if isinstance(obj, (Tensor, list, tuple, Size, str, range, dict, Instance, np.ndarray)):
                return self.guard(e, lambda: obj[key])
            raise ScriptError(
                "TypeError", f"'{type_name(obj)}' object is not subscriptable", e.line, e.column
            )
        if kind is _BoolOp:
            v = None
            for item in e.values:
                v = self.eval(item, scope)
                t = self.truth(v, item)
                if (e.op == "and" and not t) or (e.op == "or" and t):
                    return v
            return v
        evaluate = self._expressions.get(kind)
        if evaluate is None:
            raise ScriptError("SyntaxError", f"unsupported expression {kind.__name__}", e.line, e.column)
        return evaluate(e, scope)

    def _expression_table(self):
        """Expression class -> the bound method that evaluates it, for the classes `eval`
        does not test itself (built once per interpreter)."""
        return {
            ast.Str: _constant,
            ast.Const: _constant,
            ast.FString: self.fstring,
            ast.ListLit: self.eval_list,
            ast.TupleLit: self.eval_tuple,
            ast.Compare: self.compare,
            ast.ListComp: self.listcomp,
            ast.EllipsisLit: _ellipsis,
            ast.Slice: self.eval_index,
            ast.GeneratorExp: self.listcomp,
            ast.Lambda: self.make_lambda,
            ast.DictLit: self.eval_dict,
            ast.DictComp: self.eval_dict_comp,
            ast.StarCall: self.star_call,
            ast.Starred: _starred,
            ast.SetLit: self.eval_set,
            ast.SetComp: self.eval_set_comp,
        }

    def eval_binop(self, e, scope):
        left = e.left
        right = e.right
        if left.__class__ is not _BinOp:
            # one operator, as in `x * 0.999`: operands read without a call where possible
            if left.__class__ is _Name and left.id in scope:
                left = scope[left.id]
            elif left.__class__ is _Call:
                left = self.call(left, scope)
            else:
                left = self.eval(left, scope)
            if right.__class__ is _Num:
                right = right.value
            elif right.__class__ is _Name and right.id in scope:
                right = scope[right.id]
            elif right.__class__ is _BinOp:
                right = self.eval_binop(right, scope)  # `a ** b ** c ...`: one frame a level
            else:
                right = self.eval(right, scope)
            return self.binop(e.op, left, right, e)
        # a long left-associative chain (`1 + 1 + ... + 1` on a 1 MB line) is walked
        # with a loop, not recursion
        chain = [e]
        e = left
        while e.__class__ is _BinOp:
            chain.append(e)
            e = e.left
        left = self.eval(e, scope)
        for node in reversed(chain):
            left = self.binop(node.op, left, self.eval(node.right, scope), node)
        return left

    def eval_list(self, e, scope):
        if callargs.has_starred(e.items):
            return callargs.expand(self, e.items, scope, "list")
        return [self.eval(i, scope) for i in e.items]

    def eval_tuple(self, e, scope):
        if callargs.has_starred(e.items):
            return tuple(callargs.expand(self, e.items, scope, "tuple"))
        return tuple(self.eval(i, scope) for i in e.items)

    def make_lambda(self, e, scope):
        return callargs.make_lambda(self, e, scope)

    def eval_dict(self, e, scope):
        return pydict.eval_dict(self, e, scope)

    def eval_dict_comp(self, e, scope):
        return pydict.eval_dict_comp(self, e, scope)

    def eval_set(self, e, scope):
        return pydict.eval_set(self, e, scope)

    def eval_set_comp(self, e, scope):
        return pydict.eval_set_comp(self, e, scope)

    def star_call(self, e, scope):
        return callargs.star_call(self, e, scope)

    def unary(self, node, v):
        if node.op == "-":
            return self.guard(node, lambda: -v)
        if node.op == "~":
            return self.guard(node, lambda: ~v)
        if node.op == "+":
            return self.guard(node, lambda: +v)
        return v

    def fstring(self, e, scope):
        """f"...{expr!c:spec}...": each field's expression is parsed once, then evaluated
        in the current scope and formatted with Python's format() (no attribute access)."""
        out = []
        for part in e.parts:
            if part.__class__ is str:
                out.append(part)
                continue
            expr = self._fields.get(part.expr)
            if expr is None:
                expr = self._fields[part.expr] = self._parse_field(part)
            value = self.eval(expr, scope)
            out.append(
                self.guard(
                    part,
                    lambda: formatting.format_field(
                        value, part.conversion, part.spec or "", self.builtin_names, self.limits.max_elements
                    ),
                )
            )
        text = self.guard(e, lambda: formatting.joined(out, self.limits.max_elements))
        if len(text) >= MEMORY_CHECK_ELEMENTS:
            self.checkpoint(e)
        return text

    def _parse_field(self, part):
        try:
            script = parse(part.expr)
        except ScriptSyntaxError as err:
            raise ScriptError("SyntaxError", f"f-string: {err.message}", part.line, part.column) from None
        if len(script.body) != 1 or not isinstance(script.body[0], ast.ExprStmt):
            raise ScriptError("SyntaxError", "f-string: expected an expression", part.line, part.column)
        expr = script.body[0].value
        for n in _walk(expr):  # errors inside the field point at the f-string
            n.line, n.column = part.line, part.column
        return expr

    def guard(self, node, fn, callee=None):
        """Run `fn`, turning engine and Python errors into ScriptErrors at `node`."""
        try:
            return fn()
        except Exception as err:
            translated = script_error(err, node, callee)
            if translated is None:
                raise
            raise translated from None

    def truth(self, v, node):
        return self.guard(node, lambda: bool(v))

    def lookup(self, e, scope, called=False):
        name = e.id
        if name in scope:
            return scope[name]
        if scope is not self.env and name in self.env:
            return self.env[name]
        if name in self.builtins:
            return self.builtins[name]
        if name in self.sets and not called:
            self.sets_used.add(name)
            v = self.guard(e, lambda: variable(self.sets[name]))
            self.bind(name, v, self.env)
            return v
        if name == "__name__":  # the script runs as the main module (README "Security")
            return "__main__"
        if self.frames and callargs.assigns(self.frames[-1][0], name):
            raise ScriptError(
                "UnboundLocalError",
                f"cannot access local variable '{name}' where it is not associated with a value",
                e.line,
                e.column,
            )
        suggestion = (
            "" if name.startswith("__") else name_hint(name, names_in_reach(scope, self.env, self.builtins))
        )
        if name.startswith("__"):
            hint = " (names starting with '__' do not exist in diffcli scripts)"
        elif called:
            hint = "" if suggestion else " (diffcli scripts have no such function)"
        else:
            hint = freevars.missing_hint(name, self.script, self.builtins, self.sets)
        err = ScriptError("NameError", f"name '{name}' is not defined{hint}{suggestion}", e.line, e.column)
        if self.literal_variables is False:  # PyTorch flavour: str(e) of a caught one is Python's
            err.py_text = f"name '{name}' is not defined"
        raise err

    def binop(self, op, left, right, node):
        lt, rt = left.__class__, right.__class__
        if lt is Tensor or rt is Tensor or isinstance(left, Tensor) or isinstance(right, Tensor):
            # (with one tensor operand the result is no larger than it; a Parameter is a Tensor)
            if lt is rt or isinstance(left, Tensor) and isinstance(right, Tensor):
                self.check_size(
                    growth_estimate(
                        "matmul" if op == "@" else "add", None, (left, right), {}, self.limits.max_elements
                    ),
                    node,
                )
        elif lt in (int, bool) and rt in (int, bool):
            _check_int_size(op, left, right, node)
        elif op == "*" and (lt in _SEQUENCES and rt in (int, bool) or rt in _SEQUENCES and lt in (int, bool)):
            seq, n = (left, right) if lt in _SEQUENCES else (right, left)
            self.check_sequence(len(seq) * max(n, 0), seq.__class__, node, _item_bytes(seq))
        elif op == "+" and lt in _SEQUENCES and (rt is lt or lt in _TUPLES and rt in _TUPLES):
            self.check_sequence(len(left) + len(right), lt, node, max(_item_bytes(left), _item_bytes(right)))
        elif op == "%" and lt is str:
            text = self.guard(
                node, lambda: formatting.percent(left, right, self.builtin_names, self.limits.max_elements)
            )
            if len(text) >= MEMORY_CHECK_ELEMENTS:
                self.checkpoint(node)
            return text
        try:
            result = _BINOPS[op](left, right)
        except Exception as err:
            translated = script_error(err, node)
            if translated is None:
                raise
            raise translated from None
        if result.__class__ is Tensor and result.array.size >= MEMORY_CHECK_ELEMENTS:
            self.check_memory(node)
        return result

    def compare(self, e, scope):
        left = self.eval(e.left, scope)
        right = self.eval(e.right, scope)
        op = e.op
        if op == "is":
            return left is right
        if op == "is not":
            return left is not right
        if op in ("in", "not in"):
            r = self.guard(e, lambda: cappedbuiltins.contains(self, right, left))
            return r if op == "in" else not r
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            self.check_size(growth_estimate("eq", None, (left, right), {}, self.limits.max_elements), e)
        return self.guard(e, lambda: _CMPOPS[op](left, right))

    def listcomp(self, e, scope):
        local = dict(scope) if scope is not self.env else {}
        out = []
        cap = self.limits.max_elements

        def gen(i):
            if i == len(e.generators):
                out.append(self.eval(e.element, _Chain(local, scope)))
                if len(out) > cap:
                    self.check_length(len(out), "list", e)
                return
            g = e.generators[i]
            it = self.eval(g.iter, _Chain(local, scope))
            if isinstance(it, range):
                self.check_iterations(_length(it), g.iter)
            for v in self.iterate(it, g.iter):
                self.tick(g)
                self.assign(g.target, v, local)
                if all(self.truth(self.eval(c, _Chain(local, scope)), c) for c in g.conds):
                    gen(i + 1)

        gen(0)
        return out

    def eval_index(self, idx, scope):
        if isinstance(idx, ast.Slice):
            parts = [None if p is None else self.eval(p, scope) for p in (idx.lo, idx.hi, idx.step)]
            parts = [int(p) if isinstance(p, Tensor) else p for p in parts]
            return slice(*parts)
        if isinstance(idx, ast.TupleLit):
            return tuple(self.eval_index(i, scope) for i in idx.items)
        v = self.eval(idx, scope)
        return v


class _Chain(dict):
    """Scope for comprehensions: local names first, then the enclosing scope."""

    def __init__(self, local, outer):
        super().__init__()
        self.local = local
        self.outer = outer

    def __contains__(self, k):
        return k in self.local or k in self.outer

    def __getitem__(self, k):
        return self.local[k] if k in self.local else self.outer[k]


def _item_bytes(seq):
    """The memory one element of `seq` takes in a list, tuple or string made from it."""
    if seq.__class__ is str:
        return 1 if seq.isascii() else 4
    return 8


def _walk(node):
    """Every AST node under `node` (iterative), for re-positioning f-string fields."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for name in ast.fields(n):
            v = getattr(n, name, None)
            items = v if isinstance(v, list) else [v]
            for x in items:
                if isinstance(x, ast.Node):
                    stack.append(x)
                elif isinstance(x, tuple):
                    stack.extend(y for y in x if isinstance(y, ast.Node))
