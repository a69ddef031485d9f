"""Tests for ``valueranges.interval.ValueRanges``: construction, errors, lattice operations, printing."""

from __future__ import annotations

import dataclasses
import math

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from valueranges import (
    EmptyRangeError,
    InvalidRangeError,
    RangeKindError,
    ValueRangeError,
    ValueRanges,
)

INF = math.inf
VR = ValueRanges


# -- construction -------------------------------------------------------------------------------

OF_CASES = [
    # (lower, upper, expected (lower, upper, is_bool), endpoint types)
    (0, 5, (0, 5, False), (int, int)),
    (2, INF, (2, INF, False), (int, float)),
    (-INF, INF, (-INF, INF, False), (float, float)),
    (False, True, (False, True, True), (bool, bool)),
    (True, 5, (1, 5, False), (int, int)),
    (sympy.Integer(3), sympy.oo, (3, INF, False), (int, float)),
    (-sympy.oo, sympy.Integer(-2), (-INF, -2, False), (float, int)),
    (0.5, 2.5, (0.5, 2.5, False), (float, float)),
    (sympy.Float(0.25), 1, (0.25, 1, False), (float, int)),
]


@pytest.mark.parametrize("lower,upper,expected,types", OF_CASES)
def test_of_normalises(lower, upper, expected, types):
    r = VR.of(lower, upper)
    got = (r.lower, r.upper, r.is_bool)
    assert got == expected, f"of({lower!r}, {upper!r}): expected {expected}, got {got}"
    assert (type(r.lower), type(r.upper)) == types, f"of({lower!r}, {upper!r}) endpoint types"


def test_named_constructors():
    assert VR.exact(4) == VR(4, 4)
    assert VR.unknown() == VR(-INF, INF)
    assert VR.unknown_bool() == VR(False, True, True)
    assert VR.true() == VR(True, True, True)
    assert VR.false() == VR(False, False, True)
    assert VR.exact(True) == VR.true()
    assert VR.unknown() != VR.unknown_bool()


EMPTY_CASES = [(5, 3), (1, 0), (0.5, 0.25), (True, False), (INF, -INF)]


@pytest.mark.parametrize("lower,upper", EMPTY_CASES)
def test_empty_range_raises_with_both_numbers(lower, upper):
    with pytest.raises(EmptyRangeError) as info:
        VR.of(lower, upper)
    message = str(info.value)
    for v in (lower, upper):
        shown = "oo" if v == INF else "-oo" if v == -INF else str(v)
        assert shown in message, f"{shown!r} missing from {message!r}"
    assert isinstance(info.value, ValueError) and isinstance(info.value, ValueRangeError)


@pytest.mark.parametrize("lower,upper", [(INF, INF), (-INF, -INF), (math.nan, 1), (0, math.nan), (math.nan, math.nan)])
def test_invalid_endpoints_raise(lower, upper):
    with pytest.raises(InvalidRangeError):
        VR.of(lower, upper)


@pytest.mark.parametrize("value", [INF, -INF, math.nan])
def test_exact_rejects_non_finite(value):
    with pytest.raises(InvalidRangeError):
        VR.exact(value)


@pytest.mark.parametrize("bad", ["3", None, [1]])
def test_non_numeric_endpoint_raises_kind_error(bad):
    with pytest.raises(RangeKindError) as info:
        VR.of(bad, 5)
    assert isinstance(info.value, TypeError)


def test_plain_constructor_validates_order():
    with pytest.raises(EmptyRangeError):
        VR(3, 2)


