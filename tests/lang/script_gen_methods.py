"""The "methods" family of script_gen's expressions: the tensor methods of tutorials
(gather/scatter, masked_*, index_*, sort/topk/median..., splits, diagonals, einsum,
rearrangements, value tests, copies...), each drawn on an operand x with arguments
that keep the program valid for x's shape and within what PyTorch and finite
differences agree on: indices are literals in range (permutations where a repeat would
make the winner of a write unspecified), the ops that pick values by order see x plus
distinct offsets (no ties), the ops without a derivative (or with bool/int results) see
constant literals and join x through where() or arithmetic. `gen(g, depth, pool)` returns
the expression (with its shape, a sound interval and its dependencies) or None when x's
shape does not allow the op drawn."""

from __future__ import annotations

import numpy as np

from . import script_gen as G

# op -> the minimum number of x's dims it needs (the maximum: 2, the generator's shapes)
NEEDS = {
    **dict.fromkeys(
        "exp2 frac sgn nan_to_num fmod heaviside isnan isinf isfinite isposinf isneginf signbit isclose "
        "logical_xor count_nonzero nonzero argsort atleast_1d atleast_2d atleast_3d hstack vstack "
        "column_stack repeat_interleave tile broadcast_to addcmul addcdiv lerp empty_like logspace "
        "nansum median take put masked_fill masked_select masked_scatter einsum unique bincount "
        "searchsorted bucketize".split(),
        0,
    ),
    **dict.fromkeys(
        "gather scatter scatter_add index_select index_add index_copy index_fill index_put sort topk "
        "kthvalue mode cummax cummin cumprod split chunk unbind narrow tensor_split diff roll flipud "
        "unflatten diag_embed meshgrid".split(),
        1,
    ),
    **dict.fromkeys(
        "tril triu diagonal trace diag rot90 fliplr movedim moveaxis swapaxes swapdims".split(), 2
    ),
}
NEEDS.update(dict.fromkeys("threshold l1_loss one_hot ravel".split(), 0))
NEEDS.update(dict.fromkeys("bitwise_and bitwise_or bitwise_xor bitwise_not".split(), 0))
NEEDS.update(dict.fromkeys("cosine_similarity normalize".split(), 1))
OPS = sorted(NEEDS)
# torch.nn.functional's (written F.name in the PyTorch flavours)
F_FORM = {"threshold", "cosine_similarity", "normalize", "l1_loss", "one_hot"}
# the functions torch has only as tensor methods in this list: none; the ones torch has
# only as functions (no Tensor method)
FUNCTION_ONLY = {"atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "column_stack", "einsum",
                 "empty_like", "logspace", "meshgrid", "searchsorted", "bucketize"}  # fmt: skip


def _lit(g, shape, values, ints=False):
    return G.TensorLit(G._literal(shape, list(values)), "bare" if g.flavour == "math" else "torch", ints)


def _fn_form(g, fn):
    """How to write fn: the flavour's forms, limited to what torch has for it."""
    if fn in F_FORM:
        return "bare" if g.flavour == "math" else "F"
    if fn in FUNCTION_ONLY:
        return "bare" if g.flavour == "math" else "torch"
    if g.flavour == "math":
        return g.choice(["bare", "method"])
    return g.choice(["torch", "method"] + (["bare"] if g.flavour == "mixed" else []))


def _call(g, fn, args, kwargs=()):
    name = g.name_for(fn)
    return G.Call(name, args, kwargs, _fn_form(g, fn))


def _where(g, cond, x):
    """where(cond, x, 2 * x): a bool tensor joined to x."""
    e = G.Call("where", [cond, x, g.mul(x, 2)], [], "bare" if g.flavour == "math" else "torch")
    return e.set(x.shape, min(x.lo, 2 * x.lo), max(x.hi, 2 * x.hi), g.deps_of(x), g.rg_of(x))


def _distinct(g, x):
    """x bounded to (-0.4, 0.4) plus offsets 0, 1, 2... in memory order: every element
    differs from every other by more than 0.2 (no ties, whatever the values)."""
    b = g.prep(x, ("bound", 0.4))
    n = G._numel(b.shape)
    off = _lit(g, b.shape, [float(i) for i in range(n)])
    return G.Bin("+", b, off).set(b.shape, b.lo, b.hi + n - 1, b.deps, b.rg)


