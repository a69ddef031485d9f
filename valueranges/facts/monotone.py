"""Single-symbol guards that are monotone in their symbol become plain bounds.

A guard such as ``((x - 1)//2 - 1)//2 + 1 >= 1`` (a conv/pool output must be
non-empty) reads one symbol and only gets truer as the symbol grows. Within the
symbol's range it is therefore exactly ``x >= t`` for the least ``t`` where it
holds, which a binary search over concrete values finds. The bound is cheaper to
check and merges with the symbol's other bounds.

Note [Why the rewrite is exact]
    :func:`direction` is a syntactic proof of monotonicity: sums of non-decreasing
    terms, positive multiples, floor/ceil division by a positive constant and
    ``Max``/``Min`` of non-decreasing terms are non-decreasing (and mirror-wise for
    non-increasing). A predicate ``d >= 0`` with ``d`` non-decreasing holds on an
    upward-closed set; its least element within the range is found by bisection.
    Anything the syntax cannot prove monotone (``Mod``, products of symbols,
    division by a symbol) is left alone. Evaluation that raises aborts the rewrite.

>>> from symint.build import symbol_expr, floordiv, add, ge
>>> x = symbol_expr("x")
>>> guard = ge(add(floordiv(add(floordiv(add(x, -1), 2), -1), 2), 1), 1)
>>> as_bound(guard, x, 2, 10**9, hint=33)
x >= 3
"""

from __future__ import annotations

import math

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.sympy_io.evaluate import evaluate
from symint.sympy_io.functions import CeilDiv, FloorDiv, Max, Min

__all__ = ["direction", "as_bound"]


def direction(expr: sympy.Expr, sym: sympy.Symbol) -> int | None:
    """+1 if ``expr`` is provably non-decreasing in ``sym``, -1 if non-increasing, 0 if constant, else None.

    >>> from symint.build import symbol_expr, floordiv
    >>> x = symbol_expr("x")
    >>> direction(floordiv(-x, 2), x), direction(x * x, x)
    (-1, None)
    """
    if expr == sym:
        return 1
    if sym not in expr.free_symbols:
        return 0
    if expr.is_Add or isinstance(expr, (Max, Min)):
        dirs = {direction(a, sym) for a in expr.args} - {0}
        return dirs.pop() if len(dirs) == 1 and None not in dirs else None
    if expr.is_Mul:
        coeff, rest = expr.as_coeff_Mul()
        if coeff.is_Number and coeff != 1 and rest is not expr:
            inner = direction(rest, sym)
            return None if inner is None else inner * (1 if coeff > 0 else -1)
        return None
    if isinstance(expr, (FloorDiv, CeilDiv)) and isinstance(expr.args[1], sympy.Integer):
        inner = direction(expr.args[0], sym)
        return None if inner is None else inner * (1 if expr.args[1] > 0 else -1)
    return None


def _predicate_direction(guard: sympy.Basic, sym: sympy.Symbol) -> int | None:
    if not isinstance(guard, Relational) or guard.rel_op in ("==", "!="):
        return None
    d = direction(build.sub(guard.lhs, guard.rhs), sym)
    if not d:
        return None
    return d if guard.rel_op in (">", ">=") else -d


def as_bound(guard: sympy.Basic, sym: sympy.Symbol, lower: int, upper: int | float, hint: int) -> sympy.Basic | None:
    """``guard`` (true at ``hint``) as ``sym >= t`` or ``sym <= t`` on ``[lower, upper]``, or None if not monotone.

    Returns ``True`` when the guard holds on the whole range.
    """
    if guard.free_symbols != {sym} or not lower <= hint <= upper or lower == -math.inf:
        return None
    way = _predicate_direction(guard, sym)
    if way is None:
        return None

    def holds(v: int) -> bool:
        return bool(evaluate(guard, {sym: v}))

    try:
        if not holds(hint):
            return None
        if way > 0:  # holds on [t, upper]: the least t in [lower, hint]
            lo, hi = int(lower), hint
            if holds(lo):
                return sympy.true
            while hi - lo > 1:  # holds(hi), not holds(lo)
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if holds(mid) else (mid, hi)
            return build.ge(sym, hi)
        # holds on [lower, t]: the greatest t in [hint, upper]
        lo, step = hint, 1
        while True:  # find a failing point above hint
            probe = lo + step
            if probe > upper:
                if upper != math.inf and holds(int(upper)):
                    return sympy.true
                hi = int(upper) if upper != math.inf else None
                break
            if not holds(probe):
                hi = probe
                break
            lo, step = probe, step * 2
            if step > 2**62:
                return None
        if hi is None:
            return None
        while hi - lo > 1:  # holds(lo), not holds(hi)
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if holds(mid) else (lo, mid)
        return build.le(sym, lo)
    except (ArithmeticError, ValueError):
        return None
