"""The container modules of `torch.nn` besides Sequential: ModuleList, ModuleDict,
ParameterList and ParameterDict, each a `nn.ModuleClass` with PyTorch's methods, indexing,
`len`, iteration, `in` and printing (ModuleList folds repeated children into
`(0-2): 3 x Tanh()`; the parameter containers print each entry's dtype and size).

A container keeps its entries in the module's `_attrs` under PyTorch's keys (`"0"`,
`"1"`... for the lists, the given key for the dicts), so `named_parameters()`,
`state_dict()` and the parent's repr walk them as PyTorch does (`layers.0.weight`).
A plain tensor put in a parameter container becomes a Parameter, as in PyTorch.
"""

from __future__ import annotations

import operator

from ..engine import dtypes
from ..engine.parameter import Parameter, make_parameter
from ..engine.tensor import Tensor
from .legacy import tensor_type
from .nn import MODULE, ModuleClass, _args, is_module, named_children
from .objects import new_instance

PATH = "torch.nn.modules.container"


def _typename(value) -> str:
    return "torch.FloatTensor" if isinstance(value, Tensor) else type(value).__name__


def _check_module(module) -> None:
    if module is not None and not is_module(module):
        raise TypeError(f"{_typename(module)} is not a Module subclass")


def _base_init(interp, self, node):
    MODULE.methods["__init__"].fn(interp, self, [], {}, node)


def _abs_index(self, idx, n) -> str:
    """ModuleList._get_abs_string_index: the key of a (possibly negative) integer index."""
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return str(idx + n if idx < 0 else idx)


def _iterable(value) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


# --- ModuleList ---------------------------------------------------------------------------------


def _modules(self):
    return [m for _, m in named_children(self)]


def _ml_extend(interp, self, args, kwargs, node):
    (modules,) = _args("ModuleList.extend", args, kwargs, ["modules"], [])
    if not _iterable(modules) or isinstance(modules, Tensor):
        raise TypeError(f"ModuleList.extend should be called with an iterable, but got {_typename(modules)}")
    offset = len(_modules(self))
    for i, m in enumerate(list(modules)):
        _check_module(m)
        self._attrs[str(offset + i)] = m
    return self


def _ml_init(interp, self, args, kwargs, node):
    (modules,) = _args("ModuleList.__init__", args, kwargs, ["modules"], [None])
    _base_init(interp, self, node)
    if modules is not None:
        _ml_extend(interp, self, [modules], {}, node)


def _ml_append(interp, self, args, kwargs, node):
    (module,) = _args("ModuleList.append", args, kwargs, ["module"], [])
    _check_module(module)
    self._attrs[str(len(_modules(self)))] = module
    return self


def _ml_insert(interp, self, args, kwargs, node):
    index, module = _args("ModuleList.insert", args, kwargs, ["index", "module"], [])
    _check_module(module)
    mods = _modules(self)
    index = operator.index(index)
    n = len(mods)
    index = max(0, min(n, index + n if index < 0 else index))
    mods.insert(index, module)
    _renumber(self, mods)


def _renumber(self, mods):
    for k in [k for k, _ in named_children(self)]:
        del self._attrs[k]
    for i, m in enumerate(mods):
        self._attrs[str(i)] = m


def _ml_getitem(self, idx):
    mods = _modules(self)
    if isinstance(idx, slice):
        out = new_instance(MODULE_LIST)
        _ml_init(None, out, [mods[idx]], {}, None)
        return out
    return self._attrs[_abs_index(self, idx, len(mods))]


def _ml_setitem(self, idx, module):
    _check_module(module)
    self._attrs[_abs_index(self, idx, len(_modules(self)))] = module


def _ml_delitem(self, idx):
    mods = _modules(self)
    if isinstance(idx, slice):
        del mods[idx]
    else:
        del mods[int(_abs_index(self, idx, len(mods)))]
    _renumber(self, mods)


def _ml_repr(self) -> str:
    """ModuleList.__repr__: runs of equal children fold into `(i-j): n x child`."""
    reprs = [repr(m) for m in _modules(self)]
    if not reprs:
        return self._cls.name + "()"
    blocks = []  # [start, end, text]
    for i, r in enumerate(reprs):
        if blocks and blocks[-1][2] == r:
            blocks[-1][1] = i
        else:
            blocks.append([i, i, r])
    lines = []
    for start, end, text in blocks:
        local = f"({start}): {text}" if start == end else f"({start}-{end}): {end - start + 1} x {text}"
        lines.append(_addindent(local, 2))
    return self._cls.name + "(\n  " + "\n  ".join(lines) + "\n)"


