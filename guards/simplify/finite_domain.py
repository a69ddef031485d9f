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

    The pass works on boolean forms (:func:`reduce_finite_forms`), for ``produce_guards``
    (:mod:`guards.simplify.reduce_forms`) and for :func:`~guards.simplify.passes.simplify` alike.

>>> from symint.sympy_io import to_sympy
>>> x, y = F.sym("x"), F.sym("y")
>>> c = F.const
>>> guards = [B.rel(">=", x, c(2)), B.rel("<=", x, c(9)), B.rel("!=", F.mod(x, c(3)), c(0)),
...           B.rel("<", F.floordiv(x, c(2)), c(3)), B.rel(">=", y, c(0)), B.rel("<=", y, c(1)), B.rel("<", y, x)]
>>> [str(to_sympy(f)) for f in reduce_finite_forms(guards, {}).forms]
['x >= 2', 'x <= 5', 'y >= 0', 'y <= 1', 'Ne(x, 3)']
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Hashable, Mapping, Sequence

from symint import form as F
from symint.form import logic as B
from symint.form.logic import BoolForm

from guards.guard import form_key
from guards.simplify.classify import classify_form, form_order_key, form_size, _name_key

__all__ = ["FiniteLimits", "FiniteFormReduction", "reduce_finite_forms"]

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
class FiniteFormReduction:
    """The result of :func:`reduce_finite_forms`.

    Attributes:
        forms: the reduced guards (untouched ones in input order, then per component the new bounds and the kept guards).
        dropped: indices (into the input) of guards no longer in ``forms``.
        added: the new guards, each with the input indices of its component.
        points: how many points were enumerated in all.
    """

    forms: tuple[BoolForm, ...]
    dropped: frozenset[int]
    added: tuple[tuple[BoolForm, frozenset[int]], ...]
    points: int


class _Unsupported(Exception):
    """An expression this module does not evaluate; its guard is left untouched."""


def reduce_finite_forms(
    guards: Sequence[BoolForm],
    domain: Mapping[str, tuple],
    limits: FiniteLimits = FiniteLimits(),
    cost: Callable[[BoolForm], tuple] | None = None,
) -> FiniteFormReduction:
    """Reduce the guards (boolean forms) over small finite ranges exactly (see Note [Reducing over finite ranges]).

    ``domain`` gives each symbol's ``(lower, upper)`` before any guard, by name. ``cost``
    orders guards that exclude equally many points (default: fewer nodes, then the canonical key).

    >>> from symint.sympy_io import to_sympy
    >>> x = F.sym("x")
    >>> out = reduce_finite_forms([B.rel(">=", x, F.const(3)), B.rel("<=", x, F.const(6)),
    ...                            B.rel("!=", F.mod(x, F.const(2)), F.const(0)), B.rel("!=", x, F.const(3))], {})
    >>> [str(to_sympy(f)) for f in out.forms]
    ['Eq(x, 5)']
    """
    ranges = _ranges(guards, domain)
    finite = {s for s, (lo, hi) in ranges.items() if lo != -INF and hi != INF}
    definitions, base = _definitions(guards, finite)
    members: dict[int, frozenset] = {}
    for i, g in enumerate(guards):
        if i in definitions.guards:
            continue  # a definition holds by construction of its symbol's column: kept as it is
        syms = g.symbols
        if syms and syms <= base | definitions.exprs.keys():
            members[i] = frozenset().union(*(definitions.base_of.get(s, {s}) for s in syms))
    components = _components(members)
    processed: set[int] = set()
    given = {form_key(g) for g in guards}
    tail: list[BoolForm] = []
    added: list[tuple[BoolForm, frozenset[int]]] = []
    budget = [limits.max_evaluations]
    points_total = 0
    cost = cost or _default_cost
    for symbols, indices in components:
        symbols = sorted(symbols, key=_name_key)
        size = math.prod(max(0, int(ranges[s][1] - ranges[s][0] + 1)) for s in symbols)
        if size == 0 or size > limits.max_points:  # an empty range: a contradiction, left for the solver passes
            continue
        outcome = _reduce_component(guards, indices, symbols, definitions, ranges, domain, size, limits, budget, cost)
        if outcome is None:
            continue
        new_bounds, keep_here = outcome  # keep_here: guards, some possibly new Ne(s, v)
        points_total += size
        processed.update(indices)
        added += [(g, frozenset(indices)) for g in new_bounds + keep_here if form_key(g) not in given]
        tail += new_bounds + keep_here
    out = _unique([g for i, g in enumerate(guards) if i not in processed] + tail)
    present = {form_key(g) for g in out}
    dropped = frozenset(i for i, g in enumerate(guards) if form_key(g) not in present)
    return FiniteFormReduction(tuple(out), dropped, tuple(added), points_total)


