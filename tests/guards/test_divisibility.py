"""Divisibility rewrites on forms: the gcd normalisation of a relation's normal form and the quotient of a multiple
(the facts engine decides ``T % (T // c) == 0`` from ``c | T`` and ``T >= c``), exact against evaluation."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from symint import form as F
from symint.form import logic as B
from valueranges import ValueRanges
from valueranges.facts import Facts

from guards.simplify.classify import never_raises

s, t = F.sym("s"), F.sym("t")


@settings(max_examples=120, deadline=None, derandomize=True)
@given(c=st.integers(-12, 12).filter(bool), d=st.integers(-6, 6), k=st.integers(1, 24), eq=st.booleans(),
       sv=st.integers(-50, 50), tv=st.integers(-50, 50))
def test_normalised_guard_has_the_same_value(c, d, k, eq, sv, tv) -> None:
    """``Eq(Mod(c*E, k), 0)`` is normalised to ``Mod(E, k / gcd(c, k))`` (or a constant) and keeps its value."""
    lhs = F.mod(F.add(F.scale(s, c), F.scale(t, c * d)), F.const(k))
    guard = B.rel("==" if eq else "!=", lhs, F.const(0))
    value = ((c * sv + c * d * tv) % k == 0) == eq
    assert guard.evaluate({"s": sv, "t": tv}) == value
    if guard.kind == "rel":
        norm = guard.norm
        assert B.rel(norm.op, norm.p, F.const(0)).evaluate({"s": sv, "t": tv}) == value
        atom = norm.p.atom()
        if atom is not None and atom.kind == "mod" and atom.args[1].is_const:
            assert atom.args[1].const in {k // g for g in range(1, k + 1) if k % g == 0}  # the modulus divided by a gcd


@settings(max_examples=120, deadline=None, derandomize=True)
@given(c=st.integers(2, 8), k=st.integers(1, 40), lo_extra=st.integers(-2, 3))  # c = 1: Mod(T, T) folds as a form
def test_the_quotient_of_a_multiple_divides_it_exactly_where_it_holds(c, k, lo_extra) -> None:
    """Under ``T % (c*k) == 0`` and ``T >= lo``, the engine says ``Mod(T, T // c) == 0`` only when it holds at every such T."""
    facts = Facts()
    lo = c + lo_extra
    facts.set_range("s", ValueRanges.of(lo, 10**6))
    facts.learn_form(B.rel("==", F.mod(s, F.const(c * k)), F.const(0)))
    guard = B.rel("==", F.mod(s, F.floordiv(s, F.const(c))), F.const(0))
    decided = facts.decide(guard, use_facts=False, expect=True) is True and never_raises(guard, facts)
    values = [v for v in range(max(lo, 0), 40 * c * k + 1) if v % (c * k) == 0]
    holds = all(v // c != 0 and v % (v // c) == 0 for v in values)
    if decided:
        assert holds, (c, k, lo)
    if lo >= c:  # c | T and T >= c: T = c*q with q >= 1, so T // c = q divides T
        assert decided, (c, k, lo)
