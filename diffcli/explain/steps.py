"""The steps of the backward pass, from the engine itself.

`execute` runs the script with a `LineTrace` (each op's statement line and its inputs'
values when it ran); `explain` then watches every backward pass (the script's own, or the
one it adds for the target, as `diffcli grad` does) through autograd.OBSERVE, and turns
what the engine did into `Step`s. A step's `grad_output` is the gradient the engine summed
for the node's output (what retain_grad() shows); per input, `grad` is what the engine
sent on, fitted to the input's shape (broadcast dims summed). The local derivative is the
op row's text (rows.py) evaluated by diffcli's own interpreter at the node's inputs: for
an elementwise row d result / d input (then grad = sum over broadcast dims of
grad_output * local); for another row whose output is one number, the row's
vector-Jacobian product at grad = 1 (the same identity); otherwise the product itself
(`vjp`), and `local` is None.
"""

from __future__ import annotations

import re

import numpy as np

from .. import session
from ..engine import autograd
from ..engine.ops import rows as R
from ..engine.tensor import Tensor
from ..lang.errors import ScriptError
from ..lang.interpreter import Interpreter
from ..lang.parse import parse
from . import show
from .notes import why_none


class LineTrace(list):
    """The run's trace (output, inputs, node, value), plus per entry the statement line
    and, per input, (its version counter, the version then, a copy of its value)."""

    def __init__(self, interp):
        super().__init__()
        self.interp = interp
        self.lines = []
        self.inputs = []

    def append(self, entry):
        super().append(entry)
        self.lines.append(self.interp.line)
        self.inputs.append(
            tuple(
                None if t is None else (t._version, t._version[0], np.array(t.array, copy=True))
                for t in entry[1]
            )
        )


def execute(source, options, write=None, on_warning=None, observer=None, keep=None):
    """session.execute with a LineTrace (appended to the list `keep`, if given, before the
    run: an error's note reads it); `observer` watches the script's own backward passes."""

    def make(interp):
        trace = LineTrace(interp)
        if keep is not None:
            keep.append(trace)
        return trace

    with autograd.observing(observer):
        run = session.execute(source, options, write, on_warning, make_trace=make)
    run.observer = observer
    return run


class Input:
    def __init__(self, node, name, formula, filled, local, grad, vjp=None, reduced=()):
        self.node, self.name = node, name  # graph id (or None), display name
        self.formula, self.filled = formula, filled  # the row's text in names / in numbers
        self.local, self.grad, self.vjp = local, grad, vjp
        self.reduced = reduced  # broadcast dims summed away
        self.label = name  # how the text names it (`#9`)


class Step:
    def __init__(self, index, pass_, node, name, expr, grad_fn, grad_output, inputs, sources, rule):
        self.index, self.pass_ = index, pass_
        self.node, self.name, self.expr = node, name, expr  # id, script name, what it computes
        self.grad_fn, self.grad_output = grad_fn, grad_output
        self.inputs = inputs
        self.sources = sources  # [(step index, gradient)]: what summed to grad_output
        self.rule = rule


class Explanation:
    def __init__(self, target_name, target, steps, leaves, graph, notes, roots):
        self.target_name, self.target = target_name, target
        self.steps = steps
        self.leaves = leaves  # {name: (grad ndarray | None, [step indices])}
        self.graph = graph  # session.build_graph rows: the ids of `graph --format json`
        self.notes = notes  # ["why None" notes]
        self.roots = roots  # per pass, the starting gradient


class Observer:
    """Collects what the engine reports: passes of (roots, [(node, grad, grads)])."""

    def __init__(self):
        self.passes = []

    def __call__(self, node, g, grads):
        if node is None:
            self.passes.append(([(n, _array(x)) for n, x in g], []))
            return
        if not self.passes:
            self.passes.append(([], []))
        self.passes[-1][1].append(
            (node, _array(g), None if grads is None else [None if x is None else _array(x) for x in grads])
        )


