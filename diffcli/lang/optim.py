"""`torch.optim`: SGD, Adam, AdamW and RMSprop with PyTorch 2.13's update formulas, in its order of
operations and with its rounding.

On the CPU, PyTorch's default (`foreach=None`, `fused=None`) is the single-tensor path
(`_default_to_fused_or_foreach` picks foreach only for CUDA/XPU/MTIA tensors): for each
parameter of each group, in order, the ops of `_single_tensor_sgd` / `_single_tensor_adam`.
Each op is reproduced with the rounding of ATen's CPU kernel, which is what makes a long
training loop print PyTorch's losses bit for bit:

- a Python-float scalar (lr, momentum, `1 - beta2`, ...) is cast to the tensor's dtype;
- `a.add(b, alpha=s)` is `fmadd(b, s, a)` (ufunc/add.h: one rounding);
- `a.lerp_(b, w)` is `fmadd(w, b - a, a)` for |w| < 0.5, else `fmadd(w - 1, b - a, b)`;
- `a.addcmul_(b, c, value=s)` is `fmadd(s * b, c, a)`;
- `a.addcdiv_(b, c, value=s)` is `a + (s * b) / c` (no fusion), `t / s` a true division;
- Adam's step count lives in a float32 tensor and the bias corrections are Python floats
  (`_get_value(step_t)`, then `1 - beta1 ** step`, `lr / bc1`, `bc2 ** 0.5`).
The fused multiply-adds are float32's, correctly rounded (`random._fma`); float64
parameters use unfused arithmetic (a known gap: ATen fuses there too).

An optimizer is an `Instance` of an `OptimizerClass` (a provided base, so a script may
subclass one): `param_groups` (a list of dicts the script may change, e.g. `lr`),
`defaults` and `state` are its attributes; `step()` and `zero_grad()` its methods.
"""

from __future__ import annotations

import numpy as np

from ..engine.context import RunContext
from ..engine.ops.random import _fma
from ..engine.tensor import Tensor
from . import optim_state
from .nn import _args, zero_grad_of
from .objects import MISSING, Instance, NativeMethod, ProvidedBase


def _fmadd(a, b, c, dtype):
    """a * b + c with one rounding (float32), as ATen's vectorized fmadd."""
    if dtype == np.float32:
        return _fma(a, b, c)
    return (np.asarray(a, dtype) * b + c).astype(dtype)


def _scalar(value, dtype):
    return dtype.type(value)


def _add(a, b, alpha, dtype):
    """`a.add(b, alpha=alpha)`."""
    if alpha == 1:
        return (a + b).astype(dtype, copy=False)
    return _fmadd(b, _scalar(alpha, dtype), a, dtype)


def _lerp(start, end, weight, dtype):
    w = _scalar(weight, dtype)
    diff = (end - start).astype(dtype, copy=False)
    if abs(w) < 0.5:
        return _fmadd(w, diff, start, dtype)
    return _fmadd(dtype.type(w - dtype.type(1)), diff, end, dtype)


# --- the optimizer base ------------------------------------------------------------------------


def _param_list(params, cls_name):
    if isinstance(params, Tensor):
        raise TypeError(
            "params argument given to the optimizer should be an iterable of Tensors or dicts, "
            f"but got {_torch_type(params)}"
        )
    if isinstance(params, (dict, set, frozenset)):
        raise TypeError(
            "params argument given to the optimizer should be an iterable of Tensors or dicts, "
            "but the ordering of tensors in sets will change between runs. Please use a list instead."
            if not isinstance(params, dict)
            else "params argument given to the optimizer should be an iterable of Tensors or dicts, "
            "but got dict"
        )
    groups = list(params)
    if not groups:
        raise ValueError("optimizer got an empty parameter list")
    if not isinstance(groups[0], dict):
        groups = [{"params": groups}]
    return groups


def _torch_type(t):
    return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor"}.get(
        getattr(getattr(t, "array", None), "dtype", np.dtype("O")).name, type(t).__name__
    )


def _add_group(self, group):
    if not isinstance(group, dict):
        raise TypeError(f"param_group must be a dict, but got {type(group).__name__}")
    params = group["params"]
    params = [params] if isinstance(params, Tensor) else list(params)
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(
                f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}"
            )
        if p.grad_fn is not None:
            raise ValueError("can't optimize a non-leaf Tensor")
    group = dict(group)
    group["params"] = params
    for k, v in self._attrs["defaults"].items():
        group.setdefault(k, v)
    seen = {id(p) for g in self._attrs["param_groups"] for p in g["params"]}
    if any(id(p) in seen for p in params):
        raise ValueError("some parameters appear in more than one parameter group")
    self._attrs["param_groups"].append(group)


