"""Rewrite rules of :mod:`valueranges.rewrite` for a conjunction of relations.

* **a quotient's definition** (TVM's ``0 <= x - y*c < c -> y == x // c``, for any offset and any
  rest): ``lo <= u - k*v <= lo + k - 1`` holds exactly when ``v == (u - lo) // k`` (``k >= 1``),
  so two bounds of one linear part whose width is one less than a coefficient ``k`` of a single
  atom ``v`` become one equation: :func:`quotient_definitions`.
* **narrowing by the other conjuncts** (TVM's ``merge a known floordiv and a bound of the
  floormod``, for any relation): ``a and B`` is ``a' and B`` when ``a`` and ``a'`` agree wherever
  ``B`` holds; :func:`narrow` simplifies each conjunct in turn within the box of the bounds the
  *current* other conjuncts put on single symbols (``x // 10 == 5`` is ``50 <= x <= 59``, in
  which ``x % 10 < 7`` is ``x <= 56``). One at a time, so that two conjuncts never justify each
  other's removal (``x <= 5 and x <= 5`` keeps one).

Both schemas are proven in ``tests/valueranges/test_rewrite_proofs.py``. The work is bounded: one
pass over pairs of parts, and :data:`NARROW_ROUNDS` passes over the parts.

>>> from symint import form as F
>>> from symint.form import logic as B
>>> x, y = F.sym("x"), F.sym("y")
>>> d = F.sub(x, F.scale(y, 5))
>>> from symint.sympy_io import to_sympy
>>> to_sympy(quotient_definitions([B.rel(">=", d, F.const(0)), B.rel("<", d, F.const(5))])[0])
Eq(y, FloorDiv(x, 5))
"""

from __future__ import annotations

import math
from typing import Callable, Mapping

from symint.form import logic as B
from symint import form as F

__all__ = ["quotient_definitions", "narrow", "symbol_bounds", "NARROW_ROUNDS"]

INF = math.inf
#: Passes of :func:`narrow` over the conjuncts (each pass simplifies every conjunct once).
NARROW_ROUNDS = 2


def _bounds_of_linear_part(a: "B.BoolForm") -> tuple | None:
    """``(L, c)`` for a relation ``L + c <= 0`` (``L`` without constant), else None."""
    if a.kind != "rel" or a.norm.op != "<=" or not a.norm.p.terms:
        return None
    p = a.norm.p
    return F.sub(p, F.const(p.const)), p.const


def _definition(L: "F.Form", lo: int, hi: int) -> "B.BoolForm | None":
    """``v == (u - lo) // k`` for ``lo <= L <= hi`` with ``L = u - k*v``, ``k = hi - lo + 1``, else None."""
    k = hi - lo + 1
    if k < 1:
        return None
    for m, c in L.terms:
        if abs(c) != k or m.single is None or len(m.factors) != 1 or m.factors[0][1] != 1:
            continue
        if c > 0:  # lo <= L <= hi  is  -hi <= -L <= -lo
            L, lo = F.neg(L), -hi
        v = F.atom_form(m.single)
        u = F.add(L, F.scale(v, k))
        return B.rel("==", v, F.floordiv(F.sub(u, F.const(lo)), F.const(k)))
    return None


def quotient_definitions(parts: list) -> list:
    """``parts`` with each pair ``lo <= u - k*v`` and ``u - k*v <= lo + k - 1`` replaced by
    ``v == (u - lo) // k`` (in the place of the first of the two).

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> x, y = F.sym("x"), F.sym("y")
    >>> d = F.add(F.scale(x, 3), y)
    >>> from symint.sympy_io import to_sympy
    >>> [to_sympy(a) for a in quotient_definitions([B.rel(">=", d, F.const(1)), B.rel("<=", d, F.const(3))])]
    [Eq(x, FloorDiv(-y, 3) + 1)]
    """
    parts = list(parts)
    linear = [_bounds_of_linear_part(a) for a in parts]
    for i, first in enumerate(linear):
        if first is None:
            continue
        for j in range(i + 1, len(parts)):
            second = linear[j]
            if second is None or F.add(first[0], second[0]).terms:
                continue
            (L, c1), (_, c2) = first, second  # L + c1 <= 0 and -L + c2 <= 0: c2 <= L <= -c1
            found = _definition(L, c2, -c1)
            if found is not None:
                parts[i], linear[i], linear[j] = found, None, None
                parts[j] = B.bool_const(True)
                break
    return [a for a in parts if a is not B.bool_const(True)]


def symbol_bounds(a: "B.BoolForm") -> tuple | None:
    """``(name, lo, hi)`` when ``a`` bounds one symbol alone (``x <= 5``, ``x >= 2``, ``x == 3``), else None.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> symbol_bounds(B.rel("<", F.sym("x"), F.const(5)))
    ('x', -inf, 4)
    """
    if a.kind != "rel" or a.norm.op not in ("<=", "==") or len(a.norm.p.terms) != 1:
        return None
    (m, c), = a.norm.p.terms
    atom = m.single
    if atom is None or atom.kind != "sym" or len(m.factors) != 1 or m.factors[0][1] != 1 or c not in (1, -1):
        return None
    k = a.norm.p.const
    if a.norm.op == "==":
        return atom.name, -k * c, -k * c
    return (atom.name, -INF, -k) if c == 1 else (atom.name, k, INF)


def _box(parts: list, skip: int, ranges: Mapping[str, tuple]) -> dict:
    box = dict(ranges)
    for j, a in enumerate(parts):
        found = symbol_bounds(a) if j != skip else None
        if found is not None:
            name, lo, hi = found
            old = box.get(name, (-INF, INF))
            box[name] = (max(old[0], lo), min(old[1], hi))
    return box


def narrow(parts: list, ranges: Mapping[str, tuple], simplify_rel: Callable) -> list:
    """``parts`` (a conjunction) with each relation simplified by ``simplify_rel(relation, box)`` within the box
    of ``ranges`` and the other parts' bounds on single symbols, one part at a time.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> x = F.sym("x")
    >>> same = B.rel("<=", x, F.const(5))
    >>> from symint.sympy_io import to_sympy
    >>> [to_sympy(a) for a in narrow([same, same], {}, lambda r, box: B.bool_const(True) if box.get("x", (0, 9))[1] <= 5 else r)]
    [x <= 5]
    """
    parts = list(parts)
    for _ in range(NARROW_ROUNDS):
        changed = False
        for i, a in enumerate(parts):
            if a.kind != "rel":
                continue
            box = _box(parts, i, ranges)
            if all(box.get(n) == ranges.get(n) for n in a.symbols):
                continue
            if any(box[n][0] > box[n][1] for n in box):
                return [B.bool_const(False)]  # the other parts contradict each other
            new = simplify_rel(a, box)
            if new is not a:
                parts[i], changed = new, True
        parts = [a for a in parts if a is not B.bool_const(True)]
        if any(a is B.bool_const(False) for a in parts) or not changed:
            break
    return parts
