"""The op table as the script sees it: function names -> callables, Tensor methods and
operators.

The differentiable ops come from their rows: each op module puts its functions in
rows.TABLE (rows.expose) with their script names and flags (a Tensor method, an in-place
variant), a row with `names` doing so itself. A new elementwise op is therefore one row in
its module (and one test row); this file lists only the ops without a gradient
(comparisons, creation...) and binds the operators."""

from __future__ import annotations

from ..tensor import Tensor
from . import (  # noqa: F401 (their ops' rows)
    activations,
    conversion,
    diagonals,
    einsum,
    extremes,
    functional,
    index_ops,
    index_put,
    losses,
    masked,
    pointwise3,
    rearrange,
    reductions,
    rows,
    scatter,
    selecting,
    shape,
    softmax,
    sorting,
    splits,
    statistics,
    triangular,
    unary_args,
    unary_more,
    unfold,
)
from . import arithmetic as A
from . import assignment as AS
from . import bitwise as BW
from . import composites as CO
from . import counting as CT
from . import creation as K
from . import discrete as D
from . import indexing as I
from . import inplace as IP
from . import linalg as L
from . import new_tensors as NT
from . import predicates as PR
from . import ranges as R
from . import selection as SE
from . import shape as S
from . import unary as U

# Functions reachable as `name(...)`, `torch.name(...)`, `F.name(...)`: the ops with rows...
FUNCTIONS = {name: e.function for e in rows.TABLE if e.function is not None for name in e.names}
# ...and the rest: comparisons, logic, integer/bool results, creation (`_NOT_METHODS` marks
# those that are not Tensor methods)
_OTHERS = {
    "lt": SE.lt,
    "le": SE.le,
    "gt": SE.gt,
    "ge": SE.ge,
    "eq": SE.eq,
    "ne": SE.ne,
    "logical_and": SE.logical_and,
    "logical_or": SE.logical_or,
    "logical_not": SE.logical_not,
    "any": D.any,
    "all": D.all,
    "argmax": D.argmax,
    "argmin": D.argmin,
    "argsort": sorting.argsort,
    "equal": D.equal,
    "allclose": D.allclose,
    "tensor": K.tensor,
    "Tensor": K.Tensor_,
    "zeros": K.zeros,
    "ones": K.ones,
    "full": K.full,
    "eye": K.eye,
    "arange": R.arange,
    "linspace": R.linspace,
    "rand": K.rand,
    "randn": K.randn,
    "randint": K.randint,
    "randperm": K.randperm,
    "zeros_like": K.zeros_like,
    "ones_like": K.ones_like,
    "full_like": K.full_like,
    "rand_like": K.rand_like,
    "randn_like": K.randn_like,
    "manual_seed": K.manual_seed,
}
_NOT_METHODS = {
    "tensor",
    "Tensor",
    "zeros",
    "ones",
    "full",
    "eye",
    "arange",
    "linspace",
    "rand",
    "randn",
    "randint",
    "randperm",
    "manual_seed",
    "zeros_like",
    "ones_like",
    "full_like",
    "rand_like",
    "randn_like",
    *CO.CONSTRUCTORS,
    "searchsorted",  # (torch.X only)
    "bucketize",
}
_OTHERS.update(PR.PREDICATES)
_OTHERS.update(BW.BITWISE)
_OTHERS.update(functional.ALIASES)
_OTHERS.update(CO.CONSTRUCTORS)
_OTHERS.update(CT.COUNTING)
FUNCTIONS.update(_OTHERS)

# Methods: the rows' ops flagged `method`, the other functions that take the tensor first
METHODS = {name: e.method for e in rows.TABLE if e.method is not None for name in e.names}
METHODS.update({k: v for k, v in _OTHERS.items() if k not in _NOT_METHODS})
METHODS.update({"equal": D.equal_method, "allclose": D.allclose_method})
METHODS.update(NT.NEW_METHODS)  # (x.new_zeros(...): methods only)
METHODS.update(CO.LAYOUT_METHODS)

