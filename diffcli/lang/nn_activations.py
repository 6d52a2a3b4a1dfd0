"""More activation modules of `torch.nn`: Softmax, LogSoftmax and Softmin (with PyTorch's
implicit-dim rule and warning when `dim` is not given), LeakyReLU, ELU, Softplus and GELU,
each a `nn.ModuleClass` that forwards to the engine's functional form and prints as
PyTorch's does (`LeakyReLU(negative_slope=0.2)`, `GELU(approximate='none')`)."""

from __future__ import annotations

from .. import engine
from ..engine import errors as engine_errors
from .nn import MODULE, ModuleClass, _args

F = engine.FUNCTIONS
PATH = "torch.nn.modules.activation"
IMPLICIT_DIM = (
    "Implicit dimension choice for {} has been deprecated. Change the call to include dim=X as an argument."
)


def _softmax_class(name, fn, negate=False):
    def init(interp, self, args, kwargs, node):
        (dim,) = _args(f"{name}.__init__", args, kwargs, ["dim"], [None])
        MODULE.methods["__init__"].fn(interp, self, [], {}, node)
        self._attrs["dim"] = dim

    def forward(interp, self, args, kwargs, node):
        (x,) = _args(f"{name}.forward", args, kwargs, ["input"], [])
        dim = self._attrs["dim"]
        if dim is None:  # torch.nn.functional._get_softmax_dim
            engine_errors.warn(IMPLICIT_DIM.format(fn if not negate else "softmin"))
            dim = 0 if x.array.ndim in (0, 1, 3) else 1
        return F[fn](F["neg"](x) if negate else x, dim)

    def extra(interp, self, args, kwargs, node):
        return f"dim={self._attrs['dim']}"

    return ModuleClass(name, PATH, {"__init__": init, "forward": forward, "extra_repr": extra}, MODULE)


def _param_class(name, fn, params, defaults, inplace=False, show=None):
    """An activation with float parameters (`negative_slope`, `alpha`...) passed on to `fn`."""
    names = [*params, "inplace"] if inplace else list(params)
    values = [*defaults, False] if inplace else list(defaults)

    def init(interp, self, args, kwargs, node):
        got = _args(f"{name}.__init__", args, kwargs, names, values)
        MODULE.methods["__init__"].fn(interp, self, [], {}, node)
        for k, v in zip(names, got):
            self._attrs[k] = v

    def forward(interp, self, args, kwargs, node):
        (x,) = _args(f"{name}.forward", args, kwargs, ["input"], [])
        a = [self._attrs[k] for k in params]
        if inplace and self._attrs["inplace"] and f"{fn}_" in engine.INPLACE:
            return engine.INPLACE[f"{fn}_"](x, *a)
        return F[fn](x, *a)

    def extra(interp, self, args, kwargs, node):
        text = ", ".join(f"{k}={show(self._attrs[k]) if show else self._attrs[k]}" for k in params)
        return text + (", inplace=True" if inplace and self._attrs["inplace"] else "")

    return ModuleClass(name, PATH, {"__init__": init, "forward": forward, "extra_repr": extra}, MODULE)


CLASSES = {
    "Softmax": _softmax_class("Softmax", "softmax"),
    "LogSoftmax": _softmax_class("LogSoftmax", "log_softmax"),
    "Softmin": _softmax_class("Softmin", "softmax", negate=True),
    "LeakyReLU": _param_class("LeakyReLU", "leaky_relu", ["negative_slope"], [0.01], inplace=True),
    "ELU": _param_class("ELU", "elu", ["alpha"], [1.0], inplace=True),
    "Softplus": _param_class("Softplus", "softplus", ["beta", "threshold"], [1.0, 20.0]),
    "GELU": _param_class("GELU", "gelu", ["approximate"], ["none"], show=repr),
}
