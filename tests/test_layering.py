"""The import layering ``symint <- valueranges <- guards <- shapeenv`` holds; z3 stays in the two Z3 modules, torch in ``shapeenv.torch``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RANK = {"symint": 0, "valueranges": 1, "guards": 2, "shapeenv": 3}
Z3_MODULES = {"guards/solver/z3_translate.py", "guards/solver/z3_solver.py"}
TORCH_PACKAGE = "shapeenv/torch/"  # the optional torch frontend: the only library code that imports torch


def _lazy_import(node: ast.AST) -> str | None:
    """The module of ``lazy_module("pkg.mod")`` (:mod:`symint.lazy_sympy`): an import on first use, counted as one."""
    if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "lazy_module"
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return node.args[0].value
    return None


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every absolute module imported by ``path`` (anywhere in the file, or on first use by ``lazy_module``), with its line."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif (lazy := _lazy_import(node)) is not None:
            found.append((node.lineno, lazy))
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
    bad.write_text("from symint.lazy_sympy import lazy_module\n_io = lazy_module('shapeenv.env')\n")
    assert _imports(bad) == [(1, "symint.lazy_sympy"), (2, "shapeenv.env")]


# -- inside the packages ------------------------------------------------------------------------------
def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _local_imports(path: Path, root: Path, known: set[str]) -> set[str]:
    """The project modules ``path`` imports (absolute or relative, at top level, in functions or under TYPE_CHECKING).

    ``from pkg import name`` counts as importing ``pkg.name`` when that is a module, else ``pkg``
    (the package's ``__init__``). An import of an enclosing package counts too (Note [Cycles
    through a package's __init__]); only the implicit import of the enclosing packages, which
    Python runs before any submodule, is not written in the file and so not counted.
    """
    me = _module_name(path, root)
    package = me.split(".") if path.name == "__init__.py" else me.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + (node.module.split(".") if node.module else []))
            for alias in node.names:
                full = f"{target}.{alias.name}" if target else alias.name
                if full in known:
                    found.add(full)
                elif target in known:
                    found.add(target)
        elif (lazy := _lazy_import(node)) in known:
            found.add(lazy)
    return found - {me}


# Note [Cycles through a package's __init__]
#     ``from .. import pkg as _io`` inside ``pkg/functions.py``, while ``pkg/__init__.py`` imports
#     ``functions``, is a cycle: whichever is imported first runs the other half-way, and the names
#     it reads at import time may not exist yet (symint.sympy_io reached its converters that way,
#     and symint.form the sympy view). So the edge from a submodule to its enclosing package's
#     ``__init__`` is counted like any other: the ``__init__`` of a package that is imported by its
#     own submodules may import none of them, and in practice a submodule imports its siblings,
#     never its package.


def _import_graph(root: Path, packages) -> dict[str, set[str]]:
    paths = {_module_name(p, root): p for package in packages for p in sorted((root / package).rglob("*.py"))}
    return {name: _local_imports(path, root, set(paths)) for name, path in paths.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles_inside_packages() -> None:
    cycles = _cycles(_import_graph(ROOT, RANK))
    assert cycles == [], "modules that import each other (directly or through others): " + "; ".join(map(" <-> ".join, cycles))


def test_core_imports_nothing_of_the_tensor_world() -> None:
    graph = _import_graph(ROOT, ["shapeenv"])
    leaks = sorted(
        f"{m} imports {d}"
        for m, deps in graph.items()
        if m.startswith("shapeenv.core")
        for d in deps
        if d.startswith("shapeenv") and not d.startswith("shapeenv.core")
    )
    assert leaks == [], "shapeenv.core must not import fake tensors, ops, hops, export or compile: " + ", ".join(leaks)


#: The op machinery below the rules: the table is data, dispatch and forwarding know ops only by name.
OP_MACHINERY = ("shapeenv.ops.registry", "shapeenv.ops.dispatch", "shapeenv.ops.table", "shapeenv.ops.forward")


def test_op_table_and_dispatch_import_no_rule_kernel_or_tensor_module() -> None:
    """The tensor class is built from the op table before any rule is imported, so the table side imports none."""
    graph = _import_graph(ROOT, ["shapeenv"])
    leaks = sorted(f"{m} imports {d}" for m in OP_MACHINERY for d in graph[m]
                   if d.startswith(("shapeenv.ops.rules", "shapeenv.ops.kernels", "shapeenv.tensor", "shapeenv.backends")))
    assert leaks == [], "the op table and dispatch must stay below the rules, kernels and tensors: " + ", ".join(leaks)


def test_rules_and_kernels_are_one_family_each() -> None:
    """Each numpy kernel module is named like a rule family (shapeenv/ops/rules/<family>.py)."""
    rules = {p.stem for p in (ROOT / "shapeenv/ops/rules").glob("*.py")} - {"__init__"}
    kernels = {p.stem for p in (ROOT / "shapeenv/ops/kernels/numpy").glob("*.py")} - {"__init__", "common"}
    assert kernels <= rules, f"kernel modules without a rule family of the same name: {sorted(kernels - rules)}"


def test_numpy_is_imported_only_by_kernels_and_backends() -> None:
    """numpy is optional at import: only the kernels, the backends and the demo import it."""
    allowed = ("shapeenv/ops/kernels/", "shapeenv/backends/", "shapeenv/demo.py")
    users = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "shapeenv").rglob("*.py")
                   if any(m.split(".")[0] == "numpy" for _, m in _imports(path)))
    assert [u for u in users if not u.startswith(allowed)] == []


def test_cycle_checker_sees_cycles(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import f\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import c\n")
    (pkg / "c.py").write_text("def g():\n    from pkg.a import f\n")
    (pkg / "d.py").write_text("from . import a\n")
    assert _cycles(_import_graph(tmp_path, ["pkg"])) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_cycle_checker_sees_cycles_through_a_package_init(tmp_path: Path) -> None:
    """A submodule reaching its own package's ``__init__``, which imports it, is a cycle (Note [Cycles through a package's __init__])."""
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "__init__.py").write_text("from top.sub import f\n")
    sub = tmp_path / "top" / "sub"
    sub.mkdir()
    (sub / "__init__.py").write_text("from .nodes import f\nfrom .convert import g\n")
    (sub / "nodes.py").write_text("from .. import sub as _io\n\ndef f():\n    return _io.g()\n")  # the old symint.sympy_io.functions
    (sub / "convert.py").write_text("def g():\n    return 1\n")
    (tmp_path / "top" / "leaf.py").write_text("import top.sub.convert\nfrom top import sub\n")  # a package above: no cycle
    assert _cycles(_import_graph(tmp_path, ["top"])) == [["top.sub", "top.sub.nodes"]]
    (sub / "nodes.py").write_text("from . import convert\n\ndef f():\n    return convert.g()\n")
    assert _cycles(_import_graph(tmp_path, ["top"])) == []


def _imports_closure(graph: dict[str, set[str]], start: list[str]) -> set[str]:
    seen, todo = set(start), list(start)
    while todo:
        for d in graph[todo.pop()] - seen:
            seen.add(d)
            todo.append(d)
    return seen


def test_forms_import_no_sympy() -> None:
    """symint.form is the core: it imports nothing of symint.sympy_io and no sympy, directly or through others (Note [Forms import no sympy])."""
    graph = _import_graph(ROOT, ["symint"])
    reached = _imports_closure(graph, [m for m in graph if m == "symint.form" or m.startswith("symint.form.")])
    assert not any(m.startswith("symint.sympy_io") for m in reached), sorted(reached)
    sympy_users = sorted(m for m in reached
                         if any(name.split(".")[0] == "sympy" for _, name in _imports(ROOT / (m.replace(".", "/") + ("/__init__.py" if (ROOT / m.replace(".", "/")).is_dir() else ".py")))))
    assert sympy_users == [], f"modules that symint.form imports and that import sympy: {sympy_users}"


def test_shapeenv_top_level_is_the_facade_only() -> None:
    """One folder per idea: what is not the facade (env, api, errors, logs, demo) lives in a folder."""
    loose = {p.stem for p in (ROOT / "shapeenv").glob("*.py")} - {"__init__"}
    allowed = {"api", "demo", "env", "errors", "logs"}
    assert loose <= allowed, f"loose modules in shapeenv/: {sorted(loose - allowed)}; put them in the folder of their idea"


def test_forms_load_without_sympy() -> None:
    """At run time too: ``symint.form`` loads (and builds) without sympy once ``symint/__init__`` is set aside."""
    import subprocess
    import sys

    code = ("import sys, types\n"
            "pkg = types.ModuleType('symint'); pkg.__path__ = ['symint']; sys.modules['symint'] = pkg\n"
            "import symint.form as F\n"
            "f = F.add(F.sym('x'), F.const(3))\n"
            "assert repr(f) == 'Form(x + 3)' and f.value({'x': 4}) == 7\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sympy', 'mpmath') or m.startswith('symint.sympy_io')))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", f"symint.form loaded {out.stdout.strip()}"


# -- sympy on first use (Note [sympy on first use] in symint.lazy_sympy) ----------------------------------
_WATCH_SYMPY = (
    "import json, sys, traceback\n"
    "first = []\n"
    "class Watch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] == 'sympy' and not first:\n"
    "            first.append([f'{f.filename}:{f.lineno}' for f in traceback.extract_stack()[:-1]])\n"
    "        return None\n"
    "sys.meta_path.insert(0, Watch())\n"
)


def _first_sympy_import(code: str) -> tuple[list[str], str]:
    """Run ``code`` after :data:`_WATCH_SYMPY` in a fresh interpreter: the project frames that first imported sympy, and the output."""
    import json
    import subprocess
    import sys

    code = _WATCH_SYMPY + code + "\nprint(json.dumps(first[0] if first else []))\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    *lines, chain = out.stdout.strip().splitlines()
    frames = [f.replace(str(ROOT) + "/", "") for f in json.loads(chain)]
    return [f for f in frames if f.split("/")[0] in RANK], "\n".join(lines)


def test_packages_import_without_sympy() -> None:
    """``import symint, valueranges, guards, shapeenv`` imports no sympy; the sympy names of ``symint`` load on first use."""
    frames, out = _first_sympy_import(
        "import symint, valueranges, guards, shapeenv\n"
        "print('sympy' in sys.modules, 'FloorDiv' in dir(symint), 'FloorDiv' in symint.__all__)\n"
        "from symint import FloorDiv, evaluate, symbol\n"
        "x = symbol('x', hint=7)\n"
        "print('sympy' in sys.modules, FloorDiv(x.node.expr, 2), evaluate(x // 2, {'x': 7}), symint.Mod is symint.sympy_io.functions.Mod)\n")
    assert out.split("\n")[0].startswith("False"), f"importing the packages imported sympy, through {frames}"
    assert out == "False True True\nTrue FloorDiv(x, 2) 3 True", out


def test_sympy_checks_do_not_import_sympy() -> None:
    """``is_sympy`` and friends answer False without importing sympy: no object is sympy's before it is imported."""
    frames, out = _first_sympy_import(
        "from symint.lazy_sympy import is_relational, is_sympy, is_sympy_bool, loaded, sympy\n"
        "print(is_sympy(3), is_sympy_bool(True), is_relational(1 < 2), loaded())\n"
        "print(is_sympy(sympy.Integer(3)), loaded())\n")
    assert out == "False False False False\nTrue True", out
    assert frames and frames[-1].startswith("symint/lazy_sympy.py"), frames


