"""A rewriting simplifier over canonical forms: the rules of TVM's rewrite and canonical simplifiers.

:mod:`symint.form` builds every form canonically with rules that hold for all
integers and need no facts. The rules here go further, and some use symbol ranges
(``ranges``: name -> ``(lo, hi)``, as in :mod:`valueranges.form_bound`):

* **max/min**: an argument another provably dominates goes (``max(x+1, x+10)`` ->
  ``x+10``; with ranges, ``max(x, 3)`` -> ``x`` for ``x >= 3``); a part common to every
  argument comes out (``min(x+10, y+10)`` -> ``min(x, y) + 10``, so
  ``min(x, y) - min(x+10, y+10)`` is ``-10``); ``max(a, b) + min(a, b)`` -> ``a + b``;
  ``max(a, b) * min(a, b)`` -> ``a*b``.
* **floordiv/mod**: ``k*(x // k) + x % k`` -> ``x``; ``(x // a + c) // b`` ->
  ``(x + a*c) // (a*b)``; division removal from ranges: ``x = k*Q + R`` with ``R`` in one
  block ``[j*k, j*k + k - 1]`` gives ``x // k = Q + j`` and ``x % k = R - j*k``
  (``(360x + y) // 16`` -> ``22x`` for ``x`` in [0, 1], ``y`` in [0, 6]); exact
  division by a polynomial (``(a*a - b*b) // (a + b)`` -> ``a - b``,
  ``((p+1)*64) % ((p+1)*32)`` -> 0), under the convention of Note [Canonical forms]
  in :mod:`symint.functions` (a zero divisor is the one accepted widening).
* **relations** (:func:`simplify_bool`): ``c*(x // k) + r <= 0`` -> a bound on ``x``
  (``x // 2 < 3`` -> ``x < 6``); ``g*P + R + K <= 0`` with ``R`` small -> ``P <= q``
  (``8x + y < 16`` -> ``x < 2`` for ``y`` in [0, 7]); ``x // k == q and x % k == r`` ->
  ``x == k*q + r``.

Every rule is an identity over the integers (or over the box of ``ranges``), each
checked by brute force in ``tests/valueranges/test_rewrite.py``. The result is
deterministic (forms are ordered structurally) and the work bounded: a pass over the
form, at most ``_ROUNDS`` times.

>>> from symint import form as F
>>> x, y = F.sym("x"), F.sym("y")
>>> simplify(F.sub(F.min_(x, y), F.min_(F.add(x, F.const(10)), F.add(y, F.const(10))))).sympy()
-10
>>> simplify(F.add(F.scale(F.floordiv(x, F.const(8)), 8), F.mod(x, F.const(8)))).sympy()
x
"""

from __future__ import annotations

import math
from typing import Mapping

from symint import boolform as B
from symint import form as F
from symint.form_transform import rebuild_atom

from .form_bound import bound_form

__all__ = ["simplify", "simplify_bool"]

INF = math.inf
_ROUNDS = 3


