"""`torch.nn.Module` as a base class diffcli provides (`objects.ProvidedBase`).

A module is an `Instance` whose attributes (`_attrs`) hold, in assignment order, what
PyTorch keeps in `__dict__`, `_parameters` and `_modules`: a value that is a `Parameter` is
one of its parameters, a value that is a module is one of its children. So
`named_parameters()`, `children()`, `state_dict()` and `print(model)` walk them in
PyTorch's order (own parameters first, then each child's, each shared parameter once).

Every module class (`Module` itself, `Linear`, `Sequential`, the activations and the
losses of `nn_layers.py`) is a `ModuleClass`: its methods are `NativeMethod`s looked up
through the MRO, so a script class may derive from any of them (`class Net(nn.Module)`,
`class MyLinear(nn.Linear)`) and override `forward` or `extra_repr`. Nothing of the host
is reachable: attributes go through `classes.attribute`, dunders through `dunders.read`.
"""

from __future__ import annotations

import collections

from ..engine.hooks import _Store
from ..engine.parameter import Parameter
from ..engine.tensor import Tensor
from .objects import (
    MISSING,
    BoundMethod,
    ClassMethod,
    ClassValue,
    Instance,
    NativeMethod,
    ProvidedBase,
    ScriptObject,
    StaticMethod,
    find_in_mro,
)


class StateDict(collections.OrderedDict):
    """What `state_dict()` returns: an OrderedDict (its views print as `odict_keys([...])`),
    printed as Python 3.11 prints one."""

    __slots__ = ()

    def __repr__(self):
        return "OrderedDict([" + ", ".join(f"({k!r}, {v!r})" for k, v in self.items()) + "])"

    __str__ = __repr__


class ModuleState:
    """What a module registers besides parameters and children (lang/nn_registry.py): its
    buffers' names (their values are attributes), the non-persistent ones, its hooks."""

    __slots__ = ("buffers", "non_persistent", "hooks")

    def __init__(self):
        self.buffers, self.non_persistent = {}, set()
        self.hooks = {
            k: _Store() for k in ("forward_pre", "forward", "backward", "full_backward", "full_backward_pre")
        }


def state_of(inst) -> ModuleState:
    state = getattr(inst, "_nn", None)
    if state is None:
        state = inst._nn = ModuleState()
    return state


def own_buffers(inst, persistent_only=False):
    state = getattr(inst, "_nn", None)
    if state is None:
        return []
    return [
        (k, inst._attrs[k])
        for k in state.buffers
        if inst._attrs.get(k) is not None and not (persistent_only and k in state.non_persistent)
    ]


def add_methods(cls, methods) -> None:
    cls.methods.update({k: NativeMethod(k, v) for k, v in methods.items()})


def is_module(value) -> bool:
    return isinstance(value, Instance) and isinstance(value, MODULE.host)


def _initialised(inst) -> bool:
    return "training" in inst._attrs


def _module_repr(self) -> str:
    """`Module.__repr__`: the class name, its extra_repr, then each child indented."""
    extra = _call_method(self, "extra_repr", [])
    extra_lines = extra.split("\n") if extra else []
    child_lines = []
    for key, module in named_children(self):
        text = repr(module)
        lines = text.split("\n")
        if len(lines) > 1:
            text = lines[0] + "\n" + "\n".join("  " + line for line in lines[1:])
        child_lines.append(f"({key}): {text}")
    lines = extra_lines + child_lines
    main = self._cls.name + "("
    if lines:
        if len(extra_lines) == 1 and not child_lines:
            main += extra_lines[0]
        else:
            main += "\n  " + "\n  ".join(lines) + "\n"
    return main + ")"


def _call_method(inst, name, args, node=None):
    """Call `inst.name(*args)` as the script sees it (a script's override, or the native one)."""
    found = find_in_mro(inst._cls.mro, name)
    if found is MISSING:
        raise AttributeError(f"'{inst._cls.name}' object has no attribute '{name}'")
    value = found[1]
    if isinstance(value, NativeMethod):
        return value.fn(_interp(inst), inst, list(args), {}, node)
    interp = _interp(inst)
    return interp.call_value(value, [inst, *args], {}, node if node is not None else _node(inst))


