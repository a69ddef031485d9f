"""Simplify a guard set into a smaller, canonical one that Z3 proves equivalent.

The passes, cheapest first:

1. split conjunctions into separate guards;
2. fold equalities: ``Eq(s1, s0)`` makes ``s0`` the representative of ``s1``
   (the natural-order least symbol of each class) and is kept as the equality;
   ``s1`` is replaced by ``s0`` everywhere else; a symbol whose range narrows to
   one value becomes that constant;
3. merge single-symbol linear bounds, ``!=`` constants and divisibility
   (``Eq(Mod(s, 8), 0)``) into one range per symbol, intersected with the domain,
   emitting only the bounds the domain and the divisibility do not already imply
   (``s0 >= 2``, ``s0 > 3``, ``s0 <= 100`` become ``s0 >= 4``, ``s0 <= 100``);
4. drop the remaining guards that interval reasoning (``valueranges.bound``)
   proves true within those ranges;
5. ask Z3, one connected group of symbols at a time, which of what is left is
   implied by the rest (one incremental solver per group, tracking literals);
6. order canonically: equalities, then bounds per symbol, then the rest, sorted;
7. prove with Z3 that the result accepts exactly the inputs (within the domain)
   the input accepts, group by group; a group whose proof fails or times out
   keeps its original guards, and the report says so.

>>> from symint.build import symbol_expr, eq, ge, gt, le
>>> from guards import GuardSet, Source
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> gs = GuardSet.of([eq(s1, s0), ge(s1, 2), gt(s0, 3), le(s0, 100)],
...                  {s0: Source.size("x", 0), s1: Source.size("y", 0)})
>>> simplify(gs)
GuardSet(Eq(s1, s0), s0 >= 4, s0 <= 100)
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Mapping

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.functions import CeilDiv, FloorDiv, IntTrueDiv, Max, Min, Mod, PowByNatural
from valueranges import ValueRanges, ValueRangeError, bound

from .errors import SolverError
from .guard import Guard
from .prove import Entailer, Neighbourhoods, Verdict, unproven_entailments
from .z3_translate import SatStatus, SolverConfig

if TYPE_CHECKING:  # guardset.py imports this module to delegate to it
    from .guardset import GuardSet

__all__ = ["simplify", "simplify_with_report", "SimplifyReport"]

_DEFAULT = SolverConfig()
#: Neighbourhoods larger than this are not used to drop a guard (the guard is kept instead).
_LOCAL_LIMIT = 60
INF = math.inf


@dataclass(frozen=True, slots=True)
class SimplifyReport:
    """What :func:`simplify_with_report` did.

    Attributes:
        dropped: input guards that no longer appear in any form, each with why.
        rewritten: output guards that are not input guards, each with the input
            guards it replaces (merged bounds, equalities after substitution).
        substitutions: ``(symbol, replacement)`` pairs applied to the other guards.
        proof: ``YES`` if the whole output was proven equivalent to the input;
            ``UNKNOWN`` (a proof timed out) or ``NO`` (a bug: the proof found a
            difference) if some group of guards was returned unsimplified.
        reverted: one message per group of guards returned unsimplified.
        z3_checks: how many Z3 checks ran.
        elapsed: seconds taken.
    """

    dropped: tuple[tuple[Guard, str], ...] = ()
    rewritten: tuple[tuple[Guard, tuple[Guard, ...]], ...] = ()
    substitutions: tuple[tuple[sympy.Symbol, sympy.Expr], ...] = ()
    proof: Verdict = Verdict.YES
    reverted: tuple[str, ...] = ()
    z3_checks: int = 0
    elapsed: float = 0.0

    def __str__(self) -> str:
        lines = [f"proof of equivalence: {self.proof.value}; {self.z3_checks} Z3 checks; {self.elapsed * 1000:.1f} ms"]
        lines += [f"dropped {g.expr}: {why}" for g, why in self.dropped]
        lines += [f"{g.expr} replaces {', '.join(str(o.expr) for o in origins)}" for g, origins in self.rewritten]
        lines += [f"kept unsimplified: {msg}" for msg in self.reverted]
        return "\n".join(lines)


def simplify(gs: "GuardSet", config: SolverConfig = _DEFAULT) -> "GuardSet":
    """An equivalent, smaller guard set in canonical order (see the module docstring).

    >>> from symint.build import symbol_expr, eq, mod
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> simplify(GuardSet.of([eq(mod(n, 4), 0), eq(mod(n, 8), 0)]))
    GuardSet(Eq(Mod(n, 8), 0))
    """
    return simplify_with_report(gs, config)[0]


def simplify_with_report(gs: "GuardSet", config: SolverConfig = _DEFAULT) -> tuple["GuardSet", SimplifyReport]:
    """Like :func:`simplify`, also returning a :class:`SimplifyReport`.

    >>> from symint.build import symbol_expr, ge, gt
    >>> from guards import GuardSet
    >>> n = symbol_expr("n")
    >>> out, report = simplify_with_report(GuardSet.of([ge(n, 2), gt(n, 3)]))
    >>> out, report.proof.value, [(str(g.expr), [str(o.expr) for o in gs]) for g, gs in report.rewritten]
    (GuardSet(n >= 4), 'yes', [('n >= 4', ['n >= 2', 'n > 3'])])
    """
    return _Simplifier(gs, config).run()


# -- small helpers ---------------------------------------------------------------------------------
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


_REBUILD = {
    FloorDiv: build.floordiv,
    CeilDiv: build.ceildiv,
    Mod: build.mod,
    IntTrueDiv: build.truediv,
    PowByNatural: build.pow_,
}
_RELATIONS = {"==": build.eq, "!=": build.ne, "<": build.lt, "<=": build.le, ">": build.gt, ">=": build.ge}


def _substitute(expr: sympy.Basic, mapping: Mapping[sympy.Symbol, sympy.Expr], memo: dict) -> sympy.Basic:
    """``expr`` with symbols replaced, rebuilt through ``symint.build`` so that constants fold."""
    if not mapping or not (expr.free_symbols & mapping.keys()):
        return expr
    hit = memo.get(expr)
    if hit is not None:
        return hit
    args = [_substitute(a, mapping, memo) for a in expr.args]
    if expr.is_Symbol:
        out = mapping.get(expr, expr)
    elif expr.is_Add:
        out = args[0]
        for a in args[1:]:
            out = build.add(out, a)
    elif expr.is_Mul:
        out = args[0]
        for a in args[1:]:
            out = build.mul(out, a)
    elif expr.is_Pow:
        out = build.pow_(*args)
    elif isinstance(expr, Relational):
        out = _RELATIONS[expr.rel_op](*args)
    elif isinstance(expr, sympy.And):
        out = build.and_(*args)
    elif isinstance(expr, sympy.Or):
        out = build.or_(*args)
    elif isinstance(expr, sympy.Not):
        out = build.not_(*args)
    elif isinstance(expr, (Max, Min)):
        pick = build.max_ if isinstance(expr, Max) else build.min_
        out = args[0]
        for a in args[1:]:
            out = pick(out, a)
    elif type(expr) in _REBUILD:
        out = _REBUILD[type(expr)](*args)
    else:  # IfThenElse, FloorToInt, CeilToInt: the classes themselves fold constants
        out = expr.func(*args)
    memo[expr] = out
    return out


def _linear(e: sympy.Expr) -> tuple[dict[sympy.Symbol, int], int] | None:
    """``e`` as ``sum(c * s) + k`` with integer ``c`` and ``k``, or None."""
    coeffs: dict[sympy.Symbol, int] = {}
    const = 0
    for term in sympy.Add.make_args(e):
        coeff, rest = term.as_coeff_Mul()
        if not coeff.is_Integer:
            return None
        if rest == 1:
            const += int(coeff)
        elif rest.is_Symbol:
            coeffs[rest] = coeffs.get(rest, 0) + int(coeff)
        else:
            return None
    return {s: c for s, c in coeffs.items() if c}, const


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
    lin = _linear(diff)
    if lin is None:
        return _Kind("other")
    coeffs, k = lin
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
    if k.kind == "eqsym":
        member = max(k.sym, k.value, key=_sym_key)
        return (0, _sym_key(member), (0, 0), str(e))
    if k.kind == "exact":
        return (0, _sym_key(k.sym), (0, 0), str(e))
    if isinstance(e, sympy.Eq) and k.kind != "div":
        return (1, (), (0, 0), str(e))
    sub = {"lower": 0, "upper": 1, "ne": 2, "div": 3}.get(k.kind)
    if sub is not None:
        return (2, _sym_key(k.sym), (sub, k.value), str(e))
    return (3, (), (0, 0), str(e))


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

    ``fold`` runs to a fixpoint; afterwards ``mapping`` sends each symbol to its class
    representative (or constant) and ``range_of`` gives each representative's range.
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
                    e = expr if _may_raise(expr) else _substitute(expr, mapping, memo)
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
            e = goal if _may_raise(goal) else _substitute(goal, self.mapping, {})
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


# Note [Proof of equivalence]
#     The result is proven equivalent to the input in two links. (1) Input <=> emitted: the
#     guards the cheap passes emitted (merged bounds, equalities, substituted guards) and
#     the input imply each other, checked goal by goal by Z3 or, where the other side's
#     equalities and bounds decide it, by exact interval reasoning (``_Facts.entails``,
#     the same reasoning that dropped the guard). (2) Emitted <=> result: the result is the
#     emitted guards minus those dropped in pass 5, and each was dropped only on a Z3 proof
#     (UNSAT) that the guards kept at that moment imply it, or on a definition and ranges
#     (``_defined_away``); by induction over the drops the result implies all of them.
#     Link (1) failing for a group of symbols keeps that group's input guards.


def _definitions(exprs: list, indices: list[int]) -> dict[sympy.Symbol, list[tuple[int, sympy.Symbol, sympy.Expr]]]:
    """The guards ``Eq(s, expr)`` (``s`` not in ``expr``) among ``indices``, by ``s``."""
    out: dict = {}
    for j in indices:
        e = exprs[j]
        if isinstance(e, sympy.Eq):
            for s, expr in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
                if s.is_Symbol and s not in expr.free_symbols:
                    out.setdefault(s, []).append((j, s, expr))
    return out


@dataclass(slots=True)
class _Emitted:
    """A guard of the result, with the input guards (by index) it stands for."""

    expr: sympy.Basic
    origins: frozenset[int]
    candidate: bool = False  # may Z3 drop it as implied by the rest?
    dropped: bool = False
    because: tuple[int, ...] = ()  # when dropped: the guards (indices in the same list) that imply it


class _Simplifier:
    """One simplification run (all state is local to the run)."""

    def __init__(self, gs: "GuardSet", config: SolverConfig):
        self.gs, self.config = gs, config
        self.domain = gs.domain_map
        self.start = time.perf_counter()
        self.checks = 0

    def run(self) -> tuple["GuardSet", SimplifyReport]:
        items = [(c, i) for i, g in enumerate(self.gs.guards) for c in _conjuncts(g.expr)]
        self.mapping: dict = {}
        self.reasons: dict[int, str] = {}
        try:
            facts = self.facts = _Facts(self.domain, items)
            self.mapping, self.reasons = facts.mapping, facts.reasons
            emitted = self._emit(facts)
            self._drop_implied(emitted)
        except _Contradiction as exc:
            return self._contradiction(exc.origins)
        return self._finish(emitted)

    # -- emitting the simplified guards --------------------------------------------------------
    def _emit(self, facts: _Facts) -> list[_Emitted]:
        out: list[_Emitted] = []
        for root, ms in facts.members.items():
            origins = frozenset(facts.class_origins.get(root, ()))
            if root in facts.const:
                out += [_Emitted(build.eq(m, facts.const[root]), origins) for m in ms]
            else:
                out += [_Emitted(build.eq(m, root), origins) for m in ms if m != root]
        for s in sorted(facts.facts, key=_sym_key):
            out += self._emit_bounds(s, facts.facts[s])
        for e, origins in facts.others.items():
            ranges = facts.value_ranges(e.free_symbols)
            try:
                known = bound(e, ranges)
            except ValueRangeError:
                known = ValueRanges.unknown_bool()
            if known == ValueRanges.false():  # never True when it does not raise, so it never holds
                raise _Contradiction(origins)
            if known == ValueRanges.true() and _safe_divisors(e, ranges):
                self.reasons.update((o, "implied by the ranges of its symbols") for o in origins)
                continue
            out.append(_Emitted(e, frozenset(origins), True))
        return out

    def _emit_bounds(self, s: sympy.Symbol, fs: list) -> list[_Emitted]:
        """The fewest bound guards that, with the baseline, pin ``s`` to exactly its facts' range."""
        lo, hi, _ = self.facts.range_of(s)
        base_lo, base_hi = self.facts.baseline(s)
        mods = sorted({v for k, v, _ in fs if k == "div" and v != 1})
        keep_mods = [m for m in mods if not any(o != m and o % m == 0 for o in mods)]
        step = math.lcm(1, *keep_mods)

        def origins(pick) -> frozenset[int]:
            return frozenset(o for k, v, o in fs if pick(k, v))

        out: list[_Emitted] = []
        if lo > _ceil_mult(base_lo, step):
            out.append(_Emitted(build.ge(s, lo), origins(lambda k, v: k == "lower" or (k == "ne" and v < lo)), True))
        if hi < _floor_mult(base_hi, step):
            out.append(_Emitted(build.le(s, hi), origins(lambda k, v: k == "upper" or (k == "ne" and v > hi)), True))
        for c in sorted({v for k, v, _ in fs if k == "ne" and lo < v < hi and v % step == 0}):
            out.append(_Emitted(build.ne(s, c), origins(lambda k, v: k == "ne" and v == c), True))
        for m in keep_mods:
            out.append(_Emitted(build.eq(build.mod(s, m), 0), origins(lambda k, v: k == "div" and v == m), True))
        used = set().union(*(e.origins for e in out)) if out else set()
        self.reasons.update((o, f"implied by the domain and the other facts about {s}") for _, _, o in fs if o not in used)
        return out

    # -- Z3 ------------------------------------------------------------------------------------
    def _z3_domain(self) -> dict[sympy.Symbol, ValueRanges]:
        # Baselines (implied by the domain and the kept equalities) are safe background facts;
        # the narrowed ranges are not: they would let a bound guard justify its own removal.
        reps = set(self.facts.members) | set(self.facts.facts)
        return {**self.domain, **{r: ValueRanges.of(*self.facts.baseline(r)) for r in reps}}

    def _drop_implied(self, emitted: list[_Emitted]) -> None:
        """Pass 5: drop each candidate that the still-kept guards around it imply (Z3, local premises).

        General guards are tried before bounds, each kind last first, so that of two guards
        implying each other the bound and the earlier one survive. A bound is tried only if
        its symbol appears in a general guard (bounds alone were already merged exactly).
        Each candidate is judged against the guards kept at that moment, so everything
        dropped is implied by what remains. Premises are the guards over the candidate's
        symbols only, then its one-hop neighbourhood if that is small (see Note [Local premises]);
        a candidate that would need more is kept.
        """
        exprs = [e.expr for e in emitted]
        hood = Neighbourhoods([exprs], self.facts.find)
        general = [i for i, e in enumerate(emitted) if e.candidate and _canonical_key(e.expr)[0] != 2]
        simple = {i for i, e in enumerate(emitted) if _canonical_key(e.expr)[0] in (0, 2)}
        linked = frozenset().union(*(hood.reps[0][i] for i in general))
        bounds = [i for i, e in enumerate(emitted) if e.candidate and i not in general and hood.reps[0][i] <= linked]
        order = sorted(general, key=lambda i: _canonical_key(exprs[i]), reverse=True)
        order += sorted(bounds, key=lambda i: _canonical_key(exprs[i]), reverse=True)
        budget = min(self.config.timeout_ms, self.config.drop_timeout_ms)
        entailer = Entailer(self._z3_domain(), replace(self.config, timeout_ms=budget))
        active = set(range(len(emitted)))
        definitions = _definitions(exprs, general)
        loose: set[sympy.Symbol] = set()  # symbols that lost a bound guard in this pass
        for i in order:
            because = self._defined_away(exprs[i], definitions, active, loose)
            if because is not None:
                why = "implied by the definition of its symbol and the ranges"
            else:
                because = self._implied_by(entailer, hood, exprs, i, active, bounded=i in bounds, simple=simple)
                if because is None:
                    continue
                why = "implied by the other guards (Z3)"
            active.discard(i)
            if i in bounds:
                loose |= hood.reps[0][i]
            self.reasons.update((o, why) for o in emitted[i].origins)
            emitted[i].dropped, emitted[i].because = True, because
        self.checks += entailer.checks

    def _implied_by(self, entailer, hood, exprs, i, active, bounded: bool, simple: set) -> tuple[int, ...] | None:
        """The premises (indices) with which Z3 proved guard ``i`` implied, or None."""
        own = hood.reps[0][i]
        around = [j for j in hood.pool_members(0, own, skip=i) if j in active]
        inner = [j for j in around if hood.reps[0][j] <= own]
        tried: list[int] = []
        for chosen in (inner, around if len(around) <= _LOCAL_LIMIT else []):
            # Bounds and equalities alone cannot imply a bound: the ranges are already merged exactly.
            if chosen == tried or not chosen or (bounded and all(j in simple for j in chosen)):
                continue
            tried = chosen
            try:
                outcome = entailer.entails([exprs[j] for j in chosen], exprs[i])
            except SolverError:
                return None  # an untranslatable guard: keep it
            if outcome.status is SatStatus.UNSAT:
                return tuple(chosen)
            if outcome.status is SatStatus.UNKNOWN:
                return None  # more premises would make it harder still
        return None

    def _defined_away(self, e: sympy.Basic, definitions: dict, active: set[int], loose: set) -> tuple[int] | None:
        """Whether a bound on ``s`` follows from a kept ``Eq(s, expr)`` and the ranges of ``expr``'s symbols.

        Catches ``s9 >= 64`` and ``Eq(Mod(s9, 16), 0)`` given ``Eq(s9, 16*s1*s2)`` without Z3.
        Ranges of symbols that lost a bound guard in this pass are not used: that guard
        may have been dropped on the strength of the very bound now being judged.
        """
        k = _classify(e)
        for j, s, expr in definitions.get(k.sym, ()) if k.kind in ("lower", "upper", "ne", "div") else ():
            if j not in active or expr.free_symbols & loose:
                continue
            try:
                goal = _substitute(e, {s: expr}, {})
            except ZeroDivisionError:
                continue
            ranges = self.facts.value_ranges(goal.free_symbols)
            if goal is sympy.true or (bound(goal, ranges) == ValueRanges.true() and _safe_divisors(goal, ranges)):
                return (j,)
        return None

    def _finish(self, emitted: list[_Emitted]) -> tuple["GuardSet", SimplifyReport]:
        """Pass 7: prove the input and the emitted guards imply each other (see Note [Proof of equivalence]).

        Goals that the other side's equalities and bounds already imply (``_Facts.entails``)
        need no Z3; the others are tried first with the guards they were derived from,
        then with growing neighbourhoods (see Note [Local premises]). A group of
        interacting symbols with a goal left unproven keeps its original guards.
        """
        old = [g.expr for g in self.gs.guards]
        new = [e.expr for e in emitted]
        hood = Neighbourhoods([old, new], self.facts.find)
        seeds_new, seeds_old = self._seeds(emitted, hood)
        entailer = Entailer(self.domain, self.config)
        old_set, new_set = set(old), set(new)
        failures: list[tuple[int, int, Verdict, str]] = []
        plan = ((1, new, old, old_set, self.facts, seeds_new), (0, old, new, new_set, self.facts, seeds_old))
        for goal_pool, goals, premises, known, cheap, seeds in plan:
            skip = frozenset(k for k, e in enumerate(goals) if e in known or cheap.entails(e))
            try:
                found = unproven_entailments(entailer, hood, 1 - goal_pool, premises, goal_pool, goals, skip, seeds)
            except SolverError as exc:
                found = [(k, Verdict.UNKNOWN, str(exc)) for k in range(len(goals)) if k not in skip]
            failures += [(goal_pool, k, verdict, why) for k, verdict, why in found]
        self.checks += entailer.checks
        reverted_reps: set = set()
        messages, verdicts = [], []
        for pool, k, verdict, why in failures:
            reps = hood.reps[pool][k]
            if not reps <= reverted_reps or not reps:
                reverted_reps |= hood.around(reps, None)
                messages.append(why)
                verdicts.append(verdict)
        proof = Verdict.NO if Verdict.NO in verdicts else Verdict.UNKNOWN if verdicts else Verdict.YES
        keep = [e for k, e in enumerate(emitted) if not e.dropped and not hood.reps[1][k] & reverted_reps]
        back = [i for i in range(len(old)) if hood.reps[0][i] & reverted_reps]
        if verdicts and len(back) == len(old):  # nothing proven: return the input exactly as it was
            return self.gs, self._report(proof=proof, reverted=tuple(messages))
        keep += [_Emitted(old[i], frozenset([i])) for i in back]
        if self._unsatisfiable([e.expr for e in keep]):  # equivalent to the input, so the input is too
            return self._false("the guards contradict each other (Z3)")
        return self._assemble(keep, proof, tuple(messages))

    def _unsatisfiable(self, exprs: list[sympy.Basic]) -> bool:
        """One last check: contradictions the cheap passes cannot see (``Eq(Mod(s, 4), 1)``, ``Eq(Mod(s, 2), 0)``)."""
        entailer = Entailer(self.domain, self.config)
        try:
            unsat = entailer.entails(exprs, sympy.false).status is SatStatus.UNSAT
        except SolverError:
            unsat = False
        self.checks += entailer.checks
        return unsat

    def _seeds(self, emitted: list[_Emitted], hood: Neighbourhoods):
        """First premises to try in the proof: the guards each goal was derived from."""
        by_origin: dict[int, list[int]] = {}
        for k, e in enumerate(emitted):
            for o in e.origins:
                by_origin.setdefault(o, []).append(k)
        simple_by_rep: dict[sympy.Symbol, list[int]] = {}  # emitted equalities and bounds, by representative
        for k, e in enumerate(emitted):
            if _canonical_key(e.expr)[0] in (0, 2):
                for r in hood.reps[1][k]:
                    simple_by_rep.setdefault(r, []).append(k)

        def for_new_goal(k: int) -> list[int]:  # premises among the input guards
            found = set(emitted[k].origins)
            for r in hood.reps[1][k]:
                found |= self.facts.class_origins.get(r, set())
            return sorted(found)

        def for_old_goal(o: int) -> list[int]:  # premises among the emitted guards
            found = set(by_origin.get(o, ()))
            for r in set(hood.reps[0][o]).union(*(hood.reps[1][k] for k in found)):
                found.update(simple_by_rep.get(r, ()))
            return sorted(found)

        return for_new_goal, for_old_goal

    # -- results -------------------------------------------------------------------------------
    def _contradiction(self, origins: frozenset[int]) -> tuple["GuardSet", SimplifyReport]:
        """The cheap passes found the guards inconsistent: return ``False`` if Z3 agrees."""
        old = [g.expr for g in self.gs.guards]
        hood = Neighbourhoods([old])
        entailer = Entailer(self.domain, self.config)
        tried: list[list[int]] = []
        proven = False
        for o in sorted(origins):
            group = hood.pool_members(0, hood.around(hood.reps[0][o], None))
            if group in tried:
                continue
            tried.append(group)
            try:
                proven = entailer.entails([old[i] for i in group], sympy.false).status is SatStatus.UNSAT
            except SolverError:
                continue
            if proven:
                break
        self.checks += entailer.checks
        if not proven:
            why = "the guards look contradictory but Z3 could not confirm it"
            return self.gs, self._report(proof=Verdict.UNKNOWN, reverted=(why,))
        return self._false("the guards contradict each other")

    def _false(self, why: str) -> tuple["GuardSet", SimplifyReport]:
        dropped = tuple((g, why) for g in self.gs.guards)
        return self.gs.with_guards([Guard(sympy.false, f"simplify: {why}")]), self._report(dropped=dropped)

    def _assemble(
        self, keep: list[_Emitted], proof: Verdict, reverted: tuple[str, ...]
    ) -> tuple["GuardSet", SimplifyReport]:
        old = list(self.gs.guards)
        keep = sorted(keep, key=lambda e: _canonical_key(e.expr))
        by_expr = {g.expr: g for g in old}
        guards, rewritten = [], []
        for e in keep:
            if e.expr in by_expr:
                guards.append(by_expr[e.expr])
                continue
            sources = [old[i] for i in sorted(e.origins)]
            provenance = "; ".join(dict.fromkeys(g.origin for g in sources if g.origin)) or None
            g = Guard(e.expr, provenance)
            guards.append(g)
            rewritten.append((g, tuple(sources)))
        kept_exprs = {e.expr for e in keep}
        represented = set().union(*(e.origins for e in keep))
        represented |= {i for i, g in enumerate(old) if g.expr in kept_exprs}
        why = self.reasons.get
        dropped = tuple((g, why(i, "implied by the other guards")) for i, g in enumerate(old) if i not in represented)
        report = self._report(dropped=dropped, rewritten=tuple(rewritten), proof=proof, reverted=reverted)
        return self.gs.with_guards(guards), report

    def _report(self, **fields) -> SimplifyReport:
        subs = tuple(sorted(self.mapping.items(), key=lambda kv: _sym_key(kv[0])))
        return SimplifyReport(
            substitutions=subs, z3_checks=self.checks, elapsed=time.perf_counter() - self.start, **fields
        )
