"""One row per differentiable op: PyTorch's derivatives.yaml, as Python data.

A `Row` describes one op (one overload: `pow` has three rows) completely:

    grad_fn   PyTorch's node name                     "MulBackward0"
    forward   the numpy kernel                        np.multiply
    inputs    the differentiable inputs, by PyTorch's names   ("self", "other")
    grads     per input a D(formula, text)            D(lambda grad, self, other, result:
                                                            grad * other, "other")
    saves     what the node may save, in PyTorch's order ("other", "self")
    args      scalar arguments after the inputs       (("alpha", 1),)
    lane      the forward on Python floats (the scalar lane), or None
    + flags for the op table: script `names`, `method` (a Tensor method), `inplace` (name_)

Formulas. `formula` is the input's gradient exactly as PyTorch's autograd computes it,
written once as a function of `grad` (the incoming gradient), the inputs, `result` and the
args, in that order: every formula of a row has the same parameters. Its global names are
looked up in one of two namespaces, the same code serving both:

  TENSOR_NS  the engine's ops and helpers (`cos` is the cos op; `add_scalar` records
             AddBackward1, as PyTorch's C++ `x + 1` does), so a gradient records its own
             graph under create_graph and higher derivatives come free;
  FLOAT_NS   the same names on Python floats, for the scalar lane: an op's entry there is
             its row's `lane` forward (`cos` is math.cos), a helper's its float version.

(HIPS autograd writes its gradients the same way: one function, two array namespaces.)
Every name a lane formula uses computes on a float what its op computes on a 0-d float64
tensor, so the lane's gradient is the ordinary path's bit for bit: the same operations in
the same order, from the same code (tests/engine/test_scalar_lane.py).

`joint` replaces the per-input formulas when PyTorch computes all inputs' gradients in one
function (atan2_backward): the same parameters plus `needs`, which inputs are wanted.

Saved variables (PyTorch's rule): an input is saved when a formula of an input that
requires grad reads it; `result` whenever any formula reads it. A Python-number operand
(`a * 2`) is saved as a placeholder (so a second backward fails as in PyTorch) and its
value travels in the node's `fargs`, as do the args.

Kinks (`kink`): where an op is not differentiable (relu and abs at 0, clamp at its
bounds, max/min at ties, floor/round/sign at their jumps...) and which gradient PyTorch
gives there. A `Kink` holds `text`, the points in script syntax over the row's
parameters ("self == 0"); `where`, a predicate over numpy values (the row's parameters by
keyword: inputs and `result` as arrays, args as given; it takes **_ for the rest) that
is True at those points, or None where the inputs do not show them (where's condition);
and `value`, the local derivative PyTorch's gradient uses there, in script syntax
("0", "negative_slope", "0.5"). `Row.kink_at(...)` and
`kinks()` are what a checker queries; a row with `kink = None` is smooth wherever it is
defined (its domain's edges, log at 0, are not kinks).

Ops whose forward is written by hand (reductions, views, products, losses...: `text_row`)
have formulas too, in the same form, and `Row.record(out, inputs, fargs=...)` makes
their node's backward from them: the op passes the values of the row's args (the call's
`dim`, `keepdim`...; what the node keeps of an input it does not save, its shape as
`self_sym_sizes`, as PyTorch's node saves `self_sym_sizes`), after those of any
Python-number inputs (None in `inputs`), which is an elementwise node's `fargs` layout;
an arg whose value is a tensor and that `saves` names (max.dim's `indices`) is saved.
A formula of several ops calls a helper named after PyTorch's (`sum_backward`). The nodes
only a backward formula records (PyTorch's backward ops: `_softmax_backward_data`,
`tanh_backward`...) are rows recorded the same way. A row without formulas (a backward
still passed by hand) is listed, with why, in tests/engine/test_rows.py, which also fails
on any `record` call in ops/ given a closure but the ones it lists.

Texts, for explanations (`explain`): diffcli script syntax in the same names, that a
script could evaluate. For an elementwise row, the local derivative d result / d input
(the gradient is grad * text, summed over broadcast dims): `cos(self)` for sin, `other`
for mul's self. For the others (`elementwise=False`), the vector-Jacobian product, in
`grad` too: `grad @ other.mT` for mm's self.
"""

