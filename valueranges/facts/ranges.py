"""Ranges: one interval per symbol, tightened through linear facts and inverted through divisions.

The range part of :class:`~valueranges.facts.Facts` (TVM's ``ConstIntBoundAnalyzer`` keeps
the same per-variable knowledge): intersecting a new range (:func:`intersect`, which
rounds the ends inwards to a known step), tightening ranges through linear facts
(:func:`propagate_rounds`) and the exact preimages of floor and ceiling division bounds
(:func:`division_preimage`).

``lo <= t // k <= hi`` holds exactly when ``lo*k <= t <= hi*k + k - 1`` (for ``k > 0``),
and ``lo <= ceil(t / k) <= hi`` exactly when ``(lo - 1)*k + 1 <= t <= hi*k``. With
``t = +-s + b`` that is a range of the symbol ``s``. The facade uses it both when a
replaced symbol ``x = t // k + c`` is narrowed and when a fact ``c*(t // k) + r <= 0``
(or ``== 0``) is learned.

>>> from symint import form as F
>>> division_preimage(F.floordiv(F.sym("s"), F.const(8)).atom(), 4, 15)
('s', 32, 127)
>>> division_preimage(F.ceildiv(F.sym("s"), F.const(4)).atom(), 3, 3)
('s', 9, 12)
>>> intersect("n", (-INF, INF), 2, INF, 8)
(8, inf)
"""

from __future__ import annotations

import math
from typing import Callable, Container

from symint.form import logic as B
from symint import form as F
from symint.form.logic import Norm
from symint.lazy_sympy import lazy_module

from ..errors import ContradictoryFactsError
from ..linear_facts import LinearFacts, propagate

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["division_preimage", "atom_bounds_of_fact", "floor_div", "ceil_div", "intersect", "propagate_rounds",
           "eliminate_pairs"]

INF = math.inf


def floor_div(p, q: int):
    """``p // q`` (``p`` an int)."""
    return p // q


def ceil_div(p, q: int):
    """``-(-p // q)`` (``p`` an int)."""
    return -((-p) // q)


def intersect(name: str, old: tuple, lo, hi, step: int = 1, why: "str | object" = "") -> tuple:
    """``old`` intersected with ``[lo, hi]``, the ends rounded inwards to multiples of ``step``.

    A multiple of ``k``: the ends round inwards (``n >= 2`` and ``n % 8 == 0``: ``n >= 8``).

    Raises:
        ContradictoryFactsError: the intersection is empty (``why`` says where the new range came from).

    >>> intersect("n", (0, 10), 3, INF)
    (3, 10)
    """
    new_lo, new_hi = max(old[0], lo), min(old[1], hi)
    if step > 1:
        if new_lo != -INF:
            new_lo = ceil_div(new_lo, step) * step
        if new_hi != INF:
            new_hi = floor_div(new_hi, step) * step
    if new_lo > new_hi:
        raise ContradictoryFactsError(
            f"{name} cannot be in both [{fmt(old[0])}, {fmt(old[1])}] and [{fmt(lo)}, {fmt(hi)}]{why_text(why)}"
        )
    return new_lo, new_hi


def propagate_rounds(
    fact: Norm, linear: LinearFacts, ranges, narrow: Callable[..., bool], skip: Container[str], rounds: int = 4
) -> None:
    """Tighten symbol ranges through linear facts (bounds propagation, a bounded number of rounds).

    ``a1 >= a0 + 8`` with ``a0 >= 6`` narrows ``a1`` to ``[14, oo]``; a narrowed symbol
    re-propagates the facts that mention it, ``rounds`` times at most (a count, so the
    result is deterministic and the work bounded even for cycles such as ``x < y < x + 5``).
    ``narrow(name, lo, hi, why) -> changed`` applies one narrowing; symbols in ``skip``
    (replaced ones) are left alone.
    """
    work = [fact]
    for _ in range(rounds):
        narrowed: list[str] = []
        for f in work:
            if isinstance(f, bool) or f.op == "!=" or not f.p.linear():
                continue
            for name, lo, hi in propagate(f, ranges):
                if name not in skip and narrow(name, lo, hi, f):
                    narrowed.append(name)
        if not narrowed:
            return
        work = [f for name in dict.fromkeys(narrowed) for f in linear.mentioning(name)]


def eliminate_pairs(fact: Norm, linear: LinearFacts) -> list[Norm]:
    """The one-symbol relations that ``fact`` and one known linear relation give by eliminating a symbol.

    One step of Fourier-Motzkin elimination, as JAX combines its constraints: ``c + 3*d >= 10``
    and ``c - 2*d >= -4`` give ``2*(10 - c - 3*d) + 3*(-4 - c + 2*d) = 8 - 5*c <= 0``, so
    ``c >= 2`` (the normal form rounds it). Only ``<=`` facts linear in their symbols,
    and only results left with one symbol: the work is one pass over the facts sharing a symbol.

    >>> from symint.form.logic import rel
    >>> c, d = F.sym("c"), F.sym("d")
    >>> known = LinearFacts([rel(">=", F.add(c, F.scale(d, 3)), F.const(10)).norm])
    >>> [str(n) for n in eliminate_pairs(rel(">=", F.sub(c, F.scale(d, 2)), F.const(-4)).norm, known)]
    ['Norm(-c + 2 <= 0)']
    """
    if fact.op != "<=":
        return []
    mine = fact.p.linear()
    if not mine or len(mine) < 2:
        return []
    out = []
    for name, a in mine.items():
        for other in linear.mentioning(name):
            if other is fact or other.op != "<=":
                continue
            theirs = other.p.linear()
            b = theirs.get(name) if theirs else None
            if b is None or (a > 0) == (b > 0):
                continue  # same sign: adding them keeps the symbol
            combined = F.add(F.scale(fact.p, abs(b)), F.scale(other.p, abs(a)))
            lin = combined.linear()
            if lin is not None and len(lin) == 1:
                n = B.normalise("<=", combined)
                if isinstance(n, Norm):
                    out.append(n)
    return out


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


def why_text(why) -> str:
    """`` (from ...)``: where a range came from, for messages (``why`` is text, a Norm or a BoolForm)."""
    if isinstance(why, str):
        return why
    if isinstance(why, Norm):
        return f" (from {_io.to_sympy(B.rel(why.op, why.p, F.const(0)))})"
    return f" (from {_io.to_sympy(why)})"


def fmt(v) -> str:
    """An endpoint as printed in messages."""
    return "oo" if v == INF else ("-oo" if v == -INF else str(v))
