"""Conversion between canonical forms (:mod:`symint.form`, :mod:`symint.boolform`) and sympy.

sympy is the boundary representation: printing, guard text, Z3 translation and
export read it. Forms convert to sympy once (the result is cached on the form);
sympy converts to forms through a memo table, so a guard parsed from text joins
the hot path at the cost of one walk.

>>> import sympy
>>> from symint.build import symbol_expr
>>> x = symbol_expr("x")
>>> f = from_sympy(2 * x + 3)
>>> f.const, f.sympy() == 2 * x + 3
(3, True)
"""

from __future__ import annotations

import sympy

from . import form as F
from .form_terms import SYMPY_TO_FORM
from .functions import CeilDiv, FloorDiv, Max, Min, Mod, PowByNatural, _is_integer_valued

__all__ = ["from_sympy", "NotAnIntegerForm"]


class NotAnIntegerForm(ValueError):
    """The sympy expression is not integer-valued by structure (floats, true division, ...)."""


def from_sympy(expr: sympy.Basic) -> "F.Form":
    """The canonical form of an integer-valued sympy expression.

    Raises:
        NotAnIntegerForm: ``expr`` is not integer-valued by structure.

    >>> from symint.build import symbol_expr
    >>> from_sympy(FloorDiv(symbol_expr("x") * 4, 2)).sympy()
    2*x
    """
    found = SYMPY_TO_FORM.get(expr)
    if found is not None:
        return found
    result = _convert(expr)
    if len(SYMPY_TO_FORM) > (1 << 16):
        SYMPY_TO_FORM.clear()
    SYMPY_TO_FORM[expr] = result
    if result._sympy is None:
        result._sympy = expr
    return result


def _convert(e: sympy.Basic) -> "F.Form":
    if isinstance(e, sympy.Integer):
        return F.const(int(e))
    if e.is_Symbol:
        if e.is_integer is not True:
            raise NotAnIntegerForm(f"{e} is not an integer symbol")
        return F.sym(e.name)
    if isinstance(e, sympy.Add):
        out = F.const(0)
        for arg in e.args:
            out = F.add(out, from_sympy(arg))
        return out
    if isinstance(e, sympy.Mul):
        out = F.const(1)
        for arg in e.args:
            out = F.mul(out, from_sympy(arg))
        return out
    if isinstance(e, sympy.Pow):
        if isinstance(e.exp, sympy.Integer) and int(e.exp) >= 0:
            return F.pow_nat(from_sympy(e.base), int(e.exp))
        raise NotAnIntegerForm(f"{e} is not integer-valued")
    if isinstance(e, PowByNatural):
        return F.pow_sym(from_sympy(e.args[0]), from_sympy(e.args[1]))
    if isinstance(e, FloorDiv):
        return F.floordiv(from_sympy(e.args[0]), from_sympy(e.args[1]))
    if isinstance(e, CeilDiv):
        return F.ceildiv(from_sympy(e.args[0]), from_sympy(e.args[1]))
    if isinstance(e, Mod):
        if not all(_is_integer_valued(a) for a in e.args):
            raise NotAnIntegerForm(f"{e} is not integer-valued")
        return F.mod(from_sympy(e.args[0]), from_sympy(e.args[1]))
    if isinstance(e, (Max, Min)):
        if not all(_is_integer_valued(a) for a in e.args):
            raise NotAnIntegerForm(f"{e} is not integer-valued")
        op = F.max_ if isinstance(e, Max) else F.min_
        args = [from_sympy(a) for a in e.args]
        out = args[0]
        for a in args[1:]:
            out = op(out, a)
        return out
    if isinstance(e, sympy.Basic) and not isinstance(e, sympy.Number) and _is_integer_valued(e):
        return F.opaque(e)
    raise NotAnIntegerForm(f"{e} is not an integer expression")
