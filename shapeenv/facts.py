"""``Facts``: what a ShapeEnv knows about its symbols, and how new facts feed back.

Four kinds of knowledge, all learned from guards and runtime asserts:

* **replacements** ``symbol -> expression`` (``Eq(s1, s0)`` unifies, ``Eq(s0, 4)``
  specialises, ``Eq(s2, 2*s0)`` eliminates ``s2``), kept fully resolved;
* **ranges** per symbol (``s0 > 5`` narrows ``s0`` to ``[6, oo]``);
* **divisibility** (``Eq(Mod(s0, 8), 0)`` makes ``Mod(s0, 4)`` simplify to 0);
* **known** boolean facts, for whatever the above cannot represent (``s0 < s1``).

Deciding a question statically (:meth:`Facts.static_value`) uses them in that
order and records nothing.

Note [Choosing the symbol to eliminate]
    ``Eq(a, b)`` can be solved for any symbol that occurs once, with
    coefficient +-1, in ``a - b``. We eliminate an unbacked symbol before a backed
    one (a backed survivor keeps its hint) and otherwise the *newest* symbol, so
    the older symbol survives and the choice is deterministic. The eliminated
    symbol's range becomes a constraint on the survivor: intersected into its
    range when the replacement is ``t + c``, recorded as a known fact otherwise.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable, Iterable

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.linear import linear_form
from symint.substitute import substitute
from symint.functions import FloorDiv, Mod
from guards.divisibility import normalise_divisibility
from valueranges import ValueRanges, bound

from .errors import ContradictionError

__all__ = ["Facts", "linear_form"]

_TRUE, _FALSE = sympy.true, sympy.false


def _compare_with_zero(rng: ValueRanges, op: str) -> bool | None:
    """Decide ``x op 0`` for every ``x`` in ``rng``, or None."""
    lo, hi = rng.lower, rng.upper
    if op == "==":
        return True if lo == hi == 0 else (False if not lo <= 0 <= hi else None)
    if op == "!=":
        return False if lo == hi == 0 else (True if not lo <= 0 <= hi else None)
    if op == "<":
        return True if hi < 0 else (False if lo >= 0 else None)
    if op == "<=":
        return True if hi <= 0 else (False if lo > 0 else None)
    if op == ">":
        return True if lo > 0 else (False if hi <= 0 else None)
    return True if lo >= 0 else (False if hi < 0 else None)


@lru_cache(maxsize=1 << 14)
def _factor_terms(e: sympy.Expr) -> sympy.Expr:
    """``e`` with common factors of its terms pulled out (``s0*s1 - s0 -> s0*(s1 - 1)``), else ``e`` itself.

    Only tried when every term shares a symbol factor (a cheap test), since factoring is not.
    """
    common: set | None = None
    for term in sympy.Add.make_args(e):
        factors = {f for f in sympy.Mul.make_args(term) if f.is_Symbol}
        common = factors if common is None else common & factors
        if not common:
            return e
    factored = sympy.factor_terms(e)
    return e if factored == e else factored


def _floor_div(p: int, q: int) -> int:
    return p // q


def _ceil_div(p: int, q: int) -> int:
    return -((-p) // q)


class Facts:
    """The mutable knowledge of one ShapeEnv (see the module docstring).

    ``rank(symbol)`` orders symbols for elimination: higher is eliminated first.
    """

    def __init__(self, rank: Callable[[sympy.Symbol], tuple]):
        self.replacements: dict[sympy.Symbol, sympy.Expr] = {}
        self.ranges: dict[sympy.Symbol, ValueRanges] = {}
        self.divisible: dict[sympy.Symbol, set[int]] = {}
        self.known: dict[sympy.Basic, bool] = {}
        #: Symbols that some fact other than a range mentions (see Note [Questions intervals answer exactly]).
        self.related: set[sympy.Symbol] = set()
        self.version = 0
        self._rank = rank
        self._simplified: dict[sympy.Basic, sympy.Basic] = {}
        self._listeners: list[Callable[[sympy.Basic], None]] = []

    # -- bookkeeping ----------------------------------------------------------------------------
    def on_new_fact(self, listener: Callable[[sympy.Basic], None]) -> None:
        """Call ``listener(fact_expr)`` for every boolean fact learned from now on (e.g. to feed Z3)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        self.version += 1
        self._simplified.clear()

    def _emit(self, fact: sympy.Basic) -> None:
        for listener in self._listeners:
            listener(fact)

    def range_of(self, sym: sympy.Symbol) -> ValueRanges:
        """The range of ``sym`` ([-oo, oo] if nothing is known)."""
        return self.ranges.get(sym) or ValueRanges.unknown()

    def set_range(self, sym: sympy.Symbol, rng: ValueRanges) -> None:
        """Give a fresh symbol its initial range."""
        self.ranges[sym] = rng
        self._changed()
        self._emit_range(sym)

    def _emit_range(self, sym: sympy.Symbol) -> None:
        rng = self.ranges[sym]
        if rng.lower != -math.inf:
            self._emit(build.ge(sym, int(rng.lower)))
        if rng.upper != math.inf:
            self._emit(build.le(sym, int(rng.upper)))

    def narrow(self, sym: sympy.Symbol, rng: ValueRanges, why: str = "") -> bool:
        """Intersect the range of ``sym`` with ``rng``; True if it changed.

        Raises:
            ContradictionError: the intersection is empty.
        """
        if sym in self.replacements:
            value = self.replacements[sym]
            if isinstance(value, sympy.Integer):
                if int(value) not in rng:
                    raise ContradictionError(f"{sym} = {value} is outside {rng}{why}")
                return False
            lf = linear_form(value)
            if lf and len(lf[0]) == 1 and abs(next(iter(lf[0].values()))) == 1:
                (t, c), k = next(iter(lf[0].items())), lf[1]
                shifted = ValueRanges.of(rng.lower - k, rng.upper - k)
                return self.narrow(t, shifted if c == 1 else ValueRanges.of(-shifted.upper, -shifted.lower), why)
            self._remember(build.le(int(rng.lower), value) if rng.lower != -math.inf else _TRUE)
            self._remember(build.le(value, int(rng.upper)) if rng.upper != math.inf else _TRUE)
            return True
        old = self.range_of(sym)
        try:
            new = old & rng
        except ValueError as e:
            raise ContradictionError(f"{sym} cannot be in both {old} and {rng}{why}") from e
        if new == old:
            return False
        self.ranges[sym] = new
        self._changed()
        self._emit_range(sym)
        return True

    # -- simplification -------------------------------------------------------------------------
    def simplify(self, expr: sympy.Basic) -> sympy.Basic:
        """``expr`` with replacements and divisibility applied (cached until facts change).

        >>> from symint.build import symbol_expr, mod, eq
        >>> f = Facts(rank=lambda s: (0, s.name))
        >>> s0 = symbol_expr("s0")
        >>> f.learn(eq(mod(s0, 8), 0))
        >>> f.simplify(mod(s0, 4) + 1)
        1
        """
        cached = self._simplified.get(expr)
        if cached is not None:
            return cached
        result = expr
        if self.replacements or self.divisible:
            syms = expr.free_symbols
            subs = {s: self.replacements[s] for s in syms if s in self.replacements}
            if subs:
                result = substitute(result, subs)
            if self.divisible and any(s in self.divisible for s in result.free_symbols):
                zeros = {
                    m: sympy.Integer(0)
                    for m in result.atoms(Mod)
                    if self._divides(m.args[0], m.args[1])
                }
                if zeros:
                    result = substitute(result, zeros)
        if not result.is_Atom and result.has(Mod, FloorDiv):
            result = normalise_divisibility(self._cancel_common_factors(result))
        self._simplified[expr] = result
        return result

    def _nonzero_factor(self, f: sympy.Expr) -> bool:
        rng = bound(f, self.ranges)
        return rng.lower > 0 or rng.upper < 0

    def _cancel_common_factors(self, expr: sympy.Basic) -> sympy.Basic:
        """``Mod(k*a, k*b) -> k*Mod(a, b)`` and ``FloorDiv(k*a, k*b) -> FloorDiv(a, b)`` for a provably nonzero ``k``.

        Both are exact identities of Python's ``%`` and ``//`` for every ``k != 0``;
        then ``Eq(k*x, 0) -> Eq(x, 0)`` (and ``Ne``) for such ``k``.
        """
        rewrites = {}
        for atom in expr.atoms(Mod, FloorDiv):
            a, b = atom.args
            if b.is_Number:
                continue
            for f in sympy.Mul.make_args(b):
                if f.is_Number or not self._nonzero_factor(f):
                    continue
                if all(f in sympy.Mul.make_args(t) for t in sympy.Add.make_args(a)):
                    a2, b2 = sympy.expand_mul(a / f), b / f
                    rewrites[atom] = f * Mod(a2, b2) if isinstance(atom, Mod) else FloorDiv(a2, b2)
                    break
        result = substitute(expr, rewrites) if rewrites else expr
        if isinstance(result, Relational) and result.rel_op in ("==", "!=") and result.rhs == 0 and result.lhs.is_Mul:
            kept = [f for f in result.lhs.args if f.is_Number or not self._nonzero_factor(f)]
            if len(kept) < len(result.lhs.args):
                core = sympy.Mul(*(f for f in kept if not f.is_Number))
                result = build.eq(core, 0) if result.rel_op == "==" else build.ne(core, 0)
        return result

    def _divides(self, a: sympy.Expr, k: sympy.Expr) -> bool:
        if not (a.is_Symbol and isinstance(k, sympy.Integer)) or int(k) == 0:
            return False
        return any(m % int(k) == 0 for m in self.divisible.get(a, ()))

    # -- deciding -------------------------------------------------------------------------------
    def static_value(self, expr: sympy.Basic, ranges: dict | None = None) -> bool | None:
        """True/False if the facts decide the boolean ``expr``, else None. Records nothing."""
        e = self.simplify(expr)
        if e is _TRUE or e is _FALSE:
            return bool(e)
        value = self.by_ranges(e, self.ranges if ranges is None else ranges)
        if value is not None:
            return value
        known = self.known.get(e)
        if known is not None:
            return known
        known = self.known.get(build.not_(e))
        return None if known is None else not known

    def intervals_are_exact(self, e: sympy.Basic) -> bool:
        """Whether :meth:`by_ranges` already gives the best possible answer for ``e``.

        Note [Questions intervals answer exactly]
            A relation whose ``lhs - rhs`` is a linear combination of distinct symbols
            (sympy collects terms, so each appears once), none of which any fact but
            its range mentions, ranges over exactly the interval that interval
            arithmetic computes: every corner of the box of ranges is possible. So if
            :meth:`by_ranges` did not decide it, no solver can, and asking Z3 is waste.
        """
        if not isinstance(e, Relational):
            return False
        lf = linear_form(build.sub(e.lhs, e.rhs))
        return lf is not None and self.related.isdisjoint(lf[0])

    def by_ranges(self, e: sympy.Basic, ranges: dict) -> bool | None:
        """Decide ``e`` from interval bounds alone (relations compare ``lhs - rhs`` with 0)."""
        if isinstance(e, Relational):
            diff = build.sub(e.lhs, e.rhs)
            answer = _compare_with_zero(bound(diff, ranges), e.rel_op)
            if answer is None and diff.is_Add:
                # s0*s1 - s0 is unbounded term by term, but s0*(s1 - 1) is >= 2: pull common factors out.
                factored = _factor_terms(diff)
                if factored is not diff:
                    answer = _compare_with_zero(bound(factored, ranges), e.rel_op)
            return answer
        if isinstance(e, sympy.And):
            parts = [self.by_ranges(a, ranges) for a in e.args]
            return False if False in parts else (True if all(p is True for p in parts) else None)
        if isinstance(e, sympy.Or):
            parts = [self.by_ranges(a, ranges) for a in e.args]
            return True if True in parts else (False if all(p is False for p in parts) else None)
        if isinstance(e, sympy.Not):
            inner = self.by_ranges(e.args[0], ranges)
            return None if inner is None else not inner
        rng = bound(e, ranges)
        return bool(rng.lower) if rng.is_singleton() else None

    # -- learning -------------------------------------------------------------------------------
    def learn(self, fact: sympy.Basic) -> None:
        """Take the boolean ``fact`` as true from now on, and feed it back.

        Raises:
            ContradictionError: ``fact`` contradicts what is known.
        """
        e = self.simplify(fact)
        if e is _TRUE:
            return
        if e is _FALSE:
            raise ContradictionError(f"{fact} contradicts the known facts (it simplifies to False)")
        if isinstance(e, sympy.And):
            for part in e.args:
                self.learn(part)
            return
        if isinstance(e, Relational):
            self._learn_relation(e)
        self._remember(e)

    def _remember(self, e: sympy.Basic) -> None:
        e = self.simplify(e)
        if e is _TRUE:
            return
        if e is _FALSE or self.known.get(e) is False:
            raise ContradictionError(f"{e} contradicts the known facts")
        if e not in self.known:
            self.known[e] = True
            self.related |= e.free_symbols
            self.version += 1  # answers may change; simplification does not (no _changed())
            self._emit(e)

    def _learn_relation(self, e: Relational) -> None:
        diff = build.sub(e.lhs, e.rhs)
        op = e.rel_op
        if op == "==":
            if self._learn_divisibility(e):
                return
            self._learn_equality(diff)
            return
        lf = linear_form(diff)
        if lf is None or len(lf[0]) != 1:
            return
        (sym, c), k = next(iter(lf[0].items())), lf[1]
        if c == 0:
            return
        # Normalise to c*sym + k <= 0 (or != 0).
        if op == "<":
            k += 1
        elif op == ">":
            c, k = -c, -k + 1
        elif op == ">=":
            c, k = -c, -k
        if op == "!=":
            if k % c == 0:
                value = -k // c
                rng = self.range_of(sym)
                if rng.lower == value:
                    self.narrow(sym, ValueRanges.of(value + 1, math.inf), f" (from {e})")
                elif rng.upper == value:
                    self.narrow(sym, ValueRanges.of(-math.inf, value - 1), f" (from {e})")
            return
        if c > 0:
            self.narrow(sym, ValueRanges.of(-math.inf, _floor_div(-k, c)), f" (from {e})")
        else:
            self.narrow(sym, ValueRanges.of(_ceil_div(k, -c), math.inf), f" (from {e})")

    def _learn_divisibility(self, e: Relational) -> bool:
        for side, other in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(side, Mod) and other == 0:
                a, k = side.args
                if a.is_Symbol and isinstance(k, sympy.Integer) and int(k) != 0:
                    self.divisible.setdefault(a, set()).add(abs(int(k)))
                    self.related.add(a)
                    self._changed()
                    self._emit(e)  # simplify() now folds it to True, so _remember would not pass it on
                    return True
        return False

    def _learn_equality(self, diff: sympy.Expr) -> None:
        candidates = []
        terms = sympy.Add.make_args(diff)
        for term in terms:
            coeff, rest = term.as_coeff_Mul()
            if rest.is_Symbol and coeff in (1, -1):
                others = diff - term
                if rest not in others.free_symbols:
                    candidates.append((self._rank(rest), rest, -others / coeff))
        if not candidates:
            return
        _, sym, value = max(candidates, key=lambda c: c[0])
        self.replace(sym, value)

    def replace(self, sym: sympy.Symbol, value: sympy.Expr) -> None:
        """Record ``sym == value`` as a replacement (``value`` must not contain ``sym``)."""
        value = self.simplify(value)
        if sym in value.free_symbols:
            raise ValueError(f"cannot replace {sym} by {value}, which contains it")
        rng = self.range_of(sym)
        for other, old in list(self.replacements.items()):
            if sym in old.free_symbols:
                self.replacements[other] = substitute(old, {sym: value})
        self.replacements[sym] = value
        self.related |= {sym} | value.free_symbols
        if sym in self.divisible and value.is_Symbol:
            self.divisible.setdefault(value, set()).update(self.divisible[sym])
        self._changed()
        self._emit(build.eq(sym, value))
        self.narrow(sym, rng, f" (the range of {sym}, now {value})")
        self._resimplify_known()

    def _resimplify_known(self) -> None:
        old, self.known = self.known, {}
        replaced = self.replacements.keys()
        for e, truth in old.items():
            if replaced.isdisjoint(e.free_symbols):
                self.known[e] = truth
                continue
            s = self.simplify(e)
            if s is _TRUE or s is _FALSE:
                if bool(s) != truth:
                    raise ContradictionError(f"{e} became {s} after new replacements, contradicting a known fact")
                continue
            self.known[s] = truth

    def facts(self) -> Iterable[sympy.Basic]:
        """Every fact as a boolean expression (ranges, replacements, divisibility, known)."""
        for sym, rng in self.ranges.items():
            if rng.lower != -math.inf:
                yield build.ge(sym, int(rng.lower))
            if rng.upper != math.inf:
                yield build.le(sym, int(rng.upper))
        for sym, value in self.replacements.items():
            yield build.eq(sym, value)
        for sym, ks in self.divisible.items():
            for k in ks:
                yield build.eq(build.mod(sym, k), 0)
        yield from (e for e, truth in self.known.items() if truth)