def test_a_shape_program_runs_without_sympy() -> None:
    """Creating a ShapeEnv, replaying a shape program, producing its guards and simplifying them with Z3 import no sympy
    (Note [Symbols are names] in shapeenv.core.symbols, Note [A guard set names its symbols] in guards.guardset)."""
    frames, out = _first_sympy_import(
        "import symint, valueranges, guards, shapeenv\n"
        "from guards import Source\n"
        "from shapeenv import DimDynamic, ShapeEnv, check\n"
        "from symint import sym_max, sym_min\n"
        "env = ShapeEnv(duck_shape=False)\n"
        "a, b, c = (env.create_symint(h, Source.size(n, i), dynamic=DimDynamic.DYNAMIC) for h, n, i in ((8, 'x', 0), (6, 'x', 1), (12, 'y', 0)))\n"
        "n = (a + 2 * b) // 3 + a % 5 - sym_max(a, b) + sym_min(b, c)\n"
        "assert n > 2 and a * b == c * 4 and a != c\n"
        "check(b <= a)\n"
        "check(c % 2 == 0)\n"
        "deferred = env.produce_guards_deferred(background=False)\n"
        "produced = deferred.current\n"
        "simplified = deferred.wait()  # the Z3-simplified set, proven equivalent: Z3 reads forms by name\n"
        "print('sympy' in sys.modules, deferred.proof.value, len(simplified) <= len(produced))\n"
        "print(produced.to_text('torch'))\n")
    assert frames == [], f"the shape program imported sympy, through {frames}"
    assert out.splitlines()[0] == "False yes True"
    assert out.splitlines()[1:] == [
        "L['x'].size()[0]*L['x'].size()[1] == 4*L['y'].size()[0]",
        "L['x'].size()[0] >= 2",
        "L['x'].size()[1] >= 2",
        "L['y'].size()[0] >= 2",
        "-max(L['x'].size()[0], L['x'].size()[1]) + min(L['x'].size()[1], L['y'].size()[0]) + (L['x'].size()[0] + 2*L['x'].size()[1]) // 3 + (L['x'].size()[0] % 5) > 2",
        "L['x'].size()[0] != L['y'].size()[0]",
    ]


