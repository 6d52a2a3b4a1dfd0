"""Nothing outside diffcli/engine writes the engine's state: the run settings go through
engine.context.RunContext (or PyTorch's no_grad/enable_grad/set_grad_enabled), never
through an assignment into an engine module (`creation.MAX_ELEMENTS[0] = ...`,
`grad_mode._state[0] = ...`, `function.TRACE[0] = ...`, `errors.POLL[0] = ...`)."""

import ast
import pathlib

import pytest

import diffcli

ROOT = pathlib.Path(diffcli.__file__).parent
OUTSIDE = sorted(p for p in ROOT.rglob("*.py") if "engine" not in p.relative_to(ROOT).parts)


def _engine_names(tree):
    """The names a module binds to the engine or to something imported from it."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            from_engine = "engine" in module.split(".") or (
                module in ("", "diffcli") and any(a.name == "engine" for a in node.names)
            )
            if from_engine:
                names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.asname or a.name.split(".")[0] for a in node.names if "engine" in a.name)
    return names


def _root(target):
    while isinstance(target, (ast.Attribute, ast.Subscript)):
        target = target.value
    return target.id if isinstance(target, ast.Name) else None


def writes_into_engine(source):
    """(line, text) of every assignment whose target lies inside an engine module."""
    tree = ast.parse(source)
    names = _engine_names(tree)
    found = []
    for node in ast.walk(tree):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AugAssign, ast.AnnAssign))
            else []
        )
        for t in targets:
            for leaf in t.elts if isinstance(t, ast.Tuple) else [t]:
                if isinstance(leaf, (ast.Attribute, ast.Subscript)) and _root(leaf) in names:
                    found.append((node.lineno, ast.unparse(leaf)))
    return found


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_outside_the_engine_writes_engine_state(path):
    assert writes_into_engine(path.read_text()) == []


def test_the_check_finds_the_writes_it_forbids():
    source = (
        "from .. import engine\nfrom ..engine import errors as engine_errors\n"
        "from ..engine.ops import creation\nfrom ..engine.function import TRACE\n"
        "creation.MAX_ELEMENTS[0] = 5\nengine.grad_mode._state[0] = True\n"
        "engine_errors.POLL[0] = None\nTRACE[0] += []\nx = creation.tensor([1.0])\nx.array = 0\n"
    )
    assert writes_into_engine(source) == [
        (5, "creation.MAX_ELEMENTS[0]"),
        (6, "engine.grad_mode._state[0]"),
        (7, "engine_errors.POLL[0]"),
        (8, "TRACE[0]"),
    ]
