"""``Facts``: what a ShapeEnv knows about its symbols, and how new facts feed back.

Five kinds of knowledge, all learned from guards and runtime asserts and all held
in canonical form (:mod:`symint.form`, :mod:`symint.boolform`; sympy only at the
boundary, in the views ``ranges``, ``replacements``, ``divisible`` and ``known``):

* **replacements** ``symbol -> form`` (``Eq(s1, s0)`` unifies, ``Eq(s0, 4)``
  specialises, ``Eq(s2, 2*s0)`` eliminates ``s2``), kept fully resolved;
* **ranges** per symbol (``s0 > 5`` narrows ``s0`` to ``[6, oo]``);
* **divisibility** (``Eq(Mod(s0, 8), 0)`` makes ``Mod(s0, 4)`` simplify to 0);
* **linear facts** ``p <= 0`` / ``p == 0`` over several monomials (``s0 < s1``), for
  the elimination procedure of :mod:`valueranges.linear_facts`;
* **known** normalised relations and other booleans, for what the above cannot use.

Deciding a question statically (:meth:`Facts.decide`) uses them in that order and
records nothing.

Note [Choosing the symbol to eliminate]
    ``Eq(a, b)`` can be solved for any symbol that occurs once, with
    coefficient +-1, in ``a - b`` (and not inside a floor division or other atom).
    We eliminate an unbacked symbol before a backed one (a backed survivor keeps
    its hint) and otherwise the *newest* symbol, so the older symbol survives and
    the choice is deterministic. The eliminated symbol's range becomes a
    constraint on the survivor: intersected into its range when the replacement is
    ``t + c``, recorded as a linear fact otherwise.
"""

from __future__ import annotations

import math
from typing import Callable, Iterable

import sympy

from symint import boolform as B
from symint import build
from symint import form as F
from symint.boolform import BoolForm, Norm
from symint.form_sympy import NotAnIntegerForm, from_sympy
from symint.form_transform import transform
from symint.substitute import substitute
from valueranges import ValueRanges, bound
from valueranges.form_bound import bound_form
from valueranges.modular import modular_set
from valueranges.rewrite import simplify as rewrite_form, simplify_bool
from valueranges.linear_facts import LinearFacts, atom_facts, decide_norm, propagate, tighten_bound

from .division_bounds import atom_bounds_of_fact, ceil_div, division_preimage, floor_div
from .errors import ContradictionError
from .residues import Residues

__all__ = ["Facts"]

INF = math.inf
_TRUE, _FALSE = sympy.true, sympy.false


