"""Passes 2-3 of guard-set simplification: the guards folded into the facts engine, with their origins.

The knowledge (which symbols are equal, each symbol's range, divisibility, what the
simple guards decide) is held by the one facts engine, :class:`valueranges.facts.Facts`;
this module only classifies each guard (:func:`~guards.simplify.classify.classify_form`),
feeds the simple ones to the engine and remembers which input guards (by index, their
*origins*) each equality class and each per-symbol fact came from, which the passes
need to report what replaced what and to seed the proof of equivalence. Guards are
boolean forms and symbols are named by their names: nothing here builds sympy (but
:func:`substitute_symbols` into an opaque part, when asked: what only sympy holds).

The engine knows the domain, the equalities between symbols and each symbol's bounds,
values, excluded values and divisors. Guards of any other shape are not learned: they
are what the later passes keep, drop or prove. The *baseline* of a class (the range its
domains allow without its bound guards, so that a bound the domain already implies is
not emitted) is the intersection of its members' domains.

>>> from symint import form as F
>>> from symint.form import logic as B
>>> from valueranges import ValueRanges
>>> s0, s1 = F.sym("s0"), F.sym("s1")
>>> folded = FoldedGuards({"s0": ValueRanges.of(2, 100)}, [(B.rel("==", s1, s0), 0), (B.rel(">=", s1, F.const(3)), 1),
...                                                      (B.rel("==", F.mod(s0, F.const(4)), F.const(0)), 2)])
>>> folded.mapping == {"s1": s0}, folded.range_of("s1")
(True, (4, 100, 4))
"""

from __future__ import annotations

import math
from typing import Hashable, Iterable, Mapping

from symint import form as F
from symint.build import symbol_expr
from symint.form import logic as B
from symint.form.logic import BoolForm
from symint.lazy_sympy import lazy_module
from valueranges import ValueRanges
from valueranges.errors import ContradictoryFactsError, ValueRangeError
from valueranges.facts import Facts

from guards.guard import as_bool_form, form_key
from guards.simplify.classify import _Contradiction, _name_key, classify_form, may_raise, never_raises

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["FoldedGuards", "substitute_symbols"]

INF = math.inf


def substitute_symbols(b: BoolForm, mapping: Mapping[str, "F.Form"], memo: dict, into_opaque: bool = False) -> BoolForm:
    """``b`` with each symbol named in ``mapping`` replaced by its form (canonical again; ``memo`` per mapping).

    An opaque part (a float comparison) is left as written unless ``into_opaque``: then its sympy
    expression is substituted (the sympy boundary: what forms cannot hold).

    Raises:
        ZeroDivisionError: a divisor folded to 0.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> x, y = F.sym("x"), F.sym("y")
    >>> substitute_symbols(B.rel("<", F.add(x, y), F.const(9)), {"y": x}, {})
    BoolForm(2*x < 9)
    """
    if not mapping or not b.symbols & mapping.keys():
        return b

    def on_opaque(o: BoolForm) -> BoolForm | None:
        if not into_opaque or not o.symbols & mapping.keys():
            return None
        return as_bool_form(o.args[0].xreplace({symbol_expr(n): _io.to_sympy(v) for n, v in mapping.items() if n in o.symbols}))

    return F.transform_bool(b, lambda a: mapping.get(a.name) if a.kind == "sym" else None, memo, on_opaque)


