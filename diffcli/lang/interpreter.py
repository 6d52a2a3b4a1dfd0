"""Evaluates a parsed script on the engine.

The interpreter walks the AST (`lang.ast`), resolving names in the script's variables,
then the builtins, then the op table. It never uses Python's eval/exec, and reaches
attributes only through the whitelists in `values.py` (dunder names: the audited list in
`dunders.py`; a script's own classes and objects: `classes.py`). The Python beyond
expressions lives in modules of its own: `callargs` (functions, arguments, unpacking),
`classes`/`objects` (classes), `exceptions` (raise/try), `pydict` (dicts, sets),
`pybuiltins`, `pymethods`, `signatures` (PyTorch's keyword names). Engine errors are re-raised as
`ScriptError` with the position of the expression that failed.
"""
from __future__ import annotations

import gc
import math
import operator
import re
from types import BuiltinFunctionType, FunctionType, MethodType

from .. import engine
from ..engine import dtypes
from ..engine import errors as engine_errors
from ..engine import function as engine_function
from ..engine.node import Node
from ..engine.ops import creation, reductions
from ..engine.tensor import Size, Tensor
from . import ast as A
from . import (
    callargs,
    cappedbuiltins,
    classes,
    dunders,
    exceptions,
    formatting,
    freevars,
    printopts,
    pybuiltins,
    pydict,
    pymethods,
    signatures,
)
from . import flavour as flavours
from .callerrors import explain_call_error
from .errors import ScriptError
from .limits import (
    _CATS,
    _SEQUENCES,
    _TUPLES,
    CHECK_EVERY,
    MEMORY_CHECK_ELEMENTS,
    Caps,
    Limits,
    _check_int_size,
    _length,
    growth_estimate,
)
from .lookups import DEVICE_ATTRS, attribute_hint, attribute_position, names_in_reach
from .objects import Instance, ScriptObject
from .suggest import name_hint
from .values import (
    CPU,
    DICT_METHODS,
    ITERABLES,
    LIST_METHODS,
    MODULES,
    NODE_ATTRS,
    SET_METHODS,
    TENSOR_ATTRS,
    TENSOR_METHODS,
    TENSOR_SETTABLE,
    TORCH,
    Device,
    Namespace,
    TextBudget,
    TypeValue,
    UserFunction,
    display,
    require_cpu,
    type_name,
    type_of,
)


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value):
        self.value = value


# the classes `exec_block`, `eval` and `call` test first, as module globals
_Assign, _Name, _Num, _BinOp, _Call = A.Assign, A.Name, A.Num, A.BinOp, A.Call
_Attribute, _UnaryOp, _Not, _IfExp, _Subscript, _BoolOp = (A.Attribute, A.UnaryOp, A.Not, A.IfExp,
                                                           A.Subscript, A.BoolOp)


def _constant(e, scope):
    return e.value


def _ellipsis(e, scope):
    return Ellipsis


def _starred(e, scope):
    raise ScriptError("SyntaxError", "can't use starred expression here", e.line, e.column)


def _script_error(err, node, callee=None):
    """The ScriptError at `node` that a Python or engine error raised by a script's
    operation becomes, or None for errors that pass through unchanged."""
    if isinstance(err, (ScriptError, _Return, _Break, _Continue, RecursionError, OSError)):
        return None                # (OSError: a script does no I/O, so it is the host's output
                                   # stream failing, which the CLI reports as such)
    if isinstance(err, engine_errors.EngineError):
        return ScriptError(err.type_name, err.message, node.line, node.column)
    if isinstance(err, MemoryError):
        return ScriptError("MemoryError", "out of memory (lower tensor sizes or --max-elements)",
                           node.line, node.column)
    message = str(err)             # Python-level errors of the script (bad args, 1/0...)
    if callee:  # `_make.<locals>.op() takes 1 positional argument` -> `sin() takes ...`
        message = _QUALIFIED_CALL.sub(f"{callee}()", message, count=1)
    translated = ScriptError(type(err).__name__, message, node.line, node.column)
    translated.py_args = err.args  # (what `except ... as e` gives as e.args)
    return translated


_PLAIN = {}                        # id -> function: the op table's and the modules' functions


def _plain_callables(closures):
    """id -> callable for the functions a call needs no special handling for: plain
    functions of the op table, the modules and the builtins (not backward/grad/retain_grad,
    not list/tuple, not user functions, types or bound methods of tensors), and the
    interpreter's own builtin `closures`."""
    if not _PLAIN:
        for f in (len, *engine.FUNCTIONS.values()):
            _add_plain(_PLAIN, f)
        for mod in MODULES.values():
            for f in mod.members.values():
                _add_plain(_PLAIN, f)
    plain = dict(_PLAIN)
    for f in closures:
        _add_plain(plain, f)
    return plain


