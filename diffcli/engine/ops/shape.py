"""Shape ops: views (view, reshape, squeeze, unsqueeze, transpose, permute, t, expand)
and copies (cat, stack, clone, flip, repeat). Views share storage and version counter
with their base, as in PyTorch."""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors, multiview
from ..function import as_tensor
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor, _wrap_dim
from . import rows
from .rows import expose
from .shape_formulas import cat_backward, expand_backward, permute_backward, repeat_backward, stack_backward

# `ops.NAME`: an op of a module above this one (expand's backward sums, cat's narrows),
# looked up when the backward runs (rows.ops)


def _view_of(out: Tensor, base: Tensor) -> Tensor:
    out._version = base._version
    out._base = base._base if base._base is not None else base
    if base._multi_output is not None:  # (a view of a split's piece: multiview.py)
        multiview.tag_view_of(out, base)
    if base.needs_grad and out.grad_fn is None and not is_grad_enabled():
        # PyTorch: made under no_grad, the view still requires grad (a leaf without an
        # edge into the graph: nothing flows back through it), and in-place ops on it in
        # grad mode are refused
        out.needs_grad = True
        out._no_grad_view = True
    return out


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    return tuple(int(s.item()) if isinstance(s, Tensor) else int(s) for s in shape)


def _infer(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise errors.TorchRuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise errors.TorchRuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise errors.TorchRuntimeError(
                f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}"
            )
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise errors.TorchRuntimeError(
            f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}"
        )
    return tuple(shape)


def _contiguous(x: np.ndarray) -> bool:
    return x.flags.c_contiguous or x.ndim <= 1 and x.strides in ((), (x.itemsize,)) or x.size <= 1


def _reshaped_view(x: np.ndarray, shape):
    """`x` as `shape` without copying, or None when the strides do not allow it (numpy's
    rule is ATen's computeStride)."""
    try:
        return np.reshape(x, shape, copy=False)
    except ValueError:
        return None
    except TypeError:  # numpy < 2.1 has no copy= argument
        y = x.view()
        try:
            y.shape = shape
        except AttributeError:
            return None
        return y


def view(a, *shape):
    a = as_tensor(a)
    shape = _infer(_shape_arg(shape), a.array.size)
    x = a.array
    out = x.reshape(shape) if _contiguous(x) else _reshaped_view(x, shape)
    if out is None:
        raise errors.TorchRuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return _view_of(_VIEW.record(out, (a,), fargs=(shape, x.shape)), a)


def reshape(a, *shape):
    """A view when the strides allow one (ViewBackward0 for a contiguous input,
    ReshapeAliasBackward0 otherwise), else a copy: UnsafeViewBackward0 over a clone."""
    a = as_tensor(a)
    shape = _infer(_shape_arg(shape), a.array.size)
    x = a.array
    fargs = (shape, x.shape)
    if _contiguous(x):
        return _view_of(_VIEW.record(x.reshape(shape), (a,), fargs=fargs), a)
    out = _reshaped_view(x, shape)
    if out is not None:
        return _view_of(_RESHAPE_ALIAS.record(out, (a,), fargs=fargs), a)
    return _UNSAFE_VIEW.record(np.ascontiguousarray(x).reshape(shape), (clone(a),), fargs=fargs)


def _unsafe_view(a, shape):
    return _UNSAFE_VIEW.record(a.array.reshape(shape), (a,), fargs=(shape, a.array.shape))


def flatten(a, start_dim=0, end_dim=-1):
    a = as_tensor(a)
    x = a.array
    if x.ndim == 0:
        return reshape(a, 1)
    s = _wrap_dim(start_dim, x.ndim)
    e = _wrap_dim(end_dim, x.ndim)
    if s > e:
        raise errors.TorchRuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return a
    n = 1
    for d in x.shape[s : e + 1]:
        n *= d
    return reshape(a, *(x.shape[:s] + (n,) + x.shape[e + 1 :]))


def squeeze(a, dim=None):
    a = as_tensor(a)
    x = a.array
    src = x.shape
    if dim is None:
        out = _SQUEEZE.record(x.reshape(tuple(s for s in src if s != 1)), (a,), fargs=(src,))
    elif isinstance(dim, (list, tuple)):
        dims = {_wrap_dim(d, x.ndim) for d in dim}
        kept = tuple(s for i, s in enumerate(src) if not (i in dims and s == 1))
        out = _SQUEEZE_DIMS.record(x.reshape(kept), (a,), fargs=(tuple(sorted(dims)), src))
    else:
        d = _wrap_dim(dim, x.ndim)
        y = x.reshape(src[:d] + src[d + 1 :]) if x.ndim and src[d] == 1 else x.view()
        out = _SQUEEZE_DIM.record(y, (a,), fargs=(d, src))
    return _view_of(out, a)


