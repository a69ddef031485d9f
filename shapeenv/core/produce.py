"""``produce_guards``: the recorded decisions of a trace as a :class:`guards.GuardSet` over input sources.

Note [What goes into the produced guard set]
    The set must accept exactly the inputs on which re-tracing would take the same
    decisions, assuming the runtime asserts hold (they are checked when the program
    runs, so they never cause a recompile). It is therefore built from:

    * each source pinned to a constant (0/1 specialisation, STATIC dims);
    * equalities between sources that share a symbol (duck sizing);
    * each symbol's *initial* range (``2 <= x.size()[0]``, declared ``min``/``max``);
    * every recorded guard, as it was recorded.

    Facts learned from runtime asserts are deliberately absent: including them would
    turn an assert into a guard. A symbol eliminated by a guard still stands for its
    own source; the guard that eliminated it (``Eq(s1, s0)``) is in the set.

Note [Reducing the produced guard set]
    The raw set above is exact but long: most guards recorded early are implied by
    later ones. We re-learn the raw set, and only it, into a fresh :class:`Facts`
    (so no assert leaks in), then emit what it concluded explicitly: one equality per
    replacement, each symbol's final range, each divisibility fact. Every one of these
    is a consequence of the raw guards. A recorded guard that these explicit facts
    decide (by replacements, divisibility and interval bounds) is dropped; the rest
    are kept in their simplified form. :func:`guards.simplify.passes.reduce_exact` then merges
    bounds, folds divisibility and drops what intervals decide, without Z3. The result
    is equivalent to the raw set by construction and is what ``produce_guards`` returns
    at once; ``GuardSet.simplify`` removes what Z3 finds implied and proves that step
    equivalent, off the critical path (see Note [Deferred simplification] in
    :mod:`shapeenv.core.deferred`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy

from guards import Guard, GuardSet, ProofResult, SolverConfig, Source
from guards.simplify.passes import canonical_order, reduce_exact
from symint import build
from symint import form as F

from .deferred import ProducedGuards
from valueranges.facts import Facts
from valueranges.facts.monotone import as_bound

from .provenance import bool_form_of

if TYPE_CHECKING:  # pragma: no cover
    from .state import SymbolTable

__all__ = [
    "produce_guards",
    "produce_guards_deferred",
    "produce_guards_with_report",
    "reduced_guards",
    "raw_guards",
    "ProduceReport",
    "source_symbols",
]


def source_symbols(env: "SymbolTable") -> tuple[dict[sympy.Symbol, Source], list[Guard]]:
    """A symbol for every input source, and the guards tying extra and pinned sources to them."""
    sources, ties, pins = _sources_ties_pins(env)
    return sources, ties + pins


def _sources_ties_pins(env: "SymbolTable") -> tuple[dict[sympy.Symbol, Source], list[Guard], list[Guard]]:
    """:func:`source_symbols` with the pins of specialised sources apart (``p3 == 16``: a fresh symbol each)."""
    sources: dict[sympy.Symbol, Source] = {}
    ties: list[Guard] = []
    pins: list[Guard] = []
    for sym, info in env.symbols.items():
        if not info.sources:
            continue
        sources[sym] = info.sources[0]
        for k, extra in enumerate(info.sources[1:], start=1):
            alias = build.symbol_expr(f"{sym.name}_{k}")
            sources[alias] = extra
            ties.append(Guard.of(F.rel("==", F.sym(alias.name), F.sym(sym.name)), f"{extra.text()} was duck-sized to {info.sources[0].text()}"))
    for k, (source, value) in enumerate(env.specialized.items()):
        pin = build.symbol_expr(f"p{k}")
        sources[pin] = source
        pins.append(Guard.of(F.rel("==", F.sym(pin.name), F.const(int(value))), f"{source.text()} was specialised to {value}"))
    return sources, ties, pins


def _range_guards(env: "SymbolTable") -> list[Guard]:
    out = []
    for sym, info in env.symbols.items():
        rng = info.initial_range
        if not info.sources or rng is None:
            continue
        floor = 0 if info.sources[0].is_size_like else -math.inf
        if rng.lower > floor:
            out.append(Guard.of(F.rel("<=", F.const(int(rng.lower)), F.sym(sym.name)), f"the initial range of {sym} is {rng}"))
        if rng.upper != math.inf:
            out.append(Guard.of(F.rel("<=", F.sym(sym.name), F.const(int(rng.upper))), f"the initial range of {sym} is {rng}"))
    return out


def _form_of(record):
    return bool_form_of(record.form)


def _initial_facts(env: "SymbolTable") -> Facts:
    facts = Facts(rank=env.elimination_rank)
    for sym, info in env.symbols.items():
        if info.sources and info.initial_range is not None:
            facts.set_range(sym, info.initial_range)
    return facts


def _guard_facts(env: "SymbolTable") -> tuple[Facts, dict[sympy.Symbol, list[str]]]:
    """What the initial ranges and the recorded guards imply, and nothing else (no asserts).

    Also returns, per symbol, the provenance of the guards that changed what is known of it.
    """
    facts = _initial_facts(env)
    causes: dict[sympy.Symbol, list[str]] = {}
    for sym, info in env.symbols.items():
        if info.sources and info.initial_range is not None:
            causes[sym] = [f"the initial range of {info.sources[0].text()}"]
    after = facts.symbol_facts()
    for record in env.guards:
        version = facts.version
        before = after
        facts.learn_form(_form_of(record), consistent=True)  # guards hold for the hints, as the ranges do
        if facts.version == version:  # nothing learned (the version counts every change): ``after`` stands
            continue
        after = facts.symbol_facts()
        changed = set()
        for old, new in zip(before, after):
            for name in new.keys() | old.keys():
                if old.get(name) != new.get(name):
                    changed.add(name)
        text = None  # printed once per guard, however many symbols it changed (a sympy print is the cost)
        for name in sorted(changed):
            if text is None:
                text = f"{record.expr} at {record.provenance.user_frame or '<unknown>'}"
            causes.setdefault(build.symbol_expr(name), []).append(text)
    return facts, causes


def _explicit_facts(env: "SymbolTable", facts: Facts, causes: dict[sympy.Symbol, list[str]]) -> list[Guard]:
    out = []
    _, replacements, divisors = facts.symbol_facts()
    for sym, info in env.symbols.items():
        if not info.sources:
            continue
        why = "; ".join(dict.fromkeys(causes.get(sym, [])))
        s = F.sym(sym.name)
        value = replacements.get(sym.name)
        if value is not None:
            out.append(Guard.of(F.rel("==", s, value), f"{sym} = {value.sympy()} from: {why}"))
            if value.is_const:
                continue
        rng = facts.ranges.get(sym)
        floor = 0 if info.sources[0].is_size_like else -math.inf
        if rng is not None and rng.lower > floor:
            out.append(Guard.of(F.rel("<=", F.const(int(rng.lower)), s), f"{sym} in {rng} from: {why}"))
        if rng is not None and rng.upper != math.inf:
            out.append(Guard.of(F.rel("<=", s, F.const(int(rng.upper))), f"{sym} in {rng} from: {why}"))
        for k in sorted(divisors.get(sym.name, ())):
            out.append(Guard.of(F.rel("==", F.mod(s, F.const(k)), F.const(0)), f"{sym} divisible by {k} from: {why}"))
    return out


def _as_bound(env: "SymbolTable", facts: Facts, form):
    """A single-symbol guard monotone in its symbol, as the equivalent bound (see :mod:`valueranges.facts.monotone`)."""
    if len(form.symbols) != 1:
        return form
    (name,) = form.symbols
    sym = build.symbol_expr(name)
    info = env.symbols.get(sym)
    rng = facts.ranges.get(sym)
    if info is None or info.hint is None or rng is None:
        return form
    bound_ = as_bound(form, name, rng.lower, rng.upper, info.hint)
    return form if bound_ is None else bound_


def reduce_guards(env: "SymbolTable") -> list[Guard]:
    """The recorded guards as explicit facts plus those not implied by them (Note [Reducing the produced guard set]).

    The recorded guards are then visited newest first (later guards are usually the
    stronger ones) and one is kept only if the explicit facts plus the guards kept so far
    do not already decide it: every dropped guard is implied by what is kept, and what is
    kept is implied by the recorded guards, so the set stays exact.
    """
    facts, causes = _guard_facts(env)
    explicit = _explicit_facts(env, facts, causes)
    kept_facts = _initial_facts(env)
    for g in explicit:
        kept_facts.learn(g.expr)
    kept = []
    for record in reversed(env.guards):
        form = facts.simplify_bool(_form_of(record))
        # every guard and fact here holds for the hints: only "implied" is worth searching for
        if form.kind == "const" or kept_facts.decide(form, expect=True) is True:
            continue
        kept_facts.learn_form(form, consistent=True)
        e = _as_bound(env, facts, form)
        if e is not F.TRUE:
            kept.append(Guard.of(e, str(record.provenance)))
    kept.reverse()
    return explicit + kept


def raw_guards(env: "SymbolTable") -> GuardSet:
    """The unreduced guard set (see Note [What goes into the produced guard set])."""
    sources, ties = source_symbols(env)
    recorded = [Guard.of(_form_of(r), str(r.provenance)) for r in env.guards]
    return GuardSet.of(ties + _range_guards(env) + recorded, sources)


def reduced_guards(env: "SymbolTable") -> GuardSet:
    """The exact reduced set, without Z3 (see Note [Reducing the produced guard set]).

    Note [Pins skip the reducer]
        A specialised source (a static dim, a parameter's size or stride) is pinned by
        ``p3 == 16`` over a symbol of its own that no other guard mentions: no other guard
        implies it or is simplified by it, and ``reduce_exact`` keeps it as it is. Models
        have hundreds (every parameter's sizes), so they skip the reducer and join its
        output in its canonical order: the same set, in the same order, at a fraction of
        the cost (resnet18: 0.13 -> 0.04 s under load).
    """
    sources, ties, pins = _sources_ties_pins(env)
    reduced = GuardSet.of(ties + reduce_guards(env), sources)
    reduced = reduce_exact(reduced)[0] if len(reduced) else reduced
    return reduced.with_guards(canonical_order([*pins, *reduced.guards])) if pins else reduced


def produce_guards(env: "SymbolTable", *, simplify: bool = True, wait: bool = False) -> GuardSet:
    """The guard set of ``env`` (see the Notes above) without waiting for Z3.

    ``simplify=False`` gives the raw set; the default, the exact reduced set (no Z3);
    ``wait=True`` the Z3-simplified set, proven equivalent (computed here, so this waits).
    :func:`produce_guards_deferred` gives the reduced set at once and the simplified one
    when a worker has proven it.
    """
    if not simplify:
        return raw_guards(env)
    reduced = reduced_guards(env)
    if not wait:
        return reduced
    return ProducedGuards(reduced, background=False).wait()


def produce_guards_deferred(
    env: "SymbolTable", config: SolverConfig | None = None, *, background: bool | None = None
) -> ProducedGuards:
    """A :class:`~shapeenv.core.deferred.ProducedGuards`: the reduced set now, the Z3-simplified one when proven.

    ``background`` (default: the env's ``simplify_in_background`` setting) starts the
    simplification in a worker thread now; otherwise the first ``wait()`` runs it.
    """
    if background is None:
        background = env.settings.simplify_in_background
    reduced = reduced_guards(env)
    return ProducedGuards(reduced, config, background=background)


@dataclass(frozen=True, slots=True)
class ProduceReport:
    """The produced guard set next to the raw one, and Z3's verdict on their equivalence.

    Attributes:
        raw: every recorded guard with the pins, ties and initial ranges.
        produced: the Z3-simplified set (``produce_guards(wait=True)``).
        proof: ``raw.equivalent(produced)``; YES is a proof, UNKNOWN means Z3 ran out of
            its limits (the reduction is exact by construction; the proof is a second check).
        reduced: the exact reduced set ``produce_guards()`` returns at once.
    """

    raw: GuardSet
    produced: GuardSet
    proof: ProofResult
    reduced: GuardSet | None = None


def produce_guards_with_report(env: "SymbolTable", config: SolverConfig | None = None) -> ProduceReport:
    """The simplified produced set plus a Z3 proof that it accepts exactly what the raw set accepts."""
    raw, reduced = raw_guards(env), reduced_guards(env)
    produced = ProducedGuards(reduced, background=False).wait()
    proof = raw.equivalent(produced, config or SolverConfig(rlimit=2_000_000))
    return ProduceReport(raw, produced, proof, reduced)
