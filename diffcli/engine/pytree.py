"""Pytrees as torch.utils._pytree has them, for torch.func: the tensors in nested tuples,
lists and dicts flattened to a list of leaves and a spec that rebuilds the structure, and
the spec's two printed forms (`treespec_pprint` in error texts, `TreeSpec(...)`'s repr)."""

from __future__ import annotations


def tree_flatten(tree):
    """(leaves, spec); a spec is None for a leaf, else (kind, keys, child specs)."""
    if isinstance(tree, (tuple, list)):
        leaves, specs = [], []
        for item in tree:
            sub, spec = tree_flatten(item)
            leaves += sub
            specs.append(spec)
        return leaves, (type(tree), None, tuple(specs))
    if isinstance(tree, dict):
        leaves, specs = [], []
        for k in tree:
            sub, spec = tree_flatten(tree[k])
            leaves += sub
            specs.append(spec)
        return leaves, (dict, tuple(tree), tuple(specs))
    return [tree], None


def tree_unflatten(leaves, spec):
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        kind, keys, children = s
        items = [build(c) for c in children]
        return dict(zip(keys, items)) if kind is dict else kind(items)

    return build(spec)


def spec_pprint(spec) -> str:
    """`treespec_pprint`: `*`, `(*, *)`, `[*]`, `(*,)`."""
    if spec is None:
        return "*"
    kind, keys, children = spec
    parts = [spec_pprint(c) for c in children]
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(keys, parts)) + "}"
    if kind is tuple:
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return "[" + ", ".join(parts) + "]"


def spec_repr(spec, indent=0) -> str:
    """A TreeSpec's repr: `*`, `TreeSpec(tuple, None, [*,\\n  *])`."""
    if spec is None:
        return "*"
    kind, keys, children = spec
    inner = indent + 2
    parts = [spec_repr(c, inner) for c in children]
    body = (",\n" + " " * inner).join(parts)
    context = "None" if keys is None else repr(list(keys))
    return f"TreeSpec({kind.__name__}, {context}, [{body}])"