def _optim_init(interp, self, args, kwargs, node):
    params, defaults = _args("Optimizer.__init__", args, kwargs, ["params", "defaults"], [])
    self._attrs["defaults"] = dict(defaults)
    self._attrs["state"] = {}
    self._attrs["param_groups"] = []
    for g in _param_list(params, self._cls.name):
        _add_group(self, g)


def _add_param_group(interp, self, args, kwargs, node):
    (group,) = _args("Optimizer.add_param_group", args, kwargs, ["param_group"], [])
    _add_group(self, group)


def _zero_grad(interp, self, args, kwargs, node):
    (set_to_none,) = _args("Optimizer.zero_grad", args, kwargs, ["set_to_none"], [True])
    for g in self._attrs["param_groups"]:
        for p in g["params"]:
            zero_grad_of(p, set_to_none)


def _step(interp, self, args, kwargs, node):
    (closure,) = _args("Optimizer.step", args, kwargs, ["closure"], [None])
    loss = None
    if closure is not None:
        with RunContext(grad_enabled=True):  # torch: `with torch.enable_grad(): loss = closure()`
            loss = interp.call_value(closure, [], {}, node)
    update = self._cls_update()
    for group in self._attrs["param_groups"]:
        update(self, group)
    return loss


def _optim_repr(self) -> str:
    text = self._cls.name + " ("
    for i, group in enumerate(self._attrs["param_groups"]):
        text += f"\nParameter Group {i}\n"
        for key in sorted(group):
            if key != "params":
                text += f"    {key}: {group[key]}\n"
    return text + ")"


def _write(p: Tensor, value) -> None:
    p.array[...] = value
    p._version[0] += 1


def _state(self, p):
    return self._attrs["state"].setdefault(p, {})


# --- SGD -----------------------------------------------------------------------------------------

_SGD_NAMES = [
    "params",
    "lr",
    "momentum",
    "dampening",
    "weight_decay",
    "nesterov",
    "maximize",
    "foreach",
    "differentiable",
    "fused",
]
_SGD_DEFAULTS = [1e-3, 0, 0, 0, False, False, None, False, None]


def _sgd_init(interp, self, args, kwargs, node):
    vals = dict(zip(_SGD_NAMES, _args("SGD.__init__", args, kwargs, _SGD_NAMES, _SGD_DEFAULTS)))
    lr, momentum, wd = vals["lr"], vals["momentum"], vals["weight_decay"]
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if momentum < 0.0:
        raise ValueError(f"Invalid momentum value: {momentum}")
    if wd < 0.0:
        raise ValueError(f"Invalid weight_decay value: {wd}")
    if vals["nesterov"] and (momentum <= 0 or vals["dampening"] != 0):
        raise ValueError("Nesterov momentum requires a momentum and zero dampening")
    _no_fused(vals)
    defaults = {
        k: vals[k]
        for k in (
            "lr",
            "momentum",
            "dampening",
            "weight_decay",
            "nesterov",
            "maximize",
            "foreach",
            "differentiable",
            "fused",
        )
    }
    _optim_init(interp, self, [vals["params"], defaults], {}, node)


def _sgd_update(self, group):
    lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
    wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
    for p in group["params"]:
        if p._grad is None:
            continue
        dtype = p.array.dtype
        g = -p._grad.array if maximize else p._grad.array
        if wd != 0:
            g = _add(g, p.array, wd, dtype)
        if momentum != 0:
            state = _state(self, p)
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = Tensor(np.array(g, dtype, copy=True))
            else:
                scaled = (buf.array * _scalar(momentum, dtype)).astype(dtype, copy=False)
                _write(buf, _add(scaled, g, 1 - dampening, dtype))
            g = _add(g, buf.array, momentum, dtype) if nesterov else buf.array
        _write(p, _add(p.array, g, -lr, dtype))


# --- Adam, AdamW ---------------------------------------------------------------------------------

_ADAM_NAMES = [
    "params",
    "lr",
    "betas",
    "eps",
    "weight_decay",
    "amsgrad",
    "foreach",
    "maximize",
    "capturable",
    "differentiable",
    "fused",
    "decoupled_weight_decay",
]


