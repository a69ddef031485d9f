"""A rewriting simplifier over canonical forms: the rules of TVM's rewrite and canonical simplifiers.

:mod:`symint.form` builds every form canonically with rules that hold for all
integers and need no facts. The rules here go further, and some use symbol ranges
(``ranges``: name -> ``(lo, hi)``, as in :mod:`valueranges.bound`):

* **max/min**: an argument another provably dominates goes (``max(x+1, x+10)`` ->
  ``x+10``; with ranges, ``max(x, 3)`` -> ``x`` for ``x >= 3``); a part common to every
  argument comes out (``min(x+10, y+10)`` -> ``min(x, y) + 10``, so
  ``min(x, y) - min(x+10, y+10)`` is ``-10``); ``max(a, b) + min(a, b)`` -> ``a + b``;
  ``max(a, b) * min(a, b)`` -> ``a*b``; dominance by cases on a max/min inside
  (``min(4*((x + 3) // 4), max(x, 4))`` -> ``max(x, 4)`` for ``x > 0``).
* **floordiv/mod**: ``k*(x // k) + x % k`` -> ``x``; ``(x // a + c) // b`` ->
  ``(x + a*c) // (a*b)``; division removal from ranges: ``x = k*Q + R`` with ``R`` in one
  block ``[j*k, j*k + k - 1]`` gives ``x // k = Q + j`` and ``x % k = R - j*k``
  (``(360x + y) // 16`` -> ``22x`` for ``x`` in [0, 1], ``y`` in [0, 6]); exact
  division by a polynomial (``(a*a - b*b) // (a + b)`` -> ``a - b``,
  ``((p+1)*64) % ((p+1)*32)`` -> 0), under the convention of Note [Canonical forms]
  in :mod:`symint.sympy_io.functions` (a zero divisor is the one accepted widening); a sum
  folded into one floor division when smaller (``x // 2 + x % 2`` -> ``(x + 1) // 2``,
  :mod:`valueranges.rewrite_folds`).
* **relations** (:func:`simplify_bool`): ``c*(x // k) + r <= 0`` -> a bound on ``x``
  (``x // 2 < 3`` -> ``x < 6``); ``g*P + R + K <= 0`` with ``R`` small -> ``P <= q``
  (``8x + y < 16`` -> ``x < 2`` for ``y`` in [0, 7]); ``x // k == q and x % k == r`` ->
  ``x == k*q + r``; a relation its interval or its bilinear bound decides (``x*y < 2048*(x + y)``
  for ``0 < x < 2048``, :mod:`valueranges.rewrite_folds`); in a conjunction, ``0 <= x - 5*y < 5``
  -> ``y == x // 5`` and each part narrowed by the others' bounds
  (:mod:`valueranges.rewrite_conjunctions`).

Every rule is an identity over the integers (or over the box of ``ranges``), each
checked by brute force in ``tests/valueranges/test_rewrite.py`` (the newer ones also proven for
their schema by Z3 in ``tests/valueranges/test_rewrite_proofs.py``). The result is
deterministic (forms are ordered structurally) and the work bounded: a pass over the
form, at most ``_ROUNDS`` times.

>>> from symint import form as F
>>> x, y = F.sym("x"), F.sym("y")
>>> from symint.sympy_io import to_sympy
>>> to_sympy(simplify(F.sub(F.min_(x, y), F.min_(F.add(x, F.const(10)), F.add(y, F.const(10))))))
-10
>>> to_sympy(simplify(F.add(F.scale(F.floordiv(x, F.const(8)), 8), F.mod(x, F.const(8)))))
x
"""

from __future__ import annotations

import math
from typing import Mapping

from symint.form import logic as B
from symint import form as F
from symint.form.transform import rebuild_atom

from .bound import bound_form
from .linear_facts import LinearFacts, atom_facts
from .rewrite_conjunctions import narrow, quotient_definitions
from .rewrite_folds import decide_bilinear, decide_by_interval, floordiv_folds
from .rewrite_polynomial import common_factor, divide_by_monomial, exact_quotient, monomial_form

__all__ = ["simplify", "simplify_bool", "size"]

INF = math.inf
_ROUNDS = 3


