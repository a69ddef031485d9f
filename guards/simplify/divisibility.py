"""Divisibility rewrites of guards: gcd normalisation and quotients of a multiple.

Two exact rewrites, used where guards are learned (``valueranges.facts``) and where guard
sets are simplified (:mod:`guards.simplify.passes`):

* :func:`normalise_divisibility`: ``Eq(Mod(c*E, k), 0)`` holds exactly when
  ``Eq(Mod(E, k / gcd(c, k)), 0)`` does, for every integer ``E`` (``c*E = k*q`` iff
  ``(k/g) | (c/g)*E`` iff ``(k/g) | E``, as ``c/g`` and ``k/g`` are coprime). So
  ``(3*s) % 6 == 0`` and ``(3*s) % 2 == 0`` are ``s % 2 == 0``, and ``(3*s) % 3 == 0`` is True. The same holds
  for ``Ne``. This is what lets export report ``x.view(2, -1, 3)`` on an ``(s, 3)`` input
  as "``s`` must be even", as it does for ``s % 2 == 0``.
* :func:`drop_divided`: ``Mod(T, FloorDiv(T, c))`` is 0 when ``c`` divides ``T`` and
  ``T >= c`` (``T = c*k`` with ``k >= 1``, so ``T // c = k`` divides ``T``); the lower
  bound keeps the divisor nonzero, so the rewritten guard fails exactly where the
  original raises or fails.

>>> from symint.build import symbol_expr, eq, mod, mul, floordiv
>>> s = symbol_expr("s")
>>> normalise_divisibility(eq(mod(mul(3, s), 6), 0)), normalise_divisibility(eq(mod(mul(3, s), 3), 0))
(Eq(Mod(s, 2), 0), True)
>>> drop_divided(eq(mod(s, floordiv(s, 4)), 0), lambda sym: (4, 4))
True
"""

from __future__ import annotations

import math
from typing import Callable

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.sympy_io.functions import FloorDiv, Mod
from symint.sympy_io import substitute

__all__ = ["normalise_divisibility", "drop_divided"]


def _scaled(e: sympy.Expr) -> tuple[int, sympy.Expr] | None:
    """``(c, E)`` with ``e == c*E`` for an integer ``c`` (the gcd of the coefficients of a sum), else None."""
    terms = sympy.Add.make_args(e)
    coeffs = []
    for t in terms:
        c, rest = t.as_coeff_Mul()
        if not isinstance(c, sympy.Integer):
            return None
        coeffs.append(int(c))
    g = math.gcd(*coeffs)
    if g <= 1:
        return None
    return g, sympy.Add(*(t / g for t in terms))


def normalise_divisibility(expr: sympy.Basic) -> sympy.Basic:
    """``Eq(Mod(c*E, k), 0) -> Eq(Mod(E, k/gcd(c, k)), 0)`` (and ``Ne``) for integer ``c``, ``k``; see the module docstring.

    >>> from symint.build import symbol_expr, ne, mod, add, mul
    >>> s, t = symbol_expr("s"), symbol_expr("t")
    >>> normalise_divisibility(ne(mod(add(mul(4, s), mul(6, t)), 8), 0))
    Ne(Mod(2*s + 3*t, 4), 0)
    """
    if not expr.has(Mod):
        return expr
    if isinstance(expr, (sympy.And, sympy.Or, sympy.Not)):
        args = [normalise_divisibility(a) for a in expr.args]
        if all(a is b for a, b in zip(args, expr.args)):
            return expr
        return {sympy.And: build.and_, sympy.Or: build.or_}.get(type(expr), lambda a: build.not_(a))(*args)
    if not isinstance(expr, Relational) or expr.rel_op not in ("==", "!="):
        return expr
    lhs, rhs = expr.lhs, expr.rhs
    if rhs != 0 and lhs == 0:
        lhs, rhs = rhs, lhs
    rel = build.eq if expr.rel_op == "==" else build.ne
    if rhs == 0 and lhs.is_Mul and len(lhs.args) == 2 and lhs.args[0].is_Integer and isinstance(lhs.args[1], Mod):
        return rel(lhs.args[1], 0)  # Mod(3*s, 6) is built as 3*Mod(s, 2): c*M == 0 iff M == 0 for c != 0
    if rhs != 0 or not isinstance(lhs, Mod) or not isinstance(lhs.args[1], sympy.Integer):
        return expr
    a, k = lhs.args[0], int(lhs.args[1])
    scaled = _scaled(a)
    if k == 0 or scaled is None:
        return expr
    c, inner = scaled
    g = math.gcd(c, k)
    return rel(build.mod(inner, abs(k) // g), 0)


def drop_divided(expr: sympy.Basic, lower_and_step: Callable[[sympy.Symbol], tuple]) -> sympy.Basic:
    """``expr`` with each ``Mod(T, FloorDiv(T, c))`` replaced by 0 where ``c`` divides ``T`` and ``T >= c``.

    ``lower_and_step(T)`` gives ``(lower bound, a number every value is a multiple of)``
    for a symbol ``T`` (e.g. ``(4, 4)`` for ``T >= 4`` and ``T % 4 == 0``).
    """
    if not expr.has(Mod):
        return expr
    zeros = {}
    for m in expr.atoms(Mod):
        t, d = m.args
        if not (t.is_Symbol and isinstance(d, FloorDiv) and d.args[0] == t and isinstance(d.args[1], sympy.Integer)):
            continue
        c = int(d.args[1])
        lo, step = lower_and_step(t)
        if c > 0 and step % c == 0 and lo >= c:
            zeros[m] = sympy.Integer(0)
    return substitute(expr, zeros) if zeros else expr
