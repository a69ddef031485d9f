"""Deciding ``p <= 0`` from symbol ranges plus linear facts, without a solver.

The facts are normalised relations ``f <= 0`` / ``f == 0`` (:class:`symint.form.logic.Norm`)
whose monomials are treated as unknowns (a product ``s0*s1`` is one unknown, so
"linear" here means linear in the monomials). To show ``p <= 0`` we look for a
non-negative combination of facts that cancels terms of ``p`` so that interval
arithmetic on what is left proves the bound:

    ``|d|*p = (|d|*p - |c|*f) + |c|*f <= upper(|d|*p - |c|*f)``   when ``f <= 0``

where ``c`` and ``d`` are the coefficients of a shared monomial in ``p`` and ``f``
(same sign, so the monomial cancels; an equality ``f == 0`` cancels either sign).
This is the elimination step of JAX's ``shape_poly_decision``, searched to a small
depth. The number of combinations tried is a count (``budget``), so the answer is
deterministic. It is sound (every step is an inequality that holds) and
incomplete: "not proven" is False from :meth:`LinearFacts.prove_le0`, None from
:func:`decide_norm`, never a wrong answer.

>>> from symint import form as F
>>> from symint.form.logic import rel
>>> a, b = F.sym("a"), F.sym("b")
>>> facts = LinearFacts([rel("<", a, b).norm])          # a - b + 1 <= 0
>>> query = rel("<=", F.add(a, F.const(1)), F.add(b, F.const(5))).norm
>>> facts.prove_le0(query.p, {"a": (0, 10), "b": (0, 10)})
True
"""

from __future__ import annotations

import math
from typing import Iterable

from symint import form as F
from symint.form.logic import Norm, combination_norm, relation_norm
from symint.form.terms import MEMO_LIMIT, register_cache

from .bound import bound_form, mono_bound

__all__ = ["LinearFacts", "by_interval", "decide_norm", "atom_facts", "propagate", "tighten_bound", "least_proven"]

INF = math.inf
_EMPTY: tuple = ()


def atom_facts(atom: "F.Atom", ranges, memo: dict) -> list[Norm]:
    """The linear facts that hold by definition of ``atom`` (true for every value of its arguments).

    ``Max(a, b) >= a``, ``Min(a, b) <= a``, ``k*(x // k) <= x <= k*(x // k) + k - 1``
    (for a divisor known positive), ``x == k*(x // k) + x % k``.

    Note [Definitions of atoms are cached]
        The facts depend on the atom and, for ``//`` and ``%``, on one bit of the ranges:
        whether the divisor is known positive. Every ``Facts`` of a trace (the tracer's,
        and the two that ``produce_guards`` fills) asks for the same atoms, so the facts
        are built once per (atom, bit) and shared: the cache is keyed by the atom's serial
        number (Note [Keys the garbage collector skips] in ``symint.form.terms``), holds
        interned norms, and is emptied with the interning tables' other caches.

    >>> from symint import form as F
    >>> m = F.max_(F.sym("a"), F.sym("b")).atom()
    >>> [str(n) for n in atom_facts(m, {}, {})]
    ['Norm(a - Max(a, b) <= 0)', 'Norm(b - Max(a, b) <= 0)']
    """
    kind = atom.kind
    if kind in ("max", "min"):
        positive = True
    elif kind in ("floordiv", "mod"):
        b = atom.args[1]
        positive = bound_form(b, ranges, memo)[0] >= 1 or (b.is_const and b.const < 0)  # Note [A negative divisor]
    else:
        return []
    key = atom.uid << 1 | positive
    found = _ATOM_FACTS.get(key)
    if found is None:
        found = _definitions(atom, positive)
        if len(_ATOM_FACTS) > MEMO_LIMIT:
            _ATOM_FACTS.clear()
        _ATOM_FACTS[key] = found
    return list(found)


_ATOM_FACTS: dict[int, tuple] = {}
register_cache(_ATOM_FACTS)  # Note [Sweeping the interning tables] (symint.form.terms)


