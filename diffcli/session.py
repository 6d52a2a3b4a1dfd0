"""The commands' work, free of any CLI library: run a script, run the backward pass the
user asked for, build the graph, compare with finite differences. Results are plain
objects that `render/` turns into tables, JSON, DOT, Mermaid or text."""

from __future__ import annotations

import sys

import numpy as np

from . import engine
from .engine import autograd, dtypes
from .engine import errors as engine_errors
from .engine.node import AccumulateGrad
from .engine.tensor import Tensor
from .lang import ast
from .lang.errors import ScriptError
from .lang.interpreter import Interpreter, is_literal, literal_value
from .lang.limits import Limits


class Options:
    """What every command shares: --set values, --wrt, limits. `retain_graphs`: the
    script's own backward()/grad() calls keep the graph (`grad --retain-graph`), so a
    backward that the command adds afterwards can run through it again. `default_dtype`
    (a numpy float dtype, or None for the flavour's) overrides the script's default dtype."""

    def __init__(self, sets=None, wrt=(), limits=None, trace=False, retain_graphs=False, default_dtype=None):
        self.sets = sets or {}
        self.wrt = tuple(wrt)
        self.limits = limits or Limits()
        self.trace = trace
        self.retain_graphs = retain_graphs
        self.default_dtype = default_dtype


class Warning_:
    def __init__(self, category, message, line):
        self.category, self.message, self.line = category, message, line


def parse_source(source, limits=None):
    """Parse the script of `source`, within the caps of `limits` (an interpreter Limits)."""
    from .lang.parse import ParseLimits, ScriptSyntaxError, parse

    limits = limits or Limits()
    caps = ParseLimits(
        limits.max_script_size * (1 << 20),
        limits.max_statements,
        limits.max_memory,
        expired=limits.parse_clock(),  # --timeout bounds the parse too
    )
    try:
        return parse(source.text, source.filename, caps)
    except ScriptSyntaxError as e:
        raise ScriptError(e.type_name, e.message, e.line, e.column) from None


def parse_literal(text: str, what: str):
    """A --set or --grad-tensors literal: a number or a (nested) list of numbers."""
    from .lang.parse import ScriptSyntaxError, parse

    try:
        script = parse(text)
    except ScriptSyntaxError:
        script = None
    if (
        script is None
        or len(script.body) != 1
        or not isinstance(script.body[0], ast.ExprStmt)
        or not is_literal(script.body[0].value)
    ):
        raise ValueError(f"{what}: expected a number or a list literal such as 2.5 or [1, 2], got {text!r}")
    return literal_value(script.body[0].value)


class Run:
    """A finished forward run: the interpreter's state plus what was printed/warned.

    A command is one run, as a PyTorch program is one process: `execute` leaves the run's
    dtype settings (its flavour's default dtype, or what `torch.set_default_dtype` made it)
    in force for what the command then does with the run's tensors: the backward it adds,
    --grad-tensors, printing them. (The CLI puts the previous settings back when the
    command ends.)"""

    def __init__(self, result, warnings, limits=None):
        self.result = result
        self.warnings = warnings
        self.limits = limits or Limits()  # the command's: what --repeat and backward count against

    @property
    def env(self):
        return self.result.env

    def leaves(self):
        """Named leaf tensors, in order of first definition."""
        out = []
        for name in self.result.order:
            v = self.result.env.get(name)
            if isinstance(v, Tensor) and v.grad_fn is None:
                out.append((name, v))
        return out

    def tensor(self, name, explicit=True):
        """The tensor bound to `name`: given with --of (`explicit`), or the last assigned."""
        v = self.result.env.get(name)
        if not isinstance(v, Tensor):
            from .lang.values import type_name

            missing = v is None and name not in self.result.env
            what = "not defined" if missing else f"a {type_name(v)}, not a tensor"
            if explicit:
                raise ScriptError("NameError" if missing else "TypeError", f"--of {name}: '{name}' is {what}")
            raise ScriptError(
                "TypeError",
                f"the last assigned name '{name}' is {what}, so there is "
                "nothing to differentiate (give --of NAME)",
            )
        return v