def _array(x):
    if isinstance(x, Tensor):
        return np.array(x.array, copy=True)
    return np.asarray(x)


def _sum_to(g, shape):
    """Broadcasting undone (function.sum_to_shape, on arrays): the gradient and the dims summed."""
    g = np.asarray(g)
    shape = tuple(shape)
    if g.shape == shape:
        return g, ()
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and g.shape[i + lead] != 1
    )
    if dims:
        g = g.sum(axis=dims, keepdims=True)
    return g.reshape(shape), dims


_ROWS = {}


def row_of(grad_fn_name):
    """The op row of a node, by its grad_fn name (one row per name), or None."""
    if not _ROWS:
        _ROWS.update({r.grad_fn: r for r in R.ROWS.values()})
    return _ROWS.get(grad_fn_name)


_IDENT = r"(?<![\w.])({})(?!\w)"
_PREC = {
    "AddBackward0": (" + ", 1),
    "SubBackward0": (" - ", 1),
    "MulBackward0": (" * ", 2),
    "DivBackward0": (" / ", 2),
    "PowBackward0": (" ** ", 3),
    "PowBackward1": (" ** ", 3),
}


class _Builder:
    def __init__(self, run, graph, trace):
        self.run = run
        self.graph = graph
        self.ids, self.names = {}, {}
        for n in graph:
            t = n.tensor
            k = (
                t.grad_fn
                if t.grad_fn is not None
                else (t._accumulator() if t._accumulator is not None and t._accumulator() else t)
            )
            self.ids[k] = n.id
            self.names[n.id] = n.name
        self.made = {}  # node -> trace entry index
        for j, (_, _, node, _) in enumerate(trace or ()):
            if node is not None:
                self.made[node] = j
        self.trace = trace
        self.exprs = {}
        self._interp = None

    # --- names ---------------------------------------------------------------------
    def display(self, node):
        """A node's script name, else `#id` (its id in the graph)."""
        i = self.ids.get(node)
        if i is not None and self.names.get(i):
            return self.names[i]
        return f"#{i}" if i is not None else node.name()

    def expr(self, node):
        """What the node computes, one level deep, in its inputs' display names."""
        if node not in self.exprs:
            self.exprs[node] = self._expr(node)
        return self.exprs[node]

    def _expr(self, node):
        env = self.params(node)
        fn = re.sub(r"Backward\d*$", "", node.name()).lower()
        if env is None:
            return f"{fn}(...)"
        row = row_of(node.name())
        parts = []
        for k, name in enumerate(row.inputs):
            i, n = self.input_name(node, k)
            parts.append((n, 9) if n else (show.value(_plain(env.get(name))), 9))
        op = _PREC.get(node.name())
        if op is not None and len(parts) == 2 and node.name() != "PowBackward0":
            sym, lvl = op
            a = _paren(parts[0], lvl)
            b = _paren(parts[1], lvl + (1 if sym in (" - ", " / ") else 0))
            return a + sym + b, lvl
        if node.name() == "PowBackward0":
            return _paren(parts[0], 4) + " ** " + show.value(env.get("exponent")), 3
        if node.name() == "NegBackward0":
            return "-" + _paren(parts[0], 3), 2.5
        return f"{fn}({', '.join(p for p, _ in parts)})", 9

    def input_name(self, node, k):
        """(graph id or None, display name) of the node's input k."""
        nxt = node.next_nodes[k] if k < len(node.next_nodes) else None
        if nxt is not None:
            return self.ids.get(nxt), self.display(nxt)
        entry = self.made.get(node)
        if entry is not None and k < len(self.trace[entry][1]):
            t = self.trace[entry][1][k]
            if t is not None:
                i = self.ids.get(t)
                return i, (self.names.get(i) if i is not None else None)
        return None, None

    # --- the row's parameters at this node -------------------------------------------
    def params(self, node):
        """{parameter: value} of the node's row at the node (inputs as they were when the
        op ran, the result, the args), or None (no row, or no trace of the node)."""
        row = row_of(node.name())
        j = self.made.get(node)
        if row is None or j is None:
            return None
        inputs = self.trace.inputs[j]
        value = self.trace[j][3]
        if len(inputs) != len(row.inputs):
            return None
        env = {}
        fargs = tuple(node.fargs)
        if node.fast is not None:  # the scalar lane: (*inputs, result, *lane args)
            for k, name in enumerate(row.inputs):
                if inputs[k] is None and k < len(fargs):
                    env[name] = fargs[k]
            given = fargs[len(row.inputs) + 1 :]
            for k, (a, d) in enumerate(row.args):
                env[a] = given[k] if k < len(given) else d
        elif row.joint is not None or any(d.formula is not None for d in row.grads):
            numbers = [name for name, s in zip(row.inputs, inputs) if s is None]
            for name, v in zip(numbers, fargs):
                env[name] = v
            for (a, d), v in zip(row.args, fargs[len(numbers) :] + (None,) * len(row.args)):
                env[a] = d if v is None else v
        else:
            for a, d in row.args:
                if d is not None:
                    env[a] = d
        for name, s in zip(row.inputs, inputs):
            if s is not None:
                env[name] = Tensor(s[2])
        env[R.RESULT] = Tensor(np.array(value, copy=True))
        return env

    def evaluate(self, text, env):
        """The row's text, evaluated by diffcli's interpreter in `env`; None if it cannot be."""
        if self._interp is None:
            self._interp = Interpreter(write=lambda s: None)
        interp = self._interp
        interp.env.clear()
        interp.env.update(env)
        try:
            out = interp.run(_parsed(text)).env.get("d")
        except ScriptError:
            return None
        except Exception:  # noqa: BLE001 -- a text that does not apply here shows no value
            return None
        if isinstance(out, Tensor):
            return np.array(out.array, copy=True)
        if isinstance(out, (int, float, bool)):
            return np.asarray(out)
        return None


