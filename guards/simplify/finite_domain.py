"""Exact reduction of the guards over symbols with small finite ranges, by enumeration (no Z3).

Note [Reducing over finite ranges]
    After the cheap passes, every symbol has one range. When a group of symbols has
    finite ranges whose product is small (a few thousand points), the guards that
    mention only those symbols can be decided exactly by looking at every point: each
    guard becomes the set of points where it holds (a bitmask), and the points the
    whole set admits are the intersection ``A``. Then

    * each symbol's range shrinks to the least and greatest value it takes in ``A``
      (a single value becomes ``Eq(s, v)``): these are consequences of the guards;
    * of the guards over the group, only enough are kept to exclude every point of the
      shrunk box ``B`` outside ``A``: a greedy cover, most points excluded first, cheaper
      guard on a tie, canonical order after that.

    Within ``B`` the kept guards admit exactly ``A``, and outside ``B`` the new ranges
    reject, so the result admits exactly what the input did: the step is exact by
    construction, like the other passes of :func:`guards.simplify.passes.reduce_exact`.

    A group is one connected component of "appear in a guard together" among the
    finite-range symbols (guards over different components are independent, so each
    component is enumerated alone). Guards that also mention a symbol outside the
    group, or that use a function this module does not evaluate, are kept untouched
    and are not used to drop others. A guard that raises at a point (``x // y`` with
    ``y == 0``) fails there, as in the compiled checker (Note [Guards that raise] in
    :mod:`guards.runtime.codegen`). The work is bounded by counts (points per component,
    point-evaluations per run), never by time, so the answer is deterministic.

>>> from symint.build import symbol_expr, eq, ge, le, lt, ne, mod, floordiv
>>> x, y = symbol_expr("x"), symbol_expr("y")
>>> exprs = [ge(x, 2), le(x, 9), ne(mod(x, 3), 0), lt(floordiv(x, 2), 3), ge(y, 0), le(y, 1), lt(y, x)]
>>> out = reduce_finite(exprs, {})
>>> [str(e) for e in out.exprs]
['x >= 2', 'x <= 5', 'y >= 0', 'y <= 1', 'Ne(x, 3)']
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.sympy_io.functions import CeilDiv, FloorDiv, Max, Min, Mod, PowByNatural
from valueranges import ValueRanges

from guards.simplify.classify import _canonical_key, _classify, _sym_key

__all__ = ["FiniteLimits", "FiniteReduction", "reduce_finite"]

INF = math.inf
_MAX_HOLES = 16  # per symbol: more values missing than this and no Ne(s, v) is offered


@dataclass(frozen=True, slots=True)
class FiniteLimits:
    """Counts that bound the enumeration (deterministic, see Note [Reducing over finite ranges]).

    Attributes:
        max_points: the largest box (product of range sizes) one component may have.
        max_evaluations: points times expression nodes, summed over the run.
        max_exponent: the largest integer exponent evaluated (larger ones leave the guard untouched).
    """

    max_points: int = 1 << 12
    max_evaluations: int = 1 << 18
    max_exponent: int = 64


@dataclass(frozen=True, slots=True)
class FiniteReduction:
    """The result of :func:`reduce_finite`.

    Attributes:
        exprs: the reduced guards: the untouched ones in their input order, then per component the
            new bounds and the kept guards.
        dropped: indices (into the input) of guards no longer in ``exprs``.
        added: the new guards (bounds, ``Ne(s, v)``), each with the input indices of its component.
        points: how many points were enumerated in all.
    """

    exprs: tuple[sympy.Basic, ...]
    dropped: frozenset[int]
    added: tuple[tuple[sympy.Basic, frozenset[int]], ...]
    points: int


class _Unsupported(Exception):
    """An expression this module does not evaluate; its guard is left untouched."""


def reduce_finite(
    exprs: Sequence[sympy.Basic],
    domain: Mapping[sympy.Symbol, ValueRanges],
    limits: FiniteLimits = FiniteLimits(),
    cost: Callable[[sympy.Basic], tuple] | None = None,
) -> FiniteReduction:
    """Reduce the guards over small finite ranges exactly (see Note [Reducing over finite ranges]).

    ``exprs`` are the guards (a conjunction), ``domain`` each symbol's range before any
    guard (sizes: ``[0, oo]``). ``cost`` orders guards that exclude equally many points
    (default: fewer expression nodes, then the text).

    >>> from symint.build import symbol_expr, ge, le, ne, mod
    >>> n = symbol_expr("n")
    >>> [str(e) for e in reduce_finite([ge(n, 3), le(n, 6), ne(mod(n, 2), 0), ne(n, 3)], {}).exprs]
    ['Eq(n, 5)']
    """
    ranges = _ranges(exprs, domain)
    finite = {s for s, (lo, hi) in ranges.items() if lo != -INF and hi != INF}
    definitions, base = _definitions(exprs, finite)
    members: dict[int, frozenset] = {}
    for i, e in enumerate(exprs):
        if i in definitions.guards:
            continue  # a definition holds by construction of its symbol's column: kept as it is
        syms = e.free_symbols
        if syms and syms <= base | definitions.exprs.keys():
            members[i] = frozenset().union(*(definitions.base_of.get(s, {s}) for s in syms))
    components = _components(members)
    processed: set[int] = set()
    given = set(exprs)
    tail: list[sympy.Basic] = []
    added: list[tuple[sympy.Basic, frozenset[int]]] = []
    budget = [limits.max_evaluations]
    points_total = 0
    cost = cost or _default_cost
    for symbols, indices in components:
        symbols = sorted(symbols, key=_sym_key)
        size = math.prod(max(0, int(ranges[s][1] - ranges[s][0] + 1)) for s in symbols)
        if size == 0 or size > limits.max_points:  # an empty range: a contradiction, left for the solver passes
            continue
        outcome = _reduce_component(exprs, indices, symbols, definitions, ranges, domain, size, limits, budget, cost)
        if outcome is None:
            continue
        new_bounds, keep_here = outcome  # keep_here: guards, some possibly new Ne(s, v)
        points_total += size
        processed.update(indices)
        added += [(g, frozenset(indices)) for g in new_bounds + keep_here if g not in given]
        tail += new_bounds + keep_here
    out = tuple(dict.fromkeys([e for i, e in enumerate(exprs) if i not in processed] + tail))
    present = set(out)
    dropped = frozenset(i for i, e in enumerate(exprs) if e not in present)
    return FiniteReduction(out, dropped, tuple(added), points_total)


def _default_cost(e: sympy.Basic) -> tuple:
    return (_size(e), _canonical_key(e)[3])  # the text, printed once and cached for the final sort too


def _size(e: sympy.Basic) -> int:
    return sum(1 for _ in sympy.preorder_traversal(e))


def _ranges(exprs: Sequence[sympy.Basic], domain: Mapping[sympy.Symbol, ValueRanges]) -> dict:
    """Each symbol's range from the domain and the single-symbol bound guards."""
    out: dict = {}
    for e in exprs:
        for s in e.free_symbols:
            if s not in out:
                rng = domain.get(s)
                out[s] = (-INF, INF) if rng is None else (rng.lower, rng.upper)
    for e in exprs:
        k = _classify(e)
        if k.kind in ("lower", "upper", "exact") and k.sym in out:
            lo, hi = out[k.sym]
            if k.kind in ("lower", "exact"):
                lo = max(lo, k.value)
            if k.kind in ("upper", "exact"):
                hi = min(hi, k.value)
            out[k.sym] = (lo, hi)
    return out


