"""Exact division of polynomial forms, for the rewriter (:mod:`valueranges.rewrite`).

``(a*a - b*b) // (a + b)`` is ``a - b`` because the divisor divides the dividend as polynomials with an
integer quotient; ``(6*a*b) // (4*a)`` is ``(3*b) // 2`` once the common monomial factor ``2*a`` is
divided out of both sides.

>>> from symint import form as F
>>> from symint.sympy_io import to_sympy
>>> a, b = F.sym("a"), F.sym("b")
>>> to_sympy(exact_quotient(F.sub(F.mul(a, a), F.mul(b, b)), F.add(a, b)))
a - b
>>> to_sympy(common_factor(F.mul(F.scale(a, 6), b), F.scale(a, 4)))
2*a
"""

from __future__ import annotations

import math

from symint import form as F
from symint.form.terms import MEMO_LIMIT, register_cache


def monomial_form(powers: dict) -> "F.Form":
    out = F.const(1)
    for atom, p in sorted(powers.items(), key=lambda item: item[0].key):
        out = F.mul(out, F.pow_nat(F.atom_form(atom), p))
    return out


def common_factor(x: "F.Form", d: "F.Form") -> "F.Form | None":
    """The greatest monomial times integer dividing every term of ``x`` and ``d`` (None when it is 1).

    Under Note [Canonical forms] (``symint.sympy_io.functions``) a factor that is 0 is the accepted widening.
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
    return F.mul(F.const(g), monomial_form(powers))


def divide_by_monomial(f: "F.Form", k: "F.Form") -> "F.Form":
    """``f / k`` for a monomial ``k`` (an integer alone included) that divides every term (exact)."""
    if k.is_const:  # the common factor of 2*y and 2*x is the integer 2: a monomial with no atoms
        km_factors, kc = (), k.const
    else:
        (km, kc), = k.terms
        km_factors = km.factors
    out = F.const(0)
    for m, c in f.terms:
        powers = dict(m.factors)
        for a, p in km_factors:
            powers[a] -= p
        out = F.add(out, F.scale(monomial_form({a: p for a, p in powers.items() if p}), c // kc))
    return out


def exact_quotient(x: "F.Form", d: "F.Form") -> "F.Form | None":
    """``x / d`` when ``d`` divides ``x`` as polynomials with an integer quotient (symbols only), else None.

    A pure function of the two interned forms: cached for the process (the sympy division is slow).

    >>> from symint.sympy_io import to_sympy
    >>> a, b = F.sym("a"), F.sym("b")
    >>> to_sympy(exact_quotient(F.sub(F.mul(a, a), F.mul(b, b)), F.add(a, b))), exact_quotient(F.scale(a, 6), F.scale(a, 4))
    (a - b, None)
    """
    key = x.uid << 32 | d.uid  # Note [Keys the garbage collector skips] (symint.form.terms)
    if key in _EXACT:
        return _EXACT[key]
    found = exact_quotient_uncached(x, d)
    if len(_EXACT) > MEMO_LIMIT:
        _EXACT.clear()
    _EXACT[key] = found
    return found


_EXACT: dict[int, "F.Form | None"] = {}
register_cache(_EXACT)  # Note [Sweeping the interning tables] (symint.form.terms)


def exact_quotient_uncached(x: "F.Form", d: "F.Form") -> "F.Form | None":
    """:func:`exact_quotient` computed (sympy's polynomial division only where degrees do not decide)."""
    if not (x.symbols and d.symbols) or any(a.kind != "sym" for f in (x, d) for m, _ in f.terms for a, _ in m.factors):
        return None
    degree_x, degree_d = (max(sum(p for _, p in m.factors) for m, _ in f.terms) for f in (x, d))
    if degree_x < degree_d or not d.symbols <= x.symbols:
        return None  # a nonzero multiple of d has d's symbols and at least its degree
    if degree_x == degree_d:  # the quotient is a number q: x is q*d term by term (no sympy needed)
        q, r = divmod(dict(x.terms).get(d.terms[0][0], 0), d.terms[0][1])
        return F.const(q) if not r and q and F.scale(d, q) is x else None
    import sympy  # the polynomial division is sympy's (forms hold no polynomial arithmetic)

    from symint.sympy_io import from_sympy, to_sympy

    gens = sorted({sympy.Symbol(n, integer=True) for n in x.symbols | d.symbols}, key=lambda s: s.name)
    px, pd = sympy.Poly(to_sympy(x), *gens, domain="ZZ"), sympy.Poly(to_sympy(d), *gens, domain="ZZ")
    q, r = px.div(pd)
    if not r.is_zero or q.is_zero or not all(c.is_Integer for c in q.coeffs()):
        return None
    return from_sympy(q.as_expr())
