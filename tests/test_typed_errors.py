"""Errors are typed: no library code raises a bare built-in exception class, and the typed errors
name what was wrong, the user's line and what to do, while still being caught as the built-in.

The first test parses every module of ``shapeenv/`` and ``guards/`` with :mod:`ast` and fails on a
``raise`` of a built-in exception class (``raise ValueError(...)``, ``raise KeyError``) outside
:data:`ALLOWED`. The others raise a few of the converted errors and check their type, message,
``where`` (this file's line) and fix, and that the built-in they replace still catches them.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import numpy as np
import pytest

import guards
import shapeenv
from guards import Source
from guards.errors import GuardError, UnknownEntryError
from guards.torchlog.torch_log import read_torch_log
from shapeenv import Dim, ShapeEnv, compile, set_stance
from shapeenv.ops.kernels.numpy.indexing import select
from shapeenv.core.settings import ShapeEnvSettings
from shapeenv.errors import (
    DimSpecError,
    DimSpecTypeError,
    DynamicShapesTypeError,
    HigherOrderOpError,
    IndexOutOfBoundsError,
    SettingsError,
    ShapeEnvError,
    ShapeEnvTypeError,
    ShapeEnvValueError,
    ShapeError,
    UnknownSymbolError,
)
from shapeenv.hops.pytree import flatten, unflatten
from shapeenv.stores import MemoryStore, StoreConfigError

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("shapeenv", "guards")
BUILTIN_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)

#: ``path:qualified function`` -> why a bare built-in is right there. Keep it short; each entry must still match.
ALLOWED = {
    # Attribute-protocol probes (copy, pickle, numpy's __array_*__ look-ups through hasattr) of private and
    # dunder names must get the plain AttributeError; a user never sees these.
    "shapeenv/tensor/dims.py:_DimSpecs.__getattr__": "AttributeError for private names (attribute protocol)",
    "shapeenv/backends/eager.py:EagerTensor.__getattr__": "AttributeError for dunder names (attribute protocol)",
    # A module's __getattr__ (PEP 562) for the tables built on first parse: a missing name is the protocol's AttributeError.
    "guards/text/lexer.py:__getattr__": "AttributeError for a missing module attribute (PEP 562)",
    "guards/text/parse.py:__getattr__": "AttributeError for a missing module attribute (PEP 562)",
    # Invariants no user input can break: reaching them is a bug of the library, said as such.
    "shapeenv/compile/function.py:CompiledFunction._compile": "invariant: traced guards accept their own inputs",
}


def _bare_raises(path: Path, root: Path = ROOT) -> list[tuple[str, int, str]]:
    """``(path:qualname, line, exception name)`` of each ``raise`` of a built-in exception class in ``path``."""
    found = []
    rel = path.relative_to(root).as_posix()

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            scope = scope + (node.name,)
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "builtins":
                name = target.attr
            else:
                name = target.id if isinstance(target, ast.Name) else None
            if name in BUILTIN_EXCEPTIONS:
                found.append((f"{rel}:{'.'.join(scope) or '<module>'}", node.lineno, name))
        for child in ast.iter_child_nodes(node):
            visit(child, scope)

    visit(ast.parse(path.read_text(), filename=str(path)), ())
    return found


def _all_bare_raises() -> list[tuple[str, int, str]]:
    return [hit for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py")) for hit in _bare_raises(path)]


def test_the_scan_sees_bare_raises_in_every_form(tmp_path):
    """The checker itself: a call, a bare class, ``builtins.X`` and a nested function are all found."""
    source = tmp_path / "scan_probe.py"
    source.write_text(
        "import builtins\n"
        "def f(x):\n"
        "    if x:\n"
        "        raise ValueError('bad')\n"
        "    raise KeyError\n"
        "class C:\n"
        "    def g(self):\n"
        "        def inner():\n"
        "            raise builtins.TypeError('t')\n"
        "        raise MyError('fine')\n"
    )
    assert _bare_raises(source, tmp_path) == [
        ("scan_probe.py:f", 4, "ValueError"),
        ("scan_probe.py:f", 5, "KeyError"),
        ("scan_probe.py:C.g.inner", 9, "TypeError"),
    ]


def test_no_bare_builtin_raises_outside_the_allowlist():
    hits = _all_bare_raises()
    bad = [f"{where.split(':')[0]}:{line} ({where.split(':')[1]}) raises {name}" for where, line, name in hits if where not in ALLOWED]
    assert not bad, (
        "raise the package's typed error (shapeenv/errors.py, shapeenv/core/errors.py, guards/errors.py; each "
        "subclasses the built-in) with a message saying what to do, or add a commented ALLOWED entry:\n  "
        + "\n  ".join(bad)
    )


def test_every_allowlist_entry_is_still_needed():
    used = {where for where, _, _ in _all_bare_raises()}
    assert not set(ALLOWED) - used, f"stale ALLOWED entries: {sorted(set(ALLOWED) - used)}"


# -- the converted errors ------------------------------------------------------------------------------
# (call, typed error, the built-in it must still be, words of the message, words of the fix or None).
# Each call is a lambda on one line, so the error's ``where`` must be that line of this file.
CASES = [
    (lambda: Dim("b", min=5, max=2), DimSpecError, ValueError, "min 5 is greater than max 2", "Dim('b', min=2, max=5)"),
    (lambda: Dim("", max=4), DimSpecError, ValueError, "non-empty name", 'Dim("batch"'),
    (lambda: Dim("b", choices=(2, 9), max=8), DimSpecError, ValueError, "lie outside [min, max]", "choices=(2, 9)"),
    (lambda: 2.5 * Dim("d"), DimSpecTypeError, TypeError, "coefficient must be an int, got 2.5", None),
    (lambda: ShapeEnv(settings=ShapeEnvSettings(), use_z3=False), ShapeEnvTypeError, TypeError, "not both",
     "dataclasses.replace(settings, use_z3=False)"),
    (lambda: ShapeEnv(use_z4=False), ShapeEnvTypeError, TypeError, "use_z4=...): no such setting", "ShapeEnv(use_z3=...)"),
    (lambda: ShapeEnvSettings(z3_budget=-1), SettingsError, ValueError, "z3_budget must be >= 0, got -1", "z3_budget=0"),
    (lambda: ShapeEnv().create_symint(4.0, Source.size("x", 0)), ShapeEnvTypeError, TypeError, "must be an int, got 4.0", None),
    (lambda: set_stance("fail_on_recompil"), ShapeEnvValueError, ValueError, "unknown stance 'fail_on_recompil'",
     "set_stance('fail_on_recompile')"),
    (lambda: compile(42), ShapeEnvTypeError, TypeError, "compile() takes a function, got 42", None),
    (lambda: MemoryStore(lease_timeout=-1), StoreConfigError, ValueError, "lease_timeout must be >= 0", "60.0"),
    (lambda: unflatten([1], flatten((1, 2))[1]), HigherOrderOpError, ValueError, "expected 2 leaves", None),
    (lambda: select(np.zeros((2, 3)), 1, 3), IndexOutOfBoundsError, IndexError, "index 3 is out of bounds for dimension 1", None),
]


@pytest.mark.parametrize("call,error,builtin,words,fix", CASES, ids=[c[1].__name__ + f"-{i}" for i, c in enumerate(CASES)])
def test_converted_errors_are_typed_and_name_the_users_line(call, error, builtin, words, fix):
    with pytest.raises(builtin) as info:  # the built-in still catches it
        call()
    e = info.value
    assert type(e) is error and isinstance(e, ShapeEnvError), f"{type(e).__name__}: {e}"
    assert words in e.message, e.message
    assert e.where == f"{__file__}:{call.__code__.co_firstlineno} in <lambda>", (e.where, call.__code__.co_firstlineno)
    assert f"  at {e.where}" in str(e)
    if fix is None:
        assert e.fix is None or e.fix in str(e)
    else:
        assert e.fix is not None and fix in e.fix and f"  fix: {e.fix}" in str(e), (e.fix, str(e))


def test_dim_spec_type_errors_are_also_dynamic_shapes_errors():
    """A caller of export(dynamic_shapes=...) catching DynamicShapesTypeError also gets a bad Dim's error."""
    with pytest.raises(DynamicShapesTypeError):
        Dim("d") * "2"
    assert issubclass(DimSpecError, ValueError) and issubclass(DimSpecTypeError, (DimSpecError, TypeError))