class Facts:
    """The mutable knowledge of one ShapeEnv (see the module docstring).

    ``rank(symbol)`` orders symbols for elimination: higher is eliminated first.

    >>> from symint.build import symbol_expr, mod, eq
    >>> f = Facts(rank=lambda s: (0, s.name))
    >>> s0 = symbol_expr("s0")
    >>> f.learn(eq(mod(s0, 8), 0))
    >>> f.simplify(mod(s0, 4) + 1)
    1
    """

    def __init__(self, rank: Callable[[sympy.Symbol], tuple]):
        self._rank = rank
        self._repl: dict[str, F.Form] = {}
        self._ranges: dict[str, tuple] = {}
        self._div: dict[str, set[int]] = {}
        self._residues = Residues()
        self._known: dict[object, bool] = {}
        self._linear = LinearFacts()
        self._atoms_seen: set = set()
        #: Symbols (names) that some fact other than a range mentions (see Note [Questions intervals answer exactly]).
        self.related: set[str] = set()
        self.version = 0
        self._subst_memo: dict = {}
        self._bool_memo: dict = {}
        self._bound_memo: dict = {}
        self._views: dict = {}
        self._listeners: list[Callable[[BoolForm], None]] = []

    # -- bookkeeping ----------------------------------------------------------------------------
    def snapshot(self) -> tuple:
        """Everything known, to :meth:`restore` later (for scoped facts, ``shapeenv.core.assuming``)."""
        return (
            dict(self._repl), dict(self._ranges), {k: set(v) for k, v in self._div.items()}, dict(self._known),
            LinearFacts(self._linear.live()), set(self._atoms_seen), set(self.related), self._residues.copy(),
        )

    def restore(self, state: tuple) -> None:
        """Go back to a :meth:`snapshot` (the version only grows, and every cache is dropped)."""
        self._repl, self._ranges, self._div, self._known, self._linear, self._atoms_seen, self.related, self._residues = state
        self._changed_substitution()

    def on_new_fact(self, listener: Callable[[BoolForm], None]) -> None:
        """Call ``listener(fact)`` (a :class:`~symint.boolform.BoolForm`) for every fact learned from now on."""
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
    def range_of(self, sym: sympy.Symbol) -> ValueRanges:
        """The range of ``sym`` ([-oo, oo] if nothing is known)."""
        lo, hi = self._ranges.get(sym.name, (-INF, INF))
        return ValueRanges.of(lo, hi)

    def bounds(self) -> dict[str, tuple]:
        """The range of every symbol as ``name -> (lo, hi)`` (read-only; do not modify)."""
        return self._ranges

    def set_range(self, sym: sympy.Symbol, rng: ValueRanges) -> None:
        """Give a fresh symbol its initial range."""
        self._ranges[sym.name] = (rng.lower, rng.upper)
        self._changed_ranges()
        self._emit_range(sym.name)

    def _emit_range(self, name: str) -> None:
        if not self._listeners:
            return
        lo, hi = self._ranges[name]
        s = F.sym(name)
        if lo != -INF:
            self._emit(B.rel(">=", s, F.const(int(lo))))
        if hi != INF:
            self._emit(B.rel("<=", s, F.const(int(hi))))

    def narrow(self, sym: sympy.Symbol, rng: ValueRanges, why: str = "") -> bool:
        """Intersect the range of ``sym`` with ``rng``; True if it changed.

        Raises:
            ContradictionError: the intersection is empty.
        """
        return self._narrow(sym.name, rng.lower, rng.upper, why)

    def _narrow(self, name: str, lo, hi, why: "str | object" = "") -> bool:
        # ``why`` is text, or a fact whose text is built only if the narrowing contradicts (hot path).
        value = self._repl.get(name)
        if value is not None:
            if value.is_const:
                if not lo <= value.const <= hi:
                    raise ContradictionError(f"{name} = {value.const} is outside [{_fmt(lo)}, {_fmt(hi)}]{_why(why)}")
                return False
            lin = value.linear()
            if lin and len(lin) == 1 and abs(next(iter(lin.values()))) == 1:
                (t, c), k = next(iter(lin.items())), value.const
                lo2, hi2 = lo - k, hi - k
                return self._narrow(t, lo2, hi2, why) if c == 1 else self._narrow(t, -hi2, -lo2, why)
            atom = value.terms[0][0].single_atom() if len(value.terms) == 1 and value.terms[0][1] == 1 else None
            inverse = None if atom is None else division_preimage(atom, lo - value.const, hi - value.const)
            if inverse is not None:  # name = t // k + c: narrow t exactly
                return self._narrow(*inverse, why)
            changed = False
            if lo != -INF:
                changed |= self._remember(B.rel("<=", F.const(int(lo)), value))
            if hi != INF:
                changed |= self._remember(B.rel("<=", value, F.const(int(hi))))
            return changed
        old_lo, old_hi = self._ranges.get(name, (-INF, INF))
        new_lo, new_hi = max(old_lo, lo), min(old_hi, hi)
        divisors = self._div.get(name)
        if divisors:  # a multiple of k: the ends round inwards to multiples (n >= 2 and n % 8 == 0: n >= 8)
            k = math.lcm(*divisors)
            if new_lo != -INF:
                new_lo = ceil_div(new_lo, k) * k
            if new_hi != INF:
                new_hi = floor_div(new_hi, k) * k
        if new_lo > new_hi:
            raise ContradictionError(
                f"{name} cannot be in both [{_fmt(old_lo)}, {_fmt(old_hi)}] and [{_fmt(lo)}, {_fmt(hi)}]{_why(why)}"
            )
        if (new_lo, new_hi) == (old_lo, old_hi):
            return False
        self._ranges[name] = (new_lo, new_hi)
        self._changed_ranges()
        self._emit_range(name)
        if new_lo == new_hi:  # a single value left: the symbol is that constant from now on
            self.replace_form(name, F.const(int(new_lo)))
        return True

    # -- simplification -------------------------------------------------------------------------
    def _on_atom(self, atom: "F.Atom") -> "F.Form | None":
        kind = atom.kind
        if kind == "sym":
            return self._repl.get(atom.name)
        if kind in ("mod", "floordiv"):
            a, k = atom.args
            if kind == "mod":
                inner = a.atom()
                if inner is not None and inner.kind == "sym" and k.is_const and k.const != 0:
                    if any(m % k.const == 0 for m in self._div.get(inner.name, ())):
                        return F.const(0)
                    if self._residues:
                        value = self._residues.mod_value(inner.name, k.const)
                        if value is not None:
                            return F.const(value)
            if not k.is_const:
                return self._cancel_common_factor(kind, a, k)
            return None
        if kind == "opaque":
            expr = atom.args[0]
            subs = {s: self._repl[s.name].sympy() for s in expr.free_symbols if s.name in self._repl}
            if not subs:
                return None
            new = substitute(expr, subs)
            try:
                return from_sympy(new)
            except NotAnIntegerForm:
                return None
        return None

    def _nonzero(self, atom: "F.Atom") -> bool:
        lo, hi = bound_form(F.atom_form(atom), self._ranges, self._bound_memo, self._opaque_bound(self._ranges))
        return lo > 0 or hi < 0

    def _cancel_common_factor(self, kind: str, a: "F.Form", b: "F.Form") -> "F.Form | None":
        """``Mod(k*a, k*b) -> k*Mod(a, b)`` and ``FloorDiv(k*a, k*b) -> FloorDiv(a, b)`` for a provably nonzero atom ``k``.

        Both are exact identities of Python's ``%`` and ``//`` for every ``k != 0``.
        """
        if len(b.terms) != 1 or b.const or a.const or a.is_const:
            return None
        for atom, _ in b.terms[0][0].factors:
            if all(any(x is atom for x, _ in m.factors) for m, _ in a.terms) and self._nonzero(atom):
                k = F.atom_form(atom)
                a2, b2 = F.floordiv(a, k), F.floordiv(b, k)  # exact: k divides every term
                return F.floordiv(a2, b2) if kind == "floordiv" else F.mul(k, F.mod(a2, b2))
        return None

    def _drop_nonzero_factors(self, r: BoolForm) -> BoolForm:
        """``k*x == 0`` -> ``x == 0`` (and ``!=``) for atoms ``k`` that are provably nonzero."""
        n = r.norm
        p = n.p
        if p.const or len(p.terms) != 1:
            return r
        mono, _ = p.terms[0]
        kept = [(a, e) for a, e in mono.factors if not self._nonzero(a)]
        if len(kept) == len(mono.factors):
            return r
        core = F.const(1)
        for a, e in kept:
            core = F.mul(core, F.pow_nat(F.atom_form(a), e))
        return B.rel(n.op, core, F.const(0))

    def simplify_form(self, f: "F.Form") -> "F.Form":
        """``f`` with replacements and divisibility applied (cached until the facts change).

        >>> from symint import form as F
        >>> facts = Facts(rank=lambda s: (0, s.name))
        >>> facts.learn_form(B.rel("==", F.sym("b"), F.add(F.sym("a"), F.const(1))))
        >>> facts.simplify_form(F.mul(F.sym("b"), F.const(2))).sympy()
        2*a + 2
        """
        if f.is_const:
            return f
        if not self._div and not self._residues and f.symbols.isdisjoint(self._repl) and not f.has_symbolic_division:
            return f
        return transform(f, self._on_atom, self._subst_memo)

    def simplify_bool(self, b: BoolForm) -> BoolForm:
        """A boolean form with replacements and divisibility applied."""
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
                result = self._drop_nonzero_factors(result)
                if result.kind == "rel":
                    result = _without_common_factor(result)
        elif kind == "and":
            result = B.and_(*(self.simplify_bool(a) for a in b.args))
        elif kind == "or":
            result = B.or_(*(self.simplify_bool(a) for a in b.args))
        elif kind == "not":
            result = B.not_(self.simplify_bool(b.args[0]))
        else:
            expr = b.args[0]
            subs = {s: self._repl[s.name].sympy() for s in expr.free_symbols if s.name in self._repl}
            result = B.bool_from_sympy(substitute(expr, subs)) if subs else b
        self._bool_memo[b] = result
        return result

    def simplify(self, expr: sympy.Basic) -> sympy.Basic:
        """``expr`` (sympy) with replacements and divisibility applied."""
        if expr.is_Number or expr is _TRUE or expr is _FALSE:
            return expr
        if build.is_bool_expr(expr):
            return self.simplify_bool(B.bool_from_sympy(expr)).sympy()
        try:
            return self.simplify_form(from_sympy(expr)).sympy()
        except NotAnIntegerForm:
            subs = {s: self._repl[s.name].sympy() for s in expr.free_symbols if s.name in self._repl}
            return substitute(expr, subs) if subs else expr

    # -- bounds and decisions -------------------------------------------------------------------
    def _opaque_bound(self, ranges):
        def go(expr):
            rng = bound(expr, {build.symbol_expr(n): ValueRanges.of(lo, hi) for n, (lo, hi) in ranges.items()})
            return (rng.lower, rng.upper)

        return go

    def bound_form(self, f: "F.Form", ranges: dict | None = None) -> tuple:
        """The interval ``(lo, hi)`` of ``f`` (after simplification) given the ranges."""
        f = self.simplify_form(f)
        if ranges is None:
            return bound_form(f, self._ranges, self._bound_memo, self._opaque_bound(self._ranges))
        return bound_form(f, ranges, {}, self._opaque_bound(ranges))

    def tight_bound(self, f: "F.Form") -> tuple:
        """``(lo, hi)`` of ``f`` using everything :meth:`decide` uses: intervals, then the linear facts
        (relations and the definitions of ``//``, ``%``, max, min), searched by
        :func:`~valueranges.linear_facts.tighten_bound` (budgeted, deterministic).

        >>> facts = Facts(rank=lambda s: (0, s.name))
        >>> a = F.sym("a")
        >>> facts.tight_bound(F.sub(a, F.scale(F.floordiv(a, F.const(2)), 2)))
        (0, 1)
        """
        f = self.simplify_form(f)
        lo, hi = self.bound_form(f)
        if lo == hi:
            return lo, hi
        if _has_function_atoms(f):
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

        >>> facts = Facts(rank=lambda s: (0, s.name))
        >>> facts.learn_form(B.rel("==", F.mod(F.sym("b"), F.const(4)), F.const(2)))
        >>> facts.modular_set(F.add(F.sym("b"), F.const(1)))
        (4, 3)
        """
        residues = {n: (math.lcm(*ks), 0) for n, ks in self._div.items()}
        residues.update(dict(self._residues.items()))
        return modular_set(self.simplify_form(f), residues)

    def decide(self, b: BoolForm, ranges: dict | None = None, use_facts: bool = True, expect: bool | None = None) -> bool | None:
        """True/False if the facts decide ``b``, else None. Records nothing.

        ``ranges`` overrides the symbol ranges (size-oblivious questions);
        ``use_facts=False`` asks the ranges alone; ``expect`` is the traced example's
        answer when known (only it can be provable, so only it is searched for).
        """
        s = self.simplify_bool(b)
        r = self._ranges if ranges is None else ranges
        answer = self._decide(s, r, use_facts, ranges is None, expect)
        if answer is None and s.kind == "rel" and _has_function_atoms(s.norm.p, ("max", "min")):
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
                found = simplify_bool(s, ranges)
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
                # Note [Known facts hold their negations]: a relation remembered true is stored
                # with its negation as false (and :meth:`_resimplify_known` rewrites both alike,
                # since normalising commutes with negating), so one lookup answers both ways and
                # a question never builds its negation (a new interned form) just to ask.
                known = self._known.get(n)
                if known is not None:
                    return known
            if self._div and not n.p.symbols.isdisjoint(self._div) and n.p.has_division():
                answer = self._decide_by_multiples(n, ranges)
                if answer is not None:
                    return answer
            memo = self._bound_memo if own_ranges else {}
            linear = None
            if use_facts:
                has_atoms = self._add_atom_facts(n.p, ranges, memo)
                if has_atoms or not n.p.symbols.isdisjoint(self.related):
                    linear = self._linear
            answer = decide_norm(n, linear, ranges, memo, expect)
            if answer is None and n.op == "<=" and expect is not False:
                answer = self._decide_by_cases(n, ranges, use_facts, own_ranges)
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
            known = self._known.get(s)
            if known is not None:
                return known
        rng = bound(s.args[0], {build.symbol_expr(n): ValueRanges.of(lo, hi) for n, (lo, hi) in ranges.items()})
        return bool(rng.lower) if rng.is_singleton() else None

    def _decide_by_cases(self, n: Norm, ranges, use_facts: bool, own_ranges: bool, depth: int = 2) -> bool | None:
        """``c*Max(a, b) + r <= 0`` (``c > 0``) holds iff ``c*a + r <= 0`` and ``c*b + r <= 0``; Min with ``c < 0`` alike.

        True when every case is proven (a bounded number of splits); None otherwise.
        """
        if depth == 0:
            return None
        for m, c in n.p.terms:
            atom = m.single_atom()
            if atom is None or not ((atom.kind == "max" and c > 0) or (atom.kind == "min" and c < 0)):
                continue
            rest = F.sub(n.p, F.scale(F.atom_form(atom), c))
            for arg in atom.args:
                case = B.rel("<=", F.add(rest, F.scale(arg, c)), F.const(0))
                if case.kind == "const":
                    if not case.value:
                        return None
                    continue
                answer = self._decide(case, ranges, use_facts, own_ranges, True)
                if answer is None and case.norm.op == "<=":
                    answer = self._decide_by_cases(case.norm, ranges, use_facts, own_ranges, depth - 1)
                if answer is not True:
                    return None
            return True
        return None

    def _decide_by_multiples(self, n: Norm, ranges) -> bool | None:
        """Decide ``n`` writing each symbol known divisible by ``k`` as ``k*t`` (``t`` a fresh integer).

        Every multiple of ``k`` is ``k*t`` for some integer ``t``, so this is exact; and it lets
        the canonical form cancel divisions: with ``s % 2 == 0``, ``s // (s // 2)`` is ``2*t // t``,
        which is 2.
        """
        subst, extra = {}, {}
        for name in sorted(n.p.symbols & self._div.keys()):
            k = math.lcm(*self._div[name])
            t = f"{name}__div{k}"
            subst[name] = F.scale(F.sym(t), k)
            lo, hi = ranges.get(name, (-INF, INF))
            extra[t] = (-INF if lo == -INF else ceil_div(lo, k), INF if hi == INF else floor_div(hi, k))

        def on_atom(atom):
            return subst.get(atom.name) if atom.kind == "sym" else None

        p = transform(n.p, on_atom, {})
        r = B.rel(n.op, p, F.const(0))
        if r.kind == "const":
            return r.value
        return decide_norm(r.norm, None, {**ranges, **extra}, {})

    def _add_atom_facts(self, p: "F.Form", ranges, memo) -> bool:
        """Add the definitional facts of the function atoms of ``p`` (once each); True if ``p`` has any."""
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

    def static_value(self, expr: sympy.Basic, ranges: dict | None = None) -> bool | None:
        """True/False if the facts decide the boolean sympy ``expr``, else None. Records nothing."""
        r = None if ranges is None else {s.name: (v.lower, v.upper) for s, v in ranges.items()}
        return self.decide(B.bool_from_sympy(expr), r)

    def by_ranges(self, e: sympy.Basic, ranges: dict | None = None) -> bool | None:
        """Decide the sympy boolean ``e`` from interval bounds alone (no linear facts, no known facts)."""
        r = None if ranges is None else {s.name: (v.lower, v.upper) for s, v in ranges.items()}
        s = self.simplify_bool(B.bool_from_sympy(e))
        return self._decide(s, self._ranges if r is None else r, False, r is None)

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
            b = B.bool_from_sympy(b)
        b = self.simplify_bool(b)
        if b.kind != "rel":
            return False
        lin = b.norm.p.linear() if not isinstance(b.norm, bool) else None
        return lin is not None and self.related.isdisjoint(lin)

    # -- learning -------------------------------------------------------------------------------
    def learn(self, fact: sympy.Basic) -> None:
        """Take the boolean sympy ``fact`` as true from now on, and feed it back.

        Raises:
            ContradictionError: ``fact`` contradicts what is known.
        """
        self.learn_form(B.bool_from_sympy(fact))

    def learn_form(self, fact: BoolForm, undecided: bool = False, consistent: bool = False) -> None:
        """Take the boolean form ``fact`` as true from now on (see :meth:`learn`).

        ``undecided``: the caller has just asked :meth:`decide` about ``fact`` (with the
        example's answer as ``expect``) and got None, so it is not asked again.
        ``consistent``: the caller knows a point where ``fact`` and every known fact hold
        (the traced example's hints, for a recorded guard), so ``fact`` cannot contradict
        them and only whether it is already implied is asked (half the search).

        >>> from symint import form as F
        >>> facts = Facts(rank=lambda s: (0, s.name))
        >>> facts.learn_form(B.rel("<", F.sym("a"), F.sym("b")), consistent=True)
        >>> facts.decide(B.rel("<=", F.sym("a"), F.sym("b")))
        True
        """
        version = self.version
        e = self.simplify_bool(fact)
        if e is B.TRUE:
            return
        if e is B.FALSE:
            raise ContradictionError(f"{fact.sympy()} contradicts the known facts (it simplifies to False)")
        if e.kind == "and":
            for part in e.args:
                self.learn_form(part, consistent=consistent)
            return
        if e.kind == "rel":
            if self._learn_relation(e):
                return
        # a range learnt above may decide it
        self._remember(e, ask=not undecided or self.version != version, expect=True if consistent else None)

    def _remember(self, e: BoolForm, ask: bool = True, expect: bool | None = None) -> bool:
        e = self.simplify_bool(e)
        if e is B.TRUE:
            return False
        key = e.norm if e.kind == "rel" else e
        if e is B.FALSE or self._known.get(key) is False:
            raise ContradictionError(f"{e.sympy()} contradicts the known facts")
        if e.kind == "rel" and ask:
            answer = self._decide(e, self._ranges, True, True, expect)
            if answer is True:
                return False
            if answer is False:
                raise ContradictionError(f"{e.sympy()} contradicts the known facts")
        if key in self._known:
            return False
        self._known[key] = True
        if e.kind == "rel":
            self._linear.add(e.norm)
            self._propagate(e.norm)
        if e.kind == "rel":
            self._known.setdefault(e.norm.negated(), False)
        self.related |= e.symbols
        self.version += 1  # answers may change; simplification does not
        self._views = {}
        self._emit(e)
        return True

    def _propagate(self, fact: Norm, rounds: int = 4) -> None:
        """Tighten symbol ranges through linear facts (bounds propagation, a bounded number of rounds).

        ``a1 >= a0 + 8`` with ``a0 >= 6`` narrows ``a1`` to ``[14, oo]``; a narrowed symbol
        re-propagates the facts that mention it, ``rounds`` times at most (a count, so the
        result is deterministic and the work bounded even for cycles such as ``x < y < x + 5``).
        """
        work = [fact]
        for _ in range(rounds):
            narrowed: list[str] = []
            for f in work:
                if isinstance(f, bool) or f.op == "!=" or not f.p.linear():
                    continue
                for name, lo, hi in propagate(f, self._ranges):
                    if name in self._repl:
                        continue
                    if self._narrow(name, lo, hi, f):
                        narrowed.append(name)
            if not narrowed:
                return
            work = [f for name in dict.fromkeys(narrowed) for f in self._linear.mentioning(name)]

    def _learn_relation(self, e: BoolForm) -> bool:
        """Use a relation as a range, divisibility or replacement; True if it was fully absorbed."""
        n = e.norm
        p = n.p
        if n.op in ("<=", "==") and self._learn_division_bound(n):
            return False  # still remembered: the bound is also a fact about the atom itself
        if n.op == "==":
            if self._learn_divisibility(p):
                self._emit(e)
                return True
            return self._learn_equality(p, e)
        lin = p.linear()
        if not lin or len(lin) != 1:
            return False
        (name, c), k = next(iter(lin.items())), p.const
        why = e
        if n.op == "!=":
            if k % c == 0:
                value = -k // c
                lo, hi = self._ranges.get(name, (-INF, INF))
                if lo == value:
                    self._narrow(name, value + 1, INF, why)
                elif hi == value:
                    self._narrow(name, -INF, value - 1, why)
            return False
        # c*x + k <= 0
        if c > 0:
            self._narrow(name, -INF, floor_div(-k, c), why)
        else:
            self._narrow(name, ceil_div(k, -c), INF, why)
        self._emit(e)
        return True

    def _learn_division_bound(self, n: Norm) -> bool:
        """``c*(t // k) + r <= 0`` (or ``== 0``) for a symbol ``t`` and ``k > 0``: narrow ``t`` exactly.

        ``lo <= t // k <= hi``  <=>  ``lo*k <= t <= hi*k + k - 1``; for ``ceil(t / k)``:
        ``(lo - 1)*k + 1 <= t <= hi*k``. True if a range changed.
        """
        p = n.p
        if len(p.terms) != 1:
            return False
        mono, c = p.terms[0]
        atom = mono.single_atom()
        bounds = None if atom is None else atom_bounds_of_fact(n.op, c, p.const)
        preimage = None if bounds is None else division_preimage(atom, *bounds)
        return preimage is not None and self._narrow(*preimage, n)

    def _learn_divisibility(self, p: "F.Form") -> bool:
        """``Mod(s, k) == r`` for a symbol ``s``: divisibility (r = 0) or a congruence (see ``core.residues``)."""
        if len(p.terms) != 1 or p.terms[0][1] not in (1, -1):
            return False
        atom = p.terms[0][0].single_atom()
        if atom is None or atom.kind != "mod":
            return False
        a, k = atom.args
        inner = a.atom()
        if inner is None or inner.kind != "sym" or not k.is_const or k.const == 0:
            return False
        residue = -p.const * p.terms[0][1]
        if residue:
            if not (0 < residue < k.const or k.const < residue < 0):
                return False  # impossible: left to the known facts, which report the contradiction
            divisors = self._div.get(inner.name)
            if divisors:
                self._residues.learn(inner.name, math.lcm(*divisors), 0)
            if not self._residues.learn(inner.name, k.const, residue):
                return True
        else:
            self._div.setdefault(inner.name, set()).add(abs(k.const))
            if self._residues.of(inner.name) is not None:
                self._residues.learn(inner.name, k.const, 0)
        self.related.add(inner.name)
        self._changed_substitution()
        self._resimplify_known({inner.name})
        self._narrow(inner.name, -INF, INF, " (a multiple of its divisors)")
        return True

    def _learn_equality(self, p: "F.Form", e: BoolForm) -> bool:
        candidates = []
        for m, c in p.terms:
            atom = m.single_atom()
            if atom is None or atom.kind != "sym" or c not in (1, -1):
                continue
            others = F.sub(p, F.scale(F.atom_form(atom), c))
            if atom.name in others.symbols:
                continue
            value = F.scale(others, -c)  # c*x + others == 0  =>  x = -others / c
            candidates.append((self._rank(build.symbol_expr(atom.name)), atom.name, value))
        if not candidates:
            return False
        _, name, value = max(candidates, key=lambda t: t[0])
        self.replace_form(name, value)
        return True

    def replace(self, sym: sympy.Symbol, value: sympy.Expr) -> None:
        """Record ``sym == value`` as a replacement (``value`` must not contain ``sym``)."""
        self.replace_form(sym.name, from_sympy(value))

    def replace_form(self, name: str, value: "F.Form") -> None:
        """Record the symbol ``name`` equal to the form ``value`` (which must not contain it)."""
        value = self.simplify_form(value)
        if name in value.symbols:
            # an invariant, not user input: the callers (_learn_equality, _narrow) never pass such a value
            raise ValueError(f"cannot replace {name} by {value.sympy()}, which contains it")
        lo, hi = self._ranges.get(name, (-INF, INF))
        single = {name: value}
        memo: dict = {}

        def on_atom(atom):
            return single.get(atom.name) if atom.kind == "sym" else None

        for other, old in list(self._repl.items()):
            if name in old.symbols:
                self._repl[other] = transform(old, on_atom, memo)
        self._repl[name] = value
        self.related |= {name} | value.symbols
        survivor = value.atom()
        if name in self._div and survivor is not None and survivor.kind == "sym":
            self._div.setdefault(survivor.name, set()).update(self._div[name])
        self._changed_substitution()
        self._emit(B.rel("==", F.sym(name), value))
        self._narrow(name, lo, hi, f" (the range of {name})")
        self._resimplify_known({name})

    def _resimplify_known(self, names: set[str]) -> None:
        """Re-simplify the linear and known facts that mention a symbol in ``names`` (the rest cannot change)."""
        def resimplified(n: Norm) -> Norm | bool:
            return B.normalise(n.op, self.simplify_form(n.p))

        def rewrite(n: Norm) -> Norm | None:
            s = resimplified(n)
            if isinstance(s, bool):
                if not s:
                    raise ContradictionError(f"{n} became False after new replacements, contradicting a known fact")
                return None
            return s

        self._linear.rewrite(lambda n: not n.p.symbols.isdisjoint(names), rewrite)
        old, self._known = self._known, {}
        for key, truth in old.items():
            if isinstance(key, Norm):
                if key.p.symbols.isdisjoint(names):
                    self._known[key] = truth
                    continue
                s = resimplified(key)
                if isinstance(s, bool):
                    if s != truth:
                        raise ContradictionError(f"{key} became {s} after new replacements, contradicting a known fact")
                    continue
                self._known[s] = truth
            else:
                if key.symbols.isdisjoint(names):
                    self._known[key] = truth
                    continue
                s = self.simplify_bool(key)
                if s.kind == "const":
                    if s.value != truth:
                        raise ContradictionError(f"{key.sympy()} became {s.value}, contradicting a known fact")
                    continue
                self._known[s.norm if s.kind == "rel" else s] = truth
        self._views = {}

    # -- sympy views ----------------------------------------------------------------------------
    @property
    def ranges(self) -> dict[sympy.Symbol, ValueRanges]:
        """Every symbol's range, as sympy symbol -> ValueRanges (a fresh view; changes to it are ignored)."""
        view = self._views.get("ranges")
        if view is None:
            view = self._views["ranges"] = {
                build.symbol_expr(n): ValueRanges.of(lo, hi) for n, (lo, hi) in self._ranges.items()
            }
        return view

    @property
    def replacements(self) -> dict[sympy.Symbol, sympy.Expr]:
        """The replacements, as sympy symbol -> sympy expression (a view)."""
        view = self._views.get("replacements")
        if view is None:
            view = self._views["replacements"] = {build.symbol_expr(n): f.sympy() for n, f in self._repl.items()}
        return view

    @property
    def divisible(self) -> dict[sympy.Symbol, set[int]]:
        """Known divisors per symbol (a view)."""
        return {build.symbol_expr(n): set(ks) for n, ks in self._div.items()}

    @property
    def known(self) -> dict[sympy.Basic, bool]:
        """The remembered facts that ranges, replacements and divisibility do not hold, as sympy -> truth."""
        view = self._views.get("known")
        if view is None:
            out = {}
            for key, truth in self._known.items():
                if isinstance(key, Norm):
                    if truth:
                        out[B.rel(key.op, key.p, F.const(0)).sympy()] = True
                else:
                    out[key.sympy()] = truth
            view = self._views["known"] = out
        return view

    def facts(self) -> Iterable[sympy.Basic]:
        """Every fact as a boolean sympy expression (ranges, replacements, divisibility, known)."""
        for name, (lo, hi) in self._ranges.items():
            s = build.symbol_expr(name)
            if lo != -INF:
                yield build.ge(s, int(lo))
            if hi != INF:
                yield build.le(s, int(hi))
        for name, value in self._repl.items():
            yield build.eq(build.symbol_expr(name), value.sympy())
        for name, ks in self._div.items():
            for k in sorted(ks):
                yield build.eq(build.mod(build.symbol_expr(name), k), 0)
        for name, (k, r) in self._residues.items():
            yield build.eq(build.mod(build.symbol_expr(name), k), r)
        yield from (e for e, truth in self.known.items() if truth)


def _has_function_atoms(f: "F.Form", kinds: tuple = ("max", "min", "floordiv", "mod")) -> bool:
    """Whether an atom of ``kinds`` (max, min, floor division, modulo) occurs at the top of ``f``."""
    return any(a.kind in kinds for m, _ in f.terms for a, _ in m.factors)


def _without_common_factor(r: BoolForm) -> BoolForm:
    """``Eq(2*Mod(u, 2), 0)`` as ``Eq(Mod(u, 2), 0)``: an (in)equality with 0 whose side has a common factor."""
    op, lhs, rhs = r.args
    side = lhs if rhs.is_const and rhs.const == 0 else (rhs if lhs.is_const and lhs.const == 0 else None)
    if side is None or side.const or r.norm.p is side or r.norm.p is F.neg(side):
        return r
    return B.rel(op, r.norm.p, F.const(0))


def _why(why) -> str:
    if isinstance(why, str):
        return why
    if isinstance(why, Norm):
        return f" (from {B.rel(why.op, why.p, F.const(0)).sympy()})"
    return f" (from {why.sympy()})"


def _fmt(v) -> str:
    return "oo" if v == INF else ("-oo" if v == -INF else str(v))
