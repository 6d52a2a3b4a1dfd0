"""`Optimizer.state_dict()` and `Optimizer.load_state_dict()` as torch.optim's: the state
keyed by each parameter's index in group order, the groups' hyperparameters with `params`
as those indices; loading checks the groups' count and sizes with PyTorch's messages, takes
the saved hyperparameters and state for the optimizer's own parameters (a floating-point
state tensor other than `step` is cast to its parameter's dtype, as PyTorch casts it).
"""

from __future__ import annotations

import copy

from ..engine.ops.conversion import to_dtype
from ..engine.tensor import Tensor
from .nn import _args


def _index(self):
    out, start = {}, 0
    for g in self._attrs["param_groups"]:
        for p in g["params"]:
            if id(p) not in out:
                out[id(p)] = start
                start += 1
    return out


def state_dict(interp, self, args, kwargs, node):
    _args("Optimizer.state_dict", args, kwargs, [], [])
    index = _index(self)
    groups = []
    for g in self._attrs["param_groups"]:
        packed = {k: v for k, v in g.items() if k != "params"}
        packed["params"] = [index[id(p)] for p in g["params"]]
        groups.append(packed)
    state = {index[id(p)] if isinstance(p, Tensor) else p: v for p, v in self._attrs["state"].items()}
    return {"state": state, "param_groups": groups}


def _cast(param, value, key):
    if isinstance(value, Tensor):
        if key != "step" and value.array.dtype.kind == "f" and param.array.dtype.kind == "f":
            if value.array.dtype != param.array.dtype:
                return to_dtype(value, param.array.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    return value


def load_state_dict(interp, self, args, kwargs, node):
    (sd,) = _args("Optimizer.load_state_dict", args, kwargs, ["state_dict"], [])
    groups = self._attrs["param_groups"]
    saved = copy.deepcopy(list(sd["param_groups"]))
    if len(groups) != len(saved):
        raise ValueError("loaded state dict has a different number of parameter groups")
    if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved)):
        raise ValueError(
            "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
        )
    by_index = {i: p for g, s in zip(groups, saved) for i, p in zip(s["params"], g["params"])}
    state = {}
    for k, v in sd["state"].items():
        if k in by_index:
            state[by_index[k]] = _cast(by_index[k], v, None)
        else:
            state[k] = v
    new_groups = []
    for g, s in zip(groups, saved):
        s["params"] = g["params"]
        new_groups.append(s)
    self._attrs["state"] = state
    self._attrs["param_groups"] = new_groups


METHODS = {"state_dict": state_dict, "load_state_dict": load_state_dict}
