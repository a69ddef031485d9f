"""Symbol bookkeeping: how a dimension is made symbolic, and what is known about each symbol.

>>> DimDynamic.DUCK.name
'DUCK'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from symint.lazy_sympy import sympy

from guards import Source
from valueranges import ValueRanges

__all__ = ["DimDynamic", "SymbolInfo"]


class DimDynamic(enum.Enum):
    """How ``ShapeEnv.create_symint`` treats a dimension.

    * ``DUCK``: symbolic; shares the symbol of an earlier DUCK dim with the same hint (duck sizing).
    * ``DYNAMIC``: symbolic with a symbol of its own.
    * ``STATIC``: the plain int (no symbol, no guard).
    """

    DUCK = "duck"
    DYNAMIC = "dynamic"
    STATIC = "static"


@dataclass(slots=True)
class SymbolInfo:
    """What the environment knows about one symbol besides its range.

    Attributes:
        symbol: the sympy symbol (``s0``, ``u0``).
        index: allocation order over all symbols (older symbols have smaller indices).
        hint: the value it has for the example being traced (None when unbacked).
        sources: the inputs it stands for; the first is the primary one.
        size_like: used as a size (size-oblivious reasoning may assume ``>= 2``).
        dynamic: how it was created (None for unbacked symbols).
        declared: the ``(min, max)`` the caller declared, if any.
        initial_range: the range it was created with (before any guard or assert).
        origin: for an unbacked symbol, the op and user line that made it (``nonzero at model.py:7 in f``).
    """

    symbol: sympy.Symbol
    index: int
    hint: int | None
    sources: list[Source] = field(default_factory=list)
    size_like: bool = False
    dynamic: DimDynamic | None = None
    declared: tuple[int | None, int | None] = (None, None)
    initial_range: ValueRanges | None = None
    origin: str | None = None

    @property
    def backed(self) -> bool:
        """Whether the symbol has a hint (unbacked symbols are data-dependent)."""
        return self.hint is not None
