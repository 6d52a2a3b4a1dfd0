"""`torch.autograd.gradcheck` and `gradgradcheck`: PyTorch's slow mode, step for step.

gradcheck compares, per differentiable output i and input j, the numerical Jacobian
(central differences: each input element perturbed in place by -eps then +eps, the
outputs' difference over 2*eps, in the input's dtype) with the analytical one (a
`grad()` per output element, with grad_output a one-hot tensor), both laid out
(input numel, output numel); `allclose(analytical, numerical, rtol, atol)` after type
promotion, else GradcheckError with PyTorch's message. The analytical Jacobian is
computed twice, as PyTorch does, to catch a backward that is not reentrant.
gradgradcheck runs gradcheck on the function that returns the inputs' gradients
(create_graph=True), with random grad_outputs in [-1, 1) drawn from the default
generator as `torch.testing.make_tensor` does, when none are given.
"""

from __future__ import annotations

import numpy as np

from . import autograd, dtypes, errors
from .ops import random as random_ops
from .tensor import Tensor


class GradcheckError(errors.TorchRuntimeError):
    type_name = "GradcheckError"


NOT_DOUBLE = (
    "Input #{i} requires gradient and is not a double precision floating point or complex. This check will "
    "likely fail if all the inputs are not of double precision floating point or complex. "
)
NO_INPUT = (
    "gradcheck expects at least one input tensor to require gradient, but none of them have "
    "requires_grad=True."
)


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable(outputs):
    return tuple(o for o in _as_tuple(outputs) if isinstance(o, Tensor) and o.needs_grad)


def _check_inputs(inputs):
    any_grad = False
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t.needs_grad:
            if t.array.dtype != np.float64:
                errors.warn(NOT_DOUBLE.format(i=i))
            any_grad = True
    if not any_grad:
        raise errors.TorchValueError(NO_INPUT)


def _numerical(func, inputs, outputs_all, eps):
    """Per output (all of them) and differentiable input: the (input numel, output numel)
    Jacobian by central differences."""
    diff = [t for t in inputs if isinstance(t, Tensor) and t.needs_grad]
    result = [[None] * len(diff) for _ in outputs_all]
    for j, x in enumerate(diff):
        d = x.array
        if not d.flags.writeable:
            d = x.array = d.copy()
        cols = []
        flat = d.reshape(-1) if d.flags.c_contiguous else None
        for k in range(d.size):
            idx = np.unravel_index(k, d.shape) if flat is None else k
            target = d if flat is None else flat
            orig = target[idx].copy()
            target[idx] = orig - d.dtype.type(eps)
            outa = _as_tuple(func(*inputs))
            target[idx] = orig + d.dtype.type(eps)
            outb = _as_tuple(func(*inputs))
            target[idx] = orig
            col = []
            for a, b in zip(outa, outb):
                if not isinstance(a, Tensor):
                    col.append(None)
                    continue
                diffab = (b.array - a.array) / np.asarray(2 * eps, dtype=a.array.dtype)
                col.append(np.asarray(diffab, dtype=a.array.dtype).reshape(-1))
            cols.append(col)
        for i, o in enumerate(outputs_all):
            if not isinstance(o, Tensor):
                continue
            jac = np.zeros((d.size, o.array.size), dtype=o.array.dtype)
            for k, col in enumerate(cols):
                jac[k, :] = col[i]
            result[i][j] = jac
    return result


def _analytical(inputs, output, nondet_tol):
    diff = [t for t in inputs if isinstance(t, Tensor) and t.needs_grad]

    def rows():
        base = np.zeros_like(output.array)
        out = [[] for _ in diff]
        for k in range(base.size):
            g = np.zeros_like(base).reshape(-1)
            g[k] = 1.0
            grads = autograd.grad(
                [output], diff, [Tensor(g.reshape(base.shape))], retain_graph=True, allow_unused=True
            )
            for i, gi in enumerate(grads):
                out[i].append(None if gi is None else np.array(gi.array, copy=True))
        return out

    def stack(rows_):
        jacs, sizes_ok = [], True
        for x, r in zip(diff, rows_):
            jac = np.zeros((x.array.size, output.array.size), dtype=x.array.dtype)
            for k, gi in enumerate(r):
                if gi is None:
                    continue
                if gi.shape != x.array.shape:
                    sizes_ok = False
                    continue
                jac[:, k] = gi.reshape(-1)
            jacs.append(jac)
        return jacs, sizes_ok

    jac1, sizes_ok = stack(rows())
    jac2, _ = stack(rows())
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    for a, b in zip(jac1, jac2):
        if a.size and np.max(np.abs(a - b)) > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and grad_output multiple "
                "times gives different values, although analytical gradient matches numerical gradient."
                f"The tolerance for nondeterminism was {nondet_tol}."
            )
    return jac1


def _allclose(a, n, rtol, atol):
    dt = dtypes.promote(a.dtype, n.dtype)
    a, n = a.astype(dt), n.astype(dt)
    with np.errstate(all="ignore"):
        close = np.abs(a - n) <= atol + rtol * np.abs(n)
    return bool(np.all(close | (a == n)))


def _message(a, n, i, j):
    return (
        f"Jacobian mismatch for output {i:d} with respect to input {j:d},\n"
        f"numerical:{Tensor(n)!r}\nanalytical:{Tensor(a)!r}\n"
    )


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-06,
    atol=1e-05,
    rtol=0.001,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """torch.autograd.gradcheck (slow mode; True, or GradcheckError / False)."""
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    try:
        func_out = _as_tuple(func(*inputs))
        outputs = _differentiable(func_out)
        if not outputs:
            numerical = _numerical(func, inputs, func_out, eps)
            for per_out in numerical:
                for n in per_out:
                    if n is not None and np.any(n != 0):
                        raise GradcheckError("Numerical gradient for function expected to be zero")
            return True
        numerical = _numerical(func, inputs, func_out, eps)
        numerical = [nj for o, nj in zip(func_out, numerical) if isinstance(o, Tensor) and o.needs_grad]
        for i, o in enumerate(outputs):
            analytical = _analytical(inputs, o, nondet_tol)
            for j, (a, n) in enumerate(zip(analytical, numerical[i])):
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(_message(a, n, i, j))
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-06,
    atol=1e-05,
    rtol=0.001,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """torch.autograd.gradgradcheck (slow mode)."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable(func(*inputs))
        grad_outputs = tuple(_make_tensor(o) for o in outs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_inputs = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.needs_grad}
    diff_grads = {i for i, x in enumerate(grad_outputs) if x.needs_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_inputs else x for i, x in enumerate(args[:-n_out]))
        outs = _differentiable(func(*input_args))
        gouts = tuple(x.requires_grad_() if i in diff_grads else x for i, x in enumerate(args[-n_out:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_inputs)
        grads = autograd.grad(list(outs), list(diff_args), list(gouts), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        new_func,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        nondet_tol=nondet_tol,
    )


def _make_tensor(x):
    """torch.testing.make_tensor(shape, low=-1, high=1, requires_grad=True): uniform_(-1, 1)."""
    d = x.array.dtype if x.array.dtype.kind == "f" else np.dtype(np.float64)
    u = random_ops.default_generator.uniform(x.array.size, d).astype(np.float64)
    return Tensor((u * 2.0 - 1.0).astype(d).reshape(x.array.shape), requires_grad=True)
