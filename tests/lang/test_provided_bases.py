"""The hook for base classes that diffcli provides (`objects.ProvidedBase`): what a later
`torch.autograd.Function` or `torch.nn.Module` plugs into. A test-only base exercises every
hook: its methods (`lookup`, as NativeMethods), its instances' attributes
(`instance_attribute`), attribute assignment (`set_attribute`: nn.Module registers
parameters this way), the notice of a new subclass (`subclassed`: Function checks its
static forward/backward), `super().__init__()` reaching it, isinstance and the MRO."""

from __future__ import annotations

import pytest

from diffcli.lang.errors import ScriptError
from diffcli.lang.interpreter import Interpreter
from diffcli.lang.objects import MISSING, Instance, NativeMethod, ProvidedBase
from diffcli.lang.parse import parse


class Recorder(ProvidedBase):
    name = full_name = "Recorder"

    def __init__(self):
        self.host = type("Recorder", (Instance,), {"__slots__": (), "_script_class": self})
        self.subclasses, self.registered = [], []

    def lookup(self, name):
        if name == "__init__":
            return NativeMethod("__init__", self._init)
        if name == "describe":
            return NativeMethod(
                "describe",
                lambda interp, inst, args, kwargs, node: f"{inst._cls.name}: {sorted(inst._attrs)}",
            )
        return MISSING

    @staticmethod
    def _init(interp, inst, args, kwargs, node):
        if args or kwargs:
            raise TypeError("Recorder.__init__() takes no arguments")
        inst._attrs["ready"] = True

    def instance_attribute(self, inst, name):
        return 42 if name == "base_attr" else MISSING

    def set_attribute(self, interp, inst, name, value):
        if not name.startswith("param_"):
            return False
        self.registered.append((inst._cls.name, name))
        inst._attrs[name] = value
        return True

    def subclassed(self, interp, cls, node):
        self.subclasses.append(cls.name)


SCRIPT = """
class Net(Recorder):
    def __init__(self, k):
        super().__init__()
        self.param_w = k
        self.other = 1
    def forward(self, x):
        return x * self.param_w
class Deep(Net):
    pass
n = Deep(3)
print(n.describe(), n.base_attr, n.ready, n.forward(2), isinstance(n, Recorder), isinstance(n, Net))
print(type(n).__name__, Recorder, Deep)
"""


def run(text, base):
    out = []
    interp = Interpreter(write=out.append)
    interp.builtins["Recorder"] = base
    interp.run(parse(text))
    return "".join(out)


def test_every_hook_of_a_provided_base_is_reached():
    base = Recorder()
    assert run(SCRIPT, base) == (
        "Deep: ['other', 'param_w', 'ready'] 42 True 6 True True\n"
        "Deep <class 'Recorder'> <class '__main__.Deep'>\n"
    )
    assert base.subclasses == ["Net", "Deep"]
    assert base.registered == [("Deep", "param_w")]


def test_a_provided_base_s_own_errors_reach_the_script():
    with pytest.raises(ScriptError) as err:
        run("class A(Recorder):\n    def __init__(self):\n        super().__init__(1)\nA()\n", Recorder())
    assert (err.value.type_name, err.value.message, err.value.line) == (
        "TypeError",
        "Recorder.__init__() takes no arguments",
        3,
    )
