"""What a compiled function's cache holds and why: :class:`CacheInfo`, recompile reasons, :func:`suggest_dynamic`.

A recompile's reason is, for each existing entry, the first check that rejected
the call: a guard (``x.size()[0] == 8 failed: got 9``) or, for an entry traced
for other input types, the key (``x: float32[2-d] ndarray failed: got int64[2-d] ndarray``).

Note [Suggesting dynamic sources]
    Each reason also remembers the *pins* that failed: sources the closest rejecting
    entry (the one with fewest failed pins; the latest on ties) pinned to another
    constant (``x.size()[0] == 8`` on a call with 9). A source whose pin fails again
    and again (``min_count`` recompiles, 2 by default) is what to mark dynamic:
    marking it would have let the entry serve those calls, as far as that pin is
    concerned. Pins that are the function's own specialisations (it compares the
    size with a constant) recur too; the suggestion then cannot help, and says which
    pins it saw so that can be recognised.

>>> r = RecompileReason(((0, "x.size()[0] == 8 failed: got 9"),), ())
>>> str(r)
'x.size()[0] == 8 failed: got 9'
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence

from guards import GuardSet, Source

if TYPE_CHECKING:  # pragma: no cover
    from shapeenv.program.program import ExportedProgram
    from shapeenv.compile.budget import Fallback

__all__ = ["RecompileReason", "EntryInfo", "CacheInfo", "Suggestion", "suggest_dynamic", "suggest_from"]


_SHOWN = 8  # entries a reason's text lists (all are kept in ``failures``)


@dataclass(frozen=True, slots=True)
class RecompileReason:
    """Why a call found no entry.

    Attributes:
        failures: ``(entry index, first failed check)`` per existing entry; empty for the first call.
        pins: ``(source, pinned constant, value of the call)`` for the pins of the closest entry that failed.
        note: extra words (e.g. that a ``hint_override`` trace rejected the call).
        call_site: the user's ``file:line in function`` of the call that recompiled (None for the first call).
    """

    failures: tuple[tuple[int, str], ...] = ()
    pins: tuple[tuple[Source, int, int], ...] = ()
    note: str = ""
    call_site: str | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        """The reason in words: the single failure, ``entry i: ...`` per entry, or ``first call``
        (or the note alone, for an entry with no failures to report, e.g. one loaded from a store)."""
        if not self.failures and self.note:
            return self.note
        if not self.failures:
            body = "first call"
        elif len(self.failures) == 1:
            body = self.failures[0][1]
        else:
            shown = self.failures[:_SHOWN]
            body = "; ".join(f"entry {i}: {t}" for i, t in shown)
            if len(self.failures) > _SHOWN:
                body += f"; and {len(self.failures) - _SHOWN} more entries"
        return f"{body} ({self.note})" if self.note else body

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class EntryInfo:
    """One cache entry, as :meth:`CompiledFunction.cache_info` reports it.

    Attributes:
        index: creation order, across all input types.
        inputs: the input types it serves (``x: float32[2-d] ndarray, n: int``).
        guards: its guard set.
        hits: how many calls it served from the cache (the call that compiled it is not counted).
        reason: why it was compiled.
        dynamic: the sources traced dynamic, each with why (``x.size()[0] (automatic dynamic: 8 -> 9)``).
        specialization: the ``specialize_on`` condition it adds, if it is a specialised entry.
        compile_seconds: how long its trace took.
        program: the traced program (shared by a trace's specialised entries; None for a stored entry
            that no call has used yet, whose program is loaded on first use).
        notes: what else its trace decided (``specialize_on`` predicates that got no entry).
        reads: what it checks besides its guards, one line per read (``global SCALE: EQUALS_MATCH 2``;
            see :mod:`shapeenv.compile.reads`).
    """

    index: int
    inputs: str
    guards: GuardSet
    hits: int
    reason: RecompileReason
    dynamic: str
    specialization: str | None = None
    compile_seconds: float = 0.0
    program: "ExportedProgram | None" = field(default=None, repr=False, compare=False)
    notes: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()

    def format(self) -> str:
        """Several lines: header, reason, dynamic sources, one guard per line."""
        spec = f"  [specialised: {self.specialization}]" if self.specialization else ""
        lines = [
            f"entry {self.index}{spec}: {self.hits} hits, traced in {self.compile_seconds * 1e3:.1f} ms",
            f"  inputs:  {self.inputs}",
            f"  reason:  {self.reason}",
            f"  dynamic: {self.dynamic}",
            *(f"  note:    {n}" for n in self.notes),
            "  guards:" + ("" if len(self.guards) else " none"),
        ]
        if len(self.guards):
            lines += [f"    {g}" for g in self.guards.to_text("source").splitlines()]
        if self.reads:
            lines += ["  reads:", *(f"    {r}" for r in self.reads)]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """A snapshot of a compiled function's cache (frozen; take a new one to see later calls).

    Attributes:
        function: the compiled function's name.
        entries: every entry, in creation order.
        compilations: how many times the function was traced for the cache.
        misses: calls no entry accepted (each compiled, ran eagerly or raised).
        eager_calls: calls that ran eagerly instead of compiling (stances, the recompile limit).
        recompile_limit: the limit on compilations.
        limit_reached: the limit was hit (later misses run eagerly).
        fallbacks: the guard-budget fallbacks, in order (:mod:`shapeenv.compile.budget`).
        store: the store in words (None without ``store=``), with why nothing is stored if so.
        loaded: entries loaded from the store (they are in ``entries`` too).
        stored: entries this process wrote to the store.
    """

    function: str
    entries: tuple[EntryInfo, ...]
    compilations: int
    misses: int
    eager_calls: int
    recompile_limit: int
    limit_reached: bool
    fallbacks: tuple["Fallback", ...] = ()
    store: str | None = None
    loaded: int = 0
    stored: int = 0

    @property
    def hits(self) -> int:
        """Calls served by an entry."""
        return sum(e.hits for e in self.entries)

    @property
    def reasons(self) -> tuple[str, ...]:
        """The reason of each compilation (specialised entries share their trace's reason)."""
        return tuple(e.reason.text for e in self.entries if e.specialization is None)

    def summary(self) -> str:
        """One line: entries, compilations, hits, misses, eager calls."""
        limit = ", recompile limit reached" if self.limit_reached else ""
        budget = f", {len(self.fallbacks)} budget fallbacks" if self.fallbacks else ""
        store = f"; store {self.store}: {self.loaded} loaded, {self.stored} stored" if self.store else ""
        return (
            f"{self.function}: {len(self.entries)} entries from {self.compilations} compilations, "
            f"{self.hits} hits, {self.misses} misses, {self.eager_calls} eager calls "
            f"(recompile_limit {self.recompile_limit}{limit}{budget}){store}"
        )

    def __str__(self) -> str:
        fallbacks = [f"fallback: {f}" for f in self.fallbacks]
        return "\n".join([self.summary(), *fallbacks, *(e.format() for e in self.entries)])

    def _repr_html_(self) -> str:
        """A table: one row per entry with its hits, reason, dynamic sources and guards."""
        esc = html.escape
        rows = []
        for e in self.entries:
            guards = "<br>".join(esc(g) for g in e.guards.to_text("source").splitlines()) if len(e.guards) else "<i>none</i>"
            spec = f"<br><i>specialised: {esc(e.specialization)}</i>" if e.specialization else ""
            rows.append(
                f"<tr><td>{e.index}{spec}</td><td>{esc(e.inputs)}</td><td>{e.hits}</td><td>{esc(e.reason.text)}</td>"
                f"<td>{esc(e.dynamic)}</td><td><code>{guards}</code></td></tr>"
            )
        head = "<tr><th>entry</th><th>inputs</th><th>hits</th><th>reason</th><th>dynamic</th><th>guards</th></tr>"
        return f"<p>{esc(self.summary())}</p><table>{head}{''.join(rows)}</table>"


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A source to make dynamic (Note [Suggesting dynamic sources]).

    Attributes:
        source: the input size or int input.
        recompiles: how many recompiles failed a pin of it.
        constants: the values it was pinned to, in order seen.
    """

    source: Source
    recompiles: int
    constants: tuple[int, ...]

    @property
    def code(self) -> str:
        """``mark_dynamic(x, 0)`` for a size; ``dynamic_sources='n'`` for an int input."""
        if self.source.kind == "size":
            return f"mark_dynamic({self.source.base}, {self.source.index})"
        return f"compile(..., dynamic_sources={self.source.text()!r})"

    @property
    def pattern(self) -> str:
        """The ``dynamic_sources`` pattern for it (``x:0``, ``n``)."""
        s = self.source
        return f"{s.base}:{s.index}" if s.kind == "size" else s.text()

    def __str__(self) -> str:
        seen = ", ".join(str(c) for c in self.constants)
        return f"{self.code}  # {self.source.text()} was pinned ({seen}) in {self.recompiles} recompiles"


class HasRecompileReasons(Protocol):
    """What :func:`suggest_dynamic` reads of a compiled function (its own module stays below the facade)."""

    def recompile_reasons(self) -> Sequence["RecompileReason"]: ...


def suggest_dynamic(compiled: "HasRecompileReasons", min_count: int = 2) -> tuple[Suggestion, ...]:
    """The sources to mark dynamic, from the recorded recompile reasons (Note [Suggesting dynamic sources]).

    Args:
        compiled: a function returned by :func:`shapeenv.compile.compile`.
        min_count: how many recompiles must have failed a pin of a source.

    Returns:
        Suggestions, most recompiles first.

    >>> import numpy as np
    >>> from shapeenv.compile import compile
    >>> f = compile(lambda x: x + 1, dynamic=False)
    >>> for n in (4, 5, 6):
    ...     _ = f(np.zeros(n))
    >>> [str(s) for s in suggest_dynamic(f)]
    ['mark_dynamic(x, 0)  # x.size()[0] was pinned (4, 5) in 2 recompiles']
    """
    return suggest_from(compiled.recompile_reasons(), min_count)


def suggest_from(reasons, min_count: int = 2) -> tuple[Suggestion, ...]:
    """:func:`suggest_dynamic` on a sequence of :class:`RecompileReason` s.

    >>> r = RecompileReason(((0, "n == 2 failed: got 3"),), ((Source.value("n"), 2, 3),))
    >>> [s.code for s in suggest_from([r], min_count=1)]
    ["compile(..., dynamic_sources='n')"]
    """
    counts: dict[Source, int] = {}
    constants: dict[Source, list[int]] = {}
    for reason in reasons:
        for source in dict.fromkeys(src for src, _, _ in reason.pins):
            counts[source] = counts.get(source, 0) + 1
        for src, const, _ in reason.pins:
            if const not in constants.setdefault(src, []):
                constants[src].append(const)
    chosen = [s for s, n in counts.items() if n >= min_count]
    chosen.sort(key=lambda s: (-counts[s], s.base, s.kind, s.index or 0))
    return tuple(Suggestion(s, counts[s], tuple(constants[s])) for s in chosen)
