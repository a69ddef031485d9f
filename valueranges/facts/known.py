"""Known: the remembered relations and booleans that ranges, replacements and divisibility do not hold.

A relation is kept by its normal form (:class:`symint.form.logic.Norm`), with its negation
marked False, so ``a < b`` known makes ``a >= b`` decided at once; any other boolean
(an opaque predicate) is kept as it is. When new replacements arrive, the facts that
mention a replaced symbol are re-simplified (:meth:`Known.resimplify`); the rest cannot
change.

>>> from symint import form as F
>>> from symint.form import logic as B
>>> k = Known()
>>> k.add(B.rel("<", F.sym("a"), F.sym("b")))
True
>>> k.truth(B.rel(">=", F.sym("a"), F.sym("b")))
False
"""

from __future__ import annotations

from typing import Callable, Iterator

from symint.lazy_sympy import lazy_module, sympy

from symint.form import logic as B
from symint import form as F
from symint.form.logic import BoolForm, Norm

from ..errors import ContradictoryFactsError

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Known"]


def _key(e: BoolForm):
    return e.norm if e.kind == "rel" else e


class Known:
    """``key -> truth`` for remembered facts (keys: a Norm for a relation, else the BoolForm)."""

    def __init__(self, table: dict | None = None, unpaired: bool = False):
        self._table: dict[object, bool] = dict(table or {})
        self._unpaired = unpaired  # Note [Known relations come in pairs]

    def copy(self) -> "Known":
        return Known(self._table, self._unpaired)

    def __contains__(self, e: BoolForm) -> bool:
        return _key(e) in self._table

    def truth(self, e: BoolForm) -> bool | None:
        """True/False if ``e`` (or, for a relation, its negation) is remembered, else None."""
        if e.kind == "rel":
            return self.truth_of_norm(e.norm)
        return self._table.get(e)

    def truth_of_norm(self, n: Norm) -> bool | None:
        """Note [Known relations come in pairs]
            :meth:`add` stores a relation with its negation (marked False), and :meth:`resimplify`
            rewrites both alike (normalising commutes with negating: ``1 - p`` simplifies to
            ``1 - p'``), so the negation of ``n`` is stored only if ``n`` is. The one exception is
            an opaque boolean that re-simplifies into a relation (stored alone: ``_unpaired``);
            only then is the negation looked up, so a question does not build and intern the
            negation of every relation it asks about.
        """
        found = self._table.get(n)
        if found is not None or not self._unpaired:
            return found
        found = self._table.get(n.negated())
        return None if found is None else not found

    def add(self, e: BoolForm) -> bool:
        """Remember ``e`` as true; False if it was already remembered.

        Raises:
            ContradictoryFactsError: ``e`` is remembered as false.
        """
        key = _key(e)
        if self._table.get(key) is False:
            raise ContradictoryFactsError(f"{_io.to_sympy(e)} contradicts the known facts")
        if key in self._table:
            return False
        self._table[key] = True
        if e.kind == "rel":
            self._table.setdefault(e.norm.negated(), False)
        return True

    def resimplify(self, names: set[str], simplify_form: Callable, simplify_bool: Callable) -> None:
        """Re-simplify the facts that mention a symbol in ``names`` (new replacements or divisors).

        Raises:
            ContradictoryFactsError: a fact became the opposite of its remembered truth.
        """
        old, self._table = self._table, {}
        for key, truth in old.items():
            if key.symbols.isdisjoint(names) if isinstance(key, BoolForm) else key.p.symbols.isdisjoint(names):
                self._table[key] = truth
                continue
            if isinstance(key, Norm):
                s = B.normalise(key.op, simplify_form(key.p))
                if isinstance(s, bool):
                    if s != truth:
                        raise ContradictoryFactsError(f"{key} became {s} after new replacements, contradicting a known fact")
                    continue
                self._table[s] = truth
            else:
                s = simplify_bool(key)
                if s.kind == "const":
                    if s.value != truth:
                        raise ContradictoryFactsError(f"{_io.to_sympy(key)} became {s.value}, contradicting a known fact")
                    continue
                self._unpaired |= s.kind == "rel"  # a relation without its negation (Note [Known relations come in pairs])
                self._table[_key(s)] = truth

    def items(self) -> Iterator[tuple[object, bool]]:
        return iter(self._table.items())

    def view(self) -> dict[sympy.Basic, bool]:
        """The remembered facts as sympy -> truth (relations only when true: their negations are implied)."""
        out = {}
        for key, truth in self._table.items():
            if isinstance(key, Norm):
                if truth:
                    out[_io.to_sympy(B.rel(key.op, key.p, F.const(0)))] = True
            else:
                out[_io.to_sympy(key)] = truth
        return out
