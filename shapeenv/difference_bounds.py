"""Tightening symbol bounds through difference constraints (``a1 >= a0 + 8`` and ``a0 >= 6`` give ``a1 >= 14``).

A guard ``x - y >= c`` (any relation whose ``lhs - rhs`` is ``x - y + k``) ties the
bounds of two symbols: ``lower(x) >= lower(y) + c`` and ``upper(y) <= upper(x) - c``.
Propagating these along every such guard (Bellman-Ford over the constraint graph,
at most one round per symbol, so it stops even on cycles) gives each symbol the
bounds the guards imply; the produced guard set states them (``14 <= y.size()[0]``),
as torch's does. Every tightened bound is a consequence of the guards, so adding it
keeps the set equivalent.

>>> from symint.build import symbol_expr, ge, add
>>> from valueranges import ValueRanges as VR
>>> a0, a1 = symbol_expr("a0"), symbol_expr("a1")
>>> out = tighten({a0: VR.of(6, 100), a1: VR.of(2, 200)}, [ge(a1, add(a0, 8))])
>>> str(out[a1]), a0 in out
('[14, 200]', False)
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.linear import linear_form
from valueranges import ValueRanges

__all__ = ["difference_constraints", "tighten"]


def difference_constraints(exprs: Iterable[sympy.Basic]) -> list[tuple[sympy.Symbol, sympy.Symbol, int]]:
    """``(x, y, c)`` meaning ``x - y >= c``, for each guard of that form (``==`` gives two).

    >>> from symint.build import symbol_expr, lt
    >>> a, b = symbol_expr("a"), symbol_expr("b")
    >>> difference_constraints([lt(a, b)])
    [(b, a, 1)]
    """
    out = []
    for e in exprs:
        if not isinstance(e, Relational) or e.rel_op == "!=":
            continue
        lf = linear_form(build.sub(e.lhs, e.rhs))
        if lf is None or len(lf[0]) != 2 or sorted(lf[0].values()) != [-1, 1]:
            continue
        coeffs, k = lf
        x = next(s for s, c in coeffs.items() if c == 1)
        y = next(s for s, c in coeffs.items() if c == -1)
        if not isinstance(k, int) and not (isinstance(k, sympy.Integer)):
            continue
        k = int(k)
        # x - y + k  (op)  0
        if e.rel_op in (">=", "=="):
            out.append((x, y, -k))
        if e.rel_op == ">":
            out.append((x, y, -k + 1))
        if e.rel_op in ("<=", "=="):
            out.append((y, x, k))
        if e.rel_op == "<":
            out.append((y, x, k + 1))
    return out


def tighten(ranges: Mapping[sympy.Symbol, ValueRanges], exprs: Iterable[sympy.Basic]) -> dict[sympy.Symbol, ValueRanges]:
    """The ranges that the difference constraints among ``exprs`` tighten (only those that changed).

    Symbols without a range are unbounded. Returns ``{}`` when nothing tightens.
    """
    edges = difference_constraints(exprs)
    if not edges:
        return {}
    lo: dict[sympy.Symbol, float] = {}
    hi: dict[sympy.Symbol, float] = {}
    for x, y, _ in edges:
        for s in (x, y):
            r = ranges.get(s) or ValueRanges.unknown()
            lo.setdefault(s, r.lower)
            hi.setdefault(s, r.upper)
    for _ in range(len(lo)):
        changed = False
        for x, y, c in edges:  # x >= y + c
            if lo[y] != -math.inf and lo[y] + c > lo[x]:
                lo[x], changed = lo[y] + c, True
            if hi[x] != math.inf and hi[x] - c < hi[y]:
                hi[y], changed = hi[x] - c, True
        if not changed:
            break
    out = {}
    for s in lo:
        old = ranges.get(s) or ValueRanges.unknown()
        if lo[s] > old.lower or hi[s] < old.upper:
            if lo[s] > hi[s]:
                continue  # contradictory guards: left to the rest of the pipeline to report
            out[s] = ValueRanges.of(lo[s], hi[s])
    return out
