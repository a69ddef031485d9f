"""The per-symbol tables of the facts engine: the one shape of knowledge kept by symbol name.

:class:`~valueranges.facts.replacements.Replacements` (``name -> form``),
:class:`~valueranges.facts.divisibility.Divisors` (``name -> divisors``) and
:class:`~valueranges.facts.residues.Residues` (``name -> congruence``) are such tables;
each adds the methods that learn and use its kind of fact.

>>> t = SymbolTable({"s0": 3})
>>> bool(t), "s0" in t, list(t.names()), list(t.copy().items())
(True, True, ['s0'], [('s0', 3)])
"""

from __future__ import annotations

from typing import Generic, Iterator, KeysView, Mapping, TypeVar

__all__ = ["SymbolTable"]

V = TypeVar("V")


class SymbolTable(Generic[V]):
    """``name -> value`` for the symbols one kind of fact knows something about.

    ``table`` is the mapping itself, for the hot paths of the facade: read it, change it
    through the subclass's methods. A subclass whose values are mutable copies them in
    ``__init__`` (``copy()`` builds the copy through it).
    """

    def __init__(self, table: Mapping[str, V] | None = None):
        self.table: dict[str, V] = dict(table or {})

    def __bool__(self) -> bool:
        return bool(self.table)

    def __contains__(self, name: str) -> bool:
        return name in self.table

    def copy(self):
        """An independent copy (learning into it leaves this table as it is)."""
        return type(self)(self.table)

    def names(self) -> KeysView[str]:
        """The symbols in the table (a set-like view)."""
        return self.table.keys()

    def items(self) -> Iterator[tuple[str, V]]:
        """``(name, value)`` per symbol in the table (do not modify the values)."""
        return iter(self.table.items())
