"""The facts pass of guard-set simplification: equalities, one range per symbol, divisibility.

Split out of :mod:`guards.simplify.passes` (which drives the passes and the proof): this
module classifies guards into the simple forms it understands (bounds, ``!=``
constants, divisibility, definitions ``Eq(s, expr)``) and folds them into
:class:`_Facts`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.sympy_io.functions import CeilDiv, FloorDiv, IntTrueDiv, Mod
from symint.sympy_io import NotAnIntegerForm, from_sympy
from symint.sympy_io import substitute
from valueranges import ValueRanges, ValueRangeError, bound

from guards.text.escape import sympy_str

INF = math.inf


def _natural(name: str) -> tuple:
    """Sort key putting ``s2`` before ``s10``."""
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name) if t)


def _sym_key(sym: sympy.Symbol) -> tuple:
    return _natural(sym.name)


def _conjuncts(expr: sympy.Basic) -> Iterable[sympy.Basic]:
    # And(a, b) holds (evaluates to True without raising) exactly when a and b both hold.
    if isinstance(expr, sympy.And):
        for arg in expr.args:
            yield from _conjuncts(arg)
    else:
        yield expr


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _ceil_mult(x: float | int, m: int) -> float | int:
    return x if x in (INF, -INF) else _ceil_div(int(x), m) * m


def _floor_mult(x: float | int, m: int) -> float | int:
    return x if x in (INF, -INF) else (int(x) // m) * m


@dataclass(frozen=True, slots=True)
class _Kind:
    """What a guard says, when it is one of the simple forms simplification understands."""

    kind: str  # "eqsym", "lower", "upper", "exact", "ne", "div", "false", "true", "other"
    sym: sympy.Symbol | None = None
    value: object = None


@lru_cache(maxsize=1 << 14)
def _classify(e: sympy.Basic) -> _Kind:
    if not isinstance(e, Relational) or build.is_bool_expr(e.lhs) or build.is_bool_expr(e.rhs):
        return _Kind("other")
    op = e.rel_op
    diff = build.sub(e.lhs, e.rhs)
    if op == "==" and isinstance(diff, Mod) and diff.args[0].is_Symbol and diff.args[1].is_Integer:
        return _Kind("div", diff.args[0], abs(int(diff.args[1])))
    try:
        form = from_sympy(diff)
    except NotAnIntegerForm:
        return _Kind("other")
    lin = form.linear()
    if lin is None:
        return _Kind("other")
    coeffs, k = {build.symbol_expr(n): c for n, c in lin.items()}, form.const
    if len(coeffs) == 2 and op == "==" and k == 0:
        (a, ca), (b, cb) = coeffs.items()
        if ca == -cb:
            return _Kind("eqsym", a, b)
    if len(coeffs) != 1:
        return _Kind("other")
    ((s, c),) = coeffs.items()
    if op in ("==", "!="):  # c*s + k == 0
        if k % c:
            return _Kind("false" if op == "==" else "true")
        return _Kind("exact" if op == "==" else "ne", s, -k // c)
    # Normalise to c*s <= t or c*s >= t.
    t, upper = {"<": (-1 - k, True), "<=": (-k, True), ">": (1 - k, False), ">=": (-k, False)}[op]
    if upper == (c > 0):  # s <= t / c
        return _Kind("upper", s, t // c)
    return _Kind("lower", s, _ceil_div(t, c))


@lru_cache(maxsize=1 << 14)
def _canonical_key(e: sympy.Basic) -> tuple:
    k = _classify(e)
    text = sympy_str(e)  # str(e), in linear memory for huge sums (Note [Printing large sums])
    if k.kind == "eqsym":
        member = max(k.sym, k.value, key=_sym_key)
        return (0, _sym_key(member), (0, 0), text)
    if k.kind == "exact":
        return (0, _sym_key(k.sym), (0, 0), text)
    if isinstance(e, sympy.Eq) and k.kind != "div":
        return (1, (), (0, 0), text)
    sub = {"lower": 0, "upper": 1, "ne": 2, "div": 3}.get(k.kind)
    if sub is not None:
        return (2, _sym_key(k.sym), (sub, k.value), text)
    return (3, (), (0, 0), text)


@lru_cache(maxsize=1 << 14)
def _may_raise(e: sympy.Basic) -> bool:
    """Whether evaluating ``e`` may divide by zero (a divisor that is not a nonzero constant).

    Such guards are never rewritten by substitution: symint's canonical forms assume
    divisors are nonzero (``Mod(s0, s0)`` is 0), so replacing ``s1`` by ``s0`` in
    ``Eq(Mod(s0, s1), 0)`` would lose the failure at ``s0 == 0``.
    """
    for node in sympy.preorder_traversal(e):
        if isinstance(node, (FloorDiv, CeilDiv, Mod)) and not node.args[1].is_Integer:
            return True
        if isinstance(node, IntTrueDiv) or (node.is_Pow and node.args[1].is_negative):
            return True
    return False


def _safe_divisors(e: sympy.Basic, ranges: Mapping[sympy.Symbol, ValueRanges]) -> bool:
    """Whether no division in ``e`` can have a zero divisor within ``ranges`` (so ``e`` never raises)."""
    for node in sympy.preorder_traversal(e):
        if isinstance(node, (FloorDiv, CeilDiv, Mod)):
            d = node.args[1]
            if d.is_Integer:
                continue
            r = bound(d, ranges)
            if not (r.lower > 0 or r.upper < 0):
                return False
        elif isinstance(node, IntTrueDiv) or (node.is_Pow and node.args[1].is_negative):
            return False
    return True


class _Contradiction(Exception):
    """The guards cannot all hold (found by the cheap passes; Z3 confirms)."""

    def __init__(self, origins: Iterable[int]):
        super().__init__("contradiction")
        self.origins = frozenset(origins)


class _Facts:
    """Passes 2-3 over some guards: equality classes, per-symbol facts, and the other guards.

    Construction folds to a fixpoint; afterwards ``mapping`` sends each symbol to its
    class representative (or constant), ``range_of`` gives each class's range, and
    ``entails`` answers cheap implication questions from these facts.
    """

    def __init__(self, domain: Mapping[sympy.Symbol, ValueRanges], items: list[tuple[sympy.Basic, int]]):
        self.domain = domain
        self.parent: dict[sympy.Symbol, sympy.Symbol] = {}
        self.const: dict[sympy.Symbol, int] = {}
        self.class_origins: dict[sympy.Symbol, set[int]] = {}
        self.reasons: dict[int, str] = {}
        self.facts: dict[sympy.Symbol, list[tuple[str, int, int]]] = {}
        self.others: dict[sympy.Basic, set[int]] = {}
        self._fold(items)
        self.mapping = self._mapping()
        self.members = self._members()
        self._ranges: dict[sympy.Symbol, tuple] = {}

    def find(self, s: sympy.Symbol) -> sympy.Symbol:
        while s in self.parent and self.parent[s] != s:
            s = self.parent[s]
        return s

    def _union(self, a: sympy.Symbol, b: sympy.Symbol, origins: Iterable[int]) -> None:
        root, other = sorted((self.find(a), self.find(b)), key=_sym_key)
        self.parent.setdefault(root, root)
        self.parent[other] = root
        self.class_origins.setdefault(root, set()).update(self.class_origins.pop(other, ()), origins)

    def _fix(self, s: sympy.Symbol, value: int, origins: Iterable[int]) -> None:
        root = self.find(s)
        self.parent.setdefault(root, root)
        self.const[root] = value
        self.class_origins.setdefault(root, set()).update(origins)

    def _mapping(self) -> dict[sympy.Symbol, sympy.Expr]:
        out: dict[sympy.Symbol, sympy.Expr] = {}
        for s in self.parent:
            r = self.find(s)
            if r in self.const:
                out[s] = sympy.Integer(self.const[r])
            elif r != s:
                out[s] = r
        return out

    def _members(self) -> dict[sympy.Symbol, list[sympy.Symbol]]:
        classes: dict[sympy.Symbol, list[sympy.Symbol]] = {}
        for s in self.parent:
            classes.setdefault(self.find(s), []).append(s)
        return {r: sorted(ms, key=_sym_key) for r, ms in classes.items()}

    def _fold(self, items: list[tuple[sympy.Basic, int]]) -> None:
        while True:
            mapping, memo = self._mapping(), {}
            self.facts, self.others = {}, {}
            changed = False
            for expr, origin in items:
                try:
                    e = expr if _may_raise(expr) else substitute(expr, mapping, memo)
                except ZeroDivisionError:  # a folded 0 divisor: keep the guard as written
                    e = expr
                k = _Kind("true") if e is sympy.true else _Kind("false") if e is sympy.false else _classify(e)
                if k.kind == "true":
                    self.reasons[origin] = "always true given the equalities" if mapping else "always true"
                elif k.kind == "false":
                    raise _Contradiction([origin])
                elif k.kind == "eqsym":
                    self._union(k.sym, k.value, [origin])
                    changed = True
                elif k.kind == "other":
                    self.others.setdefault(e, set()).add(origin)
                else:
                    self.facts.setdefault(k.sym, []).append((k.kind, k.value, origin))
            if changed:
                continue
            self.members, self._ranges = self._members(), {}
            for s, fs in self.facts.items():
                lo, hi, _ = self.range_of(s)
                if lo == hi:
                    self._fix(s, int(lo), [o for _, _, o in fs])
                    changed = True
            if not changed:
                return

    def baseline(self, rep: sympy.Symbol) -> tuple:
        """The range the domains of ``rep``'s class allow (tied to ``rep`` by the kept equalities)."""
        lo, hi = -INF, INF
        for m in self.members.get(rep, [rep]):
            rng = self.domain.get(m)
            if rng is not None and not rng.is_bool:
                lo, hi = max(lo, rng.lower), min(hi, rng.upper)
        return lo, hi

    def range_of(self, s: sympy.Symbol) -> tuple:
        """``(lo, hi, step)``: the baseline narrowed by the facts about ``s``; ``step`` divides ``s``.

        A symbol stands for its class (they are equal wherever the kept equalities hold).
        """
        s = self.find(s)
        if s in self.const:
            return self.const[s], self.const[s], 1
        hit = self._ranges.get(s)
        if hit is not None:
            return hit
        lo, hi = self.baseline(s)
        step, ne = 1, set()
        for kind, value, _ in self.facts.get(s, ()):
            if kind in ("lower", "exact"):
                lo = max(lo, value)
            if kind in ("upper", "exact"):
                hi = min(hi, value)
            if kind == "ne":
                ne.add(value)
            if kind == "div":
                step = math.lcm(step, value)
        lo, hi = _ceil_mult(lo, step), _floor_mult(hi, step)
        while lo in ne:
            lo += step
        while hi in ne:
            hi -= step
        if lo > hi:
            raise _Contradiction([o for _, _, o in self.facts.get(s, ())])
        self._ranges[s] = (lo, hi, step)
        return lo, hi, step

    def value_ranges(self, symbols: Iterable[sympy.Symbol]) -> dict[sympy.Symbol, ValueRanges]:
        return {s: ValueRanges.of(*self.range_of(s)[:2]) for s in symbols}

    def entails(self, goal: sympy.Basic) -> bool:
        """Whether these guards' equalities and bounds (and the domain) imply ``goal``: a cheap, sound test."""
        try:
            e = goal if _may_raise(goal) else substitute(goal, self.mapping, {})
        except ZeroDivisionError:
            return False
        if e is sympy.true or e is sympy.false:
            return e is sympy.true
        k = _classify(e)
        if k.kind in ("true", "false"):
            return k.kind == "true"
        if k.kind in ("lower", "upper", "ne", "div", "exact"):
            lo, hi, step = self.range_of(k.sym)
            v = k.value
            if k.kind == "lower":
                return lo >= v
            if k.kind == "upper":
                return hi <= v
            if k.kind == "ne":
                return not lo <= v <= hi or v % step != 0
            return step % v == 0 if k.kind == "div" else lo == hi == v
        ranges = self.value_ranges(e.free_symbols)
        try:
            return bound(e, ranges) == ValueRanges.true() and _safe_divisors(e, ranges)
        except ValueRangeError:
            return False

