"""The scalar lane of two-operand rows, and the entry functions of rows with arguments.

The scalar lane is the engine's hottest path (a script of 0-d tensors is one op per
statement): `lane_function(row)` is the code `mul`, `add`, `div` had by hand, for any row.
`lane(a, b)` returns the result, or None when the operands are not lane operands (the
ordinary path takes them). The second operand is a 0-d float64 Tensor or a Python number:
for "edge" rows (mul) a number is an input without an edge (PyTorch's wrapped number,
`a * 2` lists (AccumulateGrad, None)); for "arg" rows (PowBackward0) it is the row's first
argument, and the row has one input.
"""

from __future__ import annotations

from types import FunctionType

from ..codenames import renamed
from ..function import CONST, F64, OUT, record_scalar
from ..tensor import Tensor
from . import rows
from .rows import RESULT, Row

EXACT = 2**53  # Python ints up to this convert to float64 exactly


def _layout(row, saved, b="b"):
    """The saved tuple of one pattern as symbols: "a" (the first operand), "b", "OUT"."""
    names = {row.inputs[0]: "a", RESULT: "OUT"}
    if len(row.inputs) > 1:
        names[row.inputs[1]] = b
    return tuple(names[n] for n in saved)


# The saved tuple of a pattern, from its layout: one small function each.
SAVERS = {
    (): lambda a, b: (),
    ("a",): lambda a, b: (a,),
    ("b",): lambda a, b: (b,),
    ("a", "b"): lambda a, b: (a, b),
    ("b", "a"): lambda a, b: (b, a),
    ("CONST",): lambda a, b: (CONST,),
    ("OUT",): lambda a, b: (OUT,),
    ("a", "OUT"): lambda a, b: (a, OUT),
    ("b", "OUT"): lambda a, b: (b, OUT),
    ("a", "b", "OUT"): lambda a, b: (a, b, OUT),
    ("b", "a", "OUT"): lambda a, b: (b, a, OUT),
    ("a", "CONST"): lambda a, b: (a, CONST),
    ("CONST", "a"): lambda a, b: (CONST, a),
    ("a", "CONST", "OUT"): lambda a, b: (a, CONST, OUT),
}


def saver(row, saved, b="b"):
    """(a, b) -> the tuple a node of this pattern saves."""
    return SAVERS[_layout(row, saved, b)]


def lane_function(row: Row, number):
    """`number`: "edge" (mul), "arg" (pow0), or None (two Tensors only)."""
    assert callable(row.lane), f"{row.name}: a two-operand lane is a function on floats"
    if number == "arg":
        return _arg_lane(row)
    return _binary_lane(row, number == "edge")


def _binary_lane(row, numbers):
    fwd, name = row.lane, row.grad_fn
    pats = {}
    for k, needs in ((1, (True, False)), (2, (False, True)), (3, (True, True))):
        v = rows.variant(row, needs, lane=True)
        code = {("b",): 0, ("a",): 1, ("b", "a"): 2, ("a", "b"): 3, (): 4}.get(_layout(row, v.saved))
        pats[k] = (v.backward, SAVERS[_layout(row, v.saved)] if code is None else code, v.fast)
    (b1, s1, f1), (b2, s2, f2), (b3, s3, f3) = pats[1], pats[2], pats[3]
    if numbers:
        v = rows.variant(row, (True, False), (False, True), lane=True)
        bn, fn = v.backward, v.fast
        layout = _layout(row, v.saved, "CONST")
        saved_n = None if "a" in layout else SAVERS[layout](None, None)  # (no operand in it)
        save_n = SAVERS[layout]
        # the node's fargs are (self, number, result) as floats; what its formulas do not
        # read is None, so a long chain of `y * 0.5` keeps one float per node, not three
        read = rows.formula_reads(row, (True, False))
        keep = ("self" in read) + 2 * (RESULT in read)

    def lane(a, b):
        if a.__class__ is not Tensor:
            return None
        d = a.array
        if d.dtype is not F64 or d.ndim:
            return None
        tb = b.__class__
        if tb is float or tb is int and -EXACT <= b <= EXACT:
            if not numbers:
                return None
            x = float(d)
            try:
                r = fwd(x, b)
            except (ArithmeticError, ValueError):
                return None
            return record_scalar(
                name,
                r,
                (a, None),
                bn,
                save_n(a, CONST) if saved_n is None else saved_n,
                fn,
                (None, b, None)
                if not keep
                else (x, b, r)
                if keep == 3
                else (x, b, None)
                if keep == 1
                else (None, b, r),
            )
        if tb is not Tensor:
            return None
        e = b.array
        if e.dtype is not F64 or e.ndim:
            return None
        x = float(d)
        y = float(e)
        try:
            r = fwd(x, y)
        except (ArithmeticError, ValueError):
            return None
        if a.needs_grad:
            if b.needs_grad:
                bw, s, f = b3, s3, f3
            else:
                bw, s, f = b1, s1, f1
        else:
            bw, s, f = b2, s2, f2
        saved = (
            (b,)
            if s == 0
            else (a,)
            if s == 1
            else (b, a)
            if s == 2
            else (a, b)
            if s == 3
            else ()
            if s == 4
            else s(a, b)
        )
        return record_scalar(name, r, (a, b), bw, saved, f, (x, y, r))

    return lane


