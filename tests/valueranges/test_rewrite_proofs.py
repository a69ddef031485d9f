"""Proofs of the rewrite rules of :mod:`valueranges.rewrite_folds` and :mod:`valueranges.rewrite_conjunctions`
(and the case split of :mod:`valueranges.rewrite`'s dominance test), as Halide and TVM verify theirs:

* each rule's schema is proven by Z3 (the negation unsatisfiable within an ``rlimit``) for every divisor
  in a range, every other quantity a free integer;
* each implementation is checked by brute force against the original over a box of values, on forms
  built from the rules' trigger shapes;
* a hypothesis property: random small forms (and conjunctions of relations) simplify to something
  equal at every point of a grid and no larger.
"""

from __future__ import annotations

import itertools

import pytest
import z3
from hypothesis import given, settings, strategies as st

from symint import form as F
from symint.form import logic as B
from symint.sympy_io import to_sympy
from valueranges.rewrite import _bool_size, simplify, simplify_bool, size
from valueranges.rewrite_conjunctions import narrow, quotient_definitions, symbol_bounds
from valueranges.rewrite_folds import _interval_product, bilinear_bound, floordiv_folds
from valueranges.bound import bound_form

RLIMIT = 2_000_000
DIVISORS = range(1, 13)
x, y = F.sym("x"), F.sym("y")
k = F.const


def _proven(claim) -> bool:
    solver = z3.Solver()
    solver.set("rlimit", RLIMIT)
    solver.add(z3.Not(claim))
    return solver.check() == z3.unsat


T, U, V, LO, R, A, Bz = z3.Ints("t u v lo r a b")


def _max(p, q):
    return z3.If(p >= q, p, q)


def _min(p, q):
    return z3.If(p <= q, p, q)


# -- the schemas ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("c", DIVISORS)
def test_schema_floordiv_fold(c):
    # Z3's integer division by a positive constant is floor division, and its % the floor modulo
    assert _proven(U % c == U - c * (U / c))
    assert _proven(T + U / c == (c * T + U) / c)
    assert _proven(T - U / c == (c * T - U + c - 1) / c)
    E = z3.Int("e")
    assert _proven(U / c + (U % c + E) / c == (U + E) / c)


@pytest.mark.parametrize("c", DIVISORS)
def test_schema_quotient_definition(c):
    assert _proven((z3.And(LO <= U - c * V, U - c * V <= LO + c - 1)) == (V == (U - LO) / c))
    # the orientation with +c*v: lo <= u + c*v <= hi is -hi <= -u - c*v <= -lo
    assert _proven((z3.And(LO <= U + c * V, U + c * V <= LO + c - 1)) == (V == (-U + LO + c - 1) / c))


def test_schema_case_split():
    assert _proven((R - _max(A, Bz) >= 0) == z3.And(R - A >= 0, R - Bz >= 0))
    assert _proven((R + _min(A, Bz) >= 0) == z3.And(R + A >= 0, R + Bz >= 0))
    assert _proven(z3.Implies(z3.Or(R + A >= 0, R + Bz >= 0), R + _max(A, Bz) >= 0))
    assert _proven(z3.Implies(z3.Or(R - A >= 0, R - Bz >= 0), R - _min(A, Bz) >= 0))


def test_schema_bilinear_identity():
    X, Y, a, b, d, Rz = z3.Ints("X Y a b d R")
    lhs = a * (a * X * Y + b * X + d * Y + Rz)
    assert _proven(lhs == (a * X + d) * (a * Y + b) - b * d + a * Rz)


def test_interval_product_holds_every_product():
    ends = range(-4, 5)
    for l1, h1, l2, h2 in itertools.product(ends, repeat=4):
        if l1 > h1 or l2 > h2:
            continue
        lo, hi = _interval_product((l1, h1), (l2, h2))
        products = [p * q for p in range(l1, h1 + 1) for q in range(l2, h2 + 1)]
        assert (lo, hi) == (min(products), max(products))
    inf = float("inf")
    assert _interval_product((0, inf), (-1, 1)) == (-inf, inf)
    assert _interval_product((1, inf), (2, 3)) == (2, inf)


# -- the implementations, by brute force ----------------------------------------------------------------

GRID = range(-20, 21)