def _definitions(atom: "F.Atom", positive: bool) -> tuple:
    """:func:`atom_facts` of ``atom`` when (for ``//`` and ``%``) the divisor is ``positive``.

    Note [A negative divisor]
        A constant divisor ``k < 0`` has definitions too: Python's ``x % k`` takes the sign of
        ``k``, so ``x = k*(x // k) + r`` with ``k < r <= 0``, that is ``k*q + k + 1 <= x <= k*q``
        (``positive`` is then True: the facts exist). JAX writes ``mod(a + mod(a, 2), -2) == 0``;
        with them, ``-2*((a + a % 2) // -2) == a + a % 2`` follows.
    """
    me = F.atom_form(atom)
    kind = atom.kind
    norms = []
    if kind in ("max", "min"):
        norms = [relation_norm("<=", arg, me) if kind == "max" else relation_norm("<=", me, arg) for arg in atom.args]
    elif positive and atom.args[1].is_const and atom.args[1].const < 0:
        # Note [A negative divisor]: x = k*q + r with k < r <= 0 (Python's floor division by k < 0),
        # so k*q + k + 1 <= x <= k*q
        x, b = atom.args
        q = me if kind == "floordiv" else F.floordiv(x, b)
        k = b.const
        norms = [combination_norm("<=", [(x, 1), (q, -k)]), combination_norm("<=", [(q, k), (x, -1)], k + 1)]
        if kind == "mod":
            norms.append(combination_norm("==", [(x, 1), (q, -k), (me, -1)]))
    elif positive:
        x, b = atom.args
        q = me if kind == "floordiv" else F.floordiv(x, b)
        # b*q as k*f: a constant divisor scales q inside the sums below (b*q is not built)
        f, k = (q, b.const) if b.is_const else (F.mul(b, q), 1)
        norms = [combination_norm("<=", [(f, k), (x, -1)]), combination_norm("<=", [(x, 1), (f, -k), (b, -1)], 1)]
        if kind == "mod":
            norms.append(combination_norm("==", [(x, 1), (f, -k), (me, -1)]))
    return tuple(n for n in norms if not isinstance(n, bool))  # a bool: the fact folded to a constant

