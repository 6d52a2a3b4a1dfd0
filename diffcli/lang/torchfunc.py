"""The script's `torch.autograd.functional` and `torch.func`: the engine's transforms
(`engine/functional.py`, `engine/functorch.py`) applied to the script's own functions.

Each API is a `Builtin` that calls back into the interpreter for the function it is given
(a `def`, a `lambda`, a script class's instance with `__call__`, another transform...); the
transforms of `torch.func` return a `Transformed`, itself callable by the script. Arguments
bind as PyTorch's Python signatures bind them (so a wrong keyword is Python's TypeError).
"""

from __future__ import annotations

import types

from ..engine import functional as _af
from ..engine import functorch as _fn
from ..engine.codenames import renamed
from .objects import Builtin


class API(Builtin):
    """A function of torch.autograd.functional / torch.func: it prints as a Python function."""

    kind = "function"
    __slots__ = ()

    def __repr__(self):
        return f"<function {self.name}>"


class Transformed(Builtin):
    """What `torch.func.grad(f)` (and jacrev, vmap...) returns: `fn(interp, args, kwargs, node)`
    runs the transform; it shows the wrapped function's name, as functools.wraps makes it."""

    kind = "function"
    __slots__ = ()

    def __repr__(self):
        return f"<function {self.name}>"


def _name_of(f) -> str:
    return getattr(f, "name", None) or "<lambda>"


def _host(interp, f, node):
    """`f` as a Python callable that calls the script's value back through the interpreter."""

    def call(*args, **kwargs):
        return interp.call_value(f, list(args), kwargs, node)

    return call


# --- torch.autograd.functional --------------------------------------------------------------


def _functional_api(name):
    impl = getattr(_af, name)

    def run(interp, args, kwargs, node):
        if args:
            args = [_host(interp, args[0], node), *args[1:]]
        elif "func" in kwargs:
            kwargs = {**kwargs, "func": _host(interp, kwargs["func"], node)}
        return impl(*args, **kwargs)

    run.__name__ = name
    return API(name, run)


FUNCTIONAL = {name: _functional_api(name) for name in _af.__all__}


# --- torch.func -------------------------------------------------------------------------------


def _transform(name, make, takes, named=False):
    """A transform `name(func, *options)` whose result is a function of the script's arguments.
    `make(host_func, *options, name=...)` builds the host wrapper; `takes` binds the options
    with PyTorch's defaults (a Python function of the same signature); a `named` one is told
    the function's name for its error texts (vmap)."""

    takes = _named(takes, name)

    def run(interp, args, kwargs, node):
        bound = takes(*args, **kwargs)
        func = bound.pop("func")
        label = _name_of(func)
        inner = make(_host(interp, func, node), **bound, **({"name": label} if named else {}))

        def call(interp2, a, k, n):
            return inner(*a, **k)

        return Transformed(label, call)

    run.__name__ = name
    return API(name, run)


def _named(fn, name):
    """`fn` under the API's name, so that Python's argument errors say `grad() got an
    unexpected keyword argument ...` as PyTorch's do."""
    code = renamed(fn.__code__, name)
    named = types.FunctionType(code, fn.__globals__, name, fn.__defaults__)
    named.__kwdefaults__ = fn.__kwdefaults__
    return named


def _takes_grad(func, argnums=0, has_aux=False):
    return {"func": func, "argnums": argnums, "has_aux": has_aux}


def _takes_jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    return {"func": func, "argnums": argnums, "has_aux": has_aux, "chunk_size": chunk_size}


def _takes_jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    return {"func": func, "argnums": argnums, "has_aux": has_aux}


def _takes_hessian(func, argnums=0):
    return {"func": func, "argnums": argnums}


def _takes_vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    return {"func": func, "in_dims": in_dims, "out_dims": out_dims}


def _direct(name):
    """vjp and jvp: called with the function and the primals at once."""
    impl = getattr(_fn, name)

    def run(interp, args, kwargs, node):
        if args:
            args = [_host(interp, args[0], node), *args[1:]]
        result = impl(*args, **kwargs)
        if name == "vjp":  # the pullback is a function the script calls
            pullback = result[1]
            result = (result[0], Transformed("vjp_fn", lambda i, a, k, n: pullback(*a, **k)), *result[2:])
        return result

    run.__name__ = name
    return API(name, run)


FUNC = {
    "grad": _transform("grad", _fn.grad, _takes_grad),
    "grad_and_value": _transform("grad_and_value", _fn.grad_and_value, _takes_grad),
    "jacrev": _transform("jacrev", _fn.jacrev, _takes_jacrev),
    "jacfwd": _transform("jacfwd", _fn.jacfwd, _takes_jacfwd),
    "hessian": _transform("hessian", _fn.hessian, _takes_hessian),
    "vjp": _direct("vjp"),
    "jvp": _direct("jvp"),
    "vmap": _transform("vmap", _fn.vmap, _takes_vmap, named=True),
}
