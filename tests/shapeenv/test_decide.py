"""The decision pipeline: static answers record nothing, everything else becomes a guard that feeds back."""

from __future__ import annotations

import logging
import math

import pytest

from guards import Source
from shapeenv import (
    CheckFailedError,
    DimDynamic,
    GuardOnDataDependentSymNode,
    ShapeEnv,
    check,
    guard_or_false,
    guard_or_true,
    statically_known_false,
    statically_known_true,
)
from symint import sym_max
from valueranges import ValueRanges


def make(*hints: int, duck: bool = False, **settings):
    env = ShapeEnv(duck_shape=duck, **settings)
    dyn = DimDynamic.DUCK if duck else DimDynamic.DYNAMIC
    return env, [env.create_symint(h, Source.size(f"x{i}", 0), dynamic=dyn) for i, h in enumerate(hints)]


def guard_texts(env: ShapeEnv) -> list[str]:
    return [str(g.expr) for g in env.guards]


# -- static answers ------------------------------------------------------------------------------
STATIC_CASES = [
    # (description, question, expected)
    ("s0 == 2*s0 is false because s0 >= 2", lambda s: s == 2 * s, False),
    ("s0 != 2*s0", lambda s: s != 2 * s, True),
    ("s0 >= 2 from the range", lambda s: s >= 2, True),
    ("s0 < s0 + 1 folds", lambda s: s < s + 1, True),
    ("s0 // 2 >= 1", lambda s: s // 2 >= 1, True),
    ("s0 % 8 < 8", lambda s: s % 8 < 8, True),
    ("max(s0, 3) >= 3", lambda s: sym_max(s, 3) >= 3, True),
    ("2*s0 - s0 > 0", lambda s: 2 * s - s > 0, True),
]


@pytest.mark.parametrize("what,question,expected", STATIC_CASES, ids=[c[0] for c in STATIC_CASES])
@pytest.mark.parametrize("use_z3", [True, False])
def test_statically_known_questions_record_no_guard(what, question, expected, use_z3) -> None:
    env, (s,) = make(5, use_z3=use_z3)
    assert bool(question(s)) is expected, what
    assert env.guards == [], f"{what}: recorded {guard_texts(env)}"


def test_linear_facts_decide_what_intervals_cannot() -> None:
    # Relations between sizes are decided from earlier ones without a solver: the same
    # normal form (2*a < 2*b is a < b), or elimination (a < b implies a < b + 5).
    for use_z3 in (True, False):
        env, (a, b) = make(3, 7, use_z3=use_z3)
        assert bool(a < b)
        assert len(env.guards) == 1
        assert bool(a < b + 5) and bool(2 * a < 2 * b) and not bool(a >= b) and bool(a + 1 <= b)
        assert len(env.guards) == 1, guard_texts(env)
        assert env.decider.stats["z3"] == 0


def test_z3_decides_what_elimination_cannot() -> None:
    # a % 2 == 1 is a guard; 2*b != a needs parity reasoning, which only Z3 has
    # (asked about backed sizes only when z3_on_backed is set).
    env, (a, b) = make(7, 3, z3_on_backed=True)
    assert bool(a % 2 == 1)
    assert bool(2 * b != a)
    assert len(env.guards) == 1, guard_texts(env)
    env2, (c, d) = make(7, 3, use_z3=False)
    assert bool(c % 2 == 1) and bool(2 * d != c)
    assert len(env2.guards) == 2, guard_texts(env2)


def test_undecided_question_guards_with_provenance() -> None:
    env, (s,) = make(8)
    assert bool(s > 5)
    (record,) = env.guards
    assert str(record.expr) == "s0 > 5"
    assert record.provenance.user_frame is not None and __file__ in record.provenance.user_frame
    assert "ranges" in record.provenance.why
    assert not bool(s > 100)
    assert str(env.guards[-1].expr) == "s0 <= 100"


def test_operation_context_is_recorded() -> None:
    env, (s,) = make(8)
    with env.operation("view"):
        bool(s > 5)
    assert env.guards[0].provenance.op == "view"


def test_guards_are_logged_when_enabled(caplog) -> None:
    env, (s,) = make(8)
    with caplog.at_level(logging.INFO, logger="shapeenv.guards"):
        bool(s > 5)
    assert any("guard" in r.getMessage() and "s0 > 5" in r.getMessage() for r in caplog.records)


# -- feedback ------------------------------------------------------------------------------------
def test_equality_to_constant_replaces_the_symbol() -> None:
    env, (s, t) = make(4, 9)
    assert bool(s == 4)
    assert env.simplify(s.node.expr) == 4
    assert statically_known_true(s * t == 4 * t)
    assert len(env.guards) == 1


def test_equality_of_symbols_unifies_keeping_the_older() -> None:
    env, (a, b) = make(6, 6)
    assert bool(b == a)
    assert env.facts.replacements == {b.node.expr: a.node.expr}
    assert statically_known_true(a + b == 2 * a)


def test_unify_transfers_ranges_to_the_survivor() -> None:
    env = ShapeEnv(duck_shape=False)
    a = env.create_symint(6, Source.size("x", 0))
    b = env.create_symint(6, Source.size("y", 0), max=10)
    assert bool(a == b)
    assert env.bound(a) == ValueRanges.of(2, 10)


def test_affine_equality_eliminates_the_newer_symbol() -> None:
    env, (a, b) = make(3, 5)
    assert bool(b == a + 2)
    assert env.simplify(b.node.expr) == env.simplify(a.node.expr) + 2


def test_divisibility_guard_decides_later_modulo_questions() -> None:
    env, (s,) = make(16)
    assert bool(s % 8 == 0)
    assert statically_known_true(s % 4 == 0) and statically_known_true(s % 2 == 0)
    assert not statically_known_true(s % 16 == 0)
    assert len(env.guards) == 1


def test_relational_guards_narrow_ranges() -> None:
    env, (s,) = make(8)
    bool(s > 5)
    bool(s <= 20)
    assert env.bound(s) == ValueRanges.of(6, 20)
    bool(s != 6)
    assert env.bound(s) == ValueRanges.of(7, 20)


def test_int_specialises_with_a_guard() -> None:
    env, (s,) = make(8)
    assert int(s) == 8 and list(range(s)) == list(range(8))
    assert guard_texts(env) == ["Eq(s0, 8)"]
    assert env.simplify(s.node.expr) == 8


# -- guard-free queries ----------------------------------------------------------------------------
def test_statically_known_records_nothing() -> None:
    env, (s,) = make(8)
    assert statically_known_true(s >= 2) and not statically_known_true(s > 5)
    assert statically_known_false(s < 2) and not statically_known_false(s < 5)
    assert env.guards == []


def test_guard_or_guards_backed_and_defaults_on_unbacked() -> None:
    env, (s,) = make(8)
    u = env.create_unbacked_symint()
    assert guard_or_false(u == 1) is False and guard_or_true(u == 1) is True
    assert env.guards == []  # data-dependent: the default, no guard, no error
    assert guard_or_false(s > 5) is True and guard_or_true(s < 5) is False  # backed: decided by the hint...
    assert guard_texts(env) == ["s0 > 5"]  # ...and guarded, as torch does (then s0 < 5 is static)
    assert guard_or_false(True) and not guard_or_true(False)


# -- data-dependent --------------------------------------------------------------------------------
def test_branching_on_unbacked_raises_with_suggestion() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint(size_like=True)
    with pytest.raises(GuardOnDataDependentSymNode) as info:
        bool(u > 5)
    err = info.value
    assert "u0 > 5" in str(err) and "check(u0 > 5)" in str(err) and "u0" in str(err)
    assert __file__ in str(err) and err.suggestion == "check(u0 > 5)"
    assert err.unbacked and str(err.unbacked[0]) == "u0"
    with pytest.raises(GuardOnDataDependentSymNode):
        int(u)


def test_suggested_check_resolves_the_question() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint()
    check(u > 5)
    assert bool(u > 5) and bool(u >= 3) and env.guards == []


def test_size_oblivious_treats_size_like_as_at_least_two() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint(size_like=True)
    assert env.guard_size_oblivious(u == 1) is False
    assert env.guard_size_oblivious(u >= 2) is True
    with pytest.raises(GuardOnDataDependentSymNode):
        bool(u == 1)  # outside size-oblivious mode 1 is possible
    assert env.guards == []


def test_unbacked_replaced_by_backed_becomes_decidable() -> None:
    env, (s,) = make(8)
    u = env.create_unbacked_symint(size_like=True)
    check(u == s)
    assert env.simplify(u.node.expr) == s.node.expr
    assert bool(u > 5)  # decided by the hint of s0, recorded as a guard on s0
    assert guard_texts(env) == ["s0 > 5"]


# -- runtime asserts -------------------------------------------------------------------------------
def test_check_narrows_and_is_not_a_guard() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint()
    check(u < 100, "batch fits")
    assert env.bound(u) == ValueRanges.of(-math.inf, 99)
    assert statically_known_true(u < 200)
    assert env.guards == [] and len(env.runtime_asserts) == 1
    assert env.runtime_asserts[0].message == "batch fits"


def test_statically_false_check_raises_at_once() -> None:
    env, (s,) = make(8)
    with pytest.raises(CheckFailedError, match="always false"):
        check(s < 2)
    with pytest.raises(CheckFailedError):
        check(False)


def test_check_contradicting_the_hint_raises() -> None:
    env, (s,) = make(8)
    with pytest.raises(CheckFailedError, match="traced sizes"):
        check(s > 10)


def test_check_contradicting_facts_raises() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint()
    check(u < 10)
    with pytest.raises(CheckFailedError):
        check(u > 20)


def test_explain_cites_guards_and_asserts() -> None:
    env, (s, t) = make(8, 8)
    bool(t == s)
    check(s < 100)
    text = env.explain(t)
    assert "replaced by s0" in text and "Eq(s1, s0)" in text
    text_s = env.explain("x0.size()[0]")
    assert "assert" in text_s and "s0 < 100" in text_s and __file__ in text_s


def test_explain_specialised_source() -> None:
    env = ShapeEnv()
    env.create_symint(1, Source.size("x", 1))
    assert "specialised to the constant 1" in env.explain("x.size()[1]")


def test_monotone_nonlinear_questions_are_decided_without_z3() -> None:
    # The examples: intervals of factored forms, atom definitions (Max >= its
    # arguments, k*(s // k) <= s) and divisibility decide them; no solver, no guard.
    from symint import sym_max

    env, (s, a, b) = make(8, 5, 6, use_z3=False)
    assert bool(s * s >= s) and bool(s // 2 <= s) and bool(sym_max(a, b) >= a)
    assert bool(s * s - s >= 2) and not bool(s * s < s)
    assert env.guards == []
    assert bool(s % 2 == 0)                                 # one guard: s is even
    assert bool(s // (s // 2) == 2)                         # 2*t // t == 2 for s = 2*t
    assert guard_texts(env) == ["Eq(Mod(s0, 2), 0)"]


def test_bounds_propagate_through_relations() -> None:
    # torch derives 14 <= a1 from a1 >= a0 + 8 and a0 >= 6 (test_dynamic_shapes); so do we.
    env, (a0, a1) = make(6, 20)
    env.check(a0 >= 6)
    env.check(a1 >= a0 + 8)
    assert str(env.bound(a1)) == "[14, oo]"


def test_bound_asks_the_facts_engine():
    """Issue 24: ``env.bound`` uses what decide proves (linear facts, definitions of //, residues), not intervals alone."""
    env, (a, b) = make(10, 13)
    check(b >= a + 2)
    check(b <= a + 5)
    assert env.bound(b - a) == ValueRanges.of(2, 5)
    assert env.bound(a - 2 * (a // 2)) == ValueRanges.of(0, 1)
    check(a % 4 == 2)
    assert env.bound((a + 1) % 4) == ValueRanges.of(3, 3)  # the congruence the facts learned
