"""guards/runtime reads guard forms: compiling, checking, explaining, the region and the cache build no sympy view."""

from __future__ import annotations

import numpy as np

from guards import GuardSet, Guard, Source, compile_guards, explain, explain_inputs
from guards.runtime.cache import GuardedCache, pinned_sources
from guards.runtime.region import accepts, base_point, describe_region, scan_dim
from symint import form as F
from symint.build import symbol_expr
from symint.form import and_, or_, rel

from .test_reduce_forms import count_view_builders


def _fresh_guardset(tag: str) -> GuardSet:
    """Integer guards over symbols no other test names (forms are interned and keep a view once built)."""
    a, b, n, st = (F.sym(f"rtf_{tag}_{k}") for k in ("a", "b", "n", "st"))
    guards = [
        rel(">=", a, F.const(2)),
        rel("<=", a, F.const(64)),
        rel("==", b, a),
        rel("==", F.mod(a, F.const(4)), F.const(0)),
        rel("<", F.mul(n, a), F.const(1000)),
        and_(rel("!=", F.add(F.floordiv(a, F.const(2)), n), F.const(5)), or_(rel(">", n, F.const(0)), rel("==", b, F.const(8)))),
        rel("==", st, b),
        rel("==", F.const(3), n),
    ]
    sources = {
        symbol_expr(f"rtf_{tag}_a"): Source.size("x", 0),
        symbol_expr(f"rtf_{tag}_b"): Source.size("x", 1),
        symbol_expr(f"rtf_{tag}_st"): Source.stride("x", 0),
        symbol_expr(f"rtf_{tag}_n"): Source.value("n"),
    }
    return GuardSet.of([Guard.of(g) for g in guards], sources)


def test_compiling_and_checking_builds_no_sympy_view(monkeypatch):
    gs = _fresh_guardset("codegen")
    built = count_view_builders(monkeypatch)
    c = compile_guards(gs)
    assert [src.text() for src in c.order] == ["x.size()[0]", "x.size()[1]", "n", "x.stride()[0]"]
    assert c.check_ints(8, 8, 3, 8) and not c.check_ints(6, 6, 3, 6)
    assert c.first_failure_ints(6, 6, 3, 6) == 3  # 6 % 4 != 0
    assert c.check({"x": np.zeros((8, 8), dtype=np.int8), "n": 3})
    assert c.first_failure({"x": np.zeros((8, 4), dtype=np.int8), "n": 3}) == 2
    assert built == [], f"compiling and checking built sympy views: {built}"


def test_explaining_builds_no_sympy_view(monkeypatch):
    gs = _fresh_guardset("explain")
    built = count_view_builders(monkeypatch)
    e = explain(gs, {"x.size()[0]": 6, "x.size()[1]": 6, "n": 3, "x.stride()[0]": 6})
    assert [f.index for f in e] == [3]
    assert e.text == "(x.size()[0] % 4) == 0 failed: got 6"
    e = explain_inputs(gs, {"x": np.zeros((8, 4), dtype=np.int8), "n": 4}, first_only=True)
    assert e.text == "x.size()[1] == x.size()[0] failed: got x.size()[1] = 4, x.size()[0] = 8"
    assert built == [], f"explaining built sympy views: {built}"


def test_the_region_and_the_cache_build_no_sympy_view(monkeypatch):
    gs = _fresh_guardset("region")
    built = count_view_builders(monkeypatch)
    r = describe_region(gs)
    assert r.ranges == {"x.size()[0]": (2, 64)} and r.pinned == {"n": 3}
    assert r.divisibility == ["x.size()[0] is a multiple of 4"]
    assert r.strides == ["x.stride()[0] == x.size()[1]"]
    x0, x1 = Source.size("x", 0), Source.size("x", 1)
    base = base_point(gs)
    assert base[x0] == base[x1] and base[Source.value("n")] == 3
    assert scan_dim(gs, x0, range(0, 20), base) == [8, 12, 16]  # x.size()[1] follows x.size()[0]; 4 // 2 + 3 == 5
    assert accepts(gs, {x0: 12, x1: 12, Source.value("n"): 3}) and not accepts(gs, {x0: 12, x1: 8, Source.value("n"): 3})
    assert pinned_sources(gs) == {Source.value("n"): 3}
    cache = GuardedCache()
    cache.add(gs, "entry")
    assert cache.lookup({"x": np.zeros((8, 8), dtype=np.int8), "n": 3}).artifact == "entry"
    assert cache.lookup({"x": np.zeros((8, 8), dtype=np.int8), "n": 2}) is None
    assert built == [], f"the region and the cache built sympy views: {built}"


def test_a_symbol_name_that_is_not_an_identifier():
    """A form's symbol may have any name; the runtime names it by the symbol its sympy view has."""
    from symint.sympy_io import to_sympy

    g = Guard.of(rel(">=", F.sym("rtf odd-name"), F.const(2)))
    assert g.free_symbols == to_sympy(g.form).free_symbols
    c = compile_guards(GuardSet.of([g]))
    assert c.symbols == tuple(to_sympy(g.form).free_symbols)
    assert c.check_ints(3) and not c.check_ints(1)
    assert explain(GuardSet.of([g]), {c.symbols[0]: 1}).text.endswith("failed: got 1")
