"""Questions about guard sets, answered by Z3 within deterministic limits: satisfiable? implies? equivalent? overlap?

Every answer is a :class:`ProofResult` whose :class:`Verdict` is ``YES``, ``NO``
or ``UNKNOWN`` (Z3 ran out of its resource limit or budget, or gave up); ``UNKNOWN``
is never reported as ``YES``. Each question runs in its own Z3 context under one
:class:`~guards.solver.z3_solver.Budget` (see Note [Deterministic limits] in
``guards.solver.z3_solver``), and its result says what it spent and whether the budget
or the wall-clock safety net ran out. When the answer rests on concrete inputs (a satisfying assignment, a
counterexample, an input both sets accept) the result carries them, and they
have been re-checked with :meth:`GuardSet.holds` before being reported.

The domain of each set (facts assumed of every input, e.g. sizes are ``>= 0``)
is assumed on both sides. Symbols of two sets are matched by *source* when both
have one (``s0`` in one set and ``s3`` in the other may both be
``x.size()[0]``), otherwise by name.

>>> from symint.build import symbol_expr, ge, gt
>>> from guards import GuardSet, Source
>>> s0, s3 = symbol_expr("s0"), symbol_expr("s3")
>>> a = GuardSet.of([ge(s0, 4)], {s0: Source.size("x", 0)})
>>> b = GuardSet.of([gt(s3, 2)], {s3: Source.size("x", 0)})
>>> implies(a, b).verdict, implies(b, a).verdict, dict(implies(b, a).witness)
(<Verdict.YES: 'yes'>, <Verdict.NO: 'no'>, {'x.size()[0]': 3})
"""

from __future__ import annotations

import enum
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from symint.lazy_sympy import lazy_module, sympy

from symint.form.logic import BoolForm
from valueranges import ValueRanges

from guards.errors import GuardTypeError, SolverError
from guards.guard import Guard, view_symbol
from guards.simplify.classify import classify_form
from guards.text.escape import sympy_str

from guards.solver.z3_solver import Budget, SatStatus, SolverConfig, SolverOutcome, Z3Context, Z3Solver
from guards.solver.z3_translate import Translator, conj, negate

from guards.protocols import GuardSetLike

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = [
    "Verdict",
    "ProofResult",
    "is_satisfiable",
    "implies",
    "equivalent",
    "counterexample",
    "overlap",
    "redundant",
    "redundant_with_report",
    "RedundancyReport",
    "implied_indices",
    "Entailer",
    "Neighbourhoods",
    "unproven_entailments",
]

_DEFAULT = SolverConfig()
#: Local premise sets larger than this are skipped in favour of the whole group (see Note [Local premises]).
_LOCAL_LIMIT = 60


