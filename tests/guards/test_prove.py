"""Questions about guard sets answered by Z3: verdicts on known cases, witnesses, matching, unknowns."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guards import GuardSet, GuardTypeError, SolverError, Source
from guards.solver.prove import ProofResult, Verdict, counterexample, equivalent, implies, is_satisfiable, overlap, redundant
from guards.solver.z3_solver import SolverConfig
from symint import build
from valueranges import ValueRanges

s0, s1, s2, s3 = (build.symbol_expr(f"s{i}") for i in range(4))
n, m = build.symbol_expr("n"), build.symbol_expr("m")
X0, X1, Y0 = Source.size("x", 0), Source.size("x", 1), Source.size("y", 0)
YES, NO, UNKNOWN = Verdict.YES, Verdict.NO, Verdict.UNKNOWN


def sized(guards, sources=None):
    """A guard set over sizes: s0 = x.size()[0], s1 = x.size()[1] unless given."""
    return GuardSet.of(guards, sources if sources is not None else {s0: X0, s1: X1})


def free(guards):
    """A guard set over unconstrained ints (no sources, no domain)."""
    return GuardSet.of(guards)


# (name, question, set, other, expected verdict) -- other is None for one-set questions.
CASES = [
    ("sat: plain", "is_satisfiable", sized([build.ge(s0, 2)]), None, YES),
    ("sat: contradiction", "is_satisfiable", sized([build.ge(s0, 4), build.lt(s0, 3)]), None, NO),
    ("sat: domain makes it empty", "is_satisfiable", sized([build.lt(s0, 0)]), None, NO),
    ("sat: without a domain", "is_satisfiable", free([build.lt(n, 0)]), None, YES),
    ("sat: divisibility", "is_satisfiable", sized([build.eq(build.mod(s0, 8), 3), build.lt(s0, 10)]), None, YES),
    ("sat: parity clash", "is_satisfiable", free([build.eq(build.mod(n, 4), 1), build.eq(build.mod(n, 2), 0)]), None, NO),
    ("sat: zero divisor fails", "is_satisfiable", free([build.eq(build.mod(n, m), 0), build.eq(m, 0)]), None, NO),
    ("implies: tighter bound", "implies", sized([build.ge(s0, 5)]), sized([build.gt(s0, 3)]), YES),
    ("implies: looser bound", "implies", sized([build.gt(s0, 3)]), sized([build.ge(s0, 5)]), NO),
    ("implies: divisibility", "implies", free([build.eq(build.mod(n, 8), 0)]), free([build.eq(build.mod(n, 4), 0)]), YES),
    ("implies: not divisibility", "implies", free([build.eq(build.mod(n, 4), 0)]), free([build.eq(build.mod(n, 8), 0)]), NO),
    ("implies: by the domain", "implies", sized([]), sized([build.ge(s0, 0)]), YES),
    ("implies: no domain", "implies", free([]), free([build.ge(n, 0)]), NO),
    ("implies: product", "implies", sized([build.eq(s1, build.mul(16, s0)), build.ge(s0, 2)]), sized([build.ge(s1, 32)]), YES),
    ("implies: mod by symbol => nonzero", "implies", free([build.eq(build.mod(n, m), 0)]), free([build.ne(m, 0)]), YES),
    ("implies: negative floor division", "implies", free([build.eq(build.floordiv(n, -2), 3)]), free([build.le(n, -5)]), YES),
    ("implies: negative modulo sign", "implies", free([build.eq(build.mod(n, -3), -1)]), free([build.ge(n, 0)]), NO),
    ("sat: modulo takes the divisor's sign", "is_satisfiable", free([build.eq(build.mod(n, -3), 1)]), None, NO),
    ("equivalent: same bound", "equivalent", sized([build.ge(s0, 5)]), sized([build.gt(s0, 4)]), YES),
    ("equivalent: eq vs two bounds", "equivalent", free([build.eq(n, 3)]), free([build.ge(n, 3), build.le(n, 3)]), YES),
    ("equivalent: different", "equivalent", sized([build.ge(s0, 5)]), sized([build.ge(s0, 6)]), NO),
    ("equivalent: abs", "equivalent", free([build.le(build.abs_(n), 2)]), free([build.ge(n, -2), build.le(n, 2)]), YES),
    ("equivalent: max", "equivalent", free([build.ge(build.max_(n, m), 3)]), free([build.or_(build.ge(n, 3), build.ge(m, 3))]), YES),
    ("counterexample: differ", "counterexample", sized([build.ge(s0, 5)]), sized([build.ge(s0, 6)]), YES),
    ("counterexample: same", "counterexample", free([build.eq(n, 3)]), free([build.ge(n, 3), build.lt(n, 4)]), NO),
    ("overlap: yes", "overlap", sized([build.ge(s0, 5)]), sized([build.le(s0, 5)]), YES),
    ("overlap: disjoint", "overlap", sized([build.ge(s0, 6)]), sized([build.le(s0, 5)]), NO),
    ("overlap: parity", "overlap", free([build.eq(build.mod(n, 2), 0)]), free([build.eq(build.mod(n, 2), 1)]), NO),
]

QUESTIONS = {
    "is_satisfiable": lambda a, b: is_satisfiable(a),
    "implies": implies,
    "equivalent": equivalent,
    "counterexample": counterexample,
    "overlap": overlap,
}


@pytest.mark.parametrize("name,question,gs,other,expected", CASES, ids=[c[0] for c in CASES])
def test_known_verdicts(name, question, gs, other, expected):
    result = QUESTIONS[question](gs, other)
    assert result.verdict is expected, f"{name}: {question}({gs}, {other}) gave {result}"
    method = getattr(gs, question)
    assert (method() if other is None else method(other)).verdict is expected  # the GuardSet method agrees
    if result.witness is not None:
        _check_witness(question, gs, other, result)


def _check_witness(question, gs, other, result):
    """A witness is concrete inputs that really do what the verdict claims."""
    assert result.values is not None
    accepted = gs.holds(result.values)
    if question == "is_satisfiable":
        assert accepted
    elif question == "overlap":
        assert accepted and other.holds(result.other_values) and result.accepted_by == "both"
    else:
        other_accepts = other.holds(result.other_values)
        assert accepted != other_accepts
        assert result.accepted_by == ("self" if accepted else "other")
    for sym, value in result.values.items():
        rng = gs.domain_map.get(sym)
        assert rng is None or value in rng, "witnesses respect the domain"


def test_witness_is_keyed_by_source_text():
    r = implies(sized([build.ge(s0, 4)]), sized([build.ge(s0, 5)]))
    assert r.verdict is NO and r.witness["x.size()[0]"] == 4 and r.values[s0] == 4
    assert set(r.witness) == {"x.size()[0]", "x.size()[1]"}, "every input of either set gets a value"


def test_symbols_are_matched_by_source():
    a = GuardSet.of([build.ge(s0, 4)], {s0: X0})
    b = GuardSet.of([build.ge(s3, 4)], {s3: X0})
    c = GuardSet.of([build.ge(s0, 4)], {s0: Y0})  # same name, another input
    assert equivalent(a, b).verdict is YES
    r = equivalent(a, c)
    assert r.verdict is NO and set(r.witness) == {"x.size()[0]", "y.size()[0]"}


def test_swapped_names_are_matched_by_source():
    a = GuardSet.of([build.eq(s1, build.mul(2, s0))], {s0: X0, s1: Y0})
    b = GuardSet.of([build.eq(s0, build.mul(2, s1))], {s1: X0, s0: Y0})
    assert equivalent(a, b).verdict is YES


def test_symbols_without_sources_are_matched_by_name():
    assert equivalent(free([build.gt(n, 2)]), free([build.ge(n, 3)])).verdict is YES
    assert equivalent(free([build.gt(n, 2)]), free([build.ge(m, 3)])).verdict is NO


def test_domains_of_both_sides_are_assumed():
    a = GuardSet.of([build.ne(n, -1)], {n: Source.value("k")}, {n: ValueRanges.of(0, math.inf)})
    b = GuardSet.of([], {n: Source.value("k")})
    assert equivalent(a, b).verdict is YES  # n != -1 holds on the assumed domain n >= 0


def test_counterexample_says_which_side_accepts():
    r = counterexample(sized([build.ge(s0, 6)]), sized([build.ge(s0, 5)]))
    assert r.verdict is YES and r.accepted_by == "other" and r.values[s0] == 5


def test_results_are_not_booleans():
    r = implies(free([build.ge(n, 5)]), free([build.ge(n, 3)]))
    assert r.proved and not r.refuted and r.elapsed >= 0
    with pytest.raises(GuardTypeError, match="verdict"):
        bool(r)


# -- unknown is never a proof -------------------------------------------------------------------------
a_, b_, c_ = (build.symbol_expr(x) for x in "abc")
FERMAT = GuardSet.of(
    [build.eq(build.add(build.pow_(a_, 3), build.pow_(b_, 3)), build.pow_(c_, 3))]
    + [build.ge(x, 1) for x in (a_, b_, c_)]
)
TINY = SolverConfig(rlimit=5_000)


@pytest.mark.parametrize(
    "question",
    [
        lambda: is_satisfiable(FERMAT, TINY),
        lambda: implies(FERMAT, GuardSet.of([build.lt(a_, 0)]), TINY),
        lambda: equivalent(FERMAT, GuardSet.of([False]), TINY),
        lambda: overlap(FERMAT, GuardSet.of([build.ge(a_, 1)]), TINY),
    ],
    ids=["is_satisfiable", "implies", "equivalent", "overlap"],
)
def test_rlimit_gives_unknown_not_yes(question):
    r = question()
    assert r.verdict is UNKNOWN and r.reason and r.witness is None
    assert r.checks >= 1 and r.rlimit >= 5_000 and not r.safety_net


def test_answers_and_costs_are_the_same_every_run():
    """Deterministic limits: the same question spends the same resource units and gets the same answer."""
    runs = [implies(FERMAT, GuardSet.of([build.lt(a_, 0)]), TINY) for _ in range(3)]
    assert len({(r.verdict, r.reason, r.checks, r.rlimit) for r in runs}) == 1


def test_total_budget_exhaustion_is_reported():
    """``implies`` falls back to guard-by-guard proofs; a budget of 2 checks cannot finish them."""
    config = SolverConfig(rlimit=5_000, max_checks=2)
    r = implies(FERMAT, GuardSet.of([build.lt(a_, 0), build.ge(b_, 1)]), config)
    assert r.verdict is UNKNOWN and r.budget_exhausted and r.checks <= 2


def test_redundant_is_bounded_by_the_budget_and_says_so():
    """5,000 bounds on one symbol need no Z3; nonlinear guards past the budget are kept and listed."""
    from guards.solver.prove import redundant_with_report

    bounds = GuardSet.of([build.ge(a_, k) for k in range(5000)])
    r = redundant_with_report(bounds)
    dropped = {g.expr for g in r.redundant}
    assert [e for e in bounds.exprs if e not in dropped] == [build.ge(a_, 4999)] and r.checks <= 1
    products = [build.ne(build.mul(a_, b_), k) for k in range(3, 40)] + [build.ge(a_, 2), build.ge(b_, 2)]
    r = redundant_with_report(GuardSet.of(products), SolverConfig(max_checks=5))
    assert r.budget_exhausted and r.checks == 5
    assert len(r.redundant) + len(r.unknown) <= 5 + len(products) and r.unknown


def test_redundant_keeps_guards_whose_check_times_out():
    """``a**3 + b**3 != c**3`` is implied for a, b, c >= 1 (Fermat), but Z3 cannot show it."""
    no_solution = build.ne(build.add(build.pow_(a_, 3), build.pow_(b_, 3)), build.pow_(c_, 3))
    gs = GuardSet.of([build.ge(x, 1) for x in (a_, b_, c_)] + [no_solution])
    assert no_solution not in [g.expr for g in redundant(gs, TINY)]


# -- redundancy ---------------------------------------------------------------------------------------
# (guards, the redundant ones)
REDUNDANT = [
    ([build.ge(s0, 5), build.gt(s0, 3)], [build.gt(s0, 3)]),
    ([build.gt(s0, 3), build.ge(s0, 5)], [build.gt(s0, 3)]),
    ([build.ge(s0, 0)], [build.ge(s0, 0)]),  # by the domain
    ([build.ge(s0, 3), build.gt(s0, 2)], [build.gt(s0, 2)]),  # equivalent: the earlier one stays
    ([build.eq(s1, s0), build.ge(s0, 2), build.ge(s1, 2)], [build.ge(s1, 2)]),
    ([build.eq(build.mod(s0, 8), 0), build.eq(build.mod(s0, 4), 0)], [build.eq(build.mod(s0, 4), 0)]),
    ([build.ge(s0, 2), build.le(s0, 10)], []),
]


@pytest.mark.parametrize("guards,expected", REDUNDANT, ids=lambda x: str(x))
def test_redundant(guards, expected):
    gs = sized(guards)
    found = redundant(gs)
    assert [g.expr for g in found] == expected
    assert equivalent(gs, gs.with_guards([g for g in gs.guards if g not in found])).verdict is YES


def test_untranslatable_guard_raises_solver_error():
    from symint.sympy_io.functions import IntTrueDiv

    with pytest.raises(SolverError, match="IntTrueDiv"):
        is_satisfiable(free([build.lt(IntTrueDiv(n, m), 2)]))


# -- property: verdicts agree with brute force on a box ------------------------------------------------
SMALL = st.integers(-3, 3)
TERMS = st.one_of(
    st.sampled_from([n, m]),
    st.tuples(SMALL, st.sampled_from([n, m]), SMALL).map(lambda t: build.add(build.mul(t[0], t[1]), t[2])),
    st.tuples(st.sampled_from([n, m]), st.sampled_from([n, m, 2, 3, -2])).map(lambda t: build.mod(*t)),
    st.tuples(st.sampled_from([n, m]), st.sampled_from([n, m, 2, -3])).map(lambda t: build.floordiv(*t)),
)
GUARDS = st.tuples(st.sampled_from(sorted(build.RELATIONS)), TERMS, st.integers(-4, 4)).map(
    lambda t: build.RELATIONS[t[0]](t[1], t[2])
)
SETS = st.lists(GUARDS, min_size=0, max_size=3).map(lambda gs: free([g for g in gs if g not in (True, False)]))
BOX = [dict(zip((n, m), v)) for v in itertools.product(range(-6, 7), repeat=2)]


def _accepts(gs, values):
    return gs.holds({s: v for s, v in values.items() if s in gs.symbols})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SETS, SETS)
def test_verdicts_agree_with_brute_force(a, b):
    """A proof (YES for implies/equivalent, NO for overlap) has no counterexample in a box of inputs."""
    r_implies, r_overlap = implies(a, b), overlap(a, b)
    if r_implies.verdict is YES:
        assert all(_accepts(b, v) for v in BOX if _accepts(a, v))
    if r_overlap.verdict is NO:
        assert not any(_accepts(a, v) and _accepts(b, v) for v in BOX)
    for r, want_b in ((r_implies, False), (r_overlap, True)):
        if r.witness is not None:
            assert a.holds(r.values) and b.holds(r.other_values) is want_b


def test_the_local_fallback_matches_the_two_sets_symbols_by_source():
    """The guard-by-guard proof (the fallback when one query runs out) pairs symbols by source, not by name."""
    from guards.solver.prove import _locally
    from guards.solver.z3_solver import Budget

    a = GuardSet.of([build.ge(s0, 4), build.eq(s1, s0)], {s0: X0, s1: X1})
    same = GuardSet.of([build.gt(n, 3), build.eq(m, n)], {n: X0, m: X1})
    weaker = GuardSet.of([build.gt(n, 2), build.eq(m, n)], {n: X0, m: X1})
    other_dim = GuardSet.of([build.gt(n, 3)], {n: X1, m: X0})  # bounds x.size()[1], not x.size()[0]
    config = SolverConfig()
    assert _locally(a, same, config, both_ways=True, budget=Budget.of(config))
    assert _locally(a, weaker, config, both_ways=False, budget=Budget.of(config))  # a implies the weaker set
    assert not _locally(a, weaker, config, both_ways=True, budget=Budget.of(config))
    assert _locally(a, other_dim, config, both_ways=False, budget=Budget.of(config))  # x1 == x0 >= 4
    assert not _locally(other_dim, a, config, both_ways=False, budget=Budget.of(config))
