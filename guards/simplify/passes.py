"""Simplify a guard set into a smaller, canonical one that Z3 proves equivalent.

The passes, cheapest first:

1. split conjunctions into separate guards;
2. fold equalities into the facts engine (:class:`valueranges.facts.Facts`, through
   :mod:`guards.simplify.folding`): ``Eq(s1, s0)`` makes ``s0`` the representative of ``s1``
   (the natural-order least symbol of each class) and is kept as the equality;
   ``s1`` is replaced by ``s0`` everywhere else; a symbol whose range narrows to
   one value becomes that constant;
3. merge single-symbol linear bounds, ``!=`` constants and divisibility
   (``Eq(Mod(s, 8), 0)``) into one range per symbol, intersected with the domain,
   emitting only the bounds the domain and the divisibility do not already imply
   (``s0 >= 2``, ``s0 > 3``, ``s0 <= 100`` become ``s0 >= 4``, ``s0 <= 100``);
4. drop the remaining guards that the facts engine proves true from those facts (ranges,
   divisibility, case splits on max/min, its rewrites; ``Max(s0, s1 + 1) >= s0``);
5. drop what the guards kept so far imply: a bound implied by a definition
   ``Eq(s, expr)`` and the ranges of ``expr``, else whatever Z3 proves implied by
   the guards sharing its symbols (small problems, see Note [Local premises] in
   ``guards.solver.prove``; a guard that would need a large or slow proof is kept);
6. over symbols with small finite ranges, decide the guards by enumerating the points
   (:mod:`guards.simplify.finite_domain`): ranges shrink to what is admitted, a symbol with one
   value left is pinned, and only enough guards to exclude the rest are kept; when
   something got pinned, passes 2-5 run again (without Z3) to substitute it. It runs
   before pass 5's Z3 drops too (Note [Finite ranges before Z3]). Then order canonically:
   equalities, then bounds per symbol, then the rest (:func:`~guards.simplify.classify.form_order_key`,
   the order of the set ``produce_guards`` reduces);
7. prove that the result accepts exactly the inputs (within the domain) the input
   accepts (see Note [Proof of equivalence]); a group of interacting symbols whose
   proof fails or runs out of its limits keeps its original guards, and the report says so.
   A last Z3 check turns an unsatisfiable result into ``False``.

Passes 1-4 and 6 need no Z3 and are exact by construction: :func:`reduce_exact` runs
only them and the Z3-free drops of pass 5 (a bound implied by a definition and ranges;
the set ``produce_guards`` installs at once). Z3 work is bounded by counts
(see Note [Deterministic limits] in ``guards.solver.z3_solver``): each check by
``config.rlimit`` (``drop_rlimit`` in pass 5), pass 5 and pass 7 each by half of the
budget (``budget_rlimit``, ``max_checks``); pass 5 tries each candidate once, and what
the budget leaves untried is kept. The report says what was spent and what ran out.

Guards that may divide by zero (a symbolic divisor) are never rewritten, only kept
or dropped whole: see :func:`~guards.simplify.classify.may_raise`. Everything is deterministic:
the output does not depend on the order of the input guards. Every pass works on boolean
forms (Note [Simplification on forms]).

>>> from symint.build import symbol_expr, eq, ge, gt, le
>>> from guards import GuardSet, Source
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> gs = GuardSet.of([eq(s1, s0), ge(s1, 2), gt(s0, 3), le(s0, 100)],
...                  {s0: Source.size("x", 0), s1: Source.size("y", 0)})
>>> simplify(gs)
GuardSet(y.size()[0] == x.size()[0], x.size()[0] >= 4, x.size()[0] <= 100)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Mapping

from symint.lazy_sympy import sympy

from symint import form as F
from symint.build import symbol_expr
from symint.form import logic as B
from symint.form.logic import BoolForm
from valueranges import ValueRanges
from valueranges.facts.ranges import intersect

from guards.simplify.finite_domain import reduce_finite_forms
from guards.errors import SolverError
from guards.validate import need_config, need_guardset
from guards.guard import Guard, form_key
from guards.solver.prove import Entailer, Neighbourhoods, Verdict, unproven_entailments
from guards.simplify.classify import _Contradiction, _name_key, classify_form, conjuncts, form_order_key
from guards.simplify.folding import FoldedGuards, substitute_symbols
from guards.simplify.reduce_forms import join_origins
from guards.progress import Progress, progress as progress_of
from guards.solver.z3_solver import Budget, SatStatus, SolverConfig, Z3Context

from guards.protocols import GuardSetLike

__all__ = ["simplify", "simplify_with_report", "SimplifyReport", "reduce_exact"]

_DEFAULT = SolverConfig()
#: Neighbourhoods larger than this are not used to drop a guard (the guard is kept instead).
_LOCAL_LIMIT = 60
INF = math.inf


@dataclass(frozen=True, slots=True)
class SimplifyReport:
    """What :func:`simplify_with_report` did.

    Attributes:
        dropped: input guards that no longer appear in any form, each with why.
        rewritten: output guards that are not input guards, each with the input
            guards it replaces (merged bounds, equalities after substitution).
        named_substitutions: ``(symbol name, replacement form)`` pairs applied to the other
            guards (a replacement is a symbol or an integer); ``substitutions`` is their sympy view.
        proof: ``YES`` if the whole output was proven equivalent to the input;
            ``UNKNOWN`` (a proof timed out) or ``NO`` (a bug: the proof found a
            difference) if some group of guards was returned unsimplified.
        reverted: one message per group of guards returned unsimplified.
        z3_checks: how many Z3 checks ran.
        elapsed: seconds taken (informational: the output never depends on it).
        rlimit: Z3 resource units spent (deterministic).
        budget_exhausted: the drop pass or the proof ran out of its budget (what it
            could not try was kept as it was).
        safety_net: the wall-clock safety net fired (a check was cut short; the output
            is still proven, but may keep more than an unloaded run would).
    """

    dropped: tuple[tuple[Guard, str], ...] = ()
    rewritten: tuple[tuple[Guard, tuple[Guard, ...]], ...] = ()
    named_substitutions: tuple[tuple[str, "F.Form"], ...] = ()
    proof: Verdict = Verdict.YES
    reverted: tuple[str, ...] = ()
    z3_checks: int = 0
    elapsed: float = 0.0
    rlimit: int = 0
    budget_exhausted: bool = False
    safety_net: bool = False

    @property
    def substitutions(self) -> tuple[tuple[sympy.Symbol, sympy.Expr], ...]:
        """``(symbol, replacement)`` pairs: the sympy view of ``named_substitutions`` (built when read)."""
        return tuple((symbol_expr(s), _as_sympy(v)) for s, v in self.named_substitutions)

    def __str__(self) -> str:
        spent = f"{self.z3_checks} Z3 checks, {self.rlimit:,} rlimit units"
        if self.budget_exhausted:
            spent += " (budget exhausted)"
        if self.safety_net:
            spent += " (wall-clock safety net fired)"
        lines = [f"proof of equivalence: {self.proof.value}; {spent}; {self.elapsed * 1000:.1f} ms"]
        lines += [f"dropped {g.expr}: {why}" for g, why in self.dropped]
        lines += [f"{g.expr} replaces {', '.join(str(o.expr) for o in origins)}" for g, origins in self.rewritten]
        lines += [f"kept unsimplified: {msg}" for msg in self.reverted]
        return "\n".join(lines)


def simplify(gs: GuardSetLike, config: SolverConfig = _DEFAULT) -> GuardSetLike:
    """An equivalent, smaller guard set in canonical order (see the module docstring).

    >>> from symint.build import symbol_expr, eq, mod
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> simplify(GuardSet.of([eq(mod(n, 4), 0), eq(mod(n, 8), 0)]))
    GuardSet(Eq(Mod(n, 8), 0))
    """
    return simplify_with_report(gs, config)[0]


def simplify_with_report(
    gs: GuardSetLike, config: SolverConfig = _DEFAULT, progress: Progress | None = None
) -> tuple[GuardSetLike, SimplifyReport]:
    """Like :func:`simplify`, also returning a :class:`SimplifyReport`.

    ``progress`` (a :class:`~guards.progress.Progress`) is stepped once per guard tried in
    pass 5 and once per direction of the proof; it only displays, it never changes the result.

    >>> from symint.build import symbol_expr, ge, gt
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> out, report = simplify_with_report(GuardSet.of([ge(n, 2), gt(n, 3)]))
    >>> out, report.proof.value, [(str(g.expr), [str(o.expr) for o in gs]) for g, gs in report.rewritten]
    (GuardSet(n >= 4), 'yes', [('n >= 4', ['n >= 2', 'n > 3'])])
    """
    need_guardset(gs, "simplify_with_report's argument")  # typed errors for wrong arguments
    return _Simplifier(gs, need_config(config), progress).run()


def reduce_exact(gs: GuardSetLike) -> tuple[GuardSetLike, SimplifyReport]:
    """Passes 1-4 and 6 only (no Z3): an equivalent set, exact by construction.

    Duplicates and conjunctions split, equalities folded (one representative per class),
    one range per symbol with the bounds the domain and divisibility already imply left
    out (``x >= 4`` makes ``x >= 2`` go; ``Eq(Mod(x, 8), 0)`` makes ``Eq(Mod(x, 4), 0)`` go),
    guards that the facts engine proves true from those facts dropped, bounds that
    a definition ``Eq(s, expr)`` and the ranges of ``expr`` imply dropped, the guards over
    small finite ranges reduced by enumeration (Note [Reducing over finite ranges]),
    canonical order. When the cheap passes see a contradiction (which only Z3 may confirm), the
    input is returned unchanged. The report's ``proof`` is ``YES`` by construction
    (``z3_checks`` is 0).

    >>> from symint.build import symbol_expr, eq, ge, mod
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> reduce_exact(GuardSet.of([ge(n, 2), ge(n, 4), eq(mod(n, 4), 0), eq(mod(n, 8), 0)]))[0]
    GuardSet(n >= 8, Eq(Mod(n, 8), 0))
    """
    return _Simplifier(gs, SolverConfig()).run(use_z3=False)


# -- small helpers ---------------------------------------------------------------------------------


# Note [Proof of equivalence]
#     The result is proven equivalent to the input in two links. (1) Input <=> emitted: the
#     guards the cheap passes emitted (merged bounds, equalities, substituted guards) and
#     the input imply each other, checked goal by goal by Z3 or, where the other side's
#     equalities and bounds decide it, by the facts engine (``FoldedGuards.entails``,
#     the same reasoning that dropped the guard). (2) Emitted <=> result: the result is the
#     emitted guards minus those dropped in pass 5, and each was dropped only on a Z3 proof
#     (UNSAT) that the guards kept at that moment imply it, or on a definition and ranges
#     (``_defined_away``); by induction over the drops the result implies all of them.
#     Link (1) failing for a group of symbols keeps that group's input guards.

# Note [Finite ranges before Z3]
#     The finite pass (6) runs before the Z3 drops (5), on what the exact passes emitted, and
#     again on the result. Before, because Z3 may drop the bounds that make a symbol's range
#     finite, and which of two guards implying each other it drops depends on the order it
#     tries them in (the W1 guards tried in the structural order lose ``v4 <= 13``, implied
#     by the guards around it, and with it the finite range the eight pins come from). It is
#     exact and cheap, and what it pins or drops Z3 need not try. The bounds and exclusions it
#     states may still be dropped by Z3 like the bounds pass 3 emits; its pins are kept. The
#     proof (pass 7) compares the input with what it left, so its replacements are proven too.

# Note [Simplification on forms]
#     Every pass reads and builds boolean forms (what a Guard holds), symbols are named by
#     their names, and Z3 translates the forms (Note [Forms to Z3]): a run builds no sympy
#     expression for an integer guard set. Sympy appears only where forms wrap it (an opaque
#     float comparison), in the report's ``substitutions`` (symbols and integers, no views),
#     and when a report or a failure message is printed. The result is sorted by
#     :func:`~guards.simplify.classify.form_order_key`, the order of the reduced set.


def _definitions(forms: list[BoolForm], indices: list[int]) -> dict[str, list[tuple[int, str, "F.Form"]]]:
    """The guards ``Eq(s, expr)`` (``s`` not in ``expr``) among ``indices``, by the name of ``s``."""
    out: dict = {}
    for j in indices:
        e = forms[j]
        if e.kind == "rel" and e.args[0] == "==":
            _, lhs, rhs = e.args
            for side, expr in ((lhs, rhs), (rhs, lhs)):
                atom = side.atom()
                if atom is not None and atom.kind == "sym" and atom.name not in expr.symbols:
                    out.setdefault(atom.name, []).append((j, atom.name, expr))
    return out


def _as_sympy(value: "F.Form") -> sympy.Expr:
    """A substitution's value (a symbol or an integer) for the report, without building a view."""
    atom = value.atom()
    return symbol_expr(atom.name) if atom is not None and atom.kind == "sym" else sympy.Integer(value.const)


