"""Functions of a script and the arguments that reach them, as Python has them.

- `make_function`/`make_lambda`: a `def` or `lambda` becomes a `UserFunction` whose
  defaults are evaluated where it is defined, with its qualified name, its closure, and
  the `@decorators` above it applied bottom-up;
- `bind`: a call's arguments into the function's local names, with Python's rules
  (positional, `*args`, keyword-only, `**kwargs`, defaults) and Python's exact messages
  (`f() takes from 1 to 2 positional arguments but 3 were given`, `f() missing 1 required
  keyword-only argument: 'k'`, ...);
- `star_call`: `f(*xs, **kw)` unpacked at the call site;
- `expand` and `unpack_starred`: `[*a, *b]` in displays, `a, *rest = xs` in targets.
"""

from __future__ import annotations

from . import ast
from .errors import ScriptError
from .objects import BoundMethod, ClassScope, ClassValue, FunctionScope, GradModeFunction, StaticMethod
from .suggest import keyword_hint
from .values import ITERABLES, UserFunction, type_name

# --- making functions ---------------------------------------------------------------------


def make_function(interp, s: ast.FuncDef, scope):
    """Run a `def`: bind the (decorated) function in `scope`."""
    decorators = [interp.eval(d, scope) for d in s.decorators]
    fn = _function(interp, s, scope, s.name)
    for deco, node in zip(reversed(decorators), reversed(s.decorators)):
        fn = interp.call_value(deco, [fn], {}, node)
    scope[s.name] = fn


def make_lambda(interp, e: ast.Lambda, scope):
    return _function(interp, e, scope, "<lambda>")


def _function(interp, node, scope, name):
    defaults = {p.name: interp.eval(p.default, scope) for p in node.params if p.default is not None}
    if isinstance(scope, ClassScope):  # a method: it closes over the scope around the class
        return UserFunction(node, scope.outer, defaults, f"{scope.qualname}.{name}", scope)
    frame = interp.frames[-1][0] if interp.frames else None
    qualname = f"{frame.qualname}.<locals>.{name}" if frame is not None else name
    return UserFunction(node, scope, defaults, qualname, frame.class_scope if frame is not None else None)


_ASSIGNED = {}  # id(def or lambda node) -> (node, the names its body binds)


def assigns(fn, name) -> bool:
    """Whether `fn`'s body binds `name` (then `name` is local to it, as Python decides at
    compile time: reading it before it is bound is an UnboundLocalError)."""
    node = fn.node
    entry = _ASSIGNED.get(id(node))
    if entry is None or entry[0] is not node:
        entry = _ASSIGNED[id(node)] = (node, _bound_names(node))
    return name in entry[1]


def _bound_names(node) -> frozenset:
    names = set()
    if isinstance(node, ast.Lambda):
        return frozenset()
    pending = list(node.body)
    while pending:
        stmt = pending.pop()
        targets = []
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, (ast.AugAssign, ast.For)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.FuncDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.With):
            names.update(n for _, n in stmt.items if n)
        elif isinstance(stmt, (ast.Import, ast.FromImport)):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        for t in targets:
            stack = [t]
            while stack:
                x = stack.pop()
                if isinstance(x, ast.Name):
                    names.add(x.id)
                elif isinstance(x, (ast.TupleLit, ast.ListLit)):
                    stack.extend(x.items)
                elif isinstance(x, ast.Starred):
                    stack.append(x.value)
        if isinstance(stmt, ast.Try):
            names.update(h.name for h in stmt.handlers if h.name)
            pending.extend(stmt.body + stmt.orelse + stmt.finalbody)
            pending.extend(s for h in stmt.handlers for s in h.body)
        elif isinstance(stmt, (ast.If, ast.For, ast.While)):
            pending.extend(stmt.body + getattr(stmt, "orelse", []))
        elif isinstance(stmt, ast.With):
            pending.extend(stmt.body)
    return frozenset(names)


def local_scope(interp, fn):
    """A call's fresh local names: a plain dict for a module-level function, else one that
    reads through to the enclosing function's names."""
    return {} if fn.closure is interp.env else FunctionScope(fn.closure)


# --- binding arguments ----------------------------------------------------------------------


def _names(names) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _error(message, e):
    return ScriptError("TypeError", message, e.line, e.column)


def bind(interp, fn: UserFunction, args, kwargs, e) -> dict:
    """The local names of a call of `fn` with `args` and `kwargs`, as CPython binds them."""
    plain = fn.plain
    if plain is not None and not kwargs and len(args) == len(plain) and fn.closure is interp.env:
        return dict(zip(plain, args))  # the common case: f(a, b) of def f(a, b)
    local = local_scope(interp, fn)
    positional, vararg, kwonly, varkw, names = fn.sig
    defaults, name = fn.defaults, fn.qualname
    local.update(zip(positional, args))
    if vararg is not None:
        local[vararg] = tuple(args[len(positional) :])
    extra = {} if varkw is not None else None
    for k, v in kwargs.items():
        if k not in names:
            if extra is None:
                raise _error(
                    f"{name}() got an unexpected keyword argument '{k}'"
                    + keyword_hint(k, [n for n in names if isinstance(n, str)]),
                    e,
                )
            extra[k] = v
        elif dict.__contains__(local, k):
            raise _error(f"{name}() got multiple values for argument '{k}'", e)
        else:
            local[k] = v
    if len(args) > len(positional) and vararg is None:
        raise _error(
            _too_many(
                name, positional, defaults, len(args), sum(1 for p in kwonly if dict.__contains__(local, p))
            ),
            e,
        )
    for group, kind in ((positional, "positional"), (kwonly, "keyword-only")):
        missing = None
        for p in group:
            if not dict.__contains__(local, p):
                if p in defaults:
                    local[p] = defaults[p]
                else:
                    missing = (missing or []) + [p]
        if missing:
            raise _error(
                f"{name}() missing {len(missing)} required {kind} argument"
                f"{'s' if len(missing) > 1 else ''}: {_names(missing)}",
                e,
            )
    if varkw is not None:
        local[varkw] = extra
    return local


