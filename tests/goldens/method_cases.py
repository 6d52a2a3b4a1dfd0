"""The tensor methods autograd tutorials use that diffcli gained after the first op
table (gather/scatter, masked_fill, index_*, sort/topk, tril/triu, split/chunk, copy_,
new_*): snippets for tests/goldens/record_ops.py, in its (group, label, setup, expr) form,
written for these tests. `SECOND_ORDER` names those whose second-order gradients are
recorded too."""

M = "a = T([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]])"  # the 2x3 leaf most snippets use
IDX = "idx = C([[0, 2], [1, 1]])"  # an index with a repeat (1, 1) for gather/scatter_add

SNIPPETS = [
    # --- gather / scatter / scatter_add ---
    ("scatter_gather", "a.gather(1, idx)", f"{M}; {IDX}", "a.gather(1, idx)"),
    ("scatter_gather", "torch.gather(a, 0, idx)", f"{M}; {IDX}", "torch.gather(a, 0, idx)"),
    ("scatter_gather", "gather smaller index", f"{M}; idx = C([[2]])", "a.gather(1, idx)"),
    ("scatter_gather", "gather 1-D", "v = T([3.0, 1.0, 2.0]); i = C([2, 2, 0, 1])", "v.gather(0, i)"),
    ("scatter_gather", "gather 0-d", "s = T(2.5); i = C(0)", "s.gather(0, i)"),
    (
        "scatter_gather",
        "gather int32 index",
        f"{M}; idx = C([[1], [0]], dtype=torch.int32)",
        "a.gather(1, idx)",
    ),
    ("scatter_gather", "gather float index", f"{M}; idx = C([[0.0]])", "a.gather(1, idx)"),
    ("scatter_gather", "gather index out of bounds", f"{M}; idx = C([[3]])", "a.gather(1, idx)"),
    ("scatter_gather", "gather negative index", f"{M}; idx = C([[-1]])", "a.gather(1, idx)"),
    ("scatter_gather", "gather index ndim", f"{M}; idx = C([0])", "a.gather(1, idx)"),
    ("scatter_gather", "gather index too large", f"{M}; idx = C([[0], [1], [2]])", "a.gather(1, idx)"),
    ("scatter_gather", "gather dim out of range", f"{M}; {IDX}", "a.gather(2, idx)"),
    (
        "scatter_gather",
        "a.scatter(1, idx, src)",
        f"{M}; s = T([[10.0, 20.0], [30.0, 40.0]]); idx = C([[0, 2], [1, 0]])",
        "a.scatter(1, idx, s)",
    ),
    (
        "scatter_gather",
        "scatter src larger than index",
        f"{M}; s = C([[10.0, 20.0, 5.0], [30.0, 40.0, 6.0]]); idx = C([[2], [0]])",
        "a.scatter(1, idx, s)",
    ),
    ("scatter_gather", "a.scatter(1, idx, 7.0)", f"{M}; idx = C([[0], [2]])", "a.scatter(1, idx, 7.0)"),
    (
        "scatter_gather",
        "torch.scatter(a, 0, idx, value=-1)",
        f"{M}; idx = C([[1, 0, 1]])",
        "torch.scatter(a, 0, idx, value=-1)",
    ),
    (
        "scatter_gather",
        "scatter constant self",
        "z = C([0.0, 0.0, 0.0, 0.0]); s = T([1.5, 2.5]); i = C([3, 0])",
        "z.scatter(0, i, s)",
    ),
    ("scatter_gather", "scatter int self", "z = C([1, 2, 3]); i = C([0])", "z.scatter(0, i, 2.7)"),
    (
        "scatter_gather",
        "scatter dtype mismatch",
        f"{M}; s = T([[1.0]], dtype=torch.float32); idx = C([[0]])",
        "a.scatter(1, idx, s)",
    ),
    (
        "scatter_gather",
        "scatter index larger than src",
        f"{M}; s = T([[1.0]]); idx = C([[0, 1]])",
        "a.scatter(1, idx, s)",
    ),
    ("scatter_gather", "scatter index out of bounds", f"{M}; idx = C([[5]])", "a.scatter(1, idx, 1.0)"),
    ("scatter_gather", "scatter float index", f"{M}; idx = C([[0.0]])", "a.scatter(1, idx, 1.0)"),
    ("scatter_gather", "scatter index ndim", f"{M}; idx = C([0])", "a.scatter(1, idx, 1.0)"),
    (
        "scatter_gather",
        "a.scatter_add(1, idx, src)",
        f"{M}; s = T([[1.0, 2.0], [3.0, 4.0]]); {IDX}",
        "a.scatter_add(1, idx, s)",
    ),
    (
        "scatter_gather",
        "torch.scatter_add(z, 0, i, v)",
        "z = C([0.0, 0.0, 0.0]); v = T([1.0, 2.0, 3.0, 4.0]); i = C([0, 2, 0, 0])",
        "torch.scatter_add(z, 0, i, v)",
    ),
    ("scatter_gather", "scatter_add src not a tensor", f"{M}; {IDX}", "a.scatter_add(1, idx, 1.0)"),
    (
        "scatter_gather",
        "y.scatter_(1, idx, 0.0)",
        f"{M}; idx = C([[0], [2]]); y = a * 2",
        "y.scatter_(1, idx, 0.0)",
    ),
    (
        "scatter_gather",
        "y.scatter_(0, idx, src)",
        f"{M}; s = T([[9.0, 8.0, 7.0]]); idx = C([[1, 0, 1]]); y = a * 1",
        "y.scatter_(0, idx, s)",
    ),
    (
        "scatter_gather",
        "z.scatter_add_(0, i, v)",
        "z = C([0.0, 0.0, 0.0]); v = T([1.0, 2.0, 3.0]); i = C([0, 0, 2])",
        "z.scatter_add_(0, i, v)",
    ),
    ("scatter_gather", "scatter_ on a leaf", f"{M}; idx = C([[0]])", "a.scatter_(1, idx, 0.0)"),
    (
        "scatter_gather",
        "one-hot by scatter_",
        "z = C([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]); i = C([[2], [0]])",
        "z.scatter_(1, i, 1.0)",
    ),
]

SECOND_ORDER = {
    "scatter_gather/a.gather(1, idx)",
    "scatter_gather/a.scatter(1, idx, src)",
    "scatter_gather/a.scatter_add(1, idx, src)",
    "scatter_gather/a.scatter(1, idx, 7.0)",
}
