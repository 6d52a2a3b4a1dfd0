"""The statements of a script: blocks (where the statement caps are counted), assignment
and binding (where named leaves are counted, overridden and marked for `--wrt`), loops,
`if`, imports and the statements other modules carry out (`def`: `callargs`, `class` and
`with`: `classes`, `raise` and `try`: `exceptions`). A mixin of `Interpreter`."""

from __future__ import annotations

import operator

import numpy as np

from ..engine import errors as engine_errors
from ..engine.node import Node
from ..engine.tensor import Size, Tensor
from . import ast, autograd_ext, callargs, classes, deletion, exceptions, pydict
from .display import TextBudget, display
from .errors import ScriptError
from .estimates import _length
from .flow import Break, Continue, Return
from .limits import CHECK_EVERY
from .nn import StateDict
from .objects import Instance
from .values import ITERABLES, MODULES, TENSOR_SETTABLE, type_name
from .variables import is_literal, literal_value, variable

# the classes `exec_block` and `exec_assign` test first, as module globals
_Assign, _Name, _Num, _BinOp, _Call = ast.Assign, ast.Name, ast.Num, ast.BinOp, ast.Call

_INPLACE = {"+": "__iadd__", "-": "__isub__", "*": "__imul__", "/": "__itruediv__"}
_IN_PLACE = {
    "+": operator.iadd,
    "-": operator.isub,
    "*": operator.imul,
    "/": operator.itruediv,
    "//": operator.ifloordiv,
    "%": operator.imod,
    "**": operator.ipow,
    "@": operator.imatmul,
    "|": operator.ior,
    "&": operator.iand,
}


