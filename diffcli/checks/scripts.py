"""`diffcli check` on a script: the analytic derivatives of the target against finite
differences of re-runs of the script with one leaf element moved (`compare`).

A scalar target has its gradient checked; a non-scalar one its whole Jacobian (as
torch.autograd.gradcheck does), one backward pass per output element. `--order 2` adds
each leaf's Hessian block of the (summed) target: double backward against differences of
the gradient. Every run is in float64, whatever the script's flavour (as gradcheck asks
for double precision); tensors the script makes float32 stay so, and get float32's step
and tolerances.
"""

from __future__ import annotations

import copy

import numpy as np

from ..engine import autograd
from ..lang.errors import ScriptError
from ..session import _engine_call, execute, execute_with, parse_source
from . import kinks as K
from .compare import Settings, coarsest, compare


class CheckReport:
    """What one check found: the target's name, one LeafCheck per leaf and order, the
    base run (for the graph drawing of a report) and the source."""

    def __init__(self, target, rows, run, source, jacobian=False):
        self.target, self.rows, self.run, self.source = target, rows, run, source
        self.jacobian = jacobian

    @property
    def ok(self):
        return all(r.ok for r in self.rows)


def check(
    source,
    options,
    target_name=None,
    order=1,
    eps=None,
    atol=None,
    rtol=None,
    write=None,
    on_warning=None,
    known=None,
):
    """Check the script of `source`; a CheckReport. The script's prints and warnings go to
    `write`/`on_warning` once, from the first run; the re-runs are silent. `known(run)`
    checks the first run (the CLI's --of/--wrt names)."""
    sink = lambda s: None  # noqa: E731
    options = copy.copy(options)
    options.default_dtype = np.dtype(np.float64)
    base = execute(source, options, write=write or sink, on_warning=on_warning)
    if known is not None:
        known(base)
    script = parse_source(source, options.limits)
    name = target_name or base.result.last_assigned
    if name is None:
        raise ScriptError("ValueError", "the script assigns no name to differentiate (use --of)")
    target = base.tensor(name, explicit=target_name is not None)
    if not target.needs_grad:
        raise ScriptError(
            "ValueError", f"'{name}' does not require grad, so it has no gradient to check (give --of NAME)"
        )
    leaves, seen = [], set()
    for n, t in base.leaves():  # a leaf bound to two names (`y = a`) is checked once
        if (
            t.needs_grad
            and t.array.dtype.kind == "f"
            and id(t) not in seen
            and base.result.names.get(id(t)) == n
        ):
            seen.add(id(t))
            leaves.append((n, t))
    if options.wrt:
        leaves = [(n, t) for n, t in leaves if n in options.wrt]
    if not leaves:
        raise ScriptError("ValueError", f"'{name}' depends on no leaf that requires grad")
    has_kink = K.has_kink(K.graph_names(target))
    scalar = target.array.size == 1
    current = {n: t.array.copy() for n, t in leaves}
    target_dtype = target.array.dtype.name

    def differentiate(fn):  # a backward pass that polls --timeout and --max-memory
        with options.limits.watching():
            return _engine_call(fn)

    def rerun(overrides):
        return execute_with(script, options, overrides, sink, base.result.leaf_index)

    def value_at(n, x):
        run = rerun({**current, n: x})
        value = run.tensor(name).array.astype(np.float64)
        run.result.env.clear()  # (a `def` makes the script's names a reference cycle)
        return value.reshape(()) if scalar else value

    def gradients(overrides, create_graph=False):
        run = rerun(overrides)
        t = run.tensor(name)
        ins = [run.env[n] for n, _ in leaves]
        out = differentiate(
            lambda: autograd.grad(
                [t.sum() if not scalar else t], ins, allow_unused=True, create_graph=create_graph
            )
        )
        return run, ins, out

    def settings(n, scale=(1.0, 1.0)):
        dtype = coarsest(current[n].dtype.name, target_dtype)
        return Settings.for_dtype(dtype, eps, atol, rtol, scale)

    rows = []
    first = rerun({})  # (the base run's own backward() may have freed its graph)
    analytic = _jacobian(first.tensor(name), [first.env[n] for n, _ in leaves], scalar, differentiate)
    first.result.env.clear()
    for (n, _), a in zip(leaves, analytic):
        rows.append(compare(n, 1, a, lambda x, n=n: value_at(n, x), current[n], settings(n), has_kink))
    if order >= 2:
        run, ins, g1 = gradients({}, create_graph=True)
        for k, (n, _) in enumerate(leaves):
            shape = current[n].shape
            hess = np.zeros(shape + shape)
            gk = g1[k]
            if gk is not None and gk.needs_grad:
                flat = gk.reshape(-1)
                for i, idx in enumerate(np.ndindex(*shape)):
                    h = differentiate(
                        lambda i=i: autograd.grad([flat[i]], [ins[k]], retain_graph=True, allow_unused=True)
                    )[0]
                    if h is not None:
                        hess[idx] = h.array

            def grad_at(x, n=n, k=k, shape=shape):
                _, _, g = gradients({**current, n: x})
                return np.zeros(shape) if g[k] is None else g[k].array.astype(np.float64)

            scale = (100.0, 10.0) if settings(n).dtype == "float64" else (10.0, 10.0)
            rows.append(compare(n, 2, hess, grad_at, current[n], settings(n, scale), has_kink))
        run.result.env.clear()
    return CheckReport(name, rows, base, source, jacobian=not scalar)


def _jacobian(target, inputs, scalar, differentiate):
    """d target / d input for each input: the gradient for a scalar target, else an array
    shaped target.shape + input.shape (one backward pass per output element)."""
    if scalar:
        g = differentiate(lambda: autograd.grad([target], inputs, retain_graph=True, allow_unused=True))
        return [np.zeros_like(t.array, np.float64) if gi is None else gi.array for t, gi in zip(inputs, g)]
    out = [np.zeros(target.array.shape + t.array.shape) for t in inputs]
    flat = target.reshape(-1)
    for i, idx in enumerate(np.ndindex(*target.array.shape)):
        g = differentiate(lambda i=i: autograd.grad([flat[i]], inputs, retain_graph=True, allow_unused=True))
        for j, gi in enumerate(g):
            if gi is not None:
                out[j][idx] = gi.array
    return out
