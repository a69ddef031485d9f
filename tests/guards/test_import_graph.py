"""The modules of the ``guards`` package import each other without cycles.

Every import counts: module level, inside functions, and under ``if TYPE_CHECKING:``
(an annotation-only import is still an arrow the facade's callees must not draw).
Lower modules take a :class:`guards.protocols.GuardSetLike`; ``GuardSet`` calls down.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "guards"


def _edges(path: Path, root: Path, modules: set[str]) -> set[str]:
    """The modules of ``guards`` (dotted below it: ``guard``, ``text.parse``) that ``path`` imports, anywhere in the file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = list(path.relative_to(root).with_suffix("").parts[:-1])
    if path.name == "__init__.py":
        package = list(path.relative_to(root).parts[:-1])
    found: set[str] = set()

    def add(dotted: str) -> None:
        parts = dotted.split(".")
        while parts and ".".join(parts[1:]) not in modules:
            parts.pop()
        if len(parts) > 1:
            found.add(".".join(parts[1:]))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + (node.module.split(".") if node.module else []))
            if target.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                add(f"{target}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    add(alias.name)
    return found


def _graph(directory: Path) -> dict[str, set[str]]:
    """Import arrows between the modules of the package at ``directory``, named dotted below it (``text.parse``); folders' ``__init__`` count as the folder."""
    root = directory.parent
    paths = {}
    for p in sorted(directory.rglob("*.py")):
        rel = p.relative_to(directory).with_suffix("").parts
        name = ".".join(rel[:-1] if rel[-1] == "__init__" else rel)
        if name:
            paths[name] = p
    return {name: _edges(path, root, set(paths)) - {name} for name, path in paths.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path ``[a, b, ..., a]``, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_guards_import_graph_is_acyclic() -> None:
    graph = _graph(ROOT / PACKAGE)
    assert "guardset" in graph and graph["guardset"] >= {"solver.prove", "simplify.passes", "runtime.codegen", "runtime.explain"}
    cycle = _cycle(graph)
    assert cycle is None, f"import cycle in guards: {' -> '.join(cycle)} (lower modules must take a GuardSetLike)"


def test_lower_modules_do_not_import_the_facade() -> None:
    graph = _graph(ROOT / PACKAGE)
    lower = [m for m in graph if m.split(".")[0] in ("text", "solver", "simplify") or m in (
        "runtime.codegen", "runtime.explain", "protocols", "guard", "source", "validate")]
    assert len(lower) > 15
    for module in lower:
        assert "guardset" not in graph[module], f"guards/{module} imports guardset"


def test_guards_top_level_holds_only_the_values() -> None:
    """guards/ is split by idea: text, solver, simplify, runtime, torchlog; the values stay at the top."""
    folders = sorted(d.name for d in (ROOT / PACKAGE).iterdir() if (d / "__init__.py").exists())
    assert folders == ["runtime", "simplify", "solver", "text", "torchlog"]
    loose = sorted(p.stem for p in (ROOT / PACKAGE).glob("*.py") if p.stem != "__init__")
    assert loose == ["errors", "guard", "guardset", "progress", "protocols", "source", "validate"], loose


def test_checker_sees_function_level_and_type_checking_cycles(tmp_path: Path) -> None:
    pkg = tmp_path / PACKAGE
    pkg.mkdir()
    (pkg / "a.py").write_text("from .b import f\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n")
    (pkg / "c.py").write_text("def g():\n    from guards.a import f\n")
    (pkg / "d.py").write_text("from . import a\n")
    (pkg / "e").mkdir()
    (pkg / "e" / "__init__.py").write_text("")
    (pkg / "e" / "x.py").write_text("from ..d import z\nfrom .y import w\n")
    (pkg / "e" / "y.py").write_text("")
    graph = _graph(pkg)
    assert graph == {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set(), "e.x": {"d", "e.y"}, "e.y": set()}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
