"""Security of what issue 12 exposes to scripts: custom Functions' ctx (the node), other
grad_fn nodes, hook handles, saved tensors, the saved-tensor hook contexts, gradcheck,
Variable and the typed tensor classes, inference_mode. Every attribute a script can read
off them is in an explicit list here; no dunder is readable or settable; script functions
given to the engine (hooks, forward/backward, gradcheck's function, pack/unpack) are
called back through the interpreter, so an error in them is a script error with a
position, never a traceback."""

from __future__ import annotations

import pytest

from diffcli.engine.custom_function import FunctionNode
from diffcli.engine.node import AccumulateGrad, Node
from diffcli.lang import ast as A
from diffcli.lang import autograd_ext, dunders, legacy
from diffcli.lang.errors import ScriptError
from diffcli.lang.interpreter import Interpreter
from diffcli.lang.parse import parse

from .samples import cli
from .test_security import _PROBES

SCRIPT = """\
import torch
from torch.autograd.function import once_differentiable
seen = []
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.k = 2
        seen.append(ctx)
        return x * x
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Sq.apply(x)
ctx = seen[0]
th = x.register_hook(lambda g: g)
nh = y.grad_fn.register_hook(lambda gi, go: None)
mh = torch.autograd.graph.register_multi_grad_hook((x,), lambda gs: None)
e = x.exp()
raw = e.grad_fn._raw_saved_result
mul = x * 2
acc = mul.grad_fn.next_functions[0][0]
sth = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)
soc = torch.autograd.graph.save_on_cpu()
inf = torch.inference_mode()
g, = torch.autograd.grad(Sq.apply(x), x, torch.ones(2, requires_grad=True), create_graph=True)
delayed = g.grad_fn
fn_class = torch.autograd.Function
node_class = torch.autograd.graph.Node
variable = torch.autograd.Variable
float_tensor = torch.FloatTensor
gradcheck = torch.autograd.gradcheck
"""

# what a script may read off each kind of object (beyond the probes that must fail)
NODE = {
    "name",
    "next_functions",
    "metadata",
    "register_hook",
    "register_prehook",
    "requires_grad",
    "__class__",
}  # (__class__ of a node: the TypeValue type() gives, `<class 'MulBackward0'>`)
ALLOWED = {
    "ctx": NODE
    | {
        "k",
        "save_for_backward",
        "saved_tensors",
        "needs_input_grad",
        "mark_dirty",
        "mark_non_differentiable",
        "set_materialize_grads",
    },
    "acc": NODE | {"variable"},
    "mul_node": NODE | {"_saved_other", "_saved_self", "_raw_saved_other", "_raw_saved_self"},
    "delayed": NODE,
    "th": {"remove", "id"},
    "nh": {"remove", "id"},
    "mh": {"remove", "id"},
    "raw": {"register_hooks"},
    "fn_class": {
        "apply",
        "forward",
        "backward",
        "setup_context",
        "__init__",
        "__call__",
        "__repr__",
        "__str__",
    },
}
ALLOWED["nh_node"] = ALLOWED["ctx"]  # (y.grad_fn is the ctx itself)
EXTRA_PROBES = [
    "attrs",
    "call_backward",
    "to_save",
    "dirty",
    "once",
    "arg_is_tensor",
    "materialize",
    "function_name",
    "saved_versions",
    "saved_outputs",
    "input_meta",
    "retained",
    "released",
    "seq",
    "fast",
    "fargs",
    "next_nodes",
    "handle",
    "handles",
    "_store",
    "store",
    "value",
    "unpack",
    "pack_hook",
    "unpack_hook",
    "src",
    "node",
    "saved",
    "variable",
    "enabled",
    "prev",
    "mode",
    "fn",
    "dtype",
    "qualname",
    "instance_check",
    "_make",
    "_refuse",
    "torch_name",
    "_rebuild_output",
    "unpack_saved",
    "check_saved",
    "release",
    "_backward",
    "backward_fn",
]


def _samples():
    interp = Interpreter(write=lambda s: None, warn=lambda *a: None)
    interp.run(parse(SCRIPT))
    env = interp.env
    samples = {
        k: env[k]
        for k in (
            "ctx",
            "acc",
            "delayed",
            "th",
            "nh",
            "mh",
            "raw",
            "sth",
            "soc",
            "inf",
            "fn_class",
            "node_class",
            "variable",
            "float_tensor",
            "gradcheck",
        )
    }
    samples["nh_node"] = env["y"].grad_fn
    samples["mul_node"] = env["mul"].grad_fn
    return interp, samples


