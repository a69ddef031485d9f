"""Tests for ``valueranges.ops``: table-driven cases, and every operator against brute force."""

from __future__ import annotations

import math
import operator
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from valueranges import RangeKindError, ValueRanges, ops

from .sampling import project

INF = math.inf
VR = ValueRanges
U = VR.unknown()
T, F, B = VR.true(), VR.false(), VR.unknown_bool()


def of(lo, hi):
    return VR.of(lo, hi)


# -- table-driven cases ---------------------------------------------------------------------------

CASES = [
    # (op, operands, expected)
    (ops.add, (of(1, 2), of(-5, INF)), of(-4, INF)),
    (ops.add, (of(-INF, 0), U), U),
    (ops.add, (B, VR.exact(1)), of(1, 2)),
    (ops.add, (VR.exact(10**400), of(-INF, 0)), of(-INF, 10**400)),
    (ops.add, (VR.exact(10**400), VR.exact(0.5)), U),  # int too large for a float: give up soundly
    (ops.sub, (of(1, 2), of(0, 5)), of(-4, 2)),
    (ops.sub, (of(2, INF), of(-INF, 1)), of(1, INF)),
    (ops.neg, (of(2, INF),), of(-INF, -2)),
    (ops.mul, (of(-2, 3), of(-5, 4)), of(-15, 12)),
    (ops.mul, (of(0, 5), of(3, INF)), of(0, INF)),
    (ops.mul, (of(-INF, 0), of(0, INF)), of(-INF, 0)),
    (ops.mul, (VR.exact(0), U), VR.exact(0)),
    (ops.mul, (of(-2, -1), of(-INF, -3)), of(3, INF)),
    (ops.mul, (of(2, 3), U), U),
    (ops.mul, (of(0.5, 1.5), of(-2, 2)), of(-3.0, 3.0)),
    (ops.floordiv, (of(2, 10), VR.exact(2)), of(1, 5)),
    (ops.floordiv, (of(-7, 3), of(2, INF)), of(-4, 1)),
    (ops.floordiv, (of(5, INF), of(-INF, -1)), of(-INF, -1)),
    (ops.floordiv, (of(-10, -1), of(1, INF)), of(-10, -1)),
    (ops.floordiv, (of(0, INF), of(1, INF)), of(0, INF)),
    (ops.floordiv, (of(1, 10), of(0, 5)), of(0, 10)),  # 0 is left out of the divisor
    (ops.floordiv, (of(-7, 7), of(-2, 2)), of(-7, 7)),
    (ops.floordiv, (of(-7, 7), VR.exact(0)), U),  # always raises: no value
    (ops.floordiv, (U, VR.exact(4)), U),
    (ops.ceildiv, (of(1, 10), VR.exact(4)), of(1, 3)),
    (ops.ceildiv, (of(-7, -1), VR.exact(2)), of(-3, 0)),
    (ops.ceildiv, (of(-7, 7), of(-2, 2)), of(-7, 7)),
    (ops.mod, (U, VR.exact(8)), of(0, 7)),
    (ops.mod, (of(0, INF), VR.exact(8)), of(0, 7)),
    (ops.mod, (of(9, 11), VR.exact(8)), of(1, 3)),
    (ops.mod, (of(-7, -5), VR.exact(8)), of(1, 3)),
    (ops.mod, (of(0, 5), VR.exact(8)), of(0, 5)),
    (ops.mod, (of(6, 9), VR.exact(8)), of(0, 7)),
    (ops.mod, (of(0, 3), of(5, 9)), of(0, 3)),
    (ops.mod, (of(0, 20), of(5, 9)), of(0, 8)),
    (ops.mod, (of(-3, -1), of(5, 9)), of(2, 8)),
    (ops.mod, (of(0, INF), of(1, INF)), of(0, INF)),
    (ops.mod, (of(3, 5), VR.exact(1)), VR.exact(0)),
    (ops.mod, (U, VR.exact(-8)), of(-7, 0)),
    (ops.mod, (of(0, 20), VR.exact(-8)), of(-7, 0)),
    (ops.mod, (of(-20, 20), of(-3, 3)), of(-2, 2)),
    (ops.mod, (of(0, 20), VR.exact(0)), U),
    (ops.pow_, (of(-3, 2), VR.exact(2)), of(0, 9)),
    (ops.pow_, (of(-3, 2), VR.exact(3)), of(-27, 8)),
    (ops.pow_, (of(-3, -2), VR.exact(2)), of(4, 9)),
    (ops.pow_, (of(2, 3), of(0, 2)), of(1, 9)),
    (ops.pow_, (of(0, 1), of(0, INF)), of(0, 1)),
    (ops.pow_, (of(2, INF), VR.exact(2)), of(4, INF)),
    (ops.pow_, (of(-INF, -2), VR.exact(3)), of(-INF, -8)),
    (ops.pow_, (of(-INF, -2), VR.exact(2)), of(4, INF)),
    (ops.pow_, (U, VR.exact(0)), VR.exact(1)),
    (ops.pow_, (of(-2, 3), of(1, 3)), of(-27, 27)),
    (ops.pow_, (of(2, 3), of(-3, -1)), U),  # negative exponents raise
    (ops.pow_, (VR.exact(10**20000), VR.exact(10)), U),  # too large to compute
    (ops.pow_, (of(0.5, 2.0), VR.exact(2)), of(0.25, 4.0)),
    (ops.truediv, (of(1, 3), of(2.0, 4.0)), of(0.25, 1.5)),
    (ops.truediv, (of(1, 3), of(0.0, 4.0)), of(0.25, INF)),
    (ops.truediv, (of(-1, 1), of(-1.0, 1.0)), U),
    (ops.truediv, (of(1, 2), VR.exact(0)), U),
    (ops.int_truediv, (of(1, 3), of(-2, 4)), of(-3.0, 3.0)),
    (ops.int_truediv, (VR.exact(7), VR.exact(2)), VR.exact(3.5)),
    (ops.int_truediv, (of(0, INF), of(1, INF)), of(0.0, INF)),
    (ops.max_, (of(2, 5), of(3, 9)), of(3, 9)),
    (ops.max_, (of(-INF, 5), of(3, 4)), of(3, 5)),
    (ops.min_, (of(2, 5), of(3, 9)), of(2, 5)),
    (ops.min_, (of(2, INF), U), of(-INF, INF)),
    (ops.abs_, (of(-7, 3),), of(0, 7)),
    (ops.abs_, (of(-7, -3),), of(3, 7)),
    (ops.abs_, (of(-INF, 3),), of(0, INF)),
    (ops.floor_to_int, (of(-2.5, 3.5),), of(-3, 3)),
    (ops.floor_to_int, (of(-INF, 2.5),), of(-INF, 2)),
    (ops.ceil_to_int, (of(-2.5, 3.5),), of(-2, 4)),
    (ops.eq, (VR.exact(3), VR.exact(3)), T),
    (ops.eq, (of(0, 2), of(3, 4)), F),
    (ops.eq, (of(0, 3), of(3, 4)), B),
    (ops.ne, (of(0, 2), of(3, 4)), T),
    (ops.lt, (of(2, 5), of(6, 9)), T),
    (ops.lt, (of(2, 5), of(5, 9)), B),
    (ops.lt, (of(5, 9), of(2, 5)), F),
    (ops.le, (of(2, 5), of(5, 9)), T),
    (ops.le, (of(6, INF), of(2, 5)), F),
    (ops.gt, (of(2, INF), VR.exact(1)), T),
    (ops.ge, (of(0, 3), VR.exact(4)), F),
    (ops.and_, (B, F), F),
    (ops.and_, (T, T), T),
    (ops.and_, (B, T), B),
    (ops.or_, (B, T), T),
    (ops.or_, (F, F), F),
    (ops.not_, (T,), F),
    (ops.not_, (B,), B),
    (ops.ite, (B, VR.exact(1), of(5, 6)), of(1, 6)),
    (ops.ite, (T, VR.exact(1), of(5, 6)), VR.exact(1)),
    (ops.ite, (F, VR.exact(1), of(5, 6)), of(5, 6)),
    (ops.ite, (of(1, 9), VR.exact(1), VR.exact(2)), VR.exact(1)),
    (ops.ite, (B, T, VR.exact(5)), of(1, 5)),
]


