"""torch.func on the engine's autograd: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap.

PyTorch's functorch wraps tensors in "levels"; the engine has one graph, so a level here is
what `torch.autograd.functional` does with `create_graph=True`: each transform makes the
tensors it differentiates fresh leaves (`x.detach().requires_grad_()`), or views of them when
they already require grad (an outer transform's, or the script's own leaves), and
differentiates with `create_graph=True`, so transforms nest (`grad(grad(f))`) and an outer
`backward()` reaches the script's leaves. On the way out a result that depends only on the
transform's own fresh leaves is detached, as functorch's unwrapping leaves it.

Forward mode (`jvp`, `jacfwd`, the outer half of `hessian`) is the double-backward trick;
`vmap` is a plain loop over the batch dimension, the results stacked. Argument handling and
error texts are PyTorch 2.13's (`torch/_functorch/eager_transforms.py`, `apis.py`).
"""

from __future__ import annotations

from . import errors
from . import functional as _af
from .autograd import grad as _grad
from .grad_mode import enable_grad
from .node import AccumulateGrad
from .ops.table import FUNCTIONS
from .pytree import spec_pprint, spec_repr, tree_flatten, tree_unflatten
from .tensor import Tensor

poll_limits = _af.poll_limits

_zeros_like = FUNCTIONS["zeros_like"]
_stack = FUNCTIONS["stack"]
JVP = "jvp(f, primals, tangents)"


def _t(value):
    return _af.describe_type(value)


# --- levels ----------------------------------------------------------------------------------


def _make_differentiable(x, fresh):
    if not isinstance(x, Tensor):
        raise errors.TorchValueError(f"Thing passed to transform API must be Tensor, got {_t(x)}")
    if x.requires_grad:
        return x.view_as(x)
    leaf = x.detach().requires_grad_()
    fresh.add(id(leaf))
    return leaf


def _only_fresh(t, fresh) -> bool:
    """Whether every leaf below `t` is one of this level's fresh leaves."""
    stack, seen = [t.grad_fn], set()
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if n.__class__ is AccumulateGrad:
            if id(n.variable) not in fresh:
                return False
            continue
        stack.extend(n.next_nodes)
    return True


def _undo(tree, fresh):
    """The results of a level as functorch unwraps them (see the module's docstring)."""
    leaves, spec = tree_flatten(tree)
    out = []
    for v in leaves:
        if (
            isinstance(v, Tensor)
            and v.requires_grad
            and ((v.grad_fn is None and id(v) in fresh) or (v.grad_fn is not None and _only_fresh(v, fresh)))
        ):
            v = v.detach()
        out.append(v)
    return tree_unflatten(out, spec)


def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=True, create_graph=True):
    # (functorch frees a level's own graph; here the levels share one graph, so it is kept)
    if grad_outputs is None:
        pairs = [(o, None) for o in outputs if o.requires_grad]
    else:
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        return tuple(_zeros_like(inp) for inp in inputs)
    outs = [o for o, _ in pairs]
    gos = None if grad_outputs is None else [g for _, g in pairs]
    res = _grad(
        outs, list(inputs), gos, retain_graph=retain_graph, create_graph=create_graph, allow_unused=True
    )
    return tuple(_zeros_like(inp) if g is None else g for g, inp in zip(res, inputs))


# --- argnums -----------------------------------------------------------------------------------


def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise errors.TorchRuntimeError(f"argnum must be int, got: {_t(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise errors.TorchRuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args, argnums, as_tuple=True):
    if not isinstance(argnums, (int, tuple)):
        raise errors.TorchRuntimeError(f"argnums must be int or Tuple[int, ...], got: {_t(argnums)}")
    if isinstance(argnums, int):
        argnums = _wrap_argnum(argnums, len(args))
        return (args[argnums],) if as_tuple else args[argnums]
    argnums = tuple(_wrap_argnum(a, len(args)) for a in argnums)
    if not argnums:
        raise errors.TorchRuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise errors.TorchRuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in argnums)