def _add_plain(table, f):
    if f.__class__ in (FunctionType, BuiltinFunctionType) and f is not engine.backward \
            and f is not engine.grad and getattr(f, "__name__", "") not in ("backward", "retain_grad") \
            and not isinstance(getattr(f, "__self__", None), Tensor):
        table[id(f)] = f


_BINOPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
           "@": operator.matmul, "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
           "&": operator.and_, "|": operator.or_}
_CMPOPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
           "==": operator.eq, "!=": operator.ne}
_INPLACE = {"+": "__iadd__", "-": "__isub__", "*": "__imul__", "/": "__itruediv__"}
_IN_PLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul, "/": operator.itruediv,
             "//": operator.ifloordiv, "%": operator.imod, "**": operator.ipow, "@": operator.imatmul,
             "|": operator.ior, "&": operator.iand}


def is_literal(node) -> bool:
    """A bare number or (nested) list of numbers: what makes a name a variable in the math
    flavour (and what --set may give)."""
    if isinstance(node, A.Num):
        return True
    if isinstance(node, A.UnaryOp) and node.op in "+-":
        return isinstance(node.operand, A.Num)
    if isinstance(node, A.ListLit):
        return bool(node.items) and all(is_literal(i) for i in node.items)
    return False


def literal_value(node):
    if isinstance(node, A.Num):
        return node.value
    if isinstance(node, A.UnaryOp):
        v = literal_value(node.operand)
        return -v if node.op == "-" else v
    return [literal_value(i) for i in node.items]


def variable(value) -> Tensor:
    """A script variable: a leaf of the default float dtype that requires grad."""
    return creation.tensor(_floats(value), requires_grad=True)


def _floats(v):
    if isinstance(v, list):
        return [_floats(e) for e in v]
    return float(v)


class RunResult:
    def __init__(self, interp):
        self.env = interp.env
        self.order = list(interp.order)
        self.names = interp.names
        self.called_backward = interp.called_backward
        self.last_assigned = interp.last_assigned
        self.retained = [(n, t) for n, t in interp.retained]
        self.trace = interp.trace
        self.leaf_index = dict(interp.leaf_index)
        self.sets_used = interp.sets_used
        self.flavour = interp.flavour
        self.defaults = interp.defaults    # the dtype settings in force when the run ended


