"""Symbol bookkeeping: how a dimension is made symbolic, and what is known about each symbol.

>>> DimDynamic.DUCK.name
'DUCK'

Note [Symbols are names]: a symbol of the environment is its name (``"s0"``, ``"u3"``), as
in the forms (``F.sym("s0")``). ``ShapeEnv.symbols`` is a :class:`SymbolTable` keyed by
name; a lookup also takes the sympy ``Symbol`` of that name (what ``x.node.expr`` is), and
iterating it yields sympy Symbols, the public view older callers read. The engine itself
reads the names (``by_name``): creating symbols, replaying a program and producing its
guards import no sympy (Note [sympy on first use] in ``symint.lazy_sympy``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from symint.build import symbol_expr, symbol_name
from symint.lazy_sympy import sympy

from guards import Source

from .errors import ShapeEnvValueError, UnknownSymbolError
from valueranges import ValueRanges

__all__ = ["DimDynamic", "SymbolInfo", "SymbolTable"]


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
        name: the symbol's name (``s0``, ``u0``); ``symbol`` is its sympy view.
        index: allocation order over all symbols (older symbols have smaller indices).
        hint: the value it has for the example being traced (None when unbacked).
        sources: the inputs it stands for; the first is the primary one.
        size_like: used as a size (size-oblivious reasoning may assume ``>= 2``).
        dynamic: how it was created (None for unbacked symbols).
        declared: the ``(min, max)`` the caller declared, if any.
        initial_range: the range it was created with (before any guard or assert).
        origin: for an unbacked symbol, the op and user line that made it (``nonzero at model.py:7 in f``).
    """

    name: str
    index: int
    hint: int | None
    sources: list[Source] = field(default_factory=list)
    size_like: bool = False
    dynamic: DimDynamic | None = None
    declared: tuple[int | None, int | None] = (None, None)
    initial_range: ValueRanges | None = None
    origin: str | None = None

    @property
    def symbol(self) -> sympy.Symbol:
        """The sympy view of the symbol (built on request: Note [Symbols are names])."""
        return symbol_expr(self.name)

    @property
    def backed(self) -> bool:
        """Whether the symbol has a hint (unbacked symbols are data-dependent)."""
        return self.hint is not None


class SymbolTable(Mapping):
    """The symbols of an environment, by name, in allocation order (Note [Symbols are names]).

    ``table[key]``, ``table.get(key)`` and ``key in table`` take a name or a sympy Symbol;
    iterating yields the sympy Symbols (the public view); ``by_name`` is the dict the engine reads.

    >>> t = SymbolTable(); t.add(SymbolInfo("s0", 0, 4))
    >>> t["s0"].hint, t[symbol_expr("s0")].hint, "s1" in t, list(t), list(t.by_name)
    (4, 4, False, [s0], ['s0'])
    """

    __slots__ = ("by_name",)

    def __init__(self, infos: "Iterator[SymbolInfo] | tuple[SymbolInfo, ...]" = ()):
        self.by_name: dict[str, SymbolInfo] = {}
        for info in infos:
            self.add(info)

    def add(self, info: SymbolInfo) -> None:
        """File ``info`` under its name (a name is given once)."""
        if info.name in self.by_name:
            raise ShapeEnvValueError(f"the symbol {info.name} is already in the table", fix="give each symbol a name of its own")
        self.by_name[info.name] = info

    def __getitem__(self, key: object) -> SymbolInfo:
        info = self.by_name.get(symbol_name(key))  # type: ignore[arg-type]
        if info is None:
            known = ", ".join(list(self.by_name)[:12]) or "none"
            raise UnknownSymbolError(f"{key!r} is not a symbol of this environment (it has {known})",
                                     fix="look a symbol up by its name or sympy Symbol; .get(key) answers None instead")
        return info

    def get(self, key: object, default=None):
        return self.by_name.get(symbol_name(key), default)  # type: ignore[arg-type]

    def __contains__(self, key: object) -> bool:
        return symbol_name(key) in self.by_name

    def __iter__(self) -> Iterator[sympy.Symbol]:
        return (symbol_expr(name) for name in self.by_name)

    def values(self):
        return self.by_name.values()

    def __len__(self) -> int:
        return len(self.by_name)

    def __repr__(self) -> str:
        return f"SymbolTable({', '.join(self.by_name)})"