def _too_many(name, positional, defaults, given, kwonly_given) -> str:
    count = len(positional)
    with_default = sum(1 for p in positional if p in defaults)
    if with_default:
        sig, plural = f"from {count - with_default} to {count}", True
    else:
        sig, plural = str(count), count != 1
    kwonly_sig = ""
    if kwonly_given:
        kwonly_sig = (
            f" positional argument{'s' if given != 1 else ''} (and {kwonly_given} "
            f"keyword-only argument{'s' if kwonly_given != 1 else ''})"
        )
    was = "was" if given == 1 and not kwonly_given else "were"
    return (
        f"{name}() takes {sig} positional argument{'s' if plural else ''} but {given}{kwonly_sig} {was} given"
    )


# --- unpacking at a call ---------------------------------------------------------------------


def _function_str(fn, e) -> str:
    """How Python names a callee in unpacking errors (`__main__.f()`, `print()`)."""
    while isinstance(fn, (BoundMethod, StaticMethod, GradModeFunction)):
        fn = fn.func
    if isinstance(fn, UserFunction):
        return f"__main__.{fn.qualname}()"
    if isinstance(fn, ClassValue):
        return f"{fn.full_name}()"
    func = e.func
    name = func.id if isinstance(func, ast.Name) else func.name if isinstance(func, ast.Attribute) else None
    return f"{name}()" if name else type_name(fn) + " object"


def star_call(interp, e: ast.StarCall, scope):
    """`f(a, *xs, k=v, **kw)`: the callee, then the arguments left to right, unpacked."""
    func = e.func
    if func.__class__ is ast.Name:
        fn = scope[func.id] if func.id in scope else interp.lookup(func, scope, called=True)
    else:
        fn = interp.eval(func, scope)
    args = []
    for a in e.args:
        if a.__class__ is ast.Starred:
            v = interp.eval(a.value, scope)
            if not isinstance(v, ITERABLES):
                raise _error(
                    f"{_function_str(fn, e)} argument after * must be an iterable, not {type_name(v)}", a
                )
            for item in interp.iterate(v, a):
                args.append(item)
                interp.check_length(len(args), "argument list", a)
        else:
            args.append(interp.eval(a, scope))
    kwargs = {}
    for k, v in e.kwargs:
        if k is not None:
            if k in kwargs:
                raise _error(f"{_function_str(fn, e)} got multiple values for keyword argument '{k}'", v)
            kwargs[k] = interp.eval(v, scope)
            continue
        mapping = interp.eval(v, scope)
        if not isinstance(mapping, dict):
            raise _error(
                f"{_function_str(fn, e)} argument after ** must be a mapping, not {type_name(mapping)}", v
            )
        for key, value in mapping.items():
            if not isinstance(key, str):
                raise _error("keywords must be strings", v)
            if key in kwargs:
                raise _error(f"{_function_str(fn, e)} got multiple values for keyword argument '{key}'", v)
            kwargs[key] = value
    return interp.call_value(fn, args, kwargs, e, func)


# --- starred items in displays and targets ---------------------------------------------------


def expand(interp, items, scope, what):
    """The values of a display's items, `*iterable` ones unpacked in place."""
    out = []
    for item in items:
        if item.__class__ is ast.Starred:
            v = interp.eval(item.value, scope)
            if not isinstance(v, ITERABLES):
                raise _error(f"Value after * must be an iterable, not {type_name(v)}", item)
            for x in interp.iterate(v, item):
                out.append(x)
                interp.check_length(len(out), what, item)
        else:
            out.append(interp.eval(item, scope))
    return out


def has_starred(items) -> bool:
    for item in items:
        if item.__class__ is ast.Starred:
            return True
    return False


def unpack_starred(interp, target, value, scope):
    """`a, *rest, z = value`: the starred name takes a list of what the others leave."""
    items = target.items
    star = next(i for i, item in enumerate(items) if item.__class__ is ast.Starred)
    after = len(items) - star - 1
    if not isinstance(value, ITERABLES):
        raise _error(f"cannot unpack non-iterable {type_name(value)} object", target)
    values = []
    for v in interp.iterate(value, target):
        values.append(v)
        interp.check_length(len(values), "list", target)
    if len(values) < star + after:
        raise ScriptError(
            "ValueError",
            f"not enough values to unpack (expected at least {star + after}, got {len(values)})",
            target.line,
            target.column,
        )
    for t, v in zip(items[:star], values[:star]):
        interp.assign(t, v, scope)
    interp.assign(items[star].value, values[star : len(values) - after], scope)
    for t, v in zip(items[star + 1 :], values[len(values) - after :]):
        interp.assign(t, v, scope)
