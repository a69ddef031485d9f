"""The rewriting simplifier (issue 24, B3-B6): the issue's cases, then every rule checked by brute force.

Each rule of :mod:`valueranges.rewrite` is an identity over the integers (or over the box of the given
ranges); the random tests rewrite forms built from every rule's trigger shapes and compare values at
every point of a grid (points where the original divides by zero are skipped: Note [Canonical forms]).
"""

from __future__ import annotations

import itertools
import random

import pytest

from symint.form import logic as B
from symint import form as F
from symint.sympy_io import to_sympy
from valueranges.rewrite import simplify, simplify_bool

x, y, z, a, b, p = (F.sym(n) for n in "xyzabp")
k = F.const

ISSUE_CASES = [
    # (before, ranges, expected)
    (F.max_(F.add(x, k(1)), F.add(x, k(10))), {}, F.add(x, k(10))),
    (F.add(F.max_(x, F.scale(y, 2)), F.min_(x, F.scale(y, 2))), {}, F.add(x, F.scale(y, 2))),
    (F.mul(F.min_(x, y), F.max_(x, y)), {}, F.mul(x, y)),
    (F.sub(F.min_(x, y), F.min_(F.add(x, k(10)), F.add(y, k(10)))), {}, k(-10)),
    (F.add(F.scale(F.floordiv(x, k(8)), 8), F.mod(x, k(8))), {}, x),
    (F.floordiv(F.add(F.floordiv(x, k(2)), k(1)), k(3)), {}, F.floordiv(F.add(x, k(2)), k(6))),
    (F.floordiv(F.add(F.scale(x, 360), y), k(16)), {"x": (0, 1), "y": (0, 6)}, F.scale(x, 22)),
    (F.floordiv(F.sub(F.mul(a, a), F.mul(b, b)), F.add(a, b)), {}, F.sub(a, b)),
    (F.mod(F.scale(F.add(p, k(1)), 64), F.scale(F.add(p, k(1)), 32)), {}, k(0)),
    (F.max_(x, k(3)), {"x": (3, 10)}, x),
    (F.mod(F.add(x, k(5)), k(8)), {"x": (3, 9)}, F.sub(x, k(3))),
]


@pytest.mark.parametrize("before, ranges, expected", ISSUE_CASES, ids=[str(i) for i in range(len(ISSUE_CASES))])
def test_issue_cases(before, ranges, expected):
    got = simplify(before, ranges)
    assert got is expected, f"{to_sympy(before)} with {ranges}: got {to_sympy(got)}, expected {to_sympy(expected)}"
    _same_values(before, got, ranges)


BOOL_CASES = [
    (B.rel("<", F.floordiv(x, k(2)), k(3)), {}, B.rel("<", x, k(6))),
    (B.rel(">=", F.floordiv(x, k(4)), k(-2)), {}, B.rel(">=", x, k(-8))),
    (B.and_(B.rel("==", F.floordiv(x, k(8)), k(3)), B.rel("==", F.mod(x, k(8)), k(4))), {}, B.rel("==", x, k(28))),
    (B.rel("<", F.add(F.scale(x, 8), y), k(16)), {"y": (0, 7)}, B.rel("<", x, k(2))),
]


@pytest.mark.parametrize("before, ranges, expected", BOOL_CASES, ids=[str(i) for i in range(len(BOOL_CASES))])
def test_issue_relation_cases(before, ranges, expected):
    got = simplify_bool(before, ranges)
    assert got is expected or (got.kind == "rel" and expected.kind == "rel" and got.norm is expected.norm), \
        f"{to_sympy(before)}: got {to_sympy(got)}, expected {to_sympy(expected)}"
    _same_truth(before, got, ranges)


def _grid(names, ranges, span=range(-13, 14)):
    axes = [range(max(span.start, int(ranges[n][0])), min(span.stop - 1, int(ranges[n][1])) + 1) if n in ranges else span
            for n in names]
    for point in itertools.product(*axes):
        yield dict(zip(names, point))


def _value(f, env):
    try:
        return f.value(env)
    except ZeroDivisionError:
        return None