@pytest.mark.parametrize("op,operands,expected", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_cases(op, operands, expected):
    got = op(*operands)
    shown = ", ".join(map(str, operands))
    assert got == expected, f"{op.__name__}({shown}): expected {expected}, got {got}"
    assert got.is_bool == expected.is_bool


@pytest.mark.parametrize("op", [ops.and_, ops.or_])
def test_logic_rejects_numeric_ranges(op):
    with pytest.raises(RangeKindError):
        op(of(0, 1), T)
    with pytest.raises(TypeError):
        op(T, of(0, 1))


def test_not_rejects_numeric_range():
    with pytest.raises(RangeKindError):
        ops.not_(of(0, 1))


# -- brute force over small ranges ------------------------------------------------------------------
#
# For finite ranges every pair of operands is tried. The result must hold every value (soundness);
# for the operators marked tight it must also be exactly the hull of those values.


def _ceildiv(x, y):
    return -(-x // y)


def _pow(x, k):
    if k < 0:
        raise ValueError("negative exponent")
    return x**k


BINARY = {
    # name: (operator on ranges, Python operator, tight on finite integer ranges)
    "add": (ops.add, operator.add, True),
    "sub": (ops.sub, operator.sub, True),
    "mul": (ops.mul, operator.mul, True),
    "floordiv": (ops.floordiv, operator.floordiv, True),
    "ceildiv": (ops.ceildiv, _ceildiv, True),
    "mod": (ops.mod, operator.mod, False),
    "truediv": (ops.truediv, operator.truediv, False),
    "int_truediv": (ops.int_truediv, operator.truediv, True),
    "pow_": (ops.pow_, _pow, False),
    "max_": (ops.max_, max, True),
    "min_": (ops.min_, min, True),
    "eq": (ops.eq, operator.eq, True),
    "ne": (ops.ne, operator.ne, True),
    "lt": (ops.lt, operator.lt, True),
    "le": (ops.le, operator.le, True),
    "gt": (ops.gt, operator.gt, True),
    "ge": (ops.ge, operator.ge, True),
}

UNARY = {
    "neg": (ops.neg, operator.neg),
    "abs_": (ops.abs_, abs),
}


@st.composite
def small_ranges(draw, lo=-7, hi=7):
    a, b = draw(st.integers(lo, hi)), draw(st.integers(lo, hi))
    return VR.of(min(a, b), max(a, b))


def _values(r):
    return range(int(r.lower), int(r.upper) + 1)


def _hull(values):
    return VR.of(min(values), max(values)) if values else None


def _apply_all(fn, *ranges):
    out = []
    for args in _product(*[list(_values(r)) for r in ranges]):
        try:
            out.append(fn(*args))
        except (ZeroDivisionError, ValueError):
            pass
    return out


def _product(*lists):
    if not lists:
        yield ()
        return
    for head in lists[0]:
        for rest in _product(*lists[1:]):
            yield (head, *rest)


def _check(name, got, values, tight, operands):
    shown = ", ".join(map(str, operands))
    for v in values:
        assert v in got, f"{name}({shown}) = {got} misses the value {v}"
    if tight and values:
        assert got == _hull(values), f"{name}({shown}) = {got}, not tight: the values span {_hull(values)}"


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=150, deadline=None)
@given(a=small_ranges(), b=small_ranges())
def test_binary_against_brute_force(name, a, b):
    op, concrete, tight = BINARY[name]
    if name == "pow_":
        b = VR.of(max(b.lower, -1) + 1, max(b.upper, -1) + 1)  # small exponents, mostly natural
        tight = b.is_singleton()
    _check(name, op(a, b), _apply_all(concrete, a, b), tight, (a, b))


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=100, deadline=None)
@given(a=small_ranges())
def test_unary_against_brute_force(name, a):
    op, concrete = UNARY[name]
    _check(name, op(a), _apply_all(concrete, a), True, (a,))