def simplify(f: "F.Form", ranges: Mapping[str, tuple] | None = None, memo: dict | None = None) -> "F.Form":
    """``f`` rewritten by the rules of the module docstring, given symbol ``ranges`` (none: every integer).

    >>> from symint import form as F
    >>> x, y = F.sym("x"), F.sym("y")
    >>> from symint.sympy_io import to_sympy
    >>> to_sympy(simplify(F.floordiv(F.add(F.scale(x, 360), y), F.const(16)), {"x": (0, 1), "y": (0, 6)}))
    22*x
    """
    ranges = {} if ranges is None else ranges
    memo = {} if memo is None else memo
    for _ in range(_ROUNDS):
        g = _form(f, ranges, memo)
        if g is f:
            return f
        f = g
    return f


def size(f: "F.Form") -> int:
    """Terms plus operators: the measure by which a rewrite that may go either way is chosen (smaller wins).

    >>> from symint import form as F
    >>> size(F.add(F.sym("x"), F.const(1))), size(F.min_(F.sym("x"), F.sym("y")))
    (2, 4)
    """
    n = 1 if f.const else 0
    for m, c in f.terms:
        n += 1 + (1 if c not in (1, -1) else 0)
        for atom, p in m.factors:
            n += p - 1
            if atom.kind not in ("sym", "opaque"):
                n += 1 + sum(size(a) for a in atom.args)
    return n


def _bound(f: "F.Form", ranges, memo) -> tuple:
    return bound_form(f, ranges, memo.setdefault("bounds", {}))


def _form(f: "F.Form", ranges, memo) -> "F.Form":
    if f.is_const:
        return f
    found = memo.get(f)
    if found is not None:
        return found
    out = F.const(f.const)
    for m, c in f.terms:
        term = F.const(c)
        for atom, p in m.factors:
            term = F.mul(term, F.pow_nat(_atom(atom, ranges, memo), p))
        out = F.add(out, term)
    out = _fold_floordiv(_push_into_minmax(_uncombine(_products(_sums(out)))))
    memo[f] = out
    return out


def _fold_floordiv(f: "F.Form") -> "F.Form":
    """``t + u // k`` -> ``(k*t + u) // k`` and ``t - u // k`` -> ``(k*t - u + k - 1) // k`` when smaller
    (:func:`valueranges.rewrite_folds.floordiv_folds`: ``x // 2 + x % 2`` -> ``(x + 1) // 2``)."""
    if len(f.terms) < 2 and not (f.terms and f.const):
        return f
    best, best_size = f, size(f)
    for candidate in floordiv_folds(f):
        n = size(candidate)
        if n < best_size:
            best, best_size = candidate, n
    return best


def _uncombine(f: "F.Form") -> "F.Form":
    """``c*u - c*k*(u // k)`` -> ``c*(u % k)`` (the definition of ``%``), when ``c*u``'s terms are all in the sum."""
    terms = dict(f.terms)
    for m, ck in f.terms:
        atom = m.single
        if atom is None or atom.kind != "floordiv" or not atom.args[1].is_const or m not in terms:
            continue
        u, k = atom.args[0], atom.args[1].const
        if ck % k or u.is_const:
            continue
        c = -ck // k
        rest = F.sub(f, F.add(F.scale(u, c), F.scale(F.atom_form(atom), -c * k)))
        candidate = F.add(rest, F.scale(F.mod(u, F.const(k)), c))
        if size(candidate) < size(f):
            return _uncombine(candidate)
    return f


def _push_into_minmax(f: "F.Form") -> "F.Form":
    """``r + min(a, b)`` -> ``min(a + r, b + r)`` (and ``r - min(a, b)`` -> ``max(r - a, r - b)``) when smaller."""
    if len(f.terms) < 2 and not (f.terms and f.const):
        return f
    for m, c in f.terms:
        atom = m.single
        if atom is None or atom.kind not in ("max", "min") or c not in (1, -1):
            continue
        rest = F.sub(f, F.scale(F.atom_form(atom), c))
        kind = atom.kind if c == 1 else ("min" if atom.kind == "max" else "max")
        op = F.max_ if kind == "max" else F.min_
        args = [F.add(rest, F.scale(a, c)) for a in atom.args]
        candidate = args[0]
        for a in args[1:]:
            candidate = op(candidate, a)
        if size(candidate) < size(f):
            return candidate
    return f


def _atom(atom: "F.Atom", ranges, memo) -> "F.Form":
    if atom.kind in ("sym", "opaque"):
        return F.atom_form(atom)
    key = ("atom", atom)
    found = memo.get(key)
    if found is not None:
        return found
    args = [_form(a, ranges, memo) for a in atom.args]
    g = rebuild_atom(atom, args)
    new = g.atom()
    if new is not None and len(g.terms) == 1 and not g.const:
        kind = new.kind
        if kind in ("max", "min"):
            g = _minmax(new, ranges, memo)
        elif kind in ("floordiv", "mod"):
            g = _division(new, ranges, memo)
    memo[key] = g
    return g