_PARSE = {}


def _parsed(text):
    s = _PARSE.get(text)
    if s is None:
        s = _PARSE[text] = parse(f"d = {text}\n")
    return s


def _plain(v):
    if isinstance(v, Tensor):
        return v.array
    return v


def _paren(part, level):
    text, lvl = part
    return f"({text})" if lvl < level else text


def substitute(text, names):
    """`text` with each parameter in `names` ({param: text}) replaced."""
    if not names:
        return text
    pattern = re.compile(_IDENT.format("|".join(map(re.escape, sorted(names, key=len, reverse=True)))))
    return pattern.sub(lambda m: names[m.group(1)], text)


def _rule(node, inputs_flowing):
    name = node.name()
    if name.startswith("MulBackward") and inputs_flowing == 2:
        return "product rule"
    if name.startswith("DivBackward") and inputs_flowing == 2:
        return "quotient rule"
    if name in ("PowBackward0", "PowBackward1"):
        return "power rule"
    return "chain rule"


def explain(run, target_name, do_backward=None, wrt=()):
    """Watch the backward pass(es) and build the Explanation. `do_backward()` runs the
    backward the command adds (None: the script's own passes, already watched by
    `run.observer`)."""
    obs = getattr(run, "observer", None) or Observer()
    # the graph as `diffcli graph` sees this run (its ids), before the backward frees
    # what the nodes saved (a mask where() saved is drawn as the node's input)
    graph = session.build_graph(run, None)
    if do_backward is not None:
        with autograd.observing(obs):
            do_backward()
    _refresh_grads(run, graph)
    return build(run, target_name, obs, graph, wrt)


def _refresh_grads(run, graph):
    """The graph's operator rows get the retained grads the backward gave their tensors."""
    live = {node: out for out, _, node, _ in run.result.trace or () if node is not None}
    for n in graph:
        out = live.get(n.tensor.grad_fn)
        if out is not None and out.grad_fn is n.tensor.grad_fn:
            n.tensor._grad, n.tensor.retains_grad = out._grad, out.retains_grad


