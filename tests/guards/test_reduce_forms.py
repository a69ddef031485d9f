"""The one reduction on forms (guards.simplify.reduce_forms): exact point by point, sympy-free, lazy provenance."""

from __future__ import annotations

import itertools
import math

import sympy
from hypothesis import assume, given, settings, strategies as st

from guards import Guard, GuardSet, Source
from guards.guard import as_bool_form
from guards.simplify.classify import classify_form, form_order_key
from guards.simplify.reduce_forms import reduce_forms
from symint import form as F
from symint.build import eq, ge, gt, le, lt, ne, symbol_expr
from symint.form import logic as B
from symint.sympy_io import to_sympy
from symint.sympy_io.functions import Mod

from .test_finite_domain import _admitted, _exprs, _rels  # the same random expressions and relations

X, Y, Z = (symbol_expr(n) for n in ("x", "y", "z"))
SIZES = {s: Source.size(s.name, 0) for s in (X, Y, Z)}
DOMAIN = {s.name: (0, math.inf) for s in (X, Y, Z)}
BOX = {s: range(0, 13) for s in (X, Y, Z)}

@st.composite
def traced_guard_sets(draw):
    """A point (the traced example) and guards that all hold there, as produce_guards receives them."""
    point = {s: draw(st.integers(0, 9)) for s in (X, Y, Z)}
    exprs = []
    for s in (X, Y, Z):
        if draw(st.booleans()):
            exprs.append(ge(s, draw(st.integers(0, point[s]))))
        if draw(st.booleans()):
            exprs.append(le(s, point[s] + draw(st.integers(0, 4))))
    for _ in range(draw(st.integers(1, 6))):
        e = draw(_rels)(draw(_exprs), draw(_exprs))
        if e in (sympy.true, sympy.false) or not isinstance(e, sympy.Basic) or not e.free_symbols:
            continue
        try:
            holds = bool(GuardSet.of([e], SIZES).holds({s: v for s, v in point.items()}))
        except Exception:  # noqa: BLE001 - a guard that raises at the point is not a traced guard
            continue
        if holds:
            exprs.append(e)
    return point, exprs


@settings(max_examples=150, deadline=None)
@given(traced_guard_sets())
def test_the_reduction_admits_exactly_the_same_points(case):
    point, exprs = case
    assume(exprs)
    before = GuardSet.of(exprs, SIZES)
    forms = [(as_bool_form(e), None) for e in exprs]
    after = GuardSet.of(reduce_forms(forms, DOMAIN, hints={s.name: v for s, v in point.items()}), SIZES)
    assert _admitted(after, BOX) == _admitted(before, BOX)
    assert after.holds(point)  # the traced example itself is accepted


def test_the_reduction_states_each_symbol_once_and_drops_what_follows():
    x, y = F.sym("x"), F.sym("y")
    guards = [B.rel(">=", x, F.const(2)), B.rel(">", x, F.const(3)), B.rel("==", y, F.add(x, F.const(1))),
              B.rel(">=", y, F.const(3)), B.rel("<=", x, F.const(1000))]
    out = reduce_forms([(g, f"line {k}") for k, g in enumerate(guards)], {"x": (0, math.inf), "y": (0, math.inf)})
    # y >= 3 follows from y = x + 1 and x >= 4; x >= 2 from x > 3
    assert [str(g.expr) for g in out] == ["Eq(y, x + 1)", "x >= 4", "x <= 1000"]
    assert "line 1" in out[1].origin  # the explicit range cites the guard that taught it


def test_finite_ranges_are_enumerated_and_pins_substituted():
    x, y, u = F.sym("x"), F.sym("y"), F.sym("u")
    guards = [B.rel(">=", x, F.const(3)), B.rel("<=", x, F.const(6)), B.rel("!=", F.mod(x, F.const(2)), F.const(0)),
              B.rel("!=", x, F.const(3)), B.rel("<", y, F.mul(x, F.const(10))), B.rel(">=", y, F.const(0)),
              B.rel("==", u, F.add(y, x))]
    out = reduce_forms([(g, None) for g in guards], {n: (0, math.inf) for n in ("x", "y", "u")})
    # x is 5; y < 10*x becomes a bound once x is substituted (on u, which y = u - 5 leaves)
    assert [str(g.expr) for g in out] == ["Eq(x, 5)", "Eq(y, u - 5)", "u >= 5", "u <= 54"]
    sizes = {symbol_expr(n): Source.size(n, 0) for n in ("x", "y", "u")}
    box = {symbol_expr("x"): range(0, 8), symbol_expr("y"): range(0, 60), symbol_expr("u"): range(0, 66)}
    assert _admitted(GuardSet.of(out, sizes), box) == _admitted(GuardSet.of([to_sympy(g) for g in guards], sizes), box)