def _same_values(before, after, ranges):
    names = sorted(before.symbols | after.symbols)
    for env in _grid(names, ranges):
        v = _value(before, env)
        if v is not None:
            assert after.value(env) == v, (to_sympy(before), to_sympy(after), env)


def _same_truth(before, after, ranges):
    names = sorted(before.symbols | after.symbols)
    for env in _grid(names, ranges):
        try:
            v = before.evaluate(env)
        except ZeroDivisionError:
            continue
        assert after.evaluate(env) == v, (to_sympy(before), to_sympy(after), env)


# -- each rule, by brute force over its parameters ---------------------------------------------------


@pytest.mark.parametrize("da, db", [(1, 3), (2, 3), (3, 2), (4, 4), (5, 1), (7, 6)])
@pytest.mark.parametrize("c", [-5, -1, 1, 2, 9])
def test_rule_nested_floordiv(da, db, c):
    before = F.floordiv(F.add(F.floordiv(x, k(da)), k(c)), k(db))
    _same_values(before, simplify(before), {})


@pytest.mark.parametrize("d", [2, 3, 8, 16])
@pytest.mark.parametrize("coeff", [1, 3, -2])
def test_rule_recombination(d, coeff):
    inner = F.add(x, F.scale(y, 3))
    before = F.scale(F.add(F.scale(F.floordiv(inner, k(d)), d), F.mod(inner, k(d))), coeff)
    assert simplify(before) is F.scale(inner, coeff)


@pytest.mark.parametrize("c1, c2", [(0, 0), (1, 10), (-4, 3), (7, 7)])
def test_rule_minmax_common_part_and_dominance(c1, c2):
    for op in (F.max_, F.min_):
        for before in (op(F.add(x, k(c1)), F.add(x, k(c2))), F.sub(op(x, y), op(F.add(x, k(c1)), F.add(y, k(c1)))),
                       F.add(op(F.add(x, y), k(c1)), op(F.add(x, y), F.add(z, k(c2))))):
            _same_values(before, simplify(before), {"z": (-3, 3)})


@pytest.mark.parametrize("k1, c1, c2, d", [(360, 1, 0, 16), (8, 1, 0, 16), (6, 2, 3, 4), (5, -1, 2, 3), (12, 1, -7, 8)])
@pytest.mark.parametrize("xr, yr", [((0, 1), (0, 6)), ((0, 3), (0, 7)), ((-2, 2), (1, 3)), ((5, 9), (-3, 0))])
def test_rule_division_removal(k1, c1, c2, d, xr, yr):
    inner = F.add(F.add(F.scale(x, k1), F.scale(y, c1)), k(c2))
    ranges = {"x": xr, "y": yr}
    for before in (F.floordiv(inner, k(d)), F.mod(inner, k(d))):
        _same_values(before, simplify(before, ranges), ranges)


def test_rule_exact_polynomial_division():
    cases = [
        (F.sub(F.mul(a, a), F.mul(b, b)), F.add(a, b)),
        (F.mul(F.add(a, k(1)), F.add(b, k(2))), F.add(b, k(2))),
        (F.add(F.mul(a, b), a), a),
        (F.add(F.mul(a, a), k(1)), F.add(a, k(1))),  # not exact: kept
        (F.scale(F.mul(F.mul(a, a), b), 32), F.scale(a, 6)),  # the quotient 16/3*a*b is not integral: kept
        (F.scale(F.mul(F.mul(a, a), b), 4), F.mul(F.scale(a, 2), b)),  # a common factor cancels
        (F.scale(b, 2), F.scale(a, 2)),  # the common factor is the integer 2 alone: (2b)//(2a) -> b//a
        (F.scale(b, 6), F.scale(F.add(a, b), 4)),  # a common integer 2 of a sum: 3b // (2(a + b))
    ]
    for num, den in cases:
        for before in (F.floordiv(num, den), F.mod(num, den)):
            _same_values(before, simplify(before), {})


def _sympy_quotient(num: F.Form, den: F.Form):
    """The exact integer quotient by sympy's polynomial division alone (the oracle), else None."""
    import sympy

    gens = sorted({sympy.Symbol(n, integer=True) for n in num.symbols | den.symbols}, key=lambda s: s.name)
    q, r = sympy.Poly(to_sympy(num), *gens, domain="ZZ").div(sympy.Poly(to_sympy(den), *gens, domain="ZZ"))
    return None if not r.is_zero or q.is_zero or not all(c.is_Integer for c in q.coeffs()) else q.as_expr()