def _interp(inst):
    for klass in inst._cls.mro:
        if isinstance(klass, ClassValue):
            return klass.interp
    return None


def _node(inst):
    for klass in inst._cls.mro:
        if isinstance(klass, ClassValue):
            return klass.node
    return None


# --- walking the tree -----------------------------------------------------------------------


def own_parameters(inst):
    return [(k, v) for k, v in inst._attrs.items() if isinstance(v, Parameter)]


def named_children(inst):
    return [(k, v) for k, v in inst._attrs.items() if is_module(v)]


def named_modules(inst, prefix="", memo=None):
    memo = set() if memo is None else memo
    if id(inst) in memo:
        return []
    memo.add(id(inst))
    out = [(prefix, inst)]
    for name, child in named_children(inst):
        out += named_modules(child, f"{prefix}.{name}" if prefix else name, memo)
    return out


def named_parameters(inst, prefix="", recurse=True, remove_duplicate=True):
    mods = named_modules(inst, prefix) if recurse else [(prefix, inst)]
    seen, out = set(), []
    for mod_prefix, mod in mods:
        for name, p in own_parameters(mod):
            if remove_duplicate and id(p) in seen:
                continue
            seen.add(id(p))
            out.append((f"{mod_prefix}.{name}" if mod_prefix else name, p))
    return out


def parameters(inst):
    return [p for _, p in named_parameters(inst)]


# --- Module's methods ------------------------------------------------------------------------


def _init(interp, self, args, kwargs, node):
    if args or kwargs:
        raise TypeError(
            f"Module.__init__() takes 1 positional argument but {len(args) + 1} were given"
            if args
            else f"Module.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
        )
    if not _initialised(self):
        self._attrs["training"] = True


def _call(interp, self, args, kwargs, node):
    found = find_in_mro(self._cls.mro, "forward")
    if found is MISSING or found[0] is MODULE:
        raise NotImplementedError(f'Module [{self._cls.name}] is missing the required "forward" function')
    fn = found[1]
    if isinstance(fn, NativeMethod):
        return interp.guard(node, lambda: fn.fn(interp, self, list(args), kwargs, node))
    if isinstance(fn, StaticMethod):  # `@staticmethod def forward(a, b)`: no self
        return interp.call_value(fn.func, list(args), kwargs, node)
    if isinstance(fn, ClassMethod):
        return interp.call_value(BoundMethod(self._cls, fn.func), list(args), kwargs, node)
    return interp.call_value(BoundMethod(self, fn), list(args), kwargs, node)


def _forward(interp, self, args, kwargs, node):
    raise NotImplementedError(f'Module [{self._cls.name}] is missing the required "forward" function')


def _args(name, args, kwargs, names, defaults):
    """Bind a native method's arguments (after self) to `names` with `defaults`."""
    if len(args) > len(names):
        raise TypeError(
            f"{name}() takes from 1 to {len(names) + 1} positional arguments but {len(args) + 1} were given"
        )
    out = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        if k in out:
            raise TypeError(f"{name}() got multiple values for argument '{k}'")
        out[k] = v
    for k, v in zip(names[len(names) - len(defaults) :], defaults):
        out.setdefault(k, v)
    missing = [k for k in names if k not in out]
    if missing:
        raise TypeError(f"{name}() missing 1 required positional argument: '{missing[0]}'")
    return [out[k] for k in names]


def _parameters(interp, self, args, kwargs, node):
    (recurse,) = _args("Module.parameters", args, kwargs, ["recurse"], [True])
    return iter([p for _, p in named_parameters(self, recurse=recurse)])


def _named_parameters(interp, self, args, kwargs, node):
    prefix, recurse, dup = _args(
        "Module.named_parameters", args, kwargs, ["prefix", "recurse", "remove_duplicate"], ["", True, True]
    )
    return iter(named_parameters(self, prefix, recurse, dup))


def _children(interp, self, args, kwargs, node):
    _args("Module.children", args, kwargs, [], [])
    return iter([m for _, m in named_children(self)])


def _named_children(interp, self, args, kwargs, node):
    _args("Module.named_children", args, kwargs, [], [])
    return iter(named_children(self))