from __future__ import annotations

import builtins
import dis
import functools
from types import FunctionType, SimpleNamespace

import numpy as np

from ..function import OUT, record
from .exposed import TABLE, Exposed, expose  # noqa: F401 (the op table: rows.expose registers an op)


class _Numpy:
    def __repr__(self):
        return "NUMPY"


NUMPY = _Numpy()  # Row.lane: in the scalar lane, but the forward is numpy's (on the 0-d array)
RESULT = "result"


class D:
    """One input's derivative: PyTorch's gradient `formula` (None: the op computes it by
    hand, or `joint` does) and the `text` for explanations."""

    __slots__ = ("formula", "text")

    def __init__(self, formula, text):
        self.formula, self.text = formula, text

    def __repr__(self):
        return f"D({self.formula!r}, {self.text!r})"


class Kink:
    """Where a row is not differentiable (see the module's docstring)."""

    __slots__ = ("text", "where", "value")

    def __init__(self, text, where, value):
        self.text, self.where, self.value = text, where, value

    def __repr__(self):
        return f"Kink({self.text!r}, value={self.value!r})"


class Row:
    """One op overload (see the module's docstring). Fields, with their defaults:"""

    name: str  # the row's id: the op's name, `.overload` if several
    grad_fn: str
    forward = None  # the numpy kernel (elementwise rows)
    inputs = ("self",)
    grads = ()  # one D per input
    saves = ()
    args = ()  # ((name, default), ...)
    joint = None
    # the scalar lane: the forward on floats, (x) -> float for one input (math.sin) or
    # (x, y) -> float for two (operator.mul; y may be an int); or NUMPY (numpy's forward
    # on the 0-d array); None: not in the lane
    lane = None
    elementwise = True
    # every input's formula is computed, required or not: what the engine's hand-written
    # formulas did for these ops (PyTorch skips them; visible only as nodes a create_graph
    # trace shows, which samples/ pins)
    eager = False
    # the forward when the generic one does not do: (a, *args) -> ndarray for one input,
    # (x, y, rd, *args) -> ndarray for two (x, y: the promoted operands, rd their dtype);
    # `check(x, y, rd)`: a two-input row's refusals before the forward
    kernel = None
    check = None
    # the op table: script names, and whether it is a Tensor method / has `name_`
    names = ()
    method = True
    inplace = False
    # kernels: dtype behaviour of an elementwise op
    keeps_dtype = False  # an integer/bool input keeps its dtype (floor, abs...)
    no_kernel = None  # (kernel name, numpy dtype kinds it refuses)
    tensor_only = False  # every operand must be a Tensor (maximum, hypot)
    # where the op is not differentiable: a Kink, or None (smooth on its domain)
    kink = None
    # the forward as a formula (`grad --symbolic`): script syntax over the row's parameters
    # ("1 / (1 + exp(-self))" for sigmoid), in the primitives diffcli/symbolic/forms.py
    # knows; a non-smooth op as where()/abs()/floor() forms. None: no symbolic form.
    # Filled in by symforms.py (one table), so the rows' own files need no edit.
    sym = None

    def __init__(self, name, grad_fn, forward=None, **fields):
        for k in fields:
            if not hasattr(Row, k):
                raise TypeError(f"Row {name}: unknown field {k!r}")
        self.name, self.grad_fn, self.forward = name, grad_fn, forward
        self.__dict__.update(fields)
        self._variants = {}
        self._saving = {}  # Row.record: needs -> (backward, where each saved value is)

    def __repr__(self):
        return f"Row({self.name!r}, {self.grad_fn!r})"

    @property
    def params(self) -> tuple:
        """What every formula of the row takes after `grad`."""
        return (*self.inputs, RESULT, *(a for a, _ in self.args))

    @property
    def texts(self) -> dict:
        return {i: d.text for i, d in zip(self.inputs, self.grads)}

    def record(self, out, inputs, backward=None, saved=(), fargs=()):
        """Record this row's node (its grad_fn) for a forward written by hand. `inputs`:
        one Tensor (or None: a Python number) per input, in the row's order (a variadic
        row, `cat`: any number); `fargs`: the values of the row's args, in their order,
        after those of the Python-number inputs (an elementwise node's layout).
        The node's backward is the row's formulas (its `joint`), bound for which inputs
        require grad; it saves what they read (the rule of the module's docstring): an
        input, the result (OUT), or an arg whose value is a Tensor (max.dim's indices).

        `backward` (the rows listed in tests/engine/test_rows.py only): a gradient written
        by hand, (grad, *saved, *fargs) -> one gradient per input, and `saved` with it."""
        if backward is None:
            backward, saved = self._bound(inputs, fargs)
        return record(self.grad_fn, out, inputs, backward, saved, fargs)

    def _bound(self, inputs, fargs):
        """(backward, saved) of the row's formulas for these inputs: made once per
        pattern of the inputs requiring grad (variant), the saved tensors picked here."""
        needs = tuple([t is not None and t.needs_grad for t in inputs])
        numbers = tuple([t is None for t in inputs]) if any(t is None for t in inputs) else ()
        hit = self._saving.get((needs, numbers))
        if hit is None:
            v = variant(self, needs, numbers)
            args = tuple(a for a, _ in self.args)
            src = []
            for s in v.saved:  # where each saved value comes from
                assert not (numbers and s in self.inputs and numbers[self.inputs.index(s)]), (self.name, s)
                if s == RESULT:
                    src.append(None)
                elif s in self.inputs:
                    src.append((0, self.inputs.index(s)))
                else:
                    src.append((1, sum(numbers) + args.index(s)))  # (after the numbers')
            hit = self._saving[needs, numbers] = (v.backward, tuple(src))
        backward, src = hit
        if not src:
            return backward, ()
        return backward, tuple([OUT if w is None else (fargs if w[0] else inputs)[w[1]] for w in src])

    def kink_at(self, /, **values):
        """Where (a bool array over the inputs' broadcast shape) the row is at a kink, given
        its parameters by name; None if it has none or the inputs do not show it. An arg
        left out takes the row's default."""
        if self.kink is None or self.kink.where is None:
            return None
        full = {**dict(self.args), **values}
        return np.asarray(self.kink.where(**full), dtype=bool)