def _unique(guards: list[BoolForm]) -> list[BoolForm]:
    seen: dict[Hashable, BoolForm] = {}
    for g in guards:
        seen.setdefault(form_key(g), g)
    return list(seen.values())


def _default_cost(g: BoolForm) -> tuple:
    return (form_size(g), form_order_key(g))


def _ranges(guards: Sequence[BoolForm], domain: Mapping[str, tuple]) -> dict:
    """Each symbol's range from the domain and the single-symbol bound guards."""
    out: dict = {}
    for g in guards:
        for s in g.symbols:
            if s not in out:
                out[s] = domain.get(s, (-INF, INF))
    for g in guards:
        k = classify_form(g)
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
        exprs: defined symbol -> its form.
        base_of: defined symbol -> the enumerated symbols its value depends on.
        order: the defined symbols, each after the defined symbols its expression uses.
        guards: the indices of the defining guards.
    """

    exprs: dict
    base_of: dict
    order: tuple
    guards: frozenset


def _symbol_name(f: "F.Form") -> str | None:
    atom = f.atom()
    return atom.name if atom is not None and atom.kind == "sym" else None


def _definitions(guards: Sequence[BoolForm], finite: set) -> tuple[_Definitions, set]:
    """The usable definitions, and the symbols to enumerate (finite ranges, not defined)."""
    offered: dict = {}
    for i, g in enumerate(guards):
        if g.kind != "rel" or g.args[0] != "==":
            continue
        _, lhs, rhs = g.args
        sides = sorted(((lhs, rhs), (rhs, lhs)), key=lambda t: _name_key(_symbol_name(t[0]) or ""), reverse=True)
        for side, expr in sides:
            name = _symbol_name(side)
            if name is not None and name not in expr.symbols and name not in offered and not expr.is_const:
                offered[name] = (i, expr)
                break
    base = set(finite) - offered.keys()
    while True:
        resolved: dict = {}
        order: list = []
        progress = True
        while progress:
            progress = False
            for name, (i, expr) in offered.items():
                if name in resolved:
                    continue
                uses = expr.symbols
                if uses <= base | resolved.keys():
                    resolved[name] = frozenset().union(*(resolved.get(u, {u}) for u in uses))
                    order.append(name)
                    progress = True
        stuck = {name for name in offered if name not in resolved and name in finite and name not in base}
        if not stuck:
            break
        base |= stuck  # a finite symbol whose definition cannot be computed is enumerated instead
    guards_ = frozenset(offered[name][0] for name in resolved)
    return _Definitions({name: offered[name][1] for name in resolved}, resolved, tuple(order), guards_), base


def _components(members: dict[int, frozenset]) -> list[tuple[frozenset, list[int]]]:
    """Connected components of the symbols through the guards that mention them together."""
    parent: dict = {}

    def find(s):
        while parent.setdefault(s, s) != s:
            parent[s] = parent[parent[s]]
            s = parent[s]
        return s

    for syms in members.values():
        first, *rest = sorted(syms, key=_name_key)
        for s in rest:
            a, b = find(first), find(s)
            if a != b:
                parent[a] = b
    groups: dict = {}
    for i, syms in members.items():
        root = find(next(iter(syms)))
        groups.setdefault(root, ([], set()))
        groups[root][0].append(i)
        groups[root][1].update(syms)
    ordered = sorted(groups.values(), key=lambda g: min(g[0]))
    return [(frozenset(syms), indices) for indices, syms in ordered]


class _Columns:
    """The values of forms at every point of a component, computed once per form or atom (budgeted)."""

    def __init__(self, columns: dict[str, list], size: int, limits: FiniteLimits, budget: list[int]):
        self.columns, self.size, self.limits, self.budget = columns, size, limits, budget
        self.memo: dict[int, list] = {}

    def _spend(self, what) -> None:
        self.budget[0] -= self.size
        if self.budget[0] < 0:
            raise _Unsupported(what)

    def form(self, f: "F.Form") -> list:
        """``f``'s integer value at every point (None where it raises)."""
        found = self.memo.get(f.uid)
        if found is not None:
            return found
        self._spend(f)
        total = None
        for m, c in f.terms:
            col = None
            for atom, p in m.factors:
                vals = self.atom(atom)
                if p > self.limits.max_exponent:
                    raise _Unsupported(atom)
                if p != 1:
                    vals = [v**p for v in vals] if None not in vals else [None if v is None else v**p for v in vals]
                col = vals if col is None else _combine(col, vals, _MUL)
            if c != 1:
                col = [c * v for v in col] if None not in col else [None if v is None else c * v for v in col]
            total = col if total is None else _combine(total, col, _ADD)
        k = f.const
        if total is None:
            total = [k] * self.size
        elif k:
            total = [k + v for v in total] if None not in total else [None if v is None else k + v for v in total]
        self.memo[f.uid] = total
        return total

    def atom(self, a: "F.Atom") -> list:
        found = self.memo.get(a.uid)
        if found is not None:
            return found
        kind = a.kind
        if kind == "sym":
            out = self.columns.get(a.name)
            if out is None:
                raise _Unsupported(a)
        else:
            self._spend(a)
            args = [self.form(x) for x in a.args]
            if kind in ("floordiv", "ceildiv", "mod"):
                x, y = args
                if None in x or None in y or 0 in y:
                    out = [_divide(kind, u, v) for u, v in zip(x, y)]
                elif kind == "floordiv":
                    out = [u // v for u, v in zip(x, y)]
                elif kind == "mod":
                    out = [u % v for u, v in zip(x, y)]
                else:
                    out = [-(-u // v) for u, v in zip(x, y)]
            elif kind in ("max", "min"):
                pick = max if kind == "max" else min
                out = [None if None in col else pick(col) for col in zip(*args)]
            elif kind == "pow":
                base, exp = args
                if any(x is not None and not 0 <= x <= self.limits.max_exponent for x in exp):
                    raise _Unsupported(a)
                out = [None if b is None or x is None else b**x for b, x in zip(base, exp)]
            else:  # opaque: a sympy expression this pass does not evaluate
                raise _Unsupported(a)
        self.memo[a.uid] = out
        return out

    def truth(self, g: BoolForm) -> list:
        """``g``'s truth at every point: True, False, or None where evaluating it raises."""
        kind = g.kind
        if kind == "const":
            return [g.value] * self.size
        if kind == "rel":
            op, lhs, rhs = g.args
            a, b = self.form(lhs), self.form(rhs)
            if None in a or None in b:
                rel = _REL[op]
                return [None if x is None or y is None else rel(x, y) for x, y in zip(a, b)]
            return _compare(op, a, b)
        if kind == "and":
            parts = [self.truth(x) for x in g.args]
            # a raising conjunct fails the guard wherever it raises, whatever the others say
            return [None if None in col else all(col) for col in zip(*parts)]
        raise _Unsupported(g)


def _reduce_component(guards, indices, symbols, definitions, ranges, domain, size, limits, budget, cost):
    """(new bounds, guards to keep) for one component, or None to leave it alone."""
    axes = [range(int(ranges[s][0]), int(ranges[s][1]) + 1) for s in symbols]
    points = list(itertools.product(*axes))
    values = _Columns({s: [p[k] for p in points] for k, s in enumerate(symbols)}, size, limits, budget)
    full = (1 << size) - 1
    masks: dict[int, int] = {}
    for s in definitions.order:  # defined symbols of this component, each after those it uses
        if definitions.base_of[s] <= set(symbols):
            try:
                values.columns[s] = values.form(definitions.exprs[s])
            except _Unsupported:
                pass  # guards that mention s are then left untouched
    for i in indices:
        if budget[0] <= 0:
            return None
        try:
            truth = values.truth(guards[i])
        except _Unsupported:
            continue
        masks[i] = _mask(truth)
    if not masks:
        return None
    admitted = full
    for m in masks.values():
        admitted &= m
    if admitted == 0:  # the guards admit nothing here: leave them for the solver passes to report
        return None
    bounds, box, holes = _shrunk_bounds(symbols, points, admitted, domain)
    # Candidates for the cover: the guards, and Ne(s, v) for each value v of a shrunk
    # range that no admitted point takes (true wherever the guards hold, so implied).
    options = [(cost(guards[i]), guards[i], masks[i]) for i in masks]
    for k, s in enumerate(symbols):
        if not holes[k] or len(holes[k]) > _MAX_HOLES:  # many holes: the guards state them better
            continue
        at = _masks_by_value(points, k)
        for v in holes[k]:
            hole = B.rel("!=", F.sym(s), F.const(v))
            options.append((cost(hole), hole, full & ~at[v]))
    options.sort(key=lambda t: t[0])
    uncovered = box & ~admitted
    keep: list[BoolForm] = []
    while uncovered:
        best, best_count = None, 0
        for option in options:
            count = (uncovered & ~option[2]).bit_count()
            if count > best_count:
                best, best_count = option, count
        keep.append(best[1])
        uncovered &= best[2]
        options.remove(best)
    keep += [guards[i] for i in indices if i not in masks]  # not evaluated: untouched
    return bounds, keep


def _masks_by_value(points: list[tuple], k: int) -> dict[int, int]:
    """For each value of coordinate ``k``, the bitmask of the points that have it."""
    out: dict[int, int] = {}
    for i, p in enumerate(points):
        out[p[k]] = out.get(p[k], 0) | (1 << i)
    return out


def _shrunk_bounds(symbols, points, admitted, domain):
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
        x = F.sym(s)
        if lo == hi:
            bounds.append(B.rel("==", x, F.const(lo)))
            continue
        base = domain.get(s)
        if base is None or base[0] < lo:
            bounds.append(B.rel(">=", x, F.const(lo)))
        if base is None or base[1] > hi:
            bounds.append(B.rel("<=", x, F.const(hi)))
    box = 0
    for k, p in enumerate(points):
        if all(lo <= v <= hi for v, (lo, hi) in zip(p, limits)):
            box |= 1 << k
    return bounds, box, holes


def _mask(values: list) -> int:
    """The bitmask of the points where ``values`` is True (None, an error, counts as False)."""
    return int("".join(["1" if v is True else "0" for v in reversed(values)]) or "0", 2)


_REL = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}


def _compare(op: str, a: list, b: list) -> list:
    if op == "==":
        return [x == y for x, y in zip(a, b)]
    if op == "!=":
        return [x != y for x, y in zip(a, b)]
    if op == "<":
        return [x < y for x, y in zip(a, b)]
    if op == "<=":
        return [x <= y for x, y in zip(a, b)]
    if op == ">":
        return [x > y for x, y in zip(a, b)]
    return [x >= y for x, y in zip(a, b)]


_ADD, _MUL = 0, 1


def _combine(a: list, b: list, op: int) -> list:
    """``a + b`` or ``a * b`` pointwise (None, a point where evaluating raised, stays None)."""
    if None in a or None in b:
        if op == _ADD:
            return [None if x is None or y is None else x + y for x, y in zip(a, b)]
        return [None if x is None or y is None else x * y for x, y in zip(a, b)]
    if op == _ADD:
        return [x + y for x, y in zip(a, b)]
    return [x * y for x, y in zip(a, b)]


def _divide(kind, a, b):
    if a is None or b is None or b == 0:
        return None
    if kind == "floordiv":
        return a // b
    if kind == "ceildiv":
        return -((-a) // b)
    return a % b
