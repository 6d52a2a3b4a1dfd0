"""Estimates of what one operation would build, made before it runs so that the caps
(`limits.Caps`) can refuse it: the elements of a broadcast, matrix product, outer,
cat/stack, expand or repeat (`growth_estimate`), the bits of an exact integer, the
length of a sequence (also of a range too long for len())."""

from __future__ import annotations

from ..engine.tensor import Size, Tensor
from .errors import ScriptError

_SEQUENCES = (list, tuple, str, Size)
_SEQUENCE_NAMES = {list: "list", tuple: "tuple", str: "string", Size: "torch.Size"}
_TUPLES = (tuple, Size)
MAX_INT_BITS = 1 << 16


def _length(seq):
    """len(), also of a range too long for a C ssize_t (`range(10**30)`)."""
    try:
        return len(seq)
    except OverflowError:
        return (seq.stop - seq.start + seq.step - (1 if seq.step > 0 else -1)) // seq.step


def _check_int_size(op, left, right, node):
    """Exact integers stay below MAX_INT_BITS: `10**10**10` or repeated squaring would
    otherwise eat the host's memory and time."""
    if op == "**" and right > 0 and abs(left) > 1:
        bits = (abs(left).bit_length() - 1) * right
    elif op == "*":
        bits = abs(left).bit_length() + abs(right).bit_length() - 1
    else:
        return
    if bits > MAX_INT_BITS:
        raise ScriptError(
            "OverflowError",
            f"integer result of '{op}' too large (more than "
            f"{MAX_INT_BITS} bits; write a float such as 10.0 for huge numbers)",
            node.line,
            node.column,
        )


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _broadcast(shapes):
    """numpy's broadcast shape, or None if the shapes do not broadcast (the engine then
    raises PyTorch's error)."""
    ndim = max(len(s) for s in shapes)
    out = []
    for axis in range(1, ndim + 1):
        dim = 1
        for s in shapes:
            d = s[-axis] if axis <= len(s) else 1
            if d != 1:
                if dim != 1 and d != dim:
                    return None
                dim = d
        out.append(dim)
    return out


_MATMULS = {"matmul", "mm", "bmm", "mv", "dot"}
_CATS = {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "column_stack"}


# the ops whose result can outgrow their inputs even when called with one argument
GROWERS = _CATS | {"tile", "repeat_interleave", "broadcast_to", "meshgrid", "diag", "diag_embed"}


def _ints(v):
    """`v` as a tuple of Python ints (one int, or a list/tuple of them), else None."""
    v = v if isinstance(v, (list, tuple)) else (v,)
    return tuple(v) if all(type(s) is int for s in v) else None


def _method_growth(name, owner, args, kwargs):
    """The methods that can grow a tensor beyond its inputs' sizes: tile, repeat_interleave,
    broadcast_to, unfold (a view, but every op on it builds all its windows)."""
    x = owner.array
    if name == "tile":
        dims = _ints(args[0] if args else kwargs.get("dims", ()))
        return None if dims is None else x.size * _numel(max(s, 0) for s in dims)
    if name == "repeat_interleave":
        r = args[0] if args else kwargs.get("repeats")
        return x.size * max(r, 0) if type(r) is int else None
    if name == "broadcast_to":
        size = _ints(args[0] if args else kwargs.get("size", ()))
        return None if size is None else _numel(max(s, 0) for s in size)
    if name == "unfold" and len(args) == 3 and _ints(list(args)) and x.ndim:
        d, size, step = args
        if not -x.ndim <= d < x.ndim or size < 0 or step <= 0:
            return None
        n = x.shape[d]
        return x.size // max(n, 1) * max((n - size) // step + 1, 0) * size
    return None


def _function_growth(name, args, kwargs):
    """torch.meshgrid (the product of the sizes, per grid), diag/diag_embed of a vector (a
    square of its length), repeat_interleave/tile/broadcast_to as functions."""
    if name == "meshgrid":
        ts = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        if ts and all(isinstance(t, Tensor) for t in ts):
            return _numel(t.array.size for t in ts)
        return None
    if name in ("diag", "diag_embed") and args and isinstance(args[0], Tensor):
        x = args[0].array
        off = args[1] if len(args) > 1 and type(args[1]) is int else 0
        if name == "diag" and x.ndim != 1:
            return None
        n = (x.shape[-1] if x.ndim else 1) + abs(off)
        return max(x.size // max(x.shape[-1] if x.ndim else 1, 1), 1) * n * n
    if name in ("repeat_interleave", "tile", "broadcast_to") and args and isinstance(args[0], Tensor):
        return _method_growth(name, args[0], args[1:], kwargs)
    return None


def growth_estimate(name, owner, args, kwargs, cap):
    """How many elements the op `name` (a function, or a method of the tensor `owner`)
    would produce, for the ops that can make a tensor larger than their inputs:
    broadcasting, matrix products, outer, cat/stack, expand, repeat. None if unknown or
    surely within `cap` (the common case, decided without working out shapes)."""
    if name in _CATS:
        seq = args[0] if args else kwargs.get("tensors")
        if isinstance(seq, (list, tuple)):
            return sum(t.array.size for t in seq if isinstance(t, Tensor))
        return None
    if isinstance(owner, Tensor) and name in ("tile", "repeat_interleave", "broadcast_to", "unfold"):
        return _method_growth(name, owner, args, kwargs)
    if owner is None and name in (
        "meshgrid",
        "diag",
        "diag_embed",
        "repeat_interleave",
        "tile",
        "broadcast_to",
    ):
        return _function_growth(name, args, kwargs)
    if isinstance(owner, Tensor) and name in ("expand", "repeat"):
        sizes = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        if not all(type(s) is int for s in sizes):
            return None
        if name == "repeat":
            return owner.array.size * _numel(max(s, 0) for s in sizes)
        shape = owner.array.shape
        dims = [
            shape[i - len(sizes) + len(shape)] if s == -1 and i - len(sizes) + len(shape) >= 0 else max(s, 0)
            for i, s in enumerate(sizes)
        ]
        return _numel(dims)
    # the result of a broadcast, outer or matrix product has at most the product of the
    # operands' sizes: below the cap, nothing more to work out
    bound, count = 1, 0
    for t in (owner, *args, *kwargs.values()) if kwargs else (owner, *args):
        if isinstance(t, Tensor):
            bound *= t.array.size
            count += 1
    if count < 2 or 0 < bound <= cap:  # (an empty operand of a matrix product does not
        return None  # bound its result: (n, 0) @ (0, m) is n x m)
    tensors = [owner] if isinstance(owner, Tensor) else []
    tensors += [a for a in args if isinstance(a, Tensor)]
    tensors += [v for v in kwargs.values() if isinstance(v, Tensor)]
    if name == "outer":
        return tensors[0].array.size * tensors[1].array.size
    if name in _MATMULS:
        sa, sb = tensors[0].array.shape, tensors[1].array.shape
        if not sa or not sb:
            return None
        batch = _broadcast([sa[:-2], sb[:-2]]) if len(sa) > 2 or len(sb) > 2 else []
        if batch is None:
            return None
        return _numel(batch) * (sa[-2] if len(sa) >= 2 else 1) * (sb[-1] if len(sb) >= 2 else 1)
    shape = _broadcast([t.array.shape for t in tensors])
    return None if shape is None else _numel(shape)