def execute(source, options: Options, write=None, on_warning=None, make_trace=None) -> Run:
    """`make_trace(interp)`: the list the run's ops are traced into, instead of a plain
    one (explain's notes the line of each op)."""
    script = parse_source(source, options.limits)
    warnings = []

    def warn(category, message, line):
        w = Warning_(category, message, line)
        warnings.append(w)
        if on_warning is not None:
            on_warning(w)

    interp = Interpreter(
        sets=options.sets,
        write=write or sys.stdout.write,
        warn=warn,
        limits=options.limits,
        wrt=options.wrt,
        trace=options.trace,
        default_dtype=options.default_dtype,
    )
    interp.retain_graphs = options.retain_graphs
    if make_trace is not None:
        interp.trace = make_trace(interp)
    try:
        result = interp.run(script)
    finally:
        if not interp.engine_callbacks:  # (hooks and custom Functions call back into it later)
            interp.close()
    dtypes.use_defaults(result.defaults)
    return Run(result, warnings, options.limits)


def _engine_call(fn, line=0):
    try:
        return fn()
    except engine_errors.EngineError as e:
        raise ScriptError(e.type_name, e.message, line, 0) from None


def run_backward(
    run: Run,
    target_name,
    grad_tensors=None,
    retain_graph=False,
    create_graph=False,
    repeat=1,
    on_warning=None,
    explicit=True,
    grad_tensors_text=None,
):
    """`TARGET.backward(...)` as `diffcli grad` calls it, `repeat` times. An error keeps
    PyTorch's wording; when a command-line choice caused it, its `note` names the option."""
    target = run.tensor(target_name, explicit)
    gt = None
    if grad_tensors is not None:
        gt = grad_tensors
    prev = engine_errors.set_warning_sink(
        (lambda c, m: on_warning(Warning_(c, m, 0))) if on_warning else None
    )
    try:
        with run.limits.watching():  # each pass polls --timeout and --max-memory
            for i in range(repeat):
                try:
                    _engine_call(
                        lambda: autograd.backward(
                            [target],
                            [gt] if gt is not None else None,
                            retain_graph=retain_graph or None,
                            create_graph=create_graph,
                        )
                    )
                except ScriptError as e:
                    e.note = _backward_note(e, i, repeat, run, target_name, grad_tensors_text)
                    raise
                _engine_call(run.limits.poll)
    finally:
        engine_errors.set_warning_sink(prev)
    return target


def _backward_note(err, i, repeat, run, target_name, grad_tensors_text):
    if err.message == engine_errors.BACKWARD_TWICE:
        if i > 0:
            return (
                f"--repeat {repeat} calls backward {repeat} times, and the first call freed "
                "the graph: add --retain-graph to keep it"
            )
        if run.result.called_backward:
            return (
                f"the script's own backward()/grad() freed the graph before the backward "
                f"added for --of {target_name}: add --retain-graph to keep it"
            )
        return ""
    if grad_tensors_text is not None:
        return f"the gradient is the value of --grad-tensors {grad_tensors_text}"
    return ""