def _linear_and_polynomial_pairs():
    linear = [x, y, F.add(x, k(1)), F.scale(x, 2), F.scale(x, -3), F.add(F.scale(x, 2), k(4)), F.add(x, y),
              F.add(F.scale(x, 2), F.scale(y, 2)), F.sub(F.scale(x, 4), F.scale(y, 6)), F.add(F.add(x, y), k(2)),
              F.sub(F.scale(y, -2), k(4)), F.add(F.scale(y, 6), k(3))]
    nonlinear = [F.mul(x, y), F.add(F.mul(x, x), x), F.sub(F.mul(x, x), F.mul(y, y)), F.scale(F.mul(x, y), 6)]
    forms = linear + nonlinear
    return [(u, v) for u in forms for v in forms]


@pytest.mark.parametrize("num, den", _linear_and_polynomial_pairs())
def test_exact_quotient_agrees_with_sympy_division(num, den):
    """The shortcuts of Note [Exact quotients without sympy] give sympy's answer (before caching)."""
    from valueranges.rewrite_polynomial import exact_quotient_uncached

    got = exact_quotient_uncached(num, den)
    expected = _sympy_quotient(num, den)
    assert (to_sympy(got) if got is not None else None) == expected, (num, den, got, expected)


# -- random forms: the whole simplifier ------------------------------------------------------------


def _random_form(rng: random.Random, depth: int) -> F.Form:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([x, y, z, k(rng.randint(-6, 6))])
    op = rng.choice(["add", "sub", "scale", "mul", "floordiv", "mod", "max", "min", "recombine", "nested"])
    u = _random_form(rng, depth - 1)
    if op in ("add", "sub", "mul", "max", "min"):
        v = _random_form(rng, depth - 1)
        return {"add": F.add, "sub": F.sub, "mul": F.mul, "max": F.max_, "min": F.min_}[op](u, v)
    if op == "scale":
        return F.scale(u, rng.choice([2, 3, 8, -1, -4]))
    d = k(rng.choice([2, 3, 4, 8]))
    if op == "recombine":
        return F.add(F.scale(F.floordiv(u, d), d.const), F.mod(u, d))
    if op == "nested":
        return F.floordiv(F.add(F.floordiv(u, d), k(rng.randint(-3, 3))), k(rng.choice([2, 3])))
    if rng.random() < 0.2:
        d = F.add(_random_form(rng, 0), k(rng.choice([1, 2])))
        d = k(5) if d.is_const and d.const == 0 else d  # a constant 0 divisor raises while building
    return F.floordiv(u, d) if op == "floordiv" else F.mod(u, d)


RANGES = [{}, {"x": (0, 7), "y": (0, 3)}, {"x": (-4, 4), "z": (1, 6)}, {"x": (2, 9), "y": (-5, -1), "z": (0, 0)}]


@pytest.mark.parametrize("seed", range(30))
def test_random_forms_keep_their_values(seed):
    rng = random.Random(seed)
    for _ in range(12):
        f = _random_form(rng, 3)
        ranges = rng.choice(RANGES)
        g = simplify(f, ranges)
        assert simplify(f, ranges) is g  # deterministic
        names = sorted(f.symbols | g.symbols)
        for env in _grid(names, ranges, range(-7, 8)):
            v = _value(f, env)
            if v is not None:
                assert g.value(env) == v, (to_sympy(f), ranges, to_sympy(g), env)


@pytest.mark.parametrize("seed", range(20))
def test_random_relations_keep_their_truth(seed):
    rng = random.Random(1000 + seed)
    for _ in range(10):
        lhs, rhs = _random_form(rng, 2), _random_form(rng, 1)
        rel = B.rel(rng.choice(["<", "<=", "==", "!=", ">="]), lhs, rhs)
        if rng.random() < 0.3:
            rel = B.and_(rel, B.rel("==", F.mod(x, k(4)), k(rng.randint(0, 3))), B.rel("==", F.floordiv(x, k(4)), k(1)))
        if rel.kind == "const":
            continue
        ranges = rng.choice(RANGES)
        got = simplify_bool(rel, ranges)
        names = sorted(rel.symbols | got.symbols)
        for env in _grid(names, ranges, range(-7, 8)):
            try:
                v = rel.evaluate(env)
            except ZeroDivisionError:
                continue
            assert got.evaluate(env) == v, (to_sympy(rel), ranges, to_sympy(got), env)


