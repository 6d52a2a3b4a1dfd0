"""In-place ops (`add_`, `mul_`, `x += 1`, `zero_`...): computed out of place, then
written back into the tensor's storage. The version counter is bumped and a non-leaf's
grad_fn is replaced, as in PyTorch; a leaf that requires grad refuses."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors, inference, multiview
from ..function import edge, record
from ..grad_mode import is_grad_enabled
from ..node import Node
from ..tensor import Tensor, hang_retained
from . import rows
from .formulas import zeros_like


def check_inplace(a: Tensor, view: bool = False) -> None:
    if inference.USED[0] and not inference.ACTIVE[0] and inference.is_inference(a):
        raise errors.TorchRuntimeError(inference.INPLACE_ERROR)
    if not is_grad_enabled():
        return
    if a._multi_output is not None and a._base is not None and a._base.needs_grad:
        raise multiview.inplace_error(a)
    if a._no_grad_view:
        raise errors.TorchRuntimeError(errors.NO_GRAD_VIEW_INPLACE)
    base = a._base
    # (PyTorch: a view that requires grad whose base is a leaf, needing grad or not)
    if base is not None and (base.needs_grad or a.needs_grad) and base.grad_fn is None:
        raise errors.TorchRuntimeError(errors.VIEW_LEAF_INPLACE)
    if a.grad_fn is None and a.needs_grad:
        raise errors.TorchRuntimeError(errors.VIEW_LEAF_INPLACE if view else errors.LEAF_INPLACE)


def commit_inplace(a: Tensor, res: Tensor, c_names: bool = False) -> Tensor:
    """Write `res` into `a`'s storage and take over its history. (`c_names`: the cast
    error names the output type as its C type, `long int`, as clamp_'s Scalar overloads do.)"""
    data = res.array
    if data.dtype != a.array.dtype:
        if dtypes.category(data.dtype) > dtypes.category(a.array.dtype):
            out = (dtypes.c_name if c_names else errors.dtype_scalar_name)(a.array.dtype)
            raise errors.TorchRuntimeError(
                f"result type {errors.dtype_scalar_name(data.dtype)} can't be cast to the desired "
                f"output type {out}"
            )
        data = data.astype(a.array.dtype)
    if data.shape != a.array.shape:
        raise errors.TorchRuntimeError(
            f"output with shape [{', '.join(map(str, a.array.shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, data.shape))}]"
        )
    if not a.array.flags.writeable:
        raise errors.TorchRuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    node = res.grad_fn
    original = None
    if node is not None and node.saved and any(t is a for t in node.saved):
        # The op saved `a` itself as an input, whose value is about to be overwritten:
        # keep the original (PyTorch's `original_self = self.clone()` for in-place ops).
        original = Tensor(a.array.copy())
        original.grad_fn, original.needs_grad = a.grad_fn, a.needs_grad
        original._accumulator = a._accumulator
    a.array[...] = data
    a._version[0] += 1
    if node is not None:
        if node.saved:
            # the op's own output is now `a` at its new version; the saved `self` (the
            # first saved slot that is `a`) means its original value. A second slot
            # (`a.mul_(a)`: `other` is `a` too) stays `a` at the old version, so backward
            # raises the version error, as PyTorch does.
            saved = list(node.saved)
            versions = list(node.saved_versions)
            for i, t in enumerate(saved):
                if i in node.saved_outputs:
                    t.array, t._version = a.array, a._version
                    versions[i] = a._version[0]
                elif t is a and original is not None:
                    saved[i], versions[i], original = original, 0, None
            node.saved, node.saved_versions = tuple(saved), tuple(versions)
        a.grad_fn = node
        a.needs_grad = True
        _propagate_to_base(a)
        _refresh_views(a._base if a._base is not None else a)
        if a.retains_grad and a.grad_fn is node:  # (a view was re-hung by _refresh_views)
            hang_retained(a.grad_fn, a)
    else:
        _regenerate_views(a)
    return a