class LinearFacts:
    """Facts ``f <= 0`` / ``f == 0`` indexed by monomial, for :meth:`prove_le0`.

    Args:
        facts: the initial facts (normalised relations with op ``<=`` or ``==``).
        budget: the number of combinations one question may try.
        depth: how many facts one combination may chain.
    """

    def __init__(self, facts: Iterable[Norm] = (), budget: int = 16, depth: int = 4):
        self.facts: list[Norm | None] = []  # None: a fact replaced by a rewrite (its index entries are skipped)
        self._dead = 0
        self._index: dict = {}
        self._seen: set = set()
        self.budget = budget
        self.depth = depth
        for f in facts:
            self.add(f)

    def __len__(self) -> int:
        return len(self.facts) - self._dead

    def live(self) -> list[Norm]:
        """The facts in the order they were added (replaced ones left out)."""
        return [f for f in self.facts if f is not None]

    def rewrite(self, names, rewrite) -> None:
        """Replace each fact ``f`` that mentions a symbol of ``names`` by ``rewrite(f)`` (a Norm, or None to drop it).

        The others keep their place and index entries, so the cost is in the affected facts only.
        """
        for i in range(len(self.facts)):  # not the facts added below: they are rewritten already
            f = self.facts[i]
            if f is None or f.p.symbols.isdisjoint(names):
                continue
            self.facts[i] = None
            self._dead += 1
            self._seen.discard(f)
            new = rewrite(f)
            if new is not None:
                self.add(new)

    def add(self, fact: Norm) -> None:
        """Add ``fact`` (ignored unless its op is ``<=`` or ``==``, or if already present)."""
        if fact.op not in ("<=", "==") or fact in self._seen:
            return
        self._seen.add(fact)
        i = len(self.facts)
        self.facts.append(fact)
        for m, c in fact.p.terms:
            self._index.setdefault(m, []).append((i, c))

    def mentioning(self, name: str) -> list[Norm]:
        """The facts whose terms include the symbol ``name`` on its own (for bound propagation)."""
        facts = self.facts  # the symbol on its own is one interned monomial: its entries in the index
        return [facts[i] for i, _ in self._index.get(F.sym(name).terms[0][0], _EMPTY) if facts[i] is not None]

    def prove_le0(self, p: "F.Form", ranges, memo: dict | None = None, sign: int = 1, offset: int = 0) -> bool:
        """Whether ``sign*p + offset <= 0`` follows from ``ranges`` and the facts (sound, incomplete).

        ``sign`` (1 or -1) and ``offset`` ask about ``1 - p`` or ``p - u`` without building
        (and interning) that form: its terms are ``p``'s, in the same order, and its
        interval bound is ``p``'s scaled and shifted (interval arithmetic is symmetric).

        Breadth first: every single fact that cancels a term of ``p`` is tried, then
        the most promising results (fewest terms) are combined with one more fact.

        >>> from symint import form as F
        >>> LinearFacts().prove_le0(F.sub(F.sym("x"), F.const(3)), {"x": (0, 3)})
        True
        >>> LinearFacts().prove_le0(F.sym("x"), {"x": (0, 3)}, sign=-1, offset=1)  # 1 - x <= 0
        False
        """
        memo = {} if memo is None else memo
        lo, hi = bound_form(p, ranges, memo)
        if (hi if sign == 1 else -lo) + offset <= 0:
            return True
        if len(self) == 0:
            return False
        steps = [self.budget]
        terms = dict(p.terms) if sign == 1 else {m: -c for m, c in p.terms}
        frontier = [(terms, sign * p.const + offset, (), 1)]
        for level in range(self.depth):
            last = level + 1 == self.depth
            found = []
            for terms, const_, used, scale in frontier:
                for upper, size, k, lam, i in self._step(terms, const_, used, steps, ranges, memo):
                    if upper < scale * k:  # Note [Rounding a scaled bound]
                        return True
                    if not last:
                        found.append((size, len(found), terms, const_, used, k, lam, i, scale))
                if steps[0] <= 0:
                    return False
            found.sort(key=_fewest_terms)
            frontier = [self._combine(terms, const_, k, lam, i) + (used + (i,), scale * k)
                        for _, _, terms, const_, used, k, lam, i, scale in found[:4]]
            if not frontier:
                return False
        return False

    # Note [Rounding a scaled bound]
    #     Each combination is ``K*q - sum(lam_i * f_i)`` for the question ``q`` (``sign*p + offset``,
    #     an integer for every value of the symbols), facts ``f_i <= 0`` (or ``== 0``) and
    #     multipliers ``lam_i >= 0`` (any sign for an equality): it is at least ``K*q``, where
    #     ``K > 0`` is the product of the scales ``k`` of the steps. So an upper bound ``U`` of
    #     it gives ``q <= U / K``, and ``q <= 0`` as soon as ``U < K``: ``q`` is an integer
    #     below 1. JAX's elimination rounds the same way. Without it, ``a - a//2 >= 1`` for
    #     ``a >= 1`` stayed unproven: ``2*(1 - a + a//2) - (2*(a//2) - a) = 2 - a <= 1``.
    #     (Checked by brute force in tests/valueranges/test_bound.py.)

    def _combine(self, terms: dict, const_: int, k: int, lam: int, i: int) -> tuple[dict, int]:
        """``k*p - lam*f`` for ``p`` given by ``terms`` and ``const_`` and the fact ``f`` number ``i``."""
        fact = self.facts[i]
        out = {mono: coeff * k for mono, coeff in terms.items()} if k != 1 else dict(terms)
        for mono, coeff in fact.p.terms:
            v = out.get(mono, 0) - lam * coeff
            if v:
                out[mono] = v
            else:
                out.pop(mono, None)
        return out, const_ * k - lam * fact.p.const

    def _step(self, terms: dict, const_: int, used: tuple, steps: list, ranges, memo):
        """Each way to cancel a term of ``p`` (``terms`` and ``const_``) with a fact not in ``used``:
        ``(upper bound of |d|*p - lam*f, its number of terms, |d|, lam, fact number)``.

        Only terms that make the upper bound infinite are worth cancelling when there
        are any (no combination proves a bound while one of them remains). The bound of
        each candidate is computed from ``p``'s by adjusting the terms the fact touches.
        """
        index = self._index
        facts = self.facts
        targets = []
        finite = const_  # the upper bound of p, split into its finite part and its number of infinite terms
        infinite = 0
        ends = {}  # p's monomial -> (its coefficient, the end of its bound that counts, None if infinite)
        for m, c in terms.items():
            b = memo.get(m)
            if b is None:
                b = memo[m] = mono_bound(m, ranges, memo)
            end = b[1] if c > 0 else b[0]
            if end == INF or end == -INF:
                targets.append((m, c))
                infinite += 1
                ends[m] = (c, None)
            else:
                finite += c * end
                ends[m] = (c, end)
        size0 = len(terms)
        for m, c in targets or list(terms.items()):
            for i, d in index.get(m, _EMPTY):
                if i in used:
                    continue
                fact = facts[i]
                if fact is None or (fact.op == "<=" and (c > 0) != (d > 0)):
                    continue  # this multiple of f would not cancel m while keeping the inequality
                if steps[0] <= 0:
                    return
                steps[0] -= 1
                k = d if d > 0 else -d
                lam = (c if d > 0 else -c) if fact.op == "==" else (c if c > 0 else -c)
                fp = fact.p
                fin, inf, size = finite * k - lam * fp.const, infinite, size0
                for mono, coeff in fp.terms:
                    own = ends.get(mono)
                    if own is not None:  # a term of p: take its (scaled) part of the bound out
                        old = own[0] * k  # k > 0: the same end of the bound counts
                        if own[1] is None:
                            inf -= 1
                        else:
                            fin -= old * own[1]
                        new = old - lam * coeff
                    else:
                        size += 1
                        new = -lam * coeff
                    if new:
                        b = memo.get(mono)
                        if b is None:
                            b = memo[mono] = mono_bound(mono, ranges, memo)
                        end = b[1] if new > 0 else b[0]
                        if end == INF or end == -INF:
                            inf += 1
                        else:
                            fin += new * end
                    else:
                        size -= 1
                yield (INF if inf else fin), size, k, lam, i


