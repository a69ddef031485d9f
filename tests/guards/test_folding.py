"""guards.simplify.folding: the guards folded into the one facts engine (valueranges.facts), with their origins."""

from __future__ import annotations

import itertools

import pytest

from guards import GuardSet, Source
from guards.guard import as_bool_form
from guards.simplify.classify import _Contradiction
from guards.simplify.folding import FoldedGuards
from guards.simplify.passes import reduce_exact
from symint import form as F
from symint.build import eq, floordiv, ge, le, max_, mod, ne, symbol_expr
from symint import evaluate
from valueranges import ValueRanges

s0, s1, s2 = (symbol_expr(f"s{i}") for i in range(3))


def folded_of(domain, guards):
    """FoldedGuards of sympy-built guards (the guards' forms, by input index), with a domain by name."""
    return FoldedGuards({s.name: r for s, r in domain.items()}, [(as_bool_form(g), i) for i, g in enumerate(guards)])


def test_classes_ranges_and_origins():
    domain = {s0: ValueRanges.of(2, 100), s1: ValueRanges.of(0, 50)}
    folded = folded_of(domain, [eq(s1, s0), ge(s1, 3), eq(mod(s0, 4), 0), le(s2, 7)])
    assert folded.mapping == {"s1": F.sym("s0")}
    assert folded.members == {"s0": ["s0", "s1"]} and folded.class_origins == {"s0": {0}}
    assert folded.baseline("s0") == (2, 50)  # the domains of the class, without the bound guards
    assert folded.range_of("s1") == (4, 48, 4)
    assert folded.range_of("s2") == (-float("inf"), 7, 1)


@pytest.mark.parametrize("order", list(itertools.permutations([ge(s0, 2), ne(s0, 2), ne(s0, 3), ne(s0, 10), le(s0, 10)])))
def test_excluded_values_move_the_ends_in_any_order(order):
    folded = folded_of({}, order)
    assert folded.range_of("s0")[:2] == (4, 9)


def test_a_value_narrowed_to_one_point_is_substituted():
    folded = folded_of({}, [ge(s0, 5), le(s0, 5), le(s0 + s1, 9)])
    assert folded.mapping == {"s0": F.const(5)} and folded.class_origins == {"s0": {0, 1}}
    assert folded.range_of("s1") == (-float("inf"), 4, 1)  # s1 + 5 <= 9 became a bound of s1


def test_contradiction_names_the_guards():
    with pytest.raises(_Contradiction) as info:
        folded_of({s0: ValueRanges.of(0, 10)}, [ge(s0, 4), le(s1, 3), le(s0, 3)])
    assert {0, 2} <= info.value.origins


def test_reduce_exact_drops_what_the_engine_proves():
    """Two guards interval arithmetic cannot decide (the sympy pass kept both), the engine can:
    ``s0 // (s0 // 2) == 2`` for an even ``s0 >= 2`` (writing ``s0`` as ``2*t``), and
    ``Max(s0, s1 + 1) >= s0`` (by the definition of max)."""
    guards = [ge(s0, 2), le(s0, 100), eq(mod(s0, 2), 0), eq(floordiv(s0, floordiv(s0, 2)), 2),
              ge(max_(s0, s1 + 1), s0), le(s1, 50)]
    gs = GuardSet.of(guards, {s0: Source.size("x", 0), s1: Source.size("y", 0)})
    out, report = reduce_exact(gs)
    assert [str(g.expr) for g in out.guards] == ["s0 >= 2", "s0 <= 100", "Eq(Mod(s0, 2), 0)", "s1 <= 50"]
    for v0, v1 in itertools.product(range(0, 110, 3), range(0, 60, 7)):  # exact: the same inputs pass
        env = {s0: v0, s1: v1}
        try:
            before = all(evaluate(g, env) for g in guards)
        except ZeroDivisionError:  # s0 in {0, 1}: the input raises, so fails
            before = False
        assert before == all(evaluate(g.expr, env) for g in out.guards), env
