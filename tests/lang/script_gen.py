"""Random diffcli scripts, with the same program in Python + PyTorch.

`programs()` is a hypothesis strategy drawing a `Program`: one random structure (leaves,
statements, a target and a backward plan) rendered three ways:

  script          the diffcli script, in one of diffcli's two flavours (SPEC §1): "math"
                  (`a = 1.5`, `sin(x)`, `x^2`, bare names, no imports: float64, and a
                  name bound to a bare literal is a variable), or the PyTorch flavour
                  (`import torch`: float32 default dtype, leaves made by
                  `torch.tensor(..., requires_grad=True)`), written "torch"
                  (`torch.sin(x)`, `x.sin()`, `F.gelu(x)`) or "mixed" (the math
                  flavour's spellings `sin(x)`, `x^2` too, chosen node by node);
  torch_program   the same program as Python + torch, line for line: line N of the script
                  and line N of the program are the same statement (a math-flavour bare
                  literal assignment `a = 1.5` is `torch.tensor(1.5, requires_grad=True)`);
  dtype           the default dtype both run with: "float64" for the math flavour (the
                  program is run after `torch.set_default_dtype(torch.float64)`), PyTorch's
                  "float32" for the other two, or now and then "float64" there too, set
                  by the script's first line (`import torch; torch.set_default_dtype(...)`);
  forward_script  the script up to and including the target's assignment (for finite
                  differences: re-run with perturbed leaves).

What is generated: 1-3 leaves that require grad (scalars and small tensors of shapes
(), (3,), (1, 3), (2, 1), (2, 3)), sometimes a constant tensor; statements over every op
of the op table (`diffcli.engine.FUNCTIONS`, aliases such as `arcsin` and `clip`
included; `programs(focus=OP)` makes the first statement use OP) with their inputs kept
in the op's domain by interval arithmetic (`log` gets `x*x + 0.1` when `x` may be
negative, `asin` gets `atan(x) * 0.6 * 0.9`...): elementwise ops with and without extra
arguments, broadcasting pairs, method calls, reductions with dim/keepdim, shape ops and
views, indexing and select, matrix products, cat/stack, losses, `where` with comparisons
and logical ops, constructors (`ones_like`, `full`, `eye`, `arange`, `linspace`;
`rand*` only through their shape or range); `retain_grad()`, `no_grad` blocks,
`detach()`, `for` loops, in-place ops on intermediates, prints of values, grad_fn
names, next_functions and flags; then a backward plan: `backward()` (with `grad_tensors`
on non-scalar targets, as a method or `torch.autograd.backward`), repeated backward with
or without `retain_graph`, `backward(inputs=...)`, `torch.autograd.grad`,
`create_graph` with second derivatives by `grad` or `backward`, a gradient step under
`no_grad` and `grad.zero_()`; with `errors=True` also (about one script in six) what
fails the PyTorch way: backward of a non-scalar without a gradient, a gradient of the
wrong shape, an unused input without `allow_unused`, `retain_grad()` on a tensor that
does not require grad, in-place ops on leaves and on saved tensors, shapes that do not
broadcast, `view` of a transposed tensor, a second backward through freed buffers.

`Program.fd` describes the expected leaf gradients for the finite-difference check
(used when torch is absent): with F = sum(gradient * out) over the forward script,
after the script each leaf's .grad is `coef * dF/dleaf` (+ the second-order term),
where `coef` counts the backward calls that ran.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from diffcli.lang.nn_layers import _exact

from . import script_gen_methods  # (the "methods" family; it reads this module's classes when called)

METHOD_OPS = script_gen_methods.OPS

# --- what PyTorch (and diffcli) can reach, and how --------------------------------------

# other names of the same ops (the generator uses them now and then)
ALIASES = {
    "abs": ["absolute"],
    "acos": ["arccos"],
    "asin": ["arcsin"],
    "atan": ["arctan"],
    "atan2": ["arctan2"],
    "clamp": ["clip"],
    "cat": ["concat", "concatenate"],
    "div": ["divide", "true_divide"],
    "mul": ["multiply"],
    "neg": ["negative"],
    "sub": ["subtract"],
    "gt": ["greater"],
    "ge": ["greater_equal"],
    "lt": ["less"],
    "le": ["less_equal"],
    "ne": ["not_equal"],
}
CANONICAL = {a: fn for fn, names in ALIASES.items() for a in names}
CONSTRUCTORS = {
    "tensor",
    "Tensor",
    "ones",
    "zeros",
    "full",
    "eye",
    "arange",
    "linspace",
    "rand",
    "randn",
    "randint",
    "randperm",
    "ones_like",
    "zeros_like",
    "full_like",
    "rand_like",
    "randn_like",
    "manual_seed",
}
# torch.X exists
TORCH_FNS = (
    set(
        """add sub mul div neg pow matmul mm mv dot outer bmm sin cos tan asin acos atan