# -- every rule, one family of instances each: the rule fires (the form shrinks) and keeps the values --------
def _mx(a, b_):
    return F.max_(a, b_)


def _mn(a, b_):
    return F.min_(a, b_)


def _family(c, d):
    """Instances of each rule for the constants ``c`` (any) and ``d`` (a divisor > 1)."""
    return {
        "push into min": F.add(_mn(x, F.sub(y, z)), z),
        "push into max, negated": F.sub(x, _mx(F.add(x, y), k(c))),
        "uncombine": F.sub(F.scale(x, c or 1), F.scale(F.floordiv(x, k(d)), (c or 1) * d)),
        "small rest //": F.floordiv(F.add(F.scale(x, 4 * d), k(3)), k(8 * d)),
        "small rest %": F.mod(F.add(F.scale(x, 4 * d), k(3)), k(8 * d)),
        "absorption": _mn(x, _mx(x, F.add(y, k(c)))),
        "dominance by definitions": _mn(F.scale(F.floordiv(F.add(x, k(d - 1)), k(d)), d), x),
        "common floordiv": _mx(F.floordiv(x, k(d)), F.floordiv(y, k(d))),
        "common floordiv, negative divisor": _mn(F.floordiv(x, k(-d)), F.floordiv(y, k(-d))),
        "distribute": _mn(_mx(x, y), _mx(x, F.add(z, k(c)))),
        "shifted pair": F.sub(_mn(F.add(x, k(c + 5)), F.add(y, k(c))), _mn(F.add(x, k(5)), y)),
        "parity pair": F.add(F.mod(x, k(2)), F.mod(F.add(x, k(2 * c + 1)), k(2))),
        "floordiv difference": F.sub(F.floordiv(F.add(x, k(c + d)), k(d)), F.floordiv(F.add(x, k(c)), k(d))),
        "split offset": F.sub(F.floordiv(F.add(x, k(1)), k(2)), F.mod(x, k(2))),
        "half of parity": F.floordiv(F.add(F.mod(x, k(2)), k(2 * abs(c) + 1)), k(2)),
        "unmod in %": F.mod(F.sub(x, F.mod(x, k(d))), k(d)),
        "unmod in //": F.floordiv(F.sub(x, F.mod(x, k(d))), k(d)),
        "common factor": F.floordiv(F.add(F.scale(F.mul(x, y), 2 * d), F.scale(x, 2 * d)), F.mul(F.scale(x, d), z)),
        "common factor %": F.mod(F.add(F.scale(F.mul(x, y), 2 * d), F.scale(x, 2 * d)), F.mul(F.scale(x, d), z)),
        "floordiv of mod": F.floordiv(F.mod(x, k(d * 4)), k(d)),
    }


@pytest.mark.parametrize("c", [-3, 0, 1, 4])
@pytest.mark.parametrize("d", [2, 3, 8])
def test_each_rule_fires_and_keeps_values(c, d):
    from valueranges.rewrite import size

    for name, before in _family(c, d).items():
        after = simplify(before)
        assert (after is not before and size(after) <= size(before)) or before.is_const, \
            f"{name}: {to_sympy(before)} was not rewritten ({to_sympy(after)})"
        _same_values(before, after, {"z": (-4, 4)})


@pytest.mark.parametrize("kval", [-5, 0, 3, 10])
def test_relation_split_through_minmax(kval):
    for before in (B.rel("<", F.min_(x, k(kval + 1)), k(kval)), B.rel(">", F.max_(k(kval - 2), x), k(kval)),
                   B.rel("<", F.add(x, k(1)), F.max_(k(kval), x)), B.rel(">=", F.min_(x, y), k(kval))):
        _same_truth(before, simplify_bool(before), {})
