"""No import cycles inside diffcli/: the graph of every import in the package, read from
the source's AST (module-level and function-level, `import x` and `from x import y`,
absolute and relative), must be acyclic. A function-local import that dodges a cycle at
run time is still an edge here, so it counts."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "diffcli"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ImportFrom names (before its imported names)."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(name: str, path: Path, known: set) -> set:
    """The diffcli modules `name` imports anywhere in its source. `from pkg import sub`
    is an edge to pkg.sub when that is a module, else to pkg. A module importing a
    submodule also runs its packages' __init__, but that is not an edge of the source
    (a package's __init__ importing its own submodules is the usual layout)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    out.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = resolve(name, is_package, node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    out.add(sub)
                elif base in known:
                    out.add(base)
    out.discard(name)
    return out


def import_graph() -> dict:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def find_cycles(graph: dict) -> list:
    """Every strongly connected component with more than one module (Tarjan's), each
    with one concrete cycle through it, as a list of module names."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]

    def strongconnect(v):  # iterative enough for a package of this size
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return [one_cycle(graph, set(c)) for c in sorted(comps)]


def one_cycle(graph: dict, comp: set) -> list:
    """A shortest cycle through the component's first module (breadth-first)."""
    start = min(comp)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & comp):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, v, start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return sorted(comp)


def test_the_checker_finds_a_cycle_and_names_it():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_the_checker_reads_every_kind_of_import(tmp_path):
    pkg = tmp_path / "diffcli"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import leaf\n")
    (pkg / "sub" / "leaf.py").write_text("def f():\n    from ..top import g\n")
    (pkg / "top.py").write_text("import diffcli.sub.leaf\nfrom diffcli import sub\n")
    known = {"diffcli", "diffcli.sub", "diffcli.sub.leaf", "diffcli.top"}
    assert imports_of("diffcli.sub", pkg / "sub" / "__init__.py", known) == {"diffcli.sub.leaf"}
    assert imports_of("diffcli.sub.leaf", pkg / "sub" / "leaf.py", known) == {"diffcli.top"}
    assert imports_of("diffcli.top", pkg / "top.py", known) == {"diffcli.sub.leaf", "diffcli.sub"}


def test_no_import_cycles_in_diffcli():
    graph = import_graph()
    assert "diffcli.engine.tensor" in graph  # (the graph is the real package's)
    cycles = find_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(
        f"{' -> '.join(c)}  (one of the cycles among: {', '.join(sorted(components(graph, c[0])))})"
        for c in cycles
    )


def components(graph: dict, start: str) -> set:
    """The modules on some cycle through `start`: reachable from it and reaching it."""

    def reach(g, v):
        seen, todo = {v}, [v]
        while todo:
            for w in g.get(todo.pop(), ()):
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        return seen

    reverse = {}
    for v, ws in graph.items():
        for w in ws:
            reverse.setdefault(w, set()).add(v)
    return reach(graph, start) & reach(reverse, start)