@dataclass(slots=True)
class _Emitted:
    """A guard of the result, with the input guards (by index) it stands for."""

    form: BoolForm
    origins: frozenset[int]
    candidate: bool = False  # may Z3 drop it as implied by the rest?
    dropped: bool = False


class _Simplifier:
    """One simplification run (all state is local to the run; Note [Simplification on forms])."""

    def __init__(self, gs: GuardSetLike, config: SolverConfig, progress: Progress | None = None):
        self.gs, self.config, self.progress = gs, config, progress
        self.domain: dict[str, ValueRanges] = dict(gs.named_domain)
        self.start = time.perf_counter()
        self.checks = 0
        self._context: Z3Context | None = None
        # Two deterministic budgets (Note [Deterministic limits]): the optional drops must
        # never starve the proof that makes the result trustworthy.
        self.drop_budget = Budget.of(config, share=2)
        self.proof_budget = Budget.of(config, share=2)
        self._extra_rlimit, self._extra_safety = 0, False  # the final satisfiability check's own budget

    @property
    def context(self) -> Z3Context:
        """This run's own Z3 context (created on first use)."""
        if self._context is None:
            self._context = Z3Context()
        return self._context

    def _entailer(self, domain: Mapping[str, ValueRanges], budget: Budget, rlimit: int | None = None) -> Entailer:
        return Entailer(domain, self.config, context=self.context, budget=budget, rlimit=rlimit)

    def run(self, use_z3: bool = True) -> tuple[GuardSetLike, SimplifyReport]:
        items = [(c, i) for i, g in enumerate(self.gs.guards) for c in conjuncts(g.form)]
        self.mapping: dict[str, F.Form] = {}
        self.reasons: dict[int, str] = {}
        try:
            facts = self.facts = FoldedGuards(self.domain, items)
            self.mapping, self.reasons = facts.mapping, facts.reasons
            emitted = self._emit(facts)
            if not use_z3:
                self._drop_implied(emitted, use_z3=False)
                return self._assemble(self._settle([e for e in emitted if not e.dropped]), Verdict.YES, ())
            emitted = self._settle(emitted)  # exact: Note [Finite ranges before Z3]
            self._drop_implied(emitted)
        except _Contradiction as exc:
            if not use_z3:
                return self.gs, self._report(proof=Verdict.YES, reverted=("the guards look contradictory; kept as they are",))
            return self._contradiction(exc.origins)
        return self._finish(emitted)

    # -- emitting the simplified guards --------------------------------------------------------
    def _emit(self, facts: FoldedGuards) -> list[_Emitted]:
        out: list[_Emitted] = []
        for root, ms in facts.members.items():
            origins = frozenset(facts.class_origins.get(root, ()))
            if root in facts.const:
                value = F.const(facts.const[root])
                out += [_Emitted(B.rel("==", F.sym(m), value), origins) for m in ms]
            else:
                out += [_Emitted(B.rel("==", F.sym(m), F.sym(root)), origins) for m in ms if m != root]
        for s in sorted(facts.facts, key=_name_key):
            out += self._emit_bounds(s, facts.facts[s])
        for e, origins in facts.others.values():
            # the facts engine: ranges, divisibility (T % (T // 4) with 4 | T and T >= 4), cases, rewrites
            known = facts.decide(e, search=False)
            if known is False:  # never True when it does not raise, so it never holds
                raise _Contradiction(origins)
            if known is True:
                self.reasons.update((o, "implied by the ranges of its symbols and the other facts") for o in origins)
                continue
            out.append(_Emitted(e, frozenset(origins), True))
        return out

    def _emit_bounds(self, s: str, fs: list) -> list[_Emitted]:
        """The fewest bound guards that, with the baseline, pin ``s`` to exactly its facts' range."""
        lo, hi, _ = self.facts.range_of(s)
        base_lo, base_hi = self.facts.baseline(s)
        mods = sorted({v for k, v, _ in fs if k == "div" and v != 1})
        keep_mods = [m for m in mods if not any(o != m and o % m == 0 for o in mods)]
        step = math.lcm(1, *keep_mods)

        def origins(pick) -> frozenset[int]:
            return frozenset(o for k, v, o in fs if pick(k, v))

        base_lo, base_hi = intersect(s, (base_lo, base_hi), -INF, INF, step)  # rounded to the step
        x = F.sym(s)
        out: list[_Emitted] = []
        if lo > base_lo:
            out.append(_Emitted(B.rel(">=", x, F.const(int(lo))), origins(lambda k, v: k == "lower" or (k == "ne" and v < lo)), True))
        if hi < base_hi:
            out.append(_Emitted(B.rel("<=", x, F.const(int(hi))), origins(lambda k, v: k == "upper" or (k == "ne" and v > hi)), True))
        for c in sorted({v for k, v, _ in fs if k == "ne" and lo < v < hi and v % step == 0}):
            out.append(_Emitted(B.rel("!=", x, F.const(c)), origins(lambda k, v: k == "ne" and v == c), True))
        for m in keep_mods:
            out.append(_Emitted(B.rel("==", F.mod(x, F.const(m)), F.const(0)), origins(lambda k, v: k == "div" and v == m), True))
        used = set().union(*(e.origins for e in out)) if out else set()
        self.reasons.update((o, f"implied by the domain and the other facts about {s}") for _, _, o in fs if o not in used)
        return out

    # -- Z3 ------------------------------------------------------------------------------------
    def _z3_domain(self) -> dict[str, ValueRanges]:
        # Baselines (implied by the domain and the kept equalities) are safe background facts;
        # the narrowed ranges are not: they would let a bound guard justify its own removal.
        reps = set(self.facts.members) | set(self.facts.facts)
        return {**self.domain, **{r: ValueRanges.of(*self.facts.baseline(r)) for r in reps}}

    def _drop_implied(self, emitted: list[_Emitted], use_z3: bool = True) -> None:
        """Pass 5: drop each candidate that the still-kept guards around it imply (Z3, local premises).

        General guards are tried before bounds, each kind last first, so that of two guards
        implying each other the bound and the earlier one survive. A bound is tried only if
        its symbol appears in a general guard (bounds alone were already merged exactly).
        Each candidate is judged against the guards kept at that moment, so everything
        dropped is implied by what remains. Premises are the guards over the candidate's
        symbols only, then its one-hop neighbourhood if that is small (see Note [Local premises]);
        a candidate that would need more is kept. Without ``use_z3`` only definitions and
        ranges drop guards (exact interval reasoning).
        """
        forms = [e.form for e in emitted]
        keys = [form_order_key(f) for f in forms]
        hood = Neighbourhoods([forms], self.facts.find)
        active = {i for i, e in enumerate(emitted) if not e.dropped}  # the guards kept so far
        general = [i for i in sorted(active) if emitted[i].candidate and keys[i][0] != 2]
        simple = {i for i in active if keys[i][0] in (0, 2)}
        linked = frozenset().union(*(hood.reps[0][i] for i in general))
        bounds = [i for i in sorted(active) if emitted[i].candidate and i not in general and hood.reps[0][i] <= linked]
        order = sorted(general, key=keys.__getitem__, reverse=True)
        order += sorted(bounds, key=keys.__getitem__, reverse=True)
        config = self.config
        if config.drop_timeout_ms is not None:  # deprecated: only a tighter safety net per drop check
            config = replace(config, timeout_ms=min(config.timeout_ms, config.drop_timeout_ms))
        entailer = None
        definitions = _definitions(forms, general)
        loose: set[str] = set()  # symbols that lost a bound guard in this pass
        self.progress = bar = progress_of(self.progress, total=len(order) + 2)
        for i in order:
            bar.step()
            if not self.drop_budget.allows():  # out of budget: the candidates left are kept
                break
            because = self._defined_away(forms[i], definitions, active, loose)
            if because is not None:
                why = "implied by the definition of its symbol and the ranges"
            elif not use_z3:
                continue
            else:
                if entailer is None:
                    entailer = self._entailer(self._z3_domain(), self.drop_budget, config.drop_rlimit)
                    entailer.config = config
                because = self._implied_by(entailer, hood, forms, i, active, bounded=i in bounds, simple=simple)
                if because is None:
                    continue
                why = "implied by the other guards (Z3)"
            active.discard(i)
            if i in bounds:
                loose |= hood.reps[0][i]
            self.reasons.update((o, why) for o in emitted[i].origins)
            emitted[i].dropped = True
        self.checks += entailer.checks if entailer is not None else 0

    def _implied_by(self, entailer, hood, forms, i, active, bounded: bool, simple: set) -> tuple[int, ...] | None:
        """The premises (indices) with which Z3 proved guard ``i`` implied, or None."""
        own = hood.reps[0][i]
        around = [j for j in hood.pool_members(0, own, skip=i) if j in active]
        inner = [j for j in around if hood.reps[0][j] <= own]
        tried: list[int] = []
        for chosen in (inner, around if len(around) <= _LOCAL_LIMIT else []):
            # Bounds and equalities alone cannot imply a bound: the ranges are already merged exactly.
            if chosen == tried or not chosen or (bounded and all(j in simple for j in chosen)):
                continue
            tried = chosen
            try:
                outcome = entailer.entails([forms[j] for j in chosen], forms[i])
            except SolverError:
                return None  # an untranslatable guard: keep it
            if outcome.status is SatStatus.UNSAT:
                return tuple(chosen)
            if outcome.status is SatStatus.UNKNOWN:
                return None  # more premises would make it harder still
        return None

    def _defined_away(self, e: BoolForm, definitions: dict, active: set[int], loose: set) -> tuple[int] | None:
        """Whether a bound on ``s`` follows from a kept ``Eq(s, expr)`` and the facts about ``expr``'s symbols.

        Catches ``s9 >= 64`` and ``Eq(Mod(s9, 16), 0)`` given ``Eq(s9, 16*s1*s2)`` without Z3.
        Facts about symbols that lost a bound guard in this pass are not used: that guard
        may have been dropped on the strength of the very bound now being judged. The other
        facts are the ranges, divisors and equalities of the kept guards (the engine of
        :class:`FoldedGuards` learns no other guard), so what they decide is implied by
        the guards kept.
        """
        k = classify_form(e)
        for j, s, expr in definitions.get(k.sym, ()) if k.kind in ("lower", "upper", "ne", "div") else ():
            if j not in active or expr.symbols & loose:
                continue
            try:
                goal = substitute_symbols(e, {s: expr}, {})
            except ZeroDivisionError:
                continue
            if self.facts.decide(goal, search=False) is True:
                return (j,)
        return None

    def _finish(self, emitted: list[_Emitted]) -> tuple[GuardSetLike, SimplifyReport]:
        """Pass 7: prove the input and the emitted guards imply each other (see Note [Proof of equivalence]).

        Goals that the other side's equalities and bounds already imply (``FoldedGuards.entails``
        of that side's guards) need no Z3; the others are tried first with the guards they were derived from,
        then with growing neighbourhoods (see Note [Local premises]). A group of
        interacting symbols with a goal left unproven keeps its original guards.
        """
        old = [g.form for g in self.gs.guards]
        new = [e.form for e in emitted]
        hood = Neighbourhoods([old, new], self.facts.find)
        seeds_new, seeds_old = self._seeds(emitted, hood)
        entailer = self._entailer(self.domain, self.proof_budget)
        old_set, new_set = {form_key(f) for f in old}, {form_key(f) for f in new}
        failures: list[tuple[int, int, Verdict, str]] = []
        emitted_facts: list[FoldedGuards] = []

        def emitted_entail(goal: BoolForm) -> bool:  # the emitted guards' own facts (the finite pass pins what the input's do not)
            if self.facts.entails(goal):  # the input's facts: the emitted guards imply them (they were emitted from them)
                return True
            if not emitted_facts:
                try:
                    emitted_facts.append(FoldedGuards(self.domain, [(c, k) for k, f in enumerate(new) for c in conjuncts(f)]))
                except _Contradiction:
                    emitted_facts.append(self.facts)  # implied by the emitted guards too (they imply what they came from)
            return emitted_facts[0].entails(goal)

        plan = ((1, new, old, old_set, self.facts.entails, seeds_new), (0, old, new, new_set, emitted_entail, seeds_old))
        for goal_pool, goals, premises, known, entailed, seeds in plan:
            skip = frozenset(k for k, e in enumerate(goals) if form_key(e) in known or entailed(e))
            try:
                found = unproven_entailments(
                    entailer, hood, 1 - goal_pool, premises, goal_pool, goals, skip, seeds
                )
            except SolverError as exc:
                found = [(k, Verdict.UNKNOWN, str(exc)) for k in range(len(goals)) if k not in skip]
            failures += [(goal_pool, k, verdict, why) for k, verdict, why in found]
            progress_of(self.progress).step(note="proof")
        self.checks += entailer.checks
        reverted_reps: set = set()
        messages, verdicts = [], []
        for pool, k, verdict, why in failures:
            reps = hood.reps[pool][k]
            if not reps <= reverted_reps or not reps:
                reverted_reps |= hood.around(reps, None)
                messages.append(why)
                verdicts.append(verdict)
        proof = Verdict.NO if Verdict.NO in verdicts else Verdict.UNKNOWN if verdicts else Verdict.YES
        keep = [e for k, e in enumerate(emitted) if not e.dropped and not hood.reps[1][k] & reverted_reps]
        back = [i for i in range(len(old)) if hood.reps[0][i] & reverted_reps]
        if verdicts and len(back) == len(old):  # nothing proven: return the input exactly as it was
            return self.gs, self._report(proof=proof, reverted=tuple(messages))
        keep += [_Emitted(old[i], frozenset([i])) for i in back]
        if self._unsatisfiable([e.form for e in keep]):  # equivalent to the input, so the input is too
            return self._false("the guards contradict each other (Z3)")
        # the finite pass ran before the drops (which leave the admitted points as they were): again only for what came back
        return self._assemble(self._settle(keep) if back else keep, proof, tuple(messages))

    def _unsatisfiable(self, forms: list[BoolForm]) -> bool:
        """One last check: contradictions the cheap passes cannot see (``Eq(Mod(s, 4), 1)``, ``Eq(Mod(s, 2), 0)``)."""
        entailer = self._entailer(self.domain, Budget(self.config.rlimit, 1))
        try:
            unsat = entailer.entails(forms, B.FALSE).status is SatStatus.UNSAT
        except SolverError:
            unsat = False
        self.checks += entailer.checks
        self._extra_rlimit += entailer.budget.spent
        self._extra_safety |= entailer.budget.safety_net > 0
        return unsat

    def _seeds(self, emitted: list[_Emitted], hood: Neighbourhoods):
        """First premises to try in the proof: the guards each goal was derived from."""
        by_origin: dict[int, list[int]] = {}
        for k, e in enumerate(emitted):
            for o in e.origins:
                by_origin.setdefault(o, []).append(k)
        simple_by_rep: dict[str, list[int]] = {}  # emitted equalities and bounds, by representative
        for k, e in enumerate(emitted):
            if form_order_key(e.form)[0] in (0, 2):
                for r in hood.reps[1][k]:
                    simple_by_rep.setdefault(r, []).append(k)

        def for_new_goal(k: int) -> list[int]:  # premises among the input guards
            found = set(emitted[k].origins)
            for r in hood.reps[1][k]:
                found |= self.facts.class_origins.get(r, set())
            return sorted(found)

        def for_old_goal(o: int) -> list[int]:  # premises among the emitted guards
            found = set(by_origin.get(o, ()))
            for r in set(hood.reps[0][o]).union(*(hood.reps[1][k] for k in found)):
                found.update(simple_by_rep.get(r, ()))
            return sorted(found)

        return for_new_goal, for_old_goal

    # -- results -------------------------------------------------------------------------------
    def _contradiction(self, origins: frozenset[int]) -> tuple[GuardSetLike, SimplifyReport]:
        """The cheap passes found the guards inconsistent: return ``False`` if Z3 agrees."""
        old = [g.form for g in self.gs.guards]
        hood = Neighbourhoods([old])
        entailer = self._entailer(self.domain, self.proof_budget)
        tried: list[list[int]] = []
        proven = False
        for o in sorted(origins):
            group = hood.pool_members(0, hood.around(hood.reps[0][o], None))
            if group in tried:
                continue
            tried.append(group)
            try:
                proven = entailer.entails([old[i] for i in group], B.FALSE).status is SatStatus.UNSAT
            except SolverError:
                continue
            if proven:
                break
        self.checks += entailer.checks
        if not proven:
            why = "the guards look contradictory but Z3 could not confirm it"
            return self.gs, self._report(proof=Verdict.UNKNOWN, reverted=(why,))
        return self._false("the guards contradict each other")

    def _false(self, why: str) -> tuple[GuardSetLike, SimplifyReport]:
        dropped = tuple((g, why) for g in self.gs.guards)
        return self.gs.with_guards([Guard.of(B.FALSE, f"simplify: {why}")]), self._report(dropped=dropped)

    def _assemble(
        self, keep: list[_Emitted], proof: Verdict, reverted: tuple[str, ...]
    ) -> tuple[GuardSetLike, SimplifyReport]:
        old = list(self.gs.guards)
        keep = sorted(keep, key=lambda e: form_order_key(e.form))  # the order of the reduced set
        by_key = {g.key: g for g in old}
        guards, rewritten = [], []
        for e in keep:
            found = by_key.get(form_key(e.form))
            if found is not None:
                guards.append(found)
                continue
            sources = [old[i] for i in sorted(e.origins)]
            g = Guard.of(e.form, join_origins(g.why for g in sources))  # provenance built when read
            guards.append(g)
            rewritten.append((g, tuple(sources)))
        kept_keys = {form_key(e.form) for e in keep}
        represented = set().union(*(e.origins for e in keep))
        represented |= {i for i, g in enumerate(old) if g.key in kept_keys}
        why = self.reasons.get
        dropped = tuple((g, why(i, "implied by the other guards")) for i, g in enumerate(old) if i not in represented)
        report = self._report(dropped=dropped, rewritten=tuple(rewritten), proof=proof, reverted=reverted)
        return self.gs.with_guards(guards), report

    def _settle(self, keep: list[_Emitted], rounds: int = 3) -> list[_Emitted]:
        """Pass 6a, then the cheap passes again while it pins new symbols (a bounded number of rounds).

        A symbol the finite pass pins (``Eq(s, 5)``) is substituted into the guards that
        also mention unbounded symbols, which often become plain bounds to merge. Every
        step is exact, so the result stays equivalent to what it started from.
        """
        for _ in range(rounds):
            reduced = self._finite_pass(keep)
            before = {form_key(e.form) for e in keep}
            pinned = [e for e in reduced if form_key(e.form) not in before]
            if not any(classify_form(e.form).kind == "exact" for e in pinned) or not all(e.origins for e in reduced):
                return reduced
            items = [(e.form, o) for e in reduced for o in sorted(e.origins)]
            try:
                facts = FoldedGuards(self.domain, items)
            except _Contradiction:
                return reduced
            previous = self.facts
            self.facts = facts
            self.mapping = {**self.mapping, **facts.mapping}
            emitted = self._emit(facts)
            self._drop_implied(emitted, use_z3=False)
            self.facts = previous
            self.reasons.update(facts.reasons)
            keep = [e for e in emitted if not e.dropped]
        return self._finite_pass(keep)

    def _finite_pass(self, keep: list[_Emitted]) -> list[_Emitted]:
        """Pass 6a: the guards over small finite ranges, reduced by enumeration (exact; Note [Reducing over finite ranges])."""
        ranges = {s: (r.lower, r.upper) for s, r in self.domain.items() if not r.is_bool}
        result = reduce_finite_forms([e.form for e in keep], ranges)
        if not result.dropped and not result.added:
            return keep
        by_key = {form_key(e.form): e for e in keep}
        note = f"implied within the finite ranges of its symbols ({result.points} points enumerated)"
        for k in result.dropped:
            self.reasons.update((o, note) for o in keep[k].origins)
        out = []
        added = {form_key(f): indices for f, indices in result.added}
        for f in result.forms:
            key = form_key(f)
            found = by_key.get(key)
            if found is None:
                origins = frozenset().union(*(keep[k].origins for k in added[key]))
                found = _Emitted(f, origins, classify_form(f).kind != "exact")  # a pin is kept, as pass 3 keeps one
            out.append(found)
        return out

    def _report(self, **fields) -> SimplifyReport:
        subs = tuple(sorted(self.mapping.items(), key=lambda kv: _name_key(kv[0])))
        budgets = (self.drop_budget, self.proof_budget)
        return SimplifyReport(
            named_substitutions=subs, z3_checks=self.checks, elapsed=time.perf_counter() - self.start,
            rlimit=sum(b.spent for b in budgets) + self._extra_rlimit,
            budget_exhausted=any(b.exhausted for b in budgets),
            safety_net=any(b.safety_net for b in budgets) or self._extra_safety, **fields,
        )
