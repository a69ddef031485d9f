"""Monotone single-symbol guards become bounds: exactly equivalent on the symbol's range."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guards import Source
from shapeenv import ShapeEnv
from valueranges.facts.monotone import as_bound, direction
from symint import build, evaluate
from symint.build import symbol_expr

X = symbol_expr("x")


def test_direction_of_common_shapes() -> None:
    assert direction(build.floordiv(build.add(X, 3), 2), X) == 1
    assert direction(build.sub(10, build.ceildiv(X, 3)), X) == -1
    assert direction(build.max_(X, build.mul(2, X)), X) == 1
    assert direction(build.mod(X, 4), X) is None
    assert direction(build.mul(X, X), X) is None
    assert direction(build.floordiv(X, -2), X) == -1


def _random_monotone(draw, depth: int):
    if depth == 0:
        return X if draw(st.booleans()) else build.as_expr(draw(st.integers(-5, 5)))
    kind = draw(st.sampled_from(["add", "mulc", "fdiv", "cdiv", "max", "min"]))
    a = _random_monotone(draw, depth - 1)
    if kind == "add":
        return build.add(a, _random_monotone(draw, depth - 1))
    if kind == "mulc":
        return build.mul(a, draw(st.integers(1, 4)))
    if kind in ("fdiv", "cdiv"):
        fn = build.floordiv if kind == "fdiv" else build.ceildiv
        return fn(a, draw(st.integers(1, 5)))
    fn = build.max_ if kind == "max" else build.min_
    return fn(a, _random_monotone(draw, depth - 1))


@st.composite
def monotone_guards(draw):
    expr = _random_monotone(draw, draw(st.integers(1, 3)))
    rel = draw(st.sampled_from([build.ge, build.gt, build.le, build.lt]))
    return rel(expr, draw(st.integers(-10, 20)))


@settings(max_examples=300, deadline=None)
@given(guard=monotone_guards(), lower=st.integers(0, 5), hint=st.integers(0, 60))
def test_bound_is_exactly_equivalent_on_the_range(guard, lower: int, hint: int) -> None:
    upper = 80
    if not isinstance(guard, build._BOOLEAN_TYPES) or guard in (True, False) or not lower <= hint:
        return
    if X not in guard.free_symbols or not evaluate(guard, {X: hint}):
        return
    result = as_bound(guard, X, lower, upper, hint)
    if result is None:
        return
    for v in range(lower, upper + 1):
        expected = bool(evaluate(guard, {X: v}))
        got = True if result is True or result == build.as_expr(True) else bool(evaluate(result, {X: v}))
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
    guard = build.le(build.floordiv(build.add(X, 3), 4), 11)  # x <= 44
    assert as_bound(guard, X, 2, math.inf, hint) == build.le(X, 44)