def build(run, target_name, obs, graph, wrt=()):
    b = _Builder(run, graph, run.result.trace)
    steps, contributions, roots = [], {}, []
    for p, (pass_roots, events) in enumerate(obs.passes):
        roots.append(pass_roots)
        for node, g in pass_roots:
            if node is not None:
                contributions.setdefault((p, node), []).append((None, g))
        for node, g, grads in events:
            if grads is None:  # AccumulateGrad: a leaf's share
                continue
            s = len(steps)
            row = row_of(node.name())
            env = b.params(node) if row is not None else None
            out_name = b.display(node)
            names, filled = {}, {}
            if row is not None:
                for k, pname in enumerate(row.inputs):
                    i, n = b.input_name(node, k)
                    names[pname] = n or (show.value(_plain(env[pname])) if env and pname in env else pname)
                    if env is not None and pname in env:
                        filled[pname] = show.value(_plain(env[pname]))
                names[R.RESULT] = out_name
                if env is not None:
                    filled[R.RESULT] = show.value(_plain(env[R.RESULT]))
                    for a, _ in row.args:
                        if a in env:
                            names.setdefault(a, show.value(_plain(env[a])))
                            filled[a] = show.value(_plain(env[a]))
            inputs = []
            flowing = sum(1 for n in node.next_nodes if n is not None)
            out_shape = np.shape(env[R.RESULT].array) if env is not None else np.shape(g)
            for k, nxt in enumerate(node.next_nodes):
                i, n = b.input_name(node, k)
                gi, reduced = None, ()
                if nxt is not None and k < len(grads) and grads[k] is not None:
                    shape_, dtype = node.input_meta[k]
                    gi, reduced = _sum_to(grads[k], shape_)
                    gi = gi.astype(dtype, copy=False)
                    contributions.setdefault((p, nxt), []).append((s, gi))
                formula = filled_text = ""
                local = vjp = None
                if row is not None and k < len(row.grads):
                    text = row.grads[k].text
                    formula = substitute(text, names)
                    if env is not None:
                        filled_text = substitute(text, {**filled, "grad": show.value(g)})
                        if row.elementwise:
                            local = b.evaluate(text, env)
                            if local is not None:
                                local = np.broadcast_to(local, out_shape).copy()
                        elif np.ndim(g) == 0 and "grad" in text:
                            local = b.evaluate(
                                text, {**env, "grad": Tensor(np.ones((), dtype=np.asarray(g).dtype))}
                            )
                        else:
                            vjp = b.evaluate(text, {**env, "grad": Tensor(np.array(g))})
                inp = Input(
                    i,
                    b.names.get(i) if i is not None else None,
                    formula,
                    filled_text,
                    local,
                    gi,
                    vjp,
                    reduced,
                )
                inp.label = n
                inputs.append(inp)
            sources = [(si, x) for si, x in contributions.get((p, node), [])]
            name = b.names.get(b.ids.get(node))
            steps.append(
                Step(
                    s,
                    p,
                    b.ids.get(node),
                    name,
                    b.expr(node)[0],
                    node.name(),
                    g,
                    inputs,
                    sources,
                    _rule(node, flowing),
                )
            )
    leaves = {}
    leaf_rows = [n for n in graph if n.tensor.grad_fn is None and n.tensor.needs_grad and n.name]
    for n in leaf_rows:
        if wrt and n.name not in wrt:
            continue
        acc = n.tensor._accumulator() if n.tensor._accumulator is not None else None
        froms = sorted(
            {
                si
                for (p, k), srcs in contributions.items()
                if k is acc and acc is not None
                for si, _ in srcs
                if si is not None
            }
        )
        g = n.tensor._grad
        leaves[n.name] = (None if g is None else np.array(g.array, copy=True), froms)
    target = run.env.get(target_name) if target_name else None
    notes = why_none(run, b.ids, obs, target_name)
    return Explanation(
        target_name, target if isinstance(target, Tensor) else None, steps, leaves, graph, notes, roots
    )
