"""In-place ops (`add_`, `mul_`, `x += 1`, `zero_`...): computed out of place, then
written back into the tensor's storage. The version counter is bumped and a non-leaf's
grad_fn is replaced, as in PyTorch; a leaf that requires grad refuses."""
from __future__ import annotations

import numpy as np

from .. import dtypes, errors
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor, hang_retained


def check_inplace(a: Tensor, view: bool = False) -> None:
    if not is_grad_enabled():
        return
    base = a._base
    if base is not None and base.requires_grad_flag and base.grad_fn is None:
        raise errors.TorchRuntimeError(errors.VIEW_LEAF_INPLACE)
    if a.grad_fn is None and a.requires_grad_flag:
        raise errors.TorchRuntimeError(errors.VIEW_LEAF_INPLACE if view else errors.LEAF_INPLACE)


def commit_inplace(a: Tensor, res: Tensor) -> Tensor:
    """Write `res` into `a`'s storage and take over its history."""
    data = res.data_
    if data.dtype != a.data_.dtype:
        if dtypes.category(data.dtype) > dtypes.category(a.data_.dtype):
            names = {"float64": "Double", "float32": "Float", "int64": "Long", "bool": "Bool"}
            raise errors.TorchRuntimeError(
                f"result type {names[data.dtype.name]} can't be cast to the desired output type "
                f"{names[a.data_.dtype.name]}")
        data = data.astype(a.data_.dtype)
    if data.shape != a.data_.shape:
        raise errors.TorchRuntimeError(
            f"output with shape [{', '.join(map(str, a.data_.shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, data.shape))}]")
    if not a.data_.flags.writeable:
        raise errors.TorchRuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation.")
    node = res.grad_fn
    original = None
    if node is not None and node.saved and any(t is a for t in node.saved):
        # The op saved `a` itself as an input, whose value is about to be overwritten:
        # keep the original (PyTorch's `original_self = self.clone()` for in-place ops).
        original = Tensor(a.data_.copy())
        original.grad_fn, original.requires_grad_flag = a.grad_fn, a.requires_grad_flag
        original._accumulator = a._accumulator
    a.data_[...] = data
    a._version[0] += 1
    if node is not None:
        if node.saved:
            # the op's own output is now `a` at its new version; saved inputs that were
            # `a` mean its original value
            saved = list(node.saved)
            versions = list(node.saved_versions)
            for i, t in enumerate(saved):
                if i in node.saved_outputs:
                    t.data_, t._version = a.data_, a._version
                    versions[i] = a._version[0]
                elif t is a:
                    saved[i], versions[i] = original, 0
            node.saved, node.saved_versions = tuple(saved), tuple(versions)
        old = a.grad_fn
        a.grad_fn = node
        a.requires_grad_flag = True
        if a.retains_grad:
            hang_retained(node, a)
        _propagate_to_base(a, old)
    return a


def _propagate_to_base(view: Tensor, old_fn) -> None:
    """An in-place op on a view changes its base's history too (CopySlices)."""
    base = view._base
    if base is None or not is_grad_enabled():
        return
    from ..function import record
    view_fn = view.grad_fn
    saved_old = Tensor(base.data_)
    saved_old.grad_fn, saved_old.requires_grad_flag = base.grad_fn, base.requires_grad_flag
    saved_old._accumulator = base._accumulator

    def backward(g):
        return (g,)
    # the base's new node routes gradient to its old history (a simplification of
    # PyTorch's CopySlices, exact for elementwise updates of slices)
    res = record("CopySlices", base.data_, (saved_old,), backward)
    if res.grad_fn is not None:
        base.grad_fn = res.grad_fn
        base.requires_grad_flag = True


def apply(a: Tensor, fn, *args, **kwargs) -> Tensor:
    """`a.op_(*args)`: run `fn(a, *args)` out of place, then commit into `a`."""
    check_inplace(a)
    res = fn(a, *args, **kwargs)
    if not isinstance(res, Tensor):
        res = Tensor(np.asarray(res))
    return commit_inplace(a, res)


def zero_(a: Tensor) -> Tensor:
    check_inplace(a)
    from ..function import record
    res = record("ZeroBackward0", np.zeros_like(a.data_), (a,), lambda g: (g * 0,))
    return commit_inplace(a, res)


def fill_(a: Tensor, value) -> Tensor:
    check_inplace(a)
    from ..function import record
    v = value.item() if isinstance(value, Tensor) else value
    res = record("FillBackward0", np.full_like(a.data_, v), (a,), lambda g: (g * 0,))
    return commit_inplace(a, res)
