"""Random PyTorch-flavour programs (`import torch` first, float32 default dtype) that run
the same in Python + torch and in diffcli, for the differential tests of the engine's
semantics: values, dtypes and type promotion, printing, views, in-place ops and autograd.

`program(seed)` returns the text of one program: a few tensors made by `torch.tensor`
(float32 / float64 / int64 / bool, with negative zero, nan, inf, large and small
magnitudes), `torch.randn` after `torch.manual_seed`, `arange`, `linspace`, `full`; then
statements over them, each result printed one of the ways a tutorial prints it
(`print(x)`, `x.dtype`, `x.shape`, `x.grad_fn`, `x.item()`, `x.tolist()`, an f-string with
`:.4f`): arithmetic with Python scalars and 0-d tensors of other dtypes (`//`, `%`, `**`
with negative ints, comparisons), broadcasting, reductions with `dim` / `keepdim`, views
(`view`, `reshape`, `t`, `permute`, indexing, slicing with steps, boolean masks, fancy
indexing), in-place ops (and their version-counter errors), `backward`,
`torch.autograd.grad` with `create_graph`, `requires_grad_`, `detach`, `no_grad`,
`torch.set_printoptions`, long tensors (summarised past 1000 elements).

The generator keeps each tensor's dtype and shape (`_Var`) so that most statements are
valid; one that is not (an int tensor's `mean`, a shape that does not broadcast) is a
case too: torch's error type and message are compared. The generator needs neither torch
nor diffcli: the same seed gives the same program everywhere.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

FLOATS = ("float32", "float64")
ORDER = {"bool": 0, "int64": 1, "float32": 2, "float64": 3}

# literals: the usual, and what printing treats specially (whole, negative zero, sci mode)
FLOAT_POOL = (
    "0.0",
    "-0.0",
    "1.0",
    "-1.5",
    "2.5",
    "3.0",
    "0.1",
    "-7.25",
    "0.3333",
    "1e-05",
    "0.000123",
    "123456.0",
    "1e10",
    "-2.5e-08",
    "65504.0",
    "100.0",
)
SPECIAL = ("float('nan')", "float('inf')", "-float('inf')")
INT_POOL = ("0", "1", "-1", "2", "3", "-4", "7", "10", "-13", "100")
SCALARS = ("2", "-3", "0", "2.5", "-0.5", "1e-3", "True", "False", "1e6", "3")
SHAPES = ((), (1,), (3,), (4,), (2, 3), (3, 2), (1, 3), (2, 1), (2, 2, 3))

UNARY_FLOAT = (
    "sin",
    "cos",
    "exp",
    "tanh",
    "sigmoid",
    "abs",
    "neg",
    "sqrt",
    "log",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sign",
    "relu",
    "reciprocal",
    "square",
    "exp2",
    "expm1",
    "log1p",
    "rsqrt",
    "frac",
    "erf",
    "atan",
)
UNARY_ANY = ("abs", "neg", "sign", "square", "sin", "exp", "sqrt", "floor", "relu", "clone")
BINOPS = ("+", "-", "*", "/", "//", "%", "**", "<", "==", ">=", "!=")
REDUCTIONS = ("sum", "mean", "prod", "amax", "max", "min", "argmax", "argmin", "std", "var", "norm")
FUNCS2 = (
    "maximum",
    "minimum",
    "atan2",
    "fmod",
    "remainder",
    "pow",
    "add",
    "mul",
    "sub",
    "div",
    "true_divide",
)


@dataclass
class _Var:
    name: str
    dtype: str
    shape: tuple
    leaf_grad: bool = False  # a leaf that requires grad
    requires_grad: bool = False


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _promote(a: str, b: str) -> str:
    return a if ORDER[a] >= ORDER[b] else b


class _Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.lines = ["import torch"]
        self.vars: list[_Var] = []
        self.count = 0

    # --- helpers ----------------------------------------------------------------------
    def fresh(self) -> str:
        self.count += 1
        return f"v{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append(line)

    def pick(self, seq):
        return self.r.choice(seq)

    def var(self, pred=lambda v: True):
        cands = [v for v in self.vars if pred(v)]
        return self.r.choice(cands) if cands else None

    def literal(self, dtype: str, shape: tuple, special=False) -> str:
        n = _numel(shape)
        if dtype == "bool":
            vals = [self.pick(("True", "False")) for _ in range(n)]
        elif dtype == "int64":
            vals = [self.pick(INT_POOL) for _ in range(n)]
        else:
            pool = FLOAT_POOL + (SPECIAL if special else ())
            scale = self.r.random()
            if scale < 0.3:  # one magnitude: the printing of a homogeneous tensor
                pool = self.pick(
                    (("1.0", "2.0", "-3.0", "0.0"), ("1e-05", "2e-06", "-3.5e-07"), ("1e10", "2.5e12"))
                )
            vals = [self.pick(pool) for _ in range(n)]
        arr = np.array(vals, dtype=object).reshape(shape) if shape else vals[0]

        def text(a):
            if isinstance(a, np.ndarray):
                return "[" + ", ".join(text(x) for x in a) + "]"
            return a

        return text(arr)

    def show(self, v: _Var) -> None:
        """Print v one of the ways a tutorial does."""
        r = self.r.random()
        n = _numel(v.shape)
        if r < 0.45:
            self.emit(f"print({v.name})")
        elif r < 0.55:
            self.emit(f"print({v.name}.dtype, {v.name}.shape, {v.name}.requires_grad)")
        elif r < 0.62:
            self.emit(f"print({v.name}.grad_fn)")
        elif r < 0.72 and n == 1:
            self.emit(f"print({v.name}.item())")
        elif r < 0.8 and n == 1 and v.dtype in FLOATS:
            self.emit(f"print(f'{{{v.name}.item():.4f}}')")
        elif r < 0.9:
            self.emit(f"print({v.name}.tolist())")
        else:
            self.emit(f"print({v.name}, {v.name}.size(), {v.name}.dim())")

    def add(self, dtype, shape, expr, requires_grad=False, leaf_grad=False, show=True) -> _Var:
        name = self.fresh()
        self.emit(f"{name} = {expr}")
        v = _Var(name, dtype, tuple(shape), leaf_grad, requires_grad)
        self.vars.append(v)
        if show:
            self.show(v)
        return v

    # --- creation ---------------------------------------------------------------------
    def create(self) -> _Var:
        r = self.r.random()
        shape = self.pick(SHAPES)
        if r < 0.45:
            dtype = self.pick(("float32", "float32", "float64", "int64", "bool"))
            lit = self.literal(dtype, shape, special=self.r.random() < 0.15)
            kw = ""
            if dtype == "float64":
                kw = ", dtype=torch.float64"
            elif dtype == "int64" and self.r.random() < 0.3:
                kw = ", dtype=torch.long"
            grad = dtype in FLOATS and self.r.random() < 0.4
            if grad:
                kw += ", requires_grad=True"
            if (
                dtype in FLOATS
                and "." not in lit
                and "e" not in lit
                and "nan" not in lit
                and "inf" not in lit
            ):
                kw = kw if "dtype" in kw else ", dtype=torch.float32" + kw
            return self.add(dtype, shape, f"torch.tensor({lit}{kw})", grad, grad)
        if r < 0.6:
            self.emit(f"torch.manual_seed({self.r.randrange(100)})")
            dims = ", ".join(str(s) for s in shape) if shape else "()"
            dt = ", dtype=torch.float64" if self.r.random() < 0.25 else ""
            grad = self.r.random() < 0.4
            kw = ", requires_grad=True" if grad else ""
            fn = self.pick(("randn", "randn", "rand"))
            return self.add("float64" if dt else "float32", shape, f"torch.{fn}({dims}{dt}{kw})", grad, grad)
        if r < 0.72:
            n = self.pick((3, 4, 5, 6, 12))
            if self.r.random() < 0.5:
                return self.add("int64", (n,), f"torch.arange({n})")
            start = self.pick(("0.", "-1.5", "0.25", "1"))
            step = self.pick(("0.5", "0.1", "1.0", "0.3"))
            count = len(np.arange(float(start), float(start) + n * float(step) - 1e-9, float(step)))
            if count != n:
                return self.add("int64", (n,), f"torch.arange({n})")
            end = f"{float(start) + n * float(step) - float(step) / 2:g}"
            return self.add("float32", (n,), f"torch.arange({start}, {end}, {step})")
        if r < 0.82:
            n = self.pick((2, 3, 5, 7))
            a, b = self.pick(("0", "-1", "0.5")), self.pick(("1", "10", "3.5", "1e5"))
            return self.add("float32", (n,), f"torch.linspace({a}, {b}, {n})")
        if r < 0.9:
            fill = self.pick(("0.5", "2", "-1.25", "True", "7", "1e-9"))
            dtype = "bool" if fill == "True" else "int64" if fill in ("2", "7") else "float32"
            dims = ", ".join(str(s) for s in shape) if shape else ""
            return self.add(dtype, shape, f"torch.full(({dims}{',' if len(shape) == 1 else ''}), {fill})")
        # a long tensor: summarised with ... past 1000 elements
        n = self.pick((999, 1000, 1001, 1500, 2048))
        if self.r.random() < 0.5:
            return self.add("float32", (n,), f"torch.arange({n}) * 0.5")
        return self.add("float32", (2, n // 2), f"torch.linspace(-3, 3, {2 * (n // 2)}).view(2, {n // 2})")

    # --- statements ----------------------------------------------------------------------
    def binary(self):
        a = self.var()
        op = self.pick(BINOPS)
        r = self.r.random()
        if r < 0.4:
            b_text = self.pick(SCALARS)
            b_dtype = (
                "bool"
                if b_text in ("True", "False")
                else "int64"
                if "." not in b_text and "e" not in b_text
                else "f"
            )
            b_shape = ()
            b_dim0 = False
        else:
            b = self.var()
            b_text, b_dtype, b_shape, b_dim0 = b.name, b.dtype, b.shape, not b.shape
        if self.r.random() < 0.5:
            expr = f"{a.name} {op} {b_text}"
        else:
            expr = f"{b_text} {op} {a.name}"
        try:
            shape = np.broadcast_shapes(a.shape, b_shape)
        except ValueError:
            shape = a.shape
        if b_dtype == "f":  # a Python float: floats keep their dtype
            dtype = a.dtype if a.dtype in FLOATS else "float32"
        elif b_dim0 or (b_text in SCALARS):
            # a 0-d tensor or Python scalar only wins across categories
            cat = lambda d: 0 if d == "bool" else 1 if d == "int64" else 2  # noqa: E731
            dtype = a.dtype if cat(a.dtype) >= cat(b_dtype) else b_dtype
        else:
            dtype = _promote(a.dtype, b_dtype)
        if op == "/" and dtype in ("int64", "bool"):
            dtype = "float32"
        if op in ("<", "==", ">=", "!="):
            dtype = "bool"
        rg = a.requires_grad or any(v.requires_grad and v.name == b_text for v in self.vars)
        self.add(dtype, shape, expr, rg)

    def func2(self):
        a, b = self.var(), self.var()
        fn = self.pick(FUNCS2)
        other = b.name if self.r.random() < 0.7 else self.pick(SCALARS[:6])
        try:
            shape = np.broadcast_shapes(a.shape, b.shape if other == b.name else ())
        except ValueError:
            shape = a.shape
        dtype = _promote(a.dtype, b.dtype) if other == b.name else a.dtype
        if fn in ("atan2", "div", "true_divide") and dtype in ("int64", "bool"):
            dtype = "float32"
        self.add(
            dtype,
            shape,
            f"torch.{fn}({a.name}, {other})",
            a.requires_grad or (other == b.name and b.requires_grad),
        )

    def unary(self):
        a = self.var()
        fn = self.pick(UNARY_FLOAT if a.dtype in FLOATS else UNARY_ANY)
        dtype = a.dtype
        if fn in ("sin", "exp", "sqrt") and dtype in ("int64", "bool"):
            dtype = "float32"
        form = self.r.random()
        expr = f"torch.{fn}({a.name})" if form < 0.5 else f"{a.name}.{fn}()"
        self.add(dtype, a.shape, expr, a.requires_grad)

    def reduction(self):
        a = self.var()
        fn = self.pick(REDUCTIONS)
        nd = len(a.shape)
        shape: tuple = ()
        args = ""
        if nd and self.r.random() < 0.6:
            d = self.r.randrange(-nd, nd)
            keep = self.r.random() < 0.4
            args = f"dim={d}" if self.r.random() < 0.5 else f"{d}"
            if keep:
                args += ", keepdim=True"
            s = list(a.shape)
            if keep:
                s[d] = 1
            else:
                del s[d]
            shape = tuple(s)
        dtype = a.dtype
        if fn in ("sum", "prod") and dtype == "bool":
            dtype = "int64"
        if fn in ("argmax", "argmin"):
            dtype = "int64"
        name_expr = (
            f"{a.name}.{fn}({args})"
            if self.r.random() < 0.6
            else f"torch.{fn}({a.name}{', ' + args if args else ''})"
        )
        if fn in ("max", "min") and args:
            name_expr += ".values" if self.r.random() < 0.6 else ".indices"
            if name_expr.endswith("indices"):
                dtype = "int64"
        self.add(dtype, shape, name_expr, a.requires_grad and fn not in ("argmax", "argmin"))

    def view(self):
        a = self.var(lambda v: len(v.shape) >= 1 and 0 not in v.shape)
        if a is None:
            return self.create()
        shape = a.shape
        n = _numel(shape)
        r = self.r.random()
        if r < 0.15:
            new = self.pick([s for s in ((n,), (-1,), (1, n), (n, 1)) if True])
            shape2 = tuple(n if s == -1 else s for s in new)
            fn = self.pick(("view", "reshape"))
            dims = ", ".join(str(s) for s in new)
            return self.add(a.dtype, shape2, f"{a.name}.{fn}({dims})", a.requires_grad)
        if r < 0.25 and len(shape) <= 2:
            return self.add(a.dtype, shape[::-1], f"{a.name}.t()", a.requires_grad)
        if r < 0.32 and len(shape) >= 2:
            perm = list(range(len(shape)))
            self.r.shuffle(perm)
            return self.add(
                a.dtype,
                tuple(shape[p] for p in perm),
                f"{a.name}.permute({', '.join(map(str, perm))})",
                a.requires_grad,
            )
        if r < 0.38:
            return self.add(a.dtype, (1,) + shape, f"{a.name}.unsqueeze(0)", a.requires_grad)
        # indexing
        dummy = np.empty(shape)
        choices = []
        choices.append(f"{self.r.randrange(-shape[0], shape[0])}")
        choices.append("::2")
        choices.append("1:")
        choices.append("::-1" if False else "-2:")
        choices.append("...,  -1".replace("  ", " "))
        choices.append("[0, -1]")
        choices.append(f"{a.name} > 0")
        if len(shape) >= 2:
            choices.append(f":, {self.r.randrange(shape[1])}")
            choices.append("1:, ::2")
            choices.append("None, 0")
        idx = self.pick(choices)
        try:
            if idx == f"{a.name} > 0":
                shape2 = (None,)
            else:
                npidx = eval(f"np.s_[{idx}]", {"np": np})  # the generator's own text
                shape2 = dummy[npidx].shape
        except (IndexError, ValueError, TypeError):
            shape2 = shape
        if shape2 == (None,):
            shape2 = (max(1, n // 2),)
        self.add(a.dtype, shape2, f"{a.name}[{idx}]", a.requires_grad)

    def inplace(self):
        a = self.var(lambda v: not v.leaf_grad)
        if a is None:
            return self.binary()
        op = self.pick(
            ("add_(1)", "mul_(2)", "sub_(0.5)", "div_(2)", "zero_()", "fill_(3)", "clamp_(min=0)", "neg_()")
        )
        if self.r.random() < 0.3:
            idx = "0" if a.shape else "..."
            self.emit(f"{a.name}[{idx}] = {self.pick(('5', '-1.5', 'True', '0'))}")
        elif self.r.random() < 0.3:
            self.emit(f"{a.name} += {self.pick(('1', '2.5', 'True'))}")
        else:
            self.emit(f"{a.name}.{op}")
        if op.startswith("div_") and a.dtype in ("int64", "bool"):
            pass  # torch's error is the case
        self.show(a)

    def autograd(self):
        w = self.var(lambda v: v.leaf_grad)
        if w is None:
            shape = self.pick(((), (3,), (2, 3)))
            lit = self.literal("float32", shape)
            dt = self.pick(("", "", ", dtype=torch.float64"))
            w = self.add(
                "float64" if dt else "float32",
                shape,
                f"torch.tensor({lit}{dt}, requires_grad=True)",
                True,
                True,
            )
        r = self.r.random()
        f = self.pick(
            (
                "{w} * {w}",
                "torch.sin({w}) * 3",
                "({w} ** 3).sum()",
                "torch.exp({w}) / 2",
                "{w}.tanh()",
                "({w} * 2 + 1) ** 2",
                "{w}.abs()",
                "torch.sigmoid({w}) * {w}",
                "{w}.sqrt()",
                "{w}.mean() * {w}",
            )
        )
        y = self.add(w.dtype, w.shape if "sum" not in f else (), f.format(w=w.name), True)
        if r < 0.35:
            if _numel(y.shape) == 1:
                self.emit(f"{y.name}.backward()")
            else:
                self.emit(f"{y.name}.sum().backward()")
            self.emit(f"print({w.name}.grad)")
        elif r < 0.55:
            self.emit(f"{y.name}.backward(torch.ones_like({y.name}))")
            self.emit(f"print({w.name}.grad)")
        elif r < 0.75:
            g = self.fresh()
            self.emit(f"{g}, = torch.autograd.grad({y.name}.sum(), {w.name}, create_graph=True)")
            self.emit(f"print({g})")
            g2 = self.fresh()
            self.emit(f"{g2}, = torch.autograd.grad({g}.sum(), {w.name}, allow_unused=True)")
            self.emit(f"print({g2})")
        elif r < 0.85:
            d = self.fresh()
            self.emit(f"{d} = {y.name}.detach()")
            self.emit(f"print({d}, {d}.requires_grad, {d}.is_leaf)")
            self.emit("with torch.no_grad():")
            self.emit(f"    {w.name}.mul_(2)")
            self.emit(f"print({w.name})")
            self.emit(f"print({y.name}.sum().backward())")  # the saved w was modified: an error for mul
        else:
            self.emit(f"{w.name}.add_(1)")  # a leaf that requires grad: torch's error
        self.emit(f"print({w.name}.grad)")

    def options(self):
        opts = self.pick(
            (
                "precision=2",
                "precision=6",
                "sci_mode=True",
                "sci_mode=False",
                "threshold=5",
                "linewidth=30",
                "edgeitems=1, threshold=4",
                "profile='default'",
                "profile='full'",
                "profile='short'",
                "precision=10",
            )
        )
        self.emit(f"torch.set_printoptions({opts})")

    def requires_grad(self):
        a = self.var(lambda v: v.dtype in FLOATS and not v.requires_grad)
        if a is None:
            return self.unary()
        self.emit(f"{a.name}.requires_grad_()")
        a.requires_grad = a.leaf_grad = True
        self.show(a)

    def misc(self):
        """Conversions, joins, products, scans, logic and the like, over one or two tensors."""
        a = self.var()
        b = self.var()
        n, sh, rg = a.name, a.shape, a.requires_grad
        nd = len(sh)
        d = self.r.randrange(-nd, nd) if nd else 0
        flat = (_numel(sh),)
        options = [
            (f"{n}.float()", "float32", sh, rg),
            (f"{n}.double()", "float64", sh, rg),
            (f"{n}.long()", "int64", sh, False),
            (f"{n}.int()", "int32", sh, False),
            (f"{n}.bool()", "bool", sh, False),
            (f"{n}.to(torch.float64)", "float64", sh, rg),
            (f"{n}.clone()", a.dtype, sh, rg),
            (f"{n}.flatten()", a.dtype, flat, rg),
            (f"{n}.squeeze()", a.dtype, tuple(x for x in sh if x != 1), rg),
            (f"torch.zeros_like({n})", a.dtype, sh, False),
            (f"torch.ones_like({n}, dtype=torch.float64)", "float64", sh, False),
            (f"torch.full_like({n}, 7)", a.dtype, sh, False),
            (f"torch.where({n} > 0, {n}, {b.name})", _promote(a.dtype, b.dtype), sh, rg or b.requires_grad),
            (f"torch.where({n} > 1, {n}, 0.5)", a.dtype if a.dtype in FLOATS else "float32", sh, rg),
            (f"torch.cat([{n}.flatten(), {b.name}.flatten()])", _promote(a.dtype, b.dtype), (0,), rg),
            (f"torch.stack([{n}, {n}], dim=0)", a.dtype, (2,) + sh, rg),
            (f"{n}.cumsum(0)" if nd else f"{n} + 0", a.dtype if a.dtype in FLOATS else "int64", sh, rg),
            (f"{n}.sum(dtype=torch.float64)", "float64", (), rg),
            (f"({n} > 0) & ({b.name} < 1)", "bool", sh, False),
            (f"({n} == {n}) | ({n} != 0)", "bool", sh, False),
            (f"~({n} > 0)", "bool", sh, False),
            (f"{n}.any()", "bool", (), False),
            (f"{n}.all()", "bool", (), False),
            (f"torch.isnan({n})", "bool", sh, False),
            (f"{n}.abs().max()", a.dtype, (), rg),
            (f"{n}.expand(2, *{n}.shape)", a.dtype, (2,) + sh, rg),
            (f"{n}.softmax(dim={d})" if nd else f"{n}.exp()", "float32", sh, rg),
            (f"{n}.log_softmax({d})" if nd else f"{n}.exp()", "float32", sh, rg),
            (f"{n}.flatten() @ {n}.flatten()", a.dtype, (), rg),
            (
                f"torch.matmul({n}, {n}.t())" if nd == 2 else f"{n} * 1",
                a.dtype,
                sh[:1] * 2 if nd == 2 else sh,
                rg,
            ),
            (f"{n}.mean(dim={d}, keepdim=True)" if nd else f"{n}.mean()", a.dtype, sh, rg),
            (f"{n}.data", a.dtype, sh, False),
            (f"{n}.unsqueeze(-1).squeeze(-1)", a.dtype, sh, rg),
            (f"torch.tensor({n}.tolist())", a.dtype, sh, False),
            (f"{n}.sort(descending=True).values" if nd else f"{n} * 1", a.dtype, sh, rg),
            ("torch.tensor([1, 2.5, True])", "float32", (3,), False),
            ("torch.tensor([[1, 2], [3, 4]]) / torch.tensor([2, 0])", "float32", (2, 2), False),
            ("torch.tensor([-7, 7]) // torch.tensor([2, -2])", "int64", (2,), False),
            ("torch.tensor([-7.5, 7.5]) % torch.tensor([2., -2.])", "float32", (2,), False),
            ("torch.tensor([2, 3]) ** torch.tensor([-1, 2])", "int64", (2,), False),
            ("torch.tensor([1.0, float('nan')]) > 0", "bool", (2,), False),
            ("torch.tensor([1.0, float('nan')]).max()", "float32", (), False),
            ("torch.tensor([3, 1, 2]).max(0)[1]", "int64", (), False),
        ]
        expr, dtype, shape, grad = self.pick(options)
        if dtype == "int32":
            dtype = "int64"  # (the generator's dtypes; int32 promotes like int64 here)
        if expr.startswith("torch.cat"):
            shape = (_numel(a.shape) + _numel(b.shape),)
        self.add(dtype, shape, expr, grad)

    def build(self, n_statements: int) -> str:
        if self.r.random() < 0.1:  # now and then float64 by default (the generator's dtypes stay float32's)
            self.emit("torch.set_default_dtype(torch.float64)")
        for _ in range(self.r.randint(1, 3)):
            self.create()
        kinds = [
            (self.create, 2),
            (self.binary, 6),
            (self.func2, 2),
            (self.unary, 4),
            (self.reduction, 4),
            (self.view, 4),
            (self.inplace, 2),
            (self.autograd, 2),
            (self.options, 1),
            (self.requires_grad, 1),
            (self.misc, 5),
        ]
        fns, weights = zip(*kinds)
        for _ in range(n_statements):
            self.r.choices(fns, weights)[0]()
        return "\n".join(self.lines) + "\n"


def program(seed: int, n_statements: int | None = None) -> str:
    """The program of this seed (the same everywhere)."""
    gen = _Gen(seed)
    n = n_statements if n_statements is not None else gen.r.randint(3, 10)
    return gen.build(n)