atan2 sinh cosh tanh asinh acosh atanh exp expm1 log log2 log10 log1p sqrt rsqrt abs sign
sigmoid relu floor ceil round trunc reciprocal square clamp clamp_min clamp_max maximum
minimum where sum mean prod max min amax var std norm logsumexp softmax log_softmax cumsum
erf sinc hypot logaddexp erfc selu celu hardshrink positive
reshape flatten squeeze unsqueeze transpose permute t cat stack clone detach flip select rsub
eq ne gt ge lt le logical_and logical_or logical_not floor_divide remainder any all argmax argmin
equal allclose""".split()
    )
    | (set(METHOD_OPS) - {"l1_loss", "normalize", "one_hot"})  # (F.X only)
    | set(CANONICAL)
    | CONSTRUCTORS
)
# F.X exists (torch.nn.functional)
F_FNS = {
    "tanh",
    "sigmoid",
    "relu",
    "gelu",
    "softplus",
    "elu",
    "leaky_relu",
    "silu",
    "softmax",
    "log_softmax",
    "mse_loss",
    "binary_cross_entropy",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy_with_logits",
    "hardtanh",
    "relu6",
    "selu",
    "celu",
    "hardsigmoid",
    "hardswish",
    "mish",
    "hardshrink",
    "softshrink",
    "logsigmoid",
    "softsign",
    "tanhshrink",
}
# x.X() exists on torch.Tensor and in diffcli's method table
METHOD_FNS = (
    TORCH_FNS - CONSTRUCTORS - {"cat", "concat", "concatenate", "stack", "rsub", "selu", "celu"}
) | {
    "view",
    "expand",
}
# bare X exists in diffcli's op table (every op above but the method-only ones)
BARE_FNS = (TORCH_FNS | F_FNS) - {"view", "expand"}
# the expression family that makes each op (for `programs(focus=OP)`)
FAMILY_OF = {
    **{fn: "extra" for fn in ("clamp", "clamp_min", "clamp_max", "leaky_relu", "elu", "softplus", "gelu")},
    "rsub": "scalar",
    **{
        fn: "binary"
        for fn in ("add", "sub", "mul", "div", "pow", "atan2", "maximum", "minimum", "hypot", "logaddexp")
    },
    **{
        fn: "where"
        for fn in ("where", "eq", "ne", "gt", "ge", "lt", "le", "logical_and", "logical_or", "logical_not")
    },
    **{fn: "reduce" for fn in ("sum", "mean", "prod", "max", "min", "amax", "norm", "var", "std")},
    **{fn: "reduce_dim" for fn in ("logsumexp", "softmax", "log_softmax", "cumsum")},
    **{
        fn: "shape"
        for fn in (
            "reshape",
            "view",
            "flatten",
            "unsqueeze",
            "squeeze",
            "expand",
            "transpose",
            "permute",
            "t",
            "flip",
            "detach",
        )
    },
    "select": "index",
    "cat": "cat",
    "stack": "cat",
    **{
        fn: "discrete"
        for fn in ("floor_divide", "remainder", "any", "all", "argmax", "argmin", "equal", "allclose")
    },
    **{fn: "linalg" for fn in ("matmul", "mm", "mv", "dot", "outer", "bmm")},
    **{
        fn: "loss"
        for fn in (
            "mse_loss",
            "binary_cross_entropy",
            "cross_entropy",
            "nll_loss",
            "binary_cross_entropy_with_logits",
        )
    },
    **{fn: "const" for fn in CONSTRUCTORS - {"manual_seed"}},
    **{fn: "methods" for fn in METHOD_OPS},
}
# a first leaf of this shape makes the op possible
FOCUS_SHAPE = {
    "mm": (2, 3),
    "mv": (2, 3),
    "bmm": (2, 3),
    "matmul": (2, 3),
    "dot": (3,),
    "outer": (3,),
    "cross_entropy": (2, 3),
    "nll_loss": (2, 3),
    "transpose": (2, 3),
    "permute": (2, 3),
    "t": (2, 3),
    "squeeze": (1, 3),
    "expand": (1, 3),
    "var": (2, 3),
    "std": (2, 3),
    "select": (2, 3),
    "cat": (3,),
    "view": (2, 3),
    "eye": (2, 3),
    "arange": (3,),
    "linspace": (3,),
    "Tensor": (3,),
    "logsumexp": (2, 3),
    "softmax": (2, 3),
    "log_softmax": (2, 3),
    "cumsum": (2, 3),
    "flip": (3,),
    # the tensor methods of script_gen_methods.py that need one or two dims
    **{fn: (2, 3) for fn in METHOD_OPS if script_gen_methods.NEEDS[fn] >= 1},
    "meshgrid": (3,),
}

SHAPES = [(), (3,), (1, 3), (2, 1), (2, 3)]
NAMES = ["a", "b", "c", "w", "u", "v"]
BIG = 1e3  # larger values go through tanh before the next op


def _broadcast(*shapes):
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def _numel(shape):
    return int(np.prod(shape)) if shape else 1


def _num(v):
    """A number as source text (a Python float's repr round-trips exactly)."""
    if isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return str(v)
    return repr(float(v))


# --- expressions --------------------------------------------------------------------------


class Expr:
    """A typed expression: shape, a sound interval [lo, hi] for its values, the leaves it
    depends on through differentiable paths, whether it requires grad. `text(py)` renders
    the script form (py=False) or the Python + torch form (py=True)."""

    prec = 100
    scalar = False  # a Python number, not a tensor
    alias = frozenset()  # names whose memory the value may share (views, detach)
    view = False  # the value is a view of another tensor
    leafish = False  # a name bound to a leaf itself (`h = a`): no grad_fn

    def set(self, shape, lo, hi, deps=frozenset(), rg=False):
        self.shape, self.lo, self.hi, self.deps, self.rg = (
            tuple(shape),
            float(lo),
            float(hi),
            frozenset(deps),
            rg,
        )
        return self

    @property
    def mag(self):
        return max(abs(self.lo), abs(self.hi))

    def wrapped(self, py, prec):
        t = self.text(py)
        return f"({t})" if self.prec < prec else t


class Name(Expr):
    def __init__(self, name):
        self.name = name
        self.alias = frozenset([name])

    def bound_to(self, e):
        """`name = e`: the name shares e's memory (and is a view if e was one)."""
        self.alias = frozenset([self.name]) | e.alias
        self.view = e.view
        self.leafish = isinstance(e, Name) and e.leafish
        return self

    def text(self, py):
        return self.name


class Num(Expr):
    scalar = True

    def __init__(self, value):
        self.value = value
        self.prec = 100 if value >= 0 else 80
        self.set((), value, value)

    def text(self, py):
        return _num(self.value)


class Lit(Expr):
    """Source text that is the same in both renderings (a dim, a list of ints...)."""

    def __init__(self, text):
        self.src = text

    def text(self, py):
        return self.src


class Bin(Expr):
    PREC = {"+": 60, "-": 60, "*": 70, "/": 70, "//": 70, "%": 70, "@": 70, "**": 90}

    def __init__(self, op, left, right, caret=False):
        self.op, self.left, self.right, self.caret = op, left, right, caret
        self.prec = self.PREC[op]

    def text(self, py):
        p = self.prec
        if self.op == "**":
            lt, rt = self.left.wrapped(py, 100), self.right.wrapped(py, 80)
            op = "^" if self.caret and not py else "**"
        else:
            lt, rt = self.left.wrapped(py, p), self.right.wrapped(py, p + 10)
            op = self.op
        return f"{lt} {op} {rt}" if self.op != "**" else f"{lt}{op}{rt}"


class IfE(Expr):
    """`a if cond else b`."""

    prec = 5

    def __init__(self, a, cond, b):
        self.a, self.cond, self.b = a, cond, b

    def text(self, py):
        return f"{self.a.wrapped(py, 10)} if {self.cond.wrapped(py, 10)} else {self.b.wrapped(py, 5)}"


class Neg(Expr):
    prec = 80

    def __init__(self, x):
        self.x = x

    def text(self, py):
        return "-" + self.x.wrapped(py, 80)


class Cmp(Expr):
    prec = 50

    def __init__(self, op, left, right):
        self.op, self.left, self.right = op, left, right

    def text(self, py):
        return f"{self.left.wrapped(py, 60)} {self.op} {self.right.wrapped(py, 60)}"


class Call(Expr):
    """fn(args, kwargs) as `fn(...)`, `torch.fn(...)`, `F.fn(...)` or `args[0].fn(...)`."""

    def __init__(self, fn, args, kwargs=(), form="torch"):
        self.fn, self.args, self.kwargs, self.form = fn, list(args), list(kwargs), form

    def _args(self, args, py):
        parts = [a.text(py) for a in args] + [f"{k}={v.text(py)}" for k, v in self.kwargs]
        return ", ".join(parts)

    def text(self, py):
        if self.form == "method":
            return f"{self.args[0].wrapped(py, 100)}.{self.fn}({self._args(self.args[1:], py)})"
        if self.form == "bare" and not py:
            head = self.fn
        elif self.form == "F" or (self.form == "bare" and self.fn not in TORCH_FNS):
            head = f"F.{self.fn}"
        else:
            head = f"torch.{self.fn}"
        return f"{head}({self._args(self.args, py)})"


class Attr(Expr):
    def __init__(self, obj, attr):
        self.obj, self.attr = obj, attr

    def text(self, py):
        return f"{self.obj.wrapped(py, 100)}.{self.attr}"


class Index(Expr):
    def __init__(self, obj, index):
        self.obj, self.index = obj, index

    def text(self, py):
        return f"{self.obj.wrapped(py, 100)}[{self.index}]"


class ListE(Expr):
    def __init__(self, items):
        self.items = items

    def text(self, py):
        return "[" + ", ".join(i.text(py) for i in self.items) + "]"


class TensorLit(Expr):
    """A constant tensor written inline: `torch.tensor([...])` (math: `tensor([...])`)."""

    def __init__(self, values, form, ints=False):
        self.values, self.form, self.ints = values, form, ints

    def text(self, py):
        head = "tensor" if self.form == "bare" and not py else "torch.tensor"
        return f"{head}({_nested(self.values, self.ints)})"


def _nested(v, ints=False):
    if isinstance(v, list):
        return "[" + ", ".join(_nested(x, ints) for x in v) + "]"
    return str(int(v)) if ints else _num(float(v))


# --- intervals ----------------------------------------------------------------------------


def _mono(f):
    return lambda lo, hi: (f(lo), f(hi))


def _abs_iv(lo, hi):
    m = max(abs(lo), abs(hi))
    return (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), m


def _sq_iv(lo, hi):
    a, b = _abs_iv(lo, hi)
    return a * a, b * b


# name: (domain requirement, interval of the result)
#   ("any",): any value (above BIG it is squashed by tanh first)
#   ("bound", B): |x| <= B;  ("unit", r): |x| <= r < 1;  ("pos", m): x >= m > 0 (or m < 0)
UNARY = {
    "sin": (("any",), lambda lo, hi: (-1, 1)),
    "cos": (("any",), lambda lo, hi: (-1, 1)),
    "tan": (("bound", 1.2), _mono(math.tan)),
    "asin": (("unit", 0.9), _mono(math.asin)),
    "acos": (("unit", 0.9), lambda lo, hi: (math.acos(hi), math.acos(lo))),
    "atan": (("any",), _mono(math.atan)),
    "sinh": (("bound", 4), _mono(math.sinh)),
    "cosh": (("bound", 4), lambda lo, hi: (1.0, math.cosh(max(abs(lo), abs(hi))))),
    "tanh": (("bound", 4), _mono(math.tanh)),  # (see _Gen.squash)
    "asinh": (("any",), _mono(math.asinh)),
    "acosh": (("pos", 1.1), _mono(math.acosh)),
    "atanh": (("unit", 0.9), _mono(math.atanh)),
    "exp": (("bound", 4), _mono(math.exp)),
    "expm1": (("bound", 4), _mono(math.expm1)),
    "log": (("pos", 0.1), _mono(math.log)),
    "log2": (("pos", 0.1), _mono(math.log2)),
    "log10": (("pos", 0.1), _mono(math.log10)),
    "log1p": (("pos", -0.5), _mono(math.log1p)),
    "sqrt": (("pos", 0.1), _mono(math.sqrt)),
    "rsqrt": (("pos", 0.1), lambda lo, hi: (hi**-0.5, lo**-0.5)),
    "reciprocal": (("pos", 0.1), lambda lo, hi: (1 / hi, 1 / lo)),
    "abs": (("any",), _abs_iv),
    "square": (("any",), _sq_iv),
    "sign": (("any",), lambda lo, hi: (-1, 1)),
    "sigmoid": (("any",), lambda lo, hi: (0, 1)),
    "relu": (("any",), lambda lo, hi: (max(lo, 0), max(hi, 0))),
    "gelu": (("any",), lambda lo, hi: (-0.2, max(hi, 0))),
    "softplus": (("any",), lambda lo, hi: (0, max(hi, 0) + 0.7)),
    "elu": (("any",), lambda lo, hi: (max(lo, -1), hi)),
    "leaky_relu": (("any",), lambda lo, hi: (min(lo, 0.01 * lo), hi)),
    "silu": (("any",), lambda lo, hi: (-0.3, max(hi, 0))),
    "floor": (("any",), lambda lo, hi: (lo - 1, hi)),
    "ceil": (("any",), lambda lo, hi: (lo, hi + 1)),
    "round": (("any",), lambda lo, hi: (lo - 1, hi + 1)),
    "trunc": (("any",), lambda lo, hi: (min(lo, 0), max(hi, 0))),
    "neg": (("any",), lambda lo, hi: (-hi, -lo)),
    "clone": (("any",), lambda lo, hi: (lo, hi)),
    "erf": (("any",), _mono(math.erf)),
    "sinc": (("any",), lambda lo, hi: (-0.22, 1.0)),
    # the activations of engine/ops/activations.py (kinks as relu's: off the drawn values)
    "hardtanh": (("any",), lambda lo, hi: (min(max(lo, -1.0), 1.0), min(max(hi, -1.0), 1.0))),
    "relu6": (("bound", 5.0), lambda lo, hi: (max(lo, 0.0), max(hi, 0.0))),
    "selu": (
        ("any",),
        _mono(lambda v: 1.0507009873554805 * (v if v > 0 else 1.6732632423543772 * math.expm1(v))),
    ),
    "celu": (("any",), _mono(lambda v: v if v > 0 else math.expm1(v))),
    "hardsigmoid": (("bound", 2.5), _mono(lambda v: min(max(v + 3.0, 0.0), 6.0) / 6.0)),
    "hardswish": (("bound", 2.5), lambda lo, hi: (-0.375, max(hi, 0.0))),
    "mish": (("any",), lambda lo, hi: (-0.31, max(hi, 0.0))),
    "hardshrink": (("pos", 1.0), lambda lo, hi: (lo, hi)),
    "softshrink": (("pos", 1.0), lambda lo, hi: (lo - 0.5, hi - 0.5)),
    "logsigmoid": (("any",), _mono(lambda v: min(v, 0.0) - math.log1p(math.exp(-abs(v))))),
    "softsign": (("any",), _mono(lambda v: v / (1 + abs(v)))),
    "tanhshrink": (("any",), _mono(lambda v: v - math.tanh(v))),
    "erfc": (("any",), lambda lo, hi: (math.erfc(hi), math.erfc(lo))),
    "positive": (("any",), lambda lo, hi: (lo, hi)),
}


# --- the program ----------------------------------------------------------------------------


@dataclass
class Leaf:
    name: str
    shape: tuple
    values: object  # nested list or float
    requires_grad: bool = True


@dataclass
class Program:
    flavour: str
    script: str
    torch_program: str
    forward_script: str
    leaves: list
    pinned: list  # names the finite-difference runs must hold fixed (no_grad, detach)
    target: str
    gradient: object  # the grad_tensors for the target (nested list) or None
    fd: dict  # what finite differences can check (see the module docstring)
    plan: str
    expect_error: bool
    dtype: str = "float64"  # the default dtype: "float32" or "float64"

    def __str__(self):
        return (
            f"--- diffcli script ({self.flavour}, {self.dtype}, plan {self.plan}) ---\n{self.script}\n"
            f"--- torch program ---\n{self.torch_program}"
        )


class _Lines:
    """Statements rendered both ways, line for line."""

    def __init__(self):
        self.script, self.program = [], []

    def add(self, script, program=None, indent=0):
        pad = "    " * indent
        self.script.append(pad + script)
        self.program.append(pad + (script if program is None else program))

    def stmt(self, target, expr, indent=0):
        self.add(f"{target} = {expr.text(False)}", f"{target} = {expr.text(True)}", indent)

    def expr(self, expr, indent=0):
        self.add(expr.text(False), expr.text(True), indent)

    @property
    def n(self):
        return len(self.script)


class _Gen:
    def __init__(self, draw, flavour, errors, fd_safe, avoid):
        self.draw = draw
        self.avoid = avoid  # known divergences not to generate (see KNOWN in the test)
        self.flavour = flavour
        self.errors = errors
        self.fd_safe = fd_safe  # nothing whose finite differences cannot be checked
        self.pool = []  # Name expressions usable as operands
        self.counter = 0
        self.grad_enabled = True
        self.lines = None  # the _Lines being written
        self.focus = None  # an op the next expression must use (see programs(focus=))
        self.alias_wanted = None  # ... when it is an alias, the name to write
        self.families = None  # the expression families to draw (None: all)

    def pick(self, cands):
        """One of the op names `cands`: the focus op if it is one of them, else any."""
        cands = list(cands)
        if self.focus is not None:
            fn = CANONICAL.get(self.focus, self.focus)
            if fn in cands:
                self.alias_wanted = self.focus  # the name to write (an alias or fn itself)
                self.focus = None
                return fn
        return self.choice(cands)

    def name_for(self, fn, form=None):
        """The name to call `fn` by: itself, or now and then one of its aliases."""
        if self.alias_wanted is not None and CANONICAL.get(self.alias_wanted, self.alias_wanted) == fn:
            name, self.alias_wanted = self.alias_wanted, None
            return name
        names = [
            a
            for a in ALIASES.get(fn, ())
            if form in (None, "bare")
            or (form == "torch" and a in TORCH_FNS)
            or (form == "method" and a in METHOD_FNS)
        ]
        if names and self.chance(2):
            return self.choice(names)
        return fn

    # -- helpers --
    def d(self, strategy):
        return self.draw(strategy)

    def choice(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def chance(self, k, n=10):
        """True with probability k/n (and in the simplest examples)."""
        return self.draw(st.integers(0, n - 1)) < k

    def rare(self, n):
        """True with probability 1/n, and not in the simplest examples (hypothesis starts
        from, and shrinks towards, the smallest integer)."""
        return self.draw(st.integers(0, n - 1)) == n // 2

    def fresh(self, prefix="h"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def form(self, fn):
        """How a call to `fn` is written, within the flavour. Bare `any`/`all` are Python's
        builtins (as in a PyTorch program), so those two are methods in the math flavour."""
        if self.flavour == "math":
            return "method" if fn in ("any", "all") else "bare"
        forms = []
        if fn in TORCH_FNS:
            forms.append("torch")
        if fn in F_FNS:
            forms.append("F")
        if fn in METHOD_FNS:
            forms.append("method")
        if self.flavour == "mixed" and fn in BARE_FNS and fn not in ("any", "all"):
            forms.append("bare")
        return self.choice(forms)

    def can(self, fn):
        return self.flavour != "math" or fn in BARE_FNS

    def call(self, fn, args, kwargs=(), form=None):
        name = self.name_for(fn, form)
        return Call(name, args, kwargs, form or self.form(name))

    def rg_of(self, *xs):
        return self.grad_enabled and any(x.rg for x in xs)

    def deps_of(self, *xs):
        return frozenset().union(*[x.deps for x in xs]) if self.grad_enabled else frozenset()

    def unary(self, fn, x, lo, hi, args=(), kwargs=()):
        e = self.call(fn, [x, *args], kwargs)
        return e.set(x.shape, lo, hi, x.deps if self.grad_enabled else (), self.rg_of(x))

    def mul(self, x, c):
        return Bin("*", x, Num(c)).set(
            x.shape, min(x.lo * c, x.hi * c), max(x.lo * c, x.hi * c), x.deps, x.rg
        )

    def add_c(self, x, c):
        return Bin("+", x, Num(c)).set(x.shape, x.lo + c, x.hi + c, x.deps, x.rg)

    def no_grad_safe(self, e):
        """What a no_grad block assigns: not a bare name (that would be the same tensor) and,
        when "no_grad_view" is avoided, not a view of a tensor that requires grad."""
        if isinstance(e, Name) or (
            "no_grad_view" in self.avoid and e.view and any(p.rg for p in self.pool if p.name in e.alias)
        ):
            return Bin("*", e, Num(1.0)).set(e.shape, e.lo, e.hi)
        return e

    def squash(self, x):
        """x mapped into (-0.95, 0.95): `atan(x) * 0.6` (not tanh: between 5 and 20 its
        derivative 1 - tanh(x)**2 is mostly rounding error, in PyTorch as here)."""
        t = self.unary("atan", x, math.atan(x.lo), math.atan(x.hi))
        return self.mul(t, 0.6)

    # -- domains --
    def prep(self, x, req):
        kind = req[0]
        if kind == "any":
            return x if x.mag <= BIG else self.squash(x)
        if kind == "bound":
            b = req[1]
            if x.mag <= b:
                return x
            return self.mul(self.squash(x), b)
        if kind == "unit":
            r = req[1]
            if x.mag <= r:
                return x
            if self.chance(5):
                t = self.unary("sin", x, -1, 1) if x.mag <= BIG else self.squash(x)
            else:
                t = self.squash(x)
            return self.mul(t, r)
        if kind == "pos":
            m = req[1]
            if x.lo >= m:
                return x
            k = self.d(st.integers(0, 3))
            if k == 0 and x.mag <= 30:
                sq = Bin("*", x, x).set(x.shape, *_sq_iv(x.lo, x.hi), x.deps, x.rg)
                return self.add_c(sq, m)
            if k == 1 and x.mag <= BIG:
                a = self.unary("abs", x, *_abs_iv(x.lo, x.hi))
                return self.add_c(a, m)
            if k == 2 and m >= -0.3 and m <= 0.3:
                t = self.squash(x)
                return self.unary("exp", t, math.exp(t.lo), math.exp(t.hi)) if m <= 0.3 else t
            s = self.unary("sigmoid", x, 0, 1)
            return self.add_c(s, m)
        raise AssertionError(req)

    # -- expressions --
    def operand(self, depth, pool=None):
        pool = pool if pool is not None else self.pool
        if depth <= 0 or self.chance(3):
            return self.choice(pool)
        return self.expr(depth - 1, pool)

    def expr(self, depth, pool=None):
        pool = pool if pool is not None else self.pool
        if depth <= 0:
            return self.choice(pool)
        if self.focus is not None:
            family = FAMILY_OF.get(CANONICAL.get(self.focus, self.focus), "unary")
        elif self.families:
            family = self.choice(self.families)
        else:
            family = self.choice(
                ["unary"] * 5
                + ["binary"] * 5
                + ["scalar"] * 4
                + ["reduce"] * 2
                + ["reduce_dim"] * 2
                + ["shape"] * 2
                + ["extra"] * 2
                + ["const"] * 2
                + ["where"] * 2
                + ["linalg", "loss", "cat", "index", "discrete", "methods"]
            )
        focus = self.focus
        e = getattr(self, "gen_" + family)(depth, pool)
        if e is None and focus is not None and self.focus is None:
            self.focus, self.alias_wanted = focus, None  # (not made after all: again)
        return e if e is not None else self.operand(depth - 1, pool)

    def gen_unary(self, depth, pool):
        focused = self.focus is not None
        fn = self.pick([f for f in UNARY if self.can(f)])
        focused = focused and self.focus is None
        req, iv = UNARY[fn]
        x = self.prep(self.operand(depth - 1, pool), req)
        lo, hi = iv(x.lo, x.hi)
        if fn == "neg" and not focused and self.chance(5):
            return Neg(x).set(x.shape, -x.hi, -x.lo, x.deps if self.grad_enabled else (), self.rg_of(x))
        return self.unary(fn, x, lo, hi)

    def gen_extra(self, depth, pool):
        """Elementwise ops with extra arguments."""
        op = self.pick(["clamp", "clamp_min", "clamp_max", "leaky_relu", "elu", "softplus", "gelu", "pow"])
        x = self.prep(self.operand(depth - 1, pool), ("any",))
        if op == "clamp":
            lo_c, hi_c = sorted(
                [self.d(st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0])) for _ in range(2)]
            )
            style = self.d(st.integers(0, 3))
            if style == 0:
                args, kw = [Num(lo_c), Num(hi_c)], []
            elif style == 1:
                args, kw = [], [("min", Num(lo_c))]
                hi_c = math.inf
            elif style == 2:
                args, kw = [], [("max", Num(hi_c))]
                lo_c = -math.inf
            else:
                args, kw = [], [("min", Num(lo_c)), ("max", Num(hi_c))]
            lo = min(max(x.lo, lo_c), hi_c)
            hi = max(min(x.hi, hi_c), lo_c)
            return self.unary("clamp", x, lo, hi, args, kw)
        if op in ("clamp_min", "clamp_max"):
            fn = op
            c = self.d(st.sampled_from([-0.5, 0.0, 0.5]))
            lo, hi = (max(x.lo, c), max(x.hi, c)) if fn == "clamp_min" else (min(x.lo, c), min(x.hi, c))
            return self.unary(fn, x, lo, hi, [Num(c)])
        if op == "leaky_relu":
            s = self.d(st.sampled_from([0.01, 0.1, 0.2]))
            kw = [("negative_slope", Num(s))] if self.chance(5) else []
            args = [] if kw else [Num(s)]
            return self.unary("leaky_relu", x, min(x.lo, s * x.lo), x.hi, args, kw)
        if op == "elu":
            alpha = self.d(st.sampled_from([0.5, 1.0, 2.0]))
            return self.unary("elu", x, max(x.lo, -alpha), x.hi, [], [("alpha", Num(alpha))])
        if op == "softplus":
            beta = self.d(st.sampled_from([0.5, 2.0, 10.0]))
            return self.unary("softplus", x, 0, max(x.hi, 0) + 1, [], [("beta", Num(beta))])
        if op == "gelu":
            return self.unary("gelu", x, -0.2, max(x.hi, 0), [], [("approximate", Lit("'tanh'"))])
        # pow with a constant exponent, in every spelling
        c = self.d(st.sampled_from([2, 3, 0.5, -1, 1.5, -0.5]))
        if isinstance(c, float) or c < 0:
            x = self.prep(x, ("pos", 0.1))
            lo, hi = sorted([x.lo**c, x.hi**c])
        else:
            x = self.prep(x, ("any",))
            lo, hi = _sq_iv(x.lo, x.hi) if c == 2 else (x.lo**3, x.hi**3)
        if self.chance(6) or not self.can("pow"):
            e = Bin("**", x, Num(c), caret=self.flavour != "torch" and self.chance(6))
        else:
            e = self.call("pow", [x, Num(c)])
        return e.set(x.shape, lo, hi, self.deps_of(x), self.rg_of(x))

    def gen_scalar(self, depth, pool):
        x = self.prep(self.operand(depth - 1, pool), ("any",))
        c = self.d(st.sampled_from([0.5, 1.5, 2, 3, -1, -0.25, 0.1]))
        op = self.pick(["+", "-", "*", "/", "r-", "r*", "r/", "r**", "rsub"])
        deps, rg = self.deps_of(x), self.rg_of(x)
        if op == "rsub" and self.can("rsub"):  # torch.rsub(x, c) is c - x
            return self.call("rsub", [x, Num(c)], form="bare" if self.flavour == "math" else "torch").set(
                x.shape, c - x.hi, c - x.lo, deps, rg
            )
        if op == "rsub":
            op = "r-"
        if op == "+":
            return Bin("+", x, Num(c)).set(x.shape, x.lo + c, x.hi + c, deps, rg)
        if op == "-":
            return Bin("-", x, Num(c)).set(x.shape, x.lo - c, x.hi - c, deps, rg)
        if op in ("*", "r*"):
            e = Bin("*", x, Num(c)) if op == "*" else Bin("*", Num(c), x)
            return e.set(x.shape, min(x.lo * c, x.hi * c), max(x.lo * c, x.hi * c), deps, rg)
        if op == "/":
            return Bin("/", x, Num(c)).set(
                x.shape, min(x.lo / c, x.hi / c), max(x.lo / c, x.hi / c), deps, rg
            )
        if op == "r-":
            return Bin("-", Num(c), x).set(x.shape, c - x.hi, c - x.lo, deps, rg)
        if op == "r/":
            x = self.prep(x, ("pos", 0.1))
            return Bin("/", Num(c), x).set(
                x.shape, min(c / x.lo, c / x.hi), max(c / x.lo, c / x.hi), self.deps_of(x), self.rg_of(x)
            )
        # a number to a tensor power
        x = self.prep(x, ("bound", 3))
        b = abs(c) if c != 1 else 2
        b = b if b != 0 else 2
        return Bin("**", Num(b), x, caret=self.flavour != "torch" and self.chance(6)).set(
            x.shape,
            b**x.lo if b >= 1 else b**x.hi,
            b**x.hi if b >= 1 else b**x.lo,
            self.deps_of(x),
            self.rg_of(x),
        )

    def partner(self, x, depth, pool, same=False):
        """An operand whose shape broadcasts with x's (or equals it)."""
        ok = [p for p in pool if (p.shape == x.shape if same else _broadcast(p.shape, x.shape) is not None)]
        if not ok:
            return None
        y = self.operand(depth - 1, ok)
        if (y.shape != x.shape) if same else _broadcast(x.shape, y.shape) is None:
            y = self.choice(ok)
        return y

    def gen_binary(self, depth, pool):
        x = self.operand(depth - 1, pool)
        y = self.partner(x, depth, pool)
        if y is None:
            return None
        op = self.pick(
            [
                "+",
                "-",
                "*",
                "/",
                "**",
                "add",
                "sub",
                "mul",
                "div",
                "pow",
                "atan2",
                "maximum",
                "minimum",
                "add_alpha",
                "hypot",
                "logaddexp",
            ]
        )
        if op in (
            "pow",
            "atan2",
            "maximum",
            "minimum",
            "add",
            "sub",
            "mul",
            "div",
            "add_alpha",
            "hypot",
            "logaddexp",
        ) and not self.can(op.split("_")[0]):
            op = "+"
        # finite differences: away from hypot's kink at the origin
        if op == "hypot" and self.fd_safe:
            x = self.prep(x, ("pos", 0.1))
        # finite differences: away from atan2's branch cut (y = 0, x <= 0) and its origin
        if op == "atan2" and self.fd_safe and self.chance(5):
            y = self.prep(y, ("pos", 0.1))
        elif op == "atan2" and self.fd_safe:
            x = self.prep(x, ("pos", 0.1))
        if op in ("**", "pow"):
            x, y = self.prep(x, ("pos", 0.1)), self.prep(y, ("bound", 3))
            cands = [x.lo**y.lo, x.lo**y.hi, x.hi**y.lo, x.hi**y.hi]
            lo, hi = min(cands), max(cands)
        elif op in ("/", "div"):
            x, y = self.prep(x, ("any",)), self.prep(y, ("pos", 0.1))
            cands = [x.lo / y.lo, x.lo / y.hi, x.hi / y.lo, x.hi / y.hi]
            lo, hi = min(cands), max(cands)
        else:
            x, y = self.prep(x, ("any",)), self.prep(y, ("any",))
            if op in ("+", "add"):
                lo, hi = x.lo + y.lo, x.hi + y.hi
            elif op == "add_alpha":
                lo, hi = x.lo + 2 * y.lo, x.hi + 2 * y.hi
            elif op in ("-", "sub"):
                lo, hi = x.lo - y.hi, x.hi - y.lo
            elif op in ("*", "mul"):
                cands = [x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi]
                lo, hi = min(cands), max(cands)
            elif op == "atan2":
                lo, hi = -math.pi, math.pi
            elif op == "maximum":
                lo, hi = max(x.lo, y.lo), max(x.hi, y.hi)
            elif op == "hypot":
                lo, hi = 0.0, math.hypot(max(abs(x.lo), abs(x.hi)), max(abs(y.lo), abs(y.hi)))
            elif op == "logaddexp":
                lo, hi = max(x.lo, y.lo), max(x.hi, y.hi) + math.log(2.0)
            else:
                lo, hi = min(x.lo, y.lo), min(x.hi, y.hi)
        shape = _broadcast(x.shape, y.shape)
        if op in ("+", "-", "*", "/", "**"):
            e = Bin(op, x, y, caret=op == "**" and self.flavour != "torch" and self.chance(6))
        elif op == "add_alpha":
            e = self.call("add", [x, y], [("alpha", Num(2))])
        else:
            e = self.call(op, [x, y])
        return e.set(shape, lo, hi, self.deps_of(x, y), self.rg_of(x, y))

    def gen_where(self, depth, pool):
        self.pick(["where"])
        x = self.prep(self.operand(depth - 1, pool), ("any",))
        y = self.partner(x, depth, pool)
        if y is None:
            return None
        y = self.prep(y, ("any",))
        cond = self.condition(x, y)
        b = self.mul(y, 2) if self.chance(5) else y
        shape = _broadcast(x.shape, b.shape)
        forms = {"math": ["bare"], "torch": ["torch", "method"], "mixed": ["bare", "torch", "method"]}
        form = self.choice(forms[self.flavour])
        if form == "method":  # x.where(cond, other)
            e = Call("where", [x, cond, b], [], "method")
        else:
            e = Call("where", [cond, x, b], [], form)
        return e.set(shape, min(x.lo, b.lo), max(x.hi, b.hi), self.deps_of(x, b), self.rg_of(x, b))

    def gen_discrete(self, depth, pool):
        """Ops whose values are integers, bools or Python bools, joined to a differentiable
        operand x: `x + c // k` on a constant c (floor_divide has no derivative: a backward
        through it raises), `x % d` with 0 < x < d (x itself; d's gradient is -0.),
        `where(cond.any(), x, 2 * x)`, `x * argmax(...)`, `x + 0.5 if equal(x, ...) else 2 * x`."""
        focused = self.focus is not None
        fn = self.pick(["floor_divide", "remainder", "any", "all", "argmax", "argmin", "equal", "allclose"])
        op_ok = not (focused and self.focus is None)  # a focused op is written by its name
        x = self.prep(self.operand(depth - 1, pool), ("any",))
        s = x.shape
        n = s[-1] if s else 1
        lit_form = "bare" if self.flavour == "math" else "torch"

        def literal(choices):
            vals = [self.choice(choices) for _ in range(n)]
            return vals, TensorLit(vals if s else vals[0], lit_form)

        if fn == "floor_divide":
            vals, lit = literal([5.0, -3.5, 2.5, -0.5, 7.0])
            k = self.choice([2.0, -1.5, 3.0])
            q = (
                Bin("//", lit, Num(k))
                if op_ok and self.chance(5)
                else self.call("floor_divide", [lit, Num(k)])
            )
            qs = [math.floor(v / k) for v in vals]
            return Bin("+", x, q).set(s, x.lo + min(qs), x.hi + max(qs), self.deps_of(x), self.rg_of(x))
        if fn == "remainder":
            x = self.prep(x, ("pos", 0.1))
            d = float(math.floor(x.hi) + 2)
            y = self.partner(x, depth, pool) if self.chance(4) else None
            if y is not None:
                div = self.add_c(self.prep(y, ("pos", 0.1)), d)  # a tensor divisor, > x
            else:
                div = Num(d)
            e = Bin("%", x, div) if op_ok and self.chance(5) else self.call("remainder", [x, div])
            deps = (x,) if y is None else (x, div)
            shape = s if y is None else _broadcast(s, div.shape)
            return e.set(shape, x.lo, x.hi, self.deps_of(*deps), self.rg_of(*deps))
        deps, rg = self.deps_of(x), self.rg_of(x)
        where_form = "bare" if self.flavour == "math" else "torch"
        if fn in ("any", "all"):
            src = self.condition(x, x) if self.chance(7) else x
            if s and self.chance(5):
                red = self.call(fn, [src], [("dim", Lit("-1")), ("keepdim", Lit("True"))])
            else:
                red = self.call(fn, [src])
            e = Call("where", [red, x, self.mul(x, 2)], [], where_form)
            return e.set(s, min(x.lo, 2 * x.lo), max(x.hi, 2 * x.hi), deps, rg)
        if fn in ("argmax", "argmin"):
            # a literal of distinct values in finite-difference runs (x's own ties would flip)
            src = literal([0.5, -1.0, 2.0, 3.5, -0.25])[1] if self.fd_safe or self.chance(3) else x
            if s and self.chance(5):
                k, m = self.call(fn, [src], [("dim", Lit("-1")), ("keepdim", Lit("True"))]), n - 1
            else:
                k, m = self.call(fn, [src]), _numel(s) - 1
            return Bin("*", x, k).set(s, min(0.0, x.lo * m), max(0.0, x.hi * m), deps, rg)
        other = x if fn == "equal" or self.chance(5) else self.mul(x, 2)
        cond = self.call(fn, [x, other])
        e = IfE(self.add_c(x, 0.5), cond, self.mul(x, 2))  # (a new tensor either way)
        return e.set(s, min(x.lo + 0.5, 2 * x.lo), max(x.hi + 0.5, 2 * x.hi), deps, rg)

    def condition(self, x, y):
        """A bool tensor from x and y: `x > y`, `torch.gt(x, y)`, `x.le(0.0)`,
        `logical_and(x > 0.0, y < 1.0)`, `logical_not(...)`..."""
        kind = self.pick(
            ["op", "eq", "ne", "gt", "ge", "lt", "le", "logical_and", "logical_or", "logical_not"]
        )
        other = y if self.chance(6) else Num(self.choice([0.0, 0.5, -1.0]))
        op = self.choice([">", "<", ">=", "<=", "==", "!="]) if kind == "op" else kind
        if self.fd_safe and op in ("==", "!=", "eq", "ne"):
            # where two equal values pick a branch, autograd's derivative is neither side's
            # (finite differences cannot check it): an equality that does not happen
            other = Num(0.123)
        if kind == "op":
            return Cmp(op, x, other)
        if kind in ("eq", "ne", "gt", "ge", "lt", "le"):
            return self.call(kind, [x, other])
        first = Cmp(self.choice([">", "<="]), x, Num(0.0))
        if kind == "logical_not":
            return self.call(kind, [first])
        return self.call(kind, [first, Cmp(self.choice(["<", ">="]), y, Num(0.5))])

    def gen_const(self, depth, pool):
        """An operand combined with a constant tensor from a constructor (rand*: only its
        shape or its range matter, PyTorch's random numbers are not diffcli's)."""
        fn = self.pick(sorted(CONSTRUCTORS - {"manual_seed"}))
        x = self.prep(self.operand(depth - 1, pool), ("any",))
        s, n = x.shape, (x.shape[-1] if x.shape else 1)
        deps, rg = self.deps_of(x), self.rg_of(x)
        c = self.choice([0.5, 2.0, -1.0])
        math_form = "bare" if self.flavour == "math" else None

        def make(name, args, kwargs=()):
            return Call(
                name,
                args,
                list(kwargs),
                math_form or self.choice(["torch", "bare"] if self.flavour == "mixed" else ["torch"]),
            )

        shape_args = [Lit(repr(tuple(s)))] if self.chance(5) or not s else [Lit(str(k)) for k in s]
        if fn in ("ones_like", "zeros_like", "full_like", "rand_like", "randn_like"):
            k = make(fn, [x, Num(c)] if fn == "full_like" else [x])
        elif fn in ("ones", "zeros", "rand", "randn"):
            k = make(fn, shape_args)
        elif fn == "randint":  # x * randint(1, 2, shape): x (each draw is 1, whatever the stream)
            k = make(fn, [Lit("1"), Lit("2"), Lit(repr(tuple(s)))])
            return Bin("*", x, k).set(s, x.lo, x.hi, deps, rg)
        elif fn == "randperm":  # x + randperm(1): x + [0] (one element takes no draw)
            e = Bin("+", x, make(fn, [Lit("1")]))
            return e.set(s if s else (1,), x.lo, x.hi, deps, rg)
        elif fn == "full":
            k = make(fn, [Lit(repr(tuple(s))), Num(c)])
        elif fn == "eye":
            if not s:  # x * I
                e = Bin("*", x, make("eye", [Lit("2")]))
                return e.set((2, 2), min(x.lo, 0), max(x.hi, 0), deps, rg)
            e = Bin("@", x, make("eye", [Lit(str(n))]))  # x @ I is x
            return e.set(s, x.lo, x.hi, deps, rg)
        elif fn == "arange":
            k = make("arange", [Lit(str(n))] if self.chance(5) else [Lit(f"{float(n)}")])
            return Bin("+", x, k).set(s if s else (n,), x.lo, x.hi + n, deps, rg)
        elif fn == "linspace":
            k = make("linspace", [Num(0.0), Num(1.0), Lit(str(n))])
            return Bin("*", x, k).set(s if s else (n,), min(x.lo, 0), max(x.hi, 0), deps, rg)
        else:  # tensor / Tensor: a literal row
            vals = [self.choice([0.5, 1.0, -2.0, 0.25]) for _ in range(n)]
            k = make(fn, [Lit(_nested(vals if s else vals[0]))])
            if fn == "Tensor" and not s:
                k = make(fn, [Lit(_nested(vals))])  # Tensor(1.0) would be a size
                return Bin("*", x, k).set((1,), -2 * x.mag, 2 * x.mag, deps, rg)
            return Bin("*", x, k).set(s, -2 * x.mag, 2 * x.mag, deps, rg)
        if fn in ("rand", "rand_like"):  # in [0, 1): x where it is >= 0, else 2 * x
            cond = Cmp(">=", k, Num(0.0))
            e = Call("where", [cond, x, self.mul(x, 2)], [], math_form or "torch")
            return e.set(s, min(x.lo, 2 * x.lo), max(x.hi, 2 * x.hi), deps, rg)
        if fn in ("randn", "randn_like"):  # only its shape: x + 0 * |randn|
            z = Bin("*", Num(0.0), Call("abs", [k], [], math_form or "torch"))
            return Bin("+", x, z).set(s, x.lo, x.hi, deps, rg)
        if fn in ("zeros", "zeros_like"):
            return Bin("+", x, k).set(s, x.lo, x.hi, deps, rg)
        if fn in ("ones", "ones_like"):
            return Bin("*", x, k).set(s, x.lo, x.hi, deps, rg)
        return Bin("*", x, k).set(s, min(x.lo * c, x.hi * c), max(x.lo * c, x.hi * c), deps, rg)

    def gen_reduce(self, depth, pool):
        x = self.operand(depth - 1, pool)
        n = _numel(x.shape)
        fns = ["sum", "mean", "prod", "max", "min", "amax", "norm"] + (["var", "std"] if n >= 2 else [])
        fn = self.pick(fns)
        if fn == "prod":
            x = self.prep(x, ("bound", 3))
            m = x.mag**n
            lo, hi = -m, m
        else:
            x = self.prep(x, ("any",))
            if fn == "sum":
                lo, hi = min(x.lo * n, x.lo), max(x.hi * n, x.hi)
            elif fn in ("mean", "max", "min", "amax"):
                lo, hi = x.lo, x.hi
            elif fn == "norm":
                lo, hi = 0, math.sqrt(n) * x.mag
            elif fn == "var":
                lo, hi = 0, (x.hi - x.lo) ** 2 * 2
            else:
                lo, hi = 0, (x.hi - x.lo) * 2
        return self.call(fn, [x]).set((), lo, hi, self.deps_of(x), self.rg_of(x))

    def gen_reduce_dim(self, depth, pool):
        x = self.operand(depth - 1, pool)
        if not x.shape:
            return None
        nd = len(x.shape)
        dim = self.d(st.integers(-nd, nd - 1))
        size = x.shape[dim]
        fns = [
            "sum",
            "mean",
            "prod",
            "max",
            "min",
            "amax",
            "norm",
            "logsumexp",
            "softmax",
            "log_softmax",
            "cumsum",
        ] + (["var", "std"] if size >= 2 else [])
        fn = self.pick(fns)
        keep = fn not in ("softmax", "log_softmax", "cumsum") and self.chance(3)
        shape = list(x.shape)
        if fn in ("softmax", "log_softmax", "cumsum"):
            pass
        elif keep:
            shape[dim] = 1
        else:
            del shape[dim]
        x = self.prep(x, ("bound", 3) if fn == "prod" else ("any",))
        lo, hi = x.lo, x.hi
        if fn == "sum" or fn == "cumsum":
            lo, hi = min(x.lo * size, x.lo), max(x.hi * size, x.hi)
        elif fn == "prod":
            lo, hi = -(x.mag**size), x.mag**size
        elif fn == "norm":
            lo, hi = 0, math.sqrt(size) * x.mag
        elif fn == "var":
            lo, hi = 0, (x.hi - x.lo) ** 2 * 2
        elif fn == "std":
            lo, hi = 0, (x.hi - x.lo) * 2
        elif fn == "logsumexp":
            lo, hi = x.lo, x.hi + math.log(size)
        elif fn == "softmax":
            lo, hi = 0, 1
        elif fn == "log_softmax":
            lo, hi = x.lo - x.hi - math.log(size), 0
        dim_arg = Lit(str(dim))
        kwargs = []
        args = [x]
        if fn == "norm":
            kwargs.append(("dim", dim_arg))
        elif fn in ("softmax", "log_softmax") and self.chance(5):
            kwargs.append(("dim", dim_arg))
        elif self.chance(3):
            kwargs.append(("dim", dim_arg))
        else:
            args.append(dim_arg)
        if keep:
            kwargs.append(("keepdim", Lit("True")))
        e = self.call(fn, args, kwargs)
        if fn in ("max", "min"):
            e = Attr(e, "values") if self.chance(6) else Index(e, "0")
        return e.set(shape, lo, hi, self.deps_of(x), self.rg_of(x))

    def gen_shape(self, depth, pool):
        x = self.operand(depth - 1, pool)
        x = self.prep(x, ("any",))
        s = x.shape
        n = _numel(s)
        opts = ["reshape", "flatten", "unsqueeze", "clone", "detach"]
        if self.flavour != "math" and self.errors:  # (a view of a transposed tensor fails)
            opts += ["view"]
        if 1 in s:
            opts += ["squeeze", "squeeze_dim"]
            if self.flavour != "math":
                opts += ["expand"]
        if len(s) == 2:
            opts += ["transpose", "permute", "t", "T"]
        if len(s) >= 1:
            opts += ["flip"]
        if self.fd_safe:
            opts.remove("detach")
        op = self.pick(opts)
        deps, rg = self.deps_of(x), self.rg_of(x)
        if op == "reshape":
            target = self.choice([(-1,), (n,), (1, n), (n, 1)] + ([(3, 2)] if n == 6 else []))
            shape = (n,) if target == (-1,) else target
            form = self.form("reshape")
            if form == "method" and self.chance(5):  # x.reshape(2, 3)
                e = Call("reshape", [x] + [Lit(str(t)) for t in target], [], form)
            else:
                e = Call("reshape", [x, Lit(repr(tuple(target)))], [], form)
        elif op == "view":
            target = self.choice([(-1,), (1, n)])
            shape = (n,) if target == (-1,) else target
            e = Call("view", [x] + [Lit(str(t)) for t in target], [], "method")
        elif op == "flatten":
            shape = (n,)
            e = self.call("flatten", [x])
        elif op == "unsqueeze":
            d = self.d(st.integers(-len(s) - 1, len(s)))
            shape = list(s)
            shape.insert(d if d >= 0 else len(s) + 1 + d, 1)
            e = self.call("unsqueeze", [x, Lit(str(d))])
        elif op == "squeeze":
            shape = tuple(k for k in s if k != 1)
            e = self.call("squeeze", [x])
        elif op == "squeeze_dim":
            d = self.choice([i for i, k in enumerate(s) if k == 1])
            shape = tuple(k for i, k in enumerate(s) if i != d)
            e = self.call("squeeze", [x, Lit(str(d))])
        elif op == "expand":
            shape = tuple(3 if k == 1 and i == len(s) - 1 else 2 if k == 1 else k for i, k in enumerate(s))
            e = Call("expand", [x] + [Lit(str(k)) for k in shape], [], "method")
        elif op in ("transpose", "permute", "t", "T"):
            shape = (s[1], s[0])
            if op == "transpose":
                e = self.call("transpose", [x, Lit("0"), Lit("1")])
            elif op == "permute":
                e = (
                    Call("permute", [x, Lit("1"), Lit("0")], [], "method")
                    if self.flavour != "math"
                    else self.call("permute", [x, Lit("(1, 0)")])
                )
            elif op == "t":
                e = self.call("t", [x])
            else:
                e = Attr(x, "T")
        elif op == "flip":
            shape = s
            e = self.call("flip", [x, Lit("(0,)" if self.chance(5) else "[0]")])
        elif op == "clone":
            shape = s
            e = self.call("clone", [x])
        else:  # detach inside an expression: a constant copy (not in finite-difference runs)
            shape, deps, rg = s, frozenset(), False
            e = self.call("detach", [x])
        e.set(shape, x.lo, x.hi, deps, rg)
        if op not in ("clone", "flip"):  # views (reshape/flatten: when they can be)
            e.alias, e.view = x.alias, op != "detach"
        return e

    def gen_methods(self, depth, pool):
        """The tensor methods of tutorials: script_gen_methods.py."""
        return script_gen_methods.gen(self, depth, pool)

    def gen_index(self, depth, pool):
        how = self.pick(["index", "select"])
        x = self.prep(self.operand(depth - 1, pool), ("any",))
        s = x.shape
        if not s:
            return None
        if how == "select":  # select(x, dim, i): x[..., i, ...]
            d = self.d(st.integers(0, len(s) - 1))
            i = self.d(st.integers(-s[d], s[d] - 1))
            shape = s[:d] + s[d + 1 :]
            e = self.call("select", [x, Lit(str(d)), Lit(str(i))]).set(
                shape, x.lo, x.hi, self.deps_of(x), self.rg_of(x)
            )
            e.alias, e.view = x.alias, True
            return e
        if len(s) == 1:
            idx, shape = self.choice(
                [("0", ()), ("-1", ()), ("1:", (s[0] - 1,)), (":2", (min(2, s[0]),)), ("...", s)]
            )
        else:
            idx, shape = self.choice(
                [
                    ("0", s[1:]),
                    ("-1", s[1:]),
                    (":, 0", s[:1] + s[2:]),
                    ("..., -1", s[:-1]),
                    ("1:", (s[0] - 1,) + s[1:]),
                    (":, 1:", (s[0], s[1] - 1) + s[2:]),
                ]
            )
        if 0 in shape:
            return None
        e = Index(x, idx).set(shape, x.lo, x.hi, self.deps_of(x), self.rg_of(x))
        e.alias, e.view = x.alias, True
        return e

    def gen_cat(self, depth, pool):
        x = self.prep(self.operand(depth - 1, pool), ("any",))
        y = self.partner(x, depth, pool, same=True)
        if y is None or not self.can("cat"):
            return None
        y = self.prep(y, ("any",))
        fn = self.pick(["cat", "stack"] if x.shape else ["stack"])
        nd = len(x.shape)
        if fn == "cat":
            dim = self.d(st.integers(0, nd - 1))
            shape = list(x.shape)
            shape[dim] *= 2
        else:
            dim = self.d(st.integers(0, nd))
            shape = list(x.shape)
            shape.insert(dim, 2)
        args = [ListE([x, y])]
        if dim or self.chance(5):
            args.append(Lit(str(dim)))
        form = "bare" if self.flavour == "math" or (self.flavour == "mixed" and self.chance(5)) else "torch"
        return Call(self.name_for(fn, form), args, [], form).set(
            shape, min(x.lo, y.lo), max(x.hi, y.hi), self.deps_of(x, y), self.rg_of(x, y)
        )

    def gen_linalg(self, depth, pool):
        mats = [p for p in pool if len(p.shape) == 2]
        vecs = [p for p in pool if len(p.shape) == 1]
        opts = []
        if mats:
            opts += ["mm", "mm_t", "mv", "bmm"]
        if vecs:
            opts += ["dot", "outer", "vm"]
        if not opts:
            return None
        fns = {
            "mm": ["@", "matmul", "mm"],
            "mm_t": ["@", "matmul", "mm"],
            "mv": ["@", "matmul", "mv"],
            "dot": ["@", "matmul", "dot"],
            "outer": ["outer"],
            "vm": ["@", "matmul"],
            "bmm": ["bmm"],
        }
        focus = CANONICAL.get(self.focus, self.focus)
        op = self.choice([o for o in opts if focus in fns[o]] or opts)
        fn = self.pick(fns[op])

        def T(m):
            if self.flavour == "math":
                return self.call("t", [m], form="bare").set(
                    (m.shape[1], m.shape[0]), m.lo, m.hi, m.deps, m.rg
                )
            e = Attr(m, "T") if self.chance(5) else self.call("t", [m])
            return e.set((m.shape[1], m.shape[0]), m.lo, m.hi, m.deps, m.rg)

        if op in ("mm", "mm_t"):
            a = self.prep(self.choice(mats), ("any",))
            cands = [p for p in mats if p.shape[0] == a.shape[1]]
            if op == "mm" and cands:
                b = self.prep(self.choice(cands), ("any",))
            else:
                cands = [p for p in mats if p.shape[1] == a.shape[1]]
                b = T(self.prep(self.choice(cands), ("any",)))
            shape, k = (a.shape[0], b.shape[1]), a.shape[1]
        elif op == "bmm":  # batches of one: a[None] @ a.t()[None]
            a = self.prep(self.choice(mats), ("any",))
            at = T(a)
            a3 = self.call("unsqueeze", [a, Lit("0")]).set((1,) + a.shape, a.lo, a.hi, a.deps, a.rg)
            b3 = self.call("unsqueeze", [at, Lit("0")]).set((1,) + at.shape, a.lo, a.hi, a.deps, a.rg)
            m = a.mag * a.mag * a.shape[1]
            return self.call("bmm", [a3, b3]).set(
                (1, a.shape[0], a.shape[0]), -m, m, self.deps_of(a), self.rg_of(a)
            )
        elif op == "mv":
            a = self.prep(self.choice(mats), ("any",))
            cands = [p for p in vecs if p.shape[0] == a.shape[1]]
            if cands:
                b = self.prep(self.choice(cands), ("any",))
            else:  # a row of a matrix with as many columns
                r = self.choice([p for p in mats if p.shape[1] == a.shape[1]])
                b = Index(r, "0").set((r.shape[1],), r.lo, r.hi, self.deps_of(r), self.rg_of(r))
                b.alias, b.view = r.alias, True
            shape, k = (a.shape[0],), a.shape[1]
        elif op in ("dot", "outer"):
            a = self.prep(self.choice(vecs), ("any",))
            cands = [p for p in vecs if p.shape == a.shape] if op == "dot" else vecs
            b = self.prep(self.choice(cands), ("any",))
            if op == "dot":
                shape, k = (), a.shape[0]
            else:
                shape, k = (a.shape[0], b.shape[0]), 1
        else:  # vector @ matrix
            a = self.prep(self.choice(vecs), ("any",))
            cands = [p for p in mats if p.shape[0] == a.shape[0]]
            tcands = [p for p in mats if p.shape[1] == a.shape[0]]
            if cands:
                b = self.prep(self.choice(cands), ("any",))
            elif tcands:
                b = T(self.prep(self.choice(tcands), ("any",)))
            else:
                return None
            shape, k = (b.shape[1],), a.shape[0]
        m = a.mag * b.mag * k
        e = Bin("@", a, b) if fn == "@" else self.call(fn, [a, b])
        return e.set(shape, -m, m, self.deps_of(a, b), self.rg_of(a, b))

    def gen_loss(self, depth, pool):
        loss = self.pick(
            [
                "mse_loss",
                "binary_cross_entropy",
                "cross_entropy",
                "nll_loss",
                "binary_cross_entropy_with_logits",
            ]
        )
        x = self.prep(self.operand(depth - 1, pool), ("any",))
        red = self.choice([None, "'mean'", "'sum'"])
        kw = [("reduction", Lit(red))] if red else []
        n = _numel(x.shape)
        if loss == "mse_loss":
            y = self.partner(x, depth, pool, same=True)
            if y is None:
                return None
            y = self.prep(y, ("any",))
            m = (x.mag + y.mag) ** 2 * (n if red == "'sum'" else 1)
            return self.call("mse_loss", [x, y], kw).set((), 0, m, self.deps_of(x, y), self.rg_of(x, y))
        if loss == "binary_cross_entropy":
            x = self.prep(x, ("bound", 3))  # (a saturated sigmoid: PyTorch loses digits)
            p = self.unary("sigmoid", x, 0, 1)
            vals = self.d(st.lists(st.sampled_from([0.0, 0.25, 1.0]), min_size=n, max_size=n))
            t = TensorLit(
                np.reshape(vals, x.shape).tolist() if x.shape else vals[0],
                "bare" if self.flavour == "math" else "torch",
            ).set(x.shape, 0, 1)
            return self.call("binary_cross_entropy", [p, t], kw).set(
                (), 0, 100 * (n if red == "'sum'" else 1), self.deps_of(p), self.rg_of(p)
            )
        if loss == "binary_cross_entropy_with_logits":  # (1 - t) x - log_sigmoid(x)
            vals = self.d(st.lists(st.sampled_from([0.0, 0.25, 1.0]), min_size=n, max_size=n))
            t = TensorLit(
                np.reshape(vals, x.shape).tolist() if x.shape else vals[0],
                "bare" if self.flavour == "math" else "torch",
            ).set(x.shape, 0, 1)
            return self.call(loss, [x, t], kw).set(
                (), 0, (x.mag + 1) * (n if red == "'sum'" else 1), self.deps_of(x), self.rg_of(x)
            )
        # cross_entropy: logits (N, C) with class indices (N,), or (C,) with one index
        if len(x.shape) == 2:
            target = [self.d(st.integers(0, x.shape[1] - 1)) for _ in range(x.shape[0])]
        elif len(x.shape) == 1:
            target = self.d(st.integers(0, x.shape[0] - 1))
        else:
            return None
        t = TensorLit(target, "bare" if self.flavour == "math" else "torch", ints=True).set(
            np.shape(target), 0, 3
        )
        hi = (x.hi - x.lo + math.log(x.shape[-1])) * (
            x.shape[0] if red == "'sum'" and len(x.shape) == 2 else 1
        )
        if loss == "nll_loss":  # of log-probabilities
            dim = Lit(str(len(x.shape) - 1))
            lp = self.call("log_softmax", [x, dim]).set(
                x.shape, x.lo - x.hi - 3, 0, self.deps_of(x), self.rg_of(x)
            )
            return self.call("nll_loss", [lp, t], kw).set((), 0, hi, self.deps_of(x), self.rg_of(x))
        return self.call("cross_entropy", [x, t], kw).set((), 0, hi, self.deps_of(x), self.rg_of(x))


def _literal(shape, values):
    return np.reshape(values, shape).tolist() if shape else values[0]


# leaf values: mostly exact binary fractions (0, 1, -0.5 included: kinks and ties are where
# PyTorch's conventions show), sometimes any float in [-3, 3]
values_st = st.one_of(
    st.integers(-40, 40).map(lambda k: k / 16),
    st.floats(-3, 3, allow_nan=False, allow_subnormal=False).map(lambda v: round(v, 6) + 0.0),
)
# for finite differences: away from 0, whole numbers and halves (where autograd picks one
# side of a kink, or a removable one as in abs(x)**2, and differences cannot tell)
smooth_values_st = st.integers(-300, 300).map(lambda k: k / 100 + 0.003)


@st.composite
def programs(
    draw,
    flavour=None,
    errors=True,
    fd_safe=False,
    avoid=frozenset(),
    values=None,
    focus=None,
    dtype=None,
    shapes=None,
    families=None,
):
    """A random Program (see the module docstring). `values` draws leaf values (default
    `values_st`). `dtype` ("float32", "float64") asks for that default dtype (a math-flavour
    program is float64 whatever is asked: then the flavour is one of the other two when
    float32 is asked). `shapes` are the leaves' and the constant's shapes (default SHAPES;
    `[()]` for scalar scripts) and `families` the expression families drawn (default all; see
    _Gen.expr). `focus` names an op (of FAMILY_OF, an alias, or "manual_seed") that the
    first statement uses. `errors=False` leaves out the plans and statements meant to
    fail; `fd_safe=True` also leaves out what finite differences cannot check (in-place
    ops on intermediates, `detach()` inside expressions). `avoid` names known divergences
    not to generate:

      "no_grad_view"   a view, made under no_grad, of a tensor that requires grad
                       (PyTorch says it requires grad too)
    """
    canonical = CANONICAL.get(focus, focus)
    if canonical in ("view", "expand") or dtype == "float32":  # tensor methods only; float32
        flavour = flavour or draw(st.sampled_from(["torch", "mixed"]))
    flavour = flavour or draw(st.sampled_from(["math", "torch", "mixed"]))
    if flavour == "math":
        dtype = "float64"
    elif dtype is None:
        dtype = "float64" if draw(st.integers(0, 4)) == 0 else "float32"
    values_st_ = values if values is not None else values_st
    g = _Gen(draw, flavour, errors, fd_safe, frozenset(avoid))
    g.families = families
    shapes = shapes or SHAPES
    L = g.lines = _Lines()
    # header: line 1-2 (kept as comments in the math flavour so lines stay aligned; its
    # program is run in float64)
    if flavour == "math":
        L.add("# math flavour", "import torch")
        L.add("# (no imports)", "import torch.nn.functional as F")
    else:
        L.add(
            "import torch" if dtype == "float32" else "import torch; torch.set_default_dtype(torch.float64)"
        )
        L.add("import torch.nn.functional as F")

    leaves = []
    for i in range(draw(st.integers(1, 3))):
        name = NAMES[i]
        shape = (
            FOCUS_SHAPE[canonical] if i == 0 and canonical in FOCUS_SHAPE else draw(st.sampled_from(shapes))
        )
        vals = draw(st.lists(values_st_, min_size=_numel(shape), max_size=_numel(shape)))
        value = _literal(shape, vals)
        leaves.append(Leaf(name, shape, value))
        lit = _nested(value)
        prog = f"{name} = torch.tensor({lit}, requires_grad=True)"
        if flavour == "math":  # a bare literal: a variable (math flavour only)
            if g.chance(5):  # whole numbers without the point
                lit = _nested(value).replace(".0,", ",").replace(".0]", "]")
                lit = lit[:-2] if lit.endswith(".0") else lit
            L.add(f"{name} = {lit}", prog)
        elif g.chance(4):
            L.add(prog)
        else:
            extra = ", dtype=torch.float64" if g.chance(2) else ""
            L.add(
                f"{name} = torch.tensor({lit}{extra}, requires_grad=True)",
                f"{name} = torch.tensor({lit}{extra}, requires_grad=True)",
            )
        arr = np.asarray(value, dtype=float)
        g.pool.append(Name(name).set(shape, arr.min(), arr.max(), {name}, True))
        g.pool[-1].leafish = True
    if draw(st.integers(0, 3)) == 0:  # a constant tensor (requires_grad=False)
        shape = draw(st.sampled_from(shapes[1:] or shapes))
        vals = draw(st.lists(values_st_, min_size=_numel(shape), max_size=_numel(shape)))
        value = _literal(shape, vals)
        t = TensorLit(value, "bare" if flavour == "math" else "torch")
        L.add(f"k = {t.text(False)}", f"k = {t.text(True)}")
        arr = np.asarray(value, dtype=float)
        g.pool.append(Name("k").set(shape, arr.min(), arr.max(), (), False))

    pinned, retained = [], []
    if focus == "manual_seed":
        L.add("manual_seed(0)" if flavour == "math" else "torch.manual_seed(0)", "torch.manual_seed(0)")
    elif focus is not None:  # the first statement uses the op
        for _ in range(8):
            g.focus = focus
            e = g.expr(draw(st.integers(1, 2)))
            if g.focus is None:
                break
        g.focus = g.alias_wanted = None
        name = g.fresh()
        L.stmt(name, e)
        g.pool.append(Name(name).set(e.shape, e.lo, e.hi, e.deps, e.rg).bound_to(e))
    inplace_done = False
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(
            st.sampled_from(["assign"] * 6 + ["print", "print", "no_grad", "detach", "loop", "inplace"])
        )
        if kind == "assign":
            depth = draw(st.integers(1, 3))
            e = g.expr(depth)
            name = g.fresh()
            L.stmt(name, e)
            g.pool.append(Name(name).set(e.shape, e.lo, e.hi, e.deps, e.rg).bound_to(e))
            if e.rg and draw(st.integers(0, 3)) == 0:
                L.add(f"{name}.retain_grad()")
                retained.append(name)
            elif errors and not e.rg and g.rare(10):
                L.add(
                    f"{name}.retain_grad()"
                )  # RuntimeError: can't retain_grad on Tensor that has requires_grad=False
        elif kind == "print":
            x = draw(st.sampled_from(g.pool))
            k = draw(st.integers(0, 4))
            if (
                k == 0
                or not x.rg
                or x.name in [lf.name for lf in leaves]
                or (x.leafish and k in (1, 4) and not errors)
            ):  # (None.name(): AttributeError)
                L.add(f"print({x.name})")
            elif k == 1:
                L.add(f"print({x.name}.grad_fn.name())")
            elif k == 2:
                L.add(f"print(type({x.name}.grad_fn).__name__, {x.name}.requires_grad, {x.name}.is_leaf)")
            elif k == 3:
                L.add(f"print({x.name}.shape, {x.name}.dim())")
            else:
                L.add(f"print([type(f).__name__ for f, i in {x.name}.grad_fn.next_functions])")
        elif kind == "no_grad":
            head = "with no_grad():" if flavour == "math" else "with torch.no_grad():"
            L.add(head, "with torch.no_grad():")
            g.grad_enabled = False
            e = g.no_grad_safe(g.expr(draw(st.integers(1, 2))))
            g.grad_enabled = True
            name = g.fresh("n")
            L.stmt(name, e, indent=1)
            if draw(st.booleans()):
                L.add(f"print({name}.requires_grad)", indent=1)
            g.pool.append(Name(name).set(e.shape, e.lo, e.hi, (), False).bound_to(e))
            pinned.append(name)
        elif kind == "detach":
            x = draw(st.sampled_from(g.pool))
            name = g.fresh("d")
            e = g.call("detach", [x]).set(x.shape, x.lo, x.hi)
            L.stmt(name, e)
            e.alias = x.alias
            g.pool.append(Name(name).set(x.shape, x.lo, x.hi, (), False).bound_to(e))
            pinned.append(name)
        elif kind == "loop":
            # s = seed; for i in range(N): s = s * c + body   (body does not use s)
            seed = g.prep(draw(st.sampled_from(g.pool)), ("any",))
            body = g.prep(g.expr(draw(st.integers(0, 2))), ("any",))
            if _broadcast(seed.shape, body.shape) is None:
                continue
            n = draw(st.integers(1, 3))
            c = draw(st.sampled_from([1, 0.5, -1]))
            use_i = draw(st.booleans())
            name = g.fresh("s")
            L.stmt(name, seed)
            L.add("for i in range(%d):" % n)
            term = Bin("*", Name("i"), body) if use_i else body
            step = Bin("+", Bin("*", Name(name), Num(c)), term) if c != 1 else Bin("+", Name(name), term)
            L.stmt(name, step, indent=1)
            shape = _broadcast(seed.shape, body.shape)
            m = seed.mag + n * body.mag * (n if use_i else 1)
            deps = seed.deps | body.deps
            g.pool.append(Name(name).set(shape, -m, m, deps, seed.rg or body.rg))
        elif kind == "inplace" and not fd_safe and not inplace_done:
            x = draw(st.sampled_from(g.pool))
            if x.leafish and x.rg and not (errors and g.rare(4)):
                continue  # (a leaf that requires grad: PyTorch's error, now and then)
            inplace_done = True
            ops = {
                "mul_": (f"{x.name}.mul_(2.0)", lambda lo, hi: (2 * lo, 2 * hi)),
                "add_": (f"{x.name}.add_(1.5)", lambda lo, hi: (lo + 1.5, hi + 1.5)),
                "+=": (f"{x.name} += 1.5", lambda lo, hi: (lo + 1.5, hi + 1.5)),
                "*=": (f"{x.name} *= 0.5", lambda lo, hi: (min(0.5 * lo, lo), max(0.5 * hi, hi))),
                "sin_": (f"{x.name}.sin_()", lambda lo, hi: (-1.0, 1.0)),
            }
            if x.mag <= 4:
                ops["exp_"] = (f"{x.name}.exp_()", lambda lo, hi: (math.exp(lo), math.exp(hi)))
            if x.shape:
                ops["setitem"] = (f"{x.name}[0] = 2.0", lambda lo, hi: (min(lo, 2.0), max(hi, 2.0)))
            text, iv = ops[draw(st.sampled_from(sorted(ops)))]
            L.add(text)
            # the value changed (and so did any tensor sharing its memory: keep it loose)
            x.lo, x.hi = iv(x.lo, x.hi)
            x.lo, x.hi = min(x.lo, -10.0), max(x.hi, 10.0)

    # the target
    live = [p for p in g.pool if p.rg]
    if not live:
        live = g.pool
    if errors and g.rare(10):  # a plan meant to fail
        plan_draw = draw(
            st.sampled_from(["bad_nonscalar", "bad_shape", "unused", "broadcast", "view_t", "nograd_target"])
        )
    else:
        plan_draw = draw(
            st.sampled_from(
                ["backward"] * 3
                + ["repeat"] * 2
                + ["inputs"] * 2
                + ["grad"] * 2
                + ["create_grad"] * 2
                + ["create_backward"] * 2
            )
        )
    scalar = draw(st.integers(0, 2)) > 0 and plan_draw != "bad_nonscalar"
    base = g.expr(draw(st.integers(0, 2)), live)
    if not base.rg:
        base = draw(st.sampled_from(live))
    base = g.prep(base, ("any",))
    if scalar and base.shape:
        fn = draw(st.sampled_from(["sum", "mean", "sumsq"]))
        if fn == "sumsq":
            sq = Bin("**", base, Num(2), caret=flavour != "torch").set(
                base.shape, *_sq_iv(base.lo, base.hi), base.deps, base.rg
            )
            out = g.call("sum", [sq]).set((), 0, 1e9, base.deps, base.rg)
        else:
            out = g.call(fn, [base]).set((), -1e9, 1e9, base.deps, base.rg)
    elif not scalar and not base.shape:
        out = g.mul(base, 1.0) if False else base
        scalar = True
    else:
        out = base
    if plan_draw == "nograd_target":
        L.add("with no_grad():" if flavour == "math" else "with torch.no_grad():", "with torch.no_grad():")
        L.stmt("out", g.no_grad_safe(out), indent=1)
    elif plan_draw == "broadcast":
        bad = [p for p in g.pool if _broadcast(p.shape, out.shape) is None]
        if bad:
            other = draw(st.sampled_from(bad))
            L.stmt("out", Bin("+", out, other))
        else:
            L.stmt("out", out)
    elif (
        plan_draw == "view_t"
        and flavour != "math"
        and any(len(p.shape) == 2 and p.shape[0] > 1 and p.shape[1] > 1 for p in g.pool)
    ):
        m = draw(
            st.sampled_from([p for p in g.pool if len(p.shape) == 2 and p.shape[0] > 1 and p.shape[1] > 1])
        )
        L.add(f"out = {m.name}.t().view(-1)")
    else:
        L.stmt("out", out)
    forward = L.n
    out_shape = out.shape
    leaf_names = [lf.name for lf in leaves]
    g.pool.append(Name("out").set(out.shape, out.lo, out.hi, out.deps, out.rg).bound_to(out))

    # the gradient for a non-scalar target
    gradient = None
    if out_shape:
        gvals = draw(
            st.lists(
                st.sampled_from([1.0, 0.5, -1.0, 2.0, 0.25]),
                min_size=_numel(out_shape),
                max_size=_numel(out_shape),
            )
        )
        gradient = _literal(out_shape, gvals)
    gshape = out_shape
    if plan_draw == "bad_shape":
        gshape = draw(
            st.sampled_from(
                [s for s in SHAPES if s != out_shape and _numel(s) != _numel(out_shape)] or [(7,)]
            )
        )
        gradient = _literal(gshape, [1.0] * _numel(gshape))
    g_lit = None if gradient is None else TensorLit(gradient, "bare" if flavour == "math" else "torch")

    def gtext(py):
        return None if g_lit is None else g_lit.text(py)

    calls = []  # (line, coefficient of dF/dleaf the call adds)
    fd = {"calls": calls, "named": {}, "second": None, "inputs": None}
    plan = plan_draw

    def backward_line(retain=None, create=False, inputs=None):
        parts_s, parts_p = [], []
        if gradient is not None and plan != "bad_nonscalar":
            parts_s.append(gtext(False))
            parts_p.append(gtext(True))
        for k, v in (("retain_graph", retain), ("create_graph", create or None)):
            if v is not None:
                parts_s.append(f"{k}={v}")
                parts_p.append(f"{k}={v}")
        if inputs is not None:
            parts_s.append(f"inputs=[{', '.join(inputs)}]")
            parts_p.append(f"inputs=[{', '.join(inputs)}]")
        style = draw(st.integers(0, 3))
        if style == 0 and flavour != "math":  # torch.autograd.backward(out, ...)
            s = ", ".join(["out"] + [p.replace("inputs=", "inputs=") for p in parts_s]).replace(
                gtext(False) or "\0", f"grad_tensors={gtext(False)}"
            )
            p = ", ".join(["out"] + parts_p).replace(gtext(True) or "\0", f"grad_tensors={gtext(True)}")
            L.add(f"torch.autograd.backward({s})", f"torch.autograd.backward({p})")
        elif style == 1 and flavour == "math":
            s = ", ".join(["out"] + parts_s).replace(gtext(False) or "\0", f"grad_tensors={gtext(False)}")
            p = ", ".join(["out"] + parts_p).replace(gtext(True) or "\0", f"grad_tensors={gtext(True)}")
            L.add(f"backward({s})", f"torch.autograd.backward({p})")
        else:
            L.add(f"out.backward({', '.join(parts_s)})", f"out.backward({', '.join(parts_p)})")
        return L.n

    if plan in ("backward", "bad_nonscalar", "bad_shape", "broadcast", "view_t", "nograd_target"):
        calls.append((backward_line(), 1))
    elif plan == "repeat":
        n = draw(st.integers(2, 3))
        for i in range(n):
            retain = draw(st.sampled_from([True, None, False])) if i < n - 1 else None
            calls.append((backward_line(retain=retain), 1))
            if i < n - 1 and draw(st.integers(0, 3)) == 0:
                lf = draw(st.sampled_from(leaf_names))
                L.add(f"print({lf}.grad)")
    elif plan == "inputs":
        chosen = sorted(
            set(draw(st.lists(st.sampled_from(leaf_names), min_size=1, max_size=len(leaf_names))))
        )
        fd["inputs"] = chosen
        calls.append((backward_line(inputs=chosen), 1))
    elif plan in ("grad", "unused", "create_grad"):
        reach = [n for n in leaf_names if n in out.deps] or leaf_names[:1]
        if plan == "unused":
            unreached = [n for n in leaf_names if n not in out.deps]
            chosen = reach[:1] + unreached[:1]
            allow = False
        else:
            chosen = sorted(set(draw(st.lists(st.sampled_from(reach), min_size=1, max_size=len(reach)))))
            allow = draw(st.booleans()) if plan == "grad" else None
            if plan == "grad" and draw(st.integers(0, 3)) == 0 and len(chosen) < len(leaf_names):
                chosen = chosen + [n for n in leaf_names if n not in chosen][:1]
                allow = True
        targets = ", ".join(f"g{n}" for n in chosen)
        args_s, args_p = ["out", f"[{', '.join(chosen)}]"], ["out", f"[{', '.join(chosen)}]"]
        if gradient is not None:
            args_s.append(gtext(False) if draw(st.booleans()) else f"grad_outputs={gtext(False)}")
            args_p.append(f"grad_outputs={gtext(True)}")
        if plan == "create_grad":
            args_s.append("create_graph=True")
            args_p.append("create_graph=True")
        elif draw(st.integers(0, 2)) == 0:
            args_s.append("retain_graph=True")
            args_p.append("retain_graph=True")
        if allow is not None and (allow or draw(st.booleans())):
            args_s.append(f"allow_unused={allow}")
            args_p.append(f"allow_unused={allow}")
        head = (
            "grad"
            if flavour == "math" or (flavour == "mixed" and draw(st.booleans()))
            else "torch.autograd.grad"
        )
        L.add(
            f"{targets}, = {head}({', '.join(args_s)})"
            if len(chosen) == 1
            else f"{targets} = {head}({', '.join(args_s)})",
            f"{targets}, = torch.autograd.grad({', '.join(args_p)})"
            if len(chosen) == 1
            else f"{targets} = torch.autograd.grad({', '.join(args_p)})",
        )
        for n in chosen:
            fd["named"][f"g{n}"] = n
            L.add(f"print(g{n})")
        if plan == "create_grad":
            # second order: s = sum of c * g.sum() and d * (g * g).sum() over the gradients
            used = [n for n in chosen if n in out.deps]
            terms = []
            for n in used:
                c = draw(st.sampled_from([1.0, 0.5, -2.0]))
                sq = draw(st.booleans())
                terms.append((n, c, sq))
            if terms:
                text = " + ".join(
                    (f"({c} * (g{n} * g{n}).sum())" if sq else f"({c} * g{n}.sum())") for n, c, sq in terms
                )
                L.add(f"s2 = {text}")
                L.add("print(s2)")
                if draw(st.booleans()):
                    L.add("s2.backward()")
                    fd["second"] = {"terms": terms, "how": "backward", "line": L.n}
                else:
                    rest = ", ".join(f"h{n}" for n in leaf_names)
                    L.add(
                        f"{rest}{',' if len(leaf_names) == 1 else ''} = "
                        + ("grad" if flavour == "math" else "torch.autograd.grad")
                        + f"(s2, [{', '.join(leaf_names)}], allow_unused=True)",
                        f"{rest}{',' if len(leaf_names) == 1 else ''} = "
                        f"torch.autograd.grad(s2, [{', '.join(leaf_names)}], allow_unused=True)",
                    )
                    fd["second"] = {"terms": terms, "how": "grad", "line": L.n}
                    for n in leaf_names:
                        L.add(f"print(h{n})")
    elif plan == "create_backward":
        calls.append((backward_line(create=True), 1))
        used = [n for n in leaf_names if n in out.deps]
        if used:
            n = draw(st.sampled_from(used))
            L.add(f"print({n}.grad)")
            L.add(f"print({n}.grad.requires_grad)")
            c = draw(st.sampled_from([1.0, -0.5]))
            L.add(f"s2 = ({n}.grad * {c}).sum()")
            how = draw(st.sampled_from(["grad", "backward"]))
            if how == "grad":
                rest = ", ".join(f"h{m}" for m in leaf_names)
                head = "grad" if flavour == "math" else "torch.autograd.grad"
                L.add(
                    f"{rest}{',' if len(leaf_names) == 1 else ''} = {head}(s2, "
                    f"[{', '.join(leaf_names)}], allow_unused=True)",
                    f"{rest}{',' if len(leaf_names) == 1 else ''} = torch.autograd.grad(s2, "
                    f"[{', '.join(leaf_names)}], allow_unused=True)",
                )
                fd["second"] = {"terms": [(n, c, False)], "how": how, "line": L.n}
                for m in leaf_names:
                    L.add(f"print(h{m})")
            else:
                L.add("s2.backward()")
                fd["second"] = {"terms": [(n, c, False)], "how": how, "line": L.n}

    # what a user looks at afterwards
    for lf in leaf_names:
        L.add(f"print({lf}.grad)")
    for r in retained:
        L.add(f"print({r}.grad)")
    if errors and g.rare(5):  # .grad of a non-leaf that did not retain it: None, with PyTorch's warning
        nonleaf = [p.name for p in g.pool if p.rg and p.name not in leaf_names and p.name not in retained]
        if nonleaf:
            L.add(f"print({draw(st.sampled_from(nonleaf))}.grad)")
    # a gradient step on a leaf the target depends on (else its .grad is None: PyTorch's
    # TypeError, now and then)
    reached = [n for n in leaf_names if n in out.deps]
    lf = draw(st.sampled_from(reached if reached and not (errors and g.rare(5)) else leaf_names))
    if plan in ("backward", "repeat") and not fd_safe and draw(st.integers(0, 3)) == 0:
        # a gradient step, then zero the gradient
        L.add("with no_grad():" if flavour == "math" else "with torch.no_grad():", "with torch.no_grad():")
        L.add(f"{lf} -= 0.1 * {lf}.grad", indent=1)
        L.add(f"{lf}.grad.zero_()")
        L.add(f"print({lf}, {lf}.grad)")

    expect_error = plan in ("bad_nonscalar", "bad_shape", "unused", "broadcast", "view_t", "nograd_target")
    return Program(
        flavour=flavour,
        script="\n".join(L.script) + "\n",
        torch_program="\n".join(L.program) + "\n",
        forward_script="\n".join(L.script[:forward]) + "\n",
        leaves=leaves,
        pinned=pinned,
        target="out",
        gradient=gradient if gshape == out_shape else None,
        fd=fd,
        plan=plan,
        expect_error=expect_error,
        dtype=dtype,
    )


# =============================================================================================
# The Python of autograd tutorials (issue 11, item 2; section kept by the `pylang` work, apart
# from the op families above): `python_programs()` draws scripts that use classes (with
# inheritance, super(), class attributes, special methods, staticmethod/classmethod/property),
# lambdas, dicts, decorators (the script's own and @torch.no_grad()), starred unpacking,
# exceptions, and PyTorch's keyword names (`input=`, `other=`, `size=`, `exponent=`, `out=`).
# The script is the very text Python runs: `PyProgram.script` is both programs. The code sits
# in `main()` (module-level number literals are variables in diffcli's math flavour), and every
# value is a quarter-integer combined by + - * with quarter-integer constants, so it is exact
# in float32 and float64 alike and prints the same under either default dtype.
# =============================================================================================


@dataclass
class PyProgram:
    script: str
    blocks: list
    expect_error: bool

    def __str__(self):
        return f"--- script (blocks {', '.join(self.blocks)}) ---\n{self.script}"


_PY_CONSTS = [0.5, 1.0, 2.0, -1.5, 0.25, -0.75]
PY_BLOCKS = ["class", "lambda", "dict", "decorator", "keywords", "unpack", "exception"]


def _quarters(draw, n):
    return [draw(st.integers(-8, 8)) / 4 for _ in range(n)]


def _py_class(draw, defs, body, terms):
    c = draw(st.sampled_from(_PY_CONSTS))
    static, classm, prop, sub, call = (draw(st.booleans()) for _ in range(5))
    defs += [
        "class Affine:",
        "    calls = 0",
        "    def __init__(self, scale, shift=0.5, *, name='affine'):",
        "        self.scale = scale",
        "        self.shift = shift",
        "        self.name = name",
        "    def apply(self, t):",
        "        Affine.calls += 1",
        "        return t * self.scale + self.shift",
        "    def __repr__(self):",
        "        return f'{type(self).__name__}({self.scale}, {self.shift}, {self.name!r})'",
    ]
    if call:
        defs += ["    def __call__(self, t):", "        return self.apply(t)"]
    if static:
        defs += ["    @staticmethod", "    def double(v):", "        return v * 2"]
    if classm:
        defs += ["    @classmethod", "    def unit(cls, name='unit'):", "        return cls(1.0, name=name)"]
    if prop:
        defs += ["    @property", "    def half(self):", "        return self.scale * 0.5"]
    cls = "Affine"
    if sub:
        defs += [
            "class Scaled(Affine):",
            "    def __init__(self, scale):",
            "        super().__init__(scale, shift=0.25, name='scaled')",
            "    def apply(self, t):",
            "        return super().apply(t) * 2",
        ]
        cls = "Scaled"
    body.append(f"m = {cls}({c})" if sub else f"m = Affine({c}, name='m')")
    body.append("y_cls = m(w)" if call else "y_cls = m.apply(w)")
    body.append("print(m, type(m).__name__, Affine.calls, isinstance(m, Affine), m.scale)")
    if static:
        body.append(f"print(Affine.double({c}), m.double(w).requires_grad)")
    if classm:
        body.append("u = Affine.unit()")
        body.append("print(u, u.apply(x))")
    if prop:
        body.append("print(m.half)")
    terms.append("y_cls")


def _py_lambda(draw, defs, body, terms):
    c, d = draw(st.sampled_from(_PY_CONSTS)), draw(st.sampled_from(_PY_CONSTS))
    nums = draw(st.lists(st.integers(-5, 5), min_size=1, max_size=4))
    body += [
        f"f = lambda t, k={c}: t * k + {d}",
        "g = lambda *ts, scale=1.0: sum(ts) * scale",
        f"y_lam = g(f(w), f(x, k={d}), scale={c})",
        f"print(sorted({nums}, key=lambda v: -v), list(map(lambda v: v * 2, {nums})))",
        f"print(max({nums}, key=lambda v: abs(v - 1)), (lambda: 'called')())",
    ]
    terms.append("y_lam")


def _py_dict(draw, defs, body, terms):
    c = draw(st.sampled_from(_PY_CONSTS))
    body += [
        "params = {'w': w, 'x': x}",
        "params.setdefault('c', torch.full_like(w, 0.5))",
        f"acc = {{name: t * {c} for name, t in params.items()}}",
        "for name, t in acc.items():",
        "    print(name, t.shape, t.requires_grad)",
        "print(sorted(params), 'w' in params, params.get('q', 'none'), len(acc), list(params.keys()))",
        "y_dict = acc['w'] + acc.pop('x') + params['c']",
        "print(len(acc), {**{'a': 1}, 'b': [2]})",
    ]
    terms.append("y_dict")


def _py_decorator(draw, defs, body, terms):
    c = draw(st.sampled_from(_PY_CONSTS))
    grad_deco = draw(st.sampled_from(["@torch.no_grad()", "@torch.no_grad", "@torch.enable_grad()"]))
    defs += [
        "def counted(fn):",
        "    calls = []",
        "    def wrapper(*args, **kwargs):",
        "        calls.append(len(args) + len(kwargs))",
        "        print('call', fn.__name__, len(calls))",
        "        return fn(*args, **kwargs)",
        "    return wrapper",
        "@counted",
        "def combine(a, b, *, alpha=1.0):",
        "    return a + alpha * b",
        grad_deco,
        "def frozen(t):",
        "    return t * 2",
    ]
    body += [
        f"y_dec = combine(w, x, alpha={c})",
        "y_dec = combine(y_dec, b=w)",
        "z = frozen(w)",
        "print(z, z.requires_grad, combine.__name__, frozen.__name__)",
    ]
    terms.append("y_dec")


def _py_keywords(draw, defs, body, terms, n):
    c, d = draw(st.sampled_from(_PY_CONSTS)), draw(st.sampled_from(_PY_CONSTS))
    body += [
        f"y_kw = torch.add(input=w, other=x, alpha={c})",
        f"y_kw = torch.mul(input=y_kw, other={d})",
        "s_kw = torch.sum(input=y_kw, dim=0)",
        "p_kw = w.pow(exponent=2)",
        f"o = torch.zeros(size=({n},))",
        "with torch.no_grad():",
        f"    torch.add(x, {c}, out=o)",
        "print(o, torch.clamp(input=x, min=-0.5, max=0.5), x.add(other=x, alpha=2))",
        "print(torch.matmul(input=x, other=x), torch.ones(size=(1, 2)).shape)",
    ]
    terms += ["s_kw", "p_kw"]


def _py_unpack(draw, defs, body, terms):
    c = draw(st.sampled_from(_PY_CONSTS))
    body += [
        f"first, *rest = [w * {c}, x, w]",
        "a, (b, e) = rest[0], (rest[1], 1)",
        "print(len(rest), [t.shape for t in rest], e, (*rest[:1], 'end')[-1])",
        "for i, (s, t) in enumerate(zip(['p', 'q'], rest)):",
        "    print(i, s, t.requires_grad)",
        "y_unp = first + b",
    ]
    terms.append("y_unp")


def _py_exception(draw, defs, body, terms):
    msg = draw(st.sampled_from(["bad value", "negative", "x"]))
    defs += ["class ShapeError(ValueError):", "    pass"]
    body += [
        "try:",
        f"    raise ShapeError('{msg}')",
        "except (KeyError, ValueError) as err:",
        "    print(type(err).__name__, err, isinstance(err, ValueError))",
        "try:",
        "    {}['missing']",
        "except KeyError as err:",
        "    print('missing', err, repr(err))",
    ]


_PY_ERRORS = [
    "{'a': 1}['b']",
    "(lambda a, b: a)(1)",
    "raise RuntimeError('stop')",
    "torch.matmul(w, input=w)",
    "w.add_(1)",
    "Affine(1.0, 2.0, 3.0)",
    "combine(w)",
    "torch.add(w, w, out=torch.zeros(1))",
]


@st.composite
def python_programs(draw, errors=True, require=None):
    """A random PyProgram (see the banner above); `require` names a block it must hold."""
    n = draw(st.integers(1, 3))
    defs, body, terms = [], [], []
    body.append(f"w = torch.tensor({_quarters(draw, n)}, requires_grad=True)")
    body.append(f"x = torch.tensor({_quarters(draw, n)})")
    blocks = draw(st.lists(st.sampled_from(PY_BLOCKS), min_size=1, max_size=5, unique=True))
    if require is not None and require not in blocks:
        blocks.insert(draw(st.integers(0, len(blocks))), require)
    for block in blocks:
        if block == "keywords":
            _py_keywords(draw, defs, body, terms, n)
        else:
            {
                "class": _py_class,
                "lambda": _py_lambda,
                "dict": _py_dict,
                "decorator": _py_decorator,
                "unpack": _py_unpack,
                "exception": _py_exception,
            }[block](draw, defs, body, terms)
    body.append("loss = " + (" + ".join(f"({t}).sum()" for t in terms) if terms else "(w * 1.0).sum()"))
    body += ["loss.backward()", "print(loss, w.grad, x.grad)"]
    expect_error = False
    if errors and draw(st.integers(0, 5)) == 3:  # (not the simplest draw: hypothesis starts at 0)
        usable = [
            e
            for e in _PY_ERRORS
            if ("Affine" not in e or "class" in blocks) and ("combine" not in e or "decorator" in blocks)
        ]
        body.append(draw(st.sampled_from(usable)))
        expect_error = True
    script = ["import torch", *defs, "def main():", *("    " + line for line in body), "main()"]
    return PyProgram("\n".join(script) + "\n", blocks, expect_error)


# ===============================================================================


# torch.autograd.functional and torch.func calls on random functions (issue 15).
# `functional_programs()` draws a FuncProgram: a PyTorch-flavour script (its own Python
# program) that defines a random function of one to three float64 tensors, as a `def` or a
# `lambda`, and binds `result` to one API called on it with random options; with
# errors=True, now and then a call PyTorch refuses (an argnum out of range, a v of the wrong
# shape, strict=True on an input the function does not use, a vector output to hessian...).
# =============================================================================================


@dataclass
class FuncProgram:
    script: str
    api: str
    expect_error: bool

    def __str__(self):
        return f"--- functional script ({self.api}) ---\n{self.script}"


_FUNC_UNARY = [
    "torch.sin({})",
    "torch.cos({})",
    "torch.tanh({})",
    "torch.sigmoid({})",
    "({} * {})",
    "torch.exp({} * 0.5)",
    "torch.nn.functional.softplus({})",
    "({} ** 3)",
]
_FUNC_BINARY = ["({} + {})", "({} - {})", "({} * {})"]


def _func_expr(draw, names, depth):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(names))
    if draw(st.booleans()):
        form = draw(st.sampled_from(_FUNC_UNARY))
        inner = _func_expr(draw, names, depth - 1)
        return form.format(*([inner] * form.count("{}")))
    form = draw(st.sampled_from(_FUNC_BINARY))
    return form.format(_func_expr(draw, names, depth - 1), _func_expr(draw, names, depth - 1))