MODULE_LIST = ModuleClass(
    "ModuleList",
    PATH,
    {"__init__": _ml_init, "append": _ml_append, "extend": _ml_extend, "insert": _ml_insert},
    MODULE,
)
MODULE_LIST.host.__getitem__ = _ml_getitem
MODULE_LIST.host.__setitem__ = _ml_setitem
MODULE_LIST.host.__delitem__ = _ml_delitem
MODULE_LIST.host.__len__ = lambda self: len(_modules(self))
MODULE_LIST.host.__iter__ = lambda self: iter(_modules(self))
MODULE_LIST.host.__repr__ = MODULE_LIST.host.__str__ = _ml_repr
MODULE_LIST.host.__iadd__ = lambda self, other: _ml_extend(None, self, [other], {}, None)


def _ml_add(self, other):
    if not (is_module(other) and other._cls is MODULE_LIST):
        return NotImplemented
    out = new_instance(MODULE_LIST)
    _ml_init(None, out, [_modules(self) + _modules(other)], {}, None)
    return out


MODULE_LIST.host.__add__ = _ml_add


# --- ModuleDict and ParameterDict ---------------------------------------------------------------


def _pairs(name, values):
    """What `update` takes: a mapping (dict, ModuleDict, ParameterDict) or an iterable of
    key/value pairs, with PyTorch's errors."""
    if isinstance(values, dict):
        return list(values.items())
    if is_module(values) and values._cls in (MODULE_DICT, PARAMETER_DICT):
        return list(_entries(values))
    if not _iterable(values) or isinstance(values, Tensor):
        raise TypeError(
            f"{name}.update should be called with an iterable of key/value pairs, but got {_typename(values)}"
        )
    out = []
    for j, pair in enumerate(values):
        if not _iterable(pair) or isinstance(pair, (str, Tensor)):
            raise TypeError(f"{name} update sequence element #{j} should be Iterable; is {_typename(pair)}")
        pair = list(pair)
        if len(pair) != 2:
            raise ValueError(f"{name} update sequence element #{j} has length {len(pair)}; 2 is required")
        out.append((pair[0], pair[1]))
    return out


def _entries(self):
    """The dict's (key, value) pairs, in insertion order."""
    if self._cls is MODULE_DICT:
        return named_children(self)
    return [(k, v) for k, v in self._attrs.items() if isinstance(v, Parameter)]


def _dict_class(name, put):
    def update(interp, self, args, kwargs, node):
        (values,) = _args(f"{name}.update", args, kwargs, ["modules" if put is _put_module else "values"], [])
        for k, v in _pairs(name, values):
            put(self, k, v)

    def init(interp, self, args, kwargs, node):
        (values,) = _args(
            f"{name}.__init__", args, kwargs, ["modules" if put is _put_module else "values"], [None]
        )
        _base_init(interp, self, node)
        if values is not None:
            update(interp, self, [values], {}, node)

    def getitem(self, key):
        for k, v in _entries(self):
            if k == key:
                return v
        raise KeyError(key)

    def delitem(self, key):
        getitem(self, key)
        del self._attrs[key]

    def pop(interp, self, args, kwargs, node):
        (key,) = _args(f"{name}.pop", args, kwargs, ["key"], [])
        value = getitem(self, key)
        del self._attrs[key]
        return value

    def clear(interp, self, args, kwargs, node):
        _args(f"{name}.clear", args, kwargs, [], [])
        for k, _ in _entries(self):
            del self._attrs[k]

    def keys(interp, self, args, kwargs, node):
        _args(f"{name}.keys", args, kwargs, [], [])
        return dict(_entries(self)).keys()

    def values(interp, self, args, kwargs, node):
        _args(f"{name}.values", args, kwargs, [], [])
        return dict(_entries(self)).values()

    def items(interp, self, args, kwargs, node):
        _args(f"{name}.items", args, kwargs, [], [])
        return dict(_entries(self)).items()

    def get(interp, self, args, kwargs, node):  # (ParameterDict's; ModuleDict has none)
        key, default = _args(f"{name}.get", args, kwargs, ["key", "default"], [None])
        return dict(_entries(self)).get(key, default)

    methods = {
        "__init__": init,
        "update": update,
        "pop": pop,
        "clear": clear,
        "keys": keys,
        "values": values,
        "items": items,
    }
    if put is _put_parameter:
        methods["get"] = get
        methods["extra_repr"] = _pd_extra_repr
    cls = ModuleClass(name, PATH, methods, MODULE)
    cls.host.__getitem__ = getitem
    cls.host.__setitem__ = put
    cls.host.__delitem__ = delitem
    cls.host.__len__ = lambda self: len(_entries(self))
    cls.host.__iter__ = lambda self: iter([k for k, _ in _entries(self)])
    cls.host.__contains__ = lambda self, key: any(k == key for k, _ in _entries(self))
    return cls