# -- max and min ------------------------------------------------------------------------------------


def _dominated(kind: str, a: "F.Form", b: "F.Form", ranges, memo) -> bool:
    """Whether ``b`` makes ``a`` useless in ``kind(a, b)``: ``b >= a`` for max, ``b <= a`` for min.

    Structurally (``min(x, max(x, y))``: the max is never below ``x``), by intervals, then by the
    definitions of the atoms in ``a - b`` (``4*((x + 3) // 4) >= x``) with the linear procedure.
    """
    inner = a.atom() if len(a.terms) == 1 and not a.const and a.terms[0][1] == 1 else None
    other = "min" if kind == "max" else "max"
    if inner is not None and inner.kind == other and b in inner.args:
        return True  # max(b, min(b, ...)) is b; min(b, max(b, ...)) is b
    return _nonnegative(F.sub(b, a) if kind == "max" else F.sub(a, b), ranges, memo, _CASE_DEPTH)


#: Nesting of max/min atoms :func:`_nonnegative` splits into cases (each split tries each argument).
_CASE_DEPTH = 2


def _nonnegative(d: "F.Form", ranges, memo, depth: int) -> bool:
    """Whether ``d >= 0`` is proven: by intervals, by the definitions of the atoms in ``d`` with the linear
    procedure, then (``depth`` levels) by cases on a max/min term: ``r - max(a, b) >= 0`` iff ``r - a >= 0``
    and ``r - b >= 0``; ``r + max(a, b) >= 0`` if ``r + a >= 0`` or ``r + b >= 0`` (min: the other way)."""
    if d.is_const:
        return d.const >= 0
    if _bound(d, ranges, memo)[0] >= 0:
        return True
    atoms = [at for m, _ in d.terms for at, _ in m.factors if at.kind in ("floordiv", "mod", "max", "min")]
    if not atoms:
        return False
    facts = LinearFacts([n for at in atoms for n in atom_facts(at, ranges, memo.setdefault("bounds", {}))])
    if facts.prove_le0(d, ranges, memo.setdefault("bounds", {}), sign=-1):  # -d <= 0
        return True
    if depth <= 0:
        return False
    for m, c in d.terms:
        atom = m.single
        if atom is None or atom.kind not in ("max", "min") or c not in (1, -1) or len(m.factors) != 1:
            continue
        rest = F.sub(d, F.scale(F.atom_form(atom), c))
        cases = (_nonnegative(F.add(rest, F.scale(a, c)), ranges, memo, depth - 1) for a in atom.args)
        return all(cases) if (atom.kind == "min") == (c == 1) else any(cases)
    return False


def _minmax(atom: "F.Atom", ranges, memo) -> "F.Form":
    kind = atom.kind
    args = list(atom.args)
    kept = []
    for i, a in enumerate(args):
        others = kept + args[i + 1:]
        if not any(_dominated(kind, a, b, ranges, memo) for b in others):
            kept.append(a)
    if len(kept) == 1:
        return kept[0]
    divided = _common_floordiv(kind, kept)
    if divided is not None:
        return divided
    factored = _factor_common_argument(kind, kept)
    if factored is not None:
        return factored
    common = _common_part(kept)
    if common is not None:
        kept = [F.sub(a, common) for a in kept]
    result = kept[0]
    op = F.max_ if kind == "max" else F.min_
    for a in kept[1:]:
        result = op(result, a)
    return result if common is None else F.add(result, common)


def _factor_common_argument(kind: str, args: list) -> "F.Form | None":
    """``min(max(x, y), max(x, z))`` -> ``max(x, min(y, z))`` (max distributes over min, and back)."""
    other = "min" if kind == "max" else "max"
    inner = []
    for a in args:
        atom = a.atom() if len(a.terms) == 1 and not a.const and a.terms[0][1] == 1 else None
        if atom is None or atom.kind != other:
            return None
        inner.append(set(atom.args))
    shared = set.intersection(*inner)
    if not shared:
        return None
    op, outer_op = (F.max_, F.min_) if kind == "max" else (F.min_, F.max_)
    rests = []
    for a_set in inner:
        rest = sorted(a_set - shared, key=lambda f: f.digest)
        if not rest:
            return None
        r = rest[0]
        for more in rest[1:]:
            r = outer_op(r, more)
        rests.append(r)
    combined = rests[0]
    for r in rests[1:]:
        combined = op(combined, r)
    out = combined
    for c in sorted(shared, key=lambda f: f.digest):
        out = outer_op(out, c)
    return out


