"""Exceptions as values: Python's exception classes, `raise`, and `try`/`except`.

Every error a script meets travels as a `ScriptError` (its type name, message and
position, for the CLI to render). The exception *value* a script sees (`except E as e`,
`raise ValueError("x")`, `ValueError` itself) is an `ExceptionValue`, an instance of one
of the `ExceptionClass`es below (Python's builtin hierarchy) or of a script class derived
from one: the ScriptError carries it as `.value` from a `raise`, and an error of the
engine or of Python gets one made from its type name and message when a handler catches
it. Matching a handler is `isinstance` over the host classes, which mirror the hierarchy.

Errors a script cannot catch: syntax errors and diffcli's own limits (`LimitError`).
"""

from __future__ import annotations

from . import ast
from .errors import ScriptError
from .objects import MISSING, ClassValue, Instance, NativeMethod, ProvidedBase, new_instance

UNCATCHABLE = ("LimitError",)


class ExceptionValue(Instance):
    """An exception object: its `args`, and for an error that did not come from a `raise`,
    the message as the error said it (`_text`: a KeyError's message is already quoted)."""

    __slots__ = ("_args", "_text")

    def __repr__(self):
        name = type(self).__name__
        args = self._args
        return f"{name}({args[0]!r})" if len(args) == 1 else f"{name}{args!r}"

    def __str__(self):
        if self._text is not None:
            return self._text
        args = self._args
        if not args:
            return ""
        if len(args) == 1:
            return repr(args[0]) if isinstance(self, EXCEPTIONS["KeyError"].host) else str(args[0])
        return str(args)

    # what older code read off a caught error
    @property
    def type_name(self):
        return self._cls.name

    @property
    def message(self):
        return str(self)


def _init(interp, inst, args, kwargs, node):
    """BaseException.__init__: keeps the arguments (no keyword arguments)."""
    if kwargs:
        raise ScriptError(
            "TypeError", f"{inst._cls.name}() takes no keyword arguments", node.line, node.column
        )
    inst._args = tuple(args)
    inst._text = None


def _str(interp, inst, args, kwargs, node):
    return ExceptionValue.__str__(inst)


def _repr(interp, inst, args, kwargs, node):
    return ExceptionValue.__repr__(inst)


_METHODS = {
    "__init__": NativeMethod("__init__", _init),
    "__str__": NativeMethod("__str__", _str),
    "__repr__": NativeMethod("__repr__", _repr),
}


class ExceptionClass(ProvidedBase):
    """One of Python's builtin exception classes, as a value and as a base class."""

    def __init__(self, name, parent):
        self.name = self.full_name = self.qualname = name
        self.parent = parent
        base = parent.host if parent is not None else ExceptionValue
        self.host = type(name, (base,), {"__slots__": (), "_script_class": self, "__module__": "builtins"})

    def lookup(self, name):
        return _METHODS.get(name, MISSING)

    def instance_attribute(self, inst, name):
        if name == "args":
            return inst._args
        return MISSING


# Python's builtin hierarchy (the part a script can meet), parents first
_TREE = [
    ("BaseException", None),
    ("Exception", "BaseException"),
    ("KeyboardInterrupt", "BaseException"),
    ("ArithmeticError", "Exception"),
    ("FloatingPointError", "ArithmeticError"),
    ("OverflowError", "ArithmeticError"),
    ("ZeroDivisionError", "ArithmeticError"),
    ("AssertionError", "Exception"),
    ("AttributeError", "Exception"),
    ("EOFError", "Exception"),
    ("ImportError", "Exception"),
    ("ModuleNotFoundError", "ImportError"),
    ("LookupError", "Exception"),
    ("IndexError", "LookupError"),
    ("KeyError", "LookupError"),
    ("MemoryError", "Exception"),
    ("NameError", "Exception"),
    ("UnboundLocalError", "NameError"),
    ("OSError", "Exception"),
    ("RuntimeError", "Exception"),
    ("NotImplementedError", "RuntimeError"),
    ("RecursionError", "RuntimeError"),
    ("StopIteration", "Exception"),
    ("TypeError", "Exception"),
    ("ValueError", "Exception"),
    ("UnicodeError", "ValueError"),
    ("Warning", "Exception"),
    ("UserWarning", "Warning"),
    ("DeprecationWarning", "Warning"),
    ("RuntimeWarning", "Warning"),
    ("FutureWarning", "Warning"),
]
EXCEPTIONS: dict = {}
for _name, _parent in _TREE:
    EXCEPTIONS[_name] = ExceptionClass(_name, EXCEPTIONS.get(_parent))