def _arg_lane(row):
    """A one-input row whose first arg is a number (PowBackward0: `a ** 2`)."""
    fwd, name = row.lane, row.grad_fn
    v = rows.variant(row, (True,), lane=True, lane_args=(row.args[0][0],))
    bn, fn = v.backward, v.fast
    layout = _layout(row, v.saved)
    assert layout in ((), ("a",)), f"{row.name}: an arg lane saves its input or nothing"
    self_saved = layout == ("a",)
    keep_result = RESULT in rows.formula_reads(row, (True,))  # (else None in fargs)

    def lane(a, b):
        if a.__class__ is not Tensor:
            return None
        d = a.array
        if d.dtype is not F64 or d.ndim:
            return None
        tb = b.__class__
        if tb is float or tb is int and -EXACT <= b <= EXACT:
            x = float(d)
            try:
                r = fwd(x, b)
            except (ArithmeticError, ValueError):
                return None
            return record_scalar(
                name, r, (a,), bn, (a,) if self_saved else (), fn, (x, r if keep_result else None, b)
            )
        return None

    return lane


# The entry functions: the op as a script calls it, with the row's signature (`add(self,
# other, alpha=1)`): the lane first (when the args it does not take are their defaults),
# then `_ordinary(*inputs, args)`. Each is one of these templates, renamed: `entry` gives
# a copy of the template's code the row's names (so `add(a, b, beta=1)` fails as Python
# says, with `add` and `alpha`) and globals of its own (_lane, _ordinary, the defaults
# _D0, _D1). Nothing is compiled.


def _in1_args1(self, arg0=None):
    return _ordinary(self, (arg0,))  # noqa: F821 (the entry's own globals)


def _in1_args2(self, arg0=None, arg1=None):
    return _ordinary(self, (arg0, arg1))  # noqa: F821


def _in2_args1(self, other, arg0=None):
    return _ordinary(self, other, (arg0,))  # noqa: F821


def _in1_args3(self, arg0=None, arg1=None, arg2=None):
    return _ordinary(self, (arg0, arg1, arg2))  # noqa: F821


def _in2_lane(self, other):
    r = _lane(self, other)  # noqa: F821
    if r is not None:
        return r
    return _ordinary(self, other)  # noqa: F821


def _in2_args1_lane(self, other, arg0=None):
    if arg0 == _D0:  # noqa: F821
        r = _lane(self, other)  # noqa: F821
        if r is not None:
            return r
    return _ordinary(self, other, (arg0,))  # noqa: F821


def _in1_args1_arglane(self, arg0=None):
    r = _lane(self, arg0)  # noqa: F821
    if r is not None:
        return r
    return _ordinary(self, (arg0,))  # noqa: F821


def _in1_args2_arglane(self, arg0=None, arg1=None):
    if arg1 == _D1:  # noqa: F821
        r = _lane(self, arg0)  # noqa: F821
        if r is not None:
            return r
    return _ordinary(self, (arg0, arg1))  # noqa: F821


_TEMPLATES = {
    (1, 1, False): _in1_args1,
    (1, 2, False): _in1_args2,
    (1, 3, False): _in1_args3,
    (2, 1, False): _in2_args1,
    (2, 0, True): _in2_lane,
    (2, 1, True): _in2_args1_lane,
    (1, 1, True): _in1_args1_arglane,
    (1, 2, True): _in1_args2_arglane,
}


def entry(row: Row, ordinary, lane=None):
    """The op's entry function: a template above, with the row's names and defaults."""
    fname = row.name.split(".")[0]
    names = (*row.inputs, *(a for a, _ in row.args))
    template = _TEMPLATES[(len(row.inputs), len(row.args), lane is not None)]
    code = template.__code__
    code = renamed(code, fname, co_varnames=names + code.co_varnames[len(names) :])
    defaults = tuple(d for _, d in row.args) or None
    ns = {
        "_ordinary": ordinary,
        "_lane": lane,
        "__builtins__": __builtins__,
        "__name__": __name__,
        **{f"_D{i}": d for i, (_, d) in enumerate(row.args)},
    }
    return FunctionType(code, ns, fname, defaults)