def grad_tensors_value(text, run: Run, options: Options, write=None, on_warning=None):
    """--grad-tensors: a literal, or an expression evaluated in the script's variables. Its
    prints and warnings go where the script's own went (`write`, `on_warning`): standard
    output carries only the command's result."""
    try:
        return Tensor(np.asarray(parse_literal(text, "--grad-tensors"), dtype=dtypes.default_float()))
    except ValueError:
        pass
    from .lang.parse import ScriptSyntaxError, parse

    try:
        script = parse(text, "--grad-tensors")
    except ScriptSyntaxError as e:
        raise ScriptError(e.type_name, f"--grad-tensors: {e.message}", 0, 0) from None
    if len(script.body) != 1 or not isinstance(script.body[0], ast.ExprStmt):
        raise ScriptError("SyntaxError", "--grad-tensors: expected one expression", 0, 0)

    def warn(category, message, line):
        if on_warning is not None:
            on_warning(Warning_(category, message, 0))

    interp = Interpreter(
        sets=options.sets,
        limits=options.limits,
        write=write or (lambda s: None),
        warn=warn,
        flavour=run.result.flavour,
    )
    interp.env.update(run.env)
    try:
        with engine.no_grad():
            v = interp.eval(script.body[0].value, interp.env)
    except ScriptError as e:
        raise ScriptError(e.type_name, f"--grad-tensors: {e.message}", 0, 0) from None
    if not isinstance(v, Tensor):
        from .lang.values import type_name

        if not (isinstance(v, (int, float, list)) or v is None):
            raise ScriptError(
                "TypeError",
                f"--grad-tensors: expected a tensor, a number or a list, got {type_name(v)}",
                0,
                0,
            )
        if v is None:
            return None
        try:
            v = Tensor(np.asarray(v, dtype=dtypes.default_float()))
        except (TypeError, ValueError):
            raise ScriptError(
                "TypeError", "--grad-tensors: expected a tensor, a number or a list of numbers", 0, 0
            ) from None
    return v


# --- records (the JSON contract's tensor record, shared by every renderer) -------------


def tensor_record(t: Tensor) -> dict:
    g = t._grad
    rec = {
        "value": t.array,
        "shape": list(t.array.shape),
        "dtype": t.dtype.name,
        "requires_grad": t.needs_grad,
        "is_leaf": t.grad_fn is None,
        "grad_fn": t.grad_fn.name() if t.grad_fn is not None else None,
        "grad": None if g is None else g.array,
    }
    if g is not None and g.grad_fn is not None:
        rec["grad_grad_fn"] = g.grad_fn.name()
    return rec


class GradReport:
    def __init__(self, target_name, target, leaves, retained, wrt=()):
        self.target_name = target_name
        self.target = target
        self.leaves = leaves  # [(name, Tensor)]
        self.retained = retained  # [(name, Tensor)]
        self.wrt = wrt


def grad_report(run: Run, target_name, wrt=(), explicit=True) -> GradReport:
    target = run.tensor(target_name, explicit) if target_name else None
    leaves = run.leaves()
    if wrt:
        by_name = dict(leaves)
        missing = [n for n in wrt if n not in by_name]
        if missing:
            raise ScriptError(
                "NameError", f"--wrt {missing[0]}: '{missing[0]}' is not a named leaf tensor of the script"
            )
        leaves = [(n, by_name[n]) for n in wrt]
    return GradReport(target_name, target, leaves, run.result.retained, wrt)


# --- graph --------------------------------------------------------------------------


class GraphNode:
    """One row of `diffcli graph`: an autograd node (or a leaf/constant input) with the
    tensor it produced, as a Tensor whose value is the one at creation time."""

    def __init__(self, id_, tensor, name, inputs, next_functions):
        self.id = id_
        self.tensor = tensor
        self.name = name
        self.inputs = inputs
        self.next_functions = next_functions

    @property
    def op(self):
        fn = self.tensor.grad_fn
        if fn is None:
            return "leaf" if self.tensor.needs_grad else "constant"
        import re

        return re.sub(r"Backward\d*$|Backwards$", "", fn.name()).lower() or fn.name()