def _modules(interp, self, args, kwargs, node):
    _args("Module.modules", args, kwargs, [], [])
    return iter([m for _, m in named_modules(self)])


def _named_modules(interp, self, args, kwargs, node):
    (prefix,) = _args("Module.named_modules", args, kwargs, ["prefix"], [""])
    return iter(named_modules(self, prefix))


def _zero_grad(interp, self, args, kwargs, node):
    (set_to_none,) = _args("Module.zero_grad", args, kwargs, ["set_to_none"], [True])
    for p in parameters(self):
        zero_grad_of(p, set_to_none)


def zero_grad_of(p: Tensor, set_to_none: bool) -> None:
    """What `zero_grad` does to one parameter: its grad becomes None, or zeros in place
    (detached from any graph, as PyTorch's `grad.detach_()` / `requires_grad_(False)`)."""
    g = p._grad
    if g is None:
        return
    if set_to_none:
        p._grad = None
        return
    if g.grad_fn is not None:
        g.grad_fn = None
    g.needs_grad = False
    g.array[...] = 0
    g._version[0] += 1


def _train(interp, self, args, kwargs, node):
    (mode,) = _args("Module.train", args, kwargs, ["mode"], [True])
    if not isinstance(mode, bool):
        raise ValueError("training mode is expected to be boolean")
    for _, m in named_modules(self):
        m._attrs["training"] = mode
    return self


def _eval(interp, self, args, kwargs, node):
    _args("Module.eval", args, kwargs, [], [])
    return _train(interp, self, [False], {}, node)


def _requires_grad_(interp, self, args, kwargs, node):
    (flag,) = _args("Module.requires_grad_", args, kwargs, ["requires_grad"], [True])
    for p in parameters(self):
        p.needs_grad = bool(flag)
    return self


def _state_dict(interp, self, args, kwargs, node):
    prefix, keep_vars = _args("Module.state_dict", args, kwargs, ["prefix", "keep_vars"], ["", False])
    out = StateDict()
    for mod_prefix, mod in named_modules(self, prefix.rstrip(".") if prefix else ""):
        for name, p in own_parameters(mod) + own_buffers(mod, persistent_only=True):
            key = f"{mod_prefix}.{name}" if mod_prefix else name
            out[key] = p if keep_vars else _detached(p)
    return out


def _detached(p: Tensor) -> Tensor:
    t = Tensor(p.array)
    t._version = p._version
    return t


def _load_state_dict(interp, self, args, kwargs, node):
    state, strict = _args("Module.load_state_dict", args, kwargs, ["state_dict", "strict"], [True])
    if not isinstance(state, dict):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state).__name__}.")
    own = {  # each module's parameters, then its persistent buffers, as state_dict lists them
        f"{pre}.{name}" if pre else name: p
        for pre, mod in named_modules(self)
        for name, p in own_parameters(mod) + own_buffers(mod, persistent_only=True)
    }
    missing = [k for k in own if k not in state]
    unexpected = [k for k in state if k not in own]
    if strict and (missing or unexpected):
        parts = []
        if missing:
            parts.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
        if unexpected:
            parts.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        raise RuntimeError(f"Error(s) in loading state_dict for {self._cls.name}:\n\t" + "\n\t".join(parts))
    for k, p in own.items():
        if k in state:
            v = state[k]
            if not isinstance(v, Tensor) or v.array.shape != p.array.shape:
                shape = getattr(getattr(v, "array", None), "shape", None)
                raise RuntimeError(
                    f"Error(s) in loading state_dict for {self._cls.name}:\n\tsize mismatch for {k}: "
                    f"copying a param with shape {_size(shape)} from checkpoint, the shape in current "
                    f"model is {_size(p.array.shape)}."
                )
            p.array[...] = v.array
            p._version[0] += 1
    return _IncompatibleKeys(missing, unexpected)


def _size(shape):
    return "torch.Size([" + ", ".join(str(s) for s in (shape or ())) + "])"


class _IncompatibleKeys(ScriptObject):
    """What `load_state_dict` returns (PyTorch's namedtuple, as it prints)."""

    kind = "_IncompatibleKeys"
    __slots__ = ("missing", "unexpected")

    def __init__(self, missing, unexpected):
        self.missing, self.unexpected = missing, unexpected

    def __repr__(self):
        if not self.missing and not self.unexpected:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing!r}, unexpected_keys={self.unexpected!r})"

    __str__ = __repr__


