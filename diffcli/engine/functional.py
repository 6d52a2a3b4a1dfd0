"""torch.autograd.functional on the engine's own autograd: jacobian, hessian, vjp, jvp, hvp, vhp.

A port of PyTorch 2.13's `torch/autograd/functional.py`, step for step, so that results,
shapes, `requires_grad`, argument handling and error texts are PyTorch's. Forward mode
(`jvp`, `hvp`) is the double-backward trick PyTorch itself uses there. `vectorize=True`
gives the same values as PyTorch's batched gradients, computed as a loop over the rows of
the standard basis (the engine has no vmap); `strategy="forward-mode"` is the same loop
over the columns, through `jvp`.

`func` is any Python callable of tensors (the script layer passes one that calls back into
the interpreter). `describe_type` words a value's type in error texts (`<class 'float'>`);
the script layer installs one that names script values as Python does (`name_types_with`).
"""

from __future__ import annotations

from . import errors
from .autograd import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .ops.table import FUNCTIONS
from .tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_zeros_like = FUNCTIONS["zeros_like"]
_stack = FUNCTIONS["stack"]


def poll_limits() -> None:
    """One row of a loop over a basis: the command's time and memory caps are read here too
    (a backward pass of fewer than 256 nodes never reads them itself)."""
    poll = errors.POLL[0]
    if poll is not None:
        poll()


_DESCRIBE = [lambda value: f"<class '{type(value).__name__}'>"]


def describe_type(value) -> str:
    return _DESCRIBE[0](value)


def name_types_with(describe) -> None:
    """How error texts name a value's type (`describe(value) -> "<class '...'>"`)."""
    _DESCRIBE[0] = describe


def _err(message):
    return errors.TorchRuntimeError(message)


