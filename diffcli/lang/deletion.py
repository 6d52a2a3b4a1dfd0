"""`del target, ...`: a name of the current scope, `obj[key]` (a list, a dict, a script
object with `__delitem__`, the nn containers), `obj.name` (an attribute of a script object
or a module; `tensor.grad`, as PyTorch allows). As in Python, the targets go left to right
and a tuple or list of targets deletes each; a dunder attribute is refused as everywhere."""

from __future__ import annotations

import operator

from ..engine.tensor import Tensor
from . import ast, dunders
from .errors import ScriptError
from .objects import ClassValue, Instance
from .values import type_name


def _error(type_name_, message, node):
    return ScriptError(type_name_, message, node.line, node.column)


def delete(interp, target, scope) -> None:
    kind = target.__class__
    if kind in (ast.TupleLit, ast.ListLit):
        for t in target.items:
            delete(interp, t, scope)
    elif kind is ast.Name:
        if not dict.__contains__(scope, target.id):
            raise _error("NameError", f"name '{target.id}' is not defined", target)
        dict.__delitem__(scope, target.id)
    elif kind is ast.Subscript:
        obj = interp.eval(target.obj, scope)
        key = interp.eval_index(target.index, scope)
        if isinstance(obj, (list, dict, Instance)):
            interp.guard(target, lambda: operator.delitem(obj, key))
        elif isinstance(obj, Tensor):
            raise _error("TypeError", "Tensor does not support deleting items", target)
        else:
            raise _error("TypeError", f"'{type_name(obj)}' object doesn't support item deletion", target)
    else:  # ast.Attribute
        obj = interp.eval(target.obj, scope)
        name = target.name
        if name.startswith("__"):
            raise dunders.refuse(name, target)
        if isinstance(obj, Tensor) and name == "grad":
            obj.grad = None
        elif isinstance(obj, ClassValue) and name in obj.ns:
            del obj.ns[name]
        elif isinstance(obj, Instance) and name in obj._attrs:
            del obj._attrs[name]
        else:
            raise _error("AttributeError", f"'{type_name(obj)}' object has no attribute '{name}'", target)