def test_stored_guards_read_and_compile_without_sympy() -> None:
    """Reading a stored guard set (JSON, torch's text inside) and compiling its checker import no sympy: the parser
    names its symbols, the guard set keeps them by name and codegen reads forms (Note [A guard set names its symbols])."""
    frames, out = _first_sympy_import(
        "import json\n"
        "from guards import GuardSet\n"
        "text = json.dumps({'guards': [\"L['x'].size()[0] >= 2\", \"L['x'].size()[0] % 8 == 0\", \"Max(L['x'].size()[0], L['n']) <= 64\"],\n"
        "                   'sources': {'s0': {'base': 'x', 'kind': 'size', 'index': 0}}})\n"
        "gs = GuardSet.from_json(text)\n"
        "c = gs.compile()\n"
        "class T:\n"
        "    shape = (16,)\n"
        "print('sympy' in sys.modules, c.check({'x': T(), 'n': 3}), c.check({'x': T(), 'n': 65}), c.names, [n for n, _ in gs.named_sources])\n")
    assert frames == [], f"reading and compiling stored guards imported sympy, through {frames}"
    assert out == "False True False ('s0', 's1') ['s0', 's1']", out


def test_a_warm_store_serves_a_call_without_sympy(tmp_path) -> None:
    """A fresh process whose call a stored entry covers loads the program, checks its guards and runs it on numpy
    without importing sympy (Note [A loaded program is forms] in shapeenv.program.io): the import was most of its
    first call (about 0.4 of 0.5 s)."""
    import subprocess
    import sys

    call = (
        "import numpy as np\n"
        "from shapeenv import compile\n"
        "from shapeenv.backends import numpy_backend\n"
        "from shapeenv.demo import rnn\n"
        "from shapeenv.stores import DiskStore\n"
        f"f = compile(rnn, store=DiskStore({str(tmp_path / 'store')!r}), backend=numpy_backend)\n"
        "rng = np.random.default_rng(7)\n"
        "xs, h0, w = rng.random((9, 2, 4), np.float32), np.zeros((2, 4), np.float32), rng.random((4, 4), np.float32)\n"
        "h, ys = f(xs, h0, w)\n"
        "want = h0\n"
        "for x in xs:\n"
        "    want = np.tanh(want @ w + x)\n"
        "info = f.cache_info()\n"
        "print('sympy' in sys.modules, bool(np.allclose(h, want, atol=1e-5)), ys.shape, info.compilations, info.loaded)\n"
    )
    first = subprocess.run([sys.executable, "-c", "import sys\n" + call], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split()[1:] == ["True", "(9,", "2,", "4)", "1", "0"], first.stdout  # traced and stored
    frames, out = _first_sympy_import(call)
    assert frames == [], f"serving a stored entry imported sympy, through {frames}"
    assert out == "False True (9, 2, 4) 0 1", out