_FUNC_APIS = [
    "jacobian",
    "hessian",
    "vjp",
    "jvp",
    "hvp",
    "vhp",
    "func.grad",
    "func.grad_and_value",
    "func.jacrev",
    "func.jacfwd",
    "func.hessian",
    "func.vjp",
    "func.jvp",
    "func.vmap",
]


@st.composite
def functional_programs(draw, errors=True, api=None):
    """A random FuncProgram (see the banner above); `api` fixes the API it calls."""
    n_in = draw(st.integers(1, 3))
    names = ["p", "q", "r"][:n_in]
    size = draw(st.sampled_from([(), (2,), (3,)]))
    values = {
        n: draw(st.lists(st.integers(-8, 8), min_size=_numel(size), max_size=_numel(size))) for n in names
    }
    lines = [
        "import torch",
        "import torch.func as func",
        "from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp",
    ]
    for n in names:
        v = [x / 8 for x in values[n]]
        lit = v[0] if size == () else v
        lines.append(f"{n} = torch.tensor({lit}, dtype=torch.float64)")
    api = api or draw(st.sampled_from(_FUNC_APIS))
    scalar = api in ("hessian", "hvp", "vhp", "func.grad", "func.grad_and_value", "func.hessian") or draw(
        st.booleans()
    )
    used = names if draw(st.integers(0, 4)) else names[:1]  # sometimes an input goes unused
    body = " + ".join(f"{_func_expr(draw, used, 3)}" for _ in range(draw(st.integers(1, 2))))
    ret = f"({body}).sum()" if scalar else body
    if size == () and not scalar:
        ret = f"{ret} * torch.ones(2, dtype=torch.float64)"
    args = ", ".join(names)
    if draw(st.booleans()):
        lines += [f"def f({args}):", f"    return {ret}"]
    else:
        lines.append(f"f = lambda {args}: {ret}")
    tup = f"({args},)"
    error = errors and draw(st.integers(0, 6)) == 3
    opt = {k: draw(st.booleans()) for k in ("create_graph", "strict", "vectorize")}
    kw = ", ".join(
        f"{k}={v}" for k, v in opt.items() if v and (k != "vectorize" or api in ("jacobian", "hessian"))
    )
    kw = (", " + kw) if kw else ""
    if api in ("jacobian", "hessian"):
        call = f"{api}(f, {tup}{kw})"
        if error:
            call = f"{api}(f, ({args}, 2.0){kw})"
    elif api in ("vjp", "jvp", "hvp", "vhp"):
        if api == "vjp":
            v = (
                "None"
                if scalar and size == () and not error
                else ("torch.ones(1, dtype=torch.float64)" if error else "torch.ones_like(f(" + args + "))")
            )
        else:
            v = "(" + ", ".join(f"torch.ones_like({n}) * 0.5" for n in names) + ",)"
            if error:
                v = "(torch.ones(5, dtype=torch.float64),)"
        kw = ", ".join(f"{k}={v}" for k, v in opt.items() if v and k != "vectorize")
        call = f"{api}(f, {tup}, {v}{', ' + kw if kw else ''})"
    elif api == "func.vmap":
        call = f"func.vmap(lambda t: f({', '.join(['t'] + names[1:])}))(torch.stack([{names[0]}, {names[0]} * 2]))"
        if error:
            call = f"func.vmap(f, in_dims=({', '.join(['0'] * (n_in + 1))},))({args})"
    elif api in ("func.vjp", "func.jvp"):
        if api == "func.vjp":
            call = f"func.vjp(f, {args})"
            lines.append(f"out, pull = {call}")
            call = "(out, pull(torch.ones_like(out)))" if not error else "pull((out, out))"
        else:
            tangents = "(" + ", ".join(f"torch.ones_like({n})" for n in names) + ",)"
            call = (
                f"func.jvp(f, {tup}, {tangents if not error else '(' + names[0] + ',) * ' + str(n_in + 1)})"
            )
    else:
        argnums = draw(st.sampled_from([0, n_in - 1, tuple(range(n_in)), -1]))
        if error:
            argnums = draw(st.sampled_from([n_in, (0, 0), ()]))
        has_aux = api in ("func.grad", "func.grad_and_value", "func.jacrev") and draw(st.booleans())
        fn = f"lambda {args}: (f({args}), {names[0]} * 2)" if has_aux else "f"
        call = f"{api}({fn}, argnums={argnums!r}{', has_aux=True' if has_aux else ''})({args})"
    lines.append(f"result = {call}")
    return FuncProgram("\n".join(lines) + "\n", api, error)


