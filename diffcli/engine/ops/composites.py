"""Ops PyTorch composes of others, composed the same way (so the graph shows its nodes):
diff (slices and a sub), sum_to_size (sum_to: SumBackward1, a view for leading dims),
tensor_split (slices), atleast_1d/2d/3d (views, unsqueezes), meshgrid (views and
expands); and the layout queries stride, is_contiguous, element_size, storage_offset;
empty_like and logspace."""

from __future__ import annotations

import numpy as np

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor, _wrap_dim
from . import arithmetic as A
from . import creation as K
from . import indexing as I
from . import rows
from . import shape as S
from .predicates import logical_xor
from .reductions import sum_to_shape
from .rows import expose


def diff(a, n=1, dim=-1, prepend=None, append=None):
    a = as_tensor(a)
    if a.array.ndim == 0:
        raise errors.TorchRuntimeError("diff expects input to be at least one-dimensional")
    d = _wrap_dim(int(dim), a.array.ndim)
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, a, append) if t is not None]
        parts = [
            S.expand(as_tensor(t), *(a.array.shape[:d] + (1,) + a.array.shape[d + 1 :]))
            if as_tensor(t).array.ndim == 0
            else as_tensor(t)
            for t in parts
        ]
        a = S.cat(parts, d)
    if n < 0:
        raise errors.TorchRuntimeError(f"order must be non-negative but got {n}")
    out = a
    for _ in range(int(n)):
        size = out.array.shape[d]
        if size == 0:
            break
        hi, lo = I.narrow(out, d, 1, size - 1), I.narrow(out, d, 0, size - 1)
        out = logical_xor(hi, lo) if out.array.dtype == np.bool_ else A.sub(hi, lo)
    return out


def sum_to_size(a, *size):
    a = as_tensor(a)
    shape = S._shape_arg(size)
    x = a.array.shape
    lead = len(x) - len(shape)
    if lead < 0 or any(s != 1 and s != xs for s, xs in zip(shape, x[lead:])):
        raise errors.TorchRuntimeError(
            f"size {{[{', '.join(map(str, shape))}]}} is not expandable to size {{[{', '.join(map(str, x))}]}}."
        )
    return sum_to_shape(a, tuple(shape))


def tensor_split(a, indices_or_sections, dim=0):
    a = as_tensor(a)
    if a.array.ndim == 0:
        raise errors.TorchRuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = _wrap_dim(int(dim), a.array.ndim)
    size = a.array.shape[d]
    s = indices_or_sections
    if isinstance(s, Tensor):
        s = s.tolist()
    if isinstance(s, (list, tuple)):
        cuts = [min(max(int(i) if int(i) >= 0 else int(i) + size, 0), size) for i in s]
        bounds = list(zip([0] + cuts, cuts + [size]))
    else:
        n = int(s)
        if n <= 0:
            raise errors.TorchRuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        starts = [i * q + min(i, r) for i in range(n + 1)]
        bounds = list(zip(starts[:-1], starts[1:]))
    return tuple(I.narrow(a, d, lo, max(hi - lo, 0)) for lo, hi in bounds)


def _atleast(n):
    def op(*tensors):
        ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
        out = []
        for t in ts:
            t = as_tensor(t)
            k = t.array.ndim
            if k >= n:
                out.append(t)
            elif k == 0:
                out.append(S.reshape(t, *((1,) * n)))
            elif n == 2 or k == 2:  # (1-D to 2-D: unsqueeze(0); 2-D to 3-D: unsqueeze(-1))
                out.append(S.unsqueeze(t, 0 if k == 1 else -1))
            else:  # 1-D to 3-D
                out.append(S.unsqueeze(S.unsqueeze(t, 0), -1))
        single = len(tensors) == 1 and not isinstance(tensors[0], (list, tuple))
        return out[0] if single else tuple(out)

    op.__name__ = op.__qualname__ = f"atleast_{n}d"
    return op


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def meshgrid(*tensors, indexing=None):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    ts = [as_tensor(t) for t in ts]
    if indexing is None:
        errors.warn_once(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise errors.TorchValueError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in ts:
        if t.array.ndim > 1:
            raise errors.TorchRuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.array.ndim}D"
            )
    swap = indexing == "xy" and len(ts) >= 2
    order = ts[:]
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = [t.array.size for t in order]
    grids = []
    for i, t in enumerate(order):
        view = [1] * len(order)
        view[i] = -1
        grids.append(S.expand(S.view(t, *view), *shape))
    if swap:  # (the outputs swap back, as ATen's meshgrid swaps them)
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# --- layout queries and the remaining constructors ---------------------------------------


def stride(a, dim=None):
    x = a.array
    st = tuple(int(s // x.itemsize) for s in x.strides)
    if dim is None:
        return st
    return st[_wrap_dim(int(dim), x.ndim)] if x.ndim else 1


def is_contiguous(a, memory_format=None):
    return bool(a.array.flags.c_contiguous)


def element_size(a):
    return int(a.array.itemsize)


def storage_offset(a):
    base = a._base.array if a._base is not None else a.array
    start = a.array.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return int(start // a.array.itemsize)


empty_like = K._like(lambda s, d: np.zeros(s, dtype=d))  # (PyTorch leaves the values unset)


def logspace(start, end, steps, base=10.0, dtype=None, requires_grad=False):
    """PyTorch's logspace kernel: base ** (start + step*i) for i < steps/2, else base **
    (end - step*(steps-1-i))."""
    steps = int(steps)
    if steps < 0:
        raise errors.TorchRuntimeError("number of steps must be non-negative")
    K._check_size(steps)
    d = K._float(dtype)
    acc = d if d.kind == "f" else np.dtype(np.float64)
    s, e = (acc.type(v.item() if isinstance(v, Tensor) else v) for v in (start, end))
    if steps == 0:
        return K._leaf(np.zeros(0, dtype=d), requires_grad)
    if steps == 1:
        return K._leaf(np.array([np.power(acc.type(base), s)], dtype=d), requires_grad)
    with np.errstate(all="ignore"):
        step = (e - s) / acc.type(steps - 1)
        i = np.arange(steps)
        expo = np.where(i < steps // 2, s + step * i.astype(acc), e - step * (steps - 1 - i).astype(acc))
        out = np.power(acc.type(base), expo.astype(acc))
    return K._leaf(out.astype(d), requires_grad)


expose(diff, rows.ROWS["slice.Tensor"], rows.ROWS["sub"], names=("diff",), sym=False)
expose(
    sum_to_size, rows.ROWS["sum.dim_IntList"], rows.ROWS["view"], names=("sum_to_size",), function_too=False
)
expose(tensor_split, rows.ROWS["slice.Tensor"], names=("tensor_split",))
for _fn in (atleast_1d, atleast_2d, atleast_3d):
    expose(_fn, rows.ROWS["unsqueeze"], rows.ROWS["view"], names=(_fn.__name__,), method=False)
expose(meshgrid, rows.ROWS["view"], rows.ROWS["expand"], names=("meshgrid",), method=False)

LAYOUT_METHODS = {
    "stride": stride,
    "is_contiguous": is_contiguous,
    "element_size": element_size,
    "storage_offset": storage_offset,
}
CONSTRUCTORS = {"empty_like": empty_like, "logspace": logspace}
