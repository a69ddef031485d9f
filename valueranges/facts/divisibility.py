"""Divisibility: which constants divide each symbol, and what follows from it.

The divisibility part of :class:`~valueranges.facts.Facts`. ``Eq(Mod(s, 8), 0)`` records
8 as a divisor of ``s``; from then on ``Mod(s, 4)`` simplifies to 0, the ends of ``s``'s
range round inwards to multiples of 8, and :func:`decide_by_multiples` decides relations
by writing ``s`` as ``8*t``. The exact cancellations of division by a common nonzero
factor live here too (:func:`cancel_common_factor`, :func:`drop_nonzero_factors`,
:func:`without_common_factor`).

>>> from symint import form as F
>>> d = Divisors()
>>> d.learn_fact(F.mod(F.sym("s"), F.const(8))), d.step("s"), d.divides("s", 4)
(('s', 8, 0), 8, True)
"""

from __future__ import annotations

import math
from typing import Callable

from symint.form import logic as B
from symint import form as F
from symint.form.logic import BoolForm, Norm
from symint.form.transform import transform

from ..linear_facts import decide_norm
from .ranges import ceil_div, floor_div
from .table import SymbolTable

__all__ = [
    "Divisors", "divisibility_fact", "decide_by_multiples", "cancel_common_factor", "drop_nonzero_factors",
    "without_common_factor",
]

INF = math.inf


class Divisors(SymbolTable[set[int]]):
    """Per symbol name, the positive constants known to divide it (``table``: read it, change it through the methods)."""

    def __init__(self, table: dict[str, set[int]] | None = None):
        super().__init__({k: set(v) for k, v in (table or {}).items()})

    def of(self, name: str) -> set[int]:
        """The divisors of ``name`` (empty if none; do not modify)."""
        return self.table.get(name, set())

    def step(self, name: str) -> int:
        """The least common multiple of ``name``'s divisors: every value of ``name`` is a multiple of it."""
        ks = self.table.get(name)
        return math.lcm(*ks) if ks else 1

    def divides(self, name: str, k: int) -> bool:
        """Whether ``k`` is known to divide ``name``."""
        return any(m % k == 0 for m in self.table.get(name, ()))

    def add(self, name: str, k: int) -> None:
        """Record that ``k`` divides ``name``."""
        self.table.setdefault(name, set()).add(abs(k))

    def merge(self, survivor: str, eliminated: str) -> None:
        """``eliminated`` was replaced by ``survivor``: its divisors divide the survivor."""
        if eliminated in self.table:
            self.table.setdefault(survivor, set()).update(self.table[eliminated])

    def learn_fact(self, p: "F.Form") -> tuple[str, int, int] | None:
        """:func:`divisibility_fact` of ``p == 0``; records the divisor when the residue is 0."""
        found = divisibility_fact(p)
        if found is not None and found[2] == 0:
            self.add(found[0], found[1])
        return found


def divisibility_fact(p: "F.Form") -> tuple[str, int, int] | None:
    """``(s, k, r)`` when ``p == 0`` says ``Mod(s, k) == r`` for a symbol ``s`` and a constant ``k != 0``.

    >>> from symint import form as F
    >>> divisibility_fact(F.sub(F.mod(F.sym("a"), F.const(4)), F.const(1)))
    ('a', 4, 1)
    """
    if len(p.terms) != 1 or p.terms[0][1] not in (1, -1):
        return None
    atom = p.terms[0][0].single
    if atom is None or atom.kind != "mod":
        return None
    a, k = atom.args
    inner = a.atom()
    if inner is None or inner.kind != "sym" or not k.is_const or k.const == 0:
        return None
    return inner.name, k.const, -p.const * p.terms[0][1]