def _common_floordiv(kind: str, args: list) -> "F.Form | None":
    """``min(x // k, y // k)`` -> ``min(x, y) // k`` (``// k`` is monotone: non-decreasing for ``k > 0``,
    non-increasing for ``k < 0``, where min becomes max)."""
    divisor, inner = None, []
    for a in args:
        atom = a.atom() if len(a.terms) == 1 and not a.const and a.terms[0][1] == 1 else None
        if atom is None or atom.kind != "floordiv" or not atom.args[1].is_const:
            return None
        if divisor is not None and atom.args[1] is not divisor:
            return None
        divisor = atom.args[1]
        inner.append(atom.args[0])
    op = F.max_ if (kind == "max") == (divisor.const > 0) else F.min_
    out = inner[0]
    for a in inner[1:]:
        out = op(out, a)
    return F.floordiv(out, divisor)


def _common_part(args: list) -> "F.Form | None":
    """The terms (same coefficient) and constant every argument has, or None if nothing is shared."""
    if len(args) < 2:
        return None
    shared = dict(args[0].terms)
    for a in args[1:]:
        terms = dict(a.terms)
        shared = {m: c for m, c in shared.items() if terms.get(m) == c}
    const_ = args[0].const if all(a.const == args[0].const for a in args) else 0
    if not shared and not const_:
        return None
    return F.add(F.const(const_), _from_terms(shared))


def _from_terms(terms: dict) -> "F.Form":
    out = F.const(0)
    for m, c in terms.items():
        out = F.add(out, F.scale(_mono_form(m), c))
    return out


def _mono_form(m) -> "F.Form":
    out = F.const(1)
    for atom, p in m.factors:
        out = F.mul(out, F.pow_nat(F.atom_form(atom), p))
    return out


def _pair(atom: "F.Atom") -> tuple | None:
    return tuple(atom.args) if atom.kind in ("max", "min") and len(atom.args) == 2 else None


def _sums(f: "F.Form") -> "F.Form":
    """``max(a, b) + min(a, b)`` -> ``a + b`` and ``k*(x // k) + x % k`` -> ``x`` (any common coefficient)."""
    if len(f.terms) < 2:
        return f
    terms = dict(f.terms)
    changed = False
    for m, c in f.terms:
        if m not in terms:
            continue
        atom = m.single
        if atom is None:
            continue
        partner, replacement, pc = None, None, None
        if atom.kind == "max" and _pair(atom):
            other = F.min_(*atom.args)
            pa = other.atom()
            if pa is not None and len(other.terms) == 1 and not other.const and other.terms[0][1] == 1:
                partner, pc, replacement = other.terms[0][0], c, F.add(*atom.args)
        elif atom.kind == "mod" and atom.args[1].is_const and atom.args[1].const > 0:
            u, k = atom.args
            q = F.floordiv(u, k)  # canonical: FloorDiv(FloorDiv(x, 3), 2) is built as FloorDiv(x, 6)
            if len(q.terms) == 1 and not q.const and q.terms[0][1] == 1:
                partner, pc, replacement = q.terms[0][0], c * k.const, u
        if partner is None and atom.kind == "floordiv" and atom.args[1].is_const and c % atom.args[1].const == 0:
            x, k = atom.args
            r = F.mod(x, k)  # canonical: Mod(x + 3*y, 2) is built as Mod(x + y, 2)
            if len(r.terms) == 1 and not r.const and r.terms[0][1] == 1:
                partner, pc, replacement = r.terms[0][0], c // k.const, x
                c = pc
        unmatched = partner is None or terms.get(partner) != pc
        if unmatched and atom.kind in ("max", "min"):
            shifted = _shifted_partner(atom, c, terms)
            if shifted is not None:  # min(x + 10, y + 1) - min(x, y - 9) is 10; max(a, b) - max(0, b - a) is a
                partner_mono, d = shifted
                rest = dict(terms)
                del rest[m], rest[partner_mono]
                candidate = F.add(F.add(_from_terms(rest), F.const(f.const)), F.scale(d, c))
                if d.is_const or size(candidate) < size(f):
                    return _sums(candidate)
        if unmatched and atom.kind == "mod" and atom.args[1].is_const and atom.args[1].const == 2:
            for m2, c2 in terms.items():
                other = m2.single
                if m2 is not m and c2 == c and other is not None and other.kind == "mod" and other.args[1] is atom.args[1]:
                    d = F.sub(other.args[0], atom.args[0])
                    if d.is_const and d.const % 2:  # x % 2 + (x + 1) % 2 is 1
                        del terms[m], terms[m2]
                        return _sums(F.add(_from_terms(terms), F.const(f.const + c)))
        if unmatched and c > 0 and atom.kind == "floordiv" and atom.args[1].is_const and atom.args[1].const > 0:
            diff = _floordiv_difference(atom, c, terms)
            if diff is not None:  # (x + 5)//3 - (x + 2)//3 is ((x + 2) % 3 + 3)//3, which is 1
                partner_mono, replacement_form = diff
                del terms[m], terms[partner_mono]
                return _sums(F.add(F.add(_from_terms(terms), F.const(f.const)), F.scale(replacement_form, c)))
            split = _split_offset(atom, c, f)
            if split is not None:
                return split
        if partner is not None and terms.get(partner) == pc:
            del terms[m], terms[partner]
            terms_form = F.add(_from_terms(terms), F.scale(replacement, c))
            return _sums(F.add(terms_form, F.const(f.const)))
    return f if not changed else f


