"""The import names of `torch.nn`, `torch.nn.init`, `torch.optim` and `numpy`: their
members, added to the namespaces a script can import (`values.MODULES`, and `torch.nn`,
`torch.optim`, `torch.from_numpy` on `torch`). The interpreter imports this module once;
each member is a whitelisted value (module and optimizer classes, `nn.Parameter`, the
`nn.init` functions, the numpy subset), never a host module.
"""

from __future__ import annotations

from ..engine.parameter import make_parameter
from . import (
    data,
    generators,
    lr_scheduler,
    nn_activations,
    nn_containers,
    nn_conv,
    nn_init,
    nn_layers,
    nn_norm,
    nn_utils,
    numpy_subset,
    optim,
    pydict,
    torch_namespaces,  # noqa: F401 (torch.linalg, torch.special)
    values,
)
from .nn import StateDict
from .objects import Builtin
from .values import MODULES, TORCH, Namespace


def _parameter(interp, args, kwargs, node):
    if len(args) > 2:
        raise TypeError(
            f"Parameter.__new__() takes from 1 to 3 positional arguments but {len(args) + 1} were given"
        )
    for k in kwargs:
        if k not in ("data", "requires_grad"):
            raise TypeError(f"Parameter.__new__() got an unexpected keyword argument '{k}'")
    return make_parameter(*args, **kwargs)


def _ordered_dict(interp, args, kwargs, node):
    """`collections.OrderedDict(...)`: a dict of the script (state_dict()'s kind), as
    `nn.Sequential(OrderedDict([...]))` builds one."""
    if len(args) > 1:
        raise TypeError(f"OrderedDict expected at most 1 argument, got {len(args)}")
    d = StateDict()
    if args:
        pydict.merge(interp, d, args[0], node)
    for k, v in kwargs.items():
        pydict.setitem(interp, d, k, v, node)
    return d


COLLECTIONS = Namespace("collections", {"OrderedDict": Builtin("OrderedDict", _ordered_dict)})
INIT = Namespace("torch.nn.init", dict(nn_init.FUNCTIONS))
CLIP_GRAD = Namespace("torch.nn.utils.clip_grad", dict(nn_utils.CLIP_GRAD))
NN_UTILS = Namespace("torch.nn.utils", {**nn_utils.FUNCTIONS, "clip_grad": CLIP_GRAD})
NN = values._NN
NN.members.update(nn_layers.CLASSES)
NN.members.update(nn_activations.CLASSES)
NN.members.update(nn_containers.CLASSES)
NN.members.update(nn_conv.CLASSES)
NN.members.update(nn_norm.CLASSES)
NN.members.update({"Parameter": Builtin("Parameter", _parameter), "init": INIT, "utils": NN_UTILS})
values._F.members["linear"] = nn_layers.linear
values._F.members.update(nn_conv.FUNCTIONS)
values._F.members.update(nn_norm.FUNCTIONS)
LR_SCHEDULER = Namespace("torch.optim.lr_scheduler", dict(lr_scheduler.CLASSES))
OPTIM = Namespace("torch.optim", {**optim.CLASSES, "lr_scheduler": LR_SCHEDULER})
NUMPY = numpy_subset.NUMPY

TORCH.members.update(
    {
        "optim": OPTIM,
        "from_numpy": numpy_subset.from_numpy,
        "Generator": Builtin("Generator", generators.new_generator),
    }
)
TORCH.members.setdefault("addmm", nn_layers.addmm)
for _name in ("conv1d", "conv2d", "max_pool2d"):
    TORCH.members.setdefault(_name, nn_conv.FUNCTIONS[_name])
TORCH.members.setdefault("empty", TORCH.members["zeros"])  # (its values are unspecified: zeros here)
DATA = Namespace(
    "torch.utils.data",
    {
        **data.CLASSES,
        "random_split": Builtin("random_split", data.random_split),
        "default_collate": data.default_collate,
    },
)
UTILS = Namespace("torch.utils", {"data": DATA})
TORCH.members["utils"] = UTILS
MODULES.update(
    {
        "torch.utils": UTILS,
        "torch.utils.data": DATA,
        "torch.nn.init": INIT,
        "collections": COLLECTIONS,
        "torch.nn.utils": NN_UTILS,
        "torch.nn.utils.clip_grad": CLIP_GRAD,
        "torch.optim": OPTIM,
        "torch.optim.lr_scheduler": LR_SCHEDULER,
        "numpy": NUMPY,
        "numpy.random": NUMPY.members["random"],
    }
)