def decide_by_multiples(n: Norm, divisors: Divisors, ranges) -> bool | None:
    """Decide ``n`` writing each symbol known divisible by ``k`` as ``k*t`` (``t`` a fresh integer).

    Every multiple of ``k`` is ``k*t`` for some integer ``t``, so this is exact; and it lets
    the canonical form cancel divisions: with ``s % 2 == 0``, ``s // (s // 2)`` is ``2*t // t``,
    which is 2.

    >>> from symint import form as F
    >>> d = Divisors({"s": {2}})
    >>> s = F.sym("s")
    >>> decide_by_multiples(B.rel("==", F.floordiv(s, F.floordiv(s, F.const(2))), F.const(2)).norm, d, {"s": (2, INF)})
    True
    """
    subst, extra = {}, {}
    for name in sorted(n.p.symbols & divisors.names()):
        k = divisors.step(name)
        t = f"{name}__div{k}"
        subst[name] = F.scale(F.sym(t), k)
        lo, hi = ranges.get(name, (-INF, INF))
        extra[t] = (-INF if lo == -INF else ceil_div(lo, k), INF if hi == INF else floor_div(hi, k))

    def on_atom(atom):
        return subst.get(atom.name) if atom.kind == "sym" else None

    p = transform(n.p, on_atom, {})
    r = B.rel(n.op, p, F.const(0))
    if r.kind == "const":
        return r.value
    return decide_norm(r.norm, None, {**ranges, **extra}, {})


def cancel_common_factor(kind: str, a: "F.Form", b: "F.Form", nonzero: Callable[["F.Atom"], bool]) -> "F.Form | None":
    """``Mod(k*a, k*b) -> k*Mod(a, b)`` and ``FloorDiv(k*a, k*b) -> FloorDiv(a, b)`` for an atom ``k`` that ``nonzero`` proves nonzero.

    Both are exact identities of Python's ``%`` and ``//`` for every ``k != 0``.

    >>> from symint import form as F
    >>> x, y = F.sym("x"), F.sym("y")
    >>> cancel_common_factor("mod", F.mul(x, F.const(6)), F.mul(x, y), lambda atom: True)
    Form(x*Mod(6, y))
    """
    if len(b.terms) != 1 or b.const or a.const or a.is_const:
        return None
    for atom, _ in b.terms[0][0].factors:
        if all(any(x is atom for x, _ in m.factors) for m, _ in a.terms) and nonzero(atom):
            k = F.atom_form(atom)
            a2, b2 = F.floordiv(a, k), F.floordiv(b, k)  # exact: k divides every term
            return F.floordiv(a2, b2) if kind == "floordiv" else F.mul(k, F.mod(a2, b2))
    return None


def drop_nonzero_factors(r: BoolForm, nonzero: Callable[["F.Atom"], bool]) -> BoolForm:
    """``k*x == 0`` -> ``x == 0`` (and ``!=``) for atoms ``k`` of every monomial that ``nonzero`` proves nonzero.

    >>> from symint import form as F
    >>> x, y = F.sym("x"), F.sym("y")
    >>> str(drop_nonzero_factors(B.rel("==", F.mul(x, y), F.const(0)), lambda atom: atom.name == "x"))
    'BoolForm(y == 0)'
    >>> str(drop_nonzero_factors(B.rel("==", F.mul(x, F.add(y, F.const(1))), F.const(0)), lambda atom: atom.name == "x"))
    'BoolForm(y + 1 == 0)'
    """
    n = r.norm
    p = n.p
    if p.const or not p.terms:
        return r
    # the atoms every monomial has, with their least power (b1*x + b1*y == 0 is x + y == 0 when b1 != 0)
    common = dict(p.terms[0][0].factors)
    for mono, _ in p.terms[1:]:
        powers = dict(mono.factors)
        common = {a: min(e, powers[a]) for a, e in common.items() if a in powers}
        if not common:
            return r
    dropped = {a: e for a, e in common.items() if nonzero(a)}
    if not dropped:
        return r
    core = F.const(0)
    for mono, c in p.terms:
        term = F.const(c)
        for a, e in mono.factors:
            if e - dropped.get(a, 0):
                term = F.mul(term, F.pow_nat(F.atom_form(a), e - dropped.get(a, 0)))
        core = F.add(core, term)
    return B.rel(n.op, core, F.const(0))


def without_common_factor(r: BoolForm) -> BoolForm:
    """``Eq(2*Mod(u, 2), 0)`` as ``Eq(Mod(u, 2), 0)``: an (in)equality with 0 whose side has a common factor."""
    op, lhs, rhs = r.args
    side = lhs if rhs.is_const and rhs.const == 0 else (rhs if lhs.is_const and lhs.const == 0 else None)
    if side is None or side.const or r.norm.p is side or r.norm.p is F.neg(side):
        return r
    return B.rel(op, r.norm.p, F.const(0))