def _replace_args(args, new, argnums, wrap=True):
    """`args` with the differentiated ones replaced. PyTorch's jvp-based transforms compare
    positions with argnums as given, so a negative argnum replaces nothing there (`wrap=False`:
    `jacfwd(f, argnums=-1)` is all zeros in PyTorch 2.13, and here)."""
    pos = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if isinstance(argnums, int):
        new = (new,)
    if wrap:
        pos = tuple(_wrap_argnum(a, len(args)) for a in pos)
    return tuple(new[pos.index(i)] if i in pos else a for i, a in enumerate(args))


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise errors.TorchRuntimeError(
            f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return out


def _only_tensors(flat, api):
    if (len(flat) == 1 and flat[0] is None) or len(flat) < 1:
        raise errors.TorchRuntimeError(
            f"{api}: Expected f to be a function that has non-empty output (got output = {flat})"
        )
    for o in flat:
        if not isinstance(o, Tensor):
            raise errors.TorchRuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type {_t(o)}"
            )


# --- the transforms ----------------------------------------------------------------------------


def grad_and_value_impl(func, argnums, has_aux, args, kwargs):
    fresh = set()
    with enable_grad():
        diff_args = _slice_argnums(args, argnums, as_tuple=False)
        leaves, spec = tree_flatten(diff_args)
        diff_leaves = [_make_differentiable(x, fresh) for x in leaves]
        args = _replace_args(args, tree_unflatten(diff_leaves, spec), argnums)
        output = func(*args, **kwargs)
        output, aux = _split_aux(output, has_aux, "grad_and_value(f)(*args)")
        if not isinstance(output, Tensor):
            raise errors.TorchRuntimeError(
                f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {_t(output)}"
            )
        if output.dim() != 0:
            raise errors.TorchRuntimeError(
                "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        grads = _autograd_grad((output,), diff_leaves, create_graph=True)
        grad_input = _undo(tree_unflatten(list(grads), spec), fresh)
        output = _undo(output, fresh)
        if has_aux:
            return grad_input, (output, _undo(aux, fresh))
        return grad_input, output


def grad_and_value(func, argnums=0, has_aux=False):
    def wrapper(*args, **kwargs):
        return grad_and_value_impl(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func, argnums=0, has_aux=False):
    def wrapper(*args, **kwargs):
        g, value = grad_and_value_impl(func, argnums, has_aux, args, kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def _vjp_with_argnums(func, *primals, argnums=None, has_aux=False):
    fresh = set()
    with enable_grad():
        if argnums is None:
            leaves, spec = tree_flatten(primals)
            diff = [_make_differentiable(x, fresh) for x in leaves]
            primals = tree_unflatten(diff, spec)
        else:
            leaves, spec = tree_flatten(_slice_argnums(primals, argnums, as_tuple=False))
            diff = [_make_differentiable(x, fresh) for x in leaves]
            primals = _replace_args(primals, tree_unflatten(diff, spec), argnums)
        out = func(*primals)
        out, aux = _split_aux(out, has_aux, "vjp(f, *primals)")
        flat_out, out_spec = tree_flatten(out)
        _only_tensors(flat_out, "vjp(f, *primals)")
        for o in flat_out:
            if not o.is_floating_point():
                raise errors.TorchRuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or "
                    f"complex Tensors, got Tensor with dtype {o.dtype}"
                )
        results = _undo(out, fresh)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            raise errors.TorchRuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to "
                f"the function. cotangents: {spec_pprint(cot_spec)}, primal output: {spec_pprint(out_spec)}"
            )
        res = _autograd_grad(flat_out, diff, flat_cot, create_graph=True)
        return _undo(tree_unflatten(list(res), spec), fresh)

    if has_aux:
        return results, vjp_fn, _undo(aux, fresh)
    return results, vjp_fn


def vjp(func, *primals, has_aux=False):
    return _vjp_with_argnums(func, *primals, has_aux=has_aux)