def _adam_init_with(decoupled, wd_default, name):
    defaults = [1e-3, (0.9, 0.999), 1e-8, wd_default, False, None, False, False, False, None, decoupled]
    names = _ADAM_NAMES if not decoupled else _ADAM_NAMES[:-1]

    def init(interp, self, args, kwargs, node):
        vals = dict(zip(names, _args(f"{name}.__init__", args, kwargs, names, defaults[: len(names) - 1])))
        vals.setdefault("decoupled_weight_decay", decoupled)
        lr, eps, betas, wd = vals["lr"], vals["eps"], vals["betas"], vals["weight_decay"]
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= wd:
            raise ValueError(f"Invalid weight_decay value: {wd}")
        _no_fused(vals)
        d = {
            k: vals[k]
            for k in (
                "lr",
                "betas",
                "eps",
                "weight_decay",
                "amsgrad",
                "maximize",
                "foreach",
                "capturable",
                "differentiable",
                "fused",
                "decoupled_weight_decay",
            )
        }
        _optim_init(interp, self, [vals["params"], d], {}, node)

    return init


def _no_fused(vals):
    if vals.get("fused"):
        raise RuntimeError(
            "diffcli runs the optimizers' single-tensor path only: fused=True is not supported"
        )
    if vals.get("differentiable"):
        raise RuntimeError(
            "diffcli runs the optimizers' single-tensor path only: differentiable=True is not supported"
        )


def _adam_update(self, group):
    lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
    wd, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
    decoupled = group.get("decoupled_weight_decay", False)
    for p in group["params"]:
        if p._grad is None:
            continue
        dtype = p.array.dtype
        state = _state(self, p)
        if not state:
            state["step"] = Tensor(np.array(0.0, np.float32))
            state["exp_avg"] = Tensor(np.zeros_like(p.array))
            state["exp_avg_sq"] = Tensor(np.zeros_like(p.array))
            if amsgrad:
                state["max_exp_avg_sq"] = Tensor(np.zeros_like(p.array))
        g = -p._grad.array if maximize else p._grad.array
        step_t = state["step"]
        _write(step_t, step_t.array + np.float32(1))
        if wd != 0:
            if decoupled:
                _write(p, (p.array * _scalar(1 - lr * wd, dtype)).astype(dtype, copy=False))
            else:
                g = _add(g, p.array, wd, dtype)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        _write(m, _lerp(m.array, g, 1 - beta1, dtype))
        scaled = (v.array * _scalar(beta2, dtype)).astype(dtype, copy=False)
        _write(v, _fmadd((_scalar(1 - beta2, dtype) * g).astype(dtype, copy=False), g, scaled, dtype))
        step = float(step_t.array)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if amsgrad:
            mx = state["max_exp_avg_sq"]
            _write(mx, np.maximum(mx.array, v.array))
            root = np.sqrt(mx.array)
        else:
            root = np.sqrt(v.array)
        denom = (root / _scalar(bias_correction2_sqrt, dtype)).astype(dtype, copy=False) + _scalar(eps, dtype)
        num = (_scalar(-step_size, dtype) * m.array).astype(dtype, copy=False)
        _write(p, (p.array + (num / denom).astype(dtype, copy=False)).astype(dtype, copy=False))


# --- RMSprop --------------------------------------------------------------------------------------

_RMS_NAMES = [
    "params",
    "lr",
    "alpha",
    "eps",
    "weight_decay",
    "momentum",
    "centered",
    "capturable",
    "foreach",
    "maximize",
    "differentiable",
]
_RMS_DEFAULTS = [1e-2, 0.99, 1e-8, 0, 0, False, False, None, False, False]


def _rmsprop_init(interp, self, args, kwargs, node):
    vals = dict(zip(_RMS_NAMES, _args("RMSprop.__init__", args, kwargs, _RMS_NAMES, _RMS_DEFAULTS)))
    for key, what in (
        ("lr", "learning rate"),
        ("eps", "epsilon value"),
        ("momentum", "momentum value"),
        ("weight_decay", "weight_decay value"),
        ("alpha", "alpha value"),
    ):
        if not 0.0 <= vals[key]:
            raise ValueError(f"Invalid {what}: {vals[key]}")
    _no_fused(vals)
    d = {k: vals[k] for k in _RMS_NAMES[1:]}
    _optim_init(interp, self, [vals["params"], d], {}, node)