def _floordiv_difference(atom: "F.Atom", c: int, terms: dict) -> tuple | None:
    """``u // k`` with coefficient ``c`` and ``v // k`` with ``-c``, ``u - v`` a constant ``d``: ``(v // k's
    monomial, (v % k + d) // k)``, since ``u // k - v // k == (v % k + d) // k``."""
    u, k = atom.args
    for m2, c2 in terms.items():
        other = m2.single
        if c2 != -c or other is None or other is atom or other.kind != "floordiv" or other.args[1] is not k:
            continue
        d = F.sub(u, other.args[0])
        if d.is_const:
            return m2, F.floordiv(F.add(F.mod(other.args[0], k), d), k)
    return None


def _half_of_parity(x: "F.Form", d: "F.Form") -> "F.Form | None":
    """``(v % 2 + 2q + 1) // 2`` -> ``v % 2 + q`` (the parity is 0 or 1), else None."""
    if not (d.is_const and d.const == 2 and x.const % 2 and len(x.terms) == 1 and x.terms[0][1] == 1):
        return None
    inner = x.terms[0][0].single
    if inner is None or inner.kind != "mod" or inner.args[1] is not d:
        return None
    return F.add(F.atom_form(inner), F.const((x.const - 1) // 2))


def _split_offset(atom: "F.Atom", c: int, f: "F.Form") -> "F.Form | None":
    """``(v + d) // k`` as ``v // k + (v % k + d) // k``, when that makes ``f`` smaller
    (``(x + 1) // 2 - x % 2`` is ``x // 2``)."""
    u, k = atom.args
    if not u.const:
        return None
    v = F.sub(u, F.const(u.const))
    rest = F.add(F.mod(v, k), F.const(u.const))
    split = F.add(F.floordiv(v, k), _half_of_parity(rest, k) or F.floordiv(rest, k))
    candidate = F.add(F.sub(f, F.scale(F.atom_form(atom), c)), F.scale(split, c))
    return candidate if size(candidate) < size(f) else None


def _shifted_partner(atom: "F.Atom", c: int, terms: dict) -> tuple | None:
    """Another atom of the same kind, with coefficient ``-c``, whose arguments are ``atom``'s shifted by one
    form ``d`` (a constant, or any form: ``max(x + d, y + d) == max(x, y) + d``): ``(its monomial, d)``
    (then ``c*atom - c*other == c*d``)."""
    args = list(atom.args)
    for m2, c2 in terms.items():
        other = m2.single
        if c2 != -c or other is None or other is atom or other.kind != atom.kind or len(other.args) != len(args):
            continue
        for b in other.args:
            d = F.sub(args[0], b)
            if {F.sub(a, d) for a in args} == set(other.args):
                return m2, d
    return None


def _products(f: "F.Form") -> "F.Form":
    """``max(a, b)**p * min(a, b)**p`` -> ``(a*b)**p`` inside each monomial."""
    changed = False
    out = F.const(f.const)
    for m, c in f.terms:
        powers = dict(m.factors)
        new_m = None
        for atom, p in m.factors:
            if atom.kind == "max" and _pair(atom):
                other = F.min_(*atom.args).atom()
                if other is not None and powers.get(other) == p:
                    del powers[atom], powers[other]
                    new_m = F.mul(monomial_form(powers), F.pow_nat(F.mul(*atom.args), p))
                    break
        if new_m is None:
            out = F.add(out, F.scale(_mono_form(m), c))
        else:
            changed = True
            out = F.add(out, F.scale(new_m, c))
    return out if changed else f


# -- floor division and modulo ----------------------------------------------------------------------


def _unmod(x: "F.Form", d: "F.Form", exact: bool) -> "F.Form":
    """``x`` with each ``v % e`` inside (``e`` a multiple of ``d``) replaced: by ``v`` when only ``x``'s residue
    modulo ``d`` matters (``exact=False``: ``v % e`` is ``v`` modulo ``d``), else by ``v - e*(v // e)``."""
    out = F.const(x.const)
    for m, c in x.terms:
        term = F.const(c)
        for atom, p in m.factors:
            new = F.atom_form(atom)
            if atom.kind == "mod" and p == 1 and (atom.args[1] is d or (
                    d.is_const and atom.args[1].is_const and atom.args[1].const % d.const == 0)):
                v, e = atom.args
                new = v if not exact else F.sub(v, F.mul(e, F.floordiv(v, e)))
            term = F.mul(term, F.pow_nat(new, p))
        out = F.add(out, term)
    return out


def _division(atom: "F.Atom", ranges, memo) -> "F.Form":
    x, d = atom.args
    if any(a.kind == "mod" for m, _ in x.terms for a, _ in m.factors):
        if atom.kind == "mod":  # (x - x % 9) % 9 is 0: x % 9 is x modulo 9
            reduced = F.mod(_unmod(x, d, exact=False), d)
            if size(reduced) < size(F.atom_form(atom)):
                return reduced
        else:  # (x - x % 21) // 21 is (21*(x // 21)) // 21
            reduced = F.floordiv(_unmod(x, d, exact=True), d)
            if size(reduced) < size(F.atom_form(atom)):
                return reduced
    if d.is_const and d.const > 0:
        k = d.const
        if atom.kind == "floordiv":
            nested = _nested_floordiv(x, k)
            if nested is not None:
                return nested
            inner = x.atom() if len(x.terms) == 1 and not x.const and x.terms[0][1] == 1 else None
            if inner is not None and inner.kind == "mod" and inner.args[1].is_const and inner.args[1].const > 0 \
                    and inner.args[1].const % k == 0:  # (u % (m*k)) // k == (u // k) % m
                return F.mod(F.floordiv(inner.args[0], d), F.const(inner.args[1].const // k))
        if atom.kind == "floordiv":
            halved = _half_of_parity(x, d)
            if halved is not None:
                return halved
        small = _small_rest(x, k, ranges, memo)
        if small is not None:
            big, rest, g = small  # x = g*big + rest with 0 <= rest < g and g | k
            if atom.kind == "floordiv":
                return F.floordiv(big, F.const(k // g))
            return F.add(F.scale(F.mod(big, F.const(k // g)), g), rest)
        split = _split_by_ranges(x, k, ranges, memo)
        if split is not None:
            q, r, j = split
            return F.add(q, F.const(j)) if atom.kind == "floordiv" else F.sub(r, F.const(j * k))
        return F.atom_form(atom)
    if not d.is_const:
        exact = exact_quotient(x, d)
        if exact is not None:
            return exact if atom.kind == "floordiv" else F.const(0)
        common = common_factor(x, d)
        if common is not None:  # (k*a) // (k*b) == a // b and (k*a) % (k*b) == k*(a % b), for k != 0
            ka, kb = divide_by_monomial(x, common), divide_by_monomial(d, common)
            return F.floordiv(ka, kb) if atom.kind == "floordiv" else F.mul(common, F.mod(ka, kb))
    return F.atom_form(atom)


def _nested_floordiv(x: "F.Form", k: int) -> "F.Form | None":
    """``(y // a + c) // k`` -> ``(y + a*c) // (a*k)`` for ``a, k > 0``."""
    if len(x.terms) != 1 or x.terms[0][1] != 1 or not x.const:
        return None
    inner = x.terms[0][0].single
    if inner is None or inner.kind != "floordiv" or not inner.args[1].is_const or inner.args[1].const <= 0:
        return None
    y, a = inner.args[0], inner.args[1].const
    return F.floordiv(F.add(y, F.const(a * x.const)), F.const(a * k))


def _small_rest(x: "F.Form", k: int, ranges, memo) -> tuple | None:
    """``x = g*Y + R`` with ``g`` a proper divisor of ``k`` (``g > 1``) and ``0 <= R < g`` given the ranges:
    ``(Y, R, g)``. Then ``x // k == Y // (k/g)`` and ``x % k == g*(Y % (k/g)) + R`` (``(8x + 7) // 16`` is
    ``x // 2``; ``(32x + y) // 64`` is ``x // 2`` for ``y`` in [0, 31])."""
    for g in sorted({math.gcd(c, k) for _, c in x.terms}, reverse=True):
        if g <= 1:
            continue
        big = {m: c // g for m, c in x.terms if c % g == 0}
        if not big:
            continue
        rest_terms = {m: c for m, c in x.terms if c % g}
        q, r = divmod(x.const, g)
        rest = F.add(_from_terms(rest_terms), F.const(r))
        lo, hi = _bound(rest, ranges, memo)
        if lo >= 0 and hi <= g - 1:
            return F.add(_from_terms(big), F.const(q)), rest, g
    return None


def _split_by_ranges(x: "F.Form", k: int, ranges, memo) -> tuple | None:
    """``x = k*Q + R`` (coefficients of ``R`` in ``[0, k)``, or the signed remainders) with ``R`` in one
    block ``[j*k, j*k + k - 1]`` given the ranges: ``(Q, R, j)``, or None."""
    for signed in (False, True):
        q_terms, r_terms = {}, {}
        for m, c in x.terms:
            r = c % k
            if signed and 2 * r > k:
                r -= k
            if r:
                r_terms[m] = r
            if c - r:
                q_terms[m] = (c - r) // k
        r_const = x.const % k
        q = F.add(_from_terms(q_terms), F.const((x.const - r_const) // k))
        rest = F.add(_from_terms(r_terms), F.const(r_const))
        lo, hi = _bound(rest, ranges, memo)
        if lo != -INF and hi != INF and lo // k == hi // k:
            return q, rest, int(lo // k)
    return None


# -- relations --------------------------------------------------------------------------------------


def simplify_bool(b: "B.BoolForm", ranges: Mapping[str, tuple] | None = None) -> "B.BoolForm":
    """A boolean form with its sides simplified and the relation rules of the module docstring applied.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> x, y = F.sym("x"), F.sym("y")
    >>> from symint.sympy_io import to_sympy
    >>> to_sympy(simplify_bool(B.rel("<", F.floordiv(x, F.const(2)), F.const(3))))
    x <= 5
    >>> to_sympy(simplify_bool(B.rel("<", F.add(F.scale(x, 8), y), F.const(16)), {"y": (0, 7)}))
    x <= 1
    """
    ranges = {} if ranges is None else ranges
    memo: dict = {}
    kind = b.kind
    if kind == "rel":
        return _relation(b, ranges, memo)
    if kind == "and":
        merged = _merge_conjunction(list(b.args))
        parts = merged.args if merged.kind == "and" else (merged,)
        parts = B.and_(*(simplify_bool(a, ranges) for a in parts))
        if parts.kind != "and":
            return parts
        defined = quotient_definitions(list(parts.args))
        out = B.and_(*narrow(defined, ranges, lambda a, box: _relation(a, box, {})))
        return out if _bool_size(out) <= _bool_size(b) else parts
    if kind == "or":
        return B.or_(*(simplify_bool(a, ranges) for a in b.args))
    if kind == "not":
        return B.not_(simplify_bool(b.args[0], ranges))
    return b


def _relation(b: "B.BoolForm", ranges, memo) -> "B.BoolForm":
    n = b.norm
    p = simplify(n.p, ranges, memo)
    r = b if p is n.p else _readable_rel(n.op, p)
    if r.kind != "rel":
        return r
    n = r.norm
    p = n.p
    inverted = _invert_floordiv(n.op, p)
    if inverted is not None:
        return inverted
    decided = decide_by_interval(n.op, _bound(p, ranges, memo))
    if decided is None and not p.is_const:
        decided = decide_bilinear(n.op, p, lambda g: _bound(g, ranges, memo))
    if decided is not None:
        return B.bool_const(decided)
    if n.op == "<=":
        split = _split_minmax_relation(p)
        if split is not None and _bool_size(split) < _bool_size(r):
            return split
    if n.op == "<=":
        small = _drop_small_rest(p, ranges, memo)
        if small is not None:
            return small
    return r


def _readable_rel(op: str, p: "F.Form") -> "B.BoolForm":
    """``p op 0`` written with the positive terms on the left (``x <= 56``, not ``x - 56 <= 0``)."""
    left = {m: c for m, c in p.terms if c > 0}
    right = {m: -c for m, c in p.terms if c < 0}
    if not left:  # -R + k op 0 is R op' k
        return B.rel({"<=": ">=", "==": "==", "!=": "!="}[op], _from_terms(right), F.const(p.const))
    return B.rel(op, _from_terms(left), F.sub(_from_terms(right), F.const(p.const)))


def _invert_floordiv(op: str, p: "F.Form") -> "B.BoolForm | None":
    """``c*(x // k) + K op 0`` as a relation on ``x`` (``k > 0``)."""
    if len(p.terms) != 1:
        return None
    m, c = p.terms[0]
    atom = m.single
    if atom is None or atom.kind != "floordiv" or not atom.args[1].is_const or atom.args[1].const <= 0:
        return None
    x, k, K = atom.args[0], atom.args[1].const, p.const
    if op == "<=":
        if c > 0:  # x // k <= floor(-K / c)  <=>  x <= k*q + k - 1
            q = (-K) // c
            return B.rel("<=", x, F.const(k * q + k - 1))
        q = -((K) // c)  # c < 0: x // k >= ceil(K / -c)  <=>  x >= k*q
        return B.rel(">=", x, F.const(k * q))
    if K % c:
        return B.bool_const(op == "!=")
    q = -K // c
    inside = B.and_(B.rel(">=", x, F.const(k * q)), B.rel("<=", x, F.const(k * q + k - 1)))
    return inside if op == "==" else B.not_(inside)


def _bool_size(b: "B.BoolForm") -> int:
    if b.kind == "const":
        return 0
    if b.kind == "rel":
        return 1 + size(b.norm.p)
    return 1 + sum(_bool_size(a) for a in b.args) if b.kind in ("and", "or", "not") else 1 << 20


def _split_minmax_relation(p: "F.Form") -> "B.BoolForm | None":
    """``min(a, b) + r <= 0`` is ``a + r <= 0 or b + r <= 0``; ``max``: and; a negated atom swaps them
    (``min(x, 11) < 10`` is ``x < 10``, the other case being false)."""
    for m, c in p.terms:
        atom = m.single
        if atom is None or atom.kind not in ("max", "min") or c not in (1, -1):
            continue
        rest = F.sub(p, F.scale(F.atom_form(atom), c))
        cases = [B.rel("<=", F.add(rest, F.scale(a, c)), F.const(0)) for a in atom.args]
        disjunction = (atom.kind == "min") == (c == 1)
        return B.or_(*cases) if disjunction else B.and_(*cases)
    return None


def _drop_small_rest(p: "F.Form", ranges, memo) -> "B.BoolForm | None":
    """``g*P + R + K <= 0`` -> ``P <= q`` when ``floor((-K - R) / g)`` is the same ``q`` over ``R``'s range."""
    best = None
    for g in sorted({abs(c) for _, c in p.terms if abs(c) > 1}, reverse=True):
        big = {m: c // g for m, c in p.terms if c % g == 0}
        rest = {m: c for m, c in p.terms if c % g}
        if not big or not rest:
            continue
        lo, hi = _bound(_from_terms(rest), ranges, memo)
        if lo == -INF or hi == INF:
            continue
        q1, q2 = (-p.const - lo) // g, (-p.const - hi) // g
        if q1 == q2:
            best = B.rel("<=", _from_terms(big), F.const(int(q1)))
            break
    return best


def _merge_conjunction(parts: list) -> "B.BoolForm":
    """``x // k == q`` and ``x % k == r`` -> ``x == k*q + r`` (False when ``r`` is no remainder of ``k``)."""
    quotients, remainders = {}, {}
    for i, a in enumerate(parts):
        if a.kind != "rel" or a.norm.op != "==" or len(a.norm.p.terms) != 1 or a.norm.p.terms[0][1] != 1:
            continue
        atom = a.norm.p.terms[0][0].single
        if atom is not None and atom.kind in ("floordiv", "mod") and atom.args[1].is_const and atom.args[1].const > 0:
            table = quotients if atom.kind == "floordiv" else remainders
            table[(atom.args[0], atom.args[1].const)] = (i, -a.norm.p.const)
    drop, extra = set(), []
    for key, (i, q) in quotients.items():
        if key in remainders:
            j, r = remainders[key]
            x, k = key
            drop |= {i, j}
            extra.append(B.rel("==", x, F.const(k * q + r)) if 0 <= r < k else B.bool_const(False))
    return B.and_(*[a for i, a in enumerate(parts) if i not in drop], *extra)
