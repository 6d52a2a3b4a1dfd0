"""What `diffcli jacobian` and `diffcli hessian` do, free of CLI code: the Jacobian of a
script's tensor (or the Hessian of a one-element one) with respect to the script's leaves,
laid out as `torch.autograd.functional` lays it out (`J[wrt]` shaped `out.shape + wrt.shape`,
`H[wrt_i][wrt_j]` shaped `wrt_i.shape + wrt_j.shape`), with the vector products
`--vjp` (v·J, per input) and `--jvp` (J·u, shaped like the target).

The script's variables are the inputs: the derivatives are taken through the graph the run
built, one backward pass per row (the Hessian differentiates the gradient, made with
`create_graph=True`, once per element), which is what torch.autograd.functional computes
for a function that recomputes the target from its inputs. A row with no path to an input
is zeros, as there (strict=False).
"""

from __future__ import annotations

import numpy as np

from . import engine
from .engine import dtypes
from .engine import errors as engine_errors
from .engine.functional import basis_row
from .engine.tensor import Tensor
from .lang.errors import ScriptError
from .session import Run, _engine_call, parse_literal


class MatrixReport:
    """`kind` "jacobian" or "hessian"; `blocks[wrt]` (Jacobian) or `blocks[wrt_i][wrt_j]`
    (Hessian) are numpy arrays; `vjp` maps each input to v·J, `jvp` is J·u."""

    def __init__(self, kind, of, target, wrt, blocks, vjp=None, jvp=None):
        self.kind, self.of, self.target, self.wrt, self.blocks = kind, of, target, wrt, blocks
        self.vjp, self.jvp = vjp, jvp


def inputs(run: Run, wrt=()):
    """The (name, leaf) pairs to differentiate by: --wrt's, else every named leaf that requires grad."""
    leaves = run.leaves()
    if wrt:
        by_name = dict(leaves)
        return [(n, by_name[n]) for n in wrt]
    chosen = [(n, t) for n, t in leaves if t.needs_grad]
    if not chosen:
        raise ScriptError(
            "ValueError", "no named leaf of the script requires grad: give the inputs with --wrt NAME,NAME"
        )
    return chosen


def _rows(out, leaves, run, create_graph=False):
    """One backward pass per element of `out`: a list (one per leaf) of lists of numpy rows."""
    rows = [[] for _ in leaves]
    zeros = [np.zeros(t.array.shape, t.array.dtype) for t in leaves]
    for k in range(out.numel()):
        if out.needs_grad:
            basis = basis_row((out,), k)
            grads = _engine_call(
                lambda b=basis: engine.grad(
                    [out], leaves, list(b), retain_graph=True, create_graph=create_graph, allow_unused=True
                )
            )
        else:
            grads = (None,) * len(leaves)
        for i, g in enumerate(grads):
            rows[i].append(zeros[i] if g is None else g.array)
        _engine_call(run.limits.poll)
    return rows


def _blocks(out, leaves, run):
    rows = _rows(out, leaves, run)
    return [
        np.stack(r).reshape(out.array.shape + t.array.shape)
        if r
        else np.zeros(out.array.shape + t.array.shape, t.array.dtype)
        for r, t in zip(rows, leaves)
    ]


def _vector(text, option, shape):
    """--vjp/--jvp VALUE: a number or a list literal of exactly `shape`."""
    try:
        value = np.asarray(parse_literal(text, option), dtype=dtypes.default_float())
    except ValueError as e:
        raise ScriptError("ValueError", str(e)) from None
    if value.shape != tuple(shape):
        raise ScriptError(
            "RuntimeError",
            f"{option}: v has invalid size: should be "
            f"{engine_errors.shape_text(shape)} but got {engine_errors.shape_text(value.shape)}.",
        )
    return value


def jacobian(run: Run, of, wrt=(), vjp=None, jvp=None, explicit=True) -> MatrixReport:
    out = run.tensor(of, explicit)
    chosen = inputs(run, wrt)
    leaves = [t for _, t in chosen]
    with run.limits.watching():
        blocks = _blocks(out, leaves, run)
        v_products = u_product = None
        if vjp is not None:
            v = _vector(vjp, "--vjp", out.array.shape)
            v_products = {n: np.tensordot(v, b, axes=v.ndim) for (n, _), b in zip(chosen, blocks)}
        if jvp is not None:
            if len(chosen) != 1:
                raise ScriptError(
                    "ValueError",
                    f"--jvp: give one input with --wrt (the tangent is shaped like it), not {len(chosen)}",
                )
            u = _vector(jvp, "--jvp", leaves[0].array.shape)
            nd = u.ndim
            u_product = np.tensordot(
                blocks[0], u, axes=(list(range(blocks[0].ndim - nd, blocks[0].ndim)), list(range(nd)))
            )
    return MatrixReport(
        "jacobian", of, out, chosen, dict(zip([n for n, _ in chosen], blocks)), v_products, u_product
    )


def hessian(run: Run, of, wrt=(), explicit=True) -> MatrixReport:
    out = run.tensor(of, explicit)
    if out.numel() != 1:
        raise ScriptError(
            "RuntimeError",
            "The Tensor returned by the function given to hessian should "
            f"contain a single element (--of {of} has {out.numel()})",
        )
    chosen = inputs(run, wrt)
    leaves = [t for _, t in chosen]
    names = [n for n, _ in chosen]
    with run.limits.watching():
        if out.needs_grad:
            grads = _engine_call(
                lambda: engine.grad([out], leaves, retain_graph=True, create_graph=True, allow_unused=True)
            )
        else:
            grads = (None,) * len(leaves)
        blocks = {}
        for name, t, g in zip(names, leaves, grads):
            if g is None:
                g = Tensor(np.zeros(t.array.shape, t.array.dtype))
            rows = _blocks(g, leaves, run)
            blocks[name] = {
                n: b.reshape(t.array.shape + u.array.shape) for n, u, b in zip(names, leaves, rows)
            }
    return MatrixReport("hessian", of, out, chosen, blocks)


def labels(name, shape) -> list:
    """`a` for a 0-d tensor, `y[0]`, `w[1,2]`: one label per element, in row-major order."""
    if not shape:
        return [name]
    return [f"{name}[{','.join(map(str, idx))}]" for idx in np.ndindex(*shape)]


def matrix(report: MatrixReport):
    """(row labels, column labels, 2-d array): the whole matrix, inputs side by side (for the
    Hessian, the blocks [wrt_i][wrt_j] in their places)."""
    cols = [lab for n, t in report.wrt for lab in labels(n, t.array.shape)]
    if report.kind == "jacobian":
        rows = labels(report.of, report.target.array.shape)
        parts = [b.reshape(len(rows), -1) for b in report.blocks.values()]
    else:
        rows = cols
        parts = [
            np.concatenate(
                [report.blocks[ni][nj].reshape(t.array.size, u.array.size) for nj, u in report.wrt], axis=1
            )
            for ni, t in report.wrt
        ]
        return rows, cols, np.concatenate(parts, axis=0) if parts else np.zeros((0, 0))
    return rows, cols, np.concatenate(parts, axis=1) if parts else np.zeros((len(rows), 0))
