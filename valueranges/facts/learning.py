"""How :class:`~valueranges.facts.Facts` takes a fact: each kind filed with the sub-analysis that can use it.

A ``Learning`` mixin of the facade (its state lives in the facade; this module only
holds the procedures): a range narrows an interval, an equality over a symbol becomes a
replacement, ``x % k == 0`` a divisor, a congruence a residue, other relations linear
facts, and what none of them can use is remembered as it is.

>>> from symint import form as F
>>> from symint.form import logic as B
>>> from valueranges.facts import Facts
>>> facts = Facts()
>>> facts.learn_form(B.rel("==", F.sym("b"), F.add(F.sym("a"), F.const(4))))
>>> facts.replacement("b")
Form(a + 4)
"""

from __future__ import annotations

import math

from symint import form as F
from symint.form import logic as B
from symint.form.logic import BoolForm, Norm
from symint.form.text import bool_text, form_text
from symint.form.transform import transform_bool

from ..errors import ContradictoryFactsError
from .cases import mentions_max_min
from .divisibility import divisibility_fact
from .ranges import atom_bounds_of_fact, ceil_div, division_preimage, eliminate_pairs, floor_div, propagate_rounds

INF = math.inf


def _text(x: "F.Form | BoolForm") -> str:
    """``x`` printed for an error message (without sympy)."""
    return bool_text(x) if isinstance(x, BoolForm) else form_text(x)


