"""The import layering ``symint <- valueranges <- guards <- shapeenv`` holds; z3 stays in one module, torch in ``shapeenv.torch``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RANK = {"symint": 0, "valueranges": 1, "guards": 2, "shapeenv": 3}
Z3_MODULES = {"guards/z3_translate.py"}
TORCH_PACKAGE = "shapeenv/torch/"  # the optional torch frontend: the only library code that imports torch


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every absolute module imported by ``path`` (anywhere in the file), with its line."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _modules():
    for package in RANK:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield package, path


@pytest.mark.parametrize("package,path", list(_modules()), ids=lambda p: str(p).rsplit("/main/", 1)[-1])
def test_no_upward_import(package: str, path: Path) -> None:
    for line, module in _imports(path):
        top = module.split(".")[0]
        if top in RANK:
            assert RANK[top] <= RANK[package], (
                f"{path.relative_to(ROOT)}:{line} imports {module}: {package} may only import packages "
                f"below it in symint <- valueranges <- guards <- shapeenv"
            )
        if top == "torch":
            assert str(path.relative_to(ROOT)).startswith(TORCH_PACKAGE), (
                f"{path.relative_to(ROOT)}:{line} imports torch outside {TORCH_PACKAGE} (torch is optional)")
        if top == "z3":
            assert str(path.relative_to(ROOT)) in Z3_MODULES, f"{path.relative_to(ROOT)}:{line} imports z3 outside {Z3_MODULES}"


def test_checker_sees_violations(tmp_path: Path) -> None:
    bad = tmp_path / "m.py"
    bad.write_text("def f():\n    from shapeenv import env\n")
    assert _imports(bad) == [(2, "shapeenv")]
