"""``Facts``: the one facts engine: what is known about integer symbols, and what follows from it.

A facade in the manner of TVM's ``arith::Analyzer``: it holds one sub-analysis per kind
of knowledge and calls down; none of them imports it. All knowledge is in canonical form
(:mod:`symint.form`, :mod:`symint.form.logic`); sympy only at the boundary (:meth:`Facts.learn`,
:meth:`Facts.simplify` and the views ``ranges``, ``replacements``, ``divisible``, ``known``).

* :mod:`.ranges`: one interval per symbol (``s0 > 5`` narrows ``s0`` to ``[6, oo]``),
  propagated through linear facts, inverted through divisions;
* :mod:`.replacements`: ``symbol -> form`` (``Eq(s2, 2*s0)`` eliminates ``s2``);
* :mod:`.divisibility`: constant divisors (``Eq(Mod(s0, 8), 0)`` makes ``Mod(s0, 4)`` 0);
* :mod:`.residues`: congruences, combined (``a = 1 mod 4`` and ``a = 1 mod 3``: ``a = 1 mod 12``);
* :mod:`valueranges.linear_facts`: relations ``p <= 0`` / ``p == 0`` over several
  monomials (``s0 < s1``) and the definitions of ``//``, ``%``, max, min, for elimination;
* :mod:`.known`: the remembered relations and booleans the above cannot use;
* :mod:`.cases`: case splits on max/min; :mod:`.monotone`: monotone guards as bounds.

:meth:`Facts.learn_form` files a fact with the sub-analysis that can use it; :meth:`Facts.decide`
asks the cheapest first and records nothing; :meth:`Facts.bound` is the tightest interval of a
form that all of them prove.

Note [Sub-analyses outside this package]
    The modular sets of forms (:mod:`valueranges.modular`) and the linear facts
    (:mod:`valueranges.linear_facts`) are sub-analyses of this engine but live beside it:
    interval bounds (:mod:`valueranges.bound`) use modular sets for ``%`` and the
    rewriter (:mod:`valueranges.rewrite`) uses linear facts, and this facade imports both
    of those, so inside ``facts/`` they would make an import cycle. The *knowledge* of
    each (the congruences learned, the facts learned) is held here: :mod:`.residues` and
    the facade's ``LinearFacts``.

>>> from symint import form as F
>>> from symint.form import logic as B
>>> facts = Facts()
>>> a, b = F.sym("a"), F.sym("b")
>>> facts.learn_form(B.rel("<=", F.add(a, F.const(2)), b)); facts.learn_form(B.rel("<=", b, F.add(a, F.const(5))))
>>> facts.bound(F.sub(b, a))
(2, 5)
"""

from __future__ import annotations

import math
import re
from typing import Callable

from typing import TYPE_CHECKING

from symint.form import logic as B
from symint import form as F
from symint.form.logic import BoolForm
from symint.form.transform import transform

from ..errors import ContradictoryFactsError
from ..bound import bound_form
from ..interval import ValueRanges
from ..linear_facts import LinearFacts, atom_facts, by_interval, decide_norm, tighten_bound
from ..modular import modular_set
from ..rewrite import simplify as rewrite_form, simplify_bool as rewrite_bool
from .cases import decide_by_cases, has_function_atoms, mentions_max_min
from .divisibility import (
    Divisors, cancel_common_factor, decide_by_multiples, drop_nonzero_factors, without_common_factor,
)
from .known import Known
from .learning import Learning
from .ranges import division_preimage, fmt, intersect, why_text
from .replacements import Replacements
from .residues import Residues
from .sympy_views import SympyViews

if TYPE_CHECKING:
    import sympy

__all__ = ["Facts", "ContradictoryFactsError", "natural_rank"]

INF = math.inf


def natural_rank(name: str) -> tuple:
    """The default elimination rank: natural order of names (``s10`` after ``s2``), so the newest is eliminated.

    >>> natural_rank("s10") > natural_rank("s2")
    True
    """
    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name) if t)


