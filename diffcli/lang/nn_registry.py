"""What a `torch.nn.Module` registers besides its parameters and children: buffers
(`register_buffer`, `buffers()`, `named_buffers()`; the persistent ones are in
`state_dict()`) and hooks (`register_forward_pre_hook`, `register_forward_hook`,
`register_backward_hook`, and the full backward hooks of lang/nn_hooks.py, whose identity
nodes `BackwardHookFunctionBackward` change the inputs' and outputs' grad_fn), as PyTorch's
Module keeps them.

A module's buffers and hooks live in its `ModuleState` (`nn.state_of`); a buffer's value is
one of the instance's attributes, so `self.mean` reads it. `__call__` runs the hooks around
`nn._call` (the forward) in PyTorch's order: forward pre-hooks (a non-None result replaces
the arguments), forward, forward hooks (a non-None result replaces the output), then the
backward hooks are attached to the output's graph:

a legacy (non-full) backward hook becomes a hook of the output's `grad_fn`:
`hook(module, grad_input, grad_output)` with that node's gradients, as PyTorch does (and
warns as it does when that node is not the whole forward).
"""

from __future__ import annotations

from ..engine import errors as engine_errors
from ..engine import hooks
from ..engine.grad_mode import is_grad_enabled
from ..engine.tensor import Tensor
from .autograd_ext import Handle
from .nn import MODULE, _args, _call, add_methods, named_modules, own_buffers, state_of
from .nn_hooks import BackwardHook
from .objects import MISSING, find_in_mro
from .pybuiltins import host_callable
from .values import type_name

NON_FULL_WARNING = (
    "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated "
    "and will be removed in future versions. This hook will be missing some grad_input. Please use "
    "register_full_backward_hook to get the documented behavior."
)


# --- buffers ------------------------------------------------------------------------------------


def _register_buffer(interp, self, args, kwargs, node):
    name, tensor, persistent = _args(
        "Module.register_buffer", args, kwargs, ["name", "tensor", "persistent"], [True]
    )
    state = state_of(self)
    if "training" not in self._attrs:
        raise AttributeError("cannot assign buffer before Module.__init__() call")
    if not isinstance(name, str):
        raise TypeError(f"buffer name should be a string. Got {type_name(name)}")
    if "." in name:
        raise KeyError('buffer name can\'t contain "."')
    if name == "":
        raise KeyError('buffer name can\'t be empty string ""')
    if name not in state.buffers and (name in self._attrs or find_in_mro(self._cls.mro, name) is not MISSING):
        raise KeyError(f"attribute '{name}' already exists")
    if tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(
            f"cannot assign '{type_name(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
        )
    state.buffers[name] = None
    if persistent:
        state.non_persistent.discard(name)
    else:
        state.non_persistent.add(name)
    self._attrs[name] = tensor


def named_buffers(inst, prefix="", recurse=True, remove_duplicate=True, persistent_only=False):
    mods = named_modules(inst, prefix) if recurse else [(prefix, inst)]
    seen, out = set(), []
    for mod_prefix, mod in mods:
        for name, b in own_buffers(mod, persistent_only):
            if remove_duplicate and id(b) in seen:
                continue
            seen.add(id(b))
            out.append((f"{mod_prefix}.{name}" if mod_prefix else name, b))
    return out


def _buffers(interp, self, args, kwargs, node):
    (recurse,) = _args("Module.buffers", args, kwargs, ["recurse"], [True])
    return iter([b for _, b in named_buffers(self, recurse=recurse)])


def _named_buffers(interp, self, args, kwargs, node):
    prefix, recurse, dup = _args(
        "Module.named_buffers", args, kwargs, ["prefix", "recurse", "remove_duplicate"], ["", True, True]
    )
    return iter(named_buffers(self, prefix, recurse, dup))


# --- hooks --------------------------------------------------------------------------------------


