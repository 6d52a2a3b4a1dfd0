"""A script's free variables, found before it runs: the names it reads but never binds.

`free_names(script, known)` walks the whole syntax tree once (iteratively) and returns, in
order of first use, every name read somewhere that no statement of the script binds
anywhere (assignment and `for` targets, `def`/`class`/parameter names, imports, `with ...
as`, `except ... as`, comprehension targets) and that is not in `known` (the builtins and
the op table). It is what the free-variable error lists, all at once, and what `grad
--symbolic` gives a stand-in value when no --set gives one. A name bound in one place and
read in another where that binding is not in scope is not reported: the interpreter's
NameError still names it when it is reached.
"""

from __future__ import annotations

from . import ast as A

_TARGET_FIELDS = {
    A.Assign: ("targets",),
    A.AugAssign: ("target",),
    A.For: ("target",),
    A.Comprehension: ("target",),
}


def _bind_target(t, bound, stack):
    """The names a target binds; what it reads (`x[i] = ...`, `o.a = ...`) goes on `stack`."""
    todo = [t]
    while todo:
        n = todo.pop()
        cls = n.__class__
        if cls is A.Name:
            bound.add(n.id)
        elif cls in (A.TupleLit, A.ListLit):
            todo.extend(n.items)
        elif cls is A.Starred:
            todo.append(n.value)
        elif isinstance(n, A.Node):
            stack.append(n)


def free_names(script, known=()) -> list:
    reads, bound = {}, set()
    stack = [script]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(reversed(node))
            continue
        if not isinstance(node, A.Node):
            continue
        cls = node.__class__
        if cls is A.Name:
            reads.setdefault(node.id, (node.line, node.column))
            continue
        if cls in (A.FuncDef, A.ClassDef):
            bound.add(node.name)
        elif cls is A.Param:
            bound.add(node.name)
        elif cls is A.Alias:
            bound.add((node.asname or node.name).split(".")[0])
        elif cls is A.ExceptHandler and node.name:
            bound.add(node.name)
        elif cls is A.With:
            for _, name in node.items:
                if name:
                    bound.add(name)
        targets = _TARGET_FIELDS.get(cls, ())
        kids = []
        for field in cls._fields:
            value = getattr(node, field)
            if field in targets:
                if cls is A.AugAssign:
                    kids.append(value)  # `x += 1` reads x too
                for t in value if isinstance(value, list) else [value]:
                    _bind_target(t, bound, kids)
            elif isinstance(value, (A.Node, list)):
                kids.append(value)
            elif isinstance(value, tuple):
                kids.extend(v for v in value if isinstance(v, (A.Node, list)))
        if cls is A.With:
            kids = [[e for e, _ in node.items], node.body]
        elif cls is A.Call:
            kids = [node.func, node.args, [v for _, v in node.kwargs]]
        elif cls is A.DictLit:
            kids = [[k for k in node.keys if k is not None], node.values]
        stack.extend(reversed(kids))
    known = set(known)
    names = [n for n in reads if n not in bound and n not in known and not n.startswith("__")]
    return sorted(names, key=lambda n: reads[n])


_LAST = [None, []]  # the last script missing_hint walked, and its free names


def missing_hint(name, script, known, given=()) -> str:
    """The free-variable NameError's hint: every free variable without a value, `name`
    first, with how to give them values (--set) or not need them (--symbolic)."""
    if script is None:
        free = []
    elif _LAST[0] is script:  # (a script that catches NameErrors in a loop: walked once)
        free = _LAST[1]
    else:
        free = free_names(script, known)
        _LAST[:] = [script, free]
    others = [n for n in free if n not in given and n != name]
    names = [name, *others]
    sets = " ".join(f"--set {n}=VALUE" for n in names)
    if len(names) == 1:
        return f" (a free variable: give it a value with {sets}, or see its formulas with --symbolic)"
    return (
        f" (free variables {', '.join(names)} have no value: give them values with {sets}, "
        f"or see the formulas in them with --symbolic)"
    )
