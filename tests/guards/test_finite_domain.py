"""The finite-range pass (guards.simplify.finite_domain) and reduce_exact with it: exact, checked point by point."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
import sympy
from hypothesis import assume, given, settings, strategies as st

from guards import GuardSet, Source
from guards.guard import as_bool_form
from guards.simplify.finite_domain import FiniteLimits, reduce_finite_forms
from guards.simplify.passes import reduce_exact
from symint.build import eq, floordiv, ge, gt, le, lt, ne, symbol_expr
from symint.sympy_io import to_sympy
from symint.sympy_io.functions import Max, Min, Mod
from valueranges import ValueRanges

X, Y, Z, U = (symbol_expr(n) for n in ("x", "y", "z", "u"))
SIZES = {s: Source.size(s.name, 0) for s in (X, Y, Z, U)}


def reduce_finite(exprs, domain, limits=FiniteLimits()):
    """The pass on the forms of sympy-built guards (this test's boundary): what it keeps, as sympy views."""
    ranges = {s.name: (r.lower, r.upper) for s, r in domain.items()}
    out = reduce_finite_forms([as_bool_form(e) for e in exprs], ranges, limits)
    return SimpleNamespace(exprs=tuple(to_sympy(f) for f in out.forms), dropped=out.dropped, points=out.points)


def _admitted(gs: GuardSet, box: dict) -> set:
    """The points of ``box`` (symbol -> values) that ``gs``'s checker accepts (a guard that raises fails)."""
    syms = sorted(box, key=lambda s: s.name)
    checker = gs.compile()
    out = set()
    for p in itertools.product(*(box[s] for s in syms)):
        values = dict(zip(syms, p))
        if checker.check_ints(*(values[s] for s in checker.symbols)):
            out.add(p)
    return out


# -- random guard sets --------------------------------------------------------------------------------
_leaves = st.sampled_from([X, Y, Z]) | st.integers(-3, 6).map(sympy.Integer)


def _node(children):
    def build(t):
        op, a, b = t
        try:
            return op(a, b)
        except ZeroDivisionError:  # a constant zero divisor folds at construction: keep the dividend
            return a

    ops = st.sampled_from([
        lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, floordiv, Mod,
        lambda a, b: Max(a, b), lambda a, b: Min(a, b),
    ])
    return st.tuples(ops, children, children).map(build)


_exprs = st.recursive(_leaves, _node, max_leaves=4)
_rels = st.sampled_from([eq, ne, lt, le, gt, ge])


@st.composite
def guard_sets(draw):
    """Bounds that make x, y (and sometimes z) finite, plus a few random relations over them."""
    exprs = []
    for s in (X, Y, Z):
        lo = draw(st.integers(0, 4))
        exprs.append(ge(s, lo))
        if s is not Z or draw(st.booleans()):
            exprs.append(le(s, lo + draw(st.integers(0, 5))))
    for _ in range(draw(st.integers(1, 5))):
        e = draw(_rels)(draw(_exprs), draw(_exprs))
        if e not in (sympy.true, sympy.false) and isinstance(e, sympy.Basic) and e.free_symbols:
            exprs.append(e)
    return exprs


@settings(max_examples=150, deadline=None)
@given(guard_sets())
def test_reduce_finite_admits_exactly_the_same_points(exprs):
    """Every point of a box larger than the ranges: the reduced set accepts it iff the input does."""
    before = GuardSet.of(exprs, SIZES)
    after = GuardSet.of(reduce_finite(exprs, before.domain_map).exprs, SIZES)
    box = {s: range(0, 13) for s in (X, Y, Z)}
    assert _admitted(after, box) == _admitted(before, box)


@settings(max_examples=100, deadline=None)
@given(guard_sets())
def test_reduce_exact_with_the_finite_pass_admits_exactly_the_same_points(exprs):
    before = GuardSet.of(exprs, SIZES)
    after, report = reduce_exact(before)
    box = {s: range(0, 13) for s in (X, Y, Z)}
    assert _admitted(after, box) == _admitted(before, box)
    assert report.z3_checks == 0


@settings(max_examples=60, deadline=None)
@given(guard_sets(), st.randoms(use_true_random=False))
def test_reduce_exact_does_not_depend_on_the_input_order(exprs, rng):
    # (a contradictory set is returned as given, so in its own order)
    assume(_admitted(GuardSet.of(exprs, SIZES), {s: range(0, 13) for s in (X, Y, Z)}))
    shuffled = list(exprs)
    rng.shuffle(shuffled)
    one = reduce_exact(GuardSet.of(exprs, SIZES))[0]
    two = reduce_exact(GuardSet.of(shuffled, SIZES))[0]
    assert [g.expr for g in one] == [g.expr for g in two]


# -- what it does ---------------------------------------------------------------------------------------
def test_a_single_admitted_point_becomes_pins():
    exprs = [ge(X, 2), le(X, 9), ge(Y, 1), le(Y, 4), eq(Mod(X, 4), 1), lt(X + Y, 7), gt(X * Y, 4)]
    out = reduce_finite(exprs, {s: ValueRanges.of(0, sympy.oo) for s in (X, Y)})
    # x in {5, 9} from the mod; x + y < 7 leaves x = 5, y = 1; 5 * 1 > 4 holds
    assert set(out.exprs) == {eq(X, 5), eq(Y, 1)}
    assert out.dropped == frozenset(range(len(exprs)))


def test_ranges_shrink_and_a_hole_is_stated_simply():
    exprs = [ge(X, 0), le(X, 20), ne(Mod(X, 7), 3), lt(floordiv(X, 2), 4)]
    out = reduce_finite(exprs, {X: ValueRanges.of(0, sympy.oo)})
    # x // 2 < 4 means x <= 7; x % 7 != 3 then only removes x = 3
    assert set(out.exprs) == {le(X, 7), ne(X, 3)}


def test_guards_with_an_unbounded_symbol_are_untouched_and_unused():
    exprs = [ge(X, 1), le(X, 3), lt(X, U), ne(X, 2)]
    out = reduce_finite(exprs, {X: ValueRanges.of(0, sympy.oo), U: ValueRanges.of(0, sympy.oo)})
    assert lt(X, U) in out.exprs
    assert set(out.exprs) == {ge(X, 1), le(X, 3), lt(X, U), ne(X, 2)}


def test_a_definition_computes_its_symbol_instead_of_enumerating_it():
    # u is unbounded but defined from x, so the guards on u are decided over x's three values
    exprs = [ge(X, 2), le(X, 4), eq(U, 3 * X + 1), le(U, 13), gt(U, 9)]
    out = reduce_finite(exprs, {X: ValueRanges.of(0, sympy.oo), U: ValueRanges.of(0, sympy.oo)})
    assert out.points == 3  # x's values only: u is computed
    # u <= 13 holds for x <= 4; u > 9 is x >= 3, which the new range states
    assert set(out.exprs) == {eq(U, 3 * X + 1), ge(X, 3), le(X, 4)}


def test_a_guard_that_raises_fails_at_that_point():
    # x // y raises at y = 0, so the guard rejects y = 0: the reduction must keep y >= 1
    exprs = [ge(Y, 0), le(Y, 2), ge(X, 0), le(X, 2), ge(floordiv(X, Y), 0)]
    before = GuardSet.of(exprs, SIZES)
    after = GuardSet.of(reduce_finite(exprs, before.domain_map).exprs, SIZES)
    assert not after.holds({X: 1, Y: 0})
    assert after.holds({X: 1, Y: 1})
    assert _admitted(after, {X: range(4), Y: range(4)}) == _admitted(before, {X: range(4), Y: range(4)})


def test_components_larger_than_the_limit_are_left_alone():
    exprs = [ge(X, 0), le(X, 99), ge(Y, 0), le(Y, 99), lt(X + Y, 50), lt(X + Y, 60)]
    small = reduce_finite(exprs, {}, FiniteLimits(max_points=1000))
    assert small.points == 0 and small.exprs == tuple(exprs)
    large = reduce_finite(exprs, {}, FiniteLimits(max_points=20_000))
    assert lt(X + Y, 60) not in large.exprs and large.points == 10_000


def test_unsupported_functions_leave_their_guard_untouched():
    f = sympy.Function("f")
    exprs = [ge(X, 0), le(X, 3), lt(f(X), 2), ne(X, 5)]
    out = reduce_finite(exprs, {})
    assert lt(f(X), 2) in out.exprs
    assert ne(X, 5) not in out.exprs  # decided by the range alone


def test_an_empty_admitted_set_is_left_for_the_solver_to_report():
    exprs = [ge(X, 0), le(X, 3), gt(X * X, 20)]
    assert reduce_finite(exprs, {}).exprs == tuple(exprs)


def test_reduce_exact_substitutes_what_the_finite_pass_pinned():
    exprs = [ge(X, 2), le(X, 3), ne(X, 2), lt(U, X * 10), ge(U, 0)]
    out, _ = reduce_exact(GuardSet.of(exprs, SIZES))
    # x is pinned to 3; u < 10*x becomes the plain bound u <= 29
    assert [g.expr for g in out] == [eq(X, 3), le(U, 29)]


def test_the_evaluation_budget_is_a_count():
    exprs = [ge(X, 0), le(X, 9), ge(Y, 0), le(Y, 9), lt(X * Y + Max(X, Y), 30), ne(X, 4)]
    tight = reduce_finite(exprs, {}, FiniteLimits(max_evaluations=50))
    assert tight.exprs == tuple(exprs)
    runs = {reduce_finite(exprs, {}).exprs for _ in range(3)}
    assert len(runs) == 1
