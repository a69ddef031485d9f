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
from .functions import CeilDiv, FloorDiv, Max, Min, Mod, PowByNatural, _is_integer_valued

__all__ = ["form_to_sympy", "atom_to_sympy", "from_sympy", "NotAnIntegerForm"]


class NotAnIntegerForm(ValueError):
    """The sympy expression is not integer-valued by structure (floats, true division, ...)."""


def atom_to_sympy(atom: "F.Atom") -> sympy.Basic:
    """The sympy expression of one atom."""
    from .build import symbol_expr

    kind = atom.kind
    if kind == "sym":
        return symbol_expr(atom.name)
    if kind == "opaque":
        return atom.args[0]
    args = [a.sympy() for a in atom.args]
    if kind == "floordiv":
        return FloorDiv(*args)
    if kind == "ceildiv":
        return CeilDiv(*args)
    if kind == "mod":
        return Mod(*args)
    if kind == "max":
        return Max(*args)
    if kind == "min":
        return Min(*args)
    if kind == "pow":
        return PowByNatural(*args)
    raise ValueError(f"unknown atom kind {kind}")


def _mono_to_sympy(m: "F.Mono") -> sympy.Expr:
    if m._sympy is None:
        factors = [a.sympy() if p == 1 else sympy.Pow(a.sympy(), p) for a, p in m.factors]
        m._sympy = sympy.Mul(*factors)
    return m._sympy


def form_to_sympy(f: "F.Form") -> sympy.Expr:
    """The sympy expression of a form (use :meth:`Form.sympy`, which caches it)."""
    if f.is_const:
        return sympy.Integer(f.const)
    terms = [(_mono_to_sympy(m) if c == 1 else sympy.Integer(c) * _mono_to_sympy(m)) for m, c in f.terms]
    if f.const:
        terms.append(sympy.Integer(f.const))
    return sympy.Add(*terms)


_FROM: dict[sympy.Basic, "F.Form"] = {}


def from_sympy(expr: sympy.Basic) -> "F.Form":
    """The canonical form of an integer-valued sympy expression.

    Raises:
        NotAnIntegerForm: ``expr`` is not integer-valued by structure.

    >>> from symint.build import symbol_expr
    >>> from_sympy(FloorDiv(symbol_expr("x") * 4, 2)).sympy()
    2*x
    """
    found = _FROM.get(expr)
    if found is not None:
        return found
    result = _convert(expr)
    if len(_FROM) > (1 << 16):
        _FROM.clear()
    _FROM[expr] = result
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
