"""``GuardSet.simplify``: known rewrites, exactness on random sizes, idempotence, determinism, fallbacks."""

from __future__ import annotations

import math
import random

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guards import GuardSet, Source
from guards.solver.prove import Verdict, equivalent
from guards.simplify.passes import reduce_exact, simplify, simplify_with_report
from guards.solver.z3_solver import SolverConfig
from symint import build
from symint.sympy_io.functions import IntTrueDiv
from valueranges import ValueRanges

s0, s1, s2, s3 = (build.symbol_expr(f"s{i}") for i in range(4))
SIZES = {s: Source.size(f"x{i}", 0) for i, s in enumerate((s0, s1, s2, s3))}
eq, ne, lt, le, gt, ge, mod, mul = build.eq, build.ne, build.lt, build.le, build.gt, build.ge, build.mod, build.mul


def sized(guards):
    """Guards over sizes: every symbol is ``>= 0`` by the domain."""
    return GuardSet.of(guards, {s: src for s, src in SIZES.items() if any(s in g.free_symbols for g in guards)})


def free(guards):
    """Guards over unconstrained integers."""
    return GuardSet.of(guards)


# (name, input set, expected output guards in order)
CASES = [
    ("merge bounds", sized([ge(s0, 2), gt(s0, 3), le(s0, 100)]), [ge(s0, 4), le(s0, 100)]),
    ("fold equality", sized([eq(s1, s0), ge(s1, 2), gt(s0, 3)]), [eq(s1, s0), ge(s0, 4)]),
    ("equality chain", sized([eq(s2, s1), eq(s1, s0)]), [eq(s1, s0), eq(s2, s0)]),
    ("reversed equality", sized([eq(s0, s1), ge(s1, 3)]), [eq(s1, s0), ge(s0, 3)]),
    ("constant", sized([ge(s0, 4), le(s0, 4), ge(s1, s0)]), [eq(s0, 4), ge(s1, 4)]),
    ("constant through equality", sized([eq(s1, s0), eq(s1, 7), lt(s2, s0)]), [eq(s0, 7), eq(s1, 7), le(s2, 6)]),
    ("divisibility", sized([eq(mod(s0, 8), 0), eq(mod(s0, 4), 0), ge(s0, 2)]), [ge(s0, 8), eq(mod(s0, 8), 0)]),
    ("divisibility kept apart", sized([eq(mod(s0, 4), 0), eq(mod(s0, 6), 0)]), [eq(mod(s0, 4), 0), eq(mod(s0, 6), 0)]),
    ("domain implies", sized([ge(s0, 0), ne(s0, -1)]), []),
    ("ne at the end of a range", sized([ge(s0, 2), ne(s0, 2)]), [ge(s0, 3)]),
    ("ne zero on a size", sized([ne(s0, 0)]), [ge(s0, 1)]),
    ("ne inside a range", sized([ge(s0, 2), ne(s0, 5), le(s0, 9)]), [ge(s0, 2), le(s0, 9), ne(s0, 5)]),
    ("ne off the divisibility", sized([eq(mod(s0, 4), 0), ne(s0, 6)]), [eq(mod(s0, 4), 0)]),
    ("negative coefficient", free([le(build.neg(s0), -3), lt(mul(2, s0), 21)]), [ge(s0, 3), le(s0, 10)]),
    (
        "product implies its bounds",
        sized([eq(s2, mul(16, mul(s0, s1))), ge(s0, 2), ge(s1, 2), ge(s2, 64), eq(mod(s2, 16), 0), ne(s2, 1)]),
        [eq(s2, mul(16, mul(s0, s1))), ge(s0, 2), ge(s1, 2)],
    ),
    ("interval implies", sized([ge(s0, 2), ge(s1, 2), lt(1, mul(s0, s1))]), [ge(s0, 2), ge(s1, 2)]),
    ("z3 implies", sized([gt(s0, s1), gt(s1, s2), gt(s0, s2)]), [gt(s0, s1), gt(s1, s2)]),
    ("substitute into others", free([eq(s1, s0), lt(mul(s1, s2), 100)]), [eq(s1, s0), lt(mul(s0, s2), 100)]),
    ("split conjunction", sized([build.and_(ge(s0, 2), le(s0, 9))]), [ge(s0, 2), le(s0, 9)]),
    ("contradiction", sized([ge(s0, 5), lt(s0, 3)]), [sympy.false]),
    ("contradiction through equality", sized([eq(s1, s0), ge(s1, 5), lt(s0, 3)]), [sympy.false]),
    ("contradiction only z3 sees", free([eq(mod(s0, 4), 1), eq(mod(s0, 2), 0)]), [sympy.false]),
    ("zero divisor", free([eq(s1, 0), eq(mod(s0, s1), 0)]), [sympy.false]),
    ("false guard", free([sympy.false, ge(s0, 1)]), [sympy.false]),
    ("nothing to do", free([ge(s0, 1)]), [ge(s0, 1)]),
    ("empty", free([]), []),
]