class Statements:
    def exec_block(self, body, scope):
        # the hot loop of a long script: one counter, one mask test and one attribute store
        # per statement; `try` costs nothing until something raises
        limit = self.limits.max_statements
        statements = self._statements
        for stmt in body:
            n = self.statements = self.statements + 1
            if n > limit:
                raise ScriptError(
                    "LimitError",
                    f"more than {self.limits.max_statements} statements executed "
                    "(raise the cap with --max-statements)",
                    stmt.line,
                    stmt.column,
                )
            if not n & (CHECK_EVERY - 1):
                self.checkpoint(stmt)
            self.line = stmt.line
            try:
                if stmt.__class__ is _Assign:
                    self.exec_assign(stmt, scope)
                else:
                    run = statements.get(stmt.__class__)
                    if run is None:
                        raise ScriptError(
                            "SyntaxError",
                            f"unsupported statement {type(stmt).__name__}",
                            stmt.line,
                            stmt.column,
                        )
                    run(stmt, scope)
            except engine_errors.EngineError as e:
                raise ScriptError(e.type_name, e.message, stmt.line, stmt.column) from None
            except RecursionError:
                raise self._stack_exhausted(stmt) from None

    def _stack_exhausted(self, node):
        """Python's own stack ran out before --max-depth did."""
        if self.depth:
            return ScriptError(
                "RecursionError",
                f"maximum recursion depth exceeded ({self.depth} nested "
                "calls is as deep as diffcli can go; lower --max-depth)",
                node.line,
                node.column,
            )
        return ScriptError("LimitError", "expression nested too deeply", node.line, node.column)

    def _statement_table(self):
        """Statement class -> the bound method that runs it (built once per interpreter)."""
        return {
            ast.Assign: self.exec_assign,
            ast.ExprStmt: self.exec_expr_stmt,
            ast.AugAssign: self.aug_assign,
            ast.With: self.exec_with,
            ast.For: self.exec_for,
            ast.While: self.exec_while,
            ast.If: self.exec_if,
            ast.Try: self.exec_try,
            ast.FuncDef: self.exec_def,
            ast.Return: self.exec_return,
            ast.Import: self.exec_import,
            ast.FromImport: self.exec_from_import,
            ast.Pass: self.exec_pass,
            ast.Delete: self.exec_delete,
            ast.Break: self.exec_break,
            ast.Continue: self.exec_continue,
            ast.Assert: self.exec_assert,
            ast.ClassDef: self.exec_class,
            ast.Raise: self.exec_raise,
        }

    def exec_assign(self, s, scope):
        targets = s.targets
        value = s.value
        if len(targets) == 1 and targets[0].__class__ is _Name:
            name = targets[0].id
            kind = value.__class__
            # the shapes of a long straight-line script first: `y = x * 0.5`, `y = sin(x)`
            if kind is _BinOp:
                left = value.left
                right = value.right
                if left.__class__ is _Name and right.__class__ is _Num and left.id in scope:
                    result = self.binop(value.op, scope[left.id], right.value, value)
                else:
                    result = self.eval_binop(value, scope)
            elif kind is _Call:
                result = self.call(value, scope)
            elif scope is self.env and (self.literal_variables or name in self.sets) and is_literal(value):
                if name in self.sets:
                    self.sets_used.add(name)
                    value = self.sets[name]
                else:
                    value = literal_value(value)
                try:
                    self.bind(name, variable(value), scope)
                except engine_errors.EngineError as e:
                    raise ScriptError(e.type_name, e.message, s.value.line, s.value.column) from None
                except OverflowError as e:  # an int literal past float's range: float(10**400)
                    raise ScriptError("OverflowError", str(e), s.value.line, s.value.column) from None
                return
            else:
                result = self.eval(value, scope)
            self.bind(name, result, scope)
            return
        value = self.eval(value, scope)
        for t in targets:
            self.assign(t, value, scope)

    def exec_expr_stmt(self, s, scope):
        self.eval(s.value, scope)

    def exec_while(self, s, scope):
        while self.truth(self.eval(s.test, scope), s.test):
            self.tick(s)
            if not self.loop_body(s.body, scope):
                break

    def loop_body(self, body, scope) -> bool:
        """One pass of a loop's body; False when it breaks."""
        try:
            self.exec_block(body, scope)
        except Break:
            return False
        except Continue:
            pass
        return True

    def exec_if(self, s, scope):
        if self.truth(self.eval(s.test, scope), s.test):
            self.exec_block(s.body, scope)
        else:
            self.exec_block(s.orelse, scope)

    def exec_def(self, s, scope):
        callargs.make_function(self, s, scope)

    def exec_class(self, s, scope):
        classes.exec_class(self, s, scope)

    def exec_raise(self, s, scope):
        exceptions.exec_raise(self, s, scope)

    def exec_return(self, s, scope):
        raise Return(None if s.value is None else self.eval(s.value, scope))

    def exec_import(self, s, scope):
        for alias in s.names:
            mod = self.module(alias.name, alias)
            if alias.asname:
                scope[alias.asname] = mod
            else:
                top = alias.name.split(".")[0]
                scope[top] = self.module(top, alias)

    def exec_from_import(self, s, scope):
        if s.module == "__future__":  # (the parser checked the features): no effect
            return
        mod = self.module(s.module, s)
        for alias in s.names:
            if alias.name not in mod.members:
                raise ScriptError(
                    "ImportError",
                    f"cannot import name '{alias.name}' from '{s.module}'",
                    alias.line,
                    alias.column,
                )
            scope[alias.asname or alias.name] = mod.members[alias.name]

    def exec_pass(self, s, scope):
        pass

    def exec_delete(self, s, scope):
        for target in s.targets:
            deletion.delete(self, target, scope)

    def exec_assert(self, s, scope):
        if not self.truth(self.eval(s.test, scope), s.test):
            message = (
                ""
                if s.msg is None
                else self.guard(
                    s.msg,
                    lambda: display(
                        self.eval(s.msg, scope), self.builtin_names, TextBudget(self.limits.max_elements)
                    ),
                )
            )
            raise ScriptError("AssertionError", message, s.test.line, s.test.column)

    def exec_break(self, s, scope):
        raise Break()

    def exec_continue(self, s, scope):
        raise Continue()

    def module(self, name, node):
        mod = MODULES.get(name)
        if mod is None:
            raise ScriptError(
                "ModuleNotFoundError",
                f"No module named '{name}' (diffcli scripts can import only "
                f"{', '.join(sorted(MODULES)[:-1])} and {sorted(MODULES)[-1]})",
                node.line,
                node.column,
            )
        return mod

    def can_leave_early(self, loop):
        """Whether a loop's body holds a `break` or `return` (then it may stop early, and its
        length is no reason to refuse it up front). Cached per loop for this run."""
        found = self._leaves_early.get(id(loop))
        if found is None:
            found = self._leaves_early[id(loop)] = _has_break_or_return(loop.body)
        return found

    def exec_with(self, s, scope):
        classes.exec_with(self, s, scope)

    def exec_for(self, s, scope):
        it = self.eval(s.iter, scope)
        if (it.__class__ is range or isinstance(it, Tensor) and it.array.ndim) and not self.can_leave_early(
            s
        ):
            self.check_iterations(_length(it), s.iter)
        for v in self.iterate(it, s.iter):
            self.tick(s)
            self.assign(s.target, v, scope)
            if not self.loop_body(s.body, scope):
                break

    def iterate(self, it, node):
        """The items of a value a script loops over; errors (a 0-d tensor, an int...) are
        ScriptErrors at `node`, also when they happen mid-way (inside zip, enumerate)."""
        if isinstance(it, Tensor):
            tensor = it
            if not tensor.array.ndim:
                raise ScriptError("TypeError", "iteration over a 0-d tensor", node.line, node.column)
            it = iter(tensor)  # UnbindBackward0 views, as PyTorch's __iter__ gives
        elif not isinstance(it, ITERABLES):
            raise ScriptError(
                "TypeError", f"'{type_name(it)}' object is not iterable", node.line, node.column
            )
        items = self.guard(node, lambda: iter(it))  # (a script class's __iter__ may fail)
        end = object()
        while True:
            v = self.guard(node, lambda: next(items, end))
            if v is end:
                return
            yield v

    def exec_try(self, s, scope):
        exceptions.exec_try(self, s, scope)

    # --- binding -------------------------------------------------------------------
    def bind(self, name, value, scope):
        if scope is self.env:
            self.order[name] = None  # (a name bound again keeps its place)
            self.last_assigned = name
            if isinstance(value, Tensor):
                names = self.names
                key = id(value)
                new = key not in names
                if new and value.grad_fn is None:
                    # a new leaf (not `y = a` naming an old one): count it, maybe override it
                    k = self.leaf_index[name] = self.leaf_index.get(name, -1) + 1
                    if name in self.overrides and self.overrides[name][0] == k:
                        value.array = self.overrides[name][1].astype(value.array.dtype)
                if name in self.wrt and value.grad_fn is None and value.array.dtype.kind == "f":
                    value.needs_grad = True
                if new:
                    names[key] = name
                    self._keep.append(value)
        scope[name] = value

    def assign(self, target, value, scope):
        kind = type(target)
        if kind is ast.Name:
            self.bind(target.id, value, scope)
        elif kind in (ast.TupleLit, ast.ListLit):
            if callargs.has_starred(target.items):
                return callargs.unpack_starred(self, target, value, scope)
            want = len(target.items)
            if not isinstance(value, ITERABLES):
                raise ScriptError(
                    "TypeError",
                    f"cannot unpack non-iterable {type_name(value)} object",
                    target.line,
                    target.column,
                )
            if isinstance(value, Tensor) and not value.array.ndim:
                raise ScriptError("TypeError", "iteration over a 0-d tensor", target.line, target.column)
            if isinstance(value, (Tensor, list, tuple, range, Size, str)) and _length(value) != want:
                values, got = (), _length(value)  # said before any row of a tensor is made
            else:
                values = []
                for v in self.iterate(value, target):  # at most one more than wanted: no huge lists
                    values.append(v)
                    if len(values) > want:
                        break
                got = len(values)
            if got != want:
                raise ScriptError(
                    "ValueError",
                    f"too many values to unpack (expected {want})"
                    if got > want
                    else f"not enough values to unpack (expected {want}, got {got})",
                    target.line,
                    target.column,
                )
            for t, v in zip(target.items, values):
                self.assign(t, v, scope)
        elif kind is ast.Subscript:
            obj = self.eval(target.obj, scope)
            key = self.eval_index(target.index, scope)
            if isinstance(obj, (Tensor, np.ndarray)):
                self.guard(target, lambda: obj.__setitem__(key, value))
            elif isinstance(obj, list):
                if isinstance(key, slice) and isinstance(value, (list, tuple, str, range, Size)):
                    self.check_sequence(len(obj) + _length(value), list, target)
                self.guard(target, lambda: obj.__setitem__(key, value))
            elif obj.__class__ is dict or obj.__class__ is StateDict:
                pydict.setitem(self, obj, key, value, target)
            elif isinstance(obj, Instance):  # the script class's __setitem__ (or Python's error)
                self.guard(target, lambda: operator.setitem(obj, key, value))
            else:
                raise ScriptError(
                    "TypeError",
                    f"'{type_name(obj)}' object does not support item assignment",
                    target.line,
                    target.column,
                )
        elif kind is ast.Attribute:
            obj = self.eval(target.obj, scope)
            if isinstance(obj, Tensor) and target.name in TENSOR_SETTABLE:
                # PyTorch's checks, until the engine's setters make them (Tensor.data accepts a
                # Python int and stores an object array that then cannot print)
                if target.name == "data" and not isinstance(value, Tensor):
                    raise ScriptError(
                        "TypeError",
                        f"Variable data has to be a tensor, but got {type_name(value)}",
                        target.line,
                        target.column,
                    )
                if target.name == "requires_grad" and not isinstance(value, bool):
                    raise ScriptError(
                        "RuntimeError", "requires_grad must be a bool", target.line, target.column
                    )
                self.guard(target, lambda: setattr(obj, target.name, value))
            elif isinstance(obj, classes.SETTABLE):
                self.guard(target, lambda: classes.set_attribute(self, obj, target, value))
            elif isinstance(obj, Node):  # a custom Function's ctx
                autograd_ext.set_attribute(self, obj, target, value)
            else:
                raise ScriptError(
                    "AttributeError",
                    f"cannot set attribute '{target.name}' of '{type_name(obj)}' object",
                    target.line,
                    target.column,
                )
        else:
            raise ScriptError("SyntaxError", "cannot assign to expression", target.line, target.column)

    def aug_assign(self, s, scope):
        t = s.target
        cur = self.eval(t, scope)
        rhs = self.eval(s.value, scope)
        if isinstance(cur, Tensor) and s.op in _INPLACE:
            new = self.guard(s, lambda: getattr(cur, _INPLACE[s.op])(rhs))
            if isinstance(t, ast.Subscript):
                self.assign(t, new, scope)
            return
        if isinstance(cur, (list, dict, set, Instance)) and s.op in _IN_PLACE:  # `xs += [1]` extends xs
            if cur.__class__ is list and s.op in "+*":
                self.check_length(
                    len(cur) * (rhs if s.op == "*" and isinstance(rhs, int) else 1)
                    + (len(rhs) if s.op == "+" and hasattr(rhs, "__len__") else 0),
                    "list",
                    s,
                )
            new = self.guard(s, lambda: _IN_PLACE[s.op](cur, rhs))
        else:
            new = self.binop(s.op, cur, rhs, s)
        self.assign(t, new, scope)


def _has_break_or_return(body):
    """Whether statements hold a `break` or `return` (outside nested `def`s)."""
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.Break, ast.Return)):
            return True
        if isinstance(n, ast.Node) and not isinstance(n, ast.FuncDef):
            for f in ast.fields(n):
                v = getattr(n, f)
                if isinstance(v, list):
                    stack.extend(x for x in v if isinstance(x, (ast.Stmt, ast.ExceptHandler)))
                elif isinstance(v, ast.Stmt):
                    stack.append(v)
    return False
