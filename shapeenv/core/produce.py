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
    later ones. It is reduced once, on forms, by :mod:`guards.simplify.reduce_forms`
    (Note [One reduction on forms]): the recorded guards, and only they, are re-learnt
    into a fresh :class:`~valueranges.facts.Facts` from the initial ranges (so no assert
    leaks in), which concludes per symbol a replacement, a range and divisors, stated
    explicitly; the recorded guards these do not decide are kept, simplified; the guards
    over small finite ranges are reduced by enumeration. The result is equivalent to the
    raw set by construction and is what ``produce_guards`` returns at once, without
    building or printing a sympy expression (provenance is built when read);
    ``GuardSet.simplify`` removes what Z3 finds implied and proves that step equivalent,
    off the critical path (see Note [Deferred simplification] in :mod:`shapeenv.core.deferred`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING


from guards import Guard, GuardSet, ProofResult, SolverConfig, Source
from guards.simplify.reduce_forms import FormReduction, canonical_guards
from symint import form as F
from symint.form import logic as B

from .deferred import ProducedGuards

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


def source_symbols(env: "SymbolTable") -> tuple[dict[str, Source], list[Guard]]:
    """A symbol (by name) for every input source, and the guards tying extra and pinned sources to them."""
    sources, ties, pins = _sources_ties_pins(env)
    return sources, ties + pins


def _sources_ties_pins(env: "SymbolTable") -> tuple[dict[str, Source], list[Guard], list[Guard]]:
    """:func:`source_symbols` with the pins of specialised sources apart (``p3 == 16``: a fresh symbol each)."""
    sources: dict[str, Source] = {}
    ties: list[Guard] = []
    pins: list[Guard] = []
    for name, info in env.symbols.by_name.items():
        if not info.sources:
            continue
        sources[name] = info.sources[0]
        for k, extra in enumerate(info.sources[1:], start=1):
            alias = f"{name}_{k}"
            sources[alias] = extra
            why = f"{extra.text()} was duck-sized to {info.sources[0].text()}"
            ties.append(Guard.of(B.rel("==", F.sym(alias), F.sym(name)), why))
    for k, (source, value) in enumerate(env.specialized.items()):
        pin = f"p{k}"
        sources[pin] = source
        pins.append(Guard.of(B.rel("==", F.sym(pin), F.const(int(value))), _specialised(source, value)))
    return sources, ties, pins


def _specialised(source: Source, value: int):
    return lambda: f"{source.text()} was specialised to {value}"


def _range_guards(env: "SymbolTable") -> list[Guard]:
    out = []
    for name, info in env.symbols.by_name.items():
        rng = info.initial_range
        if not info.sources or rng is None:
            continue
        floor = 0 if info.sources[0].is_size_like else -math.inf
        x = F.sym(name)
        if rng.lower > floor:
            out.append(Guard.of(B.rel("<=", F.const(int(rng.lower)), x), f"the initial range of {name} is {rng}"))
        if rng.upper != math.inf:
            out.append(Guard.of(B.rel("<=", x, F.const(int(rng.upper))), f"the initial range of {name} is {rng}"))
    return out


def _form_of(record):
    return bool_form_of(record.form)


def _cause(record):
    """What a recorded guard taught, for the origin of an explicit fact (the guard printed only when read)."""
    return lambda: f"{record.expr} at {record.provenance.user_frame or '<unknown>'}"


def reduce_guards(env: "SymbolTable", ties: list[Guard] | None = None) -> list[Guard]:
    """The recorded guards reduced exactly, on forms, with the ``ties`` of extra sources (Note [Reducing the produced guard set]).

    Pins of specialised sources are not included (Note [Pins skip the reducer]).
    """
    domain: dict[str, tuple] = {}
    initial: dict[str, tuple] = {}
    seeds: dict[str, list] = {}
    hints: dict[str, int] = {}
    names: list[str] = []
    for name, info in env.symbols.by_name.items():
        if not info.sources:
            continue
        names.append(name)
        for k in range(len(info.sources)):
            alias = name if k == 0 else f"{name}_{k}"
            if info.sources[k].is_size_like:
                domain[alias] = (0, math.inf)
        if info.hint is not None:
            hints[name] = info.hint
        if info.initial_range is not None:
            initial[name] = (info.initial_range.lower, info.initial_range.upper)
            seeds[name] = [f"the initial range of {info.sources[0].text()}"]
    if ties is None:
        ties = _sources_ties_pins(env)[1]
    reduction = FormReduction(domain, env.elimination_rank, hints)
    items = [(_form_of(r), r.provenance.__str__) for r in env.guards]  # the provenance printed when read
    reduced = reduction.round(items, names, initial, seeds, [_cause(r) for r in env.guards])
    return canonical_guards(reduction.settle(reduced + [(g.form, g.why) for g in ties]))


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
        implies it or is simplified by it, and the reduction would keep it as it is. Models
        have hundreds (every parameter's sizes), so they skip the reducer and join its
        output in its canonical order: the same set, in the same order, at a fraction of
        the cost (resnet18: 0.13 -> 0.04 s under load).
    """
    sources, ties, pins = _sources_ties_pins(env)
    reduced = reduce_guards(env, ties)
    guards = canonical_guards([(g.form, g.why) for g in [*pins, *reduced]]) if pins else reduced
    return GuardSet.of(guards, sources)


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