def build_graph(run: Run, target_name=None):
    """The autograd graph of the run, one row per node, inputs first: grad_fn nodes
    (with the value their op produced), leaves (AccumulateGrad) and named constants."""
    trace = run.result.trace or []
    made = {}  # node -> (output tensor, inputs, value)
    for out, inputs, node, value in trace:
        if node is not None:
            made[node] = (out, inputs, value)
    names = {}  # id(tensor) -> name; current bindings win
    for name in run.result.order:
        v = run.result.env.get(name)
        if isinstance(v, Tensor):
            names[id(v)] = name
    named_fn = {
        v.grad_fn: n
        for n in run.result.order
        for v in [run.result.env.get(n)]
        if isinstance(v, Tensor) and v.grad_fn is not None
    }

    def key(x):  # a row is a Node, or a leaf/constant Tensor
        if isinstance(x, Tensor):
            if x.grad_fn is not None:
                return x.grad_fn
            return x._accumulator() if x._accumulator is not None and x._accumulator() else x
        return x

    # the named constants: the only tensors besides nodes a row can have as inputs
    constants = {
        id(v)
        for n in run.result.order
        for v in [run.result.env.get(n)]
        if isinstance(v, Tensor) and not v.needs_grad
    }

    def children(k):
        if isinstance(k, (AccumulateGrad, Tensor)):
            return []
        kids = [n for n in k.next_nodes if n is not None]
        if not constants:
            return kids
        info = made.get(k)
        if info is not None:  # named constant inputs, for the picture
            for t in info[1]:
                if isinstance(t, Tensor) and id(t) in constants:
                    kids.append(t)
        for t in getattr(k, "saved", ()):  # a named mask where() saved, not an input
            if isinstance(t, Tensor) and id(t) in constants and not any(t is c for c in kids):
                kids.append(t)
        return kids

    if target_name:
        roots = [key(run.tensor(target_name))]
    else:
        roots = [node for _, _, node, _ in trace if node is not None]
        roots += [key(v) for _, v in run.leaves() if v.needs_grad]
        # then every other named value (a constant, a mask; a script of constants only
        # has a graph too): no node uses it, so after the nodes is still inputs first
        roots += [
            key(v)
            for n in run.result.order
            for v in [run.result.env.get(n)]
            if isinstance(v, Tensor) and v.grad_fn is None
        ]
    order, kids = [], {}  # kids: each node's children, found once
    for root in roots:  # iterative post-order DFS: O(nodes + edges)
        if root in kids:
            continue
        kids[root] = children(root)
        stack = [(root, iter(kids[root]))]
        while stack:
            k, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                order.append(k)
            elif nxt not in kids:
                kids[nxt] = children(nxt)
                stack.append((nxt, iter(kids[nxt])))
    ids = {k: i for i, k in enumerate(order)}
    rows = []
    for i, k in enumerate(order):
        if isinstance(k, Tensor):
            t, name, nf = k, names.get(id(k)), []
        elif isinstance(k, AccumulateGrad):
            t, name, nf = k.variable, names.get(id(k.variable)), []
        else:
            out, _, value = made.get(k, (None, None, None))
            t = Tensor(value if value is not None else np.zeros(()))
            t.grad_fn, t.needs_grad = k, True
            live = out if out is not None and out.grad_fn is k else None
            if live is not None:
                t._grad, t.retains_grad = live._grad, live.retains_grad
            name = named_fn.get(k) or (names.get(id(live)) if live is not None else None)
            nf = [None if n is None else n.name() for n in k.next_nodes]
        rows.append(GraphNode(i, t, name, [ids[c] for c in kids[k]], nf))
    return rows


# --- re-runs (check's finite differences: diffcli/checks) ----------------------------


def execute_with(source, options, overrides, write, leaf_index=None):
    """Re-run the script with some leaves' values replaced (for finite differences): the
    leaf each name is bound to at the end of the base run (`leaf_index`: which of the
    leaves bound to that name it was)."""
    script = source if isinstance(source, ast.Script) else parse_source(source, options.limits)
    _engine_call(options.limits.poll)  # each run counts against the command's time and memory
    interp = Interpreter(
        sets=options.sets,
        write=write,
        warn=lambda *a: None,
        limits=options.limits,
        wrt=options.wrt,
        default_dtype=options.default_dtype,
    )
    leaf_index = leaf_index or {}
    interp.overrides = {n: (leaf_index.get(n, 0), v) for n, v in overrides.items()}
    interp.retain_graphs = True  # the script's own backward() must not free what check differentiates
    try:
        result = interp.run(script)
    finally:
        if not interp.engine_callbacks:  # (hooks and custom Functions call back into it later)
            interp.close()
    dtypes.use_defaults(result.defaults)
    return Run(result, [], options.limits)