def _add_module(interp, self, args, kwargs, node):
    name, module = _args("Module.add_module", args, kwargs, ["name", "module"], [])
    if not isinstance(name, str):
        raise TypeError(f"module name should be a string. Got {type(name).__name__}")
    if module is not None and not is_module(module):
        raise TypeError(f"{type(module).__name__} is not a Module subclass")
    if "." in name:
        raise KeyError(f'module name can\'t contain ".", got: {name}')
    self._attrs[name] = module


def _register_parameter(interp, self, args, kwargs, node):
    name, param = _args("Module.register_parameter", args, kwargs, ["name", "param"], [])
    if param is not None and not isinstance(param, Parameter):
        raise TypeError(
            f"cannot assign '{_torch_type(param)}' object to parameter '{name}' "
            "(torch.nn.Parameter or None required)"
        )
    self._attrs[name] = param


def _torch_type(value):
    return "torch.FloatTensor" if isinstance(value, Tensor) else type(value).__name__


def _apply(interp, self, args, kwargs, node):
    (fn,) = _args("Module.apply", args, kwargs, ["fn"], [])
    for _, child in named_children(self):
        _apply(interp, child, [fn], {}, node)
    interp.call_value(fn, [self], {}, node)
    return self


def _extra_repr(interp, self, args, kwargs, node):
    return ""


def _same(interp, self, args, kwargs, node):  # .to(...), .cpu(), .float(): one CPU, float32
    return self


def _get_name(interp, self, args, kwargs, node):
    return self._cls.name


_METHODS = {
    "__init__": _init,
    "__call__": _call,
    "forward": _forward,
    "parameters": _parameters,
    "named_parameters": _named_parameters,
    "children": _children,
    "named_children": _named_children,
    "modules": _modules,
    "named_modules": _named_modules,
    "zero_grad": _zero_grad,
    "train": _train,
    "eval": _eval,
    "requires_grad_": _requires_grad_,
    "state_dict": _state_dict,
    "load_state_dict": _load_state_dict,
    "add_module": _add_module,
    "register_module": _add_module,
    "register_parameter": _register_parameter,
    "apply": _apply,
    "extra_repr": _extra_repr,
    "to": _same,
    "cpu": _same,
    "float": _same,
    "_get_name": _get_name,
}


class ModuleClass(ProvidedBase):
    """A module class diffcli provides: `torch.nn.Module`, or one of its subclasses (`parent`)."""

    def __init__(self, name, module_path, methods, parent=None):
        self.name = name
        self.full_name = f"{module_path}.{name}"
        self.methods = {k: NativeMethod(k, v) for k, v in methods.items()}
        bases = (parent.host,) if parent is not None else (Instance,)
        slots = ("_nn",) if parent is None else ()  # (Module's: the instance's ModuleState)
        ns = {"__slots__": slots, "_script_class": self, "__module__": module_path, "__qualname__": name}
        if parent is None:
            ns["__repr__"] = ns["__str__"] = _module_repr
        self.host = type(name, bases, ns)

    def lookup(self, name):
        return self.methods.get(name, MISSING)

    def set_attribute(self, interp, inst, name, value) -> bool:
        if self is not MODULE:
            return False
        if isinstance(value, Parameter) or is_module(value):
            if not _initialised(inst):
                what = "parameters" if isinstance(value, Parameter) else "module"
                raise AttributeError(f"cannot assign {what} before Module.__init__() call")
        elif name in state_of(inst).buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_torch_type(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
        elif name in inst._attrs:
            old = inst._attrs[name]
            if isinstance(old, Parameter) and value is not None:
                raise TypeError(
                    f"cannot assign '{_torch_type(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            if is_module(old) and value is not None:
                raise TypeError(
                    f"cannot assign '{_torch_type(value)}' as child module "
                    f"'{name}' (torch.nn.Module or None expected)"
                )
        inst._attrs[name] = value
        return True


MODULE = ModuleClass("Module", "torch.nn.modules.module", _METHODS)
