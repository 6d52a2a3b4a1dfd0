"""A script's values as SymPy expressions, from its syntax tree.

`SymbolicRun(script, flavour).run()` walks the script as the interpreter does, but each
value is a SymPy expression in the script's variables (a Symbol per variable: a math-flavour
`a = 1.5`, a `torch.tensor(2.0, requires_grad=True)`, a `--set` or free name) instead of a
tensor. Every function call goes through the op table: the function's rows
(`engine.FUNCTIONS[name].rows`), and the first row whose symbolic form (`Row.sym`) takes
the call's arguments gives the value (forms.apply). So a new op with a `sym` is followed
here with no code.

What it follows: assignments (also `+=`...), arithmetic, comparisons, `&`/`|`/`~`, calls of
the op table's functions (bare, `torch.`, `F.`) and methods, the scalar constructors,
`with no_grad()` (values made there are detached: their derivative is 0), `detach()`,
`.item()`, `for` over `range` (unrolled), and `if`/`while` on values that do not depend on
a variable. Expression statements (`print`, `backward()`, `retain_grad()`) are skipped.
Anything else (a `def`, a class, a tensor of several elements, an `if` on a variable) is a
ScriptError at its position saying --symbolic does not follow it: the command then says
so instead of printing a wrong formula. (The caller also checks the result against the
engine's value at the run's values: report.py.)
"""

from __future__ import annotations

import inspect
import math

import sympy as S

from .. import engine
from ..lang import ast as A
from ..lang.errors import ScriptError
from ..lang.interpreter import is_literal, literal_value
from . import forms
from .forms import Detach, arith, as_expr, compare, logical, where


def _unsupported(what, node):
    return ScriptError("NotImplementedError", f"--symbolic does not follow {what}", node.line, node.column)


class _Module:
    def __init__(self, name):
        self.name = name


class _Function:
    def __init__(self, name):
        self.name = name


class _Method:
    def __init__(self, obj, name):
        self.obj, self.name = obj, name


class _NewLeaf:
    """`torch.tensor(2.0, requires_grad=True)`: a variable once it is bound to a name."""

    def __init__(self, value):
        self.value = value


MODULES = {"torch", "torch.nn.functional", "torch.autograd", "torch.nn", "math", "F"}
IDENTITY_METHODS = {
    "float",
    "double",
    "to",
    "cpu",
    "contiguous",
    "reshape",
    "view",
    "flatten",
    "squeeze",
    "unsqueeze",
    "t",
    "transpose",
    "permute",
    "expand",
    "expand_as",
    "view_as",
    "reshape_as",
    "retain_grad",
    "requires_grad_",
    "clone",
    "ravel",
    "type_as",
    "sum",
    "mean",
    "prod",
    "amax",
    "amin",
}
IDENTITY_FUNCTIONS = {
    "reshape",
    "flatten",
    "squeeze",
    "unsqueeze",
    "t",
    "transpose",
    "permute",
    "ravel",
    "clone",
}
CONSTRUCTORS = {"tensor", "Tensor", "as_tensor", "scalar_tensor"}
_CMP_FUNCTIONS = {
    "lt": "<",
    "le": "<=",
    "gt": ">",
    "ge": ">=",
    "eq": "==",
    "ne": "!=",
    "less": "<",
    "greater": ">",
    "less_equal": "<=",
    "greater_equal": ">=",
    "not_equal": "!=",
}
_MATH = {"pi": math.pi, "e": math.e, "inf": math.inf}
_PYTHON = {"range", "float", "int", "abs", "max", "min", "print", "len", "round", "sum", "bool"}


def is_symbolic(v) -> bool:
    return isinstance(v, S.Basic) and not v.is_number


