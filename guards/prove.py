"""Questions about guard sets, answered by Z3 with a timeout: satisfiable? implies? equivalent? overlap?

Every answer is a :class:`ProofResult` whose :class:`Verdict` is ``YES``, ``NO``
or ``UNKNOWN`` (Z3 ran out of time or gave up); ``UNKNOWN`` is never reported as
``YES``. When the answer rests on concrete inputs (a satisfying assignment, a
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
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import sympy

from .errors import GuardTypeError
from .guard import Guard
from valueranges import ValueRanges

from .z3_translate import SatStatus, SolverConfig, SolverOutcome, Translator, Z3Solver, conj, negate

if TYPE_CHECKING:  # guardset.py imports this module to delegate to it
    from .guardset import GuardSet

__all__ = [
    "Verdict",
    "ProofResult",
    "is_satisfiable",
    "implies",
    "equivalent",
    "counterexample",
    "overlap",
    "redundant",
    "implied_indices",
    "Entailer",
    "Neighbourhoods",
    "unproven_entailments",
]

_DEFAULT = SolverConfig()


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
        elapsed: seconds taken (translation and solving).
        reason: why the verdict is ``UNKNOWN`` (e.g. ``"timeout"``), else ``""``.

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

    names: tuple[dict[sympy.Symbol, str], ...]
    labels: dict[str, str] = field(default_factory=dict)  # variable name -> witness key


def _all_symbols(gs: "GuardSet") -> list[sympy.Symbol]:
    syms = set(gs.symbols) | {s for s, _ in gs.domain}
    return sorted(syms, key=lambda s: s.name)


def _pair(a: "GuardSet", b: "GuardSet | None") -> _Inputs:
    """Match symbols: first by equal sources, then by name when not both have sources."""
    src_a, names_a = a.source_map, {}
    labels: dict[str, str] = {}
    for sym in _all_symbols(a):
        names_a[sym] = sym.name
        labels[sym.name] = src_a[sym].text() if sym in src_a else sym.name
    if b is None:
        return _Inputs((names_a,), labels)
    src_b = b.source_map
    by_source = {src: sym for sym, src in a.sources}
    taken: set[sympy.Symbol] = set()
    names_b: dict[sympy.Symbol, str] = {}
    b_syms = _all_symbols(b)
    for sym in b_syms:
        partner = by_source.get(src_b.get(sym))
        if partner is not None:
            names_b[sym] = names_a[partner]
            taken.add(partner)
    a_by_name = {s.name: s for s in names_a}
    for sym in b_syms:
        partner = a_by_name.get(sym.name)
        if sym not in names_b and partner is not None and partner not in taken and not (partner in src_a and sym in src_b):
            names_b[sym] = sym.name
            taken.add(partner)
    used = set(names_a.values()) | set(names_b.values())
    for sym in b_syms:
        if sym in names_b:
            continue
        name = sym.name
        while name in used:
            name += "_other"
        names_b[sym] = name
        used.add(name)
        label = src_b[sym].text() if sym in src_b else sym.name
        labels[name] = label if label not in labels.values() else f"{label} (other)"
    return _Inputs((names_a, names_b), labels)


class _Query:
    """One solver over the inputs of one or two guard sets, with their domains asserted."""

    def __init__(self, sets: Sequence["GuardSet"], config: SolverConfig):
        self.sets = sets
        self.inputs = _pair(sets[0], sets[1] if len(sets) > 1 else None)
        self.translators = [Translator(names) for names in self.inputs.names]
        self.solver = Z3Solver(config)
        self.report = []
        for gs, t in zip(sets, self.translators):
            for sym, rng in gs.domain:
                if not rng.is_bool:
                    self.solver.add(t.in_range(sym, rng))
            self.report += [t.variable(s) for s in _all_symbols(gs)]

    def accepts(self, side: int):
        """The formula "set ``side`` accepts the inputs"."""
        t = self.translators[side]
        return conj(t.holds(g.expr) for g in self.sets[side].guards)

    def witness(self, outcome: SolverOutcome) -> tuple[dict[str, int], list[dict[sympy.Symbol, int]]]:
        values = dict(outcome.values)
        per_set = [{s: values[n] for s, n in names.items()} for names in self.inputs.names]
        return {self.inputs.labels[n]: v for n, v in sorted(values.items())}, per_set


def _sat_result(
    query: _Query, outcome: SolverOutcome, expect: Sequence[bool], start: float, accepted_by: str | None, flip: bool
) -> ProofResult:
    """Turn a check into a result; ``expect[i]`` is whether set ``i`` should accept a model."""
    yes, no = (Verdict.NO, Verdict.YES) if flip else (Verdict.YES, Verdict.NO)
    elapsed = time.perf_counter() - start
    if outcome.status is SatStatus.UNSAT:
        return ProofResult(no, elapsed=elapsed)
    if outcome.status is SatStatus.UNKNOWN:
        return ProofResult(Verdict.UNKNOWN, elapsed=elapsed, reason=outcome.reason)
    witness, per_set = query.witness(outcome)
    for gs, values, want in zip(query.sets, per_set, expect):
        if gs.holds(values) != want:  # see Note [Float division] in z3_translate
            return ProofResult(
                Verdict.UNKNOWN, elapsed=elapsed, reason=f"Z3's model {witness} does not re-check concretely"
            )
    other = per_set[1] if len(per_set) > 1 else None
    return ProofResult(yes, witness, per_set[0], other, accepted_by, elapsed)


# -- the questions ---------------------------------------------------------------------------------
def is_satisfiable(gs: "GuardSet", config: SolverConfig = _DEFAULT) -> ProofResult:
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


def _locally(a: "GuardSet", b: "GuardSet", config: SolverConfig, both_ways: bool) -> bool:
    """Whether ``a`` implies (and, with ``both_ways``, is implied by) ``b``, proven guard by guard.

    The fallback when one query over the whole sets runs out of time (see Note [Local premises]).
    """
    query = _Query([a, b], config)
    (names_a, names_b), (ta, tb) = query.inputs.names, query.translators
    domain: dict[str, ValueRanges] = {}
    for gs, names in ((a, names_a), (b, names_b)):
        for sym, rng in gs.domain:
            name = names[sym]
            domain[name] = domain[name] & rng if name in domain else rng
    exprs = [list(a.exprs), list(b.exprs)]
    ids = [{t.holds(e).get_id() for e in pool} for t, pool in zip((ta, tb), exprs)]
    hood = Neighbourhoods(exprs, [names_a.__getitem__, names_b.__getitem__])
    entailer = Entailer(domain, config, [ta, tb])
    deadline = time.perf_counter() + config.budget_ms / 1000
    directions = [(0, 1), (1, 0)] if both_ways else [(0, 1)]
    for premise_pool, goal_pool in directions:
        t = (ta, tb)[goal_pool]
        known = frozenset(k for k, e in enumerate(exprs[goal_pool]) if t.holds(e).get_id() in ids[premise_pool])
        goals = exprs[goal_pool]
        premises = exprs[premise_pool]
        if unproven_entailments(entailer, hood, premise_pool, premises, goal_pool, goals, known, deadline=deadline):
            return False
    return True


def implies(a: "GuardSet", b: "GuardSet", config: SolverConfig = _DEFAULT) -> ProofResult:
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
    if outcome.status is SatStatus.UNKNOWN and _locally(a, b, config, both_ways=False):
        return ProofResult(Verdict.YES, elapsed=time.perf_counter() - start)
    return _sat_result(query, outcome, [True, False], start, "self", flip=True)


def _difference(a: "GuardSet", b: "GuardSet", config: SolverConfig, flip: bool) -> ProofResult:
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
    if reason and not _locally(a, b, config, both_ways=True):
        return ProofResult(Verdict.UNKNOWN, elapsed=time.perf_counter() - start, reason=reason)
    return ProofResult(Verdict.YES if flip else Verdict.NO, elapsed=time.perf_counter() - start)


def equivalent(a: "GuardSet", b: "GuardSet", config: SolverConfig = _DEFAULT) -> ProofResult:
    """Whether ``a`` and ``b`` accept exactly the same inputs (within both domains).

    NO comes with an input accepted by one set only (``accepted_by`` says which).

    >>> from symint.build import symbol_expr, ge, gt
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> equivalent(GuardSet.of([ge(n, 5)]), GuardSet.of([gt(n, 4)])).verdict
    <Verdict.YES: 'yes'>
    """
    return _difference(a, b, config, flip=True)


def counterexample(a: "GuardSet", b: "GuardSet", config: SolverConfig = _DEFAULT) -> ProofResult:
    """An input accepted by one set and rejected by the other: YES (found), NO (equivalent) or UNKNOWN.

    >>> from symint.build import symbol_expr, ge
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> r = counterexample(GuardSet.of([ge(n, 5)]), GuardSet.of([ge(n, 6)]))
    >>> r.verdict, dict(r.witness), r.accepted_by
    (<Verdict.YES: 'yes'>, {'n': 5}, 'self')
    """
    return _difference(a, b, config, flip=False)


def overlap(a: "GuardSet", b: "GuardSet", config: SolverConfig = _DEFAULT) -> ProofResult:
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


def redundant(gs: "GuardSet", config: SolverConfig = _DEFAULT) -> tuple[Guard, ...]:
    """Guards implied by the other guards and the domain; all of them may be dropped together.

    Guards are tried last first, so of two equivalent guards the earlier is kept.
    A guard whose check times out is not reported (it is kept).

    >>> from symint.build import symbol_expr, ge, gt, or_
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> redundant(GuardSet.of([ge(n, 5), gt(n, 3), or_(ge(n, 5), gt(n, 100))]))
    (Guard(n > 3), Guard((n >= 5) | (n > 100)))
    """
    query = _Query([gs], config)
    formulas = [query.translators[0].holds(g.expr) for g in gs.guards]
    dropped, _ = implied_indices(query.solver, formulas)
    return tuple(g for i, g in enumerate(gs.guards) if i in dropped)


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
        config: the per-check timeout.
        translators: one :class:`Translator` per pool of guards (default: one shared by all),
            so that guards of two sets can be compared over their matched inputs.

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
    ):
        self.domain, self.config = domain, config
        self.translators = list(translators) if translators else [Translator()]
        self.checks = 0

    def _translator(self, pool: int) -> Translator:
        return self.translators[pool] if pool < len(self.translators) else self.translators[0]

    def entails(
        self, premises: Sequence[sympy.Basic], goal: sympy.Basic, premise_pool: int = 0, goal_pool: int = 0
    ) -> SolverOutcome:
        """``UNSAT`` when the premises (and the domain) imply ``goal``; ``SAT`` when they do not.

        Raises:
            SolverError: a guard cannot be translated to Z3.
        """
        tp, tg, solver = self._translator(premise_pool), self._translator(goal_pool), Z3Solver(self.config)
        variables = {tp.name(s): (tp, s) for p in premises for s in p.free_symbols}
        variables.update({tg.name(s): (tg, s) for s in goal.free_symbols})
        ranges = [(t, s, self.domain.get(name)) for name, (t, s) in sorted(variables.items())]
        solver.add(*(t.in_range(s, r) for t, s, r in ranges if r is not None and not r.is_bool))
        solver.add(*(tp.holds(p) for p in premises), negate(tg.holds(goal)))
        self.checks += 1
        return solver.check()


class Neighbourhoods:
    """Which guards of some pools share symbols, after mapping each symbol through ``contract``.

    ``contract`` maps a symbol to its class representative, so that ``Eq(s1, s0)`` and
    the guards on ``s0`` count as neighbours of the guards on ``s1``; it may also be a
    list with one function per pool (e.g. symbol -> Z3 variable name for two guard sets).

    >>> from symint.build import symbol_expr, lt
    >>> a, b, c = (symbol_expr(n) for n in "abc")
    >>> h = Neighbourhoods([[lt(a, b), lt(b, c), lt(c, 3)]])
    >>> sorted(h.pool_members(0, h.around(frozenset([a]), hops=2)))
    [0, 1]
    """

    def __init__(self, pools: Sequence[Sequence[sympy.Basic]], contract=None):
        contracts = contract if isinstance(contract, (list, tuple)) else [contract or (lambda s: s)] * len(pools)
        self.reps = [[frozenset(f(s) for s in e.free_symbols) for e in pool] for f, pool in zip(contracts, pools)]
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
    deadline: float | None = None,
) -> list[tuple[int, Verdict, str]]:
    """The goals (by index, except ``skip``) that the premises could not be shown to imply.

    Each goal is tried with growing sets of premises (see Note [Local premises]):
    ``seeds(goal)`` if given (e.g. the guards it was derived from), the one-hop and
    two-hop neighbourhoods when they have at most ``local_limit`` premises, then the
    whole connected group. ``NO`` means a counterexample exists even with the whole
    group; ``UNKNOWN`` that Z3 ran out of time. Once a goal fails, the other goals of
    its group are not tried (a caller keeps such a group as it was). Past ``deadline``
    (a ``time.perf_counter()`` value) the goals left are not tried and count as UNKNOWN.

    >>> from symint.build import symbol_expr, ge, gt
    >>> n = symbol_expr("n")
    >>> old, new = [ge(n, 5)], [gt(n, 4), gt(n, 5)]
    >>> unproven_entailments(Entailer({}), Neighbourhoods([old, new]), 0, old, 1, new)
    [(1, <Verdict.NO: 'no'>, 'n >= 5 do not imply n > 5')]
    """
    failures: list[tuple[int, Verdict, str]] = []
    failed_reps: set = set()
    for g in range(len(goals)):
        own = hood.reps[goal_pool][g]
        if g in skip or (own and own <= failed_reps):
            continue
        if deadline is not None and time.perf_counter() > deadline:
            failures.append((g, Verdict.UNKNOWN, f"ran out of the time budget before proving {goals[g]}"))
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
            shown = ", ".join(str(premises[i]) for i in tried[:5]) + (", ..." if len(tried) > 5 else "")
            what = "do not imply" if verdict is Verdict.NO else "were not shown to imply"
            failures.append((g, verdict, f"{shown or 'the domain'} {what} {goals[g]}"))
    return failures