def test_an_unknown_symbol_is_a_key_error_whose_text_is_not_quoted():
    env = ShapeEnv()
    env.create_symint(4, Source.size("x", 0))
    with pytest.raises(KeyError) as info:
        env.explain("s9")
    e = info.value
    assert type(e) is UnknownSymbolError
    assert str(e).startswith("'s9' is neither a symbol nor a source of this environment; it has s0, x.size()[0]")
    assert e.fix == "env.explain('s0')"


def test_layout_errors_are_wrapped_once_with_the_op_name():
    """A layout helper's ShapeError re-raised by the op's rule keeps one message, one location line."""
    x = ShapeEnv().fake_tensor((2, 3))
    with pytest.raises(ShapeError) as info:
        x.contiguous(memory_format="preserve_format")
    text = str(info.value)
    assert info.value.message == "contiguous: preserve memory format is unsupported by the contiguous operator"
    assert text.count("  at ") == 1


def test_a_source_made_twice_is_a_typed_value_error():
    env = ShapeEnv()
    env.create_symint(4, Source.size("x", 0))
    with pytest.raises(ValueError) as info:
        env.create_symint(5, Source.size("x", 0))
    assert type(info.value) is ShapeEnvValueError and "already has a symbol (s0)" in info.value.message
    assert "alias_source" in info.value.fix


def test_guards_errors_are_typed_too():
    log = read_torch_log("V1201 15:44:51.5 9713 guards.py:4483] [0/1] [__guards] TREE_GUARD_MANAGER:")
    with pytest.raises(KeyError) as info:
        log.entry("9/9")
    assert type(info.value) is UnknownEntryError and isinstance(info.value, GuardError)
    assert str(info.value) == "no guard tree for compile id '9/9' (ids: 0/1)"


def test_the_new_errors_are_exported():
    for name in ("ShapeEnvTypeError", "ShapeEnvValueError", "SettingsError", "UnknownSymbolError", "DimSpecError",
                 "DimSpecTypeError", "IndexOutOfBoundsError"):
        assert name in shapeenv.errors.__all__ and getattr(shapeenv.errors, name).__module__.startswith("shapeenv.")
    assert "UnknownEntryError" in guards.errors.__all__
