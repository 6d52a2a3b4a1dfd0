"""diffcli's own layout of a graph picture (no Graphviz needed), left to right as
`rankdir=LR` draws it: a layered drawing in the manner of Sugiyama et al.

1. rank: each node's longest path from a source (inputs at the left, the output at the
   right), by Kahn's algorithm: O(nodes + edges); then each source moves right, to just
   before its first use;
2. order within a rank: a few downward and upward sweeps that sort each rank by the
   mean position of its neighbours in the ranks before (after) it (the barycenter
   heuristic), which removes most crossings of the usual autograd graph;
3. coordinates: ranks are columns as wide as their widest node, nodes are stacked in a
   column and the columns centred on each other.

Sizes are in pixels for a monospace font of FONT pixels (CHAR wide per character).
"""

from __future__ import annotations

FONT = 12
CHAR = 7.3
LINE = 15
PAD_X, PAD_Y = 10, 6
GAP_X, GAP_Y = 46, 16
MARGIN = 12
SWEEPS = 4


def node_size(kind, lines):
    w = max(len(s) for s in lines) * CHAR + 2 * PAD_X
    h = len(lines) * LINE + 2 * PAD_Y
    if kind in ("var", "const"):  # an ellipse around the text's box
        w, h = w * 1.25, h * 1.25
    return w, h


def layout(keys, sizes, edges):
    """{key: (x, y)} centres, and the picture's (width, height). `keys` in input order;
    `sizes` {key: (w, h)}; `edges` [(src, dst)] with src before dst in a topological order."""
    preds = {k: [] for k in keys}
    succs = {k: [] for k in keys}
    for a, b in edges:
        preds[b].append(a)
        succs[a].append(b)
    indeg = {k: len(preds[k]) for k in keys}
    rank = {k: 0 for k in keys}
    ready = [k for k in keys if indeg[k] == 0]
    while ready:
        k = ready.pop()
        for s in succs[k]:
            rank[s] = max(rank[s], rank[k] + 1)
            indeg[s] -= 1
            if indeg[s] == 0:
                ready.append(s)
    for k in keys:  # a source sits just before its first use (a leaf beside its operator)
        if not preds[k] and succs[k]:
            rank[k] = max(min(rank[s] for s in succs[k]) - 1, 0)
    layers = [[] for _ in range(max(rank.values(), default=-1) + 1)]
    for k in keys:
        layers[rank[k]].append(k)
    pos = {k: i for layer in layers for i, k in enumerate(layer)}

    def sweep(order, neighbours):
        for r in order:
            layer = layers[r]

            def centre(k, layer=layer):
                ns = neighbours[k]
                return sum(pos[n] for n in ns) / len(ns) if ns else pos[k]

            layer.sort(key=centre)
            for i, k in enumerate(layer):
                pos[k] = i

    for _ in range(SWEEPS):
        sweep(range(1, len(layers)), preds)
        sweep(range(len(layers) - 2, -1, -1), succs)
    widths = [max((sizes[k][0] for k in layer), default=0) for layer in layers]
    heights = [sum(sizes[k][1] for k in layer) + GAP_Y * max(len(layer) - 1, 0) for layer in layers]
    total_h = max(heights, default=0)
    coords, x = {}, MARGIN
    for layer, w, h in zip(layers, widths, heights):
        y = MARGIN + (total_h - h) / 2
        for k in layer:
            kh = sizes[k][1]
            coords[k] = (x + w / 2, y + kh / 2)
            y += kh + GAP_Y
        x += w + GAP_X
    width = x - GAP_X + MARGIN if layers else 2 * MARGIN
    return coords, (width, total_h + 2 * MARGIN)