# In-place variants `x.name_(...)` (of an op's first name); `zero_`/`fill_` are their own ops.
INPLACE = {e.names[0] + "_": METHODS[e.names[0]] for e in rows.TABLE if e.inplace}
INPLACE["copy_"] = NT.copy  # (in place only: x.copy_(src))
INPLACE.update({n + "_": fn for n, fn in BW.BITWISE.items()})


def _inplace_method(fn):
    def method(self, *args, **kwargs):
        return IP.apply(self, fn, *args, **kwargs)

    return method


def _bind():
    for name, fn in METHODS.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    for name, fn in INPLACE.items():
        setattr(Tensor, name, _inplace_method(fn))
    Tensor.T = property(S.T)
    Tensor.mT = property(S.mT)
    Tensor.zero_ = IP.zero_
    Tensor.fill_ = IP.fill_
    Tensor.__add__ = A.add
    Tensor.__radd__ = A.add
    Tensor.__sub__ = A.sub
    Tensor.__rsub__ = lambda s, o: A.rsub(s, o) if not isinstance(o, Tensor) else A.sub(o, s)
    Tensor.__mul__ = A.mul
    Tensor.__rmul__ = A.mul
    Tensor.__truediv__ = A.div_  # (the row itself: no rounding_mode to dispatch on)
    Tensor.__rtruediv__ = lambda s, o: (
        A.mul(U.reciprocal(s), o) if not isinstance(o, Tensor) else A.div_(o, s)
    )
    Tensor.__floordiv__ = A.floor_divide
    Tensor.__rfloordiv__ = lambda s, o: A.floor_divide(o, s)
    Tensor.__mod__ = A.remainder
    Tensor.__rmod__ = lambda s, o: A.remainder(o, s)
    Tensor.__pow__ = A.pow
    Tensor.__rpow__ = lambda s, o: A.pow(o, s)
    Tensor.__matmul__ = lambda s, o: L.matmul(s, o)
    Tensor.__rmatmul__ = lambda s, o: L.matmul(o, s)
    Tensor.__neg__ = A.neg
    Tensor.__pos__ = lambda s: s
    Tensor.__abs__ = lambda s: U.abs(s)
    Tensor.__iter__ = lambda s: iter(I.unbind(s))
    Tensor.__lt__ = lambda s, o: SE.lt(s, o)
    Tensor.__le__ = lambda s, o: SE.le(s, o)
    Tensor.__gt__ = lambda s, o: SE.gt(s, o)
    Tensor.__ge__ = lambda s, o: SE.ge(s, o)
    Tensor.__eq__ = lambda s, o: SE.eq(s, o)
    Tensor.__ne__ = lambda s, o: SE.ne(s, o)
    Tensor.__and__ = lambda s, o: BW.bitwise_and(s, o)
    Tensor.__rand__ = lambda s, o: BW.bitwise_and(o, s)
    Tensor.__or__ = lambda s, o: BW.bitwise_or(s, o)
    Tensor.__ror__ = lambda s, o: BW.bitwise_or(o, s)
    Tensor.__invert__ = BW.invert
    Tensor.__getitem__ = lambda s, k: I.getitem(s, k)
    Tensor.__setitem__ = lambda s, k, v: AS.setitem(s, k, v)
    Tensor.__iadd__ = lambda s, o: IP.apply(s, A.add, o)
    Tensor.__isub__ = lambda s, o: IP.apply(s, A.sub, o)
    Tensor.__imul__ = lambda s, o: IP.apply(s, A.mul, o)
    Tensor.__itruediv__ = lambda s, o: IP.apply(s, A.div, o)
    Tensor.__hash__ = object.__hash__


_bind()

from . import symforms  # noqa: E402,F401 (after every row is made: each row's symbolic form)