def unsqueeze(a, dim):
    a = as_tensor(a)
    x = a.array
    d = _wrap_dim(dim, x.ndim + 1)
    out = np.expand_dims(x, d)
    return _view_of(_UNSQUEEZE.record(out, (a,), fargs=(d,)), a)


def transpose(a, dim0, dim1):
    a = as_tensor(a)
    x = a.array
    d0, d1 = _wrap_dim(dim0, x.ndim), _wrap_dim(dim1, x.ndim)
    out = np.swapaxes(x, d0, d1) if x.ndim else x.view()
    return _view_of(_TRANSPOSE.record(out, (a,), fargs=(d0, d1)), a)


def t(a):
    a = as_tensor(a)
    x = a.array
    if x.ndim > 2:
        raise errors.TorchRuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    out = x.T
    return _view_of(_T.record(out, (a,)), a)


def permute(a, *dims):
    a = as_tensor(a)
    x = a.array
    dims = _shape_arg(dims)
    if len(dims) != x.ndim:
        raise errors.TorchRuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {x.ndim} is not "
            f"equal to len(dims) = {len(dims)}"
        )
    dims = tuple(_wrap_dim(d, x.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise errors.TorchRuntimeError("permute(): duplicate dims are not allowed.")
    out = np.transpose(x, dims) if x.ndim else x.view()
    return _view_of(_PERMUTE.record(out, (a,), fargs=(dims,)), a)


def expand(a, *sizes):
    a = as_tensor(a)
    x = a.array
    sizes = _shape_arg(sizes)
    if len(sizes) < x.ndim:
        raise errors.TorchRuntimeError(
            f"expand({errors.torch_type_name(x.dtype)}{{[{', '.join(map(str, x.shape))}]}}, size=[{', '.join(map(str, sizes))}]): "
            "the number of sizes provided (%d) must be greater or equal to the number of "
            "dimensions in the tensor (%d)" % (len(sizes), x.ndim)
        )
    lead = len(sizes) - x.ndim
    target = []
    for i, s in enumerate(sizes):
        src = x.shape[i - lead] if i >= lead else 1
        if s == -1:
            if i < lead:
                raise errors.TorchRuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )
            s = src
        elif src != 1 and src != s:
            raise errors.TorchRuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({src}) at "
                f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                f"Tensor sizes: [{', '.join(map(str, x.shape))}]"
            )
        target.append(s)
    out = np.broadcast_to(x, tuple(target))
    return _view_of(_EXPAND.record(out, (a,), fargs=(tuple(target), x.shape)), a)


def expand_as(a, other):
    return expand(a, *other.array.shape)


def clone(a, memory_format=None):
    a = as_tensor(a)
    return _CLONE.record(np.array(a.array, copy=True), (a,))


def contiguous(a):
    """The tensor itself when already contiguous, else a row-major copy (CloneBackward0)."""
    a = as_tensor(a)
    if a.array.flags.c_contiguous:
        return a
    return _CLONE.record(np.array(a.array, order="C", copy=True), (a,))


def flip(a, *dims):
    a = as_tensor(a)
    dims = tuple(_wrap_dim(d, a.array.ndim) for d in _shape_arg(dims))
    out = np.flip(a.array, dims).copy() if a.array.ndim else a.array.copy()
    return _FLIP.record(out, (a,), fargs=(dims,))


def repeat(a, *sizes):
    a = as_tensor(a)
    sizes = _shape_arg(sizes)
    x = a.array
    if len(sizes) < x.ndim:
        raise errors.TorchRuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    xs = x.reshape((1,) * (len(sizes) - x.ndim) + x.shape)
    out = np.tile(xs, sizes)
    return _REPEAT.record(out, (a,), fargs=(sizes, x.shape))


def _seq(tensors):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise errors.TorchTypeError(f"expected a list or tuple of Tensors, but got {type(tensors).__name__}")
    return [as_tensor(t) for t in tensors]


def _promoted(ts):
    """cat's and stack's dtype: the promotion of all the dtypes (each operand counts as a
    dimensioned tensor: float32 with int64 is float32, where numpy gives float64)."""
    d = ts[0].array.dtype
    for t in ts[1:]:
        d = dtypes.promote(d, t.array.dtype)
    return d