def _jvp_with_argnums(func, primals, tangents, argnums, strict=False, has_aux=False):
    if not isinstance(primals, tuple):
        raise errors.TorchRuntimeError(
            f"{JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    diff_args = primals if argnums is None else _slice_argnums(primals, argnums)
    flat_primals, primals_spec = tree_flatten(diff_args)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise errors.TorchRuntimeError(
            f"{JVP}: Expected primals and tangents to have the same python structure. For example, if "
            "primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
            f"{spec_repr(primals_spec)} and tangents with structure {spec_repr(tangents_spec)}"
        )
    for what, flat in (("primals", flat_primals), ("tangents", flat_tangents)):
        if not flat:
            raise errors.TorchRuntimeError(f"{JVP}: Expected {what} to contain at least one Tensor.")
        for t in flat:
            if not isinstance(t, Tensor):
                raise errors.TorchRuntimeError(f"{JVP}: Expected {what} to only contain Tensors, got {_t(t)}")
    fresh = set()
    with enable_grad():
        diff = [_make_differentiable(p, fresh) for p in flat_primals]
        duals = tree_unflatten(diff, primals_spec)
        if argnums is not None:
            duals = _replace_args(
                primals, duals if not isinstance(argnums, int) else duals[0], argnums, wrap=False
            )
        out = func(*duals)
        out, aux = _split_aux(out, has_aux, JVP)
        flat_out, out_spec = tree_flatten(out)
        _only_tensors(flat_out, JVP)
        seeds = [_zeros_like(o, requires_grad=True) for o in flat_out]
        back = [o for o in flat_out if o.requires_grad]
        if back:
            pulled = _grad(
                back,
                diff,
                [s for o, s in zip(flat_out, seeds) if o.requires_grad],
                create_graph=True,
                retain_graph=True,
                allow_unused=True,
            )
            pairs = [(g, t) for g, t in zip(pulled, flat_tangents) if g is not None and g.requires_grad]
        else:
            pairs = []
        if pairs:
            pushed = _grad(
                [g for g, _ in pairs],
                seeds,
                [t for _, t in pairs],
                create_graph=True,
                retain_graph=True,
                allow_unused=True,
            )
        else:
            pushed = [None] * len(seeds)
        tangents_out = []
        for o, t in zip(flat_out, pushed):
            if t is None:
                if strict:
                    raise errors.TorchRuntimeError(
                        "jvp(f, primals, tangents, strict=True): The output of f is "
                        "independent of the inputs. This is not allowed with strict=True."
                    )
                t = _zeros_like(o)
            tangents_out.append(t)
        primals_out = _undo(tree_unflatten(list(flat_out), out_spec), fresh)
        tangents_out = _undo(tree_unflatten(tangents_out, out_spec), fresh)
        if has_aux:
            return primals_out, tangents_out, _undo(aux, fresh)
        return primals_out, tangents_out


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    return _jvp_with_argnums(func, primals, tangents, None, strict=strict, has_aux=has_aux)


def _basis_rows(flat, k):
    return list(_af.basis_row(tuple(flat), k))


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    if not (chunk_size is None or chunk_size > 0):
        raise errors.TorchValueError("jacrev: `chunk_size` should be greater than 0.")

    def wrapper_fn(*args):
        vjp_out = _vjp_with_argnums(func, *args, argnums=argnums, has_aux=has_aux)
        output, vjp_fn = vjp_out[0], vjp_out[1]
        flat_output, output_spec = tree_flatten(output)
        flat_primals, primals_spec = tree_flatten(_slice_argnums(args, argnums))
        numels = [o.numel() for o in flat_output]
        rows = [[] for _ in flat_primals]
        for k in range(sum(numels)):
            poll_limits()
            res, _ = tree_flatten(vjp_fn(tree_unflatten(_basis_rows(flat_output, k), output_spec)))
            for i, r in enumerate(res):
                rows[i].append(r)
        per_output = []
        for i, out in enumerate(flat_output):
            start = sum(numels[:i])
            blocks = [
                _stack(rows[j][start : start + numels[i]], dim=0).view(tuple(out.shape) + tuple(p.shape))
                if numels[i]
                else _zeros_like(p).expand(*out.shape, *p.shape)
                for j, p in enumerate(flat_primals)
            ]
            per_output.append(tree_unflatten(blocks, primals_spec))
        if isinstance(argnums, int):
            per_output = [b[0] for b in per_output]
        result = tree_unflatten(per_output, output_spec)
        return (result, vjp_out[2]) if has_aux else result

    return wrapper_fn


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    def wrapper_fn(*args):
        flat_primals, primals_spec = tree_flatten(_slice_argnums(args, argnums))
        numels = [p.numel() for p in flat_primals]
        columns, aux, out_spec = [], None, None
        for k in range(sum(numels)):
            poll_limits()
            basis = tree_unflatten(_basis_rows(flat_primals, k), primals_spec)
            out = _jvp_with_argnums(func, args, basis, argnums, has_aux=has_aux)
            flat_jv, out_spec = tree_flatten(out[1])
            if has_aux and aux is None:
                aux = out[2]
            columns.append(flat_jv)
        if not columns:
            raise errors.TorchRuntimeError("jacfwd: the inputs have no elements")
        per_output = []
        for i in range(len(columns[0])):
            col = _stack([c[i] for c in columns], dim=-1)
            blocks, start = [], 0
            for p, n in zip(flat_primals, numels):
                part = col[..., start : start + n]
                blocks.append(part.reshape(tuple(col.shape[:-1]) + tuple(p.shape)))
                start += n
            per_output.append(tree_unflatten(blocks, primals_spec))
        if isinstance(argnums, int):
            per_output = [b[0] for b in per_output]
        result = tree_unflatten(per_output, out_spec)
        return (result, aux) if has_aux else result

    return wrapper_fn


def hessian(func, argnums=0):
    return jacfwd(jacrev(func, argnums), argnums)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None, name="<lambda>"):
    """A loop over the batch dimension: `func` on each slice, the results stacked at `out_dims`.
    Arguments are tensors (mapped at their in_dim) or anything with in_dim None."""

    def wrapped(*args):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        where = f"vmap({name}, in_dims={in_dims!r}, ...)(<inputs>)"
        if len(dims) != len(args):
            raise errors.TorchValueError(
                f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                f"{spec_repr(tree_flatten(dims)[1])} but inputs has structure {spec_repr(tree_flatten(args)[1])}."
            )
        sizes, wrapped_dims = [], []
        for a, d in zip(args, dims):
            if d is not None:
                if not isinstance(a, Tensor):
                    raise errors.TorchValueError(
                        f"{where}: Got in_dim={d} for an input but the input is of type {_t(a)}. We cannot vmap "
                        "over non-Tensor arguments, please use None as the respective in_dim"
                    )
                nd = a.dim()
                if not -nd <= d < nd:
                    raise errors.TorchValueError(
                        f"{where}: Got in_dim={d} for some input, but that input is a Tensor of dimensionality "
                        f"{nd} so expected in_dim to satisfy -{nd} <= in_dim < {nd}."
                    )
                d = d + nd if d < 0 else d
                sizes.append(a.shape[d])
            wrapped_dims.append(d)
        if not sizes:
            raise errors.TorchValueError("vmap: Expected at least one Tensor to vmap over")
        if len(set(sizes)) > 1:
            raise errors.TorchValueError(
                "vmap: Expected all tensors to have the same size in the mapped "
                f"dimension, got sizes {sizes} for the mapped dimension"
            )
        results = []
        for i in range(sizes[0]):
            poll_limits()
            out = func(*[a if d is None else a.select(d, i) for a, d in zip(args, wrapped_dims)])
            flat, spec = tree_flatten(out)
            for o in flat:
                if not isinstance(o, Tensor):
                    raise errors.TorchValueError(
                        f"vmap({name}, ...): `{name}` must only return Tensors, got type {_t(o)}. Did you mean to "
                        "set out_dims= to None for output?"
                    )
            results.append(flat)
        flat_out = [_stack([r[j] for r in results], dim=out_dims) for j in range(len(results[0]))]
        return tree_unflatten(flat_out, spec)

    return wrapped