ROWS: dict = {}  # row name -> Row, in registration order
OPS: dict = {}  # row name -> the engine function made from it
# formula names -> ops and helpers; `ops.NAME` is the same table by attribute, for an op
# module that needs an op of a module above it (a view's backward needs `sum`): looked up
# when called, so the imports go one way (from the op families down)
ops = SimpleNamespace(__builtins__=builtins, __name__=__name__)
TENSOR_NS: dict = vars(ops)
FLOAT_NS: dict = {"__builtins__": builtins, "__name__": __name__}  # -> their float versions


def register(row: Row, op=None, float_op=None) -> Row:
    """Add a row; `op` (the engine function) and `float_op` become the names the formulas
    of other rows can use for it."""
    assert row.name not in ROWS, row.name
    assert len(row.grads) == len(row.inputs), row.name
    for d in row.grads:
        _check_params(row, d.formula)
    _check_params(row, row.joint, ("needs",))
    ROWS[row.name] = row
    if op is not None:
        OPS[row.name] = op
    if "." not in row.name:  # (an overload's dispatcher registers itself: helpers())
        if op is not None:
            TENSOR_NS.setdefault(row.name, op)
        if float_op is not None:
            FLOAT_NS.setdefault(row.name, float_op)
    return row


def kinks() -> dict:
    """Row name -> Kink, for every row that has one."""
    return {name: row.kink for name, row in ROWS.items() if row.kink is not None}