class Interpreter(Caps):
    def __init__(self, *, sets=None, write=print, warn=None, limits=None, wrt=(), trace=False,
                 flavour=None, default_dtype=None):
        self.sets = dict(sets or {})
        self.sets_used = set()         # the --set names the script read or assigned
        # flavours.PYTORCH or MATH; None: the script's own (decided when it runs).
        # `default_dtype` (a numpy float dtype) overrides the flavour's default dtype (check
        # runs in float64); random constructors still draw the flavour's numbers
        self.flavour = flavour
        self.default_dtype = default_dtype
        self.defaults = dtypes.defaults()
        self.literal_variables = flavour != flavours.PYTORCH   # `a = 1.5` makes a variable
        self.write = write
        self.warn = warn
        self.limits = limits or Limits()
        self.wrt = set(wrt)
        self.env: dict = {}
        self.order: dict = {}
        self.names: dict = {}          # id(tensor) -> first script name bound to it
        self._keep = []                # keeps named tensors alive so ids stay unique
        self.called_backward = False
        self.last_assigned = None
        self.retained = []
        self.iterations = 0
        self.statements = 0
        self.depth = 0
        self.line = 0
        self.trace = [] if trace else None
        self.script = None
        self._warned = set()
        self._fields = {}              # f-string field text -> parsed expression
        self.overrides = {}            # name -> (k, ndarray): the value of the k-th leaf bound to
        self._leaves_early = {}        # id(For node) -> its body can break/return
        self.retain_graphs = False     # the script's own backward()/grad() keep the graph
        self.leaf_index = {}           # name, replaced (finite differences); name -> that k now
        self.frames, self.handling, self.ids = [], [], {}   # calls, errors being handled, id()s
        self.builtins = self._builtins()    # (and self._plain)
        self._statements = self._statement_table()
        self._expressions = self._expression_table()

    # --- entry -------------------------------------------------------------------
    def run(self, script: A.Script) -> RunResult:
        self.script = script               # (the free-variable error lists all of its free names)
        self.flavour = self.flavour or flavours.of(script)
        self.literal_variables = self.flavour == flavours.MATH
        creation.MAX_ELEMENTS[0] = self.limits.max_elements
        creation.manual_seed(0)            # reproducible unless the script seeds itself
        printopts.reset()                  # torch.set_printoptions lasts for one run
        engine.grad_mode._state[0] = True  # every run starts in grad mode
        prev_sink = engine_errors.set_warning_sink(self._on_warning)
        prev_trace = engine_function.TRACE[0]
        engine_function.TRACE[0] = self.trace
        # The graph makes few reference cycles, but Python's cyclic collector would scan
        # the whole growing graph again and again (over half the time of a long chain).
        # Collect rarely while the script runs; cycles (create_graph) are still freed.
        prev_gc = gc.get_threshold()
        gc.set_threshold(200_000, 50, 1000)
        prev_defaults = dtypes.use_defaults(flavours.defaults(self.flavour, self.default_dtype))
        try:
            with self.limits.watching():   # starts the clock; backward passes poll the limits
                self.exec_block(script.body, self.env)
        except _Return:
            raise ScriptError("SyntaxError", "'return' outside function", self.line, 1) from None
        except (_Break, _Continue):
            raise ScriptError("SyntaxError", "'break' outside loop", self.line, 1) from None
        finally:
            self.defaults = dtypes.use_defaults(prev_defaults)
            gc.set_threshold(*prev_gc)
            engine_errors.set_warning_sink(prev_sink)
            engine_function.TRACE[0] = prev_trace
        return RunResult(self)

    def close(self):
        """Drop the tables that refer back to the interpreter (the builtins' closures, bound
        methods), so that it, and what its run made, is freed as soon as the caller lets go
        of the result (`check` runs a script thousands of times)."""
        self.builtins = self._plain = self._statements = self._expressions = None

    def _on_warning(self, category, message):
        # Python's default filter: each warning once per source line
        key = (self.line, category, message)
        if self.warn is not None and key not in self._warned:
            self._warned.add(key)
            self.warn(category, message, self.line)

    # --- statements --------------------------------------------------------------
    def exec_block(self, body, scope):
        # the hot loop of a long script: one counter, one mask test and one attribute store
        # per statement; `try` costs nothing until something raises
        limit = self.limits.max_statements
        statements = self._statements
        for stmt in body:
            n = self.statements = self.statements + 1
            if n > limit:
                raise ScriptError("LimitError",
                                  f"more than {self.limits.max_statements} statements executed "
                                  "(raise the cap with --max-statements)", stmt.line, stmt.column)
            if not n & (CHECK_EVERY - 1):
                self.checkpoint(stmt)
            self.line = stmt.line
            try:
                if stmt.__class__ is _Assign:
                    self.exec_assign(stmt, scope)
                else:
                    run = statements.get(stmt.__class__)
                    if run is None:
                        raise ScriptError("SyntaxError", f"unsupported statement {type(stmt).__name__}",
                                          stmt.line, stmt.column)
                    run(stmt, scope)
            except engine_errors.EngineError as e:
                raise ScriptError(e.type_name, e.message, stmt.line, stmt.column) from None
            except RecursionError:
                raise self._stack_exhausted(stmt) from None

    def _stack_exhausted(self, node):
        """Python's own stack ran out before --max-depth did."""
        if self.depth:
            return ScriptError("RecursionError", f"maximum recursion depth exceeded ({self.depth} nested "
                               "calls is as deep as diffcli can go; lower --max-depth)",
                               node.line, node.column)
        return ScriptError("LimitError", "expression nested too deeply", node.line, node.column)

    def _statement_table(self):
        """Statement class -> the bound method that runs it (built once per interpreter)."""
        return {A.Assign: self.exec_assign, A.ExprStmt: self.exec_expr_stmt,
                A.AugAssign: self.aug_assign, A.With: self.exec_with, A.For: self.exec_for,
                A.While: self.exec_while, A.If: self.exec_if, A.Try: self.exec_try,
                A.FuncDef: self.exec_def, A.Return: self.exec_return, A.Import: self.exec_import,
                A.FromImport: self.exec_from_import, A.Pass: self.exec_pass,
                A.Break: self.exec_break, A.Continue: self.exec_continue, A.Assert: self.exec_assert,
                A.ClassDef: self.exec_class, A.Raise: self.exec_raise}

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
        except _Break:
            return False
        except _Continue:
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
        raise _Return(None if s.value is None else self.eval(s.value, scope))

    def exec_import(self, s, scope):
        for alias in s.names:
            mod = self.module(alias.name, alias)
            if alias.asname:
                scope[alias.asname] = mod
            else:
                top = alias.name.split(".")[0]
                scope[top] = self.module(top, alias)

    def exec_from_import(self, s, scope):
        if s.module == "__future__":   # (the parser checked the features): no effect
            return
        mod = self.module(s.module, s)
        for alias in s.names:
            if alias.name not in mod.members:
                raise ScriptError("ImportError", f"cannot import name '{alias.name}' from "
                                  f"'{s.module}'", alias.line, alias.column)
            scope[alias.asname or alias.name] = mod.members[alias.name]

    def exec_pass(self, s, scope):
        pass

    def exec_assert(self, s, scope):
        if not self.truth(self.eval(s.test, scope), s.test):
            message = "" if s.msg is None else self.guard(s.msg, lambda: display(
                self.eval(s.msg, scope), self.builtin_names, TextBudget(self.limits.max_elements)))
            raise ScriptError("AssertionError", message, s.test.line, s.test.column)

    def exec_break(self, s, scope):
        raise _Break()

    def exec_continue(self, s, scope):
        raise _Continue()

    def module(self, name, node):
        mod = MODULES.get(name)
        if mod is None:
            raise ScriptError("ModuleNotFoundError",
                              f"No module named '{name}' (diffcli scripts can import only torch, "
                              "torch.nn.functional, torch.autograd, math, functools and typing)",
                              node.line, node.column)
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
        if (it.__class__ is range or it.__class__ is Tensor and it.data_.ndim) and not self.can_leave_early(s):
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
            if not tensor.data_.ndim:
                raise ScriptError("TypeError", "iteration over a 0-d tensor", node.line, node.column)
            it = iter(tensor)  # UnbindBackward0 views, as PyTorch's __iter__ gives
        elif not isinstance(it, ITERABLES):
            raise ScriptError("TypeError", f"'{type_name(it)}' object is not iterable",
                              node.line, node.column)
        items = self.guard(node, lambda: iter(it))   # (a script class's __iter__ may fail)
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
            self.order[name] = None    # (a name bound again keeps its place)
            self.last_assigned = name
            if isinstance(value, Tensor):
                names = self.names
                key = id(value)
                new = key not in names
                if new and value.grad_fn is None:
                    # a new leaf (not `y = a` naming an old one): count it, maybe override it
                    k = self.leaf_index[name] = self.leaf_index.get(name, -1) + 1
                    if name in self.overrides and self.overrides[name][0] == k:
                        value.data_ = self.overrides[name][1].astype(value.data_.dtype)
                if name in self.wrt and value.grad_fn is None and value.data_.dtype.kind == "f":
                    value.requires_grad_flag = True
                if new:
                    names[key] = name
                    self._keep.append(value)
        scope[name] = value

    def assign(self, target, value, scope):
        kind = type(target)
        if kind is A.Name:
            self.bind(target.id, value, scope)
        elif kind in (A.TupleLit, A.ListLit):
            if callargs.has_starred(target.items):
                return callargs.unpack_starred(self, target, value, scope)
            want = len(target.items)
            if not isinstance(value, ITERABLES):
                raise ScriptError("TypeError", f"cannot unpack non-iterable {type_name(value)} object",
                                  target.line, target.column)
            if isinstance(value, Tensor) and not value.data_.ndim:
                raise ScriptError("TypeError", "iteration over a 0-d tensor", target.line, target.column)
            if isinstance(value, (Tensor, list, tuple, range, Size, str)) and _length(value) != want:
                values, got = (), _length(value)    # said before any row of a tensor is made
            else:
                values = []
                for v in self.iterate(value, target):   # at most one more than wanted: no huge lists
                    values.append(v)
                    if len(values) > want:
                        break
                got = len(values)
            if got != want:
                raise ScriptError("ValueError", f"too many values to unpack (expected {want})" if got > want
                                  else f"not enough values to unpack (expected {want}, got {got})",
                                  target.line, target.column)
            for t, v in zip(target.items, values):
                self.assign(t, v, scope)
        elif kind is A.Subscript:
            obj = self.eval(target.obj, scope)
            key = self.eval_index(target.index, scope)
            if isinstance(obj, Tensor):
                self.guard(target, lambda: obj.__setitem__(key, value))
            elif isinstance(obj, list):
                if isinstance(key, slice) and isinstance(value, (list, tuple, str, range, Size)):
                    self.check_sequence(len(obj) + _length(value), list, target)
                self.guard(target, lambda: obj.__setitem__(key, value))
            elif obj.__class__ is dict:
                pydict.setitem(self, obj, key, value, target)
            elif isinstance(obj, Instance):   # the script class's __setitem__ (or Python's error)
                self.guard(target, lambda: operator.setitem(obj, key, value))
            else:
                raise ScriptError("TypeError", f"'{type_name(obj)}' object does not support item assignment",
                                  target.line, target.column)
        elif kind is A.Attribute:
            obj = self.eval(target.obj, scope)
            if isinstance(obj, Tensor) and target.name in TENSOR_SETTABLE:
                # PyTorch's checks, until the engine's setters make them (Tensor.data accepts a
                # Python int and stores an object array that then cannot print)
                if target.name == "data" and not isinstance(value, Tensor):
                    raise ScriptError("TypeError", "Variable data has to be a tensor, but got "
                                      f"{type_name(value)}", target.line, target.column)
                if target.name == "requires_grad" and not isinstance(value, bool):
                    raise ScriptError("RuntimeError", "requires_grad must be a bool",
                                      target.line, target.column)
                self.guard(target, lambda: setattr(obj, target.name, value))
            elif isinstance(obj, classes.SETTABLE):
                classes.set_attribute(self, obj, target, value)
            else:
                raise ScriptError("AttributeError",
                                  f"cannot set attribute '{target.name}' of '{type_name(obj)}' object",
                                  target.line, target.column)
        else:
            raise ScriptError("SyntaxError", "cannot assign to expression", target.line, target.column)

    def aug_assign(self, s, scope):
        t = s.target
        cur = self.eval(t, scope)
        rhs = self.eval(s.value, scope)
        if isinstance(cur, Tensor) and s.op in _INPLACE:
            new = self.guard(s, lambda: getattr(cur, _INPLACE[s.op])(rhs))
            if isinstance(t, A.Subscript):
                self.assign(t, new, scope)
            return
        if isinstance(cur, (list, dict, set, Instance)) and s.op in _IN_PLACE:   # `xs += [1]` extends xs
            if cur.__class__ is list and s.op in "+*":
                self.check_length(len(cur) * (rhs if s.op == "*" and isinstance(rhs, int) else 1)
                                  + (len(rhs) if s.op == "+" and hasattr(rhs, "__len__") else 0), "list", s)
            new = self.guard(s, lambda: _IN_PLACE[s.op](cur, rhs))
        else:
            new = self.binop(s.op, cur, rhs, s)
        self.assign(t, new, scope)

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
            chain = []                 # `- - - ... x`, iteratively
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
            if isinstance(obj, (Tensor, list, tuple, Size, str, range, dict, Instance)):
                return self.guard(e, lambda: obj[key])
            raise ScriptError("TypeError", f"'{type_name(obj)}' object is not subscriptable",
                              e.line, e.column)
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
        return {A.Str: _constant, A.Const: _constant, A.FString: self.fstring,
                A.ListLit: self.eval_list, A.TupleLit: self.eval_tuple, A.Compare: self.compare,
                A.ListComp: self.listcomp, A.EllipsisLit: _ellipsis, A.Slice: self.eval_index,
                A.GeneratorExp: self.listcomp, A.Lambda: self.make_lambda, A.DictLit: self.eval_dict,
                A.DictComp: self.eval_dict_comp, A.StarCall: self.star_call, A.Starred: _starred,
                A.SetLit: self.eval_set, A.SetComp: self.eval_set_comp}

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
                right = self.eval_binop(right, scope)   # `a ** b ** c ...`: one frame a level
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
            out.append(self.guard(part, lambda: formatting.format_field(
                value, part.conversion, part.spec or "", self.builtin_names, self.limits.max_elements)))
        text = self.guard(e, lambda: formatting.joined(out, self.limits.max_elements))
        if len(text) >= MEMORY_CHECK_ELEMENTS:
            self.checkpoint(e)
        return text

    def _parse_field(self, part):
        from .parse import ScriptSyntaxError, parse
        try:
            script = parse(part.expr)
        except ScriptSyntaxError as err:
            raise ScriptError("SyntaxError", f"f-string: {err.message}", part.line, part.column) from None
        if len(script.body) != 1 or not isinstance(script.body[0], A.ExprStmt):
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
            translated = _script_error(err, node, callee)
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
        if name == "__name__":         # the script runs as the main module (README "Security")
            return "__main__"
        if self.frames and callargs.assigns(self.frames[-1][0], name):
            raise ScriptError("UnboundLocalError", f"cannot access local variable '{name}' where it is not "
                              "associated with a value", e.line, e.column)
        suggestion = "" if name.startswith("__") else name_hint(
            name, names_in_reach(scope, self.env, self.builtins))
        if name.startswith("__"):
            hint = " (names starting with '__' do not exist in diffcli scripts)"
        elif called:
            hint = "" if suggestion else " (diffcli scripts have no such function)"
        else:
            hint = freevars.missing_hint(name, self.script, self.builtins, self.sets)
        raise ScriptError("NameError", f"name '{name}' is not defined{hint}{suggestion}", e.line, e.column)

    def binop(self, op, left, right, node):
        lt, rt = left.__class__, right.__class__
        if lt is Tensor or rt is Tensor:
            if lt is rt:   # (with one tensor operand the result is no larger than it)
                self.check_size(growth_estimate("matmul" if op == "@" else "add", None, (left, right), {},
                                                self.limits.max_elements), node)
        elif lt in (int, bool) and rt in (int, bool):
            _check_int_size(op, left, right, node)
        elif op == "*" and (lt in _SEQUENCES and rt in (int, bool) or rt in _SEQUENCES and lt in (int, bool)):
            seq, n = (left, right) if lt in _SEQUENCES else (right, left)
            self.check_sequence(len(seq) * max(n, 0), seq.__class__, node, _item_bytes(seq))
        elif op == "+" and lt in _SEQUENCES and (rt is lt or lt in _TUPLES and rt in _TUPLES):
            self.check_sequence(len(left) + len(right), lt, node, max(_item_bytes(left), _item_bytes(right)))
        elif op == "%" and lt is str:
            text = self.guard(node, lambda: formatting.percent(left, right, self.builtin_names,
                                                               self.limits.max_elements))
            if len(text) >= MEMORY_CHECK_ELEMENTS:
                self.checkpoint(node)
            return text
        try:
            result = _BINOPS[op](left, right)
        except Exception as err:
            translated = _script_error(err, node)
            if translated is None:
                raise
            raise translated from None
        if result.__class__ is Tensor and result.data_.size >= MEMORY_CHECK_ELEMENTS:
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
        if type(left) is Tensor or type(right) is Tensor:
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
        if isinstance(idx, A.Slice):
            parts = [None if p is None else self.eval(p, scope) for p in (idx.lo, idx.hi, idx.step)]
            parts = [int(p) if isinstance(p, Tensor) else p for p in parts]
            return slice(*parts)
        if isinstance(idx, A.TupleLit):
            return tuple(self.eval_index(i, scope) for i in idx.items)
        v = self.eval(idx, scope)
        return v

    def attribute(self, obj, e):
        name = e.name
        if name.startswith("__"):
            return dunders.read(self, obj, e)   # the audited few, or the refusal
        if isinstance(obj, Tensor):
            if name in _DEVICE_ATTRS:
                return self._device_attribute(obj, name)
            if name in TENSOR_ATTRS:
                if name == "_version":
                    return obj._version[0]
                return self.guard(e, lambda: getattr(obj, name))
            if name in TENSOR_METHODS:
                return getattr(obj, name)
        elif isinstance(obj, (Instance, ScriptObject, classes.ClassValue, classes.ProvidedBase)):
            return classes.attribute(self, obj, e)
        elif obj.__class__ is dict and name in DICT_METHODS:
            return pydict.method(self, obj, name, e)
        elif obj.__class__ in (set, frozenset) and name in SET_METHODS:
            return pydict.set_method(self, obj, name, e)
        elif isinstance(obj, Namespace):
            if name in obj.members:
                return obj.members[name]
            raise ScriptError("AttributeError", f"module '{obj.name}' has no attribute '{name}'"
                              + attribute_hint(obj, name), *attribute_position(e))
        elif isinstance(obj, Node):
            if name == "name":
                return obj.torch_name
            if name in NODE_ATTRS and (name != "variable" or hasattr(obj, "variable")):
                return getattr(obj, name)
        elif isinstance(obj, reductions.ReturnTypes) and name in ("values", "indices"):
            return getattr(obj, name)
        elif isinstance(obj, Size) and name == "numel":
            return obj.numel
        elif isinstance(obj, engine.dtypes.DType) and name == "is_floating_point":
            return obj.is_floating_point
        elif isinstance(obj, Device) and name in ("type", "index"):
            return getattr(obj, name)
        elif obj.__class__ is list and name in LIST_METHODS:
            return pymethods.list_method(self, obj, name, e)
        elif obj.__class__ is str and name == "format":
            return pymethods.str_format(self, obj, e)
        # torch's classes that name their module (`'torch.Size' object has no attribute`)
        of = type_of(obj).qualname if isinstance(obj, (Size, engine.dtypes.DType,
                                                        reductions.ReturnTypes)) else type_name(obj)
        raise ScriptError("AttributeError", f"'{of}' object has no attribute '{name}'"
                          + attribute_hint(obj, name), *attribute_position(e))

    def _device_attribute(self, t, name):
        """`x.device`, `x.is_cuda`, `x.cpu()`, `x.cuda()` and `x.to(...)`, whose device
        arguments must name the CPU."""
        if name == "device":
            return CPU
        if name == "is_cuda":
            return False
        if name == "cpu":                      # bound methods, so they print as methods
            return MethodType(_cpu, t)
        if name == "cuda":
            return MethodType(_cuda, t)

        def to(_tensor, *args, **kwargs):
            if "device" in kwargs:
                require_cpu(kwargs.pop("device"))
            rest = []
            for a in args:
                if isinstance(a, (str, Device)):
                    require_cpu(a)
                else:
                    rest.append(a)
            return t.to(*rest, **kwargs)
        return MethodType(to, t)

    def call(self, e, scope):
        func = e.func
        if func.__class__ is _Name:
            fn = scope[func.id] if func.id in scope else self.lookup(func, scope, called=True)
        else:
            fn = self.eval(func, scope)
        args = [self.eval(a, scope) for a in e.args]
        kwargs = {k: self.eval(v, scope) for k, v in e.kwargs} if e.kwargs else {}
        return self.call_value(fn, args, kwargs, e, func)

    def call_value(self, fn, args, kwargs, e, func=None):
        """Call the value `fn` with evaluated arguments, as the call `e` (the node errors
        point at) whose callee expression is `func` (None for a call the interpreter makes:
        a decorator, a key= function, a special method)."""
        if fn.__class__ is UserFunction:
            return self.call_user(fn, args, kwargs, e)
        if self._plain.get(id(fn)) is not fn:
            if isinstance(fn, _SCRIPT_CALLABLES):     # classes, bound methods, super(), ...
                return classes.call(self, fn, args, kwargs, e)
            if (fn is engine.no_grad or fn is engine.enable_grad or isinstance(fn, classes.GRAD_MODES)) \
                    and len(args) == 1 and not kwargs and isinstance(args[0], (UserFunction, *_SCRIPT_CALLABLES)):
                return classes.grad_mode_decorator(fn, args[0])     # `@torch.no_grad()` on a function
        if "device" in kwargs:
            # `torch.zeros(2, device=device)`: the CPU is the only device there is
            where = kwargs.pop("device")
            self.guard(e, lambda: require_cpu(where, _callee_name(func)))
        if self._plain.get(id(fn)) is fn:
            # an op-table function or plain builtin: none of the special cases below apply
            callee = _callee_name(func)
            if kwargs or len(args) > 1 or callee in _CATS:
                self.check_size(growth_estimate(callee, getattr(fn, "__self__", None), args, kwargs,
                                                self.limits.max_elements), e)
        else:
            callee = self._prepare_call(fn, args, kwargs, e)
            if fn is list or fn is tuple:
                fn = cappedbuiltins.sequence(self, fn, e)
            elif fn is dict:
                fn = pydict.constructor(self, e)
            elif fn is set or fn is frozenset:
                fn = pydict.set_constructor(self, fn, e)
            else:
                self.check_size(growth_estimate(callee, getattr(fn, "__self__", None), args, kwargs,
                                                self.limits.max_elements), e)
        try:
            finish = None
            if kwargs:                 # PyTorch's keyword names (`input=`, `size=`, `out=`...)
                args, kwargs, finish = signatures.adapt(fn, args, kwargs, callee)
            result = fn(*args, **kwargs)
            if finish is not None:
                result = finish(result)
        except Exception as err:
            translated = _script_error(err, e, callee)
            if translated is None:
                raise
            raise explain_call_error(translated, err, fn, callee, args, kwargs) from None
        if isinstance(result, Tensor):
            self.check_size(result.data_.size, e)
        elif result.__class__ in _SEQUENCES and len(result) >= MEMORY_CHECK_ELEMENTS:
            self.checkpoint(e)         # a big list or text (str(), format): memory and time
        elif self.called_backward and callee in ("backward", "grad"):
            self.check_memory(e)       # a backward pass can allocate as much as the forward
        return result

    def _prepare_call(self, fn, args, kwargs, e):
        """The checks and bookkeeping of a call to a value that is neither a plain function
        nor a user function (may set `retain_graph` in args/kwargs); returns the callee's name."""
        if not callable(fn) or isinstance(fn, (Tensor, Node, Namespace, TypeValue)):
            raise ScriptError("TypeError", f"'{type_name(fn)}' object is not callable", e.line, e.column)
        if fn is engine.backward or fn is engine.grad or getattr(fn, "__name__", "") == "backward":
            self.called_backward = True
            if self.retain_graphs:     # `check` differentiates the target again afterwards
                at = 3 if fn is engine.grad else 2 if fn is engine.backward else 1
                if len(args) > at:
                    args[at] = True
                else:
                    kwargs["retain_graph"] = True
        if getattr(fn, "__name__", "") == "retain_grad" and isinstance(getattr(fn, "__self__", None), Tensor):
            t = fn.__self__
            name = self.names.get(id(t))
            if name is not None and all(t is not r for _, r in self.retained):
                self.retained.append((name, t))
        return _callee_name(e.func)

    def call_user(self, fn, args, kwargs, e):
        node = fn.node
        if self.depth >= self.limits.max_depth:
            raise ScriptError("RecursionError", f"maximum recursion depth exceeded ({self.limits.max_depth}; "
                              "raise the cap with --max-depth)", e.line, e.column)
        self.depth += 1
        try:
            return self._call_user(fn, node, args, kwargs, e)
        finally:
            self.depth -= 1

    def _call_user(self, fn, node, args, kwargs, e):
        local = callargs.bind(self, fn, args, kwargs, e)
        self.frames.append((fn, local))
        try:
            if node.__class__ is A.Lambda:
                return self.eval(node.body, local)
            self.exec_block(node.body, local)
        except _Return as r:
            return r.value
        finally:
            self.frames.pop()
        return None

    # --- builtins --------------------------------------------------------------------
    def _builtins(self):
        names = self.builtin_names = {}    # id(builtin) -> its script name, for printing
        capped = cappedbuiltins.make(self, lambda text: self.write(text), names)
        _print, _str = capped["print"], capped["str"]

        def _range(*args):
            return range(*[int(a) for a in args])

        def _type(x):
            return type_of(x)

        def _builtin_or_op(name, builtin):
            # `abs`, `max`, `min`, `sum`, `round`: the torch functions (SPEC) when an argument is
            # a tensor, Python's builtins on plain numbers and lists (`max(1.5, 0.5)`,
            # `sum([t1, t2])`), where the torch function would fail
            op = engine.FUNCTIONS[name]

            def fn(*args, **kwargs):
                if not any(isinstance(a, Tensor) for a in args):
                    return builtin(*args, **kwargs)
                return op(*args, **kwargs)
            fn.__name__ = name
            return fn

        def _hasattr(obj, name):
            try:
                self.attribute(obj, A.Attribute(A.Name("_"), name))
                return True
            except ScriptError:
                return False

        b = {
            "print": _print, "range": _range, "len": len, "float": float, "int": int,
            "str": _str, "bool": bool, "type": _type, "list": list, "tuple": tuple,
            "enumerate": enumerate, "zip": zip, "isinstance": None, "hasattr": _hasattr,
            "torch": TORCH, "F": MODULES["torch.nn.functional"], "autograd": MODULES["torch.autograd"],
            "math": MODULES["math"],
            "grad": engine.grad, "backward": engine.backward, "no_grad": engine.no_grad,
            "enable_grad": engine.enable_grad, "set_grad_enabled": engine.set_grad_enabled,
            "pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan,
        }
        for name, builtin in (("abs", abs), ("max", capped["max"]), ("min", capped["min"]),
                              ("sum", capped["sum"]), ("round", round)):
            b[name] = _builtin_or_op(name, builtin)
        b["any"], b["all"] = capped["any"], capped["all"]   # Python's (not SPEC functions)
        del b["isinstance"]
        self._plain = _plain_callables((_print, _str, _range, _type, _hasattr))
        pybuiltins.install(self, b)
        for k, v in engine.FUNCTIONS.items():
            b.setdefault(k, v)
        names.update((id(v), k) for k, v in b.items() if callable(v))
        return b


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