def _rmsprop_update(self, group):
    """_single_tensor_rmsprop."""
    lr, alpha, eps, wd = group["lr"], group["alpha"], group["eps"], group["weight_decay"]
    momentum, centered, maximize = group["momentum"], group["centered"], group["maximize"]
    for p in group["params"]:
        if p._grad is None:
            continue
        dtype = p.array.dtype
        state = _state(self, p)
        if not state:
            state["step"] = Tensor(np.array(0.0, np.float32))
            state["square_avg"] = Tensor(np.zeros_like(p.array))
            if momentum > 0:
                state["momentum_buffer"] = Tensor(np.zeros_like(p.array))
            if centered:
                state["grad_avg"] = Tensor(np.zeros_like(p.array))
        g = -p._grad.array if maximize else p._grad.array
        _write(state["step"], state["step"].array + np.float32(1))
        if wd != 0:
            g = _add(g, p.array, wd, dtype)
        sq = state["square_avg"]
        scaled = (sq.array * _scalar(alpha, dtype)).astype(dtype, copy=False)
        _write(sq, _fmadd((_scalar(1 - alpha, dtype) * g).astype(dtype, copy=False), g, scaled, dtype))
        if centered:
            ga = state["grad_avg"]
            _write(ga, _lerp(ga.array, g, 1 - alpha, dtype))
            var = _fmadd((_scalar(-1, dtype) * ga.array).astype(dtype, copy=False), ga.array, sq.array, dtype)
            avg = np.sqrt(var)
        else:
            avg = np.sqrt(sq.array)
        avg = (avg + _scalar(eps, dtype)).astype(dtype, copy=False)
        if momentum > 0:
            buf = state["momentum_buffer"]
            scaled = (buf.array * _scalar(momentum, dtype)).astype(dtype, copy=False)
            _write(buf, (scaled + (g / avg).astype(dtype, copy=False)).astype(dtype, copy=False))
            _write(p, _add(p.array, buf.array, -lr, dtype))
        else:
            num = (_scalar(-lr, dtype) * g).astype(dtype, copy=False)
            _write(p, (p.array + (num / avg).astype(dtype, copy=False)).astype(dtype, copy=False))


# --- the classes ---------------------------------------------------------------------------------


class OptimizerClass(ProvidedBase):
    """`torch.optim.Optimizer` or one of its subclasses (`parent`), with its `update(self, group)`."""

    def __init__(self, name, module_path, methods, parent=None, update=None):
        self.name = name
        self.full_name = f"{module_path}.{name}"
        self.methods = {k: NativeMethod(k, v) for k, v in methods.items()}
        self.update = update
        bases = (parent.host,) if parent is not None else (Instance,)
        ns = {"__slots__": (), "_script_class": self, "__module__": module_path, "__qualname__": name}
        if parent is None:
            ns["__repr__"] = ns["__str__"] = _optim_repr
            ns["_cls_update"] = _cls_update
        self.host = type(name, bases, ns)

    def lookup(self, name):
        return self.methods.get(name, MISSING)


def _cls_update(self):
    for klass in self._cls.mro:
        update = getattr(klass, "update", None) if isinstance(klass, OptimizerClass) else None
        if update is not None:
            return update
    raise NotImplementedError(f"{self._cls.name}.step() is not implemented")


OPTIMIZER = OptimizerClass(
    "Optimizer",
    "torch.optim.optimizer",
    {
        "__init__": _optim_init,
        "zero_grad": _zero_grad,
        "step": _step,
        "add_param_group": _add_param_group,
        **optim_state.METHODS,
    },
)
SGD = OptimizerClass("SGD", "torch.optim.sgd", {"__init__": _sgd_init}, OPTIMIZER, _sgd_update)
ADAM = OptimizerClass(
    "Adam", "torch.optim.adam", {"__init__": _adam_init_with(False, 0, "Adam")}, OPTIMIZER, _adam_update
)
ADAMW = OptimizerClass("AdamW", "torch.optim.adamw", {"__init__": _adam_init_with(True, 1e-2, "AdamW")}, ADAM)

RMSPROP = OptimizerClass(
    "RMSprop", "torch.optim.rmsprop", {"__init__": _rmsprop_init}, OPTIMIZER, _rmsprop_update
)

CLASSES = {"Optimizer": OPTIMIZER, "SGD": SGD, "Adam": ADAM, "AdamW": ADAMW, "RMSprop": RMSPROP}