class Facts(Learning, SympyViews):
    """The knowledge of one environment (see the module docstring); mutable, owned by its caller.

    Args:
        rank: ``rank(name)`` orders symbols for elimination by an equality: the highest is
            eliminated (see Note [Choosing the symbol to eliminate] in :mod:`.replacements`).

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> f = Facts()
    >>> f.learn_form(B.rel("==", F.mod(F.sym("s0"), F.const(8)), F.const(0)))
    >>> f.simplify_form(F.add(F.mod(F.sym("s0"), F.const(4)), F.const(1)))
    Form(1)
    """

    def __init__(self, rank: Callable[[str], object] = natural_rank):
        self._rank = rank
        self._repl = Replacements()
        self._ranges: dict[str, tuple] = {}
        self._div = Divisors()
        self._residues = Residues()
        self._known = Known()
        self._linear = LinearFacts()
        self._atoms_seen: set = set()
        #: Symbols (names) that some fact other than a range mentions (see Note [Questions intervals answer exactly]).
        self.related: set[str] = set()
        #: Grows whenever an answer may change (a cache keyed by it stays valid while it is unchanged).
        self.version = 0
        self._subst_memo: dict = {}
        self._bool_memo: dict = {}
        self._bound_memo: dict = {}
        self._views: dict = {}
        self._listeners: list[Callable[[BoolForm], None]] = []

    # -- bookkeeping ----------------------------------------------------------------------------
    def snapshot(self) -> tuple:
        """Everything known, to :meth:`restore` later (scoped facts: ``with env.assuming(...)``)."""
        return (
            self._repl.copy(), dict(self._ranges), self._div.copy(), self._known.copy(),
            LinearFacts(self._linear.live()), set(self._atoms_seen), set(self.related), self._residues.copy(),
        )

    def restore(self, state: tuple) -> None:
        """Go back to a :meth:`snapshot` (the version only grows, and every cache is dropped)."""
        self._repl, self._ranges, self._div, self._known, self._linear, self._atoms_seen, self.related, self._residues = state
        self._changed_substitution()

    def on_new_fact(self, listener: Callable[[BoolForm], None]) -> None:
        """Call ``listener(fact)`` (a :class:`~symint.form.logic.BoolForm`) for every fact learned from now on."""
        self._listeners.append(listener)

    def _emit(self, fact: BoolForm) -> None:
        for listener in self._listeners:
            listener(fact)

    def _changed_ranges(self) -> None:
        self.version += 1
        self._bound_memo = {}
        self._views = {}

    def _changed_substitution(self) -> None:
        self.version += 1
        self._subst_memo = {}
        self._bool_memo = {}
        self._bound_memo = {}
        self._views = {}

    # -- ranges ---------------------------------------------------------------------------------
    def range_of(self, sym: "sympy.Symbol | str") -> ValueRanges:
        """The range of a symbol (or its name); [-oo, oo] if nothing is known."""
        lo, hi = self._ranges.get(getattr(sym, "name", sym), (-INF, INF))
        return ValueRanges.of(lo, hi)

    def replacement(self, name: str) -> "F.Form | None":
        """The form the symbol ``name`` was replaced by (an equality eliminated it), or None."""
        return self._repl.get(name)

    def multiple_of(self, name: str) -> int:
        """The largest constant known to divide the symbol ``name`` (1 if none)."""
        return self._div.step(name)

    def bounds(self) -> dict[str, tuple]:
        """The range of every symbol as ``name -> (lo, hi)`` (read-only; do not modify)."""
        return self._ranges

    def set_range(self, sym: "sympy.Symbol | str", rng: ValueRanges) -> None:
        """Give a fresh symbol (or name) its initial range."""
        name = getattr(sym, "name", sym)
        self._ranges[name] = (rng.lower, rng.upper)
        self._changed_ranges()
        self._emit_range(name)

    def _emit_range(self, name: str) -> None:
        if not self._listeners:
            return
        lo, hi = self._ranges[name]
        s = F.sym(name)
        if lo != -INF:
            self._emit(B.rel(">=", s, F.const(int(lo))))
        if hi != INF:
            self._emit(B.rel("<=", s, F.const(int(hi))))

    def narrow(self, sym: "sympy.Symbol | str", rng: ValueRanges, why: str = "") -> bool:
        """Intersect the range of a symbol (or name) with ``rng``; True if it changed.

        Raises:
            ContradictoryFactsError: the intersection is empty.
        """
        return self._narrow(getattr(sym, "name", sym), rng.lower, rng.upper, why)

    def _narrow(self, name: str, lo, hi, why: "str | object" = "") -> bool:
        # ``why`` is text, or a fact whose text is built only if the narrowing contradicts (hot path).
        value = self._repl.table.get(name)
        if value is not None:
            return self._narrow_replaced(name, value, lo, hi, why)
        old = self._ranges.get(name, (-INF, INF))
        divisors = self._div.table.get(name)
        new = intersect(name, old, lo, hi, math.lcm(*divisors) if divisors else 1, why)
        if new == old:
            return False
        self._ranges[name] = new
        self._changed_ranges()
        self._emit_range(name)
        if new[0] == new[1]:  # a single value left: the symbol is that constant from now on
            self._replace(name, F.const(int(new[0])))
        return True

    def _narrow_replaced(self, name: str, value: "F.Form", lo, hi, why) -> bool:
        """Narrow a replaced symbol: its survivor (``t + c``, ``t // k + c``) exactly, else remember the bounds."""
        if value.is_const:
            if not lo <= value.const <= hi:
                raise ContradictoryFactsError(f"{name} = {value.const} is outside [{fmt(lo)}, {fmt(hi)}]{why_text(why)}")
            return False
        lin = value.linear()
        if lin and len(lin) == 1 and abs(next(iter(lin.values()))) == 1:
            (t, c), k = next(iter(lin.items())), value.const
            lo2, hi2 = lo - k, hi - k
            return self._narrow(t, lo2, hi2, why) if c == 1 else self._narrow(t, -hi2, -lo2, why)
        atom = value.terms[0][0].single if len(value.terms) == 1 and value.terms[0][1] == 1 else None
        inverse = None if atom is None else division_preimage(atom, lo - value.const, hi - value.const)
        if inverse is not None:  # name = t // k + c: narrow t exactly
            return self._narrow(*inverse, why)
        changed = False
        if lo != -INF:
            changed |= self._remember(B.rel("<=", F.const(int(lo)), value))
        if hi != INF:
            changed |= self._remember(B.rel("<=", value, F.const(int(hi))))
        return changed

    # -- simplification -------------------------------------------------------------------------
    def _on_atom(self, atom: "F.Atom") -> "F.Form | None":
        kind = atom.kind
        if kind == "sym":
            return self._repl.table.get(atom.name)
        if kind == "opaque":
            return self._repl.on_atom(atom)
        if kind in ("mod", "floordiv"):
            a, k = atom.args
            if kind == "mod" and k.is_const and k.const != 0:
                inner = a.atom()
                if inner is not None and inner.kind == "sym":
                    if self._div.divides(inner.name, k.const):
                        return F.const(0)
                    if self._residues:
                        value = self._residues.mod_value(inner.name, k.const)
                        if value is not None:
                            return F.const(value)
                elif k.const > 0 and (self._residues or self._div.table) and not a.symbols.isdisjoint(self._congruences()):
                    return self._mod_by_congruence(a, k.const)
            if not k.is_const:
                return cancel_common_factor(kind, a, k, self._nonzero)
        return None

    def _congruences(self) -> dict[str, tuple[int, int]]:
        """``name -> (modulus, residue)`` from the divisors and the residues (cached until they change)."""
        found = self._views.get("congruences")
        if found is None:
            found = {n: (math.lcm(*ks), 0) for n, ks in self._div.items()}
            found.update(dict(self._residues.items()))
            self._views["congruences"] = found
        return found

    def _mod_by_congruence(self, x: "F.Form", k: int) -> "F.Form | None":
        """``x % k`` as a constant when the modular set of ``x`` decides it (``a % 4 == 2``: ``(a + 1) % 4`` is 3).

        ``x = base (mod coeff)`` with ``k`` dividing ``coeff`` gives ``x % k == base % k`` (``k > 0``).
        """
        coeff, base = modular_set(self.simplify_form(x), self._congruences())
        return F.const(base % k) if coeff % k == 0 else None

    def _nonzero(self, atom: "F.Atom") -> bool:
        lo, hi = bound_form(F.atom_form(atom), self._ranges, self._bound_memo, self._opaque_bound(self._ranges))
        return lo > 0 or hi < 0

    def simplify_form(self, f: "F.Form") -> "F.Form":
        """``f`` with replacements, divisibility and congruences applied (cached until the facts change).

        >>> from symint import form as F
        >>> facts = Facts()
        >>> facts.learn_form(B.rel("==", F.sym("b"), F.add(F.sym("a"), F.const(1))))
        >>> facts.simplify_form(F.mul(F.sym("b"), F.const(2)))
        Form(2*a + 2)
        """
        if f.is_const:
            return f
        # plain dicts on this hot path (no method calls): nothing to apply is the common case
        if not self._div.table and not self._residues.table and f.symbols.isdisjoint(self._repl.table) and not f.has_symbolic_division:
            return f
        return transform(f, self._on_atom, self._subst_memo)

    def rewrite_form(self, f: "F.Form") -> "F.Form":
        """``f`` simplified with everything known: :meth:`simplify_form`, the rewriter
        (:func:`valueranges.rewrite.simplify`) under the ranges, and each max/min of two whose
        arguments :meth:`decide` orders replaced by the one it equals. Not cached: a question
        for a user or a test, not the tracing hot path.

        >>> facts = Facts()
        >>> c, a = F.sym("c"), F.sym("a")
        >>> facts.learn_form(B.rel(">=", c, F.add(a, F.const(3))))
        >>> facts.rewrite_form(F.max_(c, a))
        Form(c)
        """
        g = rewrite_form(self.simplify_form(f), self._ranges)
        if mentions_max_min(g) or any(mentions_max_min(arg) for m, _ in g.terms for a, _ in m.factors for arg in a.args):
            resolved = transform(g, self._decided_minmax, {})
            if resolved is not g:
                g = rewrite_form(self.simplify_form(resolved), self._ranges)
        return g

    def simplify_bool(self, b: BoolForm) -> BoolForm:
        """A boolean form with replacements, divisibility and congruences applied."""
        if b.kind == "const":
            return b
        found = self._bool_memo.get(b)
        if found is not None:
            return found
        kind = b.kind
        if kind == "rel":
            op, lhs, rhs = b.args
            lhs2, rhs2 = self.simplify_form(lhs), self.simplify_form(rhs)
            result = b if lhs2 is lhs and rhs2 is rhs else B.rel(op, lhs2, rhs2)
            if result.kind == "rel" and result.norm.op != "<=":
                result = drop_nonzero_factors(result, self._nonzero)
                if result.kind == "rel":
                    result = without_common_factor(result)
        elif kind == "and":
            result = B.and_(*(self.simplify_bool(a) for a in b.args))
        elif kind == "or":
            result = B.or_(*(self.simplify_bool(a) for a in b.args))
        elif kind == "not":
            result = B.not_(self.simplify_bool(b.args[0]))
        else:
            from symint.sympy_io import bool_from_sympy  # an opaque boolean holds sympy: it is loaded

            new = self._repl.substitute(b.args[0])
            result = b if new is b.args[0] else bool_from_sympy(new)
        self._bool_memo[b] = result
        return result

    # -- bounds ---------------------------------------------------------------------------------
    def _opaque_bound(self, ranges):
        def go(expr):  # an opaque atom holds sympy, so sympy is loaded already
            from symint import build
            from ..sympy_bound import bound as bound_sympy

            rng = bound_sympy(expr, {build.symbol_expr(n): ValueRanges.of(lo, hi) for n, (lo, hi) in ranges.items()})
            return (rng.lower, rng.upper)

        return go

    def bound_form(self, f: "F.Form", ranges: dict | None = None) -> tuple:
        """The interval ``(lo, hi)`` of ``f`` (after simplification) by interval arithmetic on the ranges alone."""
        f = self.simplify_form(f)
        if ranges is None:
            return bound_form(f, self._ranges, self._bound_memo, self._opaque_bound(self._ranges))
        return bound_form(f, ranges, {}, self._opaque_bound(ranges))

    def bound(self, f: "F.Form") -> tuple:
        """``(lo, hi)`` of ``f`` using everything :meth:`decide` uses: intervals, residues, the max/min and
        division rewrites, then the linear facts (relations and the definitions of ``//``, ``%``, max, min),
        searched by :func:`~valueranges.linear_facts.tighten_bound` (budgeted, deterministic).

        >>> facts = Facts()
        >>> a = F.sym("a")
        >>> facts.bound(F.sub(a, F.scale(F.floordiv(a, F.const(2)), 2)))
        (0, 1)
        """
        f = self.simplify_form(f)
        lo, hi = self.bound_form(f)
        if lo == hi:
            return lo, hi
        if has_function_atoms(f):
            try:
                g = rewrite_form(f, self._ranges)  # min(x, y) - min(x + 10, y + 10) is -10
            except ArithmeticError:  # past symint.limits: bound f as it is
                g = f
            glo, ghi = self.bound_form(g)
            f, lo, hi = g, max(lo, glo), min(hi, ghi)
            if lo == hi:
                return lo, hi
        if not self._add_atom_facts(f, self._ranges, self._bound_memo) and f.symbols.isdisjoint(self.related):
            return lo, hi  # Note [Questions intervals answer exactly]
        return tighten_bound(f, self._linear, self._ranges, self._bound_memo, (lo, hi))

    def modular_set(self, f: "F.Form") -> tuple[int, int]:
        """``(coeff, base)``: ``f`` is always ``base`` modulo ``coeff``, with the known congruences and divisors.

        >>> facts = Facts()
        >>> facts.learn_form(B.rel("==", F.mod(F.sym("b"), F.const(4)), F.const(2)))
        >>> facts.modular_set(F.add(F.sym("b"), F.const(1)))
        (4, 3)
        """
        return modular_set(self.simplify_form(f), self._congruences())

    # -- decisions ------------------------------------------------------------------------------
    def decide(self, b: BoolForm, ranges: dict | None = None, use_facts: bool = True, expect: bool | None = None) -> bool | None:
        """True/False if the facts decide ``b``, else None. Records nothing.

        ``ranges`` overrides the symbol ranges (size-oblivious questions);
        ``use_facts=False`` asks the ranges alone; ``expect`` is the traced example's
        answer when known (only it can be provable, so only it is searched for).

        >>> facts = Facts()
        >>> facts.learn_form(B.rel("<", F.sym("a"), F.sym("b")))
        >>> facts.decide(B.rel("<=", F.sym("a"), F.sym("b"))), facts.decide(B.rel("<", F.sym("a"), F.const(3)))
        (True, None)
        """
        s = self.simplify_bool(b)
        r = self._ranges if ranges is None else ranges
        answer = self._decide(s, r, use_facts, ranges is None, expect)
        if answer is None and s.kind == "rel" and mentions_max_min(s.norm.p):
            # TVM's rules (valueranges.rewrite), then ask again; for max/min only: relations with divisions
            # are common and undecided on the hot path, and rewriting them cost W1 ~15% (measured)
            rewritten = self._rewritten(s, r, ranges is None)
            if rewritten is not s:
                answer = self._decide(rewritten, r, use_facts, ranges is None, expect)
        return answer

    def _rewritten(self, s: BoolForm, ranges, own_ranges: bool) -> BoolForm:
        """``s`` after :func:`valueranges.rewrite.simplify_bool` (cached with the simplifications)."""
        key = ("rewritten", s)
        found = self._bool_memo.get(key) if own_ranges else None
        if found is None:
            try:
                found = rewrite_bool(s, ranges)
            except ArithmeticError:  # a rewrite would build a form past symint.limits: keep the question
                found = s
            if own_ranges:
                self._bool_memo[key] = found
        return found

    def _decide(self, s: BoolForm, ranges, use_facts: bool, own_ranges: bool, expect: bool | None = None) -> bool | None:
        kind = s.kind
        if kind == "const":
            return s.value
        if kind == "rel":
            n = s.norm
            if use_facts:
                known = self._known.truth_of_norm(n)
                if known is not None:
                    return known
            if self._div.table and not n.p.symbols.isdisjoint(self._div.table) and n.p.has_division():
                answer = decide_by_multiples(n, self._div, ranges)
                if answer is not None:
                    return answer
            memo = self._bound_memo if own_ranges else {}
            linear = None
            if use_facts:  # Note [Intervals before definitions]
                decided = by_interval(n.op, *bound_form(n.p, ranges, memo))
                if decided is not None:
                    return decided
                has_atoms = self._add_atom_facts(n.p, ranges, memo)
                if has_atoms or not n.p.symbols.isdisjoint(self.related):
                    linear = self._linear
            answer = decide_norm(n, linear, ranges, memo, expect, interval_asked=use_facts)
            if answer is None and n.op == "<=" and expect is not False:
                answer = decide_by_cases(n, lambda case: self._decide(case, ranges, use_facts, own_ranges, True))
            elif answer is None and n.op == "==" and expect is not False and has_function_atoms(n.p):
                # max(c, a) == c with c >= a + 3: both sides of the equality, each by cases (or by the
                # definitions of divisions: -2*(x // -2) == x when x % -2 == 0)
                both = (B.rel("<=", n.p, F.const(0)), B.rel(">=", n.p, F.const(0)))
                if all(self._decide(side, ranges, use_facts, own_ranges, True) is True for side in both):
                    answer = True
            return answer
        if kind in ("and", "or"):
            parts = [self._decide(a, ranges, use_facts, own_ranges) for a in s.args]
            if kind == "and":
                return False if False in parts else (True if all(p is True for p in parts) else None)
            return True if True in parts else (False if all(p is False for p in parts) else None)
        if kind == "not":
            inner = self._decide(s.args[0], ranges, use_facts, own_ranges)
            return None if inner is None else not inner
        if use_facts:
            known = self._known.truth(s)
            if known is not None:
                return known
        lo, hi = self._opaque_bound(ranges)(s.args[0])  # an opaque boolean
        return bool(lo) if lo == hi else None

    def _add_atom_facts(self, p: "F.Form", ranges, memo) -> bool:
        """Add the definitional facts of the function atoms of ``p`` (once each); True if ``p`` has any.

        Note [Intervals before definitions]
            :meth:`_decide` adds an atom's definitions only for a question its interval
            does not decide: a decided question needs no search, and each definition
            added is one more fact every later elimination scans and every replacement
            visits. Fewer facts also leave the bounded elimination (16 steps) to the
            facts that matter: W1 records 155 guards, not 157 (5.4% fewer instructions
            in its replay; the produced set is the same).
        """
        found = False
        seen = self._atoms_seen
        for m, _ in p.terms:
            for atom, _ in m.factors:
                if atom.kind in ("max", "min", "floordiv", "mod"):
                    found = True
                    if atom not in seen:
                        seen.add(atom)
                        for fact in atom_facts(atom, ranges, memo):
                            self._linear.add(fact)
        return found

    def intervals_are_exact(self, b: "BoolForm | sympy.Basic") -> bool:
        """Whether interval bounds already give the best possible answer for ``b``.

        Note [Questions intervals answer exactly]
            A relation whose difference is a linear combination of distinct symbols,
            none of which any fact but its range mentions, ranges over exactly the
            interval that interval arithmetic computes: every corner of the box of
            ranges is possible. So if the ranges did not decide it, no solver can,
            and asking Z3 is waste.
        """
        if not isinstance(b, BoolForm):
            from symint.sympy_io import bool_from_sympy

            b = bool_from_sympy(b)
        b = self.simplify_bool(b)
        if b.kind != "rel":
            return False
        lin = b.norm.p.linear() if not isinstance(b.norm, bool) else None
        return lin is not None and self.related.isdisjoint(lin)

    def symbol_facts(self) -> tuple[dict, dict, dict]:
        """Copies of what is known per symbol name: ``(ranges, replacements, divisors)``, for diffing.

        >>> facts = Facts(); facts.learn_form(B.rel("==", F.sym("b"), F.add(F.sym("a"), F.const(4))))
        >>> facts.learn_form(B.rel(">=", F.sym("a"), F.const(0)))
        >>> facts.symbol_facts()
        ({'a': (0, inf)}, {'b': Form(a + 4)}, {})
        """
        return dict(self._ranges), dict(self._repl.items()), {n: set(ks) for n, ks in self._div.items()}