def simplify(f: "F.Form", ranges: Mapping[str, tuple] | None = None, memo: dict | None = None) -> "F.Form":
    """``f`` rewritten by the rules of the module docstring, given symbol ``ranges`` (none: every integer).

    >>> from symint import form as F
    >>> x, y = F.sym("x"), F.sym("y")
    >>> simplify(F.floordiv(F.add(F.scale(x, 360), y), F.const(16)), {"x": (0, 1), "y": (0, 6)}).sympy()
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
    out = _products(_sums(out))
    memo[f] = out
    return out


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
    """Whether ``b`` makes ``a`` useless in ``kind(a, b)``: ``b >= a`` for max, ``b <= a`` for min."""
    d = F.sub(b, a)
    lo, hi = (d.const, d.const) if d.is_const else _bound(d, ranges, memo)
    return lo >= 0 if kind == "max" else hi <= 0


def _minmax(atom: "F.Atom", ranges, memo) -> "F.Form":
    kind = atom.kind
    args = list(atom.args)
    kept = []
    for i, a in enumerate(args):
        others = kept + args[i + 1:]
        if not any(_dominated(kind, a, b, ranges, memo) for b in others):
            kept.append(a)
    common = _common_part(kept)
    if common is not None:
        kept = [F.sub(a, common) for a in kept]
    result = kept[0]
    op = F.max_ if kind == "max" else F.min_
    for a in kept[1:]:
        result = op(result, a)
    return result if common is None else F.add(result, common)


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
        atom = m.single_atom()
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
        if partner is not None and terms.get(partner) == pc:
            del terms[m], terms[partner]
            terms_form = F.add(_from_terms(terms), F.scale(replacement, c))
            return _sums(F.add(terms_form, F.const(f.const)))
    return f if not changed else f


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
                    new_m = F.mul(_mono_form_from(powers), F.pow_nat(F.mul(*atom.args), p))
                    break
        if new_m is None:
            out = F.add(out, F.scale(_mono_form(m), c))
        else:
            changed = True
            out = F.add(out, F.scale(new_m, c))
    return out if changed else f


def _mono_form_from(powers: dict) -> "F.Form":
    out = F.const(1)
    for atom, p in sorted(powers.items(), key=lambda item: item[0].key):
        out = F.mul(out, F.pow_nat(F.atom_form(atom), p))
    return out


# -- floor division and modulo ----------------------------------------------------------------------


def _division(atom: "F.Atom", ranges, memo) -> "F.Form":
    x, d = atom.args
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
        split = _split_by_ranges(x, k, ranges, memo)
        if split is not None:
            q, r, j = split
            return F.add(q, F.const(j)) if atom.kind == "floordiv" else F.sub(r, F.const(j * k))
        return F.atom_form(atom)
    if not d.is_const:
        exact = _exact_quotient(x, d)
        if exact is not None:
            return exact if atom.kind == "floordiv" else F.const(0)
        common = _common_factor(x, d)
        if common is not None:  # (k*a) // (k*b) == a // b and (k*a) % (k*b) == k*(a % b), for k != 0
            ka, kb = _divide(x, common), _divide(d, common)
            return F.floordiv(ka, kb) if atom.kind == "floordiv" else F.mul(common, F.mod(ka, kb))
    return F.atom_form(atom)


def _common_factor(x: "F.Form", d: "F.Form") -> "F.Form | None":
    """The greatest monomial times integer dividing every term of ``x`` and ``d`` (None when it is 1).

    Under Note [Canonical forms] (``symint.functions``) a factor that is 0 is the accepted widening.
    """
    if x.const or d.const or x.is_const:
        return None
    powers = None
    g = 0
    for f in (x, d):
        for m, c in f.terms:
            g = math.gcd(g, c)
            mine = dict(m.factors)
            powers = mine if powers is None else {a: min(p, mine[a]) for a, p in powers.items() if a in mine}
    powers = {a: p for a, p in (powers or {}).items() if a.kind == "sym"}
    if not powers and g == 1:
        return None
    return F.mul(F.const(g), _mono_form_from(powers))


def _divide(f: "F.Form", k: "F.Form") -> "F.Form":
    """``f / k`` for a monomial ``k`` that divides every term (exact)."""
    (km, kc), = k.terms
    out = F.const(0)
    for m, c in f.terms:
        powers = dict(m.factors)
        for a, p in km.factors:
            powers[a] -= p
        out = F.add(out, F.scale(_mono_form_from({a: p for a, p in powers.items() if p}), c // kc))
    return out


def _nested_floordiv(x: "F.Form", k: int) -> "F.Form | None":
    """``(y // a + c) // k`` -> ``(y + a*c) // (a*k)`` for ``a, k > 0``."""
    if len(x.terms) != 1 or x.terms[0][1] != 1 or not x.const:
        return None
    inner = x.terms[0][0].single_atom()
    if inner is None or inner.kind != "floordiv" or not inner.args[1].is_const or inner.args[1].const <= 0:
        return None
    y, a = inner.args[0], inner.args[1].const
    return F.floordiv(F.add(y, F.const(a * x.const)), F.const(a * k))


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


def _exact_quotient(x: "F.Form", d: "F.Form") -> "F.Form | None":
    """``x / d`` when ``d`` divides ``x`` as polynomials with an integer quotient (symbols only), else None."""
    if not (x.symbols and d.symbols) or any(a.kind != "sym" for f in (x, d) for m, _ in f.terms for a, _ in m.factors):
        return None
    import sympy  # the polynomial division is sympy's (forms hold no polynomial arithmetic)

    from symint.form_sympy import from_sympy

    gens = sorted({sympy.Symbol(n, integer=True) for n in x.symbols | d.symbols}, key=lambda s: s.name)
    px, pd = sympy.Poly(x.sympy(), *gens, domain="ZZ"), sympy.Poly(d.sympy(), *gens, domain="ZZ")
    q, r = px.div(pd)
    if not r.is_zero or q.is_zero or not all(c.is_Integer for c in q.coeffs()):
        return None
    return from_sympy(q.as_expr())


# -- relations --------------------------------------------------------------------------------------


def simplify_bool(b: "B.BoolForm", ranges: Mapping[str, tuple] | None = None) -> "B.BoolForm":
    """A boolean form with its sides simplified and the relation rules of the module docstring applied.

    >>> from symint import form as F, boolform as B
    >>> x, y = F.sym("x"), F.sym("y")
    >>> simplify_bool(B.rel("<", F.floordiv(x, F.const(2)), F.const(3))).sympy()
    x <= 5
    >>> simplify_bool(B.rel("<", F.add(F.scale(x, 8), y), F.const(16)), {"y": (0, 7)}).sympy()
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
        return B.and_(*(simplify_bool(a, ranges) for a in parts))
    if kind == "or":
        return B.or_(*(simplify_bool(a, ranges) for a in b.args))
    if kind == "not":
        return B.not_(simplify_bool(b.args[0], ranges))
    return b


def _relation(b: "B.BoolForm", ranges, memo) -> "B.BoolForm":
    n = b.norm
    p = simplify(n.p, ranges, memo)
    r = b if p is n.p else B.rel(n.op, p, F.const(0))
    if r.kind != "rel":
        return r
    n = r.norm
    p = n.p
    inverted = _invert_floordiv(n.op, p)
    if inverted is not None:
        return inverted
    if n.op == "<=":
        small = _drop_small_rest(p, ranges, memo)
        if small is not None:
            return small
    return r


def _invert_floordiv(op: str, p: "F.Form") -> "B.BoolForm | None":
    """``c*(x // k) + K op 0`` as a relation on ``x`` (``k > 0``)."""
    if len(p.terms) != 1:
        return None
    m, c = p.terms[0]
    atom = m.single_atom()
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
        atom = a.norm.p.terms[0][0].single_atom()
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