def _equal_on_grid(before, after, ranges=None):
    ranges = ranges or {}
    names = sorted(before.symbols | after.symbols)
    axes = [range(max(-20, int(ranges[n][0])) if n in ranges and ranges[n][0] != float("-inf") else -20,
                  (min(20, int(ranges[n][1])) if n in ranges and ranges[n][1] != float("inf") else 20) + 1) for n in names]
    for point in itertools.product(*axes):
        env = dict(zip(names, point))
        try:
            v = before.evaluate(env) if isinstance(before, B.BoolForm) else before.value(env)
        except ZeroDivisionError:
            continue
        w = after.evaluate(env) if isinstance(after, B.BoolForm) else after.value(env)
        assert w == v, f"{to_sympy(before)} -> {to_sympy(after)} differs at {env}"


@pytest.mark.parametrize("c", [2, 3, 5, 8])
@pytest.mark.parametrize("shape", range(6))
def test_floordiv_folds_are_equal(c, shape):
    u = [x, F.add(x, F.scale(y, 3)), F.add(x, k(1))][shape % 3]
    q, r = F.floordiv(u, k(c)), F.mod(u, k(c))
    t = [F.const(7), F.add(y, k(-2)), F.scale(x, 3)][shape // 2]
    for f in (F.add(t, q), F.sub(t, q), F.add(F.add(q, r), t), F.sub(F.add(t, u), q), F.add(F.sub(r, q), t)):
        for g in floordiv_folds(f):
            _equal_on_grid(f, g)
        _equal_on_grid(f, simplify(f))


@pytest.mark.parametrize("c", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("lo", [-4, 0, 3])
@pytest.mark.parametrize("sign", [1, -1])
def test_quotient_definitions_are_equal(c, lo, sign):
    d = F.add(F.scale(y, sign * c), F.add(x, k(2)))
    parts = [B.rel(">=", d, k(lo)), B.rel("<=", d, k(lo + c - 1))]
    out = quotient_definitions(parts)
    assert len(out) == 1 and out[0].kind == "rel" and out[0].norm.op == "=="
    _equal_on_grid(B.and_(*parts), B.and_(*out))
    # a width that is no coefficient is kept
    wide = [B.rel(">=", d, k(lo)), B.rel("<=", d, k(lo + c))]
    assert quotient_definitions(wide) == wide


def test_narrow_never_lets_two_parts_justify_each_other():
    same = B.rel("<=", x, k(5))
    out = simplify_bool(B.and_(same, B.rel("<=", F.add(x, k(0)), k(5)), B.rel(">=", x, k(0))))
    _equal_on_grid(B.and_(same, B.rel(">=", x, k(0))), out)
    tight = [B.rel("<=", x, k(5)), B.rel("<=", x, k(7)), B.rel("<", F.mod(x, k(10)), k(3)), B.rel(">=", x, k(0))]
    out = narrow(tight, {}, lambda a, box: simplify_bool(a, box))
    _equal_on_grid(B.and_(*tight), B.and_(*out))
    assert len(out) == 2  # 0 <= x <= 2


def test_symbol_bounds():
    assert symbol_bounds(B.rel(">=", x, k(3))) == ("x", 3, float("inf"))
    assert symbol_bounds(B.rel("==", F.neg(x), k(3))) == ("x", -3, -3)
    assert symbol_bounds(B.rel("<=", F.add(x, y), k(3))) is None


@pytest.mark.parametrize("a, b, d, c", [(1, -2048, -2048, 1), (2, -6, 4, 0), (-3, 5, 1, -7), (1, 0, 0, 0), (5, 3, -10, 2)])
@pytest.mark.parametrize("xr, yr", [((1, 10), (1, 30)), ((-5, 3), (2, 9)), ((0, 6), (-6, 0))])
def test_bilinear_bound_holds_every_value(a, b, d, c, xr, yr):
    p = F.add(F.add(F.scale(F.mul(x, y), a), F.scale(x, b)), F.add(F.scale(y, d), k(c)))
    ranges = {"x": xr, "y": yr}
    lo, hi = bilinear_bound(p, lambda g: bound_form(g, ranges, {}))
    values = [p.value({"x": i, "y": j}) for i in range(xr[0], xr[1] + 1) for j in range(yr[0], yr[1] + 1)]
    assert lo <= min(values) and max(values) <= hi
    assert (lo, hi) == (min(values), max(values))  # exact for a product of independent symbols


def test_case_split_dominance():
    # min(4*((x + 3) // 4), max(x, 4)) is max(x, 4) for x > 0, not for x <= -1 (4*((x+3)//4) is 0 at x = -1)
    f = F.min_(F.scale(F.floordiv(F.add(x, k(3)), k(4)), 4), F.max_(x, k(4)))
    assert simplify(f, {"x": (1, float("inf"))}) is F.max_(x, k(4))
    assert simplify(f, {"x": (-1, float("inf"))}) is not F.max_(x, k(4))


# -- the property: equal and no larger -----------------------------------------------------------------

_LEAVES = st.sampled_from([x, y, k(0), k(1), k(3), k(-2), k(7)])


def _extend(children):
    divisor = st.sampled_from([2, 3, 4, 5, -3])
    return st.one_of(
        st.tuples(children, children).map(lambda p: F.add(*p)),
        st.tuples(children, children).map(lambda p: F.sub(*p)),
        st.tuples(children, st.sampled_from([2, 3, -1, 5])).map(lambda p: F.scale(p[0], p[1])),
        st.tuples(children, divisor).map(lambda p: F.floordiv(p[0], k(p[1]))),
        st.tuples(children, divisor).map(lambda p: F.mod(p[0], k(p[1]))),
        st.tuples(children, children).map(lambda p: F.min_(*p)),
        st.tuples(children, children).map(lambda p: F.max_(*p)),
    )


FORMS = st.recursive(_LEAVES, _extend, max_leaves=6)
RANGES = st.sampled_from([{}, {"x": (0, 9)}, {"x": (1, 20), "y": (-3, 3)}, {"y": (0, 4)}])


def _small_grid_equal(before, after, ranges, evaluate):
    names = sorted(before.symbols | after.symbols)
    axes = []
    for n in names:
        lo, hi = ranges.get(n, (-12, 12))
        axes.append(range(max(lo, -12), min(hi, 12) + 1))
    for point in itertools.product(*axes):
        env = dict(zip(names, point))
        try:
            v = evaluate(before, env)
        except ZeroDivisionError:
            continue
        assert evaluate(after, env) == v, f"{to_sympy(before)} -> {to_sympy(after)} differs at {env}"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(FORMS, RANGES)
def test_random_forms_simplify_equal_and_no_larger(f, ranges):
    g = simplify(f, ranges)
    _small_grid_equal(f, g, ranges, lambda h, env: h.value(env))
    assert size(g) <= size(f), f"{to_sympy(f)} -> {to_sympy(g)} grew"


_OPS = st.sampled_from(["<", "<=", "==", "!=", ">", ">="])
RELATIONS = st.tuples(_OPS, FORMS, st.integers(-6, 12)).map(lambda t: B.rel(t[0], t[1], k(t[2])))


def _functions(b) -> int:
    """Occurrences of floordiv, mod, max and min in a boolean form (a rule may trade one for a longer sum:
    ``x // 2 == 0`` is ``0 <= x <= 1``)."""
    if b.kind == "rel":
        return sum(str(to_sympy(b.norm.p)).count(name) for name in ("FloorDiv", "Mod", "Max", "Min"))
    return sum(_functions(a) for a in b.args) if b.kind in ("and", "or", "not") else 0


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(RELATIONS, min_size=1, max_size=3), RANGES)
def test_random_conjunctions_simplify_equal_and_no_larger(parts, ranges):
    b = B.and_(*parts)
    g = simplify_bool(b, ranges)
    _small_grid_equal(b, g, ranges, lambda h, env: h.evaluate(env))
    assert (_functions(g), _bool_size(g)) <= (_functions(b), _bool_size(b)), f"{to_sympy(b)} -> {to_sympy(g)} grew"


def test_exact_quotient_of_equal_degree_without_sympy():
    a, b = F.sym("a"), F.sym("b")
    d = F.add(a, F.scale(b, 2))
    assert simplify(F.floordiv(F.scale(d, 3), d)) is k(3)
    assert simplify(F.mod(F.scale(d, -2), d)) is k(0)
    for num in (F.add(F.scale(a, 2), F.scale(b, 3)), F.add(F.scale(d, 2), k(1)), F.scale(a, 2)):
        before = F.floordiv(num, d)
        after = simplify(before)
        assert after.atom() is not None and after.atom().kind == "floordiv", to_sympy(after)
        _equal_on_grid(before, after)


# -- variants of the anchor cases the rules were written for (none of them is an anchor case) ------------

_INF = float("inf")
FORM_VARIANTS = [
    # (before, ranges, expected)
    (F.add(F.floordiv(x, k(4)), F.floordiv(F.add(F.mod(x, k(4)), k(3)), k(4))), {}, F.floordiv(F.add(x, k(3)), k(4))),
    (F.add(F.add(F.floordiv(x, k(2)), F.mod(x, k(2))), y), {}, F.add(y, F.floordiv(F.add(x, k(1)), k(2)))),
    (F.scale(F.add(F.floordiv(x, k(2)), F.mod(x, k(2))), 3), {}, F.scale(F.floordiv(F.add(x, k(1)), k(2)), 3)),
    (F.add(F.sub(F.scale(x, 2), F.floordiv(x, k(3))), k(4)), {}, F.floordiv(F.add(F.scale(x, 5), k(14)), k(3))),
    (F.min_(F.scale(F.floordiv(F.add(x, k(7)), k(8)), 8), F.max_(x, k(8))), {"x": (1, _INF)}, F.max_(x, k(8))),
    (F.max_(F.scale(F.floordiv(F.add(x, k(3)), k(4)), 4), F.max_(x, k(4))), {"x": (1, _INF)},
     F.scale(F.floordiv(F.add(x, k(3)), k(4)), 4)),
]


@pytest.mark.parametrize("before, ranges, expected", FORM_VARIANTS, ids=[str(i) for i in range(len(FORM_VARIANTS))])
def test_form_variants(before, ranges, expected):
    got = simplify(before, ranges)
    assert got is expected, f"{to_sympy(before)}: got {to_sympy(got)}, expected {to_sympy(expected)}"
    _equal_on_grid(before, got, ranges)


def _in(a, lo, hi):
    return [B.rel(">=", a, k(lo)), B.rel("<=", a, k(hi))]


BOOL_VARIANTS = [
    (B.and_(*_in(F.sub(x, F.scale(y, 4)), 3, 6)), {}, B.rel("==", y, F.floordiv(F.sub(x, k(3)), k(4)))),
    (B.and_(*_in(F.sub(x, F.scale(y, 5)), -4, 0)), {}, B.rel("==", y, F.floordiv(F.add(x, k(4)), k(5)))),
    (B.and_(B.rel(">=", F.mod(x, k(8)), k(5)), B.rel("==", F.floordiv(x, k(8)), k(3))), {}, B.and_(*_in(x, 29, 31))),
    (B.and_(*_in(x, 10, 19), B.rel("<", F.mod(x, k(10)), k(4))), {}, B.and_(*_in(x, 10, 13))),
    (B.rel("<=", F.mul(x, y), F.scale(F.add(x, y), 100)), {"x": (1, 99), "y": (1, _INF)}, B.bool_const(True)),
    (B.rel("<", F.scale(F.mul(x, y), 2), F.scale(F.add(x, y), 64)), {"x": (1, 31), "y": (1, _INF)}, B.bool_const(True)),
    (B.rel(">", F.mul(x, y), F.scale(F.add(x, y), 4)), {"x": (9, 20), "y": (9, 20)}, B.bool_const(True)),
]


@pytest.mark.parametrize("before, ranges, expected", BOOL_VARIANTS, ids=[str(i) for i in range(len(BOOL_VARIANTS))])
def test_relation_variants(before, ranges, expected):
    got = simplify_bool(before, ranges)
    same = got is expected or (got.kind == expected.kind == "rel" and got.norm is expected.norm) or (
        got.kind == expected.kind == "and" and {a.norm for a in got.args} == {a.norm for a in expected.args})
    assert same, f"{to_sympy(before)}: got {to_sympy(got)}, expected {to_sympy(expected)}"
    _small_grid_equal(before, got, ranges, lambda h, env: h.evaluate(env))
