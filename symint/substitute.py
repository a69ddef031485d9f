"""``substitute``: replace symbols (or subexpressions) and re-canonicalise through ``symint.build``.

Sympy's ``xreplace`` rebuilds relations with sympy's own evaluation, which asks
the assumption system (slow, and not our canonical form). This walks the
expression once, shares work between repeated subtrees, and rebuilds only the
nodes whose arguments changed, with this package's constructors.

>>> from symint.build import symbol_expr, floordiv, lt, mul
>>> x, y = symbol_expr("x"), symbol_expr("y")
>>> substitute(lt(floordiv(mul(x, 4), 2), y), {y: mul(x, 2)})
False
"""

from __future__ import annotations

from typing import Mapping

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.sympy_io.functions import PowByNatural
from symint.limits import check_fold_power, check_folded

__all__ = ["substitute"]



def _rebuild(e: sympy.Basic, args: tuple) -> sympy.Basic:
    if isinstance(e, Relational):
        return build.RELATIONS_BY_OP[e.rel_op](*args)
    if isinstance(e, sympy.And):
        return build.and_(*args)
    if isinstance(e, sympy.Or):
        return build.or_(*args)
    if isinstance(e, sympy.Not):
        return build.not_(*args)
    if e.is_Add:
        return check_folded(sympy.Add(*args))  # Note [Where the limits are checked] in symint.limits
    if e.is_Mul:
        return check_folded(sympy.Mul(*args))
    if e.is_Pow or isinstance(e, PowByNatural):
        check_fold_power(*args)  # before folding: 2 ** 10**9 must never be computed
    return check_folded(e.func(*args))


def substitute(
    expr: sympy.Basic, mapping: Mapping[sympy.Basic, sympy.Basic], memo: dict | None = None
) -> sympy.Basic:
    """``expr`` with every occurrence of a key of ``mapping`` replaced by its value.

    Args:
        expr: an expression built by ``symint``.
        mapping: what to replace (usually symbols) -> replacement expression.
        memo: results for subexpressions, reusable across calls with the *same* mapping.

    >>> from symint.build import symbol_expr, mod, eq
    >>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
    >>> substitute(eq(mod(s0, 4), s1), {s0: 8 * s1})
    Eq(0, s1)
    """
    if not mapping:
        return expr
    if memo is None:
        memo = {}

    def go(e: sympy.Basic) -> sympy.Basic:
        hit = mapping.get(e)
        if hit is not None:
            return hit
        if not e.args:
            return e
        done = memo.get(e)
        if done is not None:
            return done
        args = tuple(go(a) for a in e.args)
        result = e if all(a is b for a, b in zip(args, e.args)) else _rebuild(e, args)
        memo[e] = result
        return result

    return go(expr)