def text_row(
    name,
    grad_fn,
    texts,
    inputs=("self",),
    saves=(),
    args=(),
    kink=None,
    formulas=(),
    joint=None,
    eager=False,
) -> Row:
    """A row for an op whose forward is written by hand (a reduction, a view, a loss...):
    its node, inputs, args, what it may save and, per input, the text an explanation
    shows (the vector-Jacobian product in `grad`, the inputs, `result` and the args) and
    the gradient `formulas` (or one `joint`), which `Row.record` makes the node's backward.
    The formulas take (grad, *inputs, result, *args), as an elementwise row's do; what
    the backward needs of an input that is not saved (its shape: PyTorch's
    `self.sym_sizes()`) is an arg (`self_sym_sizes`), as PyTorch's node saves it."""
    formulas = tuple(formulas) or (None,) * len(texts)
    return register(
        Row(
            name,
            grad_fn,
            inputs=tuple(inputs),
            grads=tuple(D(f, t) for f, t in zip(formulas, texts)),
            saves=tuple(saves),
            args=tuple(args),
            joint=joint,
            eager=eager,
            elementwise=False,
            kink=kink,
        )
    )


def _check_params(row, f, extra=()):
    if f is None:
        return
    code = f.__code__
    got = code.co_varnames[: code.co_argcount]
    want = ("grad", *row.params, *extra)
    if got != want:
        raise TypeError(f"row {row.name}: a formula takes {', '.join(want)}; this one {', '.join(got)}")


def helpers(tensor: dict, floats: dict = None) -> None:
    """Names formulas may use besides the ops (PyTorch's FunctionsManual helpers)."""
    for k, v in tensor.items():
        assert k not in TENSOR_NS or TENSOR_NS[k] is v, k
        TENSOR_NS[k] = v
    for k, v in (floats or {}).items():
        FLOAT_NS[k] = v


@functools.cache
def _reads(code) -> frozenset:
    """The parameters a formula reads, and the global names it uses."""
    out = set(code.co_cellvars)  # (a parameter an inner function reads)
    for ins in dis.get_instructions(code):
        if ins.opname.startswith("LOAD_FAST") or ins.opname == "LOAD_GLOBAL":
            v = ins.argval
            out.update(v if isinstance(v, tuple) else (v,))
    return frozenset(out)


def reads(f) -> frozenset:
    return _reads(f.__code__)


def formula_reads(row: Row, needs) -> frozenset:
    """The parameters the formulas of the inputs flagged in `needs` read (all of them for a
    joint formula)."""
    if row.joint is not None:
        return reads(row.joint)
    out = frozenset()
    for d, need in zip(row.grads, needs):
        if need and d.formula is not None:
            out |= reads(d.formula)
    return out


def globals_of(f) -> set:
    """The global names `f` looks up (the ones a namespace must hold)."""
    return {i.argval for i in dis.get_instructions(f.__code__) if i.opname == "LOAD_GLOBAL"}


def saved_names(row: Row, needs) -> tuple:
    """What the node saves when the inputs flagged in `needs` require grad (PyTorch's rule:
    inputs a needed formula reads; `result` if any formula reads it), in `row.saves` order."""
    used, any_used = set(), set()
    for i, d in enumerate(row.grads):
        f = row.joint if row.joint is not None else d.formula
        if f is None:
            continue
        n = reads(f)
        any_used |= n
        if needs[i]:
            used |= n
    return tuple(s for s in row.saves if (s in any_used if s == RESULT else s in used))


class Variant(tuple):
    """(backward, saved, fast): the node's backward_fn, (grad, *saved, *fargs) -> one
    gradient per input; the names saved, in order (a Python-number input: a placeholder);
    the scalar lane's formula on floats, (grad, *fargs) -> gradients (or a float, the
    first input's)."""

    __slots__ = ()
    backward = property(lambda v: v[0])
    saved = property(lambda v: v[1])
    fast = property(lambda v: v[2])


def lane_fargs(row: Row, lane_args=()) -> tuple:
    """What a lane node's fargs hold, as floats: the inputs, the result, then `lane_args`
    (an arg given as a number at run time: pow's exponent). The lane runs with the other
    args at their defaults, which the lane's formulas take as defaults."""
    return (*row.inputs, RESULT, *lane_args)