@dataclass(frozen=True, slots=True)
class _Definitions:
    """The guards ``Eq(s, expr)`` used to compute ``s`` from the enumerated symbols.

    Attributes:
        exprs: defined symbol -> its expression.
        base_of: defined symbol -> the enumerated symbols its value depends on.
        order: the defined symbols, each after the defined symbols its expression uses.
        guards: the indices of the defining guards.
    """

    exprs: dict
    base_of: dict
    order: tuple
    guards: frozenset


def _definitions(exprs: Sequence[sympy.Basic], finite: set) -> tuple[_Definitions, set]:
    """The usable definitions, and the symbols to enumerate (finite ranges, not defined)."""
    offered: dict = {}
    for i, e in enumerate(exprs):
        if not isinstance(e, sympy.Eq):
            continue
        for sym, expr in sorted(((e.lhs, e.rhs), (e.rhs, e.lhs)), key=lambda t: _sym_key(t[0]) if t[0].is_Symbol else (), reverse=True):
            if sym.is_Symbol and sym not in expr.free_symbols and sym not in offered and not expr.is_Number:
                offered[sym] = (i, expr)
                break
    base = set(finite) - offered.keys()
    while True:
        resolved: dict = {}
        order: list = []
        progress = True
        while progress:
            progress = False
            for sym, (i, expr) in offered.items():
                if sym in resolved:
                    continue
                uses = expr.free_symbols
                if uses <= base | resolved.keys():
                    resolved[sym] = frozenset().union(*(resolved.get(u, {u}) for u in uses))
                    order.append(sym)
                    progress = True
        stuck = {sym for sym in offered if sym not in resolved and sym in finite and sym not in base}
        if not stuck:
            break
        base |= stuck  # a finite symbol whose definition cannot be computed is enumerated instead
    guards = frozenset(offered[sym][0] for sym in resolved)
    return _Definitions({sym: offered[sym][1] for sym in resolved}, resolved, tuple(order), guards), base


