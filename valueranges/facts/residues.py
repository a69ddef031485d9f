"""Congruences of symbols learned from guards (``Eq(Mod(a, 4), 1)``), combined by the Chinese remainder theorem.

TVM's ModularSet analyser keeps one ``(coeff, base)`` per variable and intersects what it
learns; so do we: ``a = 1 (mod 4)`` and ``a = 1 (mod 3)`` give ``a = 1 (mod 12)``, which
decides ``Mod(a, 12) == 1`` and ``Mod(a, 6) == 1``. Residue 0 (divisibility) stays in
:class:`~valueranges.facts.divisibility.Divisors`, which more passes read; it is merged in
here once a symbol also has a nonzero residue. The modular sets of whole forms
(:func:`valueranges.modular.modular_set`) start from these congruences.

>>> r = Residues()
>>> r.learn("a", 4, 1), r.learn("a", 3, 1), r.of("a"), r.mod_value("a", 6), r.mod_value("a", 8)
(True, True, (12, 1), 1, None)
"""

from __future__ import annotations

from ..errors import ContradictoryFactsError
from ..modular import combine_congruences
from .table import SymbolTable

__all__ = ["Residues"]


class Residues(SymbolTable[tuple[int, int]]):
    """Per symbol name, the congruence ``(modulus, residue)`` that every fact about it implies."""

    def of(self, name: str) -> tuple[int, int] | None:
        """The congruence of ``name``, or None."""
        return self.table.get(name)

    def learn(self, name: str, modulus: int, residue: int) -> bool:
        """Add ``name = residue (mod modulus)``; True if it says something new.

        Raises:
            ContradictoryFactsError: no integer satisfies it together with what is known.
        """
        new = (abs(modulus), residue % abs(modulus))
        old = self.table.get(name)
        if old is not None:
            both = combine_congruences(old, new)
            if both is None:
                raise ContradictoryFactsError(f"{name} = {new[1]} (mod {new[0]}) contradicts {name} = {old[1]} (mod {old[0]})")
            new = both
        if new == old:
            return False
        self.table[name] = new
        return True

    def mod_value(self, name: str, k: int) -> int | None:
        """``name % k`` when the congruence decides it (``k`` divides the modulus), else None."""
        found = self.table.get(name)
        if found is None or k == 0 or found[0] % k:
            return None
        return found[1] % k
