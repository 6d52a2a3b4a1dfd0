"""torch.nn.functional and torch.linalg functions PyTorch composes of other ops, composed
the same way (so the graph shows PyTorch's nodes): F.normalize (norm, clamp_min, expand,
div), F.cosine_similarity (norms, clone, div, mul, sum), F.l1_loss ((input - target).abs(), then mean or sum), F.one_hot (no gradient),
torch.linalg.vector_norm and the vector case of torch.linalg.norm (LinalgVectorNormBackward0);
and the aliases torch keeps (greater, less, not_equal..., ravel, positive)."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor
from . import arithmetic as A
from . import reductions as RD
from . import rows
from . import selection as SE
from . import shape as S
from . import statistics as ST
from . import unary as U
from .rows import expose


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """F.normalize: input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)."""
    a = as_tensor(input)
    denom = S.expand_as(SE.clamp_min(ST.norm(a, p, dim, keepdim=True), eps), a)
    return A.div(a, denom)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """F.cosine_similarity as ATen composes it: each input over its norm (kept dims), the
    norm cloned and clamped to eps in place outside the graph (CloneBackward0 over
    LinalgVectorNormBackward0), then the product summed over dim (SumBackward1); the
    inputs broadcast first (ExpandBackward0)."""
    a, b = as_tensor(x1), as_tensor(x2)
    shape = errors.broadcast_shapes(a.array.shape, b.array.shape)
    if a.array.shape != b.array.shape:  # (expand_outplace: both, once they differ)
        a, b = (S.expand(x, *shape) for x in (a, b))
    scaled = []
    for x in (a, b):
        n = S.clone(ST.norm(x, 2, dim, keepdim=True))
        np.maximum(n.array, eps, out=n.array)  # (clamp_min_ under no_grad: not recorded)
        scaled.append(A.div(x, n))
    return RD.sum(A.mul(scaled[0], scaled[1]), dim)


def _target_size_warning(a: Tensor, t: Tensor):
    if a.array.shape != t.array.shape:
        errors.warn(
            f"Using a target size ({t.shape}) that is different to the input size ({a.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure "
            "they have the same size."
        )


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """F.l1_loss: (input - target).abs() of the broadcast pair, then its mean
    (MeanBackward0) or sum."""
    a, t = as_tensor(input), as_tensor(target)
    _target_size_warning(a, t)
    if reduction not in ("mean", "sum", "none"):
        raise errors.TorchValueError(f"{reduction} is not a valid value for reduction")
    shape = errors.broadcast_shapes(a.array.shape, t.array.shape)  # (torch.broadcast_tensors)
    if a.array.shape != t.array.shape:  # (broadcast_tensors: both, once they differ)
        a, t = (S.expand(x, *shape) for x in (a, t))
    loss = U.abs(A.sub(a, t))
    if reduction == "mean":
        return RD.mean(loss)
    if reduction == "sum":
        return RD.sum(loss)
    return loss


def one_hot(tensor, num_classes=-1):
    """F.one_hot: int64 classes -> int64 one-hot rows (no gradient)."""
    t = as_tensor(tensor)
    x = t.array
    if x.dtype != np.int64:
        raise errors.TorchRuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if x.size and x.min() < 0:
        raise errors.TorchRuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not x.size:
            raise errors.TorchRuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(x.max()) + 1
    elif x.size and x.max() >= num_classes:
        raise errors.TorchRuntimeError("Class values must be smaller than num_classes.")
    out = (x[..., None] == np.arange(int(num_classes))).astype(np.int64)
    return Tensor(out)


def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """torch.linalg.vector_norm: the engine's norm (LinalgVectorNormBackward0)."""
    return ST.norm(x, ord, dim, keepdim)


def linalg_norm(A_, ord=None, dim=None, keepdim=False, out=None, dtype=None):
    """torch.linalg.norm for what is a vector norm: ord None (the 2-norm of the flattened
    input, or over `dim`), or a number ord over a 1-D input or one `dim`. Matrix norms
    are not supported."""
    a = as_tensor(A_)
    nd = a.array.ndim
    one_dim = isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1)
    if ord is None or (not isinstance(ord, str) and (one_dim or (dim is None and nd == 1))):
        return ST.norm(a, 2 if ord is None else ord, dim, keepdim)
    raise errors.TorchRuntimeError(
        "diffcli does not support torch.linalg.norm as a matrix norm (ord given for a 2-D input)"
    )


def positive(a):
    """torch.positive: the input itself (PyTorch returns self for a non-bool tensor)."""
    a = as_tensor(a)
    if a.array.dtype == np.bool_:
        raise errors.TorchRuntimeError("The `+` operator, on a bool tensor is not supported.")
    return a


def ravel(a):
    """torch.ravel: PyTorch's a.contiguous().view(-1) (a copy, CloneBackward0, first
    when the input is not contiguous)."""
    return S.view(S.contiguous(as_tensor(a)), -1)


expose(normalize, rows.ROWS["norm"], rows.ROWS["div.Tensor"], names=("normalize",), method=False, sym=False)
expose(
    cosine_similarity,
    rows.ROWS["norm"],
    rows.ROWS["clone"],
    rows.ROWS["div.Tensor"],
    rows.ROWS["mul"],
    names=("cosine_similarity",),
    method=False,
    sym=False,
)
expose(
    l1_loss, rows.ROWS["abs"], rows.ROWS["sub"], names=("l1_loss",), method=False, sym="abs(input - target)"
)
expose(one_hot, names=("one_hot",), method=False)
expose(positive, names=("positive",), sym="a")
expose(ravel, rows.ROWS["view"], rows.ROWS["clone"], names=("ravel",))

# aliases PyTorch keeps (torch.greater is torch.gt...)
ALIASES = {
    "greater": SE.gt,
    "greater_equal": SE.ge,
    "less": SE.lt,
    "less_equal": SE.le,
    "not_equal": SE.ne,
}

LINALG = {"vector_norm": vector_norm, "norm": linalg_norm}
# torch.special's names -> the engine's op names (PyTorch's aliases of the same ops: the
# same nodes; special.expit is sigmoid); the namespaces take the ones the table has
SPECIAL_ALIASES = {
    "expit": "sigmoid",
    "erf": "erf",
    "erfc": "erfc",
    "exp2": "exp2",
    "expm1": "expm1",
    "log1p": "log1p",
    "logsumexp": "logsumexp",
    "softmax": "softmax",
    "log_softmax": "log_softmax",
    "sinc": "sinc",
    "round": "round",
    "xlogy": "xlogy",
    "logit": "logit",
}