class Verdict(enum.Enum):
    """The answer to a yes/no question that Z3 may fail to decide."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class ProofResult:
    """The answer to one question about guard sets.

    Attributes:
        verdict: ``YES``, ``NO`` or ``UNKNOWN``; what ``YES`` means is the question's
            (e.g. "``a`` implies ``b``", "some input is accepted by both").
        witness: concrete inputs backing the answer, keyed by source text (or by
            symbol name for a symbol without a source), or None.
        values: the witness as ``{symbol: value}`` for the first set's symbols.
        other_values: the witness for the second set's symbols (two-set questions).
        accepted_by: for a counterexample, which set accepts the witness
            (``"self"`` or ``"other"``; the other one rejects it); ``"both"`` for an overlap.
        elapsed: seconds taken (translation and solving; informational only).
        reason: why the verdict is ``UNKNOWN`` (e.g. ``"rlimit"``, ``"budget exhausted"``), else ``""``.
        checks: Z3 checks run to answer.
        rlimit: Z3 resource units spent (deterministic: the same on every run).
        budget_exhausted: the question's budget (``SolverConfig.budget_rlimit`` /
            ``max_checks``) ran out before every check it wanted could run.
        safety_net: the wall-clock safety net fired at least once (the answer may then
            differ from an unloaded run: it is ``UNKNOWN`` where the net cut a check short).

    A result is deliberately not usable as a bool (``if gs.implies(o):`` would
    silently treat ``UNKNOWN`` as ``NO``); test :attr:`verdict` or :attr:`proved`.
    """

    verdict: Verdict
    witness: Mapping[str, int] | None = None
    values: Mapping[sympy.Symbol, int] | None = None
    other_values: Mapping[sympy.Symbol, int] | None = None
    accepted_by: str | None = None
    elapsed: float = 0.0
    reason: str = ""
    checks: int = 0
    rlimit: int = 0
    budget_exhausted: bool = False
    safety_net: bool = False

    @property
    def proved(self) -> bool:
        """``verdict is Verdict.YES``."""
        return self.verdict is Verdict.YES

    @property
    def refuted(self) -> bool:
        """``verdict is Verdict.NO``."""
        return self.verdict is Verdict.NO

    def __bool__(self) -> bool:
        raise GuardTypeError(
            "a ProofResult is three-valued (YES/NO/UNKNOWN); test `result.verdict` or `result.proved` instead of bool()"
        )


# -- pairing symbols of two sets -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Inputs:
    """The Z3 variable name and the witness label of every symbol of one or two guard sets."""

    names: tuple[dict[str, str], ...]  # per set: symbol name -> Z3 variable name
    labels: dict[str, str] = field(default_factory=dict)  # variable name -> witness key


def _all_names(gs: GuardSetLike) -> list[str]:
    """The names of every symbol of ``gs`` (read by a guard, given a source or a domain), sorted."""
    return sorted(gs.names | {n for n, _ in gs.named_domain})


def _pair(a: GuardSetLike, b: "GuardSetLike | None") -> _Inputs:
    """Match symbols: first by equal sources, then by name when not both have sources."""
    src_a, names_a = dict(a.named_sources), {}
    labels: dict[str, str] = {}
    for sym in _all_names(a):
        names_a[sym] = sym
        labels[sym] = src_a[sym].text() if sym in src_a else sym
    if b is None:
        return _Inputs((names_a,), labels)
    src_b = dict(b.named_sources)
    by_source = {src: sym for sym, src in a.named_sources}
    taken: set[str] = set()
    names_b: dict[str, str] = {}
    b_syms = _all_names(b)
    for sym in b_syms:
        partner = by_source.get(src_b.get(sym))
        if partner is not None:
            names_b[sym] = names_a[partner]
            taken.add(partner)
    for sym in b_syms:
        partner = sym if sym in names_a else None
        if sym not in names_b and partner is not None and partner not in taken and not (partner in src_a and sym in src_b):
            names_b[sym] = sym
            taken.add(partner)
    used = set(names_a.values()) | set(names_b.values())
    for sym in b_syms:
        if sym in names_b:
            continue
        name = sym
        while name in used:
            name += "_other"
        names_b[sym] = name
        used.add(name)
        label = src_b[sym].text() if sym in src_b else sym
        labels[name] = label if label not in labels.values() else f"{label} (other)"
    return _Inputs((names_a, names_b), labels)


class _Query:
    """One solver over the inputs of one or two guard sets, with their domains asserted.

    A query owns a fresh Z3 context and the question's :class:`Budget` (shared with the
    fallbacks the question may run, e.g. :func:`_locally`).
    """

    def __init__(self, sets: Sequence[GuardSetLike], config: SolverConfig, budget: Budget | None = None):
        self.sets = sets
        self.config = config
        self.budget = budget if budget is not None else Budget.of(config)
        self.context = Z3Context()
        self.inputs = _pair(sets[0], sets[1] if len(sets) > 1 else None)
        self.translators = [Translator(names, self.context) for names in self.inputs.names]
        self.solver = Z3Solver(config, self.context, self.budget)
        self.report = []
        for gs, t in zip(sets, self.translators):
            for sym, rng in gs.named_domain:
                if not rng.is_bool:
                    self.solver.add(t.in_range(sym, rng))
            self.report += [t.variable(s) for s in _all_names(gs)]

    def accepts(self, side: int):
        """The formula "set ``side`` accepts the inputs"."""
        t = self.translators[side]
        return conj((t.holds(g.form) for g in self.sets[side].guards), self.context.ctx)

    def result(self, verdict: Verdict, start: float, **fields) -> ProofResult:
        """A :class:`ProofResult` carrying what this query spent."""
        b = self.budget
        return ProofResult(
            verdict, elapsed=time.perf_counter() - start, checks=b.checks, rlimit=b.spent,
            budget_exhausted=b.exhausted, safety_net=b.safety_net > 0, **fields,
        )

    def witness(self, outcome: SolverOutcome) -> tuple[dict[str, int], list[dict[sympy.Symbol, int]]]:
        values = dict(outcome.values)
        per_set = [{view_symbol(s): values[n] for s, n in names.items()} for names in self.inputs.names]  # the public view
        return {self.inputs.labels[n]: v for n, v in sorted(values.items())}, per_set


def _sat_result(
    query: _Query, outcome: SolverOutcome, expect: Sequence[bool], start: float, accepted_by: str | None, flip: bool
) -> ProofResult:
    """Turn a check into a result; ``expect[i]`` is whether set ``i`` should accept a model."""
    yes, no = (Verdict.NO, Verdict.YES) if flip else (Verdict.YES, Verdict.NO)
    if outcome.status is SatStatus.UNSAT:
        return query.result(no, start)
    if outcome.status is SatStatus.UNKNOWN:
        return query.result(Verdict.UNKNOWN, start, reason=outcome.reason)
    witness, per_set = query.witness(outcome)
    for gs, values, want in zip(query.sets, per_set, expect):
        if gs.holds(values) != want:  # see Note [Float division] in z3_translate
            return query.result(Verdict.UNKNOWN, start, reason=f"Z3's model {witness} does not re-check concretely")
    other = per_set[1] if len(per_set) > 1 else None
    return query.result(yes, start, witness=witness, values=per_set[0], other_values=other, accepted_by=accepted_by)


# -- the questions ---------------------------------------------------------------------------------
def is_satisfiable(gs: GuardSetLike, config: SolverConfig = _DEFAULT) -> ProofResult:
    """Whether some input in the domain passes every guard; YES comes with such an input.

    >>> from symint.build import symbol_expr, eq, mod, gt
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> r = is_satisfiable(GuardSet.of([eq(mod(n, 8), 3), gt(n, 20)]))
    >>> r.verdict, r.values[n] % 8, r.values[n] > 20
    (<Verdict.YES: 'yes'>, 3, True)
    """
    start = time.perf_counter()
    query = _Query([gs], config)
    query.solver.add(query.accepts(0))
    outcome = query.solver.check(report=query.report)
    return _sat_result(query, outcome, [True], start, None, flip=False)


def _locally(a: GuardSetLike, b: GuardSetLike, config: SolverConfig, both_ways: bool, budget: Budget) -> bool:
    """Whether ``a`` implies (and, with ``both_ways``, is implied by) ``b``, proven guard by guard.

    The fallback when one query over the whole sets runs out of its resource limit (see
    Note [Local premises]); it spends from the question's ``budget``.
    """
    query = _Query([a, b], config, budget)
    (names_a, names_b), (ta, tb) = query.inputs.names, query.translators
    domain: dict[str, ValueRanges] = {}
    for gs, names in ((a, names_a), (b, names_b)):
        for sym, rng in gs.named_domain:
            name = names[sym]
            domain[name] = domain[name] & rng if name in domain else rng
    exprs = [[g.form for g in a.guards], [g.form for g in b.guards]]  # forms name their symbols by name
    ids = [{t.holds(e).get_id() for e in pool} for t, pool in zip((ta, tb), exprs)]
    hood = Neighbourhoods(exprs, [names_a.__getitem__, names_b.__getitem__])
    entailer = Entailer(domain, config, [ta, tb], budget=budget)
    directions = [(0, 1), (1, 0)] if both_ways else [(0, 1)]
    for premise_pool, goal_pool in directions:
        t = (ta, tb)[goal_pool]
        known = frozenset(k for k, e in enumerate(exprs[goal_pool]) if t.holds(e).get_id() in ids[premise_pool])
        goals = exprs[goal_pool]
        premises = exprs[premise_pool]
        if unproven_entailments(entailer, hood, premise_pool, premises, goal_pool, goals, known, budget=budget):
            return False
    return True


def implies(a: GuardSetLike, b: GuardSetLike, config: SolverConfig = _DEFAULT) -> ProofResult:
    """Whether every input (in both domains) that ``a`` accepts, ``b`` accepts too.

    NO comes with a counterexample accepted by ``a`` and rejected by ``b``.

    >>> from symint.build import symbol_expr, ge
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> implies(GuardSet.of([ge(n, 5)]), GuardSet.of([ge(n, 3)])).verdict
    <Verdict.YES: 'yes'>
    """
    start = time.perf_counter()
    query = _Query([a, b], config)
    query.solver.add(query.accepts(0))
    query.solver.add(negate(query.accepts(1)))
    outcome = query.solver.check(report=query.report)
    if outcome.status is SatStatus.UNKNOWN and _locally(a, b, config, both_ways=False, budget=query.budget):
        return query.result(Verdict.YES, start)
    return _sat_result(query, outcome, [True, False], start, "self", flip=True)


def _difference(a: GuardSetLike, b: GuardSetLike, config: SolverConfig, flip: bool) -> ProofResult:
    """Look for an input accepted by exactly one set: finding one is YES, or NO when ``flip``."""
    start = time.perf_counter()
    query = _Query([a, b], config)
    acc_a, acc_b = query.accepts(0), query.accepts(1)
    only_a = query.solver.track(conj([acc_a, negate(acc_b)]))
    only_b = query.solver.track(conj([acc_b, negate(acc_a)]))
    reason = ""
    for literal, expect, side in ((only_a, [True, False], "self"), (only_b, [False, True], "other")):
        outcome = query.solver.check([literal], report=query.report)
        if outcome.status is SatStatus.UNSAT:
            continue
        result = _sat_result(query, outcome, expect, start, side, flip=flip)
        if result.verdict is not Verdict.UNKNOWN:
            return result
        reason = result.reason
    if reason and not _locally(a, b, config, both_ways=True, budget=query.budget):
        return query.result(Verdict.UNKNOWN, start, reason=reason)
    return query.result(Verdict.YES if flip else Verdict.NO, start)


def equivalent(a: GuardSetLike, b: GuardSetLike, config: SolverConfig = _DEFAULT) -> ProofResult:
    """Whether ``a`` and ``b`` accept exactly the same inputs (within both domains).

    NO comes with an input accepted by one set only (``accepted_by`` says which).

    >>> from symint.build import symbol_expr, ge, gt
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> equivalent(GuardSet.of([ge(n, 5)]), GuardSet.of([gt(n, 4)])).verdict
    <Verdict.YES: 'yes'>
    """
    return _difference(a, b, config, flip=True)


def counterexample(a: GuardSetLike, b: GuardSetLike, config: SolverConfig = _DEFAULT) -> ProofResult:
    """An input accepted by one set and rejected by the other: YES (found), NO (equivalent) or UNKNOWN.

    >>> from symint.build import symbol_expr, ge
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> r = counterexample(GuardSet.of([ge(n, 5)]), GuardSet.of([ge(n, 6)]))
    >>> r.verdict, dict(r.witness), r.accepted_by
    (<Verdict.YES: 'yes'>, {'n': 5}, 'self')
    """
    return _difference(a, b, config, flip=False)


def overlap(a: GuardSetLike, b: GuardSetLike, config: SolverConfig = _DEFAULT) -> ProofResult:
    """Whether some input passes both sets (two cache entries would be ambiguous); YES comes with it.

    >>> from symint.build import symbol_expr, ge, le
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> r = overlap(GuardSet.of([ge(n, 5)]), GuardSet.of([le(n, 5)]))
    >>> r.verdict, dict(r.witness)
    (<Verdict.YES: 'yes'>, {'n': 5})
    """
    start = time.perf_counter()
    query = _Query([a, b], config)
    query.solver.add(query.accepts(0))
    query.solver.add(query.accepts(1))
    outcome = query.solver.check(report=query.report)
    return _sat_result(query, outcome, [True, True], start, "both", flip=False)


# -- redundancy ------------------------------------------------------------------------------------
def implied_indices(
    solver: Z3Solver,
    formulas: Sequence[object],
    background: Sequence[object] = (),
    order: Sequence[int] | None = None,
) -> tuple[frozenset[int], frozenset[int]]:
    """Greedily find formulas implied by the others: returns ``(dropped, unknown)`` index sets.

    ``formulas`` are Z3 formulas (from a :class:`Translator`) added to ``solver``
    behind tracking literals; ``background`` literals are assumed in every check.
    Candidates are tried in ``order`` (default: last first); each is dropped when
    the formulas still kept imply it, so all dropped formulas may be removed
    together. A check that times out keeps its formula (listed in ``unknown``).

    >>> from symint.build import symbol_expr, ge
    >>> n, t, s = symbol_expr("n"), Translator(), Z3Solver()
    >>> implied_indices(s, [t.holds(ge(n, 5)), t.holds(ge(n, 3))])
    (frozenset({1}), frozenset())
    """
    keep = [solver.track(f) for f in formulas]
    refute = [solver.track(negate(f)) for f in formulas]
    active = set(range(len(formulas)))
    dropped, unknown = set(), set()
    for i in order if order is not None else reversed(range(len(formulas))):
        others = [keep[j] for j in sorted(active) if j != i]
        outcome = solver.check([*background, *others, refute[i]])
        if outcome.status is SatStatus.UNSAT:
            dropped.add(i)
            active.discard(i)
        elif outcome.status is SatStatus.UNKNOWN:
            unknown.add(i)
    return frozenset(dropped), frozenset(unknown)


@dataclass(frozen=True, slots=True)
class RedundancyReport:
    """What :func:`redundant_with_report` found, and what it spent.

    Attributes:
        redundant: guards implied by the others and the domain (droppable all together).
        unknown: guards whose check ran out of its resource limit or of the budget (kept).
        checks: Z3 checks run.
        rlimit: Z3 resource units spent.
        budget_exhausted: the budget ran out before every guard was tried.
        safety_net: the wall-clock safety net fired at least once.
    """

    redundant: tuple[Guard, ...] = ()
    unknown: tuple[Guard, ...] = ()
    checks: int = 0
    rlimit: int = 0
    budget_exhausted: bool = False
    safety_net: bool = False


def _cheap_redundant(forms: Sequence[BoolForm], domain: Mapping[str, ValueRanges]) -> set[int]:
    """Single-symbol bounds, ``!=`` constants and divisibility implied by a stronger one (no Z3).

    Per symbol, the strongest lower and upper bound and the divisibility facts not implied
    by another (all kept, the earliest of equal ones) imply every other such fact, and a
    ``!=`` outside the kept bounds or off the kept divisibility. Each dropped guard is
    implied by guards that stay, so the drops are sound together with later ones (see
    :func:`redundant_with_report`). Linear: one pass per symbol.
    """
    by_sym: dict[str, list[tuple[str, int, int]]] = {}
    for i, f in enumerate(forms):
        k = classify_form(f)
        if k.kind in ("lower", "upper", "ne", "div"):
            by_sym.setdefault(k.sym, []).append((k.kind, int(k.value), i))
    dropped: set[int] = set()
    for sym, facts in by_sym.items():
        rng = domain.get(sym)
        lo = rng.lower if rng is not None and not rng.is_bool else -math.inf
        hi = rng.upper if rng is not None and not rng.is_bool else math.inf
        lowers = [(v, i) for kind, v, i in facts if kind == "lower"]
        uppers = [(v, i) for kind, v, i in facts if kind == "upper"]
        best_lo = max(lowers, key=lambda t: (t[0], -t[1])) if lowers else None
        best_hi = min(uppers, key=lambda t: (t[0], t[1])) if uppers else None
        for v, i in lowers:
            if v <= lo or (best_lo is not None and i != best_lo[1]):
                dropped.add(i)
        for v, i in uppers:
            if v >= hi or (best_hi is not None and i != best_hi[1]):
                dropped.add(i)
        if best_lo is not None:
            lo = max(lo, best_lo[0])
        if best_hi is not None:
            hi = min(hi, best_hi[0])
        divs = [(v, i) for kind, v, i in facts if kind == "div"]
        kept_divs: list[int] = []
        for v, i in divs:
            if v == 1 or any(m % v == 0 and (m != v or j < i) for m, j in divs if j != i and m != 0):
                dropped.add(i)
            elif v != 0:
                kept_divs.append(v)
        for kind, v, i in facts:
            if kind == "ne" and (v < lo or v > hi or any(v % m for m in kept_divs)):
                dropped.add(i)
    return dropped


def redundant_with_report(gs: GuardSetLike, config: SolverConfig = _DEFAULT) -> RedundancyReport:
    """Guards implied by the other guards and the domain, with what the search spent.

    Two passes, each trying every guard once (no re-scans): exact reasoning on the bounds,
    ``!=`` and divisibility of each symbol (no Z3), then one incremental Z3 solver holding
    every guard behind a literal, where each remaining guard (last first) is checked
    against the guards still kept around it: those sharing a symbol, then two hops away,
    then its whole connected group (see Note [Local premises]). Each check is bounded by
    ``config.drop_rlimit`` and the whole search by ``config.budget_rlimit`` / ``max_checks``;
    guards not decided within them are kept and listed in ``unknown``.

    >>> from symint.build import symbol_expr, ge
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> r = redundant_with_report(GuardSet.of([ge(n, 3), ge(n, 2)]))
    >>> r.redundant, r.unknown, r.budget_exhausted
    ((Guard(n >= 2),), (), False)
    """
    guards = gs.guards
    forms = [g.form for g in guards]  # what the cheap pass and Z3 read (Note [Forms to Z3])
    query = _Query([gs], config)
    dropped = _cheap_redundant(forms, dict(gs.named_domain))
    hood = Neighbourhoods([forms])
    t = query.translators[0]
    keep: dict[int, object] = {}
    unknown: set[int] = set()
    solver = Z3Solver(config, query.context, query.budget, config.drop_rlimit)  # optional drops: drop_rlimit each
    for sym, rng in gs.named_domain:
        if not rng.is_bool:
            solver.add(t.in_range(sym, rng))

    def _premise(j: int):
        if j not in keep:
            try:
                keep[j] = solver.track(t.holds(forms[j]))
            except SolverError:  # an untranslatable premise is left out: fewer premises is sound
                keep[j] = None
        return keep[j]

    groups: dict[int, frozenset] = {}  # each guard's connected group of symbols, computed once per group
    for i in range(len(forms)):
        if i not in groups:
            group = hood.around(hood.reps[0][i], None)
            groups.update((j, group) for j in hood.pool_members(0, group))
            groups.setdefault(i, group)
    for i in reversed(range(len(forms))):
        if i in dropped:
            continue
        try:
            goal = t.holds(forms[i])
        except SolverError:
            unknown.add(i)
            continue
        group = [j for j in hood.pool_members(0, groups[i], skip=i) if j not in dropped]
        own = hood.reps[0][i]
        stages = [[j for j in hood.pool_members(0, hood.around(own, hops), skip=i) if j not in dropped] for hops in (1, 2)]
        stages = [c for c in stages if len(c) <= _LOCAL_LIMIT and len(c) < len(group)] + [group]
        refute = solver.track(negate(goal))
        status, tried = None, None
        for chosen in stages:  # see Note [Local premises]: a subset that implies the goal is a proof
            if chosen == tried:
                continue
            tried = chosen
            outcome = solver.check([*(lit for j in chosen if (lit := _premise(j)) is not None), refute])
            status = outcome.status
            if status is not SatStatus.SAT:  # proven, or more premises would only be harder
                break
        solver.add(negate(refute))  # retire the literal: its clause never matters again
        if status is SatStatus.UNSAT:
            dropped.add(i)
        elif status is SatStatus.UNKNOWN:
            unknown.add(i)
    b = query.budget
    return RedundancyReport(
        tuple(g for i, g in enumerate(guards) if i in dropped),
        tuple(g for i, g in enumerate(guards) if i in unknown),
        b.checks, b.spent, b.exhausted, b.safety_net > 0,
    )


def redundant(gs: GuardSetLike, config: SolverConfig = _DEFAULT) -> tuple[Guard, ...]:
    """Guards implied by the other guards and the domain; all of them may be dropped together.

    Guards are tried last first, so of two equivalent guards the earlier is kept.
    A guard whose check runs out of its resource limit is not reported (it is kept);
    :func:`redundant_with_report` also says which and what the search spent.

    >>> from symint.build import symbol_expr, ge, gt, or_
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> redundant(GuardSet.of([ge(n, 5), gt(n, 3), or_(ge(n, 5), gt(n, 100))]))
    (Guard(n > 3), Guard((n >= 5) | (n > 100)))
    """
    return redundant_with_report(gs, config).redundant


# -- many small proofs -----------------------------------------------------------------------------
# Note [Local premises]
#     One Z3 query over a whole 500-guard set (products, sums and bounds over a hundred
#     symbols) easily exceeds a 200 ms budget, while "does this guard follow from the
#     guards that share a symbol with it?" takes a millisecond. So large questions are
#     split into one entailment per guard, each asked first with the guards around it
#     (one hop in the graph linking guards that share a symbol), then two hops, then
#     the whole connected group. A subset of the premises entailing a goal is a proof
#     with all of them, so each step is sound; only "not entailed" needs the whole group.


class Entailer:
    """Answers "do these guards imply that one?" with a fresh small Z3 problem per question.

    Args:
        domain: the assumed range of each variable, by Z3 variable name (a symbol's name
            unless ``translators`` say otherwise); asserted for the variables a question reads.
        config: the per-check resource limit (``config.rlimit``) and the safety net.
        translators: one :class:`Translator` per pool of guards (default: one shared by all,
            in ``context``), so that guards of two sets can be compared over their matched inputs.
        context: the :class:`Z3Context` of the questions (default: the translators', else fresh).
        budget: the :class:`Budget` the checks spend from (default: ``Budget.of(config)``).
        rlimit: the per-check resource limit, if lower than ``config.rlimit``.

    >>> from symint.build import symbol_expr, ge, gt
    >>> n = symbol_expr("n")
    >>> Entailer({}).entails([ge(n, 5)], gt(n, 4)).status.value
    'unsat'
    """

    def __init__(
        self,
        domain: Mapping[str, ValueRanges],
        config: SolverConfig = _DEFAULT,
        translators: Sequence[Translator] | None = None,
        context: Z3Context | None = None,
        budget: Budget | None = None,
        rlimit: int | None = None,
    ):
        self.domain, self.config = domain, config
        if context is None:
            context = translators[0].context if translators else Z3Context()
        self.context = context
        self.translators = list(translators) if translators else [Translator(context=context)]
        self.budget = budget if budget is not None else Budget.of(config)
        self.rlimit = rlimit
        self.checks = 0

    def _translator(self, pool: int) -> Translator:
        return self.translators[pool] if pool < len(self.translators) else self.translators[0]

    def entails(
        self, premises: Sequence["BoolForm | sympy.Basic"], goal: "BoolForm | sympy.Basic", premise_pool: int = 0,
        goal_pool: int = 0,
    ) -> SolverOutcome:
        """``UNSAT`` when the premises (and the domain) imply ``goal``; ``SAT`` when they do not.

        Premises and goal are boolean forms (what guards hold) or sympy booleans.

        Raises:
            SolverError: a guard cannot be translated to Z3.
        """
        tp, tg = self._translator(premise_pool), self._translator(goal_pool)
        solver = Z3Solver(self.config, self.context, self.budget, self.rlimit)
        variables = {tp.name(s): (tp, s) for p in premises for s in tp.symbols(p)}
        variables.update({tg.name(s): (tg, s) for s in tg.symbols(goal)})
        ranges = [(t, s, self.domain.get(name)) for name, (t, s) in sorted(variables.items())]
        solver.add(*(t.in_range(s, r) for t, s, r in ranges if r is not None and not r.is_bool))
        solver.add(*(tp.holds(p) for p in premises), negate(tg.holds(goal)))
        self.checks += 1
        return solver.check()


def _symbols(e: "BoolForm | sympy.Basic") -> frozenset:
    """The symbols a guard reads: names for a boolean form, sympy symbols for a sympy boolean."""
    return e.symbols if isinstance(e, BoolForm) else e.free_symbols


def _text(e: "BoolForm | sympy.Basic") -> str:
    """A guard's text for a message (the sympy view of a form, printed only when a message is built)."""
    return sympy_str(_io.to_sympy(e) if isinstance(e, BoolForm) else e)


class Neighbourhoods:
    """Which guards of some pools share symbols, after mapping each symbol through ``contract``.

    ``contract`` maps a symbol to its class representative, so that ``Eq(s1, s0)`` and
    the guards on ``s0`` count as neighbours of the guards on ``s1``; it may also be a
    list with one function per pool (e.g. symbol -> Z3 variable name for two guard sets).
    A pool holds boolean forms (their symbols are names) or sympy booleans (sympy symbols).

    >>> from symint.build import symbol_expr, lt
    >>> a, b, c = (symbol_expr(n) for n in "abc")
    >>> h = Neighbourhoods([[lt(a, b), lt(b, c), lt(c, 3)]])
    >>> sorted(h.pool_members(0, h.around(frozenset([a]), hops=2)))
    [0, 1]
    """

    def __init__(self, pools: Sequence[Sequence[sympy.Basic]], contract=None):
        contracts = contract if isinstance(contract, (list, tuple)) else [contract or (lambda s: s)] * len(pools)
        self.reps = [[frozenset(f(s) for s in _symbols(e)) for e in pool] for f, pool in zip(contracts, pools)]
        self.by_rep: list[dict[sympy.Symbol, list[int]]] = []
        for reps in self.reps:
            index: dict[sympy.Symbol, list[int]] = {}
            for i, rs in enumerate(reps):
                for r in rs:
                    index.setdefault(r, []).append(i)
            self.by_rep.append(index)

    def around(self, reps: frozenset, hops: int | None) -> frozenset:
        """The representatives within ``hops`` guards of ``reps`` (None: the whole connected group)."""
        seen, frontier, step = set(reps), set(reps), 1
        while frontier and (hops is None or step < hops):
            nxt = set()
            for r in frontier:
                for pool, index in zip(self.reps, self.by_rep):
                    for i in index.get(r, ()):
                        nxt |= pool[i] - seen
            seen |= nxt
            frontier, step = nxt, step + 1
        return frozenset(seen)

    def pool_members(self, pool: int, reps: frozenset, skip: int | None = None) -> list[int]:
        """Indices of the guards of ``pool`` that read one of ``reps`` (all symbol-free guards too)."""
        index = self.by_rep[pool]
        found = {i for r in reps for i in index.get(r, ())}
        found |= {i for i, rs in enumerate(self.reps[pool]) if not rs}
        found.discard(skip)
        return sorted(found)


def unproven_entailments(
    entailer: Entailer,
    hood: Neighbourhoods,
    premise_pool: int,
    premises: Sequence[sympy.Basic],
    goal_pool: int,
    goals: Sequence[sympy.Basic],
    skip: frozenset = frozenset(),
    seeds: Callable[[int], Sequence[int]] | None = None,
    local_limit: int = 60,
    budget: Budget | None = None,
) -> list[tuple[int, Verdict, str]]:
    """The goals (by index, except ``skip``) that the premises could not be shown to imply.

    Each goal is tried with growing sets of premises (see Note [Local premises]):
    ``seeds(goal)`` if given (e.g. the guards it was derived from), the one-hop and
    two-hop neighbourhoods when they have at most ``local_limit`` premises, then the
    whole connected group. ``NO`` means a counterexample exists even with the whole
    group; ``UNKNOWN`` that Z3 ran out of its resource limit. Once a goal fails, the other
    goals of its group are not tried (a caller keeps such a group as it was). Once
    ``budget`` (default: the entailer's) is exhausted, the goals left are not tried and
    count as UNKNOWN.

    >>> from symint.build import symbol_expr, ge, gt
    >>> n = symbol_expr("n")
    >>> old, new = [ge(n, 5)], [gt(n, 4), gt(n, 5)]
    >>> unproven_entailments(Entailer({}), Neighbourhoods([old, new]), 0, old, 1, new)
    [(1, <Verdict.NO: 'no'>, 'n >= 5 do not imply n > 5')]
    """
    failures: list[tuple[int, Verdict, str]] = []
    failed_reps: set = set()
    budget = budget if budget is not None else entailer.budget
    for g in range(len(goals)):
        own = hood.reps[goal_pool][g]
        if g in skip or (own and own <= failed_reps):
            continue
        if not budget.allows():
            failures.append((g, Verdict.UNKNOWN, f"ran out of the budget ({budget.describe()}) before proving {_text(goals[g])}"))
            failed_reps |= hood.around(own, None)
            continue
        group = hood.pool_members(premise_pool, hood.around(own, None))
        stages = [sorted(set(seeds(g)))] if seeds is not None else []
        stages += [hood.pool_members(premise_pool, hood.around(own, hops)) for hops in (1, 2)]
        stages = [c for c in stages if len(c) <= local_limit and len(c) < len(group)] + [group]
        verdict, tried = Verdict.UNKNOWN, None
        for chosen in stages:
            if chosen == tried:
                continue
            tried = chosen
            outcome = entailer.entails([premises[i] for i in chosen], goals[g], premise_pool, goal_pool)
            if outcome.status is SatStatus.UNSAT:
                verdict = Verdict.YES
                break
            if outcome.status is SatStatus.SAT and chosen == group:
                verdict = Verdict.NO  # a counterexample to the whole group
        if verdict is not Verdict.YES:
            failed_reps |= hood.around(own, None)
            tried = tried or []
            shown = ", ".join(_text(premises[i]) for i in tried[:5]) + (", ..." if len(tried) > 5 else "")
            what = "do not imply" if verdict is Verdict.NO else "were not shown to imply"
            failures.append((g, verdict, f"{shown or 'the domain'} {what} {_text(goals[g])}"))
    return failures
