"""The Tensor: a numpy array plus PyTorch's autograd state.

State: `data` (ndarray), `requires_grad`, `grad_fn` (None for leaves), `_grad`,
`_version` (a one-element list shared with views and `detach()`), `_base` (the tensor a
view was taken from), `retains_grad`. Operations live in `ops/`; operators and methods
here only forward to them.
"""

from __future__ import annotations

import numbers
import weakref

import numpy as np

from . import dtypes, errors, inference
from .printing import format_tensor


class Size(tuple):
    """`torch.Size`: a tuple that prints as `torch.Size([2, 3])`."""

    def __repr__(self):
        return "torch.Size([" + ", ".join(str(s) for s in self) + "])"

    __str__ = __repr__

    # as torch.Size: a slice, a concatenation with any tuple (either side) and a repetition
    # are Sizes again
    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        if not isinstance(n, int):
            raise TypeError(f"can't multiply sequence by non-int of type '{type(n).__name__}'")
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


class Tensor:
    __slots__ = (
        "array",
        "needs_grad",
        "grad_fn",
        "_grad",
        "_version",
        "_view_base",
        "_views",
        "retains_grad",
        "_accumulator",
        "_no_grad_view",
        "_multi_output",
        "__weakref__",
    )

    __array_priority__ = 1000  # make numpy defer to our reflected operators

    # --- construction -------------------------------------------------------------
    def __init__(self, data, requires_grad: bool = False):
        if data.__class__ is not np.ndarray:  # numpy ops give scalars for 0-d results
            data = np.asarray(data)
        self.array = data
        self.needs_grad = requires_grad
        self.grad_fn = None
        self._grad = None
        self._version = [0]
        self._view_base = None
        self._views = None
        self.retains_grad = False
        self._accumulator = None
        self._no_grad_view = False  # a view made under no_grad of a tensor requiring grad
        self._multi_output = None  # (output number, op): a view of split/chunk/unbind (multiview.py)

    # --- autograd state -------------------------------------------------------------
    @property
    def _base(self):
        """The tensor this view shares storage with (None for a non-view)."""
        return self._view_base

    @_base.setter
    def _base(self, base):
        # A base knows its live views (weakly), so that an in-place op on the base or on
        # any view can give every view a grad_fn that sees the change (ops/inplace.py).
        self._view_base = base
        if base is not None:
            views = base._views
            if views is None:
                views = base._views = []
            elif len(views) >= 16 and len(views) & (len(views) - 1) == 0:
                views[:] = [r for r in views if r() is not None]
            views.append(weakref.ref(self))

    @property
    def data(self) -> Tensor:
        """`x.data`: same storage, detached, with a version counter of its own."""
        return Tensor(self.array)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise errors.TorchTypeError(errors.DATA_NOT_TENSOR.format(t=type(value).__name__))
        self.array = value.array

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        return self.needs_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if value.__class__ is not bool:  # PyTorch refuses 0, 1, a bool tensor...
            raise errors.TorchRuntimeError(errors.REQUIRES_GRAD_NOT_BOOL)
        if self.grad_fn is not None:  # unlike requires_grad_(True), the attribute refuses
            raise errors.TorchRuntimeError(
                errors.NONLEAF_REQUIRES_GRAD_FALSE if not value else errors.NONLEAF_REQUIRES_GRAD
            )
        if value and self.array.dtype.kind != "f":
            raise errors.TorchRuntimeError(errors.INT_REQUIRES_GRAD_ATTR)
        if value:
            inference.check_requires_grad(self)
        self.needs_grad = bool(value)

    @property
    def grad(self):
        if self.grad_fn is not None and not self.retains_grad and self._grad is None:
            errors.warn(errors.NONLEAF_GRAD_WARNING)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise errors.TorchTypeError(errors.GRAD_ASSIGN_TYPE.format(t=type(value).__name__))
            if value.array.dtype != self.array.dtype:
                raise errors.TorchRuntimeError(
                    errors.GRAD_ASSIGN_DTYPE.format(
                        g=errors.dtype_c_name(value.array.dtype), t=errors.dtype_scalar_name(self.array.dtype)
                    )
                )
            if value.array.shape != self.array.shape:
                raise errors.TorchRuntimeError(
                    errors.GRAD_ASSIGN_SIZE.format(
                        g=", ".join(map(str, value.array.shape)), t=", ".join(map(str, self.array.shape))
                    )
                )
        self._grad = value

    @property
    def shape(self) -> Size:
        return Size(self.array.shape)

    @property
    def dtype(self):
        return dtypes.of(self.array.dtype)

    @property
    def ndim(self) -> int:
        return self.array.ndim

    def size(self, dim=None):
        if dim is None:
            return self.shape
        return self.array.shape[_wrap_dim(dim, self.array.ndim)]

    def dim(self) -> int:
        return self.array.ndim

    def numel(self) -> int:
        return int(self.array.size)

    def is_floating_point(self) -> bool:
        return self.array.dtype.kind == "f"

    def item(self):
        if self.array.size != 1:
            raise errors.TorchRuntimeError(
                f"a Tensor with {self.array.size} elements cannot be converted to Scalar"
            )
        return self.array.reshape(()).item()

    def tolist(self):
        return self.array.tolist()

    def retain_grad(self):
        if not self.needs_grad:
            raise errors.TorchRuntimeError(errors.RETAIN_GRAD_NO_GRAD)
        if self.grad_fn is None:  # a leaf: no-op
            return None
        if not self.retains_grad:
            self.retains_grad = True
            hang_retained(self.grad_fn, self)
        return None

    def requires_grad_(self, requires_grad: bool = True):
        if self.grad_fn is not None:
            if not requires_grad:
                raise errors.TorchRuntimeError(errors.NONLEAF_REQUIRES_GRAD_FALSE)
            return self
        if requires_grad and self.array.dtype.kind != "f":
            raise errors.TorchRuntimeError(errors.INT_REQUIRES_GRAD_METHOD)
        if requires_grad:
            inference.check_requires_grad(self)
        self.needs_grad = bool(requires_grad)
        return self

    def detach(self) -> Tensor:
        t = Tensor(self.array)
        t._version = self._version
        # the alias shares the memory's list of views too: an in-place op on it changes
        # them, and their grad_fn is regenerated (ops/inplace.py)
        root = self._view_base if self._view_base is not None else self
        if root._views is None:
            root._views = []
        t._views = root._views
        return t

    def detach_(self) -> Tensor:
        if self._base is not None:
            raise errors.TorchRuntimeError(errors.DETACH_VIEW_INPLACE)
        self.grad_fn = None
        self.needs_grad = False
        self.retains_grad = False
        return self

    # (backward: bound by autograd.py, T and mT by ops/table.py: the modules above this one)

    # --- printing -----------------------------------------------------------------
    def __repr__(self):
        suffixes = []
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self.needs_grad:
            suffixes.append("requires_grad=True")
        return format_tensor(self.array, suffixes=suffixes)

    __str__ = __repr__

    def __format__(self, spec):
        if self.array.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise errors.TorchTypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __contains__(self, element):
        """`element in t`: PyTorch's `(element == t).any().item()`, for a Tensor or a number."""
        if not isinstance(element, (Tensor, numbers.Number)):
            raise errors.TorchRuntimeError(
                f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
            )
        return bool((element == self).array.any())

    def __len__(self):
        if self.array.ndim == 0:
            raise errors.TorchTypeError("len() of a 0-d tensor")
        return self.array.shape[0]

    def __bool__(self):
        if self.array.size != 1:
            raise errors.TorchRuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.array.reshape(()).item())

    def __float__(self):
        if self.needs_grad:
            errors.warn_once(errors.SCALAR_CONVERSION_WARNING)
        if self.array.size != 1:
            raise errors.TorchValueError(errors.ONE_ELEMENT_SCALAR)
        return float(self.array.reshape(()).item())

    def __int__(self):
        if self.array.size != 1:
            raise errors.TorchValueError(errors.ONE_ELEMENT_SCALAR)
        return int(self.array.reshape(()).item())

    __hash__ = object.__hash__


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise errors.TorchIndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def hang_retained(node, t: Tensor) -> None:
    """Register `t` for retain_grad at `node`, weakly (node -> t -> node is no cycle)."""
    if node.retained is None:
        node.retained = []
    node.retained.append(weakref.ref(t))
