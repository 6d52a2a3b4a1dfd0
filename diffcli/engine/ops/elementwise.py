"""The engine functions made from elementwise rows (rows.py): `unary(row)`, `binary(row)`.

Each function has two paths:

  the scalar lane   every operand a 0-d float64 tensor or a Python number: the forward on
                    Python floats (the row's `lane`), recorded with record_scalar together
                    with the row's formulas bound to floats (the engine runs those without
                    create_graph). Where Python raises (a zero divisor) the op takes the
                    ordinary path. The two-operand lane is lanes.py's.
  the ordinary path numpy on the promoted operands, recorded with record.

Operand rules shared with the comparisons: `operands`, `broadcast_check`.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, errors, promotion
from ..function import CONST, F64, OUT, as_tensor, record, record_scalar
from ..tensor import Tensor
from . import lanes, rows
from .rows import NUMPY, RESULT, Row


def operands(a, b):
    """Both operands as Tensors in the promoted dtype, plus the result dtype."""
    if type(a) is Tensor:  # fast paths: same dtypes, or a float tensor and a Python number
        da = a.array.dtype
        tb = type(b)
        if tb is Tensor:
            if b.array.dtype is da:
                return a, b, da
        elif (tb is float or tb is int) and da.kind == "f":
            return a, Tensor(np.array(b, da)), da
    rd = promotion.result_type(a, b)
    if rd is None:
        raise errors.TorchTypeError(
            f"unsupported operand type(s): '{type(a).__name__}' and '{type(b).__name__}'"
        )
    ta = a if isinstance(a, Tensor) else as_tensor(a, rd)
    tb = b if isinstance(b, Tensor) else as_tensor(b, rd)
    return ta, tb, rd


def data(t, rd):
    d = t.array
    return d if rd is None or d.dtype == rd else d.astype(rd)


def broadcast_check(fn, x, y, rd, *args):
    try:
        return fn(data(x, rd), data(y, rd), *args)
    except ValueError:
        raise errors.broadcast_error(x.array.shape, y.array.shape) from None


def tensor_args(fname, a, b, method):
    """torch.fn(input, other) and Tensor.fn(other) take Tensors only."""
    for v, arg, pos in ((a, "input", 1), (b, "other", 1 if method else 2)):
        if not isinstance(v, Tensor):
            raise errors.TorchTypeError(
                f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(v).__name__}"
            )


def check_kernel(refused, dtype) -> None:
    """PyTorch's CPU kernels that have no version for some dtypes: `refused` is (kernel,
    numpy dtype kinds); they raise NotImplementedError with the kernel's name."""
    if dtype.kind in refused[1]:
        raise errors.not_implemented(refused[0], dtype)


def float_forward(f):
    """A lane forward on Python floats; None where math raises (numpy then computes)."""

    def fwd(x):
        try:
            return f(x)
        except (ValueError, ArithmeticError):
            return None

    return fwd


# --- unary ---------------------------------------------------------------------------------


def unary(row: Row):
    """The engine function for a one-input row: `op(a)`, or `op(a, *args)` with the row's
    signature. A row with args and a lane (PowBackward0: `a ** 2`) takes its first arg as
    the number operand of the two-operand lane (lanes.py), when the other args are their
    defaults. The formulas are bound on an op's first use (rows.variant)."""
    grad_fn, forward, kernel = row.grad_fn, row.forward, row.kernel
    keep, no_kernel = row.keeps_dtype, row.no_kernel is not None
    defaults = tuple(d for _, d in row.args)
    lane = row.lane
    fname = row.name.split(".")[0]
    # made on the op's first use: the formula for the ordinary path, and what it saves
    backward = saved_kind = None

    def prepare():
        nonlocal backward, saved_kind
        v = rows.variant(row, (True,))
        saved_kind = (
            0
            if not v.saved
            else 1
            if v.saved == row.inputs
            else 2
            if v.saved == (RESULT,)
            else tuple(n == RESULT for n in v.saved)
        )
        backward = v.backward

    def ordinary_path(a, args=defaults):
        a = as_tensor(a)
        if no_kernel:
            check_kernel(row.no_kernel, a.array.dtype)
        if kernel is not None:
            out = kernel(a, *args)
        else:
            x = a.array
            if x.dtype.kind != "f" and not keep:
                x = x.astype(dtypes.default_float())
            out = forward(x)  # numpy errors are ignored engine-wide (engine/__init__.py)
            if out.dtype != x.dtype:
                out = out.astype(x.dtype)
        if backward is None:
            prepare()
        s = saved_kind
        saved = (
            () if s == 0 else (a,) if s == 1 else (OUT,) if s == 2 else tuple([OUT if r else a for r in s])
        )
        return record(grad_fn, out, (a,), backward, saved, args)

    arg_lane = None
    if lane is None:
        op = lanes.entry(row, ordinary_path) if row.args else ordinary_path
    elif row.args:
        arg_lane = _lazy_lane(row, "arg")
        op = lanes.entry(row, ordinary_path, arg_lane)
    else:
        fwd = None if lane is NUMPY else float_forward(lane)
        # (what the row declares it saves: the formula, bound on first use, must agree)
        self_saved, result_saved = row.saves == row.inputs, row.saves == (RESULT,)
        assert self_saved or result_saved or not row.saves, f"{row.name}: a lane saves one"
        lane_backward = fast = None

        def op(a):
            nonlocal lane_backward, fast
            if a.__class__ is Tensor:
                x = a.array
                if x.dtype is F64 and not x.ndim:  # the scalar lane
                    xf = float(x)
                    v = fwd(xf) if fwd is not None else None
                    if v is None:
                        v = forward(x)
                    if fast is None:
                        lane_backward, saved, fast = rows.variant(row, (True,), lane=True)
                        assert saved == row.saves, f"{row.name}: saves {saved}, declares {row.saves}"
                    return record_scalar(
                        grad_fn,
                        v,
                        (a,),
                        lane_backward,
                        (a,) if self_saved else (OUT,) if result_saved else (),
                        fast,
                        (xf, float(v)),
                    )
            return ordinary_path(a)

    op.__name__ = fname
    op.__doc__ = f"{fname}(x); local derivative {row.grads[0].text}; grad_fn {grad_fn}"
    op.row, op.lane = row, arg_lane
    float_op = None
    if lane is not None and not row.args:
        float_op = lane if lane is not NUMPY else _numpy_float(forward)
    rows.register(row, op, float_op)
    _expose(op, row)
    return op


