"""The facts engine (``valueranges.facts``): its facade, each sub-analysis through it, and soundness.

Table-driven cases (constraints, question, expected) for ``Facts.bound`` and ``Facts.decide``,
each checked by brute force over a grid as well; hypothesis draws random linear facts and
forms, and every answer must hold at every grid point where the facts hold.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shapeenv
from symint.form import logic as B
from symint import form as F
from valueranges import ValueRanges
from valueranges.errors import ContradictoryFactsError, ValueRangeError
from valueranges.facts import Facts

INF = math.inf
a, b, n, x, y = (F.sym(s) for s in ("a", "b", "n", "x", "y"))
k = F.const


def rel(op, lhs, rhs):
    return B.rel(op, lhs, rhs)


def engine(ranges, constraints=()) -> Facts:
    facts = Facts()
    for name, (lo, hi) in ranges.items():
        facts.set_range(name, ValueRanges.of(lo, hi))
    for c in constraints:
        facts.learn_form(c)
    return facts


def points(names, ranges, constraints, width=12):
    axes = [range(int(max(ranges.get(v, (-INF, INF))[0], -width)), int(min(ranges.get(v, (-INF, INF))[1], width)) + 1)
            for v in names]
    for values in itertools.product(*axes):
        env = dict(zip(names, values))
        if all(c.evaluate(env) for c in constraints):
            yield env


BOUNDS = [
    # (ranges, constraints, form, expected (lo, hi)) -- the examples first
    ({}, [rel("<=", F.add(a, k(2)), b), rel("<=", b, F.add(a, k(5)))], F.sub(b, a), (2, 5)),
    ({}, [], F.sub(a, F.scale(F.floordiv(a, k(2)), 2)), (0, 1)),
    ({}, [], F.mod(F.add(F.scale(n, 320), k(255)), k(256)), (63, 255)),
    ({"n": (-2, -1)}, [], F.mod(F.add(F.scale(n, 320), k(255)), k(256)), (127, 191)),
    ({}, [rel("==", F.mod(a, k(4)), k(1)), rel("==", F.mod(a, k(3)), k(1))], F.mod(a, k(12)), (1, 1)),
    ({"x": (0, 10)}, [rel("==", F.mod(x, k(8)), k(0))], F.mod(x, k(4)), (0, 0)),
    ({}, [rel("==", F.mod(a, k(4)), k(2))], F.mod(F.add(a, k(1)), k(4)), (3, 3)),  # the modular set of a + 1
    ({}, [rel("==", F.mod(a, k(3)), k(0)), rel("==", F.mod(a, k(4)), k(1))], F.mod(F.add(a, k(7)), k(12)), (4, 4)),
    ({"x": (0, 100)}, [rel("==", y, F.add(x, k(3)))], F.sub(y, x), (3, 3)),
    ({"x": (0, 100), "y": (0, 100)}, [], F.sub(F.min_(x, y), F.min_(F.add(x, k(10)), F.add(y, k(10)))), (-10, -10)),
    ({"x": (2, INF)}, [], F.floordiv(x, k(2)), (1, INF)),
    # Note [Rounding a scaled bound]: a - a//2 is ceil(a/2)
    ({"a": (1, INF)}, [], F.sub(a, F.floordiv(a, k(2))), (1, INF)),
    ({"a": (1, INF), "b": (1, INF)}, [rel(">=", F.add(F.scale(a, 2), F.scale(b, 3)), k(10))], F.add(a, b), (4, INF)),
    # one step of elimination between two relations: 2*(x + 3*y >= 10) + 3*(x - 2*y >= -4) is 5*x >= 8
    ({}, [rel(">=", F.add(x, F.scale(y, 3)), k(10)), rel(">=", F.sub(x, F.scale(y, 2)), k(-4))], x, (2, INF)),
    # a max the known relations order is learned as the argument it equals: max(x, y) is x when x >= y + 3
    ({}, [rel(">=", x, F.add(y, k(3))), rel("==", F.floordiv(n, k(2)), F.add(F.floordiv(F.max_(x, y), k(3)), k(2)))],
     F.sub(F.floordiv(n, k(2)), F.floordiv(x, k(3))), (2, 2)),
    # a max/min relation is learned as the rewriter reads it under the ranges: max(a, 2) >= 6 is a >= 6
    ({"a": (1, INF)}, [rel(">=", a, k(4)), rel(">=", F.max_(a, k(2)), k(6))], a, (6, INF)),
]


@pytest.mark.parametrize("ranges,constraints,form,expected", BOUNDS, ids=[str(c[2]) for c in BOUNDS])
def test_bound_uses_every_kind_of_knowledge(ranges, constraints, form, expected):
    facts = engine(ranges, constraints)
    got = facts.bound(form)
    assert got == expected, f"bound({form}) given {ranges}, {constraints}: got {got}, expected {expected}"
    names = sorted(form.symbols | {s for c in constraints for s in c.symbols})
    for env in points(names, ranges, constraints):
        assert got[0] <= form.value(env) <= got[1], (form, env)


DECISIONS = [
    ({}, [rel("==", F.mod(a, k(4)), k(1)), rel("==", F.mod(a, k(3)), k(1))], rel("==", F.mod(a, k(12)), k(1)), True),
    ({}, [rel("==", F.mod(a, k(4)), k(1))], rel("==", F.mod(a, k(2)), k(0)), False),
    ({}, [rel("==", F.mod(a, k(4)), k(1))], rel("==", F.mod(a, k(8)), k(1)), None),
    ({}, [rel("<", a, b), rel("<", b, x)], rel("<=", F.add(a, k(2)), x), True),
    ({}, [rel("==", F.mod(a, k(4)), k(2))], rel("==", F.mod(F.add(F.scale(a, 3), k(2)), k(4)), k(0)), True),
    ({"x": (0, INF)}, [rel("==", F.mod(x, k(2)), k(0)), rel(">=", x, k(2))],
     rel("==", F.floordiv(x, F.floordiv(x, k(2))), k(2)), True),
    ({"x": (0, 9), "y": (0, 9)}, [], rel("<=", F.max_(x, y), k(9)), True),
    ({"x": (0, 9)}, [rel("!=", x, k(0))], rel(">=", x, k(1)), True),
    # an equality with a max: both of its sides, each by cases
    ({}, [rel(">=", x, F.add(y, k(3)))], rel("==", F.max_(x, y), x), True),
    # a max inside a division's argument: the rewriter's min(a, b) // 2 >= 0
    ({"a": (1, INF), "b": (1, INF)}, [], rel(">=", F.floordiv(F.sub(b, F.max_(k(0), F.sub(b, a))), k(2)), k(0)), True),
    # an equality with a division by a negative constant: both sides, by its definitions (JAX's threefry)
    ({"a": (1, INF)}, [rel("==", F.mod(F.add(a, F.mod(a, k(2))), k(-2)), k(0))],
     rel("==", F.scale(F.floordiv(F.add(a, F.mod(a, k(2))), k(-2)), -2), F.add(a, F.mod(a, k(2)))), True),
    # a nonzero factor common to every monomial: n*x*x == 4*n*y is x*x == 4*y
    ({"n": (1, INF)}, [rel("==", F.mul(x, x), F.scale(y, 4))], rel("==", F.mul(n, F.mul(x, x)), F.scale(F.mul(n, y), 4)), True),
]


@pytest.mark.parametrize("ranges,constraints,question,expected", DECISIONS, ids=[str(c[2]) for c in DECISIONS])
def test_decide(ranges, constraints, question, expected):
    facts = engine(ranges, constraints)
    got = facts.decide(question)
    assert got is expected, f"decide({question}) given {ranges}, {constraints}: got {got}, expected {expected}"
    if got is not None:
        names = sorted(question.symbols | {s for c in constraints for s in c.symbols})
        assert all(question.evaluate(env) is got for env in points(names, ranges, constraints, 8))


def test_replacement_survivor_and_rank():
    facts = Facts()
    facts.learn_form(rel("==", F.sym("s1"), F.sym("s0")))
    facts.learn_form(rel("==", F.sym("s10"), F.add(F.sym("s2"), k(1))))
    assert facts.replacement("s1") is F.sym("s0") and facts.replacement("s0") is None
    assert facts.replacement("s10") is F.add(F.sym("s2"), k(1))  # the newest (s10 after s2) is eliminated
    oldest = Facts(rank=lambda name: -int(name[1:]))  # a caller's rank: eliminate the oldest instead
    oldest.learn_form(rel("==", F.sym("s1"), F.sym("s0")))
    assert oldest.replacement("s0") is F.sym("s1")


def test_narrowing_rounds_to_divisors_and_pins():
    facts = engine({"s": (2, 20)}, [rel("==", F.mod(F.sym("s"), k(8)), k(0))])
    assert facts.range_of("s") == ValueRanges.of(8, 16)
    facts.learn_form(rel(">", F.sym("s"), k(9)))
    assert facts.replacement("s") is k(16)  # one value left: s is 16 from now on


def test_rewrite_form_resolves_what_decide_orders():
    facts = engine({}, [rel(">=", x, F.add(y, k(3)))])
    assert facts.rewrite_form(F.max_(x, y)) is x and facts.rewrite_form(F.min_(x, y)) is y
    assert facts.rewrite_form(F.max_(x, n)) is F.max_(x, n)  # nothing orders x and n
    # min(a, b) == b - min(b, 2) makes b >= 2: min(b, 2) is 2 (b == 2 allowed: the second question)
    sizes = engine({"a": (1, INF), "b": (1, INF)}, [rel("==", F.min_(a, b), F.sub(b, F.min_(b, k(2))))])
    assert sizes.rewrite_form(F.min_(b, k(2))) is k(2)


def test_chains_and_late_ranges_reach_earlier_relations():
    s = [F.sym(f"s{i}") for i in range(5)]
    sizes = {f"s{i}": (1, INF) for i in range(5)}
    # a chain of four relations: the elimination follows it to the end
    chain = engine(sizes, [rel(">=", s[i], s[i + 1]) for i in range(4)])
    assert chain.bound(F.sub(s[0], s[4])) == (0, INF)
    # s1 >= s2 + 1 is learned before s2 >= 4: the new range of s2 still reaches s1
    late = engine(sizes, [rel(">=", s[1], F.add(s[2], k(1))), rel(">=", s[2], k(4))])
    assert late.range_of("s1") == ValueRanges.of(5, INF)
    with pytest.raises(ContradictoryFactsError):  # ... so s1 <= s3 + 2 with s3 <= 2 contradicts it
        engine(sizes, [rel(">=", s[1], F.add(s[2], k(1))), rel(">=", s[2], k(4)),
                       rel("<=", s[1], F.add(s[3], k(2))), rel("<=", s[3], k(2))])
    with pytest.raises(ContradictoryFactsError):  # s1 - s0 >= 5 and s1 - s0 <= 4, through four relations
        engine(sizes, [rel(">=", s[1], F.add(s[2], k(1))), rel(">=", s[2], F.add(s[0], k(4))),
                       rel("<=", s[1], F.add(s[3], k(2))), rel("<=", s[3], F.add(s[0], k(2)))])


def test_contradictions_are_typed():
    facts = engine({"s": (2, 4)})
    with pytest.raises(ContradictoryFactsError) as info:
        facts.learn_form(rel(">=", F.sym("s"), k(5)))
    assert isinstance(info.value, ValueError) and isinstance(info.value, ValueRangeError)
    assert "s cannot be in both [2, 4] and [5, oo]" in str(info.value)
    with pytest.raises(ContradictoryFactsError):
        engine({}, [rel("==", F.mod(a, k(4)), k(1))]).learn_form(rel("==", F.mod(a, k(6)), k(2)))
    assert issubclass(shapeenv.ContradictionError, ContradictoryFactsError)  # one except clause catches both


def test_snapshot_restore_and_listeners():
    facts = engine({"x": (0, 100)})
    seen = []
    facts.on_new_fact(seen.append)
    state = facts.snapshot()
    facts.learn_form(rel("<=", x, k(10)))
    facts.learn_form(rel("<", x, y))
    assert facts.range_of("x") == ValueRanges.of(0, 10) and facts.decide(rel("<", x, y)) is True
    assert rel("<=", x, k(10)) in seen and any(f.kind == "rel" and f.symbols == {"x", "y"} for f in seen)
    facts.restore(state)
    assert facts.range_of("x") == ValueRanges.of(0, 100) and facts.decide(rel("<", x, y)) is None


# -- soundness: random facts and forms, every answer checked at every point where the facts hold -----
_coeff = st.integers(-3, 3)
_const = st.integers(-6, 6)


@st.composite
def _linear(draw):
    return F.add(F.add(F.scale(x, draw(_coeff)), F.scale(y, draw(_coeff))), k(draw(_const)))


@st.composite
def _form(draw):
    base = draw(_linear())
    kind = draw(st.sampled_from(["lin", "floordiv", "mod", "max", "min", "mul"]))
    if kind == "lin":
        return base
    if kind in ("floordiv", "mod"):
        d = k(draw(st.sampled_from([2, 3, 4, 8])))
        inner = F.floordiv(base, d) if kind == "floordiv" else F.mod(base, d)
        return F.add(inner, F.scale(x, draw(_coeff)))
    if kind == "mul":
        return F.mul(base, draw(_linear()))
    other = draw(_linear())
    return F.max_(base, other) if kind == "max" else F.min_(base, other)


@st.composite
def _fact(draw):
    op = draw(st.sampled_from(["<=", "<", "==", "!=", "mod"]))
    if op == "mod":
        m = draw(st.sampled_from([2, 3, 4, 6]))
        return rel("==", F.mod(draw(st.sampled_from([x, y])), k(m)), k(draw(st.integers(0, m - 1))))
    return rel(op, draw(_linear()), k(draw(_const)))


RANGES = {"x": (-8, 8), "y": (-8, 8)}


@settings(max_examples=150, deadline=None)
@given(facts=st.lists(_fact(), max_size=3), form=_form(), op=st.sampled_from(["<=", "<", "==", "!="]), c=_const)
def test_answers_hold_wherever_the_facts_hold(facts, form, op, c):
    grid = [env for env in points(["x", "y"], RANGES, ()) if all(f.evaluate(env) for f in facts)]
    eng = engine(RANGES)
    try:
        for f in facts:
            eng.learn_form(f)
    except ContradictoryFactsError:
        assert not grid, f"{facts} called contradictory, but {grid[0]} satisfies them"
        return
    lo, hi = eng.bound(form)
    question = rel(op, form, k(c))
    answer = eng.decide(question)
    for env in grid:
        assert lo <= form.value(env) <= hi, f"{form} = {form.value(env)} at {env} outside {(lo, hi)} given {facts}"
        if answer is not None:
            assert question.evaluate(env) is answer, f"decide({question}) = {answer}, but not at {env} given {facts}"


def _definitions_of(facts: Facts, atom_text: str) -> list[str]:
    """The linear facts held that mention ``atom_text`` (the atoms' definitions, in these tests)."""
    return [str(f) for f in facts._linear.live() if atom_text in str(f)]


def test_a_question_its_interval_decides_adds_no_definitions() -> None:
    """Note [Intervals before definitions]: ``x // 4 <= 2`` for x in [0, 10] needs no fact; an undecided one adds them."""
    facts = Facts()
    facts.narrow("x", ValueRanges.of(0, 10))
    assert facts.decide(rel("<=", F.floordiv(x, k(4)), k(2))) is True
    assert _definitions_of(facts, "FloorDiv(x, 4)") == []
    # 4*(x // 4) <= x: the interval [-10, 8] does not decide it, the definitions do
    assert facts.decide(rel("<=", F.mul(k(4), F.floordiv(x, k(4))), x)) is True
    assert _definitions_of(facts, "FloorDiv(x, 4)") != []