def test_frozen_slotted_hashable():
    r = VR.of(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.lower = 0  # type: ignore[misc]
    assert not hasattr(r, "__dict__")
    assert {VR.of(1, 2): "a"}[VR.of(1, 2)] == "a"
    assert bool(VR.of(0, 0)), "ranges are always truthy (callers use `r or default`)"


# -- queries ------------------------------------------------------------------------------------

QUERY_CASES = [
    # (range, is_singleton, is_finite, str)
    (VR.of(2, INF), False, False, "[2, oo]"),
    (VR.of(-INF, 5), False, False, "[-oo, 5]"),
    (VR.unknown(), False, False, "[-oo, oo]"),
    (VR.exact(3), True, True, "[3, 3]"),
    (VR.of(0.5, 1.5), False, True, "[0.5, 1.5]"),
    (VR.unknown_bool(), False, True, "[False, True]"),
    (VR.true(), True, True, "[True, True]"),
]


@pytest.mark.parametrize("r,singleton,finite,text", QUERY_CASES)
def test_queries(r, singleton, finite, text):
    assert r.is_singleton() is singleton, f"{r}.is_singleton()"
    assert r.is_finite() is finite, f"{r}.is_finite()"
    assert str(r) == text


CONTAINS_CASES = [
    # (item, range, expected)
    (3, VR.of(0, 5), True),
    (6, VR.of(0, 5), False),
    (10**30, VR.of(2, INF), True),
    (-(10**30), VR.of(-INF, 0), True),
    (1, VR.of(2, INF), False),
    (True, VR.unknown_bool(), True),
    (False, VR.true(), False),
    (2.5, VR.of(2, 3), True),
    (VR.of(1, 2), VR.of(0, 5), True),
    (VR.of(1, 9), VR.of(0, 5), False),
    (VR.of(0, INF), VR.unknown(), True),
    (VR.unknown(), VR.of(0, INF), False),
]


@pytest.mark.parametrize("item,r,expected", CONTAINS_CASES)
def test_contains(item, r, expected):
    assert (item in r) is expected, f"{item} in {r}: expected {expected}"
    if isinstance(item, VR):
        assert item.issubset(r) is expected


# -- lattice --------------------------------------------------------------------------------------

LATTICE_CASES = [
    # (a, b, a & b, a | b)
    (VR.of(0, 5), VR.of(3, INF), VR.of(3, 5), VR.of(0, INF)),
    (VR.of(-INF, 2), VR.of(2, 9), VR.exact(2), VR.of(-INF, 9)),
    (VR.unknown(), VR.of(1, 2), VR.of(1, 2), VR.unknown()),
    (VR.unknown_bool(), VR.true(), VR.true(), VR.unknown_bool()),
    (VR.of(0.5, 1.5), VR.of(1, 2), VR.of(1, 1.5), VR.of(0.5, 2)),
]


@pytest.mark.parametrize("a,b,meet,join", LATTICE_CASES)
def test_intersection_and_union(a, b, meet, join):
    assert a & b == meet, f"{a} & {b}: expected {meet}, got {a & b}"
    assert b & a == meet
    assert a | b == join, f"{a} | {b}: expected {join}, got {a | b}"
    assert b | a == join


@pytest.mark.parametrize(
    "a,b",
    [(VR.of(0, 3), VR.of(5, 9)), (VR.of(2, INF), VR.of(-INF, 1)), (VR.true(), VR.false())],
)
def test_disjoint_intersection_raises(a, b):
    with pytest.raises(EmptyRangeError) as info:
        a & b
    assert str(a) in str(info.value) and str(b) in str(info.value)
    assert info.value.operands == (a, b)


def test_mixing_kinds_raises():
    with pytest.raises(RangeKindError):
        VR.of(0, 1) & VR.unknown_bool()
    with pytest.raises(RangeKindError):
        VR.of(0, 1) | VR.true()


def test_operators_reject_other_types():
    with pytest.raises(TypeError):
        VR.of(0, 1) & 3  # type: ignore[operator]


# -- properties -----------------------------------------------------------------------------------

ENDS = st.one_of(st.integers(-50, 50), st.just(-INF), st.just(INF))


@st.composite
def ranges(draw):
    a, b = draw(ENDS), draw(ENDS)
    lo, hi = min(a, b), max(a, b)
    if lo == INF or hi == -INF or (lo == hi and lo in (INF, -INF)):
        return VR.unknown()
    return VR.of(lo, hi)


@settings(max_examples=300, deadline=None)
@given(ranges(), ranges(), st.integers(-60, 60))
def test_lattice_laws(a, b, x):
    join = a | b
    assert a in join and b in join
    assert (x in a or x in b) <= (x in join)
    try:
        meet = a & b
    except EmptyRangeError:
        assert not (x in a and x in b)
    else:
        assert meet in a and meet in b
        assert (x in meet) == (x in a and x in b)
