"""torch.einsum, composed as ATen's einsum composes it (so the graph shows PyTorch's nodes:
permutes, unsqueezes, diagonals, sums, views and a bmm per contracted pair): each operand's
dims are aligned to one order (the output's labels, then the contracted ones), repeated
labels become diagonals, missing labels size-1 dims; then the operands are contracted
left to right, each pair by sumproduct_pair (permute, reshape to 3-D, bmm, view, permute
back), and the contracted dims are viewed (or, for one operand, summed) away. Without
opt_einsum (PyTorch's path finder, which diffcli does not have) this is PyTorch's order
for any number of operands."""

from __future__ import annotations

from .. import errors
from ..function import as_tensor
from ..tensor import Tensor
from . import linalg as L
from . import reductions as R
from . import rows
from . import shape as S
from .arithmetic import mul
from .diagonals import diagonal
from .rearrange import movedim
from .rows import expose

_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS  # (the subscript of `...`)


def _subscript(c: str) -> int:
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + _LETTERS


def _label(s: int) -> str:
    return chr(s + ord("A")) if s < _LETTERS else chr(s - _LETTERS + ord("a"))


def _fail(message):
    raise errors.TorchRuntimeError(f"einsum(): {message}")


def _parse_inputs(lhs: str, n_ops: int) -> list:
    labels = [[] for _ in range(n_ops)]
    op, ell, i = 0, False, 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell:
                _fail(f"found '.' for operand {op} for which an ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                _fail(f"found '.' for operand {op} that is not part of any ellipsis")
            i += 2
            labels[op].append(_ELLIPSIS)
            ell = True
        elif c == ",":
            op += 1
            if op >= n_ops:
                _fail("fewer operands were provided than specified in the equation")
            ell = False
        else:
            if not (c.isascii() and c.isalpha()):
                _fail(
                    f"invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z]"
                )
            labels[op].append(_subscript(c))
        i += 1
    if op != n_ops - 1:
        _fail("more operands were provided than specified in the equation")
    return labels


def sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list, keepdim: bool) -> Tensor:
    """ATen's sumproduct_pair: (left * right).sum(sum_dims) by permutes, reshapes and a bmm."""
    if not sum_dims:
        return mul(left, right)
    dim = left.array.ndim
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = left.array.shape[i] != 1, right.array.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.array.shape[i] != right.array.shape[i]:
                    raise errors.TorchRuntimeError("non-broadcast dimensions must match")
                sum_size *= left.array.shape[i]
            elif sl:
                left = R.sum(left, i, keepdim=True)
            elif sr:
                right = R.sum(right, i, keepdim=True)
        elif sl and sr:
            if left.array.shape[i] != right.array.shape[i]:
                raise errors.TorchRuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.array.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.array.shape[i]
        else:
            ro.append(i)
            ro_size *= right.array.shape[i]
    if lo and ro and ro[-1] < lo[0]:  # (bmm then writes the output in its own order)
        left, right, lo, ro, lo_size, ro_size = right, left, ro, lo, ro_size, lo_size
    out_size = (
        [left.array.shape[d] for d in lro]
        + [left.array.shape[d] for d in lo]
        + [1] * len(sum_dims)
        + [right.array.shape[d] for d in ro]
    )
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    left = S.reshape(S.permute(left, *lperm), lro_size, lo_size, sum_size)
    right = S.reshape(S.permute(right, *rperm), lro_size, sum_size, ro_size)
    result = S.permute(S.view(L.bmm(left, right), *out_size), *operm)
    if not keepdim:
        sizes = [s for i, s in enumerate(result.array.shape) if i not in sum_dims]
        result = S.view(result, *sizes)
    return result