def variant(row: Row, needs: tuple, numbers: tuple = (), lane: bool = False, lane_args=()) -> Variant:
    """The formulas for one pattern, made once: `needs[i]`, input i requires grad;
    `numbers[i]`, input i is a Python number (no edge; its value comes in fargs).

    Ordinary path: the node's fargs are the numbers, then the args. Scalar lane (`lane`):
    see lane_fargs."""
    key = (needs, numbers, lane, lane_args)
    v = row._variants.get(key)
    if v is None:
        numbers = numbers or (False,) * len(row.inputs)
        v = row._variants[key] = _make(row, needs, numbers, lane, lane_args)
    return v


def _make(row, needs, numbers, lane, lane_args) -> Variant:
    saved = saved_names(row, needs)
    number_names = [n for n, is_num in zip(row.inputs, numbers) if is_num]
    computed = (True,) * len(row.inputs) if row.eager else needs
    if lane:
        fargs = lane_fargs(row, lane_args)
        fixed = {a: d for a, d in row.args if a not in lane_args}
    else:
        fargs = (*number_names, *(a for a, _ in row.args))
        fixed = {}
    # per parameter: its index in (*saved, *fargs) -- a Tensor input or the result from
    # `saved`, a Python number or an arg from fargs -- or None, and then its value (an arg
    # fixed at its default in the lane; None for what the formulas do not read)
    where = []
    for p in row.params:
        if p in saved and p not in number_names:
            where.append((saved.index(p), None))
        elif p in fargs:
            where.append((len(saved) + fargs.index(p), None))
        else:
            where.append((None, fixed.get(p)))
    backward = _bind(_in(row, TENSOR_NS, computed), tuple(where), row.joint is not None and tuple(computed))
    fast = None
    if lane and row.joint is None:
        argdefs = tuple(fixed.values()) or None  # (the fixed args are the formulas' last)
        assert tuple(fixed) == tuple(a for a, _ in row.args)[len(row.args) - len(fixed) :], row.name
        fast = _fast(_in(row, FLOAT_NS, needs, argdefs), len(fargs))
    return Variant((backward, saved, fast))


def _in(row, ns, mask, argdefs=None):
    """The row's formulas (or its joint formula), looking their names up in `ns`."""

    def rebind(f):
        missing = globals_of(f) - ns.keys() - _PYTHON_BUILTINS
        if missing:
            raise NameError(
                f"row {row.name}: {sorted(missing)} has no version in "
                f"{'FLOAT_NS' if ns is FLOAT_NS else 'TENSOR_NS'} (yet)"
            )
        return FunctionType(f.__code__, ns, f.__name__, argdefs or f.__defaults__, f.__closure__)

    if row.joint is not None:
        return rebind(row.joint)
    return tuple(rebind(d.formula) if m and d.formula is not None else None for d, m in zip(row.grads, mask))


# the Python builtins a formula may use (`pow`, `abs`, `round`... are the engine's ops there)
_PYTHON_BUILTINS = {"float", "int", "bool", "len", "isinstance", "tuple", "range"}


def _bind(fs, where, needs):
    """The node's backward_fn: (grad, *saved, *fargs) -> the formulas on the parameters."""
    if needs:  # a joint formula
        joint = fs

        def backward(grad, *vals):
            return joint(grad, *[c if i is None else vals[i] for i, c in where], needs)

        return backward

    def backward(grad, *vals):
        full = [c if i is None else vals[i] for i, c in where]
        return tuple([None if f is None else f(grad, *full) for f in fs])

    return backward


def _fast(fs, n):
    """The lane's formula on floats: (grad, *fargs) -> grads, one Python call per formula
    (this runs once per node of a scalar script, so it is written out per arity). When the
    first input's is the only one wanted, the formula itself: the engine takes a float
    for the first input's gradient (autograd.py)."""
    if fs[0] is not None and all(f is None for f in fs[1:]):
        return fs[0]
    if len(fs) == 2 and n == 3:
        f0, f1 = fs
        if f0 is None:
            return lambda g, a, b, c: (None, f1(g, a, b, c))
        return lambda g, a, b, c: (f0(g, a, b, c), f1(g, a, b, c))
    return lambda g, *p: tuple([None if f is None else f(g, *p) for f in fs])