@pytest.mark.parametrize("name,gs,expected", CASES, ids=[c[0] for c in CASES])
def test_known_simplifications(name, gs, expected):
    out, report = simplify_with_report(gs)
    assert list(out.exprs) == expected, f"{name}: {gs!r} -> {out!r}, expected {expected}\n{report}"
    assert report.proof is Verdict.YES and not report.reverted
    assert (out.sources, out.domain) == (gs.sources, gs.domain)
    assert equivalent(gs, out).verdict is Verdict.YES  # an independent check of the result


def test_method_and_function_agree():
    gs = sized([ge(s0, 2), gt(s0, 3)])
    assert gs.simplify() == simplify(gs) == gs.simplify_with_report()[0]


def test_report_says_what_was_merged_and_dropped():
    gs = sized([ge(s0, 2), gt(s0, 3), le(s0, 100), ge(s3, 0), eq(s2, s1), ge(s2, 5)])
    out, report = simplify_with_report(gs)
    rewritten = {str(g.expr): sorted(str(o.expr) for o in origins) for g, origins in report.rewritten}
    assert rewritten["s0 >= 4"] == ["s0 > 3", "s0 >= 2"]
    dropped = {str(g.expr): why for g, why in report.dropped}
    assert "s3 >= 0" in dropped and "domain" in dropped["s3 >= 0"]
    assert rewritten["s1 >= 5"] == ["s2 >= 5"]
    assert (s2, s1) in report.substitutions
    assert report.proof is Verdict.YES and report.z3_checks >= 0 and report.elapsed > 0
    text = str(report)
    assert "proof of equivalence: yes" in text and "s0 >= 4 replaces" in text


def test_unchanged_guards_keep_their_origin_and_merged_ones_combine():
    from guards import Guard

    gs = sized([Guard.of(ge(s0, 2), "a.py:1"), Guard.of(gt(s0, 3), "a.py:2"), Guard.of(le(s1, 9), "b.py:7")])
    out = gs.simplify()
    origins = {str(g.expr): g.origin for g in out.guards}
    assert origins == {"s0 >= 4": "a.py:1; a.py:2", "s1 <= 9": "b.py:7"}


def test_unprovable_group_is_returned_unsimplified():
    """A guard Z3 cannot translate blocks the proof of its group; the other group is still simplified."""
    odd = lt(build.pow_(s1, s3), 100)  # a symbolic exponent: Z3 cannot check it exactly
    gs = free([eq(s1, s0), odd, ge(s2, 2), ge(s2, 3)])
    out, report = simplify_with_report(gs)
    assert report.proof is Verdict.UNKNOWN and any("symbolic exponent" in r for r in report.reverted)
    assert set(out.exprs) == {eq(s1, s0), odd, ge(s2, 3)}


