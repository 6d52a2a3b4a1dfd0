"""Values as `str.format` and f-strings see them: Python's formatting would call Python's
own str() and repr() of diffcli's objects (`<function Interpreter._builtins.<locals>._print
at 0x7f...>`), so every value that is not a plain number, string or tensor is formatted
through a stand-in whose str() and repr() are the script's (`values.display` and
`values.show`: `<built-in function print>`, `<built-in method cpu of Tensor object>`,
without addresses, so output is the same run to run)."""
from __future__ import annotations

from ..engine.tensor import Tensor
from .values import display, show, type_name

_PLAIN = (str, int, float, bool, complex, type(None), Tensor)


class Shown:
    __slots__ = ("value", "names")

    def __init__(self, value, names):
        self.value, self.names = value, names

    def __str__(self):
        return display(self.value, self.names)

    def __repr__(self):
        return show(self.value, self.names)

    def __format__(self, spec):
        if spec:                                 # Python's object.__format__ refuses a spec
            raise TypeError(f"unsupported format string passed to {type_name(self.value)}.__format__")
        return str(self)


def shown(value, names=None):
    """`value` itself if Python formats it as a script expects, else its stand-in."""
    return value if value.__class__ in _PLAIN else Shown(value, names)