def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise errors.TorchTypeError(
            "einsum(): the equation must be a string (the sublist format is not supported)"
        )
    if not operands:
        _fail("must provide at least one operand")
    ops_in = [as_tensor(t) for t in operands]
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels = _parse_inputs(lhs, len(ops_in))

    count = [0] * _ELLIPSIS
    ell_num_dim = 0
    for i, (t, labels) in enumerate(zip(ops_in, op_labels)):
        ndims = t.array.ndim
        n = len(labels)
        has_ell = _ELLIPSIS in labels
        for s in labels:
            if s == _ELLIPSIS:
                n -= 1
            else:
                count[s] += 1
        if has_ell:
            ell_num_dim = max(ell_num_dim, ndims - n)
        if (n > ndims) if has_ell else (n != ndims):
            _fail(
                f"the number of subscripts in the equation ({n}) "
                + (
                    "is more than the number of dimensions ("
                    if has_ell
                    else "does not match the number of dimensions ("
                )
                + f"{ndims}) for operand {i}"
                + ("" if has_ell else " and no ellipsis was given")
            )

    perm_index = [-1] * _ELLIPSIS
    index = ell_index = 0
    ell_in_output = False
    if arrow < 0:  # implicit output: the ellipsis, then the labels seen once
        index = ell_num_dim
        ell_in_output = True
        for s in range(_ELLIPSIS):
            if count[s] == 1:
                perm_index[s] = index
                index += 1
    else:
        rhs = equation[arrow + 2 :]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == " ":
                pass
            elif c == ".":
                if ell_in_output:
                    _fail("found '.' for output but an ellipsis (...) was already found")
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    _fail("found '.' for output that is not part of any ellipsis (...)")
                i += 2
                ell_index = index
                index += ell_num_dim
                ell_in_output = True
            else:
                if not (c.isascii() and c.isalpha()):
                    _fail(
                        f"invalid subscript given at index {len(lhs) + 2 + i} in the equation string, "
                        "subscripts must be in [a-zA-Z]"
                    )
                s = _subscript(c)
                if not (count[s] > 0 and perm_index[s] == -1):
                    why = (
                        "appears more than once in the output"
                        if perm_index[s] > -1
                        else ("does not appear in the equation for any input operand")
                    )
                    _fail(f"output subscript {c} {why}")
                perm_index[s] = index
                index += 1
            i += 1
    out_num_dim = index
    if not ell_in_output:
        ell_index = index
        index += ell_num_dim
    for s in range(_ELLIPSIS):
        if count[s] > 0 and perm_index[s] == -1:
            perm_index[s] = index
            index += 1
    total = index

    label_size = [1] * _ELLIPSIS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * total
    ops = []
    for i, t in enumerate(ops_in):
        op = t
        permutation = [-1] * total
        dim = 0
        for s in op_labels[i]:
            if s == _ELLIPSIS:
                ndim = t.array.ndim - (len(op_labels[i]) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    size = op.array.shape[dim]
                    if size != 1:
                        if ell_sizes[j] not in (1, size):
                            _fail(
                                f"dimension {dim} covered by ellipsis in operand {i}has size {size} which does "
                                f"not broadcast with previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension"
                            )
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index[s]] == -1:
                size = op.array.shape[dim]
                if size != 1:
                    if label_size[s] not in (1, size):
                        _fail(
                            f"subscript {_label(s)} has size {size} for operand {i} which does not broadcast "
                            f"with previously seen size {label_size[s]}"
                        )
                    label_size[s] = size
                    dim_counts[perm_index[s]] += 1
                permutation[perm_index[s]] = dim
                dim += 1
            else:  # a repeated label: its diagonal
                prev = permutation[perm_index[s]]
                if op.array.shape[dim] != op.array.shape[prev]:
                    _fail(
                        f"subscript {_label(s)} is repeated for operand {i} but the sizes don't match, "
                        f"{op.array.shape[dim]} != {op.array.shape[prev]}"
                    )
                op = movedim(diagonal(op, 0, prev, dim), -1, prev)
        for k, v in enumerate(permutation):
            if v == -1:
                op = S.unsqueeze(op, dim)
                permutation[k] = dim
                dim += 1
        ops.append(S.permute(op, *permutation))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_num_dim, total):
            sa, sb = a.array.shape[d] != 1, b.array.shape[d] != 1
            if sa and sb:
                if a.array.shape[d] != b.array.shape[d]:
                    raise errors.TorchRuntimeError("non-broadcast dimensions must match")
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if sa:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif sb:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = R.sum(a, tuple(a_sum), keepdim=True)
        if b_sum:
            b = R.sum(b, tuple(b_sum), keepdim=True)
        ops.insert(0, sumproduct_pair(a, b, sum_dims, True))

    if total - out_num_dim > 0:
        if len(ops_in) > 1:
            return S.view(ops[0], *ops[0].array.shape[:out_num_dim])
        return R.sum(ops[0], tuple(range(out_num_dim, total)))
    return ops[0]


expose(
    einsum,
    *(rows.ROWS[n] for n in ("permute", "unsqueeze", "view", "bmm", "mul", "sum.dim_IntList", "diagonal")),
    names=("einsum",),
    method=False,
    sym=False,
)