def count_view_builders(monkeypatch) -> list[str]:
    """The names of the sympy view builders called from now on (for the rest of the test), in order."""
    from symint.sympy_io import functions

    built: list[str] = []
    for name in ("_form_to_sympy", "_atom_to_sympy", "_bool_to_sympy"):  # what symint.sympy_io.to_sympy calls
        real = getattr(functions, name)
        monkeypatch.setattr(functions, name, lambda x, _real=real, _name=name: built.append(_name) or _real(x))
    return built


def test_no_sympy_is_built_and_provenance_is_read_lazily(monkeypatch):
    """produce_guards builds no sympy view (counted at the view builders: forms are interned and shared
    with other tests, so a view another test built earlier says nothing about this call)."""
    from shapeenv import ShapeEnv

    env = ShapeEnv(duck_shape=False)
    a = env.create_symint(7, Source.size("a", 0))
    b = env.create_symint(9, Source.size("b", 0))
    assert bool(a < b) and bool(a * b > 20) and bool((a + b) % 4 == 0) and bool(b < 100)
    built = count_view_builders(monkeypatch)
    gs = env.produce_guards()
    assert built == [], f"produce_guards built sympy views: {built}"
    assert any(callable(g.why) for g in gs.guards), "provenance was printed before anyone read it"
    assert all(g.origin for g in gs.guards)  # and it is there when read
    assert not any(callable(g.why) for g in gs.guards)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([eq, ne, lt, le, gt, ge]), st.integers(-4, 4).filter(bool), st.integers(-20, 20),
       st.sampled_from([X, Mod(X, 8), X - Y]))
def test_form_classification_says_what_the_guard_admits(rel, c, k, lhs):
    """What classify_form reads off a guard (a bound, a value, a divisor, an equality) admits exactly its points."""
    e = rel(c * lhs, k)
    assume(e not in (sympy.true, sympy.false))
    form = as_bool_form(e)
    assume(form.kind != "opaque")  # Eq(2*x, 1) folds to False over the integers: the guard keeps it as written
    kind = classify_form(form)
    meaning = {
        "lower": lambda x, y: x >= kind.value, "upper": lambda x, y: x <= kind.value,
        "exact": lambda x, y: x == kind.value, "ne": lambda x, y: x != kind.value,
        "div": lambda x, y: x % kind.value == 0, "eqsym": lambda x, y: x == y,
    }.get(kind.kind)
    if meaning is None:
        assert kind.kind == "other" and lhs is not X, (e, kind)  # a relation of x alone is always understood
        return
    assert kind.sym == "x" and (kind.kind != "eqsym" or kind.value == "y"), (e, kind)
    for x, y in itertools.product(range(-30, 31), (-2, 0, 3)):
        assert form.evaluate({"x": x, "y": y}) == meaning(x, y), (e, kind, x, y)


def test_form_order_puts_equalities_then_bounds_per_symbol_then_the_rest():
    exprs = [gt(X + Y, 10), le(X, 5), ne(X, 3), eq(Mod(X, 4), 0), eq(Y, X), eq(Z, 2), ge(X, 1), eq(X * Y, Z + 1)]
    ordered = sorted(exprs, key=lambda e: form_order_key(as_bool_form(e)))
    assert [str(e) for e in ordered] == [
        "Eq(y, x)", "Eq(z, 2)", "Eq(x*y, z + 1)", "x >= 1", "x <= 5", "Ne(x, 3)", "Eq(Mod(x, 4), 0)", "x + y > 10"]


def test_guard_origin_may_be_a_function_called_once():
    calls = []

    def origin():
        calls.append(1)
        return "model.py:3"

    g = Guard.of(lt(X, 5), origin)
    assert calls == []
    assert g.origin == "model.py:3" and g.origin == "model.py:3"
    assert calls == [1]
    assert g == Guard.of(lt(X, 5), "elsewhere")


def test_points_helper_is_exhaustive():
    # the oracle the exactness tests use: every point of the box, checked by the compiled checker
    gs = GuardSet.of([lt(X, 2)], SIZES)
    assert _admitted(gs, {X: range(4), Y: range(2), Z: range(1)}) == set(itertools.product(range(2), range(2), range(1)))