def _as_tuple(inp, arg_name, fn_name):
    is_inp_tuple = True
    if not isinstance(inp, tuple):
        inp = (inp,)
        is_inp_tuple = False
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            what = f"the value at index {i} has type" if is_inp_tuple else f"the given {arg_name} has type"
            raise errors.TorchTypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                f"Tensors but {what} {describe_type(el)}."
            )
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise _err(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise _err("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise _err(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_STRICT = {
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of "
    "the input. This is not allowed in strict mode. You should ensure that your function is "
    "thrice differentiable and that the hessian depends on the inputs.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with "
    "respect to input {i} is independent of the input. This is not allowed in strict mode. You "
    "should ensure that your function is twice differentiable and that the jacobian depends on "
    "the inputs (this would be violated by a linear function for example).",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
    "user-provided function. This is not allowed in strict mode.",
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be "
    "computed in a differentiable manner from the input when running in strict mode.",
}
_INDEPENDENT = (
    "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode."
)


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise _err(_INDEPENDENT.format(i=i))
        if not inp.requires_grad:
            raise _err(_STRICT[input_type].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grad_outputs = [], []
    for out, grad_out in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs.append(out)
            new_grad_outputs.append(grad_out)
    if not new_outputs:
        return (None,) * len(inputs)
    if all(g is None for g in new_grad_outputs):
        new_grad_outputs = None
    return _grad(
        new_outputs,
        inputs,
        new_grad_outputs,
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_FILL = {
    "back": _INDEPENDENT,
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs "
    "when using the double backward trick to compute forward mode gradients. This is not "
    "allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
    "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
    "double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, grads_i in enumerate(grads):
        if grads_i is None:
            if strict:
                raise _err(_FILL[stage].format(i=i))
            grads_i = _zeros_like(refs[i])
        elif strict and create_graph and not grads_i.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise _err(
                f"The {what} of the user-provided function is independent of input {i}. This is "
                "not allowed in strict mode when create_graph=True."
            )
        res.append(grads_i)
    return tuple(res)


def _prepare_v(v, other, is_other_tuple, create_graph, fn_name):
    _, v = _as_tuple(v, "v", fn_name)
    v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, other, is_other_tuple)
    return v


_V_NONE_OUT = (
    "The vector v can only be None if the user-provided function returns a single Tensor "
    "with a single element."
)
_V_NONE_IN = (
    "The vector v can only be None if the input to the user-provided function is a single "
    "Tensor with a single element."
)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if v is not None:
            v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp")
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise _err(_V_NONE_OUT)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp")
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise _err(_V_NONE_IN)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        grad_outputs = tuple(_zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


def basis_row(tensors, k):
    """Row k of the standard basis over the concatenated elements of `tensors`: one tensor
    per entry, shaped like it, 1 at flat position k and 0 elsewhere."""
    row, start = [], 0
    for t in tensors:
        r = _zeros_like(t)
        n = t.numel()
        if start <= k < start + n:
            r.array.reshape(-1)[k - start] = 1
        row.append(r)
        start += n
    return tuple(row)


def _jacfwd(func, inputs, strict=False, vectorize=False):
    if strict:
        raise _err(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
            'supported together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
        )
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise errors.TorchNotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
            "`vectorize=True`."
        )
    total = sum(t.numel() for t in inputs)
    # PyTorch's tangents require grad when the function's outputs do on inputs that do not
    # (hessian's forward-mode outer Jacobian: its inner one is made with create_graph=True)
    probe = func(*(t.detach() for t in inputs))
    keep = any(
        isinstance(o, Tensor) and o.requires_grad for o in (probe if isinstance(probe, tuple) else (probe,))
    )
    columns, is_outputs_tuple, outputs = [], None, None
    for k in range(total):
        poll_limits()
        outs, jv = jvp(func, inputs, basis_row(inputs, k), create_graph=keep)
        if is_outputs_tuple is None:
            is_outputs_tuple = isinstance(outs, tuple)
            outputs = outs if is_outputs_tuple else (outs,)
        columns.append(jv if is_outputs_tuple else (jv,))
    result = []
    for i, out in enumerate(outputs):
        per_input, start = [], 0
        for inp in inputs:
            n = inp.numel()
            cols = [c[i].reshape(-1) for c in columns[start : start + n]]
            per_input.append(_stack(cols, dim=1).reshape(tuple(out.shape) + tuple(inp.shape)))
            start += n
        result.append(per_input)  # (lists, as PyTorch's forward-mode result is)
    return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise errors.TorchNotImplementedError(
                'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise _err(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`."
            )
        if vectorize:
            return _jacobian_vectorized(outputs, inputs, create_graph, is_outputs_tuple, is_inputs_tuple)
        jac = []
        for i, out in enumerate(outputs):
            jac_i = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for j in range(out.numel()):
                poll_limits()
                vj = _autograd_grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for el_idx, (jac_i_el, vj_el, inp_el) in enumerate(zip(jac_i, vj, inputs)):
                    if vj_el is not None:
                        if strict and create_graph and not vj_el.requires_grad:
                            raise _err(
                                f"The jacobian of the user-provided function is independent of input "
                                f"{i}. This is not allowed in strict mode when create_graph=True."
                            )
                        jac_i_el.append(vj_el)
                    else:
                        if strict:
                            raise _err(
                                f"Output {i} of the user-provided function is independent of input "
                                f"{el_idx}. This is not allowed in strict mode."
                            )
                        jac_i_el.append(_zeros_like(inp_el))
            jac.append(
                tuple(
                    _stack(jac_i_el, dim=0).view(tuple(out.shape) + tuple(inputs[el_idx].shape))
                    for el_idx, jac_i_el in enumerate(jac_i)
                )
            )
        jac = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _jacobian_vectorized(outputs, inputs, create_graph, is_outputs_tuple, is_inputs_tuple):
    """`vectorize=True`: the gradients of all the outputs at once, one row of the standard basis
    at a time (PyTorch batches these rows), so an input that any output uses gets a gradient
    (with its graph) for every output, and one that none uses gets zeros."""
    numels = [out.numel() for out in outputs]
    flat_outputs = tuple(out.reshape(-1) for out in outputs)
    rows = [[] for _ in inputs]
    for k in range(sum(numels)):
        poll_limits()
        vj = _autograd_grad(
            flat_outputs, inputs, basis_row(flat_outputs, k), create_graph=create_graph, retain_graph=True
        )
        for el_idx, vj_el in enumerate(vj):
            rows[el_idx].append(vj_el)
    jac_in_out = []
    for inp, inp_rows in zip(inputs, rows):
        if inp_rows[0] is None:
            stacked = _zeros_like(inp).expand(sum(numels), *inp.shape)
        else:
            stacked = _stack(inp_rows, dim=0)
        blocks, start = [], 0
        for out, n in zip(outputs, numels):
            blocks.append(stacked[start : start + n].view(tuple(out.shape) + tuple(inp.shape)))
            start += n
        jac_in_out.append(blocks)
    jac = _grad_postprocess(tuple(zip(*jac_in_out)), create_graph)
    return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(
    func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"
):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise _err("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise _err("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(
        jac_func,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _single_scalar_output(func, inputs, create_graph, strict, fn_name):
    """The shared first half of vhp and hvp: outputs and their gradient (with its graph)."""
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise _err(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise _err(f"The Tensor returned by the function given to {fn_name} should contain a single element")
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp")
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise _err(_V_NONE_IN)
        is_outputs_tuple, outputs, jac = _single_scalar_output(func, inputs, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        if v is not None:
            v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp")
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise _err(_V_NONE_IN)
        is_outputs_tuple, outputs, jac = _single_scalar_output(func, inputs, create_graph, strict, "hvp")
        grad_jac = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)