def cat(tensors, dim=0):
    ts = _seq(tensors)
    if not ts:
        raise errors.TorchRuntimeError("torch.cat(): expected a non-empty list of Tensors")
    ref = next((t for t in ts if t.array.ndim), ts[0])
    if ref.array.ndim == 0:
        raise errors.TorchRuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, ref.array.ndim)
    for i, t in enumerate(ts):
        if t.array.ndim == 0:
            raise errors.TorchRuntimeError(
                f"zero-dimensional tensor (at position {i}) cannot be concatenated"
            )
        if t.array.ndim != ref.array.ndim:
            raise errors.TorchRuntimeError(
                f"Tensors must have same number of dimensions: got {ref.array.ndim} and {t.array.ndim}"
            )
        for k in range(ref.array.ndim):
            if k != d and t.array.shape[k] != ref.array.shape[k]:
                raise errors.TorchRuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.array.shape[k]} but got size {t.array.shape[k]} for tensor number {i} in the list."
                )
    out = np.concatenate([t.array for t in ts], axis=d, dtype=_promoted(ts))
    return _CAT.record(out, tuple(ts), fargs=(d, tuple(t.array.shape for t in ts)))


def stack(tensors, dim=0):
    ts = _seq(tensors)
    if not ts:
        raise errors.TorchRuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(ts):
        if t.array.shape != ts[0].array.shape:
            raise errors.TorchRuntimeError(
                f"stack expects each tensor to be equal size, but got "
                f"[{', '.join(map(str, ts[0].array.shape))}] at entry 0 and "
                f"[{', '.join(map(str, t.array.shape))}] at entry {i}"
            )
    d = _wrap_dim(dim, ts[0].array.ndim + 1)
    out = np.stack([t.array for t in ts], axis=d, dtype=_promoted(ts))
    return _STACK.record(out, tuple(ts), fargs=(d,))


def T(a):
    """`Tensor.T`: all dims reversed (PermuteBackward0); deprecated, with a warning,
    unless 2-D."""
    ndim = a.array.ndim
    if ndim == 0:
        errors.warn_once(errors.T_ON_0D_WARNING)
    elif ndim != 2:
        errors.warn_once(errors.T_NOT_2D_WARNING)
    return permute(a, *range(ndim - 1, -1, -1))


def mT(a):
    """`Tensor.mT`: the last two dims swapped (TransposeBackward0); a 0-D tensor is
    returned as it is, with a deprecation warning, and a 1-D tensor refused, as PyTorch
    does."""
    ndim = a.array.ndim
    if ndim == 0:
        errors.warn_once(errors.MT_ON_0D_WARNING)
        return a
    if ndim == 1:
        raise errors.TorchRuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    return transpose(a, -2, -1)


def view_as(a, other):
    return view(a, *other.array.shape)


def reshape_as(a, other):
    return reshape(a, *other.array.shape)


# --- the rows: per op PyTorch's node and, per input, the vector-Jacobian product an
# explanation shows (rows.text_row; the backward formulas are the lambdas above) ----------

_BACK = "grad.reshape(self.shape)"
_SIZES = ("self_sym_sizes", None)  # the input's shape (PyTorch saves it, not the input)
_SIZE = (("size", None), _SIZES)


def _view_backward(grad, self, result, size, self_sym_sizes):  # (a view's formula)
    return reshape(grad, self_sym_sizes)