def test_the_samples_are_the_objects_issue_12_exposes():
    _, s = _samples()
    assert isinstance(s["ctx"], FunctionNode) and s["ctx"] is s["nh_node"]
    assert isinstance(s["acc"], AccumulateGrad) and s["delayed"].name() == "DelayedError"
    assert all(isinstance(s[k], autograd_ext.Handle) for k in ("th", "nh", "mh"))
    assert isinstance(s["raw"], autograd_ext.RawSaved) and isinstance(
        s["float_tensor"], legacy.TypedTensorClass
    )
    assert isinstance(s["mul_node"], Node)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_no_attribute_outside_the_lists_is_readable():
    interp, samples = _samples()
    checked = 0
    for label, v in samples.items():
        allowed = ALLOWED.get(label, set())
        names = set(_PROBES) | set(EXTRA_PROBES) | {n for n in dir(v) if isinstance(n, str)} | allowed
        for name in sorted(names):
            node = A.Attribute(A.Name("o"), name)
            try:
                interp.attribute(v, node)
            except ScriptError as e:
                assert e.type_name == "AttributeError" or name in allowed, (label, name, e)
                if name.startswith("__") and name not in dunders.READABLE:  # (class special methods:
                    # looked up, absent)
                    assert "is not allowed" in e.message, (label, name, e.message)
                continue
            finally:
                checked += 1
            assert name in allowed or name in ("__name__", "__qualname__"), f"{label}.{name} is readable"
    assert checked > 1500


@pytest.mark.parametrize(
    "line",
    [
        "ctx.__class__.__mro__",
        "ctx.__dict__",
        "y.grad_fn.__init__",
        "th.__self__",
        "raw.__class__",
        "torch.autograd.Function.__subclasses__",
        "Sq.__mro__",
        "sth.__enter__",
        "inf.__class__",
        "torch.FloatTensor.__call__",
        "torch.autograd.graph.__dict__",
        "torch.autograd.Variable.__module__",
    ],
)
def test_dunders_of_the_new_objects_are_refused(line):
    r = cli("run", "-e", SCRIPT + f"print({line})\n")
    assert r.exit_code == 1 and "is not allowed in diffcli scripts" in r.stderr, r.stderr


@pytest.mark.parametrize(
    "line, message",
    [
        ("ctx.__class__ = int", "access to '__class__' is not allowed"),
        ("ctx.saved_tensors = 1", "cannot set attribute 'saved_tensors' of 'SqBackward' object"),
        ("ctx.save_for_backward = 1", "cannot set attribute 'save_for_backward' of 'SqBackward' object"),
        ("mul.grad_fn.backward_fn = print", "cannot set attribute 'backward_fn' of 'MulBackward0' object"),
        ("th.handle = 1", "cannot set attribute 'handle' of 'RemovableHandle' object"),
        ("raw.saved = 1", "cannot set attribute 'saved' of 'SavedTensor' object"),
    ],
)
def test_the_new_objects_refuse_assignments_that_reach_their_insides(line, message):
    r = cli("run", "-e", SCRIPT + line + "\n")
    assert r.exit_code == 1 and message in r.stderr, r.stderr


@pytest.mark.parametrize(
    "body, where",
    [
        ("x.register_hook(lambda g: 1 / 0)\n(x * 2).sum().backward()", ":{n}:"),
        ("y2 = Sq.apply(x)\ny2.grad_fn.register_prehook(lambda go: go.nope)\ny2.sum().backward()", ":{n}:"),
        (
            "with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: undefined_name):\n"
            "    z = x.sin()\nz.sum().backward()",
            ":{n}:",
        ),
        ("torch.autograd.gradcheck(lambda a: a.nope, (x.double().detach().requires_grad_(),))", ":{n}:"),
    ],
)
def test_errors_in_script_callbacks_are_script_errors_with_a_position(body, where):
    n = SCRIPT.count("\n") + 1 + body.split("\n").index(next(b for b in body.split("\n") if "lambda" in b))
    r = cli("run", "-e", SCRIPT + body + "\n")
    assert r.exit_code == 1 and "Traceback" not in r.stderr
    assert where.format(n=n) in r.stderr.splitlines()[0], r.stderr


def test_a_hook_gets_only_script_values():
    """What the engine hands a hook is a tensor or a tuple of tensors/None: nothing of the host."""
    r = cli(
        "run",
        "-e",
        SCRIPT + "x.register_hook(lambda g: print(type(g)))\n"
        "mul2 = x * 3\nmul2.grad_fn.register_hook(lambda gi, go: print(type(gi), type(go), gi, go))\n"
        "mul2.grad_fn.register_prehook(lambda go: print(type(go)))\n"
        "x.register_post_accumulate_grad_hook(lambda t: print(type(t)))\n"
        "mul2.sum().backward()\n",
    )
    assert r.exit_code == 0, r.stderr
    assert r.stdout == (
        "<class 'tuple'>\n<class 'tuple'> <class 'tuple'> (tensor([3., 3.]), None) "
        "(tensor([1., 1.]),)\n<class 'torch.Tensor'>\n<class 'torch.Tensor'>\n"
    )