def _region(view: np.ndarray, base: np.ndarray) -> np.ndarray:
    """For every element of `view` (a numpy view into `base`'s memory), the flat index of
    the same element in `base`."""
    isz = base.itemsize

    def offsets(arr, start):
        o = np.full(arr.shape, start // isz, dtype=np.int64)
        for d, (n, st) in enumerate(zip(arr.shape, arr.strides)):
            shape = [1] * arr.ndim
            shape[d] = n
            o = o + (np.arange(n, dtype=np.int64) * (st // isz)).reshape(shape)
        return o

    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if base.flags.c_contiguous:  # memory order is flat order
        return offsets(view, start)
    base_off = offsets(base, 0).reshape(-1)
    order = np.argsort(base_off, kind="stable")
    return order[np.searchsorted(base_off[order], offsets(view, start))]


def _gather(g: Tensor, idx: np.ndarray) -> Tensor:
    """g (base-shaped) at the view's elements (differentiable): IndexBackward0. By flat
    offsets, not through the index rows: a 0-d base has no key for them."""
    shape = g.array.shape
    return record("IndexBackward0", g.array.reshape(-1)[idx], (g,), lambda gg: (_scatter(gg, idx, shape),))


def _scatter(gv: Tensor, idx: np.ndarray, shape) -> Tensor:
    """Zeros of the base's shape with gv at the view's elements (differentiable):
    IndexPutBackward0, whose gradient is _gather's read."""
    out = np.zeros(int(np.prod(shape)), dtype=gv.array.dtype)
    np.add.at(out, idx.reshape(-1), gv.array.reshape(-1))
    return record("IndexPutBackward0", out.reshape(shape), (gv,), lambda gg: (_gather(gg, idx),))


class CopySlices(Node):
    """PyTorch's CopySlices: the base's grad_fn after an in-place op `fn` on one of its
    views. Its edges are the base's previous history plus fn's other inputs; backward
    passes the gradient through unchanged outside the view's elements and through fn's
    formula inside them."""

    __slots__ = ("fn",)

    def __init__(self, base: Tensor, fn: Node, idx: np.ndarray):
        shape = base.array.shape
        keep = np.ones(shape, dtype=base.array.dtype)
        keep.reshape(-1)[idx.reshape(-1)] = 0

        def backward(g):
            grads = fn.backward_fn(_gather(g, idx), *fn.unpack_saved())
            outside = g * Tensor(keep)
            inside = grads[0]
            return (outside if inside is None else outside + _scatter(inside, idx, shape),) + tuple(grads[1:])

        super().__init__(
            "CopySlices",
            (edge(base),) + tuple(fn.next_nodes[1:]),
            backward,
            (),
            ((shape, base.array.dtype),) + tuple(fn.input_meta[1:]),
        )
        self.fn = fn

    def release(self):
        # PyTorch's CopySlices drops its fn: a second backward raises, whatever fn saved
        self.fn.release()
        self.released = True


def _as_strided_node(view: Tensor, base: Tensor) -> Node:
    """A view's grad_fn after its base changed in place: AsStridedBackward0 over the
    base's gradient edge, scattering the view's gradient into the base's shape."""
    idx = _region(view.array, base.array)
    shape = base.array.shape
    return Node(
        "AsStridedBackward0",
        (edge(base),),
        lambda g: (_scatter(g, idx, shape),),
        (),
        ((shape, base.array.dtype),),
    )


def _propagate_to_base(view: Tensor) -> None:
    """An in-place op on a view changes its base's history too: the base gets CopySlices
    over its old grad_fn (the view then gets AsStridedBackward0 over that, in
    `_refresh_views`), as in PyTorch."""
    base = view._base
    if base is None or not is_grad_enabled():
        return
    base.grad_fn = CopySlices(base, view.grad_fn, _region(view.array, base.array))
    base.needs_grad = True
    if base.retains_grad:  # retain_grad follows the tensor to its new grad_fn, as in PyTorch
        hang_retained(base.grad_fn, base)


def _refresh_views(base: Tensor) -> None:
    """After an in-place op recorded a new grad_fn on `base` (directly or through a view),
    every live view of it describes `base`'s new value: PyTorch regenerates their grad_fn
    as AsStridedBackward0 over the base's history, and so do we (eagerly)."""
    if base._views is None or base.grad_fn is None or not is_grad_enabled():
        return
    live = []
    for ref in base._views:
        v = ref()
        if v is None:
            continue
        live.append(ref)
        b = v._base  # (`base` itself, or the tensor a detached alias of `base` shares memory with)
        if v.grad_fn is None and not b.needs_grad:
            continue
        if multiview.invalidate(v):
            continue
        v.grad_fn = _as_strided_node(v, b)
        v.needs_grad = True
        if v.retains_grad:
            hang_retained(v.grad_fn, v)
    base._views[:] = live  # (in place: detached aliases share the list)


def _regenerate_views(a: Tensor) -> None:
    """An in-place op that recorded nothing (under no_grad, or on a detached alias) still
    bumped the version the views of `a`'s memory share: PyTorch then regenerates the
    grad_fn of every such view that has one, over a base that requires grad, as
    AsStridedBackward0 over the base's history (lazily; we do it now)."""
    base = a._base if a._base is not None else a
    if base._views is None:
        return
    for ref in base._views:
        v = ref()
        if v is None or v.grad_fn is None:
            continue
        b = v._base
        if b is None or not b.needs_grad:
            continue
        if multiview.invalidate(v):
            continue
        v.grad_fn = _as_strided_node(v, b)
        if v.retains_grad:
            hang_retained(v.grad_fn, v)


def apply(a: Tensor, fn, *args, **kwargs) -> Tensor:
    """`a.op_(*args)`: run `fn(a, *args)` out of place, then commit into `a`."""
    check_inplace(a)
    res = fn(a, *args, **kwargs)
    if not isinstance(res, Tensor):
        res = Tensor(np.asarray(res))
    c_names = getattr(fn, "scalar_cast_c_names", False) and not any(
        isinstance(v, Tensor) for v in (*args, *kwargs.values())
    )
    return commit_inplace(a, res, c_names)


def zero_(a: Tensor) -> Tensor:
    check_inplace(a)
    res = _ZERO.record(np.zeros_like(a.array), (a,))
    return commit_inplace(a, res)


def fill_(a: Tensor, value) -> Tensor:
    """fill_(Number) is FillBackward2; fill_(Tensor), for a 0-d tensor, FillBackward3 with
    the value as a second input (its gradient is the sum of g)."""
    check_inplace(a)
    if isinstance(value, Tensor):
        if value.array.ndim:
            raise errors.TorchRuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.array.ndim} dimensions."
            )
        res = _FILL_TENSOR.record(np.full_like(a.array, value.array.item()), (a, value))
    else:
        res = _FILL_SCALAR.record(np.full_like(a.array, value), (a,), fargs=(value,))
    return commit_inplace(a, res)


# the rows of the in-place ops that are their own ops (x.zero_(), x.fill_(v))
# (zeros_like(grad): a constant, formulas.py; sum: the sum op, in rows.TENSOR_NS)
_ZERO = rows.text_row(
    "zero_", "ZeroBackward0", ("0",), formulas=(lambda grad, self, result: zeros_like(grad),)
)
_FILL_SCALAR = rows.text_row(
    "fill_.Scalar",
    "FillBackward2",
    ("0",),
    args=(("value", None),),
    formulas=(lambda grad, self, result, value: zeros_like(grad),),
)
_FILL_TENSOR = rows.text_row(
    "fill_.Tensor",
    "FillBackward3",
    ("0", "grad.sum()"),
    inputs=("self", "value"),
    formulas=(
        lambda grad, self, value, result: zeros_like(grad),
        lambda grad, self, value, result: sum(grad),
    ),
    eager=True,  # (both, whichever requires grad: as diffcli has computed them)
)
zero_.rows = (_ZERO,)
fill_.rows = (_FILL_SCALAR, _FILL_TENSOR)