def test_a_float_guard_is_kept_as_written_and_its_group_simplified():
    """What forms cannot hold (a float comparison) is opaque: never rewritten, so the proof needs no float."""
    odd = lt(mul(s1, sympy.Float(0.5)), 3)
    gs = free([eq(s1, s0), odd, ge(s1, 2), ge(s0, 3)])
    out, report = simplify_with_report(gs)
    assert report.proof is Verdict.YES
    assert set(out.exprs) == {eq(s1, s0), odd, ge(s0, 3)}


def test_nothing_proven_returns_the_input_itself():
    gs = free([eq(s1, s0), lt(build.pow_(s1, s3), 100)])
    out, report = simplify_with_report(gs)
    assert out is gs and report.proof is Verdict.UNKNOWN and report.reverted


# -- property: exactness, idempotence, order independence ------------------------------------------------
SMALL = st.integers(-3, 3)


@st.composite
def guard_sets(draw):
    """Random guards over 2-3 symbols with small coefficients, over sizes or over all integers."""
    symbols = [s0, s1, s2][: draw(st.integers(2, 3))]
    sym = st.sampled_from(symbols)
    linear = st.tuples(SMALL, sym, SMALL, sym, st.integers(-6, 6)).map(
        lambda t: build.add(build.add(mul(t[0], t[1]), mul(t[2], t[3])), t[4])
    )
    terms = st.one_of(
        sym,
        linear,
        st.tuples(sym, sym).map(lambda t: mul(*t)),
        st.tuples(sym, st.sampled_from([2, 3, 4, -3])).map(lambda t: mod(*t)),
        st.tuples(sym, st.sampled_from([2, 3, -2])).map(lambda t: build.floordiv(*t)),
        st.tuples(sym, sym).map(lambda t: build.max_(*t)),
    )
    relation = st.tuples(st.sampled_from(sorted(build.RELATIONS)), terms, st.one_of(st.integers(-5, 8), sym)).map(
        lambda t: build.RELATIONS[t[0]](t[1], t[2])
    )
    special = st.one_of(
        st.tuples(sym, sym).map(lambda t: eq(*t)),
        st.tuples(sym, st.sampled_from([2, 4])).map(lambda t: eq(mod(*t), 0)),
        st.tuples(sym, sym).map(lambda t: eq(mod(*t), 0)),  # a symbolic divisor: zero makes it fail
        st.tuples(relation, relation).map(lambda t: build.or_(*t)),
    )
    guards = draw(st.lists(st.one_of(relation, relation, special), min_size=1, max_size=6))
    guards = [g for g in guards if g is not sympy.true and g is not sympy.false] or [ge(symbols[0], 0)]
    if draw(st.booleans()):
        return sized(guards)
    return free(guards)


def _assignments(gs: GuardSet, seed: int, count: int = 300) -> list[dict]:
    rng = random.Random(seed)
    symbols = sorted(gs.symbols, key=lambda s: s.name)
    lows = {s: (0 if s in gs.domain_map else -9) for s in symbols}
    return [{s: rng.randint(lows[s], 9) for s in symbols} for _ in range(count)]


def _same_inputs(a: GuardSet, b: GuardSet, seed: int) -> None:
    for values in _assignments(a, seed):
        assert a.holds(values) == b.holds({s: v for s, v in values.items() if s in b.symbols}), values


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(guard_sets(), st.integers(0, 2**32))
def test_simplified_set_accepts_exactly_the_same_sizes(gs, seed):
    out, report = simplify_with_report(gs)
    _same_inputs(gs, out, seed)
    assert report.proof is Verdict.YES, report
    again = out.simplify()
    assert again.exprs == out.exprs, "simplify is idempotent"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(guard_sets(), st.randoms(use_true_random=False))
def test_result_does_not_depend_on_guard_order(gs, rnd):
    shuffled = list(gs.guards)
    rnd.shuffle(shuffled)
    assert gs.with_guards(shuffled).simplify().exprs == gs.simplify().exprs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(guard_sets(), st.integers(0, 2**32))