def _bool_ranges():
    return st.sampled_from([T, F, B])


def _bools(r):
    return [v for v in (False, True) if v in r]


@settings(max_examples=50, deadline=None)
@given(a=_bool_ranges(), b=_bool_ranges())
def test_logic_against_brute_force(a, b):
    for name, op, concrete in (("and_", ops.and_, lambda x, y: x and y), ("or_", ops.or_, lambda x, y: x or y)):
        values = [concrete(x, y) for x in _bools(a) for y in _bools(b)]
        _check(name, op(a, b), values, True, (a, b))
    _check("not_", ops.not_(a), [not x for x in _bools(a)], True, (a,))


@settings(max_examples=150, deadline=None)
@given(c=_bool_ranges(), a=small_ranges(), b=small_ranges())
def test_ite_against_brute_force(c, a, b):
    values = [x for cv in _bools(c) for x in (_values(a) if cv else _values(b))]
    _check("ite", ops.ite(c, a, b), values, True, (c, a, b))


QUARTERS = st.integers(-12, 12).map(lambda n: n / 4)


@settings(max_examples=150, deadline=None)
@given(x=QUARTERS, y=QUARTERS)
def test_floor_ceil_against_brute_force(x, y):
    a = VR.of(min(x, y), max(x, y))
    grid = [n / 4 for n in range(int(a.lower * 4), int(a.upper * 4) + 1)]
    _check("floor_to_int", ops.floor_to_int(a), [math.floor(v) for v in grid], True, (a,))
    _check("ceil_to_int", ops.ceil_to_int(a), [math.ceil(v) for v in grid], True, (a,))


