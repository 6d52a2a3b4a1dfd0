"""PyTorch's TypeError texts for an op called with arguments of the wrong types.

diffcli's ops accept more than PyTorch's (math-flavour scripts pass plain numbers), so the
check runs only after a call has failed with a Python-level error (`'float' object has no
attribute ...`): if the arguments fit none of PyTorch 2.13's signatures of the function
(torch_printed.py, recorded from torch), the error becomes the one PyTorch's argument
parser gives, word for word:

- one signature, or one that the argument count makes plausible: the first argument of
  the wrong type, `ones_like(): argument 'input' (position 1) must be Tensor, not float`;
- several plausible ones: `pow() received an invalid combination of arguments - got (int,
  int), but expected one of:` and the signatures, each whose item count equals the
  argument count annotated with the arguments that do not fit (`(!float!, Tensor)`), as
  torch/csrc/utils/invalid_arguments.cpp does (it counts the `*` as an item, and matches a
  `Number` parameter by its type's name, so no number fits it there).
"""

from __future__ import annotations

from ..engine.dtypes import DType
from ..engine.tensor import Size, Tensor
from .torch_printed import PRINTED
from .values import type_name as script_type_name

# the ops whose Tensor parameters also take a Python number (PyTorch's
# should_allow_numbers_as_tensors, for the names of diffcli's op table)
NUMBERS_AS_TENSORS = frozenset(
    {
        "add",
        "sub",
        "subtract",
        "mul",
        "multiply",
        "div",
        "divide",
        "true_divide",
        "floor_divide",
        "remainder",
        "rsub",
    }
)


class Param:
    __slots__ = ("type", "name", "optional", "keyword_only")

    def __init__(self, type_, name, optional, keyword_only):
        self.type, self.name, self.optional, self.keyword_only = type_, name, optional, keyword_only


def _items(signature: str) -> list:
    """The comma-separated items of `(Tensor input, *, Tensor out = None)`, `*` included."""
    body, items, depth, start = signature[1:-1], [], 0, 0
    for i, ch in enumerate(body):
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if ch == "," and depth == 0:
            items.append(body[start:i].strip())
            start = i + 1
    if body.strip():
        items.append(body[start:].strip())
    return items


def _params(items) -> list:
    out, keyword_only = [], False
    for item in items:
        if item == "*":
            keyword_only = True
            continue
        decl, _, default = item.partition(" = ")
        type_, _, name = decl.rpartition(" ")
        out.append(Param(type_, name, bool(default), keyword_only))
    return out


def type_name(value) -> str:
    """A value's type as PyTorch's messages name it (Python's tp_name)."""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, DType):
        return "torch.dtype"
    if isinstance(value, Size):
        return "torch.Size"
    return script_type_name(value)


def _scalar_tensor(v, kinds):
    return isinstance(v, Tensor) and v.array.ndim == 0 and v.array.dtype.kind in kinds


def accepts(op, param, value) -> bool:
    """Whether PyTorch's argument parser takes `value` for `param` of `op`."""
    t = param.type
    if value is None:
        return param.optional
    if t == "Tensor":
        return isinstance(value, Tensor) or (op in NUMBERS_AS_TENSORS and isinstance(value, (int, float)))
    if t == "Number":
        return isinstance(value, (int, float)) or (_scalar_tensor(value, "biuf") and not value.needs_grad)
    if t == "int":
        return (isinstance(value, int) and not isinstance(value, bool)) or _scalar_tensor(value, "iu")
    if t == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool) or _scalar_tensor(value, "iuf")
    if t == "bool":
        return isinstance(value, bool) or _scalar_tensor(value, "b")
    if t == "tuple of ints":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, (list, tuple, Size)) and all(isinstance(v, int) for v in value)
        )
    if t == "tuple of Tensors":
        return isinstance(value, (list, tuple)) and all(isinstance(v, Tensor) for v in value)
    if t == "torch.dtype":
        return isinstance(value, DType)
    if t == "str":
        return isinstance(value, str)
    return True  # a type diffcli does not model: no claim


def _fits_by_name(t, value) -> bool:
    """invalid_arguments.cpp's looser test, for the `!type!` marks: the type's name."""
    name = type_name(value)
    if t == "float":
        return name in ("float", "int")
    if t == "tuple of ints":
        return isinstance(value, (tuple, Size)) and all(isinstance(v, int) for v in value)
    return name == t


def torch_type_error(op: str, args, kwargs) -> str | None:
    """PyTorch's TypeError text for `op(*args, **kwargs)` when the arguments fit none of
    its signatures by type; None when they fit one (the failure is something else) or op
    has no recorded signature."""
    signatures = PRINTED.get(op)
    if not signatures:
        return None
    parsed = [(s, _items(s), _params(_items(s))) for s in signatures]
    n = len(args) + len(kwargs)
    plausible = [p for p in parsed if sum(not q.optional for q in p[2]) <= n <= len(p[2])]
    if len(parsed) == 1 or len(plausible) == 1:
        return _first_misfit(op, (plausible or parsed)[0][2], args, kwargs)
    if any(_fits(op, params, args, kwargs) for _, _, params in parsed):
        return None
    return _invalid_combination(op, parsed, args, kwargs)


def _fits(op, params, args, kwargs) -> bool:
    positional = [p for p in params if not p.keyword_only]
    if len(args) > len(positional):
        return False
    by_name = {p.name: p for p in params}
    if any(k not in by_name for k in kwargs):
        return False
    given = {p.name for p in positional[: len(args)]}
    if any(k in given for k in kwargs):
        return False
    if any(not p.optional and p.name not in given and p.name not in kwargs for p in params):
        return False
    return all(accepts(op, p, v) for p, v in zip(positional, args)) and all(
        accepts(op, by_name[k], v) for k, v in kwargs.items()
    )


def _first_misfit(op, params, args, kwargs):
    positional = [p for p in params if not p.keyword_only]
    if len(args) > len(positional):
        return None  # PyTorch counts first: `sin() takes 1 positional argument`
    for i, (p, v) in enumerate(zip(positional, args)):
        if not accepts(op, p, v):
            return f"{op}(): argument '{p.name}' (position {i + 1}) must be {p.type}, not {type_name(v)}"
    by_name = {p.name: p for p in params}
    for k, v in kwargs.items():
        if k in by_name and not accepts(op, by_name[k], v):
            return f"{op}(): argument '{k}' must be {by_name[k].type}, not {type_name(v)}"
    return None


def _invalid_combination(op, parsed, args, kwargs):
    ordered = sorted(kwargs.items(), key=lambda kv: kv[0] != "out")
    got = [type_name(v) for v in args] + [f"{k}={type_name(v)}" for k, v in ordered]
    lines = [
        f"{op}() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:"
    ]
    n = len(args) + len(kwargs)
    for signature, items, params in parsed:
        lines.append(f" * {signature}")
        if len(items) == n:
            marks = []
            for item, v in zip(items, args):
                t = item.partition(" = ")[0].rpartition(" ")[0] if item != "*" else "*"
                name = type_name(v)
                marks.append(name if _fits_by_name(t, v) else f"!{name}!")
            by_name = {p.name: p for p in params}
            for k, v in ordered:
                name = type_name(v)
                fits = k in by_name and _fits_by_name(by_name[k].type, v)
                marks.append(f"{k}={name}" if fits else f"{k}=!{name}!")
            lines.append(
                f"      didn't match because some of the arguments have invalid types: ({', '.join(marks)})"
            )
    return "\n".join(lines)
