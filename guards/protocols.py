"""``GuardSetLike``: what the lower modules of ``guards`` need of a guard set, as a small Protocol.

:class:`guards.guardset.GuardSet` is a facade: it imports the modules that do the
work (``prove``, ``simplify``, ``codegen``, ``explain``, ``z3_translate``, ``z3_solver``) and calls
down. Those modules never import ``guardset`` (not even for annotations): they take
any object with these attributes, so the import graph of the package stays acyclic
(``tests/guards/test_import_graph.py``).

>>> from symint.build import symbol_expr, ge
>>> from guards import GuardSet
>>> isinstance(GuardSet.of([ge(symbol_expr("n"), 2)]), GuardSetLike)
True
"""

from __future__ import annotations

from typing import Iterable, Mapping, Protocol, runtime_checkable

from symint.lazy_sympy import sympy

from valueranges import ValueRanges

from .guard import Guard
from .source import Source

__all__ = ["GuardSetLike", "Bindings"]

#: Values of inputs: keyed by symbol, by Source, or by text (a symbol name or a source in either dialect).
Bindings = Mapping["sympy.Symbol | Source | str", int]


@runtime_checkable
class GuardSetLike(Protocol):
    """A conjunction of guards with the sources and assumed domain of its symbols (see :class:`GuardSet`)."""

    guards: tuple[Guard, ...]
    named_sources: tuple[tuple[str, Source], ...]
    named_domain: tuple[tuple[str, ValueRanges], ...]

    @property
    def sources(self) -> tuple[tuple[sympy.Symbol, Source], ...]: ...

    @property
    def domain(self) -> tuple[tuple[sympy.Symbol, ValueRanges], ...]: ...

    @property
    def names(self) -> frozenset[str]: ...

    @property
    def source_map(self) -> dict[sympy.Symbol, Source]: ...

    @property
    def domain_map(self) -> dict[sympy.Symbol, ValueRanges]: ...

    @property
    def symbols(self) -> frozenset[sympy.Symbol]: ...

    @property
    def exprs(self) -> tuple[sympy.Basic, ...]: ...

    def __len__(self) -> int: ...

    def bind(self, bindings: Bindings) -> dict[sympy.Symbol, int]: ...

    def holds(self, bindings: Bindings) -> bool: ...

    def with_guards(self, guards: Iterable[Guard | sympy.Basic]) -> "GuardSetLike": ...
