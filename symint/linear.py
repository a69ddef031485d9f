"""``linear_form``: an expression as integer coefficients of symbols plus a constant, when it is one.

>>> from symint.build import symbol_expr
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> coeffs, const = linear_form(2*s0 - s1 + 3)
>>> sorted(coeffs.items(), key=str), const
([(s0, 2), (s1, -1)], 3)
>>> linear_form(s0 * s1) is None
True
"""

from __future__ import annotations

import sympy

__all__ = ["linear_form"]


def linear_form(expr: sympy.Expr) -> tuple[dict[sympy.Symbol, int], int] | None:
    """``({symbol: coefficient}, constant)`` if ``expr`` is ``sum(c*s) + k`` with integer ``c``, ``k``; else None.

    Symbols whose coefficients cancel are left out.
    """
    coeffs: dict[sympy.Symbol, int] = {}
    const = 0
    for term in sympy.Add.make_args(expr):
        if isinstance(term, sympy.Integer):
            const += int(term)
            continue
        coeff, rest = term.as_coeff_Mul()
        if not isinstance(coeff, sympy.Integer) or not rest.is_Symbol:
            return None
        coeffs[rest] = coeffs.get(rest, 0) + int(coeff)
    return {s: c for s, c in coeffs.items() if c}, const
