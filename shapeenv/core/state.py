"""What the core's lower modules read of a ShapeEnv: small protocols, so they never import it.

:class:`~shapeenv.core.env.ShapeEnv` is the facade: it owns the symbols, the facts, the
guard and assert records, and calls down into :mod:`~shapeenv.core.decide`,
:mod:`~shapeenv.core.produce`, :mod:`~shapeenv.core.explain` and
:mod:`~shapeenv.core.assuming`. Those modules take any object with the attributes below,
which keeps the imports one way (facade -> lower modules) and lets a test hand them a
minimal stand-in.

>>> from shapeenv.core.env import ShapeEnv
>>> isinstance(ShapeEnv(), (SymbolTable, DecisionState, AssumingState))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover  (annotations only: these modules do not import the facade)
    import sympy

    from guards import Source
    from valueranges import ValueRanges

    from valueranges.facts import Facts
    from .provenance import AssertRecord, GuardRecord
    from .settings import ShapeEnvSettings
    from .symbols import SymbolInfo

__all__ = ["SymbolTable", "DecisionState", "AssumingState"]


@runtime_checkable
class SymbolTable(Protocol):
    """The records produce_guards and explain read: symbols, pinned sources, guards, asserts, facts."""

    settings: "ShapeEnvSettings"
    symbols: "Mapping[sympy.Symbol, SymbolInfo]"
    specialized: "Mapping[Source, int]"
    guards: "Sequence[GuardRecord]"
    runtime_asserts: "Sequence[AssertRecord]"
    facts: "Facts"

    def elimination_rank(self, name: str) -> tuple: ...


@runtime_checkable
class DecisionState(Protocol):
    """What the :class:`~shapeenv.core.decide.Decider` reads and the one way it writes (recording a guard)."""

    settings: "ShapeEnvSettings"
    symbols: "Mapping[sympy.Symbol, SymbolInfo]"
    facts: "Facts"
    assumptions: Any  # the enclosing `with env.assuming(...)` conditions (shapeenv.core.assuming.Assumptions)

    def hint_of(self, expr: "sympy.Basic") -> Any: ...

    def hint_of_form(self, form: Any) -> Any: ...

    def bound(self, value: Any) -> "ValueRanges": ...

    def record_guard(self, guard: Any, stated: Any, why: str, undecided: bool = False) -> None: ...


@runtime_checkable
class AssumingState(Protocol):
    """What ``with env.assuming(cond)`` reads and snapshots."""

    symbols: "Mapping[sympy.Symbol, SymbolInfo]"
    facts: "Facts"
    assumptions: Any  # the enclosing `with env.assuming(...)` conditions (shapeenv.core.assuming.Assumptions)
    decider: Any  # the shapeenv.core.decide.Decider whose memo a scope must not keep