def _components(members: dict[int, frozenset]) -> list[tuple[frozenset, list[int]]]:
    """Connected components of the symbols through the guards that mention them together."""
    parent: dict = {}

    def find(s):
        while parent.setdefault(s, s) is not s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for syms in members.values():
        first, *rest = syms
        for s in rest:
            a, b = find(first), find(s)
            if a is not b:
                parent[a] = b
    groups: dict = {}
    for i, syms in members.items():
        root = find(next(iter(syms)))
        groups.setdefault(root, ([], set()))
        groups[root][0].append(i)
        groups[root][1].update(syms)
    ordered = sorted(groups.values(), key=lambda g: min(g[0]))
    return [(frozenset(syms), indices) for indices, syms in ordered]


def _reduce_component(exprs, indices, symbols, definitions, ranges, domain, size, limits, budget, cost):
    """(new bounds, guards to keep) for one component, or None to leave it alone."""
    axes = [range(int(ranges[s][0]), int(ranges[s][1]) + 1) for s in symbols]
    points = list(itertools.product(*axes))
    columns = {s: [p[k] for p in points] for k, s in enumerate(symbols)}
    full = (1 << size) - 1
    masks: dict[int, int] = {}
    memo: dict = {}
    for s in definitions.order:  # defined symbols of this component, each after those it uses
        if definitions.base_of[s] <= set(symbols):
            try:
                columns[s] = _values(definitions.exprs[s], columns, memo, size, limits, budget)
            except _Unsupported:
                pass  # guards that mention s are then left untouched
    for i in indices:
        if budget[0] <= 0:
            return None
        try:
            values = _truth(exprs[i], columns, memo, size, limits, budget)
        except _Unsupported:
            continue
        masks[i] = _mask(values)
    if not masks:
        return None
    admitted = full
    for m in masks.values():
        admitted &= m
    if admitted == 0:  # the guards admit nothing here: leave them for the solver passes to report
        return None
    bounds, box, holes = _shrunk_bounds(symbols, points, admitted, ranges, domain)
    # Candidates for the cover: the guards, and Ne(s, v) for each value v of a shrunk
    # range that no admitted point takes (true wherever the guards hold, so implied).
    options = [(cost(exprs[i]), exprs[i], masks[i]) for i in masks]
    for k, s in enumerate(symbols):
        if not holes[k] or len(holes[k]) > _MAX_HOLES:  # many holes: the guards state them better
            continue
        at = _masks_by_value(points, k)
        for v in holes[k]:
            hole = build.ne(s, v)
            options.append((cost(hole), hole, full & ~at[v]))
    options.sort(key=lambda t: t[0])
    uncovered = box & ~admitted
    keep: list[sympy.Basic] = []
    while uncovered:
        best, best_count = None, 0
        for option in options:
            count = (uncovered & ~option[2]).bit_count()
            if count > best_count:
                best, best_count = option, count
        keep.append(best[1])
        uncovered &= best[2]
        options.remove(best)
    keep += [exprs[i] for i in indices if i not in masks]  # not evaluated: untouched
    return bounds, keep