def _perm(g, n):
    """A permutation of range(n): a rotation, or the reverse."""
    if g.chance(3):
        return list(range(n))[::-1]
    k = g.d(G.st.integers(0, n - 1))
    return [(i + k) % n for i in range(n)]


def _along(s, d, values):
    """An index of shape s whose lines along dim d are `values` (flat, in memory order)."""
    shape = [len(values) if i == d else 1 for i in range(len(s))]
    return np.broadcast_to(np.asarray(values).reshape(shape), s).reshape(-1).tolist()


class _Key:
    """An index_put key: a one-tensor tuple, `(tensor([...]),)`."""

    def __init__(self, index):
        self.index = index

    def text(self, py):
        return "(" + self.index.text(py) + ",)"


def gen(g, depth, pool):
    fn = g.pick(OPS)
    x = g.prep(g.operand(depth - 1, pool), ("any",))
    s = x.shape
    nd = len(s)
    if nd < NEEDS[fn] or any(k == 0 for k in s):
        return None
    n = G._numel(s)
    deps, rg = g.deps_of(x), g.rg_of(x)
    lo, hi = x.lo, x.hi
    L = G.Lit

    def out(e, shape, lo_, hi_, d=deps, r=rg):
        return e.set(shape, lo_, hi_, d, r)

    def dim():
        return g.d(G.st.integers(0, nd - 1)) if nd else 0

    # --- elementwise ---
    if fn == "exp2":
        x = g.prep(x, ("bound", 10))
        return out(_call(g, fn, [x]), s, 2.0**x.lo, 2.0**x.hi, g.deps_of(x), g.rg_of(x))
    if fn == "frac":  # |x| < 1: frac(x) is x (its jumps are at the nonzero integers)
        x = g.prep(x, ("bound", 0.9))
        return out(_call(g, fn, [x]), s, x.lo, x.hi, g.deps_of(x), g.rg_of(x))
    if fn == "sgn":  # x * sgn(x + c) with x + c > 0: x (sgn's jump stays away)
        p = g.prep(x, ("pos", 0.5))
        return out(G.Bin("*", x, _call(g, fn, [p])), s, lo, hi)
    if fn == "nan_to_num":
        kw = [("nan", G.Num(0.0))] if g.chance(3) else []
        return out(_call(g, fn, [x], kw), s, lo, hi)
    if fn == "fmod":  # 0 < x < d: x itself
        x = g.prep(x, ("pos", 0.1))
        d = float(int(x.hi) + 2)
        return out(_call(g, fn, [x, G.Num(d)]), s, x.lo, x.hi, g.deps_of(x), g.rg_of(x))
    if fn == "heaviside":  # no derivative: on constants, added to x
        c = _lit(g, s, [g.choice([-1.5, 0.0, 2.0]) for _ in range(n)])
        h = _call(g, fn, [c, _lit(g, (), [0.5])])
        return out(G.Bin("+", x, h), s, lo, hi + 1)
    if fn in ("addcmul", "addcdiv"):
        x = g.prep(x, ("bound", 10))
        v = g.choice([0.5, -0.25, 2.0])
        if fn == "addcmul":
            e = _call(g, fn, [x, x, x], [("value", G.Num(v))])
            m = 0.5 * abs(v) * 2 * x.mag**2
            return out(e, s, x.lo - m, x.hi + m, g.deps_of(x), g.rg_of(x))
        d = g.prep(x, ("pos", 1.0))
        e = _call(g, fn, [x, x, d], [("value", G.Num(v))])
        m = abs(v) * x.mag
        return out(e, s, x.lo - m, x.hi + m, g.deps_of(x, d), g.rg_of(x, d))
    if fn == "lerp":
        if g.chance(5):
            w = g.unary("sigmoid", x, 0, 1)
            e = _call(g, fn, [x, g.mul(x, 2), w])
        else:
            e = _call(g, fn, [x, g.mul(x, 2), G.Num(g.choice([0.25, 0.75]))])
        return out(e, s, min(lo, 2 * lo), max(hi, 2 * hi))
    # --- torch.nn.functional's compositions (engine/ops/functional.py) ---
    if fn == "threshold":  # x > 1 > the threshold: x itself (the kink stays away)
        p = g.prep(x, ("pos", 1.0))
        e = _call(g, fn, [p, G.Num(0.5), G.Num(20.0)])
        return out(e, s, p.lo, p.hi, g.deps_of(p), g.rg_of(p))
    if fn in ("cosine_similarity", "normalize"):  # positive inputs: norms away from 0
        p = g.prep(x, ("pos", 0.5))
        d, r = g.deps_of(p), g.rg_of(p)
        if fn == "normalize":
            return out(_call(g, fn, [p], [("dim", L("-1"))]), s, 0.0, 1.0, d, r)
        q = g.prep(g.mul(x, 2), ("pos", 1.0))
        e = _call(g, fn, [p, q], [("dim", L("-1"))])
        return out(e, s[:-1], 0.0, 1.0, g.deps_of(p, q), g.rg_of(p, q))
    if fn == "l1_loss":  # |x - 20| with |x| < 10: no kink
        b = g.prep(x, ("bound", 10))
        c = _lit(g, s, [20.0] * n)
        red = g.choice(["mean", "sum"])
        e = _call(g, fn, [b, c], [("reduction", L(repr(red)))])
        top = 30.0 * (n if red == "sum" else 1)
        return out(e, (), 0.0, top, g.deps_of(b), g.rg_of(b))
    if fn == "one_hot":  # (int results: on constants)
        c = _call(g, fn, [_lit(g, (n,), [g.d(G.st.integers(0, 2)) for _ in range(n)], True), L("3")])
        return out(G.Bin("+", x, G.Call("sum", [c], [], "method")), s, lo + n, hi + n)
    if fn == "ravel":
        return out(_call(g, fn, [x]), (n,), lo, hi)
    # --- value tests and int results: on constants ---
    if fn in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isclose", "logical_xor") or (
        fn.startswith("bitwise_")
    ):
        c = _lit(g, s, [g.choice([-1.5, 0.5, 2.0]) for _ in range(n)])
        if fn == "isclose":
            cond = _call(g, fn, [c, c])
        elif fn == "bitwise_not":
            cond = _call(g, fn, [G.Cmp(">", c, G.Num(0.0))])
        elif fn == "logical_xor" or fn.startswith("bitwise_"):
            cond = _call(g, fn, [G.Cmp(">", c, G.Num(0.0)), G.Cmp("<", c, G.Num(1.0))])
        else:
            cond = _call(g, fn, [c])
        return _where(g, cond, x)
    if fn in ("count_nonzero", "argsort"):
        c = _lit(g, s, [g.choice([-1.5, 0.0, 0.5, 2.0]) + 0.01 * i for i in range(n)])
        k = _call(g, fn, [c])
        return out(G.Bin("+", x, k), s, lo, hi + n)
    if fn == "nonzero":
        c = _lit(g, s, [g.choice([0.0, 0.5]) for _ in range(n)])
        k = G.Call("numel", [_call(g, fn, [c])], [], "method")
        return out(G.Bin("*", x, k), s, min(0.0, lo * n * 2), max(0.0, hi * n * 2))
    if fn == "unique":  # (no derivative: on constants)
        vals = [g.choice([-1.5, 0.5, 2.0]) for _ in range(n)]
        u = G.Call("sum", [_call(g, fn, [_lit(g, s, vals)])], [], "method")
        total = sum(set(vals))
        return out(G.Bin("+", x, u), s, lo + total, hi + total)
    if fn == "bincount":
        vals = [g.d(G.st.integers(0, 3)) for _ in range(n)]
        c = _call(g, fn, [_lit(g, (n,), vals, True)])
        return out(G.Bin("+", x, G.Call("sum", [c], [], "method")), s, lo + n, hi + n)
    if fn in ("searchsorted", "bucketize"):
        q = _lit(g, s, [g.choice([-0.5, 0.5, 1.0, 2.5]) for _ in range(n)])
        b = _lit(g, (3,), [0.0, 1.0, 2.0])
        kw = [("right", L("True"))] if g.chance(3) else []
        k = _call(g, fn, [b, q] if fn == "searchsorted" else [q, b], kw)
        return out(G.Bin("+", x, k), s, lo, hi + 3)
    # --- constructors ---
    if fn == "empty_like":  # its values are unset in PyTorch: zeroed first
        z = G.Call("zero_", [_call(g, fn, [x])], [], "method")
        return out(G.Bin("+", x, z), s, lo, hi)
    if fn == "logspace":
        k = s[-1] if nd else 1
        e = _call(g, fn, [G.Num(0.0), G.Num(1.0), L(str(k))])
        return out(G.Bin("*", x, e), s, min(lo, 10 * lo), max(hi, 10 * hi))
    # --- shapes from x: stacks, atleast, tile, repeat_interleave, broadcast_to ---
    if fn in ("hstack", "vstack", "column_stack"):
        pair = G.ListE([x, x])
        if fn == "hstack":
            shape = (2,) if nd == 0 else (2 * s[0],) if nd == 1 else (s[0], 2 * s[1])
        elif fn == "vstack":
            shape = (2, 1) if nd == 0 else (2, s[0]) if nd == 1 else (2 * s[0], s[1])
        else:
            shape = (1, 2) if nd == 0 else (s[0], 2) if nd == 1 else (s[0], 2 * s[1])
        return out(_call(g, fn, [pair]), shape, lo, hi)
    if fn.startswith("atleast_"):
        k = int(fn[8])
        shape = s
        if nd < k:
            shape = (1,) * k if nd == 0 else (1, s[0]) if k == 2 else (1, s[0], 1) if nd == 1 else s + (1,)
        e = _call(g, fn, [x])
        e = out(e, shape, lo, hi)
        e.alias, e.view = x.alias, True
        return e
    if fn == "tile":
        shape = (2,) if nd == 0 else s[:-1] + (2 * s[-1],)
        return out(_call(g, fn, [x, L("(2,)")]), shape, lo, hi)
    if fn == "repeat_interleave":
        if nd and g.chance(5):
            d = dim()
            shape = s[:d] + (2 * s[d],) + s[d + 1 :]
            return out(_call(g, fn, [x, L("2")], [("dim", L(str(d)))]), shape, lo, hi)
        return out(_call(g, fn, [x, L("2")]), (2 * n,), lo, hi)
    if fn == "broadcast_to":
        shape = (2,) + s
        e = out(_call(g, fn, [x, L(repr(shape))]), shape, lo, hi)
        e.alias, e.view = x.alias, True
        return e
    # --- reductions and selections by order: on distinct values ---
    if fn in ("nansum",):
        if nd and g.chance(5):
            d = dim()
            k = s[d]
            return out(_call(g, fn, [x, L(str(d))]), s[:d] + s[d + 1 :], min(lo, k * lo), max(hi, k * hi))
        return out(_call(g, fn, [x]), (), min(lo, n * lo), max(hi, n * hi))
    if fn in ("median", "sort", "topk", "kthvalue", "mode", "cummax", "cummin"):
        y = _distinct(g, x)
        d = dim()
        k = s[d] if nd else 1
        ylo, yhi = y.lo, y.hi
        if fn == "median" and (not nd or g.chance(5)):
            return out(_call(g, fn, [y]), (), ylo, yhi, y.deps, y.rg)
        rest = s[:d] + s[d + 1 :]
        if fn == "median":
            e, shape = _call(g, fn, [y, L(str(d))]), rest
        elif fn == "sort":
            kw = [("descending", L("True"))] if g.chance(5) else []
            e, shape = _call(g, fn, [y, L(str(d))], kw), s
        elif fn == "topk":
            kk = g.d(G.st.integers(1, k))
            e, shape = _call(g, fn, [y, L(str(kk))], [("dim", L(str(d)))]), s[:d] + (kk,) + s[d + 1 :]
        elif fn == "kthvalue":
            kk = g.d(G.st.integers(1, k))
            e, shape = _call(g, fn, [y, L(str(kk)), L(str(d))]), rest
        elif fn == "mode":
            e, shape = _call(g, fn, [y, L(str(d))]), rest
        else:
            e, shape = _call(g, fn, [y, L(str(d))]), s
        v = G.Attr(e, "values") if g.chance(6) else G.Index(e, "0")
        return out(v, shape, ylo, yhi, y.deps, y.rg)
    if fn == "cumprod":
        x = g.prep(x, ("bound", 2))
        d = dim()
        m = max(1.0, x.mag) ** s[d]
        return out(_call(g, fn, [x, L(str(d))]), s, -m, m, g.deps_of(x), g.rg_of(x))
    # --- gather / scatter / index_* / take / put / masked_* (literal indices) ---
    if fn == "gather":
        d = dim()
        idx = [g.d(G.st.integers(0, s[d] - 1)) for _ in range(n)]
        return out(_call(g, fn, [x, L(str(d)), _lit(g, s, idx, True)]), s, lo, hi)
    if fn in ("scatter", "scatter_add"):
        d = dim()
        m = s[d]
        idx = _along(s, d, _perm(g, m))
        index = _lit(g, s, idx, True)
        if fn == "scatter" and g.chance(4):
            return out(_call(g, fn, [x, L(str(d)), index, G.Num(1.5)]), s, min(lo, 1.5), max(hi, 1.5))
        src = g.mul(x, 0.5)
        if fn == "scatter":
            return out(_call(g, fn, [x, L(str(d)), index, src]), s, min(lo, 0.5 * lo), max(hi, 0.5 * hi))
        return out(
            _call(g, fn, [x, L(str(d)), index, src]), s, lo + min(0.0, 0.5 * lo), hi + max(0.0, 0.5 * hi)
        )
    if fn == "index_select":
        d = dim()
        idx = [g.d(G.st.integers(0, s[d] - 1)) for _ in range(g.d(G.st.integers(1, 3)))]
        shape = s[:d] + (len(idx),) + s[d + 1 :]
        return out(_call(g, fn, [x, L(str(d)), _lit(g, (len(idx),), idx, True)]), shape, lo, hi)
    if fn in ("index_add", "index_copy"):
        d = dim()
        perm = _perm(g, s[d])
        index = _lit(g, (s[d],), perm, True)
        src = g.mul(x, 0.5)
        if fn == "index_add":
            return out(
                _call(g, fn, [x, L(str(d)), index, src]), s, lo + min(0.0, 0.5 * lo), hi + max(0.0, 0.5 * hi)
            )
        return out(_call(g, fn, [x, L(str(d)), index, src]), s, min(lo, 0.5 * lo), max(hi, 0.5 * hi))
    if fn == "index_fill":
        d = dim()
        index = _lit(g, (1,), [g.d(G.st.integers(0, s[d] - 1))], True)
        return out(_call(g, fn, [x, L(str(d)), index, G.Num(-0.5)]), s, min(lo, -0.5), max(hi, -0.5))
    if fn == "index_put":
        key = _Key(_lit(g, (s[0],), _perm(g, s[0]), True))
        if g.chance(5):
            e = _call(g, fn, [x, key, x], [("accumulate", L("True"))])
            return out(e, s, 2 * min(lo, 0.0), 2 * max(hi, 0.0))
        return out(_call(g, fn, [x, key, g.mul(x, 2)]), s, min(lo, 2 * lo), max(hi, 2 * hi))
    if fn == "take":
        k = g.d(G.st.integers(1, 3))
        idx = [g.d(G.st.integers(0, n - 1)) for _ in range(k)]
        return out(_call(g, fn, [x, _lit(g, (k,), idx, True)]), (k,), lo, hi)
    if fn == "put":
        flat = G.Call("flatten", [x], [], "method")
        perm = _perm(g, n)
        src = G.Bin("*", flat, G.Num(0.5))
        acc = g.chance(5)
        e = _call(g, fn, [x, _lit(g, (n,), perm, True), src], [("accumulate", L("True"))] if acc else [])
        if acc:
            return out(e, s, lo + min(0.0, 0.5 * lo), hi + max(0.0, 0.5 * hi))
        return out(e, s, min(lo, 0.5 * lo), max(hi, 0.5 * hi))
    if fn in ("masked_fill", "masked_select", "masked_scatter"):
        vals = [g.choice([-1.5, 0.5, 2.0]) for _ in range(n)]
        vals[0] = 2.0  # (at least one True)
        mask = G.Cmp(">", _lit(g, s, vals), G.Num(0.0))
        count = sum(v > 0 for v in vals)
        if fn == "masked_fill":
            return out(_call(g, fn, [x, mask, G.Num(0.25)]), s, min(lo, 0.25), max(hi, 0.25))
        if fn == "masked_select":
            return out(_call(g, fn, [x, mask]), (count,), lo, hi)
        return out(_call(g, fn, [x, mask, g.mul(x, 2)]), s, min(lo, 2 * lo), max(hi, 2 * hi))
    # --- pieces and rearrangements ---
    if fn in ("split", "chunk", "unbind", "tensor_split", "narrow"):
        d = dim()
        m = s[d]
        if fn == "unbind":
            e, shape = _call(g, fn, [x, L(str(d))]), s[:d] + s[d + 1 :]
        elif fn == "narrow":
            start = g.d(G.st.integers(0, m - 1))
            length = g.d(G.st.integers(1, m - start))
            e = _call(g, fn, [x, L(str(d)), L(str(start)), L(str(length))])
            v = out(e, s[:d] + (length,) + s[d + 1 :], lo, hi)
            v.alias, v.view = x.alias, True
            return v
        else:
            k = g.d(G.st.integers(1, m))
            if fn == "split":
                first = min(k, m)
            elif fn == "chunk":
                first = -(-m // k)
            else:
                first = m // k + (1 if m % k else 0)
            e = _call(g, fn, [x, L(str(k))], [("dim", L(str(d)))])
            shape = s[:d] + (first,) + s[d + 1 :]
        v = out(G.Index(e, "0"), shape, lo, hi)
        v.alias, v.view = x.alias, True
        return v
    if fn == "diff":
        d = nd - 1
        if s[d] < 2:
            return None
        return out(_call(g, fn, [x]), s[:d] + (s[d] - 1,), lo - hi, hi - lo)
    if fn == "roll":
        d = dim()
        return out(_call(g, fn, [x, L(str(g.choice([1, -1, 2]))), L(str(d))]), s, lo, hi)
    if fn in ("flipud", "fliplr"):
        return out(_call(g, fn, [x]), s, lo, hi)
    if fn == "unflatten":
        d = nd - 1
        e = _call(g, fn, [x, L(str(d)), L(f"(1, {s[d]})")])
        v = out(e, s[:d] + (1, s[d]), lo, hi)
        v.alias, v.view = x.alias, True
        return v
    if fn == "diag_embed":
        return out(_call(g, fn, [x]), s + (s[-1],), min(lo, 0.0), max(hi, 0.0))
    if fn == "meshgrid":
        if nd != 1:
            return None
        e = _call(g, fn, [x, x], [("indexing", L(repr(g.choice(["ij", "xy"]))))])
        v = out(G.Index(e, "0"), (s[0], s[0]), lo, hi)
        v.alias, v.view = x.alias, True
        return v
    if fn == "einsum":
        if nd < 2:
            m = n * x.mag**2
            eq = "i,i->" if nd else ",->"
            return out(_call(g, fn, [L(repr(eq)), x, x]), (), -m, m)
        return out(_call(g, fn, [L("'ij->ji'"), x]), (s[1], s[0]), lo, hi)
    # --- matrices (2-D x) ---
    if fn in ("tril", "triu"):
        return out(_call(g, fn, [x]), s, min(lo, 0.0), max(hi, 0.0))
    if fn == "diagonal":
        v = out(_call(g, fn, [x]), (min(s),), lo, hi)
        v.alias, v.view = x.alias, True
        return v
    if fn == "diag":
        return out(_call(g, fn, [x]), (min(s),), lo, hi)
    if fn == "trace":
        k = min(s)
        return out(_call(g, fn, [x]), (), min(lo, k * lo), max(hi, k * hi))
    if fn == "rot90":
        return out(_call(g, fn, [x]), (s[1], s[0]), lo, hi)
    if fn in ("movedim", "moveaxis", "swapaxes", "swapdims"):
        v = out(_call(g, fn, [x, L("0"), L("1")]), (s[1], s[0]), lo, hi)
        v.alias, v.view = x.alias, True
        return v
    raise AssertionError(fn)