def exception_class(type_name: str) -> ExceptionClass:
    """The class of an error known only by its type name (an engine error such as
    `RuntimeError`; an unknown name becomes a class derived from Exception)."""
    cls = EXCEPTIONS.get(type_name)
    if cls is None:
        cls = EXCEPTIONS[type_name] = ExceptionClass(type_name, EXCEPTIONS["Exception"])
    return cls


def is_exception_class(value) -> bool:
    return isinstance(value, (ClassValue, ExceptionClass)) and issubclass(value.host, ExceptionValue)


def make_exception(cls, args) -> ExceptionValue:
    """A new exception of `cls` (its args kept, as BaseException.__new__ does)."""
    inst = new_instance(cls)
    inst._args = tuple(args)
    inst._text = None
    return inst


def value_of(err: ScriptError) -> ExceptionValue:
    """The exception value of an error (made once, then kept on the error)."""
    value = getattr(err, "value", None)
    if value is None:
        args = getattr(err, "py_args", None)  # a Python error's own args (KeyError('b'))
        if args is None:
            text = getattr(err, "py_text", err.message)  # (without diffcli's hint, if any)
            args = (text,) if text else ()
        value = make_exception(exception_class(err.type_name), args)
        value._text = getattr(err, "py_text", err.message)
        err.value = value
    return value


def error_of(value: ExceptionValue, node) -> ScriptError:
    """The ScriptError that raising `value` at `node` is (`__main__.MyError` for a script's class)."""
    cls = value._cls
    name = cls.full_name if isinstance(cls, ClassValue) else cls.name
    err = ScriptError(name, str(value), node.line, node.column)
    err.value = value
    return err


def catchable(err: ScriptError) -> bool:
    return not err.is_syntax and err.type_name not in UNCATCHABLE


# --- the statements ---------------------------------------------------------------------


def exec_raise(interp, s: ast.Raise, scope):
    if s.exc is None:
        if not interp.handling:
            raise ScriptError("RuntimeError", "No active exception to reraise", s.line, s.column)
        raise interp.handling[-1]
    value = interp.eval(s.exc, scope)
    if s.cause is not None:
        cause = interp.eval(s.cause, scope)
        if cause is not None and not (is_exception_class(cause) or isinstance(cause, ExceptionValue)):
            raise ScriptError(
                "TypeError", "exception causes must derive from BaseException", s.cause.line, s.cause.column
            )
    if is_exception_class(value):
        value = interp.call_value(value, [], {}, s)
    if not isinstance(value, ExceptionValue):
        raise ScriptError("TypeError", "exceptions must derive from BaseException", s.exc.line, s.exc.column)
    raise error_of(value, s)


def exec_try(interp, s: ast.Try, scope):
    try:
        interp.exec_block(s.body, scope)
    except ScriptError as err:
        if not catchable(err):
            raise
        handler = next((h for h in s.handlers if h.exc_type is None or _matches(interp, h, err, scope)), None)
        if handler is None:
            raise
        interp.handling.append(err)
        try:
            if handler.name:
                scope[handler.name] = value_of(err)
            interp.exec_block(handler.body, scope)
        finally:
            interp.handling.pop()
            if handler.name and dict.__contains__(scope, handler.name):
                del scope[handler.name]  # as Python does at the end of the handler
    else:
        interp.exec_block(s.orelse, scope)
    finally:
        interp.exec_block(s.finalbody, scope)


def _matches(interp, handler, err, scope) -> bool:
    wanted = interp.eval(handler.exc_type, scope)
    classes = wanted if isinstance(wanted, tuple) else (wanted,)
    if not all(is_exception_class(c) for c in classes):
        raise ScriptError(
            "TypeError",
            "catching classes that do not inherit from BaseException is not allowed",
            handler.exc_type.line,
            handler.exc_type.column,
        )
    value = value_of(err)
    return any(isinstance(value, c.host) for c in classes)
