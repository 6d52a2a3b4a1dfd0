"""`torch.autograd.Function` as a base class of script classes, and `once_differentiable`.

    class MyExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x): ...
        @staticmethod
        def backward(ctx, g): ...
    y = MyExp.apply(x)

`MyExp.apply` calls the engine's `custom_function.apply` with the script's static methods
as host callables (they call back into the interpreter); the ctx they get is the node
itself (`MyExpBackward`), whose attributes the script reaches through `graph_nodes`.
"""

from __future__ import annotations

import re

from ..engine import custom_function, errors
from . import callargs
from .classes import lookup
from .errors import ScriptError
from .objects import (
    MISSING,
    ClassMethod,
    GradModeFunction,
    Instance,
    NativeMethod,
    ProvidedBase,
    StaticMethod,
)
from .values import UserFunction


class OnceDifferentiable(GradModeFunction):
    """`@once_differentiable` on a backward: runs it with grad mode off; a second
    differentiation through its results fails with PyTorch's error."""

    __slots__ = ()

    def __init__(self, func):
        super().__init__(False, func)


def once_differentiable(fn):
    return OnceDifferentiable(fn)


def _error(type_name, message, node):
    return ScriptError(type_name, message, node.line, node.column)


def _static(cls, name):
    """The function behind a class attribute (a staticmethod's function, or a plain one)."""
    found = lookup(cls, name)
    if found is MISSING:
        return MISSING, None
    owner, value = found
    if isinstance(value, StaticMethod):
        value = value.func
    return value, owner


def _bound(interp, forward, args, kwargs, node):
    """PyTorch's `bind_default_args` (a Function with setup_context): the arguments bound
    to forward's signature, defaults filled in, as positional arguments."""
    try:
        local = callargs.bind(interp, forward, list(args), kwargs, node)
    except ScriptError as err:  # inspect.Signature.bind's words
        raise ScriptError("TypeError", _signature_words(err.message), err.line, err.column) from None
    positional, vararg = forward.sig[0], forward.sig[1]
    return [local[p] for p in positional] + (list(local[vararg]) if vararg is not None else [])


def _signature_words(message):
    for pattern, words in (
        (r"got multiple values for argument ('.*')", r"multiple values for argument \1"),
        (r"missing \d+ required \S+ arguments?: ('[^']*')", r"missing a required argument: \1"),
        (r"takes .* positional arguments? but", "too many positional arguments"),
        (r"(got an unexpected keyword argument '[^']*')", r"\1"),
    ):
        found = re.search(pattern, message)
        if found:
            return found.expand(words)
    return message


def _apply(interp, cls, args, kwargs, node):
    forward, _ = _static(cls, "forward")
    backward, _ = _static(cls, "backward")
    setup, owner = _static(cls, "setup_context")
    if owner is FUNCTION:  # the base's own: the ctx-in-forward form
        setup = None
    if isinstance(forward, NativeMethod) or forward is MISSING:
        raise _error(
            "NotImplementedError",
            "You must implement the forward function for custom autograd.Function.",
            node,
        )

    if setup is not None and isinstance(forward, UserFunction):
        args, kwargs = _bound(interp, forward, args, kwargs, node), {}

    def call_forward(*a):  # (keyword arguments go to forward, with no edge: PyTorch's C++ apply)
        return interp.call_value(forward, list(a), kwargs, node)

    def call_setup(ctx, inputs, output):
        interp.call_value(setup, [ctx, inputs, output], {}, node)

    def call_backward(ctx, *grads):
        if isinstance(backward, NativeMethod) or backward is MISSING:
            raise _error(
                "NotImplementedError",
                "You must implement either the backward or vjp method for "
                "your custom autograd.Function to use it with backward mode AD.",
                node,
            )
        return interp.call_value(backward, [ctx, *grads], {}, node)

    name = cls.name
    interp.engine_callbacks = True
    return interp.guard(
        node,
        lambda: custom_function.apply(
            name,
            args,
            call_forward,
            call_backward,
            call_setup if setup is not None else None,
            once=isinstance(backward, OnceDifferentiable),
        ),
    )


class ClassNativeMethod(NativeMethod):
    """A NativeMethod that shows its class (`<bound method Function.apply of ...>`)."""

    __slots__ = ("qualname",)

    def __init__(self, name, fn, qualname):
        super().__init__(name, fn)
        self.qualname = qualname


_LEGACY = (
    "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
    "autograd function with static forward method. (Example: "
    "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
)


def _init(interp, inst, args, kwargs, node):
    errors.warn(
        f"{inst._cls!r} should not be instantiated. Methods on autograd functions are all static, "
        "so you should invoke them on the class itself. Instantiating an autograd function will "
        "raise an error in a future version of PyTorch.",
        "DeprecationWarning",
    )


def _call(interp, inst, args, kwargs, node):
    raise _error("RuntimeError", _LEGACY, node)


def _not_implemented(what):
    def fn(interp, inst, args, kwargs, node):
        raise _error("NotImplementedError", what, node)

    return fn


class FunctionBase(ProvidedBase):
    """`torch.autograd.Function`."""

    name = "Function"
    full_name = "torch.autograd.function.Function"

    def __init__(self):
        self.host = type(
            "Function",
            (Instance,),
            {"__slots__": (), "_script_class": self, "__module__": "torch.autograd.function"},
        )
        self._members = {
            "apply": ClassMethod(ClassNativeMethod("apply", _apply, "Function.apply")),
            "__init__": NativeMethod("__init__", _init),
            "__call__": NativeMethod("__call__", _call),
            "forward": StaticMethod(
                NativeMethod(
                    "forward",
                    _not_implemented("You must implement the forward function for custom autograd.Function."),
                )
            ),
            "backward": StaticMethod(
                NativeMethod(
                    "backward",
                    _not_implemented(
                        "You must implement either the backward or vjp method for your custom "
                        "autograd.Function to use it with backward mode AD."
                    ),
                )
            ),
            "setup_context": StaticMethod(
                NativeMethod("setup_context", _not_implemented("setup_context is not implemented."))
            ),
        }

    def lookup(self, name):
        return self._members.get(name, MISSING)

    def subclassed(self, interp, cls, node):
        pass


FUNCTION = FunctionBase()
