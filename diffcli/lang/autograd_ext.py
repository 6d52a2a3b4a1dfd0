"""What a script reaches of autograd's insides: grad_fn nodes (and custom Functions' ctx),
hooks and their handles, saved tensors, and the `torch.autograd.graph` / `.function`
namespaces.

Every attribute is a whitelist entry here; host objects are never handed to `getattr`
with a script's name. Script functions given as hooks become host callables that call
back into the interpreter (`pybuiltins.host_callable`).
"""

from __future__ import annotations

import weakref

from ..engine import gradcheck, hooks, saved
from ..engine.custom_function import FunctionNode, OutputSlot
from ..engine.node import Node
from ..engine.tensor import Tensor
from . import autograd_function, legacy
from .dunders import refuse
from .errors import ScriptError
from .exceptions import EXCEPTIONS, ExceptionClass
from .objects import MISSING, Builtin, ScriptObject
from .pybuiltins import host_callable
from .values import MODULES, TORCH, Namespace, UserFunction, type_name


class Handle(ScriptObject):
    """`torch.utils.hooks.RemovableHandle` as a script holds it: `remove()` and `id`."""

    kind = "RemovableHandle"
    __slots__ = ("handle",)

    def __init__(self, handle):
        self.handle = handle

    def __repr__(self):
        return "<torch.utils.hooks.RemovableHandle object>"


class RawSaved(ScriptObject):
    """`grad_fn._raw_saved_X` (torch._C._autograd.SavedTensor): `register_hooks(pack, unpack)`."""

    kind = "SavedTensor"
    __slots__ = ("saved",)

    def __init__(self, s):
        self.saved = s

    def __repr__(self):
        return "<torch._C._autograd.SavedTensor object>"


OBJECTS = (Node, Handle, RawSaved)
_metadata = weakref.WeakKeyDictionary()  # node -> its `metadata` dict
NODE_NAMES = ("name", "next_functions", "metadata", "register_hook", "register_prehook", "requires_grad")
CTX_METHODS = ("save_for_backward", "mark_dirty", "mark_non_differentiable", "set_materialize_grads")
CTX_ATTRS = ("saved_tensors", "needs_input_grad")


def _error(type_name_, message, node):
    return ScriptError(type_name_, message, node.line, node.column)


def _hook_name(fn):
    return fn.name if isinstance(fn, UserFunction) else getattr(fn, "name", "hook")


def _one_callable(what, args, kwargs, node, n=1):
    if kwargs or len(args) != n:
        raise _error(
            "TypeError",
            f"{what}() takes exactly {n} argument{'s' if n > 1 else ''} ({len(args) + len(kwargs)} given)",
            node,
        )
    return args


def _registrar(owner, name, register):
    def fn(interp, args, kwargs, node):
        (hook,) = _one_callable(name, args, kwargs, node)
        call = host_callable(interp, hook, node)
        interp.engine_callbacks = True
        return Handle(interp.guard(node, lambda: register(owner, call, hook)))

    return Builtin(name, fn)


def tensor_method(interp, t: Tensor, name, e):
    """`t.register_hook`, `t.register_post_accumulate_grad_hook`, and the legacy methods."""
    if name in legacy.TENSOR_METHODS:
        return legacy.tensor_method(t, name)
    if name == "register_hook":
        return _registrar(
            t, name, lambda o, call, hook: hooks.register_tensor_hook(o, call, _hook_name(hook))
        )
    return _registrar(t, name, lambda o, call, hook: hooks.register_post_accumulate_grad_hook(o, call))


TENSOR_METHODS = ("register_hook", "register_post_accumulate_grad_hook", *legacy.TENSOR_METHODS)


def attribute(interp, obj, e):
    """An attribute of a node, handle or saved tensor, or MISSING (the caller's error)."""
    name = e.name
    if isinstance(obj, Handle):
        if name == "remove":
            return Builtin("remove", lambda interp_, args, kwargs, node: obj.handle.remove())
        if name == "id":
            return obj.handle.handles[0].id if isinstance(obj.handle, hooks._MultiHandle) else obj.handle.id
        return MISSING
    if isinstance(obj, RawSaved):
        if name == "register_hooks":

            def register(interp_, args, kwargs, node):
                pack, unpack = _one_callable("register_hooks", args, kwargs, node, 2)
                interp.engine_callbacks = True
                interp.guard(
                    node,
                    lambda: obj.saved.register_hooks(
                        host_callable(interp, pack, node), host_callable(interp, unpack, node)
                    ),
                )

            return Builtin("register_hooks", register)
        return MISSING
    return _node_attribute(interp, obj, e)


def _node_attribute(interp, node, e):
    name = e.name
    if isinstance(node, OutputSlot):  # an output of a tuple-returning Function: its node
        node = node.main
    if isinstance(node, FunctionNode):
        if name in node.attrs:
            return node.attrs[name]
        if name in CTX_METHODS:
            return getattr(node, name)
        if name in CTX_ATTRS:
            return interp.guard(e, lambda: getattr(node, name))
    if name == "name":
        return node.torch_name
    if name == "next_functions":
        return node.next_functions
    if name == "variable" and hasattr(node, "variable"):
        return node.variable
    if name == "metadata":
        meta = _metadata.get(node)
        if meta is None:
            meta = _metadata[node] = {}
        return meta
    if name == "register_hook":
        return _registrar(node, name, lambda o, call, hook: hooks.register_node_hook(o, call))
    if name == "register_prehook":
        return _registrar(node, name, lambda o, call, hook: hooks.register_node_prehook(o, call))
    if name == "requires_grad":
        return True
    if name.startswith(("_saved_", "_raw_saved_")):
        value = interp.guard(e, lambda: saved.attribute(node, name))
        if value is MISSING:
            return MISSING
        return RawSaved(value) if isinstance(value, saved.SavedTensor) else value
    return MISSING


