"""Gradients of gradients of the tensor methods added for tutorials, where no golden of
ops.json shows the node (the recorder's upstream gradient is a constant, so a linear op's
first-order gradient has no graph): names and values as torch 2.13.0 gave them for the
same programs (float64)."""

from __future__ import annotations

from diffcli.engine import FUNCTIONS, grad, tensor


def _names(t):
    out, todo = [], [t.grad_fn]
    while todo:
        fn = todo.pop()
        if fn is not None and fn.name() not in out:
            out.append(fn.name())
            todo += [f for f, _ in fn.next_functions]
    return [n for n in out if n != "AccumulateGrad"]


A = [[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]]
W = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]


def test_diagonal_gradient_is_diagonal_backward_whose_gradient_is_a_diagonal():
    a = tensor(A, requires_grad=True)
    r = a.diagonal()
    (g,) = grad((r * r).sum(), a, create_graph=True)
    assert _names(g) == ["DiagonalBackwardBackward0", "AddBackward0", "MulBackward0", "DiagonalBackward0"]
    assert g.tolist() == [[3.0, 0.0, 0.0], [0.0, 8.0, 0.0]]
    (h,) = grad((g * a).sum(), a)
    assert h.tolist() == [[6.0, 0.0, 0.0], [0.0, 16.0, 0.0]]


def test_diag_of_a_matrix_is_diagonal_copy():
    a = tensor(A, requires_grad=True)
    r = FUNCTIONS["diag"](a)
    (g,) = grad((r * r).sum(), a, create_graph=True)
    assert _names(g) == [
        "DiagonalBackwardBackward0",
        "AddBackward0",
        "MulBackward0",
        "DiagonalBackward0_copy",
    ]
    assert g.tolist() == [[3.0, 0.0, 0.0], [0.0, 8.0, 0.0]]


def test_trace_gradient_is_an_index_fill_viewed_as_the_matrix():
    w = tensor(W, requires_grad=True)
    r = w.trace()
    (g,) = grad(r * r, w, create_graph=True)
    assert _names(g) == [
        "ViewBackward0",
        "IndexFillBackward1",
        "AddBackward0",
        "MulBackward0",
        "TraceBackward0",
    ]
    assert g.tolist() == [[30.0, 0.0, 0.0], [0.0, 30.0, 0.0], [0.0, 0.0, 30.0]]
    (h,) = grad((g * w).sum(), w)
    assert h.tolist() == [[60.0, 0.0, 0.0], [0.0, 60.0, 0.0], [0.0, 0.0, 60.0]]


def test_unfold_gradient_is_unfold_backward_whose_gradient_is_an_unfold():
    v = tensor([3.0, 1.0, 2.0, 5.0, 4.0], requires_grad=True)
    r = v.unfold(0, 3, 1)
    (g,) = grad((r * r).sum(), v, create_graph=True)
    assert _names(g) == ["UnfoldBackwardBackward0", "AddBackward0", "MulBackward0", "UnfoldBackward0"]
    assert g.tolist() == [6.0, 4.0, 12.0, 20.0, 8.0]
    (h,) = grad((g * v).sum(), v)
    assert h.tolist() == [12.0, 8.0, 24.0, 40.0, 16.0]