def _fewest_terms(candidate: tuple) -> tuple:
    return candidate[0], candidate[1]


def propagate(fact: Norm, ranges) -> list[tuple[str, object, object]]:
    """Bounds on single symbols implied by a linear fact and the other symbols' ranges.

    From ``sum(a_i * x_i) + c <= 0``: ``a_j * x_j <= -c - sum_{i != j} lower(a_i * x_i)``.
    Returns ``(name, lo, hi)`` for each symbol whose bound is finite (the caller intersects).

    >>> from symint import form as F
    >>> from symint.form.logic import rel
    >>> n = rel(">=", F.sym("a1"), F.add(F.sym("a0"), F.const(8))).norm
    >>> propagate(n, {"a0": (6, INF), "a1": (2, INF)})
    [('a1', 14, inf)]
    """
    lin = fact.p.linear()
    if not lin:
        return []
    sides = [fact.p] if fact.op == "<=" else [fact.p, F.neg(fact.p)]
    out = []
    for p in sides:
        lin = p.linear()
        lows = {}
        for name, a in lin.items():
            lo, hi = ranges.get(name, (-INF, INF))
            lows[name] = lo * a if a > 0 else hi * a  # the least value of a * x
            if lows[name] != lows[name]:  # nan from 0 * inf cannot happen: a != 0
                return []
        total = sum(v for v in lows.values() if v != -INF)
        infinite = [n for n, v in lows.items() if v == -INF]
        for name, a in lin.items():
            if len(infinite) > 1 or (infinite and infinite[0] != name):
                continue
            rest = total - (lows[name] if lows[name] != -INF else 0)
            limit = -p.const - rest  # a * x <= limit
            if a > 0:
                out.append((name, -INF, limit // a))
            else:
                out.append((name, -(limit // (-a)), INF))
    return out


def by_interval(op: str, lo, hi) -> bool | None:
    """``p op 0`` (``op`` one of a Norm's ``<=``, ``==``, ``!=``) decided by ``p``'s interval ``[lo, hi]`` alone, else None.

    >>> by_interval("<=", -3, 0), by_interval("==", 1, 4), by_interval("!=", -2, 2)
    (True, False, None)
    """
    if op == "<=":
        return True if hi <= 0 else (False if lo > 0 else None)
    if not lo <= 0 <= hi:
        return op == "!="
    if lo == hi == 0:
        return op == "=="
    return None


def decide_norm(n: "Norm | bool", facts: LinearFacts | None, ranges, memo: dict | None = None,
                expect: bool | None = None, interval_asked: bool = False) -> bool | None:
    """True/False when ``n`` is decided by ranges and linear facts, else None.

    ``expect``: the answer the traced example gives, when known. The example satisfies
    every fact, so only that answer can be provable, and only it is searched for.
    ``interval_asked``: the caller has asked :func:`by_interval` already (undecided): skip it.

    >>> from symint import form as F
    >>> from symint.form.logic import rel
    >>> decide_norm(rel("==", F.sym("x"), F.const(1)).norm, None, {"x": (2, INF)})
    False
    """
    if isinstance(n, bool):
        return n
    memo = {} if memo is None else memo
    p = n.p
    if not interval_asked:
        decided = by_interval(n.op, *bound_form(p, ranges, memo))
        if decided is not None:
            return decided
    if facts is None or len(facts) == 0:
        return None
    if n.op == "<=":
        if expect is not False and facts.prove_le0(p, ranges, memo):
            return True
        if expect is not True and facts.prove_le0(p, ranges, memo, sign=-1, offset=1):  # 1 - p <= 0
            return False
        return None
    nonzero_expected = None if expect is None else (expect == (n.op == "!="))
    if nonzero_expected is not False:
        if facts.prove_le0(p, ranges, memo, sign=-1, offset=1) or facts.prove_le0(p, ranges, memo, offset=1):
            return n.op == "!="  # p >= 1 (1 - p <= 0) or p <= -1 (p + 1 <= 0)
    return None


#: The most questions :func:`tighten_bound` asks the linear procedure per end of a bound.
BOUND_QUESTIONS = 24


def least_proven(proves, lo, hi, budget: int = BOUND_QUESTIONS):
    """The least ``u`` in ``[lo, hi]`` for which ``proves(u)`` (a monotone test) holds, searched with a budget.

    ``proves(hi)`` is taken to hold (``hi`` is a bound already); ``lo`` and ``hi`` may be
    infinite. Galloping from ``lo`` (or 0) finds a proven value, then bisection narrows
    it. Every answer but ``hi`` was proven, so the result is a sound bound however the
    budget ends; the questions asked depend only on the answers, so it is deterministic.

    >>> least_proven(lambda u: u >= 37, -INF, INF), least_proven(lambda u: u >= 5, 0, 9), least_proven(lambda u: False, 0, 9)
    (37, 5, 9)
    """
    left = [budget]

    def ask(u) -> bool:
        left[0] -= 1
        return proves(u)

    good, bad = hi, (lo - 1 if lo != -INF else -INF)  # invariant: proves(good); not proves(bad) (or bad = -oo)
    if good == INF:
        start = lo if lo != -INF else 0
        step = 1
        while left[0] > 0:
            u = start + step - 1
            if ask(u):
                good = u
                break
            bad = u
            step *= 2
        else:
            return INF
    if bad == -INF:  # gallop down from the proven value to find an unproven one
        step = 1
        while left[0] > 0:
            u = good - step
            if not ask(u):
                bad = u
                break
            good = u
            step *= 2
        else:
            return good
    while good - bad > 1 and left[0] > 0:
        mid = (good + bad) // 2
        if ask(mid):
            good = mid
        else:
            bad = mid
    return good


def tighten_bound(f: "F.Form", facts: LinearFacts, ranges, memo: dict, interval: tuple | None = None) -> tuple:
    """``(lo, hi)`` of ``f`` with what the linear facts prove, inside its interval bound.

    Each end is searched by :func:`least_proven` with ``prove_le0`` as the test
    (``f - u <= 0`` for the upper end, ``-f - u <= 0`` for the lower), so a bound
    is exactly what the decision procedure can show: ``b - a`` with
    ``a + 2 <= b <= a + 5`` is ``[2, 5]`` where intervals give ``[-oo, oo]``.

    >>> from symint.form.logic import rel
    >>> a, b = F.sym("a"), F.sym("b")
    >>> facts = LinearFacts([rel("<=", F.add(a, F.const(2)), b).norm, rel("<=", b, F.add(a, F.const(5))).norm])
    >>> tighten_bound(F.sub(b, a), facts, {}, {})
    (2, 5)
    """
    lo, hi = bound_form(f, ranges, memo) if interval is None else interval
    if lo == hi or len(facts) == 0:
        return lo, hi
    hi = least_proven(lambda u: facts.prove_le0(f, ranges, memo, offset=-u), lo, hi)  # f - u <= 0
    low = least_proven(lambda u: facts.prove_le0(f, ranges, memo, sign=-1, offset=-u),  # -f - u <= 0
                       -hi if hi != INF else -INF, -lo if lo != -INF else INF)
    return (-low if low != INF else -INF), hi