def set_attribute(interp, obj, target, value):
    """`ctx.k = v` on a custom Function's ctx; other nodes (PyTorch's, written in C++) refuse."""
    name = target.name
    if name.startswith("__"):
        raise refuse(name, target)
    if isinstance(obj, OutputSlot):
        obj = obj.main
    if isinstance(obj, FunctionNode) and name not in CTX_METHODS + CTX_ATTRS + NODE_NAMES:
        obj.attrs[name] = value
        return
    raise _error("AttributeError", f"cannot set attribute '{name}' of '{type_name(obj)}' object", target)


# --- the namespaces -------------------------------------------------------------------------


def _checker(name, check):
    """gradcheck / gradgradcheck: the function to check is a script callable."""

    def fn(interp, args, kwargs, node):
        if not args:
            raise _error(
                "TypeError", f"{name}() missing 2 required positional arguments: 'func' and 'inputs'", node
            )
        call = host_callable(interp, args[0], node)
        return interp.guard(node, lambda: check(call, *args[1:], **kwargs))

    return Builtin(name, fn)


GRADCHECK = _checker("gradcheck", gradcheck.gradcheck)
GRADGRADCHECK = _checker("gradgradcheck", gradcheck.gradgradcheck)


class NodeClass(legacy.CheckedClass):
    """`torch.autograd.graph.Node`: the class of every grad_fn, for isinstance()."""

    __slots__ = ()

    def __init__(self):
        super().__init__("Node", self._refuse)

    @staticmethod
    def _refuse(interp, args, kwargs, node):
        raise _error("TypeError", "cannot create 'torch.autograd.graph.Node' instances", node)

    def instance_check(self, obj) -> bool:
        return isinstance(obj, Node)

    def __repr__(self):
        return "<class 'torch.autograd.graph.Node'>"


def _multi_grad_hook(interp, args, kwargs, node):
    mode = kwargs.pop("mode", "all")
    if kwargs or len(args) != 2:
        raise _error("TypeError", "register_multi_grad_hook(tensors, fn, *, mode='all')", node)
    tensors, fn = args
    call = host_callable(interp, fn, node)
    interp.engine_callbacks = True
    return Handle(interp.guard(node, lambda: hooks.register_multi_grad_hook(tensors, call, mode)))


class HostClass(Builtin):
    """A torch class whose constructor takes script functions (they become host callables)."""

    __slots__ = ("qualname",)

    def __init__(self, name, fn, qualname):
        super().__init__(name, fn)
        self.qualname = qualname

    def __repr__(self):
        return f"<class '{self.qualname}'>"


def _saved_tensors_hooks(interp, args, kwargs, node):
    pack, unpack = _one_callable("saved_tensors_hooks", args, kwargs, node, 2)
    interp.engine_callbacks = True
    return saved.saved_tensors_hooks(host_callable(interp, pack, node), host_callable(interp, unpack, node))


def _save_on_cpu(interp, args, kwargs, node):
    return interp.guard(node, lambda: saved.save_on_cpu(*args, **kwargs))


GRAPH = Namespace(
    "torch.autograd.graph",
    {
        "saved_tensors_hooks": HostClass(
            "saved_tensors_hooks", _saved_tensors_hooks, "torch.autograd.graph.saved_tensors_hooks"
        ),
        "save_on_cpu": HostClass("save_on_cpu", _save_on_cpu, "torch.autograd.graph.save_on_cpu"),
        "register_multi_grad_hook": Builtin("register_multi_grad_hook", _multi_grad_hook),
        "Node": NodeClass(),
    },
)
FUNCTION_MODULE = Namespace(
    "torch.autograd.function",
    {
        "Function": autograd_function.FUNCTION,
        "once_differentiable": autograd_function.once_differentiable,
    },
)


def install():
    """Add these names to the torch namespaces (called once, at import)."""
    autograd = MODULES["torch.autograd"]
    autograd.members.update(
        {
            "Function": autograd_function.FUNCTION,
            "graph": GRAPH,
            "function": FUNCTION_MODULE,
            "gradcheck": GRADCHECK,
            "gradgradcheck": GRADGRADCHECK,
            **legacy.AUTOGRAD_MEMBERS,
        }
    )
    TORCH.members.update(legacy.TORCH_MEMBERS)
    # torch.autograd.gradcheck.GradcheckError derives from RuntimeError
    EXCEPTIONS.setdefault("GradcheckError", ExceptionClass("GradcheckError", EXCEPTIONS["RuntimeError"]))
    MODULES["torch.autograd.graph"] = GRAPH
    MODULES["torch.autograd.function"] = FUNCTION_MODULE
    TORCH.members.setdefault("autograd", autograd)


install()
