"""The exact reduction of a guard set on boolean forms, with the one facts engine (no Z3, no sympy).

Note [One reduction on forms]
    ``produce_guards`` reduces the recorded guards once, here: the guards are learnt into one
    :class:`valueranges.facts.Facts` (in their order, each true at the traced example), which
    concludes per symbol a replacement, a range and divisors. The reduced set is then

    * the *explicit facts*: one equality per replacement, each symbol's range as the
      bounds its domain does not already imply, its divisors (those dividing no other);
      a replaced symbol's bounds and divisors are left out when its replacement and the
      ranges of the replacement's symbols imply them (interval arithmetic);
    * the guards these explicit facts (and the guards kept so far, newest first) do not
      decide, in their simplified form (a guard of one symbol monotone in it, as a bound);
    * then, over symbols with small finite ranges, the guards decided by enumeration
      (Note [Reducing over finite ranges] in :mod:`guards.simplify.finite_domain`): ranges
      shrink and a symbol with one value left is pinned; when something was pinned, the
      steps above run again on the result (a bounded number of rounds), which substitutes it;
    * in the canonical order (:func:`~guards.simplify.classify.form_order_key`).

    Every explicit fact is a consequence of the guards; every guard dropped is implied by
    what is kept; the finite pass is exact: so the result accepts exactly what the input
    accepts. Nothing here builds a sympy expression or prints one: provenance is a function
    called when someone reads it (``Guard.origin``).

>>> from symint import form as F
>>> from symint.form import logic as B
>>> s0, s1 = F.sym("s0"), F.sym("s1")
>>> guards = [B.rel(">=", s0, F.const(2)), B.rel(">", s0, F.const(3)), B.rel("==", s1, s0), B.rel("<=", s0, F.const(100))]
>>> [str(g.expr) for g in reduce_forms([(g, None) for g in guards], {"s0": (0, math.inf), "s1": (0, math.inf)})]
['Eq(s1, s0)', 's0 >= 4', 's0 <= 100']
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Mapping, Sequence

from symint import form as F
from symint.form import logic as B
from symint.form.logic import BoolForm
from symint.lazy_sympy import lazy_module
from valueranges import ValueRanges
from valueranges.errors import ContradictoryFactsError, ValueRangeError
from valueranges.facts import Facts, natural_rank
from valueranges.facts.monotone import as_bound
from valueranges.facts.ranges import intersect

from guards.guard import Guard, form_key
from guards.simplify.classify import _name_key, classify_form, form_order_key, has_opaque, may_raise, never_raises
from guards.simplify.finite_domain import FiniteLimits, reduce_finite_forms

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["reduce_forms", "FormReduction", "merge_bounds", "canonical_guards", "join_origins"]

INF = math.inf

#: One guard to reduce: its form and its origin (text, None, or a function returning the text).
Item = tuple[BoolForm, object]


def join_origins(origins: Iterable[object]) -> Callable[[], str | None]:
    """The origin of a guard made from others: their origins (text, None, or functions returning it), joined when read.

    >>> join_origins(["a.py:1", None, lambda: "b.py:2", "a.py:1"])()
    'a.py:1; b.py:2'
    """
    parts = tuple(origins)

    def text() -> str | None:
        out = [o() if callable(o) else o for o in parts]
        return "; ".join(dict.fromkeys(o for o in out if o)) or None

    return text


class FormReduction:
    """One reduction (Note [One reduction on forms]); all state is local to it.

    Args:
        domain: each symbol's range before any guard, by name (sizes: ``(0, inf)``).
        rank: the facts engine's elimination order (which symbol an equality eliminates).
        hints: the traced example's value of each symbol, by name (for monotone guards).
    """

    def __init__(self, domain: Mapping[str, tuple], rank: Callable[[str], object] = natural_rank,
                 hints: Mapping[str, int] | None = None):
        self.domain, self.rank, self.hints = domain, rank, hints or {}

    # -- learning -----------------------------------------------------------------------------
    def learn(self, items: Sequence[Item], initial: Mapping[str, tuple], seeds: Mapping[str, list] | None = None,
              consistent: bool = True) -> tuple[Facts, dict[str, list]]:
        """The facts the ``initial`` ranges and the guards imply, and per symbol the origins that changed them.

        ``consistent``: every guard holds at one point with the ranges (the traced example).

        Raises:
            ContradictoryFactsError: the guards contradict each other.
        """
        facts = Facts(rank=self.rank)
        for name, (lo, hi) in initial.items():
            facts.set_range(name, _ranges_of(lo, hi))
        causes: dict[str, list] = {name: list(v) for name, v in (seeds or {}).items()}
        current: list = [None]

        def taught(fact: BoolForm) -> None:  # a range, replacement or divisor of one symbol changed
            name = _subject(fact)
            if name is not None:
                found = causes.setdefault(name, [])
                if not found or found[-1] is not current[0]:
                    found.append(current[0])

        facts.on_new_fact(taught)
        for form, origin in items:
            current[0] = origin
            # not asked whether it is implied already: at worst a redundant fact is remembered (recorded
            # guards were undecided when recorded, with more facts than these: the search would fail)
            facts.learn_form(form, undecided=True, consistent=consistent)
        return facts, causes

    # -- the explicit facts -------------------------------------------------------------------
    def explicit(self, facts: Facts, names: Iterable[str], causes: Mapping[str, list]) -> list[Item]:
        """Per symbol: its replacement, its range beyond the domain, its divisors (Note [One reduction on forms])."""
        ranges, repl, divisors = facts.symbol_facts()
        names = list(names)
        named = set(names)
        out: list[Item] = []
        for name in names:
            why = causes.get(name, ())
            x = F.sym(name)
            value = repl.get(name)
            lo, hi = ranges.get(name, (-INF, INF))
            text = _explain(f"{name} in [{_fmt(lo)}, {_fmt(hi)}] from: ", None, why)
            ks = divisors.get(name, set())
            if value is not None:
                out.append((B.rel("==", x, value), _explain(f"{name} = ", value, why)))
                if value.is_const:
                    continue
                if value.symbols <= named and not value.symbols & repl.keys():
                    vlo, vhi = facts.bound_form(value)  # the replacement's range from its symbols' (emitted) ranges
                    lo, hi = (-INF if vlo >= lo else lo), (INF if vhi <= hi else hi)
                    ks = {k for k in ks if facts.bound_form(F.mod(value, F.const(k))) != (0, 0)}
            base_lo, base_hi = self.domain.get(name, (-INF, INF))
            mods = sorted(k for k in ks if k != 1)
            mods = [m for m in mods if not any(o != m and o % m == 0 for o in mods)]
            step = math.lcm(1, *mods)
            if step > 1 and (base_lo, base_hi) != (-INF, INF):
                base_lo, base_hi = intersect(name, (base_lo, base_hi), -INF, INF, step)  # rounded to the step
            if lo > base_lo:
                out.append((B.rel(">=", x, F.const(int(lo))), text))
            if hi < base_hi:
                out.append((B.rel("<=", x, F.const(int(hi))), text))
            for k in mods:
                out.append((B.rel("==", F.mod(x, F.const(k)), F.const(0)), _explain(f"{name} divisible by {k} from: ", None, why)))
            if value is None:
                k, r = facts.modular_set(x)  # a residue (``x % 4 == 1``) simplifies guards away: it is stated too
                if k > 1 and r % k:
                    out.append((B.rel("==", F.mod(x, F.const(k)), F.const(r % k)), _explain(f"{name} % {k} == {r % k} from: ", None, why)))
        return out

    # -- the guards the explicit facts do not decide ------------------------------------------
    def keep(self, facts: Facts, explicit: Sequence[Item], items: Sequence[Item]) -> list[Item]:
        """The guards of ``items`` that ``explicit`` and the guards kept before do not decide, newest first.

        Each is simplified by ``facts`` first (sound: its replacements and divisors are explicit).

        Note [Guards that may raise]
            A guard with a symbolic divisor (``x == y // z``) fails where the divisor is 0, but
            forms assume divisors nonzero: substituting ``y = 0`` would give ``x == 0``, which
            holds at ``z == 0``. Such a guard is kept or dropped whole, never rewritten, and it
            is dropped only where every divisor's range excludes 0 (as ``reduce_exact`` does).

        Note [Guards the finite pass decides]
            A guard over symbols whose ranges are finite and small enough together is decided
            exactly by the finite pass that follows (Note [Reducing over finite ranges]), so
            searching whether the guards kept so far imply it is wasted: such a guard is only
            asked of the ranges (``facts`` with ``use_facts=False``: its ranges, replacements
            and divisors are all explicit) and is not learnt. The finite pass must be able to
            take it: the box of all these symbols within its points, the guards' nodes times
            the points within its evaluations, no opaque atom (else the full search, as before).
        """
        counted: set[int] = set()
        enumerable, budget = self._enumerable(facts, counted)
        kept_facts = None
        kept: list[Item] = []
        seen = {form_key(f) for f, _ in explicit}
        for form, origin in reversed(items):
            raises = may_raise(form)
            if not raises:  # Note [Guards that may raise]
                form = facts.simplify_bool(form)
                if form.kind == "const":
                    continue
            cost = _new_nodes(form, counted) if form.symbols <= enumerable and not has_opaque(form) else None
            if cost is not None and cost <= budget:
                budget -= cost
                if facts.decide(form, use_facts=False, expect=True) is True and never_raises(form, facts, raises):
                    continue
            else:
                if kept_facts is None:
                    kept_facts = self._explicit_facts(explicit)
                # every guard and fact here holds for the hints: only "implied" is worth searching for
                if kept_facts.decide(form, expect=True) is True and never_raises(form, kept_facts, raises):
                    continue
                kept_facts.learn_form(form, undecided=True, consistent=True)  # just asked: not asked again
            form = _plain(self._as_bound(facts, form))
            if form is B.TRUE:
                continue
            key = form_key(form)
            if key not in seen:
                seen.add(key)
                kept.append((form, origin))
        kept.reverse()
        return kept

    def _explicit_facts(self, explicit: Sequence[Item]) -> Facts:
        """A facts engine that knows the domain and the explicit facts, and nothing else."""
        kept_facts = Facts(rank=self.rank)
        for name, (lo, hi) in self.domain.items():
            if (lo, hi) != (-INF, INF):
                kept_facts.set_range(name, _ranges_of(lo, hi))
        for form, _ in explicit:
            kept_facts.learn_form(form, consistent=True)
        return kept_facts

    def _enumerable(self, facts: Facts, counted: set[int]) -> tuple[frozenset, int]:
        """The symbols the finite pass will enumerate or compute, and how many more nodes of guards it can evaluate.

        All symbols with finite ranges (not replaced) when their box is within the points (else
        none), and the replaced symbols whose replacement reads only those (the finite pass
        computes them from their explicit equality, whose nodes are counted in ``counted``).
        """
        limits = FiniteLimits()
        box, names, defined = 1, [], []
        for name, (lo, hi) in facts.bounds().items():
            value = facts.replacement(name)
            if value is not None:
                defined.append((name, value))
            elif lo != -INF and hi != INF:
                box *= int(hi - lo + 1)
                names.append(name)
                if box > limits.max_points:
                    return frozenset(), 0
        budget = limits.max_evaluations // max(box, 1) * 3 // 4  # a margin: the pass evaluates bounds too
        finite = set(names)
        for name, value in defined:
            if not value.is_const and value.symbols <= finite:
                names.append(name)
                budget -= _form_nodes(value, counted)
        return frozenset(names), budget

    def _as_bound(self, facts: Facts, form: BoolForm) -> BoolForm:
        """A single-symbol guard monotone in its symbol, as the equivalent bound (see :mod:`valueranges.facts.monotone`)."""
        if form.kind != "rel" or len(form.symbols) != 1:
            return form
        (name,) = form.symbols
        hint = self.hints.get(name)
        if hint is None or name not in facts.bounds():
            return form
        lo, hi = facts.bounds()[name]
        found = as_bound(form, name, lo, hi, hint)
        return form if found is None else found

    # -- one round, and the finite pass --------------------------------------------------------
    def round(self, items: Sequence[Item], names: Iterable[str], initial: Mapping[str, tuple] | None = None,
              seeds: Mapping[str, list] | None = None, causes: Sequence[object] | None = None) -> list[Item]:
        """The explicit facts of the symbols ``names`` and the guards they do not decide (guards holding at one point).

        ``initial``: the ranges learnt before the guards (default: the domain); ``seeds``: per
        symbol, the origins of those ranges; ``causes``: per guard, how an explicit fact it
        taught cites it (default: its origin).
        """
        if initial is None:
            initial = {n: r for n, r in self.domain.items() if r != (-INF, INF)}
        taught = items if causes is None else [(f, c) for (f, _), c in zip(items, causes)]
        facts, causes = self.learn(taught, initial, seeds)
        explicit = self.explicit(facts, names, causes)
        return merge_bounds(explicit + self.keep(facts, explicit, items))

    def settle(self, items: list[Item], rounds: int = 3) -> list[Item]:
        """The finite pass, then a round again while it pins new symbols (a bounded number of times)."""
        for _ in range(rounds):
            reduced = self._finite(items)
            before = {form_key(f) for f, _ in items}
            if not any(classify_form(f).kind == "exact" and form_key(f) not in before for f, _ in reduced):
                return reduced  # nothing newly pinned: nothing to substitute
            names = set().union(*(f.symbols for f, _ in reduced)) if reduced else set()
            try:
                items = self.round(reduced, sorted(names, key=_name_key))
            except (ContradictoryFactsError, ValueRangeError):
                return reduced
        return self._finite(items)

    def _finite(self, items: list[Item]) -> list[Item]:
        forms = [f for f, _ in items]
        result = reduce_finite_forms(forms, self.domain)
        if not result.dropped and not result.added:
            return items
        given = {form_key(f): o for f, o in items}
        added = {form_key(f): origins for f, origins in result.added}
        out = []
        for f in result.forms:
            key = form_key(f)
            origin = given[key] if key in given else join_origins(items[i][1] for i in sorted(added.get(key, ())))
            out.append((f, origin))
        return out


def reduce_forms(items: Sequence[Item], domain: Mapping[str, tuple], rank: Callable[[str], object] = natural_rank,
                 hints: Mapping[str, int] | None = None) -> list[Guard]:
    """The exact reduction of guards ``(form, origin)`` over ``domain`` (Note [One reduction on forms]), as guards.

    Every guard must hold at one point of the domain (the traced example): the facts engine
    then only searches whether a guard is implied. The result is in canonical order.

    Raises:
        ContradictoryFactsError: the guards contradict each other.
    """
    reduction = FormReduction(domain, rank, hints)
    names = set().union(*(f.symbols for f, _ in items)) if items else set()
    out = reduction.settle(reduction.round(items, sorted(names, key=_name_key)))
    return canonical_guards(out)


def merge_bounds(items: Sequence[Item]) -> list[Item]:
    """One lower and one upper bound per symbol, the strongest (a kept guard may be a bound: a monotone one).

    A symbol with a value (``Eq(s, 5)``) keeps no bound. Exact: the bounds left out are implied.
    """
    kinds = [classify_form(f) for f, _ in items]
    best: dict[tuple, tuple] = {}
    for i, k in enumerate(kinds):
        if k.kind in ("lower", "upper", "exact"):
            slot = (k.sym, "exact" if k.kind == "exact" else k.kind)
            old = best.get(slot)
            if old is None or (k.value > old[0] if k.kind == "lower" else k.value < old[0]):
                best[slot] = (k.value, i)
    out = []
    for i, (item, k) in enumerate(zip(items, kinds)):
        if k.kind in ("lower", "upper") and ((k.sym, "exact") in best or best[(k.sym, k.kind)][1] != i):
            continue
        out.append(item)
    return out


def canonical_guards(items: Iterable[Item]) -> list[Guard]:
    """Guards of ``(form, origin)`` pairs, duplicates merged, in the canonical order (no text is built)."""
    seen: dict = {}
    for form, origin in items:
        if form is not B.TRUE:
            seen.setdefault(form_key(form), (form, origin))
    return [Guard.of(form, origin) for form, origin in sorted(seen.values(), key=lambda item: form_order_key(item[0]))]


_PLAIN = {"lower": ">=", "upper": "<=", "exact": "==", "ne": "!="}


def _plain(form: BoolForm) -> BoolForm:
    """A guard on one symbol written plainly: ``s - 3 != 9`` as ``s != 12``, ``2*s >= 5`` as ``s >= 3`` (the same set)."""
    k = classify_form(form)
    op = _PLAIN.get(k.kind)
    if op is not None:
        return B.rel(op, F.sym(k.sym), F.const(k.value))
    if k.kind == "div":
        return B.rel("==", F.mod(F.sym(k.sym), F.const(k.value)), F.const(0))
    return form


def _new_nodes(form: BoolForm, counted: set[int]) -> int:
    """The forms and non-symbol atoms in ``form`` not yet in ``counted`` (added): what the finite pass evaluates once each."""
    if form.kind == "rel":
        return _form_nodes(form.args[1], counted) + _form_nodes(form.args[2], counted)
    if form.kind in ("and", "or", "not"):
        return sum(_new_nodes(a, counted) for a in form.args)
    return 0


def _form_nodes(f: "F.Form", counted: set[int]) -> int:
    if f.uid in counted:
        return 0
    counted.add(f.uid)
    n = 1
    for m, _ in f.terms:
        for a, _ in m.factors:
            if a.kind != "sym" and a.uid not in counted:
                counted.add(a.uid)
                n += 1 + sum(_form_nodes(x, counted) for x in a.args)
    return n


def _subject(fact: BoolForm) -> str | None:
    """The symbol a fact the engine reports is about: a bound, a replacement (its left side) or a divisor; else None."""
    if fact.kind != "rel":
        return None
    op, lhs, rhs = fact.args
    atom = lhs.atom()
    if atom is not None and atom.kind == "sym" and (op == "==" or rhs.is_const):
        return atom.name
    if atom is not None and atom.kind == "mod" and rhs.is_const:
        return next(iter(atom.symbols)) if len(atom.symbols) == 1 else None
    return None


def _ranges_of(lo, hi) -> ValueRanges:
    return ValueRanges.of(lo, hi)


def _fmt(v) -> str:
    return "oo" if v == INF else "-oo" if v == -INF else str(int(v))


def _explain(head: str, value: "F.Form | None", why: Sequence[object]) -> Callable[[], str]:
    """The origin of an explicit fact: what it says and the origins of the guards that taught it (built when read)."""
    causes = tuple(why)

    def text() -> str:
        said = head + (str(_io.to_sympy(value)) if value is not None else "")
        if value is not None:
            said += " from: "
        parts = [c() if callable(c) else c for c in causes]
        return said + "; ".join(dict.fromkeys(p for p in parts if p))

    return text
