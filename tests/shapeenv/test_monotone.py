"""Monotone single-symbol guards become bounds: exactly equivalent on the symbol's range."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guards import Source
from shapeenv import ShapeEnv
from valueranges.facts.monotone import as_bound, direction
from symint import form as F

X = F.sym("x")
C = F.const


def test_direction_of_common_shapes() -> None:
    assert direction(F.floordiv(F.add(X, C(3)), C(2)), "x") == 1
    assert direction(F.sub(C(10), F.ceildiv(X, C(3))), "x") == -1
    assert direction(F.max_(X, F.mul(C(2), X)), "x") == 1
    assert direction(F.mod(X, C(4)), "x") is None
    assert direction(F.mul(X, X), "x") is None
    assert direction(F.floordiv(X, C(-2)), "x") == -1
    assert direction(F.sub(F.sym("y"), C(1)), "x") == 0


def _random_monotone(draw, depth: int):
    if depth == 0:
        return X if draw(st.booleans()) else C(draw(st.integers(-5, 5)))
    kind = draw(st.sampled_from(["add", "mulc", "fdiv", "cdiv", "max", "min"]))
    a = _random_monotone(draw, depth - 1)
    if kind == "add":
        return F.add(a, _random_monotone(draw, depth - 1))
    if kind == "mulc":
        return F.scale(a, draw(st.integers(1, 4)))
    if kind in ("fdiv", "cdiv"):
        fn = F.floordiv if kind == "fdiv" else F.ceildiv
        return fn(a, C(draw(st.integers(1, 5))))
    fn = F.max_ if kind == "max" else F.min_
    return fn(a, _random_monotone(draw, depth - 1))


@st.composite
def monotone_guards(draw):
    expr = _random_monotone(draw, draw(st.integers(1, 3)))
    op = draw(st.sampled_from([">=", ">", "<=", "<"]))
    return F.rel(op, expr, C(draw(st.integers(-10, 20))))


@settings(max_examples=300, deadline=None)
@given(guard=monotone_guards(), lower=st.integers(0, 5), hint=st.integers(0, 60))
def test_bound_is_exactly_equivalent_on_the_range(guard, lower: int, hint: int) -> None:
    upper = 80
    if guard.is_const or not lower <= hint:
        return
    if "x" not in guard.symbols or not guard.evaluate({"x": hint}):
        return
    result = as_bound(guard, "x", lower, upper, hint)
    if result is None:
        return
    for v in range(lower, upper + 1):
        expected = guard.evaluate({"x": v})
        got = result.evaluate({"x": v})
        assert got == expected, (guard, result, v)


def test_conv_like_guard_becomes_a_lower_bound_in_produced_guards() -> None:
    env = ShapeEnv()
    n = env.create_symint(33, Source.size("x", 2))
    out = ((n - 1) // 2 - 1) // 2 + 1
    assert bool(out >= 1)
    text = env.produce_guards().to_text("source")
    assert text.strip() == "x.size()[2] >= 3"
    gs = env.produce_guards()
    for size in range(0, 12):
        ok = ((size - 1) // 2 - 1) // 2 + 1 >= 1 and size >= 2
        assert gs.holds({"x.size()[2]": size}) == ok


@pytest.mark.parametrize("hint", [5, 40])
def test_decreasing_guard_becomes_an_upper_bound(hint: int) -> None:
    guard = F.rel("<=", F.floordiv(F.add(X, C(3)), C(4)), C(11))  # x <= 44
    assert as_bound(guard, "x", 2, math.inf, hint) is F.rel("<=", X, C(44))
