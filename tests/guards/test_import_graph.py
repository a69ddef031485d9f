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


def _edges(path: Path, modules: set[str]) -> set[str]:
    """The sibling modules of ``guards`` that ``path`` imports (anywhere in the file)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                base = node.module
            elif node.level == 0 and node.module and node.module.split(".")[0] == PACKAGE:
                base = node.module.split(".", 1)[1] if "." in node.module else None
            else:
                continue
            if base is None:  # from . import x, y  /  from guards import x
                found |= {a.name for a in node.names if a.name in modules}
            else:
                found.add(base.split(".")[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == PACKAGE and len(parts) > 1:
                    found.add(parts[1])
    return {m for m in found if m in modules}


def _graph(directory: Path) -> dict[str, set[str]]:
    files = {p.stem: p for p in directory.glob("*.py") if p.stem != "__init__"}
    return {name: _edges(path, set(files)) - {name} for name, path in files.items()}


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
    assert "guardset" in graph and graph["guardset"] >= {"prove", "simplify", "codegen", "explain"}
    cycle = _cycle(graph)
    assert cycle is None, f"import cycle in guards: {' -> '.join(cycle)} (lower modules must take a GuardSetLike)"


def test_lower_modules_do_not_import_the_facade() -> None:
    graph = _graph(ROOT / PACKAGE)
    for lower in ("prove", "simplify", "simplify_facts", "codegen", "explain", "z3_translate", "z3_solver", "incremental", "protocols"):
        assert "guardset" not in graph[lower], f"guards/{lower}.py imports guardset"


def test_checker_sees_function_level_and_type_checking_cycles(tmp_path: Path) -> None:
    pkg = tmp_path / PACKAGE
    pkg.mkdir()
    (pkg / "a.py").write_text("from .b import f\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n")
    (pkg / "c.py").write_text("def g():\n    from guards.a import f\n")
    (pkg / "d.py").write_text("from . import a\n")
    graph = _graph(pkg)
    assert graph == {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
