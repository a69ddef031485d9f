"""Rewrite rules of :mod:`valueranges.rewrite` that fold a sum into one floor division or bound a product.

Two identities, each proven for the schema (``tests/valueranges/test_rewrite_proofs.py``):

* **folding into a floor division** (TVM's ``floordiv(x, 2) + floormod(x, 2) -> floordiv(x + 1, 2)``,
  for every divisor and every rest): with ``u % k`` written by its definition ``u - k*(u // k)``,
  a sum ``t + u // k`` is ``(k*t + u) // k`` and ``t - u // k`` is ``(k*t - u + k - 1) // k``
  (``k > 0``). :func:`floordiv_folds` proposes these; the rewriter keeps one only when smaller
  (``x // 2 + x % 2 + 3`` is ``x - x // 2 + 3``, which is ``(x + 7) // 2``).
* **a bilinear bound** (TVM's ``ComparisonOfProductAndSum``, for any coefficients): a form
  ``a*X*Y + b*X + d*Y + R`` times ``a`` is ``(a*X + d)*(a*Y + b) - b*d + a*R``, and the
  product of two intervals is bounded by the products of their ends: :func:`bilinear_bound`
  (``x*y < 2048*(x + y)`` for ``0 < x < 2048 < y`` is true: ``(x - 2048)*(y - 2048) < 2048**2``).

Both are pure functions of a form; the work is one pass over its terms per candidate.

>>> from symint import form as F
>>> x = F.sym("x")
>>> [g.sympy() for g in floordiv_folds(F.add(F.floordiv(x, F.const(2)), F.mod(x, F.const(2))))]
[FloorDiv(x + 1, 2)]
"""

from __future__ import annotations

import math
from typing import Callable, Iterator

from symint import form as F

__all__ = ["floordiv_folds", "bilinear_bound"]

INF = math.inf


def _divisions(f: "F.Form") -> list:
    """The distinct ``(u, k)`` of the floordiv and mod atoms of ``f``'s single-atom terms (``k > 0`` constant),
    in term order."""
    seen: dict = {}
    for m, _ in f.terms:
        atom = m.single_atom()
        if atom is None or atom.kind not in ("floordiv", "mod"):
            continue
        u, k = atom.args
        if k.is_const and k.const > 1 and not u.is_const:
            seen.setdefault((u, k.const), None)
    return list(seen)


def _mods_by_definition(f: "F.Form", u: "F.Form", k: int) -> "F.Form":
    """``f`` with each term ``c*(u % k)`` replaced by ``c*u - c*k*(u // k)`` (the definition of ``%``)."""
    r = F.mod(u, F.const(k))
    atom = r.atom()
    if atom is None:
        return f
    c = dict(f.terms).get(r.terms[0][0], 0)
    if not c:
        return f
    return F.add(F.sub(f, F.scale(r, c)), F.scale(F.sub(u, F.scale(F.floordiv(u, F.const(k)), k)), c))


def floordiv_folds(f: "F.Form") -> Iterator["F.Form"]:
    """Forms equal to ``f`` with a ``u // k`` (or ``u % k``) of coefficient ``±1`` and the rest of ``f`` in one
    floor division (see the module docstring); the caller keeps one only if it is smaller.

    >>> from symint import form as F
    >>> x = F.sym("x")
    >>> f = F.add(F.sub(x, F.floordiv(x, F.const(2))), F.const(3))
    >>> [g.sympy() for g in floordiv_folds(f)]
    [FloorDiv(x + 7, 2)]
    """
    for u, k in _divisions(f):
        g = _mods_by_definition(f, u, k)
        q = F.floordiv(u, F.const(k))
        if q.atom() is None:
            continue
        b = dict(g.terms).get(q.terms[0][0], 0)
        if b not in (1, -1):
            continue
        rest = F.sub(g, F.scale(q, b))
        inner = F.add(F.scale(rest, k), F.scale(u, b))
        yield F.floordiv(inner if b == 1 else F.add(inner, F.const(k - 1)), F.const(k))


def _mul_ends(a, b):
    return 0 if a == 0 or b == 0 else a * b  # 0 * inf is 0: the other end is finite there


def _interval_product(i: tuple, j: tuple) -> tuple:
    ends = [_mul_ends(a, b) for a in i for b in j]
    return min(ends), max(ends)


def bilinear_bound(p: "F.Form", bound: Callable[["F.Form"], tuple]) -> tuple | None:
    """An interval holding ``p = a*X*Y + b*X + d*Y + R`` (one product of two distinct atoms ``X``, ``Y``; ``R``
    the rest), from ``a*p = (a*X + d)*(a*Y + b) - b*d + a*R`` and ``bound`` (a form -> ``(lo, hi)``),
    or None when ``p`` has no such product.

    >>> from symint import form as F
    >>> x, y = F.sym("x"), F.sym("y")
    >>> ranges = {"x": (1, 2047), "y": (1, INF)}
    >>> from valueranges.bound import bound_form
    >>> p = F.sub(F.mul(x, y), F.scale(F.add(x, y), 2048))
    >>> bilinear_bound(p, lambda f: bound_form(f, ranges, {}))[1] < 0
    True
    """
    products = [(m, c) for m, c in p.terms if sum(e for _, e in m.factors) > 1]
    if len(products) != 1:
        return None
    (m, a), = products
    if len(m.factors) != 2 or any(e != 1 for _, e in m.factors):
        return None
    (ax, _), (ay, _) = m.factors
    X, Y = F.atom_form(ax), F.atom_form(ay)
    terms = dict(p.terms)
    b, d = terms.get(X.terms[0][0], 0), terms.get(Y.terms[0][0], 0)
    rest = F.sub(p, F.add(F.scale(F.mul(X, Y), a), F.add(F.scale(X, b), F.scale(Y, d))))
    lo1, hi1 = _interval_product(bound(F.add(F.scale(X, a), F.const(d))), bound(F.add(F.scale(Y, a), F.const(b))))
    lo2, hi2 = bound(F.scale(rest, a))
    lo, hi = lo1 + lo2 - b * d, hi1 + hi2 - b * d  # the ends of a*p
    if a < 0:
        lo, hi = -hi, -lo
    a = abs(a)
    lo = lo if lo in (INF, -INF) else -((-lo) // a)
    hi = hi if hi in (INF, -INF) else hi // a
    return lo, hi