class FoldedGuards:
    """The guards' equality classes and per-symbol facts, held by the facts engine (see the module docstring).

    Args:
        domain: each symbol's range before any guard, by name.
        items: the guards (boolean forms, no conjunction), each with its origin (an input index).

    Construction folds to a fixpoint; afterwards ``mapping`` sends each symbol name to its
    class representative (the least in natural order) or constant, as a form, ``range_of``
    gives each class's range, and ``entails`` answers implication questions from these facts.

    Raises:
        _Contradiction: the simple guards cannot all hold (with the guards involved).
    """

    def __init__(self, domain: Mapping[str, ValueRanges], items: list[tuple[BoolForm, int]]):
        self.domain = domain
        self.parent: dict[str, str] = {}
        self.const: dict[str, int] = {}
        self.class_origins: dict[str, set[int]] = {}
        self.reasons: dict[int, str] = {}
        self.facts: dict[str, list[tuple[str, int, int]]] = {}
        self.others: dict[Hashable, tuple[BoolForm, set[int]]] = {}  # by form_key: the form and its origins
        self.engine = self._engine()
        self._learned: set = set()
        self._fold(items)
        self.mapping = self._mapping()
        self.members = self._members()

    def _engine(self) -> Facts:
        facts = Facts()
        for s, rng in self.domain.items():
            if not rng.is_bool:
                facts.set_range(s, rng)
        return facts

    # -- equality classes (provenance only: the engine holds the equalities themselves) ---------
    def find(self, s: str) -> str:
        while s in self.parent and self.parent[s] != s:
            s = self.parent[s]
        return s

    def _union(self, a: str, b: str, origin: int) -> None:
        root, other = sorted((self.find(a), self.find(b)), key=_name_key)
        self.parent.setdefault(root, root)
        self.parent[other] = root
        self.class_origins.setdefault(root, set()).update(self.class_origins.pop(other, ()), [origin])
        self._learn(self.engine, B.rel("==", F.sym(a), F.sym(b)), [origin])

    def _mapping(self) -> dict[str, "F.Form"]:
        out: dict[str, F.Form] = {}
        for s in self.parent:
            r = self.find(s)
            if r in self.const:
                out[s] = F.const(self.const[r])
            elif r != s:
                out[s] = F.sym(r)
        return out

    def _members(self) -> dict[str, list[str]]:
        classes: dict[str, list[str]] = {}
        for s in self.parent:
            classes.setdefault(self.find(s), []).append(s)
        return {r: sorted(ms, key=_name_key) for r, ms in classes.items()}

    # -- folding --------------------------------------------------------------------------------
    def _learn(self, engine: Facts, fact: BoolForm, origins: Iterable[int]) -> None:
        try:
            engine.learn_form(fact)
        except ContradictoryFactsError:
            raise _Contradiction(origins) from None

    def _fold(self, items: list[tuple[BoolForm, int]]) -> None:
        while True:
            mapping, memo = self._mapping(), {}
            self.facts, self.others = {}, {}
            changed = False
            for form, origin in items:
                try:
                    e = form if may_raise(form) else substitute_symbols(form, mapping, memo)
                except ZeroDivisionError:  # a folded 0 divisor: keep the guard as written
                    e = form
                k = classify_form(e)
                if k.kind == "true":
                    self.reasons[origin] = "always true given the equalities" if mapping else "always true"
                elif k.kind == "false":
                    raise _Contradiction([origin])
                elif k.kind == "eqsym":
                    self._union(k.sym, k.value, origin)
                    changed = True
                elif k.kind == "other":
                    self.others.setdefault(form_key(e), (e, set()))[1].add(origin)
                else:
                    self.facts.setdefault(k.sym, []).append((k.kind, k.value, origin))
            if changed:
                continue
            for s, fs in self.facts.items():
                self._learn_facts(s, fs)
                value = self.engine.replacement(s)
                root = self.find(s)
                if value is not None and value.is_const and root not in self.const:  # pinned: substitute it everywhere
                    self.parent.setdefault(root, root)
                    self.const[root] = int(value.const)
                    self.class_origins.setdefault(root, set()).update(o for _, _, o in fs)
                    changed = True
            if not changed:
                return

    def _learn_facts(self, s: str, fs: list[tuple[str, int, int]]) -> None:
        """The facts about one symbol, into the engine: bounds, values and divisors, then the excluded
        values from the ends inwards (an excluded end moves the end: Note [Excluded values])."""
        key = (s, tuple(fs))
        if key in self._learned:  # the same facts in an earlier round of the fixpoint
            return
        self._learned.add(key)
        x = F.sym(s)
        origins = [o for _, _, o in fs] + sorted(self.class_origins.get(self.find(s), ()))
        rel = {"lower": ">=", "upper": "<=", "exact": "=="}
        for kind, value, _ in fs:
            if kind in rel:
                self._learn(self.engine, B.rel(rel[kind], x, F.const(value)), origins)
            elif kind == "div":
                self._learn(self.engine, B.rel("==", F.mod(x, F.const(value)), F.const(0)), origins)
        excluded = sorted({value for kind, value, _ in fs if kind == "ne"})
        for value in excluded + excluded[::-1]:
            self._learn(self.engine, B.rel("!=", x, F.const(value)), origins)

    # Note [Excluded values]
    #     The engine narrows a range past an excluded value only when the value is an end
    #     at the time it is learned. Learning the excluded values in ascending order moves
    #     the lower end past each one it meets, and in descending order the upper end, so
    #     the range is the same as excluding them all at once (``s >= 2``, ``s != 2``,
    #     ``s != 3``: ``s >= 4``); the divisors are learned first, so the ends step by them.

    # -- answers --------------------------------------------------------------------------------
    def baseline(self, rep: str) -> tuple:
        """The range the domains of ``rep``'s class allow (tied to ``rep`` by the kept equalities)."""
        lo, hi = -INF, INF
        for m in self.members.get(rep, [rep]):
            rng = self.domain.get(m)
            if rng is not None and not rng.is_bool:
                lo, hi = max(lo, rng.lower), min(hi, rng.upper)
        return lo, hi

    def range_of(self, s: str) -> tuple:
        """``(lo, hi, step)``: the baseline narrowed by the facts about ``s``; ``step`` divides ``s``.

        A symbol stands for its class (they are equal wherever the kept equalities hold).
        """
        s = self.find(s)
        if s in self.const:
            return self.const[s], self.const[s], 1
        rng = self.engine.range_of(s)
        return rng.lower, rng.upper, self.engine.multiple_of(s)

    def decide(self, e: BoolForm, search: bool = True) -> bool | None:
        """What the engine decides of ``e`` (equalities substituted): True/False, or None.

        True only where no division in ``e`` can be by zero; False means ``e`` never holds
        (where a divisor is 0 it raises, which fails as a guard too). Only True is searched
        for (``expect=True``: half the search); False is found only where the ranges alone
        decide it, and other contradictions are left to Z3. ``search=False`` leaves out the
        linear-facts search (ranges, divisibility, case splits and rewrites only): the cheap
        question of pass 4.
        """
        if e.kind == "const":
            return e.value
        try:
            answer = self.engine.decide(e, use_facts=search, expect=True)
        except (ValueRangeError, ArithmeticError):
            return None
        if answer is True and not never_raises(e, self.engine, may_raise(e)):
            return None
        return answer

    def entails(self, goal: BoolForm) -> bool:
        """Whether these guards' equalities and simple facts (and the domain) imply ``goal``: a sound test."""
        try:
            e = goal if may_raise(goal) else substitute_symbols(goal, self.mapping, {})
        except ZeroDivisionError:
            return False
        k = classify_form(e)
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
        return self.decide(e) is True
