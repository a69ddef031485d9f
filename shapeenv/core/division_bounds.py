"""Exact preimages of floor and ceiling division bounds, for narrowing a symbol's range.

``lo <= t // k <= hi`` holds exactly when ``lo*k <= t <= hi*k + k - 1`` (for ``k > 0``),
and ``lo <= ceil(t / k) <= hi`` exactly when ``(lo - 1)*k + 1 <= t <= hi*k``. With
``t = +-s + b`` that is a range of the symbol ``s``. :class:`~shapeenv.core.facts.Facts` uses
it both when a replaced symbol ``x = t // k + c`` is narrowed and when a fact
``c*(t // k) + r <= 0`` (or ``== 0``) is learned.

>>> from symint import form as F
>>> division_preimage(F.floordiv(F.sym("s"), F.const(8)).atom(), 4, 15)
('s', 32, 127)
>>> division_preimage(F.ceildiv(F.sym("s"), F.const(4)).atom(), 3, 3)
('s', 9, 12)
"""

from __future__ import annotations

import math

from symint import form as F

__all__ = ["division_preimage", "atom_bounds_of_fact", "floor_div", "ceil_div"]

INF = math.inf


def floor_div(p, q: int):
    """``p // q`` (``p`` an int)."""
    return p // q


def ceil_div(p, q: int):
    """``-(-p // q)`` (``p`` an int)."""
    return -((-p) // q)


def division_preimage(atom: "F.Atom", lo, hi) -> tuple[str, object, object] | None:
    """``(s, slo, shi)``: the exact range of ``s`` keeping ``atom`` in ``[lo, hi]``, or None.

    ``atom`` must be ``floordiv``/``ceildiv`` of ``+-s + b`` by a positive constant.
    """
    if atom.kind not in ("floordiv", "ceildiv"):
        return None
    t, k = atom.args
    lin = t.linear()
    if not lin or len(lin) != 1 or not k.is_const or k.const <= 0:
        return None
    (name, a), b = next(iter(lin.items())), t.const
    if a not in (1, -1):
        return None
    k = k.const
    if atom.kind == "floordiv":
        tlo = -INF if lo == -INF else lo * k
        thi = INF if hi == INF else hi * k + k - 1
    else:
        tlo = -INF if lo == -INF else (lo - 1) * k + 1
        thi = INF if hi == INF else hi * k
    slo, shi = tlo - b, thi - b
    return (name, slo, shi) if a == 1 else (name, -shi, -slo)


def atom_bounds_of_fact(op: str, c: int, r: int) -> tuple[object, object] | None:
    """The bounds of ``A`` implied by ``c*A + r <= 0`` (``op`` ``<=``) or ``c*A + r == 0``; None if none exist.

    >>> atom_bounds_of_fact("<=", 2, -7), atom_bounds_of_fact("==", 1, -3), atom_bounds_of_fact("==", 2, 1)
    ((-inf, 3), (3, 3), None)
    """
    if op == "==":
        return None if r % c else (-r // c, -r // c)
    return (-INF, floor_div(-r, c)) if c > 0 else (ceil_div(r, -c), INF)
