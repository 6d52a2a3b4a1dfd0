"""Calls: to the op table's functions and the plain builtins (the fast path, with the
size caps checked first), to a script's own functions (--max-depth), classes and bound
methods, and the builtins a script sees. A mixin of `Interpreter`."""

from __future__ import annotations

import math
from types import BuiltinFunctionType, FunctionType

from .. import engine
from ..engine.node import Node
from ..engine.tensor import Tensor
from . import ast, callargs, cappedbuiltins, classes, pybuiltins, pydict, signatures
from .callerrors import explain_call_error
from .errors import ScriptError
from .estimates import _SEQUENCES, GROWERS, growth_estimate
from .flow import Return, script_error
from .limits import MEMORY_CHECK_ELEMENTS
from .objects import Instance, ScriptObject
from .values import MODULES, TORCH, Namespace, TypeValue, UserFunction, require_cpu, type_name, type_of

_Name = ast.Name
_SCRIPT_CALLABLES = (ScriptObject, Instance, classes.ClassValue, classes.ProvidedBase, classes.NativeMethod)


_PLAIN = {}  # id -> function: the op table's and the modules' functions


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
    if (
        f.__class__ in (FunctionType, BuiltinFunctionType)
        and f is not engine.backward
        and f is not engine.grad
        and getattr(f, "__name__", "") not in ("backward", "retain_grad")
        and not isinstance(getattr(f, "__self__", None), Tensor)
    ):
        table[id(f)] = f


class Calls:
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
            if isinstance(fn, _SCRIPT_CALLABLES):  # classes, bound methods, super(), ...
                return classes.call(self, fn, args, kwargs, e)
            if (
                (fn is engine.no_grad or fn is engine.enable_grad or isinstance(fn, classes.GRAD_MODES))
                and len(args) == 1
                and not kwargs
                and isinstance(args[0], (UserFunction, *_SCRIPT_CALLABLES))
            ):
                return classes.grad_mode_decorator(fn, args[0])  # `@torch.no_grad()` on a function
        if "device" in kwargs:
            # `torch.zeros(2, device=device)`: the CPU is the only device there is
            where = kwargs.pop("device")
            self.guard(e, lambda: require_cpu(where, _callee_name(func)))
        if self._plain.get(id(fn)) is fn:
            # an op-table function or plain builtin: none of the special cases below apply
            callee = _callee_name(func)
            if kwargs or len(args) > 1 or callee in GROWERS:
                self.check_size(
                    growth_estimate(
                        callee, getattr(fn, "__self__", None), args, kwargs, self.limits.max_elements
                    ),
                    e,
                )
        else:
            callee = self._prepare_call(fn, args, kwargs, e)
            if fn is list or fn is tuple:
                fn = cappedbuiltins.sequence(self, fn, e)
            elif fn is dict:
                fn = pydict.constructor(self, e)
            elif fn is set or fn is frozenset:
                fn = pydict.set_constructor(self, fn, e)
            else:
                self.check_size(
                    growth_estimate(
                        callee, getattr(fn, "__self__", None), args, kwargs, self.limits.max_elements
                    ),
                    e,
                )
        try:
            finish = None
            if kwargs:  # PyTorch's keyword names (`input=`, `size=`, `out=`...)
                args, kwargs, finish = signatures.adapt(fn, args, kwargs, callee)
            result = fn(*args, **kwargs)
            if finish is not None:
                result = finish(result)
        except Exception as err:
            translated = script_error(err, e, callee)
            if translated is None:
                raise
            raise explain_call_error(translated, err, fn, callee, args, kwargs) from None
        if isinstance(result, Tensor):
            self.check_size(result.array.size, e)
        elif result.__class__ in _SEQUENCES and len(result) >= MEMORY_CHECK_ELEMENTS:
            self.checkpoint(e)  # a big list or text (str(), format): memory and time
        elif self.called_backward and callee in ("backward", "grad"):
            self.check_memory(e)  # a backward pass can allocate as much as the forward
        return result

    def _prepare_call(self, fn, args, kwargs, e):
        """The checks and bookkeeping of a call to a value that is neither a plain function
        nor a user function (may set `retain_graph` in args/kwargs); returns the callee's name."""
        if not callable(fn) or isinstance(fn, (Tensor, Node, Namespace, TypeValue)):
            raise ScriptError("TypeError", f"'{type_name(fn)}' object is not callable", e.line, e.column)
        if fn is engine.backward or fn is engine.grad or getattr(fn, "__name__", "") == "backward":
            self.called_backward = True
            if self.retain_graphs:  # `check` differentiates the target again afterwards
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
            raise ScriptError(
                "RecursionError",
                f"maximum recursion depth exceeded ({self.limits.max_depth}; raise the cap with --max-depth)",
                e.line,
                e.column,
            )
        self.depth += 1
        try:
            return self._call_user(fn, node, args, kwargs, e)
        finally:
            self.depth -= 1

    def _call_user(self, fn, node, args, kwargs, e):
        local = callargs.bind(self, fn, args, kwargs, e)
        self.frames.append((fn, local))
        try:
            if node.__class__ is ast.Lambda:
                return self.eval(node.body, local)
            self.exec_block(node.body, local)
        except Return as r:
            return r.value
        finally:
            self.frames.pop()
        return None

    # --- builtins --------------------------------------------------------------------
    def _builtins(self):
        names = self.builtin_names = {}  # id(builtin) -> its script name, for printing
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
                self.attribute(obj, ast.Attribute(ast.Name("_"), name))
                return True
            except ScriptError:
                return False

        b = {
            "print": _print,
            "range": _range,
            "len": len,
            "float": float,
            "int": int,
            "str": _str,
            "bool": bool,
            "type": _type,
            "list": list,
            "tuple": tuple,
            "enumerate": enumerate,
            "zip": zip,
            "isinstance": None,
            "hasattr": _hasattr,
            "torch": TORCH,
            "F": MODULES["torch.nn.functional"],
            "autograd": MODULES["torch.autograd"],
            "math": MODULES["math"],
            "grad": engine.grad,
            "backward": engine.backward,
            "no_grad": engine.no_grad,
            "enable_grad": engine.enable_grad,
            "set_grad_enabled": engine.set_grad_enabled,
            "pi": math.pi,
            "e": math.e,
            "inf": math.inf,
            "nan": math.nan,
        }
        for name, builtin in (
            ("abs", abs),
            ("max", capped["max"]),
            ("min", capped["min"]),
            ("sum", capped["sum"]),
            ("round", round),
        ):
            b[name] = _builtin_or_op(name, builtin)
        b["any"], b["all"] = capped["any"], capped["all"]  # Python's (not SPEC functions)
        del b["isinstance"]
        self._plain = _plain_callables((_print, _str, _range, _type, _hasattr))
        pybuiltins.install(self, b)
        for k, v in engine.FUNCTIONS.items():
            b.setdefault(k, v)
        names.update((id(v), k) for k, v in b.items() if callable(v))
        return b


def _callee_name(func):
    """The name a call was written with (`sin` in `torch.sin(x)`), for error messages."""
    if func is None:
        return None
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.name
    return None
