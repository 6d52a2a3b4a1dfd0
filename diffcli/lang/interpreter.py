"""Evaluates a parsed script on the engine.

The interpreter walks the AST (`lang.ast`), resolving names in the script's variables,
then the builtins, then the op table. It never uses Python's eval/exec, and reaches
attributes only through the whitelists in `values.py` (dunder names: the audited list in
`dunders.py`; a script's own classes and objects: `classes.py`). Its parts are mixins,
each in a module of its own: `statements` (blocks, assignment, loops), `expressions`
(operators, names, f-strings), `attributes` (attribute access), `calls` (calls and the builtins) and
`limits.Caps` (the caps' checks). The Python beyond expressions lives in modules of its
own: `callargs` (functions, arguments, unpacking), `classes`/`objects` (classes),
`exceptions` (raise/try), `pydict` (dicts, sets), `pybuiltins`, `pymethods`, `signatures`
(PyTorch's keyword names). Engine errors are re-raised as `ScriptError` with the position
of the expression that failed.
"""

from __future__ import annotations

import gc

from ..engine import dtypes, printoptions
from ..engine import errors as engine_errors
from ..engine.context import RunContext
from ..engine.ops import creation
from . import (
    ast,
    nn_namespaces,  # noqa: F401  (registers torch.nn, torch.optim and numpy)
)
from . import flavour as flavours
from .attributes import Attributes
from .calls import Calls
from .errors import ScriptError
from .expressions import Expressions
from .flow import Break, Continue, Return, ScriptExit
from .limits import Caps, Limits
from .statements import Statements
from .variables import is_literal, literal_value, variable  # noqa: F401  (re-exported)


class RunResult:
    def __init__(self, interp):
        self.env = interp.env
        self.order = list(interp.order)
        self.names = interp.names
        self.called_backward = interp.called_backward
        self.last_assigned = interp.last_assigned
        self.retained = [(n, t) for n, t in interp.retained]
        self.trace = interp.trace
        self.leaf_index = dict(interp.leaf_index)
        self.sets_used = interp.sets_used
        self.flavour = interp.flavour
        self.defaults = interp.defaults  # the dtype settings in force when the run ended


class Interpreter(Statements, Expressions, Attributes, Calls, Caps):
    def __init__(
        self,
        *,
        sets=None,
        write=print,
        warn=None,
        limits=None,
        wrt=(),
        trace=False,
        flavour=None,
        default_dtype=None,
    ):
        self.sets = dict(sets or {})
        self.sets_used = set()  # the --set names the script read or assigned
        # flavours.PYTORCH or MATH; None: the script's own (decided when it runs).
        # `default_dtype` (a numpy float dtype) overrides the flavour's default dtype (check
        # runs in float64); random constructors still draw the flavour's numbers
        self.flavour = flavour
        self.default_dtype = default_dtype
        self.defaults = dtypes.defaults()
        self.literal_variables = flavour != flavours.PYTORCH  # `a = 1.5` makes a variable
        self.write = write
        self.warn = warn
        self.limits = limits or Limits()
        self.wrt = set(wrt)
        self.env: dict = {}
        self.order: dict = {}
        self.names: dict = {}  # id(tensor) -> first script name bound to it
        self._keep = []  # keeps named tensors alive so ids stay unique
        self.called_backward = False
        self.last_assigned = None
        self.retained = []
        self.iterations = 0
        self.statements = 0
        self.depth = 0
        self.line = 0
        self.trace = [] if trace else None
        self.script = None
        self._warned = set()
        self._fields = {}  # f-string field text -> parsed expression
        self.overrides = {}  # name -> (k, ndarray): the value of the k-th leaf bound to
        self._leaves_early = {}  # id(For node) -> its body can break/return
        self.retain_graphs = False  # the script's own backward()/grad() keep the graph
        self.engine_callbacks = False  # the engine holds script functions (hooks, Function.backward)
        self.leaf_index = {}  # name, replaced (finite differences); name -> that k now
        self.frames, self.handling, self.ids = [], [], {}  # calls, errors being handled, id()s
        self.builtins = self._builtins()  # (and self._plain)
        self._statements = self._statement_table()
        self._expressions = self._expression_table()

    # --- entry -------------------------------------------------------------------
    def run(self, script: ast.Script) -> RunResult:
        self.script = script  # (the free-variable error lists all of its free names)
        self.flavour = self.flavour or flavours.of(script)
        self.literal_variables = self.flavour == flavours.MATH
        # every run starts in grad mode with its --max-elements; both still hold for the
        # backward passes the caller makes after the run
        RunContext(grad_enabled=True, max_elements=self.limits.max_elements).apply()
        creation.manual_seed(0)  # reproducible unless the script seeds itself
        printoptions.reset()  # torch.set_printoptions lasts for one run
        prev_sink = engine_errors.set_warning_sink(self._on_warning)
        # The graph makes few reference cycles, but Python's cyclic collector would scan
        # the whole growing graph again and again (over half the time of a long chain).
        # Collect rarely while the script runs; cycles (create_graph) are still freed.
        prev_gc = gc.get_threshold()
        gc.set_threshold(200_000, 50, 1000)
        prev_defaults = dtypes.use_defaults(flavours.defaults(self.flavour, self.default_dtype))
        try:
            # the trace lasts for the run; `watching` starts the clock, and backward passes
            # poll the limits
            with RunContext(trace=self.trace), self.limits.watching():
                self.exec_block(script.body, self.env)
        except ScriptExit:
            pass  # exit(): the script ends here
        except Return:
            raise ScriptError("SyntaxError", "'return' outside function", self.line, 1) from None
        except (Break, Continue):
            raise ScriptError("SyntaxError", "'break' outside loop", self.line, 1) from None
        finally:
            self.defaults = dtypes.use_defaults(prev_defaults)
            gc.set_threshold(*prev_gc)
            engine_errors.set_warning_sink(prev_sink)
        return RunResult(self)

    def close(self):
        """Drop the tables that refer back to the interpreter (the builtins' closures, bound
        methods), so that it, and what its run made, is freed as soon as the caller lets go
        of the result (`check` runs a script thousands of times)."""
        self.builtins = self._plain = self._statements = self._expressions = None

    def _on_warning(self, category, message):
        # Python's default filter: each warning once per source line
        key = (self.line, category, message)
        if self.warn is not None and key not in self._warned:
            self._warned.add(key)
            self.warn(category, message, self.line)