@settings(max_examples=200, deadline=None)
@given(x1=QUARTERS, x2=QUARTERS, y1=QUARTERS, y2=QUARTERS)
def test_float_ops_against_grid(x1, x2, y1, y2):
    a, b = VR.of(min(x1, x2), max(x1, x2)), VR.of(min(y1, y2), max(y1, y2))
    xs = [n / 4 for n in range(int(a.lower * 4), int(a.upper * 4) + 1)]
    ys = [n / 4 for n in range(int(b.lower * 4), int(b.upper * 4) + 1)]
    for name, op, concrete in (
        ("add", ops.add, operator.add),
        ("mul", ops.mul, operator.mul),
        ("truediv", ops.truediv, operator.truediv),
        ("max_", ops.max_, max),
        ("lt", ops.lt, operator.lt),
    ):
        values = [concrete(x, y) for x in xs for y in ys if not (name == "truediv" and y == 0)]
        _check(name, op(a, b), values, False, (a, b))
    _check("pow_", ops.pow_(a, VR.exact(3)), [x**3 for x in xs], False, (a,))


# -- sampling with unbounded ends -------------------------------------------------------------------


@st.composite
def open_ranges(draw):
    lo = draw(st.one_of(st.just(-INF), st.integers(-30, 30)))
    if lo == -INF:
        hi = draw(st.one_of(st.just(INF), st.integers(-30, 30)))
    else:
        hi = draw(st.one_of(st.just(INF), st.integers(lo, lo + 40)))
    return VR.of(lo, hi)


RAW_POINTS = st.lists(st.integers(), min_size=1, max_size=6)


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=100, deadline=None)
@given(a=open_ranges(), b=open_ranges(), xs=RAW_POINTS, ys=RAW_POINTS)
def test_binary_sound_with_unbounded_ends(name, a, b, xs, ys):
    op, concrete, _ = BINARY[name]
    if name == "pow_":
        b = VR.of(max(b.lower, -2) + 2, b.upper if b.upper == INF else max(b.upper, -2) + 2)
    got = op(a, b)
    for rx, ry in zip(xs, ys):
        x, y = project(rx, a), project(ry, b)
        if name == "pow_":
            y = min(y, b.lower + 6)
        try:
            v = concrete(x, y)
        except (ZeroDivisionError, ValueError, OverflowError):
            continue
        assert v in got, f"{name}({a}, {b}) = {got} misses {name}({x}, {y}) = {v}"


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=100, deadline=None)
@given(a=open_ranges(), xs=RAW_POINTS)
def test_unary_sound_with_unbounded_ends(name, a, xs):
    op, concrete = UNARY[name]
    got = op(a)
    for raw in xs:
        x = project(raw, a)
        assert concrete(x) in got, f"{name}({a}) = {got} misses {name}({x})"


def test_real_truediv_rounds_outward():
    third = ops.truediv(VR.exact(1), VR.exact(3))
    assert third.lower < Fraction(1, 3) < third.upper
    assert ops.truediv(VR.exact(1), VR.exact(4)) == VR.exact(0.25)  # exact quotients stay exact
    assert ops.int_truediv(VR.exact(1), VR.exact(3)) == VR.exact(1 / 3)  # what Python computes


def test_huge_operands_stay_sound():
    big = VR.of(10**400, 10**401)
    assert ops.mul(big, VR.of(-INF, -1)) == VR.of(-INF, -(10**400))
    assert ops.floordiv(big, VR.of(1, INF)) == VR.of(0, 10**401)
    assert ops.int_truediv(big, VR.exact(3)) == U  # too large for a float
    assert 10**500 in ops.pow_(VR.of(10**100, 10**100), VR.exact(5))