class SymbolicRun:
    def __init__(self, script, flavour, max_statements=1_000_000):
        self.script = script
        self.math_flavour = flavour == "math"
        self.env = {}
        self.variables = {}  # name -> Symbol, in order of first definition
        self.detached = 0  # inside `with no_grad()`
        self.statements = 0
        self.max_statements = max_statements

    def symbol(self, name, node):
        sym = self.variables.get(name)
        if sym is None:
            sym = self.variables[name] = S.Symbol(name, real=True)
        return sym

    # --- statements ----------------------------------------------------------------
    def run(self):
        self.block(self.script.body)
        return self

    def block(self, body):
        for st in body:
            self.statements += 1
            if self.statements > self.max_statements:
                raise ScriptError(
                    "LimitError", "--symbolic: more statements than --max-statements", st.line, st.column
                )
            self.statement(st)

    def statement(self, st):
        cls = st.__class__
        if cls is A.Assign:
            if len(st.targets) != 1 or st.targets[0].__class__ is not A.Name:
                raise _unsupported("an assignment to anything but one name", st)
            name = st.targets[0].id
            if self.math_flavour and not self.detached and is_literal(st.value):
                v = literal_value(st.value)
                if isinstance(v, list):
                    raise ScriptError(
                        "TypeError",
                        f"--symbolic is for scalar variables: '{name}' is a list",
                        st.line,
                        st.column,
                    )
                self.variables.pop(name, None)
                self.env[name] = self.symbol(name, st)
                return
            self.bind(name, self.eval(st.value), st)
        elif cls is A.AugAssign:
            if st.target.__class__ is not A.Name:
                raise _unsupported("an augmented assignment to anything but a name", st)
            old = self.lookup(st.target)
            self.bind(st.target.id, self.binop(st.op, old, self.eval(st.value), st), st)
        elif cls is A.ExprStmt:
            self.expression_statement(st.value)
        elif cls in (A.Import, A.FromImport):
            self.imports(st)
        elif cls is A.With:
            self.with_block(st)
        elif cls is A.For:
            self.for_loop(st)
        elif cls is A.If:
            self.block(st.body if self.decide(st.test) else st.orelse)
        elif cls is A.While:
            while self.decide(st.test):
                self.block(st.body)
        elif cls in (A.Pass, A.Assert):
            return
        else:
            what = {A.FuncDef: "a function definition", A.ClassDef: "a class", A.Try: "try/except"}
            raise _unsupported(what.get(cls, f"a {cls.__name__} statement"), st)

    def bind(self, name, v, node):
        if isinstance(v, _NewLeaf):
            self.variables.pop(name, None)
            v = self.symbol(name, node)
        elif self.detached and is_symbolic(v):
            v = Detach(v)
        self.env[name] = v

    def expression_statement(self, e):
        # in-place methods on a name (`h.mul_(2)`, `x.requires_grad_()`) change it; the
        # rest (print, backward, retain_grad...) does not change a value
        if e.__class__ is A.Call and e.func.__class__ is A.Attribute and e.func.obj.__class__ is A.Name:
            name, method = e.func.obj.id, e.func.name
            if method == "requires_grad_":
                self.env[name] = self.symbol(name, e)
            elif (
                method.endswith("_")
                and not method.startswith("_")
                and method not in ("zero_", "retain_grad_")
            ):
                obj = self.lookup(e.func.obj)
                self.bind(name, self.call_method(obj, method[:-1], *self.arguments(e), e), e)

    def imports(self, st):
        for alias in st.names:
            full = alias.name if st.__class__ is A.Import else f"{st.module}.{alias.name}"
            bound = alias.asname or (alias.name.split(".")[0] if st.__class__ is A.Import else alias.name)
            if st.__class__ is A.Import and not alias.asname:
                full = alias.name.split(".")[0]
            self.env[bound] = (
                _Module(full) if full in MODULES or full.startswith("torch") else _Function(alias.name)
            )

    def with_block(self, st):
        depth = 0
        for e, name in st.items:
            fn = e.func if e.__class__ is A.Call else None
            label = fn.name if fn.__class__ is A.Attribute else fn.id if fn.__class__ is A.Name else None
            if label not in ("no_grad", "enable_grad") or name:
                raise _unsupported("this `with` (only `with no_grad():` and `with enable_grad():`)", st)
            depth += label == "no_grad"
        self.detached += depth
        try:
            self.block(st.body)
        finally:
            self.detached -= depth

    def for_loop(self, st):
        it = self.eval(st.iter)
        if not isinstance(it, (range, list, tuple)) or any(is_symbolic(v) for v in it):
            raise _unsupported("a `for` loop over anything but a range or a list of numbers", st)
        if st.target.__class__ is not A.Name:
            raise _unsupported("a `for` loop with this target", st)
        for v in it:
            self.env[st.target.id] = v
            self.block(st.body)

    def decide(self, test):
        v = self.eval(test)
        if isinstance(v, S.Basic):
            if v in (S.true, S.false):
                return v is S.true
            if v.is_number:
                return bool(v != 0)
            raise _unsupported(
                "an `if`/`while` on a variable's value (each branch has its own formula)", test
            )
        return bool(v)

    # --- expressions ---------------------------------------------------------------
    def lookup(self, e):
        name = e.id
        if name in self.env:
            return self.env[name]
        if name in ("torch", "F"):
            raise ScriptError("NameError", f"name '{name}' is not defined", e.line, e.column)
        if name in _PYTHON or name in engine.FUNCTIONS or name in ("no_grad", "enable_grad"):
            return _Function(name)
        return self.symbol(name, e)  # a free variable (--set, or none: a stand-in value)

    def eval(self, e):
        cls = e.__class__
        if cls is A.Num or cls is A.Str or cls is A.Const:
            return e.value
        if cls is A.Name:
            return self.lookup(e)
        if cls is A.BinOp:
            return self.binop(e.op, self.eval(e.left), self.eval(e.right), e)
        if cls is A.UnaryOp:
            v = self.eval(e.operand)
            if e.op == "~":
                return logical("~", v)
            if e.op == "-":
                return (
                    -v
                    if not isinstance(v, S.Basic) or not isinstance(v, S.logic.boolalg.Boolean)
                    else -as_expr(v)
                )
            return v
        if cls is A.Compare:
            if e.op not in ("<", "<=", ">", ">=", "==", "!="):
                raise _unsupported(f"`{e.op}`", e)
            return compare(e.op, self.eval(e.left), self.eval(e.right))
        if cls is A.BoolOp or cls is A.Not or cls is A.IfExp:
            return self.python_logic(e)
        if cls is A.Call:
            return self.call(e)
        if cls is A.Attribute:
            return self.attribute(self.eval(e.obj), e)
        if cls in (A.ListLit, A.TupleLit):
            return [self.eval(i) for i in e.items]
        raise _unsupported({A.Subscript: "indexing", A.Lambda: "lambda"}.get(cls, f"a {cls.__name__}"), e)

    def python_logic(self, e):
        if e.__class__ is A.IfExp:
            return self.eval(e.body) if self.decide(e.test) else self.eval(e.orelse)
        if e.__class__ is A.Not:
            return not self.decide(e.operand)
        vals = [self.decide(v) for v in e.values]
        return all(vals) if e.op == "and" else any(vals)

    def binop(self, op, a, b, node):
        if op in ("&", "|"):
            return logical(op, a, b)
        if op == "//":
            return forms.Floor(as_expr(a) / as_expr(b)) if is_symbolic(a) or is_symbolic(b) else a // b
        if op == "%":
            if is_symbolic(a) or is_symbolic(b):
                return as_expr(a) - as_expr(b) * forms.Floor(as_expr(a) / as_expr(b))
            return a % b
        if op not in ("+", "-", "*", "/", "**"):
            raise _unsupported(f"the operator `{op}`", node)
        if isinstance(a, list) or isinstance(b, list):
            raise _unsupported("arithmetic on lists", node)
        try:
            return arith(op, a, b)
        except (ZeroDivisionError, OverflowError, TypeError) as err:
            raise _unsupported(f"this arithmetic ({err})", node) from None

    def arguments(self, e):
        if e.__class__ is A.StarCall:
            raise _unsupported("*args or **kwargs in a call", e)
        return [self.eval(a) for a in e.args], {k: self.eval(v) for k, v in e.kwargs}

    def call(self, e):
        fn = self.eval(e.func)
        args, kwargs = self.arguments(e)
        if isinstance(fn, _Method):
            return self.call_method(fn.obj, fn.name, args, kwargs, e)
        if isinstance(fn, _Function):
            return self.call_function(fn.name, args, kwargs, e)
        raise _unsupported("a call of this value", e)

    def attribute(self, obj, e):
        name = e.name
        if isinstance(obj, _Module):
            if obj.name == "math" and name in _MATH:
                return _MATH[name]
            return _Function(name)
        if name in ("data",):
            return Detach(obj) if is_symbolic(obj) else obj
        if name in ("T", "mT", "real"):
            return obj
        if isinstance(obj, (S.Basic, int, float)):
            return _Method(obj, name)
        raise _unsupported(f"the attribute .{name}", e)

    def call_method(self, obj, name, args, kwargs, e):
        if name in IDENTITY_METHODS and not (
            name in ("sum", "mean", "prod", "amax", "amin") and (args or kwargs)
        ):
            return obj
        if name in ("detach", "item", "tolist"):
            return Detach(obj) if is_symbolic(obj) else obj
        if name == "where":
            return where(
                args[0] if args else kwargs["condition"], obj, args[1] if len(args) > 1 else kwargs["other"]
            )
        return self.call_function(name, [obj, *args], kwargs, e)

    def call_function(self, name, args, kwargs, e):
        if name in ("print", "no_grad", "enable_grad", "manual_seed"):
            return None
        if name == "range":
            if any(is_symbolic(a) for a in args):
                raise _unsupported("range() of a variable", e)
            return range(*[int(a) for a in args])
        if name in ("float", "int", "bool"):
            v = args[0] if args else 0
            return Detach(v) if is_symbolic(v) else {"float": float, "int": int, "bool": bool}[name](v)
        if name in CONSTRUCTORS:
            return self.construct(name, args, kwargs, e)
        if name in ("detach",):
            return Detach(args[0]) if is_symbolic(args[0]) else args[0]
        if name in IDENTITY_FUNCTIONS:
            return args[0]
        if name in ("ones_like", "zeros_like", "full_like"):
            return {"ones_like": 1.0, "zeros_like": 0.0}.get(name) if name != "full_like" else args[1]
        if name in _CMP_FUNCTIONS:
            return compare(_CMP_FUNCTIONS[name], args[0], args[1] if len(args) > 1 else kwargs["other"])
        if name in ("logical_and", "logical_or"):
            return logical("&" if name == "logical_and" else "|", args[0], args[1])
        if name == "logical_not":
            return logical("~", args[0])
        if name == "where" and len(args) + len(kwargs) == 3:
            vals = dict(zip(("condition", "input", "other"), args), **kwargs)
            return where(vals["condition"], vals["input"], vals["other"])
        if name in ("abs", "max", "min", "round", "sum") and not any(is_symbolic(a) for a in args):
            if name == "sum" or any(isinstance(a, (list, tuple)) for a in args):
                raise _unsupported(f"{name}() of a list", e)
            return {"abs": abs, "max": max, "min": min, "round": round}[name](*args)
        if name == "max" and len(args) == 2 or name == "min" and len(args) == 2:
            name = "maximum" if name == "max" else "minimum"
        return self.by_rows(name, args, kwargs, e)

    def construct(self, name, args, kwargs, e):
        data = args[0] if args else kwargs.get("data")
        if isinstance(data, list):
            raise ScriptError(
                "TypeError",
                "--symbolic is for scalar variables: this tensor has several elements",
                e.line,
                e.column,
            )
        if data is None or isinstance(data, str):
            raise _unsupported(f"{name}() without a number", e)
        if kwargs.get("requires_grad") is True:
            if is_symbolic(data):
                raise _unsupported("a leaf made from a variable", e)
            return _NewLeaf(data)
        return as_expr(data) if is_symbolic(data) else float(data) if name == "Tensor" else as_expr(data)

    def by_rows(self, name, args, kwargs, e):
        """The first row of the op with a symbolic form that takes these arguments."""
        fn = engine.FUNCTIONS.get(name)
        composite = getattr(fn, "sym", None)
        if composite is not None:
            return self.by_composite(name, fn, composite, args, kwargs, e)
        rows_ = getattr(fn, "rows", ()) if fn is not None else ()
        kwargs = {("self" if k == "input" else k): v for k, v in kwargs.items()}
        for row in rows_:
            if row.sym is None:
                continue
            params = (*row.inputs, *(a for a, _ in row.args))
            if len(args) > len(params) or any(k not in params for k in kwargs):
                continue
            bound = dict(zip(params, args))
            if any(k in bound for k in kwargs):
                continue
            bound.update(kwargs)
            if any(i not in bound for i in row.inputs):
                continue
            for a, default in row.args:
                bound.setdefault(a, default)
            try:
                return forms.apply(row, bound)
            except (TypeError, ZeroDivisionError) as err:
                raise _unsupported(f"{name}() with these arguments ({err})", e) from None
        if fn is None:
            raise _unsupported(f"{name}()", e)
        raise _unsupported(
            f"{name}() (its op has no symbolic form{' for these arguments' if rows_ else ''})", e
        )

    def by_composite(self, name, fn, text, args, kwargs, e):
        """A composite op's own form (expose's `sym`), over its Python parameters."""
        if text is False:
            raise _unsupported(f"{name}() (a composite op with no symbolic form)", e)
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as err:
            raise _unsupported(f"{name}() with these arguments ({err})", e) from None
        bound.apply_defaults()
        try:
            return forms.evaluate(forms.form(text), dict(bound.arguments))
        except (TypeError, ZeroDivisionError) as err:
            raise _unsupported(f"{name}() with these arguments ({err})", e) from None
