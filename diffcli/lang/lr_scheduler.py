"""`torch.optim.lr_scheduler`: the `LRScheduler` base and `StepLR`, as PyTorch 2.13 runs
them. Constructing one records each group's `initial_lr`, then takes the initial step
(`last_epoch` 0); `step()` advances `last_epoch`, asks `get_lr()` (PyTorch's chainable form:
StepLR multiplies the current lr by gamma every `step_size` epochs) and writes the lrs into
the optimizer's param groups; `get_last_lr()` gives what the last step set. Calling
`get_lr()` from the script gives PyTorch's warning. A scheduler is an `Instance` of a
provided base (a script may subclass one and override `get_lr`); its attributes
(`optimizer`, `base_lrs`, `last_epoch`, `step_size`, `gamma`) are the instance's.

Not reproduced: the warning about `scheduler.step()` before `optimizer.step()`, and the
deprecated `step(epoch)` form.
"""

from __future__ import annotations

from ..engine import errors as engine_errors
from .nn import _args
from .objects import MISSING, Instance, NativeMethod, ProvidedBase, find_in_mro

GET_LR_WARNING = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


class SchedulerClass(ProvidedBase):
    def __init__(self, name, methods, parent=None):
        self.name = name
        self.full_name = f"torch.optim.lr_scheduler.{name}"
        self.methods = {k: NativeMethod(k, v) for k, v in methods.items()}
        bases = (parent.host,) if parent is not None else (Instance,)
        ns = {"__slots__": (), "_script_class": self, "__module__": "torch.optim.lr_scheduler"}
        ns["__qualname__"] = name
        self.host = type(name, bases, ns)

    def lookup(self, name):
        return self.methods.get(name, MISSING)


def _groups(self):
    return self._attrs["optimizer"]._attrs["param_groups"]


def _get_lr_of(interp, self, node):
    """`self.get_lr()` as the class defines it (a script's override, or the native one)."""
    found = find_in_mro(self._cls.mro, "get_lr")
    value = found[1]
    if isinstance(value, NativeMethod):
        return value.fn(interp, self, [], {}, node)
    return interp.call_value(value, [self], {}, node)


def _base_init(interp, self, args, kwargs, node):
    optimizer, last_epoch = _args("LRScheduler.__init__", args, kwargs, ["optimizer", "last_epoch"], [-1])
    if not (isinstance(optimizer, Instance) and "param_groups" in optimizer._attrs):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
    self._attrs["optimizer"] = optimizer
    if last_epoch == -1:
        for group in _groups(self):
            group.setdefault("initial_lr", group["lr"])
    else:
        for i, group in enumerate(_groups(self)):
            if "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler with last_epoch >= 0.\n"
                    "This typically happens when:\n"
                    "1. You're trying to resume training from a checkpoint but haven't properly loaded the optimizer state\n"
                    "2. You're using last_epoch >= 0 for a fresh training run (not recommended)"
                )
    self._attrs["base_lrs"] = [group["initial_lr"] for group in _groups(self)]
    self._attrs["last_epoch"] = last_epoch
    self._attrs["_step_count"] = 0
    _step(interp, self, [], {}, node)


def _step(interp, self, args, kwargs, node):
    _args("LRScheduler.step", args, kwargs, [], [])
    self._attrs["_step_count"] += 1
    self._attrs["last_epoch"] += 1
    self._attrs["_get_lr_called_within_step"] = True
    try:
        values = _get_lr_of(interp, self, node)
    finally:
        self._attrs["_get_lr_called_within_step"] = False
    for group, lr in zip(_groups(self), values):
        group["lr"] = lr
    self._attrs["_last_lr"] = [group["lr"] for group in _groups(self)]


def _get_last_lr(interp, self, args, kwargs, node):
    _args("LRScheduler.get_last_lr", args, kwargs, [], [])
    return list(self._attrs["_last_lr"])


def _base_get_lr(interp, self, args, kwargs, node):
    raise NotImplementedError


def _warn_outside_step(self):
    if not self._attrs.get("_get_lr_called_within_step"):
        engine_errors.warn(GET_LR_WARNING)


def _step_init(interp, self, args, kwargs, node):
    optimizer, step_size, gamma, last_epoch = _args(
        "StepLR.__init__", args, kwargs, ["optimizer", "step_size", "gamma", "last_epoch"], [0.1, -1]
    )
    self._attrs["step_size"], self._attrs["gamma"] = step_size, gamma
    _base_init(interp, self, [optimizer, last_epoch], {}, node)


def _step_get_lr(interp, self, args, kwargs, node):
    _args("StepLR.get_lr", args, kwargs, [], [])
    _warn_outside_step(self)
    epoch, size = self._attrs["last_epoch"], self._attrs["step_size"]
    if epoch == 0 or epoch % size != 0:
        return [group["lr"] for group in _groups(self)]
    return [group["lr"] * self._attrs["gamma"] for group in _groups(self)]


LR_SCHEDULER = SchedulerClass(
    "LRScheduler",
    {"__init__": _base_init, "step": _step, "get_last_lr": _get_last_lr, "get_lr": _base_get_lr},
)
STEP_LR = SchedulerClass("StepLR", {"__init__": _step_init, "get_lr": _step_get_lr}, LR_SCHEDULER)
CLASSES = {"LRScheduler": LR_SCHEDULER, "StepLR": STEP_LR}
