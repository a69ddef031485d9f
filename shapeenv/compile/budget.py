"""The guard budget: limits on the guards and recompiles a source (or a function) may cost, and the fallbacks.

Automatic dynamic never gives up: a size that the function pins (``x.size()[0] == 8``)
recompiles for every new value until the recompile limit, and a dim that takes part in
many branches costs a long guard set on every call. ``compile(fn, budget=GuardBudget(...))``
bounds both.

Note [Budget fallbacks]
    * **Recompiles** (``max_recompiles_per_source``): a recompile is charged to the
      sources whose pins failed in its reason (the closest entry had
      ``x.size()[0] == 8``, the call has 9; see :mod:`shapeenv.compile.info`). When a
      source has been charged more than the limit, it is traced **dynamic** from then
      on, and the fallback records the range of values observed for it. With
      ``max_recompiles``, once the function has recompiled more than that many times,
      every source charged so far falls back the same way.
    * **Guards** (``max_guards_per_source``, ``max_guards``): after a trace, the guards
      of the entry that mention a dynamic source's symbol are counted; a source over
      the limit is traced **static** instead (one equality guard), and so is, while the
      whole set is over ``max_guards``, the dynamic source with the most guards. The
      call is traced again at once, so no entry over budget is installed.

    Fallbacks are sticky (a source made static by the guard budget is not made dynamic
    again by the recompile budget) and come after the user's explicit choices:
    ``mark_dynamic``/``mark_static`` and ``static_sources`` beat them. A dynamic
    fallback that the function itself specialises is traced static anyway (Note [Weak
    dims the function specialises]); the recompile limit then applies as before.
    Every fallback is a :class:`Fallback` in ``cache_info().fallbacks``.

>>> b = GuardBudget(max_recompiles_per_source=2)
>>> b.active, GuardBudget().active
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from guards import GuardSet, Source

from ..errors import ShapeEnvValueError

__all__ = ["GuardBudget", "Fallback", "Forced", "charged_sources", "guards_per_source"]


def _limit(name: str, v: int | None) -> None:
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
        raise ShapeEnvValueError(f"{name} must be None (no limit) or an int >= 0, got {v!r}", fix=f"GuardBudget({name}=None)")


@dataclass(frozen=True, slots=True)
class GuardBudget:
    """Limits on guards and recompiles (Note [Budget fallbacks]); None means no limit.

    Attributes:
        max_guards_per_source: guards of one entry that may mention one dynamic source.
        max_guards: guards one entry may have.
        max_recompiles_per_source: recompiles one source may cause before it is traced dynamic.
        max_recompiles: recompiles of the function before every source that caused one is traced dynamic.
    """

    max_guards_per_source: int | None = None
    max_guards: int | None = None
    max_recompiles_per_source: int | None = None
    max_recompiles: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_guards_per_source", "max_guards", "max_recompiles_per_source", "max_recompiles"):
            _limit(name, getattr(self, name))

    @property
    def active(self) -> bool:
        """Whether any limit is set."""
        return any(v is not None for v in (self.max_guards_per_source, self.max_guards,
                                           self.max_recompiles_per_source, self.max_recompiles))

    def settings(self) -> dict:
        """The limits as a dict (part of a stored function's fingerprint)."""
        return {"max_guards_per_source": self.max_guards_per_source, "max_guards": self.max_guards,
                "max_recompiles_per_source": self.max_recompiles_per_source, "max_recompiles": self.max_recompiles}


@dataclass(frozen=True, slots=True)
class Forced:
    """A budget decision for one source: traced dynamic or static from now on, and why."""

    dynamic: bool
    why: str


@dataclass(frozen=True, slots=True)
class Fallback:
    """One budget fallback, as ``cache_info().fallbacks`` lists it.

    Attributes:
        source: the input size or int input.
        to: ``"dynamic"`` or ``"static"``.
        limit: which limit was exceeded (``max_recompiles_per_source``, ...).
        reason: what happened, in words, with the observed range.
        compilation: how many compilations the function had made when it fell back.
        observed: the smallest and largest value seen for the source at a miss.
    """

    source: Source
    to: str
    limit: str
    reason: str
    compilation: int
    observed: tuple[int, int] | None = None

    def __str__(self) -> str:
        return f"{self.source.text()} -> {self.to}: {self.reason}"


def charged_sources(reasons: Iterable) -> dict[Source, int]:
    """How many recompiles each source's failed pins caused (Note [Budget fallbacks]).

    >>> from shapeenv.compile.info import RecompileReason
    >>> s = Source.size("x", 0)
    >>> charged_sources([RecompileReason(((0, "..."),), ((s, 8, 9),))] * 2)
    {Source(base='x', kind='size', index=0): 2}
    """
    counts: dict[Source, int] = {}
    for reason in reasons:
        for src in dict.fromkeys(src for src, _, _ in reason.pins):
            counts[src] = counts.get(src, 0) + 1
    return counts


def guards_per_source(guards: GuardSet, sources: Iterable[Source]) -> dict[Source, int]:
    """How many guards of ``guards`` mention the symbol of each of ``sources``.

    >>> from symint.build import symbol_expr, ge, eq
    >>> from symint.sympy_io.functions import Mod
    >>> s0 = symbol_expr("s0"); x0 = Source.size("x", 0)
    >>> guards_per_source(GuardSet.of([ge(s0, 2), eq(Mod(s0, 4), 0)], {s0: x0}), [x0])
    {Source(base='x', kind='size', index=0): 2}
    """
    symbol_of: Mapping[Source, object] = {}
    for sym, src in guards.source_map.items():
        symbol_of.setdefault(src, sym)  # type: ignore[union-attr]
    out = {}
    for src in sources:
        sym = symbol_of.get(src)
        out[src] = 0 if sym is None else sum(1 for g in guards if sym in g.expr.free_symbols)
    return out
