"""The views of a function that returns several (split, chunk, unbind: PyTorch's
CreationMeta::MULTI_OUTPUT_NODE), and the views of those: they may not be modified in
place while grad mode is on, and once their base (or another view of it) is modified in
place their history is invalid: their grad_fn prints as <Invalid>, and reading it or using
the view in an op that records a graph raises PyTorch's error. A view's tag (set by the op
that made it) is `(output number, op name)`: (1, "Split") reads "Output 1 of Split"."""

from __future__ import annotations

from . import errors
from .node import Node

_TAIL = (
    "This view is the output of a function that returns multiple views. Such functions do not allow "
    "the output views to be modified inplace. You should replace the inplace operation by an "
    "out-of-place one."
)


def _raise(*_):
    raise errors.TorchRuntimeError("a view's history was invalidated by an in-place modification")


# the grad_fn of an invalidated view (one node for all: it has no edges and never runs)
INVALID = Node("Invalid", (), _raise, (), ())


def inplace_error(t) -> errors.TorchRuntimeError:
    i, name = t._multi_output
    return errors.TorchRuntimeError(f"Output {i} of {name} is a view and is being modified inplace. {_TAIL}")


def invalid_error(t) -> errors.TorchRuntimeError:
    i, name = t._multi_output
    return errors.TorchRuntimeError(
        f"Output {i} of {name} is a view and its base or another view of its base has been modified "
        f"inplace. {_TAIL}"
    )


def check(t) -> None:
    """Raise PyTorch's error if `t` is an invalidated view (its grad_fn is read or used)."""
    if t.grad_fn is INVALID:
        raise invalid_error(t)


def tag(view, output_nr: int, name: str) -> None:
    view._multi_output = (output_nr, name)


def tag_view_of(out, base) -> None:
    """A view of a tagged view is tagged too, as output 0 of its own op ("View")."""
    if base._multi_output is not None and out.grad_fn is not None:
        name = out.grad_fn.name()
        out._multi_output = (0, name[: name.rfind("Backward")] if "Backward" in name else name)


def invalidate(view) -> bool:
    """After an in-place change of `view`'s memory: a tagged view of a base that requires
    grad loses its history (True); any other view is left to the caller (False)."""
    if view._multi_output is None:
        return False
    base = view._base
    if base is None or not base.needs_grad:
        return False
    view.grad_fn = INVALID
    view.needs_grad = True
    return True
