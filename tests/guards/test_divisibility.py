"""guards.simplify.divisibility: the gcd normalisation and the quotient rewrite are exact (hypothesis, against evaluate)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from guards.simplify.divisibility import drop_divided, normalise_divisibility
from symint import build, evaluate

s, t = build.symbol_expr("s"), build.symbol_expr("t")


@settings(max_examples=120, deadline=None, derandomize=True)
@given(c=st.integers(-12, 12).filter(bool), d=st.integers(-6, 6), k=st.integers(1, 24), eq=st.booleans(),
       sv=st.integers(-50, 50), tv=st.integers(-50, 50))
def test_normalised_guard_has_the_same_value(c, d, k, eq, sv, tv) -> None:
    lhs = build.mod(build.add(build.mul(c, s), build.mul(c * d, t)), k)
    before = (build.eq if eq else build.ne)(lhs, 0)
    after = normalise_divisibility(before)
    assert evaluate(after, {s: sv, t: tv}) == evaluate(before, {s: sv, t: tv}), (before, after)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(c=st.integers(1, 8), k=st.integers(1, 40), lo_extra=st.integers(0, 3))
def test_drop_divided_only_where_it_holds(c, k, lo_extra) -> None:
    """Under T % c == 0 and T >= c (the facts the rewrite is told), Mod(T, T // c) == 0 holds."""
    guard = build.eq(build.mod(s, build.floordiv(s, c)), 0)
    step = c * k
    rewritten = drop_divided(guard, lambda _: (c + lo_extra, step))
    if rewritten is True or rewritten == build.as_expr(True):
        for m in range(1, 30):
            value = step * m
            if value >= c + lo_extra:
                assert evaluate(guard, {s: value}) is True