def _masks_by_value(points: list[tuple], k: int) -> dict[int, int]:
    """For each value of coordinate ``k``, the bitmask of the points that have it."""
    out: dict[int, int] = {}
    for i, p in enumerate(points):
        out[p[k]] = out.get(p[k], 0) | (1 << i)
    return out


def _shrunk_bounds(symbols, points, admitted, ranges, domain):
    """Each symbol's bound guards over the admitted points, the mask of their box, and the values inside it no admitted point takes."""
    seen = [set() for _ in symbols]
    bits = admitted
    k = 0
    while bits:
        if bits & 1:
            for j, v in enumerate(points[k]):
                seen[j].add(v)
        bits >>= 1
        k += 1
    bounds, limits, holes = [], [], []
    for s, values in zip(symbols, seen):
        lo, hi = min(values), max(values)
        limits.append((lo, hi))
        holes.append([v for v in range(lo + 1, hi) if v not in values])
        if lo == hi:
            bounds.append(build.eq(s, lo))
            continue
        base = domain.get(s)
        if base is None or base.lower < lo:
            bounds.append(build.ge(s, lo))
        if base is None or base.upper > hi:
            bounds.append(build.le(s, hi))
    box = 0
    for k, p in enumerate(points):
        if all(lo <= v <= hi for v, (lo, hi) in zip(p, limits)):
            box |= 1 << k
    return bounds, box, holes


def _mask(values: list) -> int:
    """The bitmask of the points where ``values`` is True (None, an error, counts as False)."""
    return int("".join(["1" if v is True else "0" for v in reversed(values)]) or "0", 2)


# -- evaluation over all points at once -------------------------------------------------------------
_REL = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def _truth(e: sympy.Basic, columns, memo, size, limits, budget) -> list:
    """``e``'s truth at every point: True, False, or None where evaluating it raises."""
    if e is sympy.true or e is sympy.false:
        return [bool(e)] * size
    if isinstance(e, Relational):
        a = _values(e.lhs, columns, memo, size, limits, budget)
        b = _values(e.rhs, columns, memo, size, limits, budget)
        rel = _REL[e.rel_op]
        return [None if x is None or y is None else rel(x, y) for x, y in zip(a, b)]
    if isinstance(e, sympy.And):
        parts = [_truth(a, columns, memo, size, limits, budget) for a in e.args]
        # a raising conjunct fails the guard wherever it raises, whatever the others say
        return [None if None in col else all(col) for col in zip(*parts)]
    raise _Unsupported(e)


def _values(e: sympy.Basic, columns, memo, size, limits, budget) -> list:
    """``e``'s integer value at every point (None where it raises)."""
    found = memo.get(e)
    if found is not None:
        return found
    budget[0] -= size
    if budget[0] < 0:
        raise _Unsupported(e)
    if e.is_Symbol:
        out = columns.get(e)
        if out is None:
            raise _Unsupported(e)
    elif e.is_Integer:
        out = [int(e)] * size
    else:
        args = [_values(a, columns, memo, size, limits, budget) for a in e.args]
        out = _apply(e, args, limits)
    memo[e] = out
    return out


def _apply(e: sympy.Basic, args: list[list], limits: FiniteLimits) -> list:
    if isinstance(e, sympy.Add):
        return [None if None in col else sum(col) for col in zip(*args)]
    if isinstance(e, sympy.Mul):
        return [None if None in col else math.prod(col) for col in zip(*args)]
    if isinstance(e, (sympy.Pow, PowByNatural)):
        base, exp = args
        if any(x is not None and not 0 <= x <= limits.max_exponent for x in exp):
            raise _Unsupported(e)
        return [None if b is None or x is None else b**x for b, x in zip(base, exp)]
    if isinstance(e, (FloorDiv, CeilDiv, Mod)):
        kind = FloorDiv if isinstance(e, FloorDiv) else CeilDiv if isinstance(e, CeilDiv) else Mod
        return [_divide(kind, a, b) for a, b in zip(*args)]
    if isinstance(e, (Max, Min)):
        pick = max if isinstance(e, Max) else min
        return [None if None in col else pick(col) for col in zip(*args)]
    raise _Unsupported(e)


def _divide(kind, a, b):
    if a is None or b is None or b == 0:
        return None
    if kind is FloorDiv:
        return a // b
    if kind is CeilDiv:
        return -((-a) // b)
    return a % b
