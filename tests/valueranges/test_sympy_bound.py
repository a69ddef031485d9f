"""Tests for ``valueranges.bound`` (valueranges.sympy_bound: forms, and the sympy nodes forms do not represent): precision cases, errors, caching, and soundness against ``symint.evaluate``."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import NamedTuple

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symint import build, evaluate
from symint.build import symbol_expr
from symint.sympy_io.functions import CeilToInt, FloorToInt, IntTrueDiv, PowByNatural
from valueranges import UnsupportedExpressionError, ValueRangeError, ValueRanges, bound
from valueranges.sympy_bound import _bound_cached, _key

from .sampling import project

INF = math.inf
VR = ValueRanges
x, y, a, b = (symbol_expr(n) for n in ("x", "y", "a", "b"))
s0, s1, s2 = (symbol_expr(f"s{i}") for i in range(3))


class Case(NamedTuple):
    expr: sympy.Basic
    ranges: dict
    expected: ValueRanges


# -- precision -----------------------------------------------------------------------------------

CASES = [
    # The precision the brief asks for.
    Case(build.floordiv(x, 2), {x: VR.of(2, 10)}, VR.of(1, 5)),
    Case(build.mod(x, 8), {x: VR.of(0, INF)}, VR.of(0, 7)),
    Case(build.max_(a, b), {a: VR.of(2, 5), b: VR.of(3, 9)}, VR.of(3, 9)),
    Case(build.sub(a, a), {a: VR.of(2, 5)}, VR.exact(0)),
    # Repeated symbols.
    Case(build.mul(x, x), {x: VR.of(-3, 5)}, VR.of(0, 25)),
    Case(build.pow_(x, 2), {x: VR.of(-3, 5)}, VR.of(0, 25)),
    Case(build.mul(build.mul(x, y), x), {x: VR.of(-3, 5), y: VR.of(1, 2)}, VR.of(0, 50)),
    Case(build.pow_(build.sub(x, y), 2), {}, VR.of(0, INF)),
    Case(build.abs_(x), {x: VR.of(-3, 5)}, VR.of(0, 5)),
    # Bounded on the canonical form x**2 - 1 (the sympy walk gave [-9, 3]: each factor alone).
    Case(build.mul(build.add(x, 1), build.sub(x, 1)), {x: VR.of(-2, 2)}, VR.of(-1, 3)),
    Case(build.add(build.pow_(build.sub(x, y), 2), 1), {}, VR.of(1, INF)),
    # Float ends of an integer symbol's range: the integers inside, before // and % (the form bound's int_ends).
    Case(build.floordiv(x, 2), {x: VR.of(0.5, 3.5)}, VR.of(0, 1)),
    Case(build.mod(x, 8), {x: VR.of(8.5, 10.5)}, VR.of(1, 2)),
    Case(build.neg(build.abs_(x)), {x: VR.of(-3, 5)}, VR.of(-5, 0)),
    Case(build.min_(x, build.neg(x)), {x: VR.of(-3, 5)}, VR.of(-5, 0)),
    Case(build.abs_(build.sub(x, y)), {x: VR.of(0, 3), y: VR.of(0, 3)}, VR.of(0, 3)),
    Case(build.lt(build.add(x, 1), build.add(x, y)), {y: VR.of(2, INF)}, VR.true()),
    Case(build.le(build.mul(2, x), build.add(x, y)), {x: VR.of(0, 4), y: VR.of(5, 9)}, VR.true()),
    # Each symint function.
    Case(build.ceildiv(x, 4), {x: VR.of(1, 10)}, VR.of(1, 3)),
    Case(build.mod(x, 8), {x: VR.of(9, 11)}, VR.of(1, 3)),
    Case(build.mod(x, -8), {}, VR.of(-7, 0)),
    Case(build.mod(x, y), {x: VR.of(0, 3), y: VR.of(5, 9)}, VR.of(0, 3)),
    Case(build.floordiv(x, y), {x: VR.of(-7, 7), y: VR.of(-2, 2)}, VR.of(-7, 7)),
    Case(build.floordiv(build.add(build.mul(x, y), 3), 4), {x: VR.of(2, INF), y: VR.of(2, 100)}, VR.of(1, INF)),
    Case(build.pow_(x, y), {x: VR.of(2, 3), y: VR.of(0, 2)}, VR.of(1, 9)),
    Case(PowByNatural(x, 3), {x: VR.of(-2, 1)}, VR.of(-8, 1)),
    Case(build.truediv(x, 2), {x: VR.of(1, 3)}, VR.of(0.5, 1.5)),
    Case(IntTrueDiv(x, y), {x: VR.of(1, 3), y: VR.of(-2, 4)}, VR.of(-3.0, 3.0)),
    Case(FloorToInt(build.truediv(x, 2)), {x: VR.of(1, 3)}, VR.of(0, 1)),
    Case(CeilToInt(build.truediv(x, 2)), {x: VR.of(1, 3)}, VR.of(1, 2)),
    Case(build.min_(build.max_(x, 0), 7), {}, VR.of(0, 7)),
    Case(build.ite(build.lt(x, 0), 1, 2), {x: VR.of(0, 5)}, VR.exact(2)),
    Case(build.ite(build.lt(x, 3), 1, build.add(x, 5)), {x: VR.of(0, 5)}, VR.of(1, 10)),
    # Sums and products with coefficients.
    Case(build.add(build.mul(3, x), build.mul(-2, y)), {x: VR.of(0, 2), y: VR.of(1, 4)}, VR.of(-8, 4)),
    Case(build.mul(x, sympy.Rational(1, 2)), {x: VR.of(1, 3)}, VR.of(0.5, 1.5)),
    Case(build.add(x, 0.5), {x: VR.of(1, 3)}, VR.of(1.5, 3.5)),
    Case(build.mul(build.truediv(x, 2), y), {x: VR.of(2, 4), y: VR.of(-1, 1)}, VR.of(-2.0, 2.0)),
    # A product with a sum for a factor: its form expands (10*x - x**2 would be [-100, 100]), bounded as written too.
    Case(build.mul(x, build.sub(10, x)), {x: VR.of(0, 10)}, VR.of(0, 100)),
    Case(build.add(build.mul(build.add(x, 1), build.add(y, 2)), 1), {x: VR.of(0, 3), y: VR.of(0, 3)}, VR.of(3, 21)),
    # Booleans.
    Case(build.lt(a, b), {a: VR.of(2, 5), b: VR.of(6, 9)}, VR.true()),
    Case(build.ge(a, b), {a: VR.of(2, 5), b: VR.of(6, 9)}, VR.false()),
    Case(build.eq(a, b), {a: VR.of(2, 5), b: VR.of(5, 9)}, VR.unknown_bool()),
    Case(build.ne(build.mul(2, x), x), {x: VR.of(2, INF)}, VR.true()),
    Case(build.and_(build.gt(x, 1), build.lt(x, 9)), {x: VR.of(2, 8)}, VR.true()),
    Case(build.and_(build.gt(x, 1), build.lt(x, 5)), {x: VR.of(2, 8)}, VR.unknown_bool()),
    Case(build.or_(build.gt(x, 8), build.lt(x, 2)), {x: VR.of(2, 8)}, VR.false()),
    Case(build.not_(build.eq(x, 0)), {x: VR.of(1, 8)}, VR.true()),
    Case(sympy.true, {}, VR.true()),
    Case(sympy.false, {}, VR.false()),
    # Leaves.
    Case(x, {}, VR.unknown()),
    Case(x, {x: VR.of(0, 3)}, VR.of(0, 3)),
    Case(sympy.Integer(-4), {}, VR.exact(-4)),
    Case(sympy.Float(0.25), {}, VR.exact(0.25)),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c.expr))
def test_bound_cases(case):
    got = bound(case.expr, case.ranges)
    ranges = {str(k): str(v) for k, v in case.ranges.items()}
    assert got == case.expected, f"bound({case.expr}) with {ranges}: expected {case.expected}, got {got}"
    assert got.is_bool == case.expected.is_bool


def test_python_numbers_are_accepted():
    assert bound(3, {}) == VR.exact(3)
    assert bound(True, {}) == VR.true()
    assert bound(0.5, {}) == VR.exact(0.5)


def test_inexact_rational_is_rounded_outward():
    r = bound(build.mul(x, sympy.Rational(1, 3)), {x: VR.exact(1)})
    assert r.lower < Fraction(1, 3) < r.upper


def test_negative_powers_bound_the_exact_rational():
    r = bound(sympy.Pow(x, -1), {x: VR.of(1, 3)})
    assert r.lower < Fraction(1, 3) and r.upper == 1.0
    assert evaluate(sympy.Pow(x, -1), {x: 3}) in r


def test_sympy_spellings_of_the_functions():
    assert bound(sympy.Max(x, 3), {x: VR.of(0, 5)}) == VR.of(3, 5)
    assert bound(sympy.Abs(x), {x: VR.of(-4, 2)}) == VR.of(0, 4)
    assert bound(sympy.floor(IntTrueDiv(x, 2)), {x: VR.of(1, 3)}) == VR.of(0, 1)


@pytest.mark.parametrize("expr", [sympy.sin(x), sympy.oo, sympy.zoo, sympy.Function("f")(x)])
def test_unsupported_nodes_raise(expr):
    with pytest.raises(UnsupportedExpressionError) as info:
        bound(expr, {})
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueRangeError)
    assert "symint.build" in str(info.value)


def test_irrelevant_symbols_do_not_matter():
    small = bound(build.add(x, 1), {x: VR.of(0, 3)})
    big = bound(build.add(x, 1), {x: VR.of(0, 3), y: VR.of(5, 6), a: VR.exact(1)})
    assert small == big == VR.of(1, 4)


def test_shared_subexpressions_are_bounded_once():
    e = x
    for _ in range(60):
        e = build.abs_(build.sub(e, 1))  # each level uses the previous one twice
    assert bound(e, {x: VR.of(-5, 5)}) in VR.of(0, INF)


def test_cache_changes_no_result():
    e = build.add(build.floordiv(x, 3), build.mod(y, 5))
    ranges = {x: VR.of(-4, 10), y: VR.of(0, INF)}
    uncached = _bound_cached.__wrapped__(e, (_key(ranges[x]), _key(ranges[y])))
    assert bound(e, ranges) == bound(e, ranges) == uncached


# -- known imprecision ---------------------------------------------------------------------------
#
# Interval arithmetic treats each occurrence of a symbol as independent. These cases record what
# ``bound`` gives (``expected``) next to the exact answer (``ideal``), so a future improvement shows.

IMPRECISE = [
    # (expr, ranges, expected, ideal)
    (build.sub(x, build.min_(x, 3)), {x: VR.of(0, 10)}, VR.of(-3, 10), VR.of(0, 7)),
    (build.lt(x, build.add(build.max_(x, 3), 1)), {}, VR.unknown_bool(), VR.true()),
    (build.mod(x, 8), {x: VR.of(6, 9)}, VR.of(0, 7), VR.of(0, 7)),  # {6, 7, 0, 1}: the hull is exact
    (build.sub(x, build.mul(8, build.floordiv(x, 8))), {x: VR.of(0, 100)}, VR.of(-96, 100), VR.of(0, 7)),
]


@pytest.mark.parametrize("expr,ranges,expected,ideal", IMPRECISE, ids=lambda v: str(v) if isinstance(v, sympy.Basic) else None)
def test_known_imprecision(expr, ranges, expected, ideal):
    got = bound(expr, ranges)
    assert got == expected, f"bound({expr}) changed: expected {expected} (ideal {ideal}), got {got}"
    assert ideal in got


# -- soundness ----------------------------------------------------------------------------------
#
# Random expressions built with symint.build over three symbols, random ranges (with unbounded
# ends and negative values) and random points in them: the concrete value always lies in the bound.

SYMBOLS = (s0, s1, s2)
BINARY_BUILDERS = (
    build.add,
    build.sub,
    build.mul,
    build.floordiv,
    build.ceildiv,
    build.mod,
    build.max_,
    build.min_,
)
UNARY_BUILDERS = (build.neg, build.abs_)
RELATIONS = (build.eq, build.ne, build.lt, build.le, build.gt, build.ge)


class ExprDecoder:
    """Decode a byte string into an expression built with ``symint.build``.

    Hypothesis draws one flat byte string (cheap to generate and to shrink: shorter
    strings and smaller bytes give smaller expressions, an exhausted string gives leaves),
    and this decoder turns it into an integer or boolean expression of bounded depth.
    """

    def __init__(self, codes: bytes):
        self.codes = codes
        self.pos = 0

    def take(self, n: int) -> int:
        if self.pos >= len(self.codes):
            return 0
        self.pos += 1
        return self.codes[self.pos - 1] % n

    def int_expr(self, depth: int) -> sympy.Expr:
        if depth == 0 or self.take(5) == 0:
            k = self.take(19)
            return SYMBOLS[k] if k < 3 else sympy.Integer(k - 9)  # s0..s2 or -6..9
        kind = self.take(10)
        if kind <= 5:
            op = BINARY_BUILDERS[self.take(len(BINARY_BUILDERS))]
            lhs, rhs = self.int_expr(depth - 1), self.int_expr(depth - 1)
            try:
                return op(lhs, rhs)
            except ZeroDivisionError:  # a divisor folded to the constant 0
                return lhs
        if kind <= 7:
            return UNARY_BUILDERS[kind - 6](self.int_expr(depth - 1))
        if kind == 8:
            return build.pow_(self.int_expr(depth - 1), self.take(4))
        if self.take(2) == 0:
            cond = self.bool_expr(depth - 1)
            return build.ite(cond, self.int_expr(depth - 1), self.int_expr(depth - 1))
        lhs, rhs = self.int_expr(depth - 1), self.int_expr(depth - 1)
        try:
            return FloorToInt(build.truediv(lhs, rhs))
        except ZeroDivisionError:
            return lhs

    def bool_expr(self, depth: int) -> sympy.Basic:
        kind = self.take(6)
        if depth == 0 or kind <= 2:
            op = RELATIONS[self.take(len(RELATIONS))]
            sub_depth = max(depth - 1, 0)
            return op(self.int_expr(sub_depth), self.int_expr(sub_depth))
        if kind == 3:
            return build.not_(self.bool_expr(depth - 1))
        op = build.and_ if kind == 4 else build.or_
        return op(self.bool_expr(depth - 1), self.bool_expr(depth - 1))

    def expr(self, depth: int = 3) -> sympy.Basic:
        return self.bool_expr(depth) if self.take(4) == 0 else self.int_expr(depth)


CODES = st.binary(max_size=80)


def _decode_range(code: tuple[int, int]) -> ValueRanges:
    """``(start, width)`` -> a range: start -21 means -oo, width -1 means oo (flat draws are cheap)."""
    start, width = code
    lo = -INF if start == -21 else start
    if width == -1:
        return VR.of(lo, INF)
    return VR.of(lo, width - 15 if lo == -INF else lo + width)


RANGE_CODES = st.tuples(st.integers(-21, 20), st.integers(-1, 30))


POINTS = st.lists(st.integers(-(10**6), 10**6), min_size=3, max_size=12)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    codes=CODES,
    range_codes=st.tuples(RANGE_CODES, RANGE_CODES, RANGE_CODES),
    points=POINTS,
)
def test_bound_is_sound(codes, range_codes, points):
    expr = ExprDecoder(codes).expr()
    ranges = [_decode_range(c) for c in range_codes]
    env = dict(zip(SYMBOLS, ranges))
    got = bound(expr, env)
    assert got.is_bool == build.is_bool_expr(expr)
    for i in range(0, len(points) - 2, 3):
        raw = points[i : i + 3]
        values = {s: project(v, r) for s, v, r in zip(SYMBOLS, raw, ranges)}
        try:
            value = evaluate(expr, values)
        except (ZeroDivisionError, OverflowError):
            continue
        shown = {str(s): v for s, v in values.items()}
        assert value in got, f"{expr} = {value} at {shown}, outside its bound {got} for ranges {env}"


def test_generator_uses_every_builder():
    """Guard against the generator silently losing operators (e.g. a builder that always folds)."""
    rng = random.Random(0)
    seen: set[str] = set()
    for _ in range(300):
        expr = ExprDecoder(rng.randbytes(80)).expr()
        seen.update(type(n).__name__ for n in sympy.preorder_traversal(expr))
    wanted = {"Add", "Mul", "FloorDiv", "CeilDiv", "Mod", "Max", "Min", "Pow", "IfThenElse", "FloorToInt"}
    wanted |= {"StrictLessThan", "LessThan", "Equality", "Unequality", "OrderedAnd", "OrderedOr"}  # symint.sympy_io.functions
    assert wanted <= seen, f"never generated: {sorted(wanted - seen)}"