_VIEW = rows.text_row("view", "ViewBackward0", (_BACK,), args=_SIZE, formulas=(_view_backward,))
_RESHAPE_ALIAS = rows.text_row(
    "_reshape_alias", "ReshapeAliasBackward0", (_BACK,), args=_SIZE, formulas=(_view_backward,)
)
_UNSAFE_VIEW = rows.text_row(
    "_unsafe_view", "UnsafeViewBackward0", (_BACK,), args=_SIZE, formulas=(_view_backward,)
)
_SQUEEZE = rows.text_row(
    "squeeze",
    "SqueezeBackward0",
    (_BACK,),
    args=(_SIZES,),
    formulas=(lambda grad, self, result, self_sym_sizes: reshape(grad, self_sym_sizes),),
)
_SQUEEZE_DIM = rows.text_row(
    "squeeze.dim",
    "SqueezeBackward1",
    (_BACK,),
    args=(("dim", None), _SIZES),
    formulas=(lambda grad, self, result, dim, self_sym_sizes: reshape(grad, self_sym_sizes),),
)
_SQUEEZE_DIMS = rows.text_row(
    "squeeze.dims",
    "SqueezeBackward2",
    (_BACK,),
    args=(("dim", None), _SIZES),
    formulas=(lambda grad, self, result, dim, self_sym_sizes: reshape(grad, self_sym_sizes),),
)
_SQUEEZE_ = rows.text_row(
    "squeeze_.dim",
    "SqueezeBackward4",
    ("grad.unsqueeze(dim)",),
    args=(("dim", 0),),
    formulas=(lambda grad, self, result, dim: unsqueeze(grad, dim),),
)
_UNSQUEEZE = rows.text_row(
    "unsqueeze",
    "UnsqueezeBackward0",
    ("grad.squeeze(dim)",),
    args=(("dim", None),),
    formulas=(lambda grad, self, result, dim: squeeze(grad, dim),),
)
_TRANSPOSE = rows.text_row(
    "transpose",
    "TransposeBackward0",
    ("grad.transpose(dim0, dim1)",),
    args=(("dim0", None), ("dim1", None)),
    formulas=(lambda grad, self, result, dim0, dim1: transpose(grad, dim0, dim1),),
)
_T = rows.text_row("t", "TBackward0", ("grad.t()",), formulas=(lambda grad, self, result: t(grad),))
_PERMUTE = rows.text_row(
    "permute",
    "PermuteBackward0",
    ("grad.permute([list(dims).index(i) for i in range(len(dims))])",),
    args=(("dims", None),),
    formulas=(lambda grad, self, result, dims: permute_backward(grad, dims),),
)
_EXPAND = rows.text_row(
    "expand",
    "ExpandBackward0",
    ("grad.sum_to_size(self.shape)",),
    args=_SIZE,
    formulas=(lambda grad, self, result, size, self_sym_sizes: expand_backward(grad, self_sym_sizes),),
)
_CLONE = rows.text_row("clone", "CloneBackward0", ("grad",), formulas=(lambda grad, self, result: grad,))
_FLIP = rows.text_row(
    "flip",
    "FlipBackward0",
    ("grad.flip(dims)",),
    args=(("dims", None),),
    formulas=(lambda grad, self, result, dims: flip(grad, *dims),),
)
_REPEAT = rows.text_row(
    "repeat",
    "RepeatBackward0",
    ("grad.reshape(repeats[0], self.numel()).sum(0)",),
    args=(("repeats", None), _SIZES),
    formulas=(
        lambda grad, self, result, repeats, self_sym_sizes: repeat_backward(grad, repeats, self_sym_sizes),
    ),
)  # (the text: a 1-D self)
_CAT = rows.text_row(
    "cat",
    "CatBackward0",
    ("grad.narrow(dim, offset, tensors.shape[dim])",),
    inputs=("tensors",),
    args=(("dim", 0), ("tensors_args_sizes", None)),
    joint=lambda grad, tensors, result, dim, tensors_args_sizes, needs: cat_backward(
        grad, dim, tensors_args_sizes
    ),
)  # (per tensor: its slice of grad; any number of tensors)
_STACK = rows.text_row(
    "stack",
    "StackBackward0",
    ("grad.select(dim, i)",),
    inputs=("tensors",),
    args=(("dim", 0),),
    joint=lambda grad, tensors, result, dim, needs: stack_backward(grad, dim),
)  # (tensor i: grad's slice i)
_RESHAPES = (_VIEW, _RESHAPE_ALIAS, _UNSAFE_VIEW)

expose(view, _VIEW, names=("view",), function_too=False)
expose(reshape, *_RESHAPES, names=("reshape",))
expose(flatten, *_RESHAPES, names=("flatten",))
expose(squeeze, _SQUEEZE, _SQUEEZE_DIM, _SQUEEZE_DIMS, names=("squeeze",), inplace=True)
expose(unsqueeze, _UNSQUEEZE, names=("unsqueeze",), inplace=True)
expose(transpose, _TRANSPOSE, names=("transpose",), inplace=True)
expose(t, _T, names=("t",), inplace=True)
expose(permute, _PERMUTE, names=("permute",))
expose(expand, _EXPAND, names=("expand",), function_too=False)
expose(expand_as, _EXPAND, names=("expand_as",), function_too=False)
expose(clone, _CLONE, names=("clone",))
expose(contiguous, _CLONE, names=("contiguous",), function_too=False)
expose(flip, _FLIP, names=("flip",))
expose(repeat, _REPEAT, names=("repeat",), function_too=False)
expose(cat, _CAT, names=("cat", "concat", "concatenate"), method=False)
expose(stack, _STACK, names=("stack",), method=False)
expose(view_as, _VIEW, names=("view_as",), function_too=False)
expose(reshape_as, *_RESHAPES, names=("reshape_as",), function_too=False)
# the shape ops other rows' formulas call (rows.TENSOR_NS)
rows.helpers(
    tensor={
        f.__name__: f
        for f in (
            *(view, reshape, squeeze, unsqueeze, transpose, t, permute, expand, clone, flip, cat, stack),
        )
    }
)