def _registrar(kind, keywords=()):
    def register(interp, self, args, kwargs, node):
        extra = [k for k in kwargs if k not in keywords]
        if extra:
            raise TypeError(f"Module.register_{kind}_hook() got an unexpected keyword argument '{extra[0]}'")
        if len(args) != 1:
            raise TypeError(
                f"Module.register_{kind}_hook() missing 1 required positional argument: 'hook'"
                if not args
                else f"Module.register_{kind}_hook() takes 2 positional arguments but {len(args) + 1} were given"
            )
        hooks_of = state_of(self).hooks
        other = {"backward": "full_backward", "full_backward": "backward"}.get(kind)
        if other is not None and hooks_of[other]:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single Module. "
                "Please use only one of them."
            )
        if "backward" in kind:
            interp.engine_callbacks = True
        return Handle(hooks._handle(state_of(self).hooks[kind], args[0]))

    return register


def _tensors(value):
    """The output tensor a legacy backward hook attaches to: the first one, nested or not."""
    while not isinstance(value, Tensor):
        if isinstance(value, dict):
            value = next(iter(value.values()))
        elif isinstance(value, (tuple, list)) and value:
            value = value[0]
        else:
            return None
    return value


def _warn_non_full(inputs, result, grad_fn):
    """PyTorch's `_maybe_warn_non_full_backward_hook`, for its one common case: every input
    and output a tensor, the outputs from one node whose inputs are not the module's inputs."""
    outs = (result,) if isinstance(result, Tensor) else result
    if not isinstance(outs, tuple) or not all(isinstance(r, Tensor) for r in outs):
        return
    if not all(isinstance(i, Tensor) for i in inputs):
        return
    out_fns = {id(r.grad_fn) for r in outs if r.grad_fn is not None}
    if len(out_fns) != 1 or id(grad_fn) not in out_fns:
        return
    in_fns = {id(i.grad_fn) for i in inputs if i.grad_fn is not None}
    if in_fns != {id(f) for f, _ in grad_fn.next_functions if f is not None}:
        engine_errors.warn(NON_FULL_WARNING, "FutureWarning")


def _attach_legacy(interp, module, store, args, result, node):
    var = _tensors(result)
    grad_fn = var.grad_fn if var is not None else None
    if grad_fn is None:
        return
    for fn in list(store.values()):
        call = host_callable(interp, fn, node)
        hooks.register_node_hook(grad_fn, lambda gi, go, call=call: call(module, gi, go))
    _warn_non_full(args, result, grad_fn)


def _call_with_hooks(interp, self, args, kwargs, node):
    state = state_of(self)
    if not any(state.hooks.values()):
        return _call(interp, self, args, kwargs, node)
    args = list(args)
    for fn in list(state.hooks["forward_pre"].values()):
        out = interp.call_value(fn, [self, tuple(args)], {}, node)
        if out is not None:
            args = list(out) if isinstance(out, tuple) else [out]
    full = None
    if (state.hooks["full_backward"] or state.hooks["full_backward_pre"]) and is_grad_enabled():
        full = BackwardHook(
            interp,
            self,
            list(state.hooks["full_backward"].values()),
            list(state.hooks["full_backward_pre"].values()),
            node,
        )
        args = full.setup_inputs(args)
    result = _call(interp, self, args, kwargs, node)
    for fn in list(state.hooks["forward"].values()):
        out = interp.call_value(fn, [self, tuple(args), result], {}, node)
        if out is not None:
            result = out
    if state.hooks["backward"] and is_grad_enabled():
        _attach_legacy(interp, self, state.hooks["backward"], args, result, node)
    if full is not None:
        result = full.setup_output(result)
    return result


add_methods(
    MODULE,
    {
        "register_buffer": _register_buffer,
        "buffers": _buffers,
        "named_buffers": _named_buffers,
        "register_forward_pre_hook": _registrar("forward_pre", ("prepend", "with_kwargs")),
        "register_forward_hook": _registrar("forward", ("prepend", "with_kwargs", "always_call")),
        "register_backward_hook": _registrar("backward"),
        "register_full_backward_hook": _registrar("full_backward", ("prepend",)),
        "register_full_backward_pre_hook": _registrar("full_backward_pre", ("prepend",)),
        "__call__": _call_with_hooks,
    },
)