def test_exact_even_when_z3_runs_out_of_its_limits(gs, seed):
    out = gs.simplify(SolverConfig(rlimit=200, drop_rlimit=100, max_checks=4))
    _same_inputs(gs, out, seed)


def test_guards_that_may_divide_by_zero_are_not_rewritten():
    """``Mod(s0, s1)`` with ``s1 := s0`` would fold to 0 and lose the failure at ``s0 == 0``."""
    gs = sized([eq(s0, s1), eq(mod(s0, s1), 0), lt(IntTrueDiv(s1, 2), 3)])
    out = gs.simplify()
    assert eq(mod(s0, s1), 0) in out.exprs and lt(IntTrueDiv(s1, 2), 3) in out.exprs
    assert not out.holds({s0: 0, s1: 0}) and out.holds({s0: 3, s1: 3})


def test_domain_from_value_sources_is_respected():
    """A value source has no domain: ``n >= 0`` is a real guard there, not an assumption."""
    n = build.symbol_expr("n")
    gs = GuardSet.of([ge(n, 0), ge(n, -3)], {n: Source.value("n")})
    assert gs.simplify().exprs == (ge(n, 0),)
    bounded = GuardSet.of([ge(n, 0)], {n: Source.value("n")}, {n: ValueRanges.of(0, math.inf)})
    assert bounded.simplify().exprs == ()


def test_deterministic_on_a_larger_set():
    syms = [build.symbol_expr(f"s{i}") for i in range(12)]
    rng = random.Random(7)
    guards = []
    for i, s in enumerate(syms):
        guards += [ge(s, 2), gt(s, rng.randint(2, 50)), le(s, rng.randint(60, 500))]
        if i >= 2 and rng.random() < 0.5:
            guards.append(eq(s, syms[rng.randrange(i)]))
        if i >= 2 and rng.random() < 0.5:
            a, b = rng.sample(syms[:i], 2)
            guards += [lt(mul(a, b), 10**6), eq(mod(s, 4), 0)]
    gs = GuardSet.of(guards, {s: Source.size(f"t{i}", 0) for i, s in enumerate(syms)})
    first, report = simplify_with_report(gs)
    assert report.proof is Verdict.YES and len(first) < len(gs)
    assert simplify(gs).exprs == first.exprs
    assert equivalent(gs, first).verdict is Verdict.YES


# -- the Z3-free reduction (what produce_guards installs at once) -----------------------------------------
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(guard_sets(), st.integers(0, 2**32))
def test_exact_reduction_is_equivalent_to_the_input(gs, seed):
    """``reduce_exact`` runs no Z3, yet Z3 proves its result equivalent (and concrete sizes agree)."""
    from guards.simplify.passes import reduce_exact

    out, report = reduce_exact(gs)
    assert report.z3_checks == 0 and report.rlimit == 0
    _same_inputs(gs, out, seed)
    proof = equivalent(gs, out, SolverConfig(rlimit=2_000_000))
    assert proof.verdict is not Verdict.NO, (gs, out, proof.witness)
    assert len(out) <= len(gs) + sum(1 for g in gs.guards if isinstance(g.expr, sympy.And)) * 6


@pytest.mark.parametrize(
    "gs,expected",
    [
        (sized([ge(s0, 2), ge(s0, 4)]), [ge(s0, 4)]),  # implied linear bound
        (sized([eq(mod(s0, 8), 0), eq(mod(s0, 4), 0)]), [eq(mod(s0, 8), 0)]),  # divisibility folded
        (sized([ge(s0, 2), ge(s0, 2), le(s0, 9), le(s0, 20)]), [ge(s0, 2), le(s0, 9)]),  # duplicates, one range
        (sized([ge(s0, 2), ge(s1, 3), gt(mul(s0, s1), 5)]), [ge(s0, 2), ge(s1, 3)]),  # decided by intervals
        (sized([gt(s0, s1), gt(s1, s2), gt(s0, s2)]), [gt(s0, s1), gt(s0, s2), gt(s1, s2)]),  # needs Z3: kept
    ],
    ids=["implied bound", "divisibility", "duplicates and one range", "intervals", "z3 left for later"],
)
def test_exact_reduction_cases(gs, expected):
    from guards.simplify.passes import reduce_exact

    out, report = reduce_exact(gs)
    assert sorted(map(str, out.exprs)) == sorted(map(str, expected)), (gs, out)
    assert report.z3_checks == 0 and equivalent(gs, out).verdict is Verdict.YES


