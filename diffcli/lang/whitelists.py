"""What a script may read: the attributes and methods of tensors, graph nodes and Python's
lists, dicts and sets, and the iterators a script can hold (anything else is refused; tests/cli/test_security.py audits them)."""

from __future__ import annotations

from .. import engine

TENSOR_ATTRS = {
    "data",
    "grad",
    "requires_grad",
    "is_leaf",
    "grad_fn",
    "shape",
    "dtype",
    "ndim",
    "T",
    "_version",
    "retains_grad",
    "mT",
    "device",
    "is_cuda",
}
TENSOR_SETTABLE = {"data", "grad", "requires_grad"}
TENSOR_METHODS = (
    set(engine.METHODS)
    | set(engine.INPLACE)
    | {
        "backward",
        "retain_grad",
        "requires_grad_",
        "detach",
        "detach_",
        "zero_",
        "fill_",
        "item",
        "tolist",
        "size",
        "dim",
        "numel",
        "is_floating_point",
        "type_as",
        "view_as",
        "reshape_as",
        "cpu",
        "cuda",
    }
)
NODE_ATTRS = {"next_functions", "name", "variable"}
# methods of a script's Python lists (`losses.append(loss.item())`); `extend` and `insert`
# go through the interpreter, which caps their growth
LIST_METHODS = {"append", "extend", "insert", "pop", "remove", "index", "count", "reverse", "clear", "copy"}
# methods of a script's dicts; `update` and `setdefault` go through `pydict`, which caps growth
DICT_METHODS = {"keys", "values", "items", "get", "update", "pop", "popitem", "setdefault", "copy", "clear"}
# methods of a script's sets (`visited.add(node)`); growth goes through `pydict`, which caps it
SET_METHODS = {
    "add",
    "discard",
    "remove",
    "pop",
    "clear",
    "copy",
    "update",
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "issubset",
    "issuperset",
    "isdisjoint",
}
_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
# the iterators a script can hold (iter(), reversed(), map(), zip()...): each has __next__
ITERATORS = (
    zip,
    enumerate,
    map,
    filter,
    reversed,
    type(iter([])),
    type(iter(())),
    type(iter(range(0))),
    type(iter(range(1 << 64))),
    type(iter("")),
    type(iter("\u20ac")),
    type(iter({})),
    type(iter({}.values())),
    type(iter({}.items())),
    type(reversed([])),
    type(reversed(range(0))),
    type(reversed({})),
    type(reversed({}.values())),
    type(reversed({}.items())),
    type(iter(set())),
)
