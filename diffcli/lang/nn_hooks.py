"""A module's full backward hooks (`register_full_backward_hook`,
`register_full_backward_pre_hook`), as PyTorch's `torch.utils.hooks.BackwardHook` runs them:
the forward's tensor inputs that require grad, and its tensor output, pass through identity
nodes (BackwardHookFunctionBackward, engine/ops/hook_identity.py). The output's node, before
it runs, records the gradient of the output (`grad_output`) and calls the pre-hooks,
`hook(module, grad_output)` (a non-None result replaces it); the input's node, after it ran,
calls the hooks, `hook(module, grad_input, grad_output)` (a non-None result replaces the
gradient that flows on). With no input requiring grad, the hooks are called at the output,
with `grad_input` `(None,)`.

(PyTorch puts all the tensor inputs through one node; diffcli gives each its own, and the
hooks then run once the last input's gradient is known. An output that is not a single
tensor gets no hooks.)
"""

from __future__ import annotations

from ..engine import errors as engine_errors
from ..engine import hooks
from ..engine.ops.hook_identity import backward_hook_identity
from ..engine.tensor import Tensor
from .pybuiltins import host_callable

NO_INPUTS_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no "
    "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details."
)


class BackwardHook:
    """One call's hook state: the output's gradient, the inputs' gradients seen so far."""

    def __init__(self, interp, module, full, pre, node):
        self.module = module
        self.full = [host_callable(interp, fn, node) for fn in full]
        self.pre = [host_callable(interp, fn, node) for fn in pre]
        self.grad_output = None
        self.n_inputs = 0
        self.grads = {}

    def setup_inputs(self, args):
        out = []
        for a in args:
            if isinstance(a, Tensor) and a.needs_grad:
                wrapped = backward_hook_identity(a)
                hooks.register_node_hook(wrapped.grad_fn, self._input_hook(self.n_inputs))
                self.n_inputs += 1
                out.append(wrapped)
            else:
                out.append(a)
        return out

    def setup_output(self, result):
        if not isinstance(result, Tensor) or not result.needs_grad:
            return result
        wrapped = backward_hook_identity(result)
        hooks.register_node_prehook(wrapped.grad_fn, self._output_hook)
        return wrapped

    def _output_hook(self, grad_outputs):
        grad_output = tuple(grad_outputs)
        for fn in self.pre:
            out = fn(self.module, grad_output)
            if out is not None:
                grad_output = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        self.grad_output = grad_output
        if self.n_inputs == 0:
            if self.full:
                engine_errors.warn(NO_INPUTS_WARNING)
            for fn in self.full:
                fn(self.module, (None,), self.grad_output)
        return grad_output

    def _input_hook(self, index):
        def hook(grad_inputs, grad_outputs):
            self.grads[index] = grad_outputs[0]
            if len(self.grads) < self.n_inputs:
                return None
            grad_input = tuple(self.grads[i] for i in range(self.n_inputs))
            for fn in self.full:
                out = fn(self.module, grad_input, self.grad_output)
                if out is not None:
                    grad_input = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            return (grad_input[index],) if index < len(grad_input) else None

        return hook