# Custom autograd Functions and hooks (issue 12) have a generator of their own, whose
# scripts are whole class definitions rather than statements over the op table:
from .autograd_gen import function_scripts  # noqa: E402,F401  (tests/lang/test_autograd_differential.py)

# --- tiny models: Linear + MSELoss + an optimizer, and numpy round trips (issue 12) -----------

_OPTIMIZERS = ("sgd", "sgd_momentum", "adam", "adamw")


@st.composite
def nn_programs(draw):
    """A PyTorch program (it is its own diffcli script): `nn.Linear(i, o)` trained with
    MSELoss and SGD (plain, momentum with dampening / nesterov / weight_decay) or Adam /
    AdamW (amsgrad, weight_decay) for a few steps on random data of a random batch size,
    printing each loss with `.item()` and the final parameters with `.tolist()`; then a
    numpy round trip (`np.random` seeded, `torch.from_numpy`, arithmetic on both sides,
    `.numpy()` sharing memory). Returns (script, optimizer kind). The data's targets are
    made with elementwise ops and a sum over the features only (no matrix product outside
    the Linear), sizes stay in the range where ATen's float32 products are reproduced
    (`nn_layers._exact`: the forward product and the weight gradient's)."""
    seed = draw(st.integers(0, 2**16))
    n, i, o = draw(
        st.tuples(st.integers(1, 40), st.integers(1, 7), st.integers(1, 4)).filter(
            lambda s: _exact("nt", s[0], s[1], s[2])
        )
    )
    kind = draw(st.sampled_from(_OPTIMIZERS))
    lr = draw(st.sampled_from([0.001, 0.01, 0.05, 0.1]))
    if kind == "sgd":
        opt = f"torch.optim.SGD(model.parameters(), lr={lr})"
    elif kind == "sgd_momentum":
        nesterov = draw(st.booleans())
        damp = 0 if nesterov else draw(st.sampled_from([0, 0.1, 0.5]))
        wd = draw(st.sampled_from([0, 0.01]))
        opt = (
            f"torch.optim.SGD(model.parameters(), lr={lr}, momentum={draw(st.sampled_from([0.5, 0.9]))}, "
            f"dampening={damp}, nesterov={nesterov}, weight_decay={wd})"
        )
    else:
        cls = "Adam" if kind == "adam" else "AdamW"
        opt = (
            f"torch.optim.{cls}(model.parameters(), lr={lr}, amsgrad={draw(st.booleans())}, "
            f"weight_decay={draw(st.sampled_from([0, 0.01]))})"
        )
    steps = draw(st.integers(1, 25))
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    script = f"""import torch
import torch.nn as nn
import numpy as np
torch.manual_seed({seed})
x = torch.randn({n}, {i})
coef = torch.randn({i})
y = (x * coef).sum(1, keepdim=True).repeat(1, {o}) + 0.1 * torch.randn({n}, {o})
model = nn.Linear({i}, {o})
loss_fn = nn.MSELoss()
optimizer = {opt}
for step in range({steps}):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    print(step, loss.item())
print(model.weight.tolist(), model.bias.tolist())
np.random.seed({seed})
a = np.random.randn({rows}, {cols}).astype(np.float32)
t = torch.from_numpy(a)
print(t * 2, a * 2)
t += 1
print(a.sum(), t.numpy() is not None, (t.numpy() - a).max())
b = model.weight.detach().numpy()
print(b.shape, b.dtype, torch.from_numpy(b + 1).sum().item())
"""
    return script, kind