def _lazy_lane(row, number):
    """The two-operand lane of `row`, made on its first call: a stand-in that makes it,
    puts it where the op's entry (and `op.lane`) will find it, and runs it."""

    def make(a, b):
        real = lanes.lane_function(row, number)
        op = rows.OPS[row.name]
        op.__globals__["_lane"] = op.lane = real
        return real(a, b)

    return make


def _expose(op, row):
    if row.names:
        method = (op.method if row.tensor_only else True) if row.method else False
        rows.expose(op, row, names=row.names, method=method, inplace=row.inplace)


def _numpy_float(forward):
    """A numpy forward as the scalar lane's float function (what the op gives on 0-d)."""

    def f(x):
        return float(forward(np.array(x)))

    return f


# --- binary --------------------------------------------------------------------------------

_NEEDS = {0: (True, True), 1: (True, False), 2: (False, True), 3: (True, True)}


def binary(row: Row, number="edge"):
    """The engine function for a two-input row: `op(a, b)`, or with the row's args.

    `number` is what a Python-number second operand is: "edge" (an input without an edge,
    PyTorch's wrapped number: `a * 2` lists (AccumulateGrad, None)), or None (the row
    refuses numbers: `tensor_only`; or a dispatcher sends them to another row)."""
    grad_fn, forward, kernel, check = row.grad_fn, row.forward, row.kernel, row.check
    keep, no_kernel, tensor_only = row.keeps_dtype, row.no_kernel is not None, row.tensor_only
    fname = row.name.split(".")[0]
    # per pattern, the bound formulas and the saved tuple (made on first use): k = self
    # requires grad | other does << 1 (0: neither, so no node is made), "n": other is a number
    back, savers = {}, {}

    def prepare(k):
        if k == "n":
            v = rows.variant(row, (True, False), (False, True))
        else:
            v = rows.variant(row, _NEEDS[k])
        back[k], savers[k] = v.backward, lanes.saver(row, v.saved, "CONST" if k == "n" else "b")
        return back[k]

    defaults = tuple(d for _, d in row.args)

    def ordinary(a, b, args=defaults, _method=False):
        if tensor_only:
            tensor_args(fname, a, b, _method)
        x, y, rd = operands(a, b)
        if no_kernel:  # (PyTorch's TensorIterator broadcasts before it picks the kernel)
            errors.broadcast_shapes(x.array.shape, y.array.shape)
            check_kernel(row.no_kernel, rd)
        if not keep and rd.kind != "f":
            rd = dtypes.default_float()
        if check is not None:  # (on the operands as given: a Python bool is still a bool)
            check(a, b, rd)
        out = kernel(x, y, rd, *args) if kernel is not None else broadcast_check(forward, x, y, rd, *args)
        if not isinstance(b, Tensor):  # a Python number: an input without an edge (a Parameter is a Tensor)
            bw = back.get("n") or prepare("n")
            return record(grad_fn, out, (x, None), bw, savers["n"](x, CONST), (b, *args))
        k = x.needs_grad | y.needs_grad << 1
        bw = back.get(k) or prepare(k)
        return record(grad_fn, out, (x, y), bw, savers[k](x, y), args)

    lane = _lazy_lane(row, number) if row.lane is not None else None
    op = lanes.entry(row, ordinary, lane) if lane is not None or row.args else ordinary
    op.__name__ = fname
    op.row, op.lane = row, lane
    if tensor_only:  # Tensor.fn(other): PyTorch counts positions from the method's first

        def method(self, other, *args):
            return ordinary(self, other, args or defaults, _method=True)

        method.__name__ = fname
        method.rows = (row,)
        op.method = method
    rows.register(row, op)
    _expose(op, row)
    return op
