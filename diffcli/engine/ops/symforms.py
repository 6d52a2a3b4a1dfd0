"""Each row's forward as a formula (`Row.sym`), for `grad --symbolic`.

One table, row name -> script-syntax text over the row's parameters (its inputs, then its
args, by the row's names). The texts use only the primitives of diffcli/symbolic/forms.py
(`sin`, `exp`, `log`, `sqrt`, `erf`, `atan2`, `abs`, `floor`, `ceil`, `round`, `trunc`,
`sign`, `where`, `clamp`, comparisons and arithmetic), so the engine needs no SymPy: the
symbolic layer parses a text once and builds the SymPy expression from it. Non-smooth ops
are written with `where` (Piecewise) so that their derivatives, taken by SymPy, give
PyTorch's choice at the kink: relu'(0) = 0, clamp' = 1 at its bounds, maximum' = 1/2 at a
tie. tests/symbolic/test_forms.py checks each form, built by SymPy at points, against the
row's own forward.

Rows without an entry (reductions over dims, shape ops on several elements, losses,
indexing) have no symbolic form: a script that uses them is refused under --symbolic with
the op's name.
"""

from __future__ import annotations

from . import rows

SYM = {
    # arithmetic
    "add": "self + alpha * other",
    "sub": "self - alpha * other",
    "mul": "self * other",
    "div.Tensor": "self / other",
    "rsub.Tensor": "other - alpha * self",
    "rsub.Scalar": "other - alpha * self",
    "neg": "-self",
    "pow.Tensor_Scalar": "self ^ exponent",
    "pow.Tensor_Tensor": "self ^ other",
    "atan2": "atan2(self, other)",
    "hypot": "sqrt(self ^ 2 + other ^ 2)",
    "logaddexp": "log(exp(self) + exp(other))",
    "maximum": "where(self > other, self, where(self < other, other, (self + other) / 2))",
    "minimum": "where(self < other, self, where(self > other, other, (self + other) / 2))",
    # unary, smooth
    "sin": "sin(self)",
    "cos": "cos(self)",
    "tan": "tan(self)",
    "asin": "asin(self)",
    "acos": "acos(self)",
    "atan": "atan(self)",
    "sinh": "sinh(self)",
    "cosh": "cosh(self)",
    "tanh": "tanh(self)",
    "asinh": "asinh(self)",
    "acosh": "acosh(self)",
    "atanh": "atanh(self)",
    "exp": "exp(self)",
    "expm1": "exp(self) - 1",
    "log": "log(self)",
    "log2": "log(self) / log(2)",
    "log10": "log(self) / log(10)",
    "log1p": "log(1 + self)",
    "sqrt": "sqrt(self)",
    "rsqrt": "1 / sqrt(self)",
    "reciprocal": "1 / self",
    "erf": "erf(self)",
    "sinc": "where(self == 0, 1, sin(pi * self) / (pi * self))",
    "sigmoid": "1 / (1 + exp(-self))",
    "silu": "self / (1 + exp(-self))",
    "gelu": "where(approximate == 'tanh', "
    "0.5 * self * (1 + tanh(sqrt(2 / pi) * (self + 0.044715 * self ^ 3))), "
    "0.5 * self * (1 + erf(self / sqrt(2))))",
    "softplus": "where(self * beta > threshold, self, log(1 + exp(self * beta)) / beta)",
    "elu": "where(self > 0, scale * self, alpha * scale * (exp(self * input_scale) - 1))",
    "leaky_relu": "where(self > 0, self, negative_slope * self)",
    # non-smooth
    "abs": "abs(self)",
    "sign": "sign(self)",
    "relu": "where(self > 0, self, 0)",
    "floor": "floor(self)",
    "ceil": "ceil(self)",
    "trunc": "trunc(self)",
    "round": "round(self)",
    "round.decimals": "round(self * 10 ^ decimals) / 10 ^ decimals",
    "clamp": "clamp(self, min, max)",
    "clamp.Tensor": "clamp(self, min, max)",
    "clamp_min": "clamp(self, min, None)",
    "clamp_max": "clamp(self, None, max)",
    "where": "where(condition, self, other)",
    # the activations (activations.py), PyTorch's derivative at their kinks
    "hardtanh": "where(self <= min_val, min_val, where(self >= max_val, max_val, self))",
    "threshold": "where(self > threshold, self, value)",
    "hardsigmoid": "where(self <= -3, 0, where(self >= 3, 1, self / 6 + 1 / 2))",
    "hardswish": "where(self <= -3, 0, where(self >= 3, self, self * (self + 3) / 6))",
    "hardshrink": "where(self > lambd, self, where(self < -lambd, self, 0))",
    "softshrink": "where(self > lambd, self - lambd, where(self < -lambd, self + lambd, 0))",
    "celu": "where(self > 0, self, alpha * (exp(self / alpha) - 1))",
    "mish": "self * tanh(log(1 + exp(self)))",
    "log_sigmoid": "-log(1 + exp(-self))",
    "erfc": "1 - erf(self)",
    # one element: the reductions and copies are the element itself
    "sum": "self",
    "mean": "self",
    "prod": "self",
    "max": "self",
    "min": "self",
    "clone": "self",
    "alias": "self",
}

for _name, _text in SYM.items():
    rows.ROWS[_name].sym = _text
