"""Imports inside diffcli/lang go one way: no cycle among its modules, counting the imports
made inside functions too, and no function-local import except those that defer a slow
or optional import (Lark, PyTorch's name lists, the platform's `resource`, the grammar
package). The whole-package check of every layer is tests/test_import_cycles.py."""

import ast
import pathlib

import diffcli.lang

LANG = pathlib.Path(diffcli.lang.__file__).parent
PACKAGE = "diffcli.lang"

# module -> why it may be imported inside a function
DEFERRED = {
    "lark": "Lark: imported only when the lean driver gives up or tables are rebuilt",
    "lark.parsers.lalr_analysis": "Lark",
    "diffcli.lang.larkparse": "Lark",
    "diffcli.lang.torchnames": "PyTorch's names, read only when an attribute is missing",
    "resource": "not on every platform",
    "diffcli.grammar": "the grammar folder as a package",
}


def _imports(path):
    """(line, imported module, inside a function) for every import of the module at `path`."""
    tree = ast.parse(path.read_text())
    name = f"{PACKAGE}.{path.stem}" if path.stem != "__init__" else PACKAGE
    parent = name.rpartition(".")[0] if path.stem != "__init__" else PACKAGE
    local = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            local.update(id(n) for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom)))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, id(node) in local) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(parent.split(".")[: len(parent.split(".")) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module
            for a in node.names:
                sub = f"{base}.{a.name}"
                target = sub if (LANG / f"{a.name}.py").exists() and base == PACKAGE else base
                found.append((node.lineno, target, id(node) in local))
    return name, found


def _graph():
    graph = {}
    for path in sorted(LANG.glob("*.py")):
        name, found = _imports(path)
        graph[name] = {t for _, t, _ in found if t.startswith(PACKAGE + ".") and t != name}
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycle_inside_lang():
    assert cycles(_graph()) == []


def test_the_cycle_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_function_local_imports_only_defer_slow_or_optional_modules():
    local = []
    for path in sorted(LANG.glob("*.py")):
        _, found = _imports(path)
        local += [
            f"{path.name}:{line} {target}"
            for line, target, inside in found
            if inside and target not in DEFERRED
        ]
    assert local == []


def test_lang_never_imports_the_cli_layers():
    for path in sorted(LANG.glob("*.py")):
        _, found = _imports(path)
        above = [
            t
            for _, t, _ in found
            if t.split(".")[0] in ("typer", "rich")
            or t in ("diffcli.cli", "diffcli.session", "diffcli.render")
        ]
        assert above == [], path.name