def test_simplification_is_bounded_and_reports_its_budget():
    """A budget of a few checks: the drop pass stops early, what it could not try is kept, the result stays exact."""
    gs = sized([gt(s0, s1), gt(s1, s2), gt(s0, s2), gt(mul(s0, s1), s2), ge(s2, 2)])
    out, report = simplify_with_report(gs, SolverConfig(max_checks=2))
    assert report.budget_exhausted and report.z3_checks <= 3  # 1 per phase + the final satisfiability check
    assert equivalent(gs, out).verdict is Verdict.YES
    full, full_report = simplify_with_report(gs)
    assert not full_report.budget_exhausted and len(full) < len(out)
    again = simplify_with_report(gs)[1]
    assert (again.z3_checks, again.rlimit) == (full_report.z3_checks, full_report.rlimit)  # deterministic cost


# -- one representation: forms, sorted structurally ----------------------------------------------------------
def _integer_set():
    """Every pass has work: equalities, merged bounds and divisors, a definition, a Z3 drop, a finite symbol."""
    s4, s10, s11 = (build.symbol_expr(n) for n in ("s4", "s10", "s11"))
    guards = [
        eq(s1, s0), ge(s1, 2), gt(s0, 3), le(s0, 100), eq(mod(s0, 4), 0), eq(mod(s0, 8), 0),
        lt(mul(s0, s2), 2**31), ge(s2, 1), gt(s0 + s2, 4),  # implied by s0 >= 8 and s2 >= 1 (Z3 or the engine)
        eq(s3, 16 * s0), ge(s3, 64),  # s3 >= 64 follows from its definition and the range of s0
        ge(s4, 1), le(s4, 3), ne(s4, 2), lt(s4 * s4, 5),  # finite: s4 is 1
        lt(mul(s10, s11), 100), lt(mul(s2, s3), 10**6),
    ]
    syms = (s0, s1, s2, s3, s4, s10, s11)
    return GuardSet.of(guards, {s: Source.size(f"x{i}", 0) for i, s in enumerate(syms)}), syms


def test_simplify_builds_no_sympy_view_of_an_integer_set(monkeypatch):
    """The Z3 simplify path works on forms: no sympy view is built (counted at the view builders)."""
    from .test_reduce_forms import count_view_builders

    gs, _ = _integer_set()
    built = count_view_builders(monkeypatch)
    out, report = gs.simplify_with_report()
    exact, _ = reduce_exact(gs)
    assert built == [], f"simplify built sympy views: {built}"
    assert report.proof is Verdict.YES and report.z3_checks > 0
    assert len(out) < len(gs) and len(exact) < len(gs)


def test_the_simplified_set_is_sorted_structurally_like_the_reduced_one():
    """Sorted by form_order_key (symbols in natural order: s2 before s10), not by printed text."""
    from guards.simplify.classify import form_order_key

    gs, (s0, s1, s2, s3, s4, s10, s11) = _integer_set()
    out, exact = gs.simplify(), reduce_exact(gs)[0]
    for result in (out, exact):
        keys = [form_order_key(g.form) for g in result.guards]
        assert keys == sorted(keys)
        texts = [str(g.expr) for g in result.guards]
        assert texts.index("s2*s3 < 1000000") < texts.index("s10*s11 < 100")  # printed order would put s10 first
    assert equivalent(gs, out).verdict is Verdict.YES
