"""Rewrite rules of :mod:`valueranges.rewrite` that fold a sum into one floor division or bound a product.

Two identities, each proven for the schema (``tests/valueranges/test_rewrite_proofs.py``):

* **folding into a floor division** (TVM's ``floordiv(x, 2) + floormod(x, 2) -> floordiv(x + 1, 2)``,
  for every divisor and every rest): with ``u % k`` written by its definition ``u - k*(u // k)``,
  a sum ``t + u // k`` is ``(k*t + u) // k`` and ``t - u // k`` is ``(k*t - u + k - 1) // k``
  (``k > 0``). :func:`floordiv_folds` proposes these; the rewriter keeps one only when smaller
  (``x // 2 + x % 2 + 3`` is ``x - x // 2 + 3``, which is ``(x + 7) // 2``); a coefficient
  common to the whole sum stays outside (``3*(x // 2) + 3*(x % 2)`` -> ``3*((x + 1) // 2)``);
  and ``u // k + (u % k + e) // k`` is ``(u + e) // k``.
* **a bilinear bound** (TVM's ``ComparisonOfProductAndSum``, for any coefficients): a form
  ``a*X*Y + b*X + d*Y + R`` times ``a`` is ``(a*X + d)*(a*Y + b) - b*d + a*R``, and the
  product of two intervals is bounded by the products of their ends: :func:`bilinear_bound`
  (``x*y < 2048*(x + y)`` for ``0 < x < 2048 < y`` is true: ``(x - 2048)*(y - 2048) < 2048**2``);
  :func:`decide_bilinear` decides a relation by it.

Both are pure functions of a form; the work is one pass over its terms per candidate.

>>> from symint import form as F
>>> x = F.sym("x")
>>> from symint.sympy_io import to_sympy
>>> [to_sympy(g) for g in floordiv_folds(F.add(F.floordiv(x, F.const(2)), F.mod(x, F.const(2))))]
[FloorDiv(x + 1, 2)]
"""

from __future__ import annotations

import math
from typing import Callable, Iterator

from symint import form as F
from symint.form.terms import form_from_dict

__all__ = ["floordiv_folds", "bilinear_bound", "decide_bilinear", "decide_by_interval"]

INF = math.inf


def _divisions(f: "F.Form") -> list:
    """The distinct ``(u, k)`` of the floordiv and mod atoms of ``f``'s single-atom terms (``k > 0`` constant),
    in term order."""
    seen: dict = {}
    for m, _ in f.terms:
        atom = m.single
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
    """Forms equal to ``f`` with a ``u // k`` (or ``u % k``) and the part of the rest that its coefficient divides
    in one floor division (see the module docstring), then with ``c*(u // k) + c*((u % k + e) // k)`` as
    ``c*((u + e) // k)``; the caller keeps one only if it is smaller.

    >>> from symint import form as F
    >>> x = F.sym("x")
    >>> f = F.add(F.sub(x, F.floordiv(x, F.const(2))), F.const(3))
    >>> from symint.sympy_io import to_sympy
    >>> [to_sympy(g) for g in floordiv_folds(f)]
    [FloorDiv(x + 7, 2)]
    """
    for u, k in _divisions(f):
        g = _mods_by_definition(f, u, k)
        q = F.floordiv(u, F.const(k))
        if q.atom() is None:
            continue
        b = dict(g.terms).get(q.terms[0][0], 0)
        if not b:
            continue
        c, s = abs(b), (1 if b > 0 else -1)
        rest = F.sub(g, F.scale(q, b))  # g = rest + c*s*(u // k); the terms of rest that c divides go inside
        inside = {m: e // c for m, e in rest.terms if e % c == 0}
        t = form_from_dict(inside, rest.const // c)
        outside = F.sub(rest, F.scale(t, c))
        if c > 1 and outside.terms:
            continue  # 3*(x // 2 + x % 2) folds; x + y + 2*((2 - x - y) // 3) is smaller than its source, no clearer
        inner = F.add(F.scale(t, k), F.scale(u, s))
        folded = F.floordiv(inner if s == 1 else F.add(inner, F.const(k - 1)), F.const(k))
        yield F.add(outside, F.scale(folded, c))
    yield from _offset_folds(f)


def _offset_folds(f: "F.Form") -> Iterator["F.Form"]:
    """``c*(u // k) + c*((u % k + e) // k)`` -> ``c*((u + e) // k)``: ``u + e`` is ``k*(u // k) + (u % k + e)``."""
    terms = dict(f.terms)
    for m, c in f.terms:
        atom = m.single
        if atom is None or atom.kind != "floordiv" or not atom.args[1].is_const or atom.args[1].const <= 1:
            continue
        w, kf = atom.args
        r = F.sub(w, F.const(w.const)).atom()
        if r is None or r.kind != "mod" or r.args[1] is not kf:
            continue
        u = r.args[0]
        q = F.floordiv(u, kf)
        if q.atom() is None or terms.get(q.terms[0][0]) != c:
            continue
        yield F.add(F.sub(f, F.scale(F.add(F.atom_form(atom), q), c)), F.scale(F.floordiv(F.add(u, F.const(w.const)), kf), c))


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


def decide_by_interval(op: str, bounds: tuple) -> bool | None:
    """``p op 0`` (``op`` one of ``<=``, ``==``, ``!=``) decided from ``p``'s interval ``(lo, hi)``, else None.

    >>> decide_by_interval("<=", (-5, 0)), decide_by_interval("==", (1, 3)), decide_by_interval("<=", (-1, 1))
    (True, False, None)
    """
    lo, hi = bounds
    if op == "<=":
        return True if hi <= 0 else (False if lo > 0 else None)
    if lo > 0 or hi < 0:
        return op == "!="
    if lo == hi == 0:
        return op == "=="
    return None


def decide_bilinear(op: str, p: "F.Form", bound: Callable[["F.Form"], tuple]) -> bool | None:
    """``p op 0`` decided by :func:`bilinear_bound`, else None (also when ``p`` is linear).

    >>> from symint import form as F
    >>> x, y = F.sym("x"), F.sym("y")
    >>> p = F.sub(F.mul(x, y), F.scale(F.add(x, y), 16))  # x*y - 16*(x + y) <= 0 for 0 < x < 16 < y
    >>> from valueranges.bound import bound_form
    >>> decide_bilinear("<=", p, lambda f: bound_form(f, {"x": (1, 15), "y": (17, INF)}, {}))
    True
    """
    if all(sum(e for _, e in m.factors) == 1 for m, _ in p.terms):
        return None
    found = bilinear_bound(p, bound)
    return None if found is None else decide_by_interval(op, found)