# --- caps on what one operation may build ------------------------------------------------

_QUALIFIED_CALL = re.compile(r"^[\w.]*<locals>\.\w+\(\)")
_DEVICE_ATTRS = DEVICE_ATTRS
_SCRIPT_CALLABLES = (ScriptObject, Instance, classes.ClassValue, classes.ProvidedBase, classes.NativeMethod)


def _item_bytes(seq):
    """The memory one element of `seq` takes in a list, tuple or string made from it."""
    if seq.__class__ is str:
        return 1 if seq.isascii() else 4
    return 8


def _cpu(self, memory_format=None):
    return self


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    raise AssertionError("Torch not compiled with CUDA enabled")


_cpu.__name__, _cuda.__name__ = "cpu", "cuda"
def _callee_name(func):
    """The name a call was written with (`sin` in `torch.sin(x)`), for error messages."""
    if func is None:
        return None
    if isinstance(func, A.Name):
        return func.id
    if isinstance(func, A.Attribute):
        return func.name
    return None


def _has_break_or_return(body):
    """Whether statements hold a `break` or `return` (outside nested `def`s)."""
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (A.Break, A.Return)):
            return True
        if isinstance(n, A.Node) and not isinstance(n, A.FuncDef):
            for f in A.fields(n):
                v = getattr(n, f)
                if isinstance(v, list):
                    stack.extend(x for x in v if isinstance(x, (A.Stmt, A.ExceptHandler)))
                elif isinstance(v, A.Stmt):
                    stack.append(v)
    return False


def _walk(node):
    """Every AST node under `node` (iterative), for re-positioning f-string fields."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for name in A.fields(n):
            v = getattr(n, name, None)
            items = v if isinstance(v, list) else [v]
            for x in items:
                if isinstance(x, A.Node):
                    stack.append(x)
                elif isinstance(x, tuple):
                    stack.extend(y for y in x if isinstance(y, A.Node))