class Learning:
    """The learning half of :class:`~valueranges.facts.Facts` (see the module docstring)."""

    def learn_form(self, fact: BoolForm, undecided: bool = False, consistent: bool = False) -> None:
        """Take the boolean form ``fact`` as true from now on, and feed it back.

        ``undecided``: the caller has just asked :meth:`decide` about ``fact`` (with the
        example's answer as ``expect``) and got None, so it is not asked again.
        ``consistent``: the caller knows a point where ``fact`` and every known fact hold
        (the traced example's hints, for a recorded guard), so ``fact`` cannot contradict
        them and only whether it is already implied is asked (half the search).

        Raises:
            ContradictoryFactsError: ``fact`` contradicts what is known.

        >>> from valueranges.facts import Facts
        >>> facts = Facts()
        >>> facts.learn_form(B.rel("<", F.sym("a"), F.sym("b")), consistent=True)
        >>> facts.decide(B.rel("<=", F.sym("a"), F.sym("b")))
        True
        """
        version = self.version
        e = self.simplify_bool(fact)
        if e is B.TRUE:
            return
        if e is B.FALSE:
            raise ContradictoryFactsError(f"{_text(fact)} contradicts the known facts (it simplifies to False)")
        if e.kind == "rel" and mentions_max_min(e.norm.p):
            # max(a, 2) >= 6 with a >= 4 is a >= 6: a range, where the max would stay an opaque fact
            e = self._rewritten(e, self._ranges, True)
            if e.kind == "rel" and not undecided and mentions_max_min(e.norm.p):
                # ... and max(c, a) is c when c >= a + 3 is known. Skipped for a guard just found undecided
                # (the tracing hot path: on W1 it asked 53 more linear questions and changed no answer)
                e = transform_bool(e, self._decided_minmax, {})
            if e.kind == "const":
                return self.learn_form(e)
        if e.kind == "and":
            for part in e.args:
                self.learn_form(part, consistent=consistent)
            return
        if e.kind == "rel":
            if self._learn_relation(e):
                return
        # a range learnt above may decide it
        self._remember(e, ask=not undecided or self.version != version, expect=True if consistent else None)

    def _decided_minmax(self, atom: "F.Atom") -> "F.Form | None":
        """The argument a max or min of two is equal to, when :meth:`decide` orders them (else None)."""
        if atom.kind not in ("max", "min") or len(atom.args) != 2:
            return None
        x, y = atom.args
        if self.related.isdisjoint(x.symbols) and self.related.isdisjoint(y.symbols):
            return None  # only ranges speak of them: the rewriter has asked those already
        x_ge_y = self.decide(B.rel(">=", x, y))
        if x_ge_y is None:  # x and y may be equal: is y >= x?
            x_ge_y = None if self.decide(B.rel(">=", y, x)) is not True else False
        if x_ge_y is None:
            return None
        return x if x_ge_y == (atom.kind == "max") else y

    def _remember(self, e: BoolForm, ask: bool = True, expect: bool | None = None) -> bool:
        e = self.simplify_bool(e)
        if e is B.TRUE:
            return False
        if e is B.FALSE:
            raise ContradictoryFactsError(f"{_text(e)} contradicts the known facts")
        if e.kind == "rel" and ask:
            answer = self._decide(e, self._ranges, True, True, expect)
            if answer is True:
                return False
            if answer is False:
                raise ContradictoryFactsError(f"{_text(e)} contradicts the known facts")
        if not self._known.add(e):
            return False
        if e.kind == "rel":
            self._linear.add(e.norm)
            propagate_rounds(e.norm, self._linear, self._ranges, self._narrow, self._repl.table)
            for derived in eliminate_pairs(e.norm, self._linear):
                propagate_rounds(derived, self._linear, self._ranges, self._narrow, self._repl.table)
        self.related |= e.symbols
        self.version += 1  # answers may change; simplification does not
        self._views = {}
        self._emit(e)
        return True

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
            solved = self._repl.solve(p, self._rank)
            if solved is None:
                return False
            self._replace(*solved)
            return True
        lin = p.linear()
        if not lin or len(lin) != 1:
            return False
        (name, c), k = next(iter(lin.items())), p.const
        if n.op == "!=":
            if k % c == 0:
                value = -k // c
                lo, hi = self._ranges.get(name, (-INF, INF))
                if lo == value:
                    self._narrow(name, value + 1, INF, e)
                elif hi == value:
                    self._narrow(name, -INF, value - 1, e)
            return False
        # c*x + k <= 0
        if c > 0:
            changed = self._narrow(name, -INF, floor_div(-k, c), e)
        else:
            changed = self._narrow(name, ceil_div(k, -c), INF, e)
        if changed and len(self._linear):
            # the relations learned before it see the new range: a3 >= 4 after a1 >= a3 + 1 makes a1 >= 5
            for fact in self._linear.mentioning(name):
                propagate_rounds(fact, self._linear, self._ranges, self._narrow, self._repl.table)
        self._emit(e)
        return True

    def _learn_division_bound(self, n: Norm) -> bool:
        """``c*(t // k) + r <= 0`` (or ``== 0``) for a symbol ``t`` and ``k > 0``: narrow ``t`` exactly (see :mod:`.ranges`).

        True if a range changed.
        """
        p = n.p
        if len(p.terms) != 1:
            return False
        mono, c = p.terms[0]
        atom = mono.single
        bounds = None if atom is None else atom_bounds_of_fact(n.op, c, p.const)
        preimage = None if bounds is None else division_preimage(atom, *bounds)
        return preimage is not None and self._narrow(*preimage, n)

    def _learn_divisibility(self, p: "F.Form") -> bool:
        """``Mod(s, k) == r`` for a symbol ``s``: divisibility (r = 0) or a congruence (see :mod:`.residues`)."""
        found = divisibility_fact(p)
        if found is None:
            return False
        name, k, residue = found
        if residue:
            if not (0 < residue < k or k < residue < 0):
                return False  # impossible: left to the known facts, which report the contradiction
            if name in self._div:
                self._residues.learn(name, self._div.step(name), 0)
            if not self._residues.learn(name, k, residue):
                return True
        else:
            self._div.add(name, k)
            if self._residues.of(name) is not None:
                self._residues.learn(name, k, 0)
        self.related.add(name)
        self._changed_substitution()
        self._resimplify({name})
        self._narrow(name, -INF, INF, " (a multiple of its divisors)")
        return True

    def _replace(self, name: str, value: "F.Form") -> None:
        """Record the symbol ``name`` equal to the form ``value`` (which must not contain it)."""
        value = self.simplify_form(value)
        if name in value.symbols:
            # an invariant, not user input: the callers (_learn_relation, _narrow) never pass such a value
            raise ValueError(f"cannot replace {name} by {_text(value)}, which contains it")
        lo, hi = self._ranges.get(name, (-INF, INF))
        self._repl.add(name, value)
        self.related |= {name} | value.symbols
        survivor = value.atom()
        if survivor is not None and survivor.kind == "sym":
            self._div.merge(survivor.name, name)
        self._changed_substitution()
        self._emit(B.rel("==", F.sym(name), value))
        self._narrow(name, lo, hi, f" (the range of {name})")
        self._resimplify({name})

    def _resimplify(self, names: set[str]) -> None:
        """Re-simplify the linear and known facts that mention a symbol in ``names`` (the rest cannot change)."""

        def rewrite(n: Norm) -> Norm | None:
            s = B.normalise(n.op, self.simplify_form(n.p))
            if isinstance(s, bool):
                if not s:
                    raise ContradictoryFactsError(f"{n} became False after new replacements, contradicting a known fact")
                return None
            return s

        self._linear.rewrite(names, rewrite)
        self._known.resimplify(names, self.simplify_form, self.simplify_bool)
        self._views = {}