def _check_key(key):
    if not isinstance(key, str):
        raise TypeError(f"module name should be a string. Got {_typename(key)}")
    if "." in key:
        raise KeyError(f'module name can\'t contain ".", got: {key}')
    if key == "":
        raise KeyError('module name can\'t be empty string ""')


def _put_module(self, key, module):
    _check_key(key)
    _check_module(module)
    self._attrs[key] = module


def _as_parameter(value):
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return make_parameter(value)
    if not isinstance(value, Parameter):
        raise TypeError(
            f"cannot assign '{_typename(value)}' object to parameter (diffcli's parameter containers "
            "hold tensors only)"
        )
    return value


def _put_parameter(self, key, value):
    if not isinstance(key, str):
        raise TypeError(f"attribute name must be string, but got {_typename(key)}")
    _check_key(key)
    self._attrs[key] = _as_parameter(value)


def _size_text(p) -> str:
    return "x".join(str(s) for s in p.array.shape)


def _pd_extra_repr(interp, self, args, kwargs, node):
    return "\n".join(
        f"  ({k}): Parameter containing: [{tensor_type(p)} of size {_size_text(p)}]"
        for k, p in _entries(self)
    )


MODULE_DICT = _dict_class("ModuleDict", _put_module)
PARAMETER_DICT = _dict_class("ParameterDict", _put_parameter)


# --- ParameterList ------------------------------------------------------------------------------


def _params(self):
    return [v for v in self._attrs.values() if isinstance(v, Parameter)]


def _pl_extend(interp, self, args, kwargs, node):
    (values,) = _args("ParameterList.extend", args, kwargs, ["values"], [])
    if not _iterable(values) or isinstance(values, Tensor):
        raise TypeError(
            f"ParameterList.extend should be called with an iterable, but got {_typename(values)}"
        )
    for v in list(values):
        _pl_append(interp, self, [v], {}, node)
    return self


def _pl_append(interp, self, args, kwargs, node):
    (value,) = _args("ParameterList.append", args, kwargs, ["value"], [])
    self._attrs[str(len(_params(self)))] = _as_parameter(value)
    return self


def _pl_init(interp, self, args, kwargs, node):
    (values,) = _args("ParameterList.__init__", args, kwargs, ["values"], [None])
    _base_init(interp, self, node)
    if values is not None:
        _pl_extend(interp, self, [values], {}, node)


def _pl_getitem(self, idx):
    ps = _params(self)
    if isinstance(idx, slice):
        out = new_instance(PARAMETER_LIST)
        _pl_init(None, out, [ps[idx]], {}, None)
        return out
    return self._attrs[_abs_index(self, idx, len(ps))]


def _pl_setitem(self, idx, value):
    self._attrs[_abs_index(self, idx, len(_params(self)))] = _as_parameter(value)


def _pl_extra_repr(interp, self, args, kwargs, node):
    return "\n".join(
        f"  ({i}): Parameter containing: [{dtypes.of(p.array.dtype)} of size {_size_text(p)}]"
        for i, p in enumerate(_params(self))
    )


PARAMETER_LIST = ModuleClass(
    "ParameterList",
    PATH,
    {"__init__": _pl_init, "append": _pl_append, "extend": _pl_extend, "extra_repr": _pl_extra_repr},
    MODULE,
)
PARAMETER_LIST.host.__getitem__ = _pl_getitem
PARAMETER_LIST.host.__setitem__ = _pl_setitem
PARAMETER_LIST.host.__len__ = lambda self: len(_params(self))
PARAMETER_LIST.host.__iter__ = lambda self: iter(_params(self))

CLASSES = {
    "ModuleList": MODULE_LIST,
    "ModuleDict": MODULE_DICT,
    "ParameterList": PARAMETER_LIST,
    "ParameterDict": PARAMETER_DICT,
}
