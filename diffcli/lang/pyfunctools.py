"""`functools.partial` for scripts: a callable that calls its function back through the
interpreter (under its caps) with the stored arguments first, as Python's does. A partial
of a partial is flattened into one (its `func` is the innermost function, the keywords
merged), as CPython does; `func`, `args` and `keywords` are readable, nothing else."""

from __future__ import annotations

from ..engine.tensor import Tensor
from .objects import Builtin, Instance, ScriptObject

ATTRS = ("func", "args", "keywords")


class Partial(Builtin):
    kind = "partial"
    __slots__ = ("func", "args", "keywords")

    def __init__(self, func, args, keywords):
        super().__init__("partial", self._call)
        self.func, self.args, self.keywords = func, tuple(args), dict(keywords)

    def _call(self, interp, args, kwargs, node):
        return interp.call_value(self.func, [*self.args, *args], {**self.keywords, **kwargs}, node)

    def __repr__(self):
        parts = [repr(self.func), *(repr(a) for a in self.args)]
        parts += [f"{k}={v!r}" for k, v in self.keywords.items()]
        return f"functools.partial({', '.join(parts)})"


def _callable(v) -> bool:
    if isinstance(v, Tensor):
        return False
    if isinstance(v, Instance):
        return True  # (a script class without __call__ fails when the partial is called)
    return isinstance(v, ScriptObject) or callable(v) or type(v).__name__ == "UserFunction"


def _partial(interp, args, kwargs, node):
    if not args:
        raise TypeError("type 'partial' takes at least one argument")
    func, rest = args[0], args[1:]
    if not _callable(func):
        raise TypeError("the first argument must be callable")
    if isinstance(func, Partial):
        return Partial(func.func, [*func.args, *rest], {**func.keywords, **kwargs})
    return Partial(func, rest, kwargs)


PARTIAL = Builtin("partial", _partial)
