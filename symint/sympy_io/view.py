"""The sympy view of forms: what :meth:`Form.sympy`, :meth:`Atom.sympy` and :meth:`BoolForm.sympy` build.

Conversion in this direction needs only the sympy nodes of :mod:`symint.sympy_io.functions`,
so the form classes can build their view without importing the rest of :mod:`symint.sympy_io`
(which converts the other way and imports :mod:`symint.form`). Each result is cached on the
form by its ``sympy()`` method.

>>> from symint.form import add, const, floordiv, rel, sym
>>> form_to_sympy(add(floordiv(sym("x"), const(2)), const(1)))
FloorDiv(x, 2) + 1
>>> bool_to_sympy(rel("<", sym("x"), const(3)))
x < 3
"""

from __future__ import annotations

import sympy

from .functions import CeilDiv, FloorDiv, Max, Min, Mod, PowByNatural, ordered_and, ordered_or, symbol_expr

__all__ = ["atom_to_sympy", "form_to_sympy", "bool_to_sympy"]

_RELATION_CLASSES = {"==": sympy.Eq, "!=": sympy.Ne, "<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge}


def atom_to_sympy(atom: "Atom") -> sympy.Basic:
    """The sympy expression of one atom."""
    kind = atom.kind
    if kind == "sym":
        return symbol_expr(atom.name)
    if kind == "opaque":
        return atom.args[0]
    args = [a.sympy() for a in atom.args]
    node = _NODES.get(kind)
    if node is None:
        raise ValueError(f"unknown atom kind {kind}")
    return node(*args)


def _mono_to_sympy(m: "Mono") -> sympy.Expr:
    if m._sympy is None:
        factors = [a.sympy() if p == 1 else sympy.Pow(a.sympy(), p) for a, p in m.factors]
        m._sympy = sympy.Mul(*factors)
    return m._sympy


def form_to_sympy(f: "Form") -> sympy.Expr:
    """The sympy expression of a form (use :meth:`Form.sympy`, which caches it)."""
    if f.is_const:
        return sympy.Integer(f.const)
    terms = [(_mono_to_sympy(m) if c == 1 else sympy.Integer(c) * _mono_to_sympy(m)) for m, c in f.terms]
    if f.const:
        terms.append(sympy.Integer(f.const))
    return sympy.Add(*terms)


_NODES = {"floordiv": FloorDiv, "ceildiv": CeilDiv, "mod": Mod, "max": Max, "min": Min, "pow": PowByNatural}


def bool_to_sympy(b) -> sympy.Basic:
    """The sympy boolean of a boolean form (use :meth:`BoolForm.sympy`, which caches it).

    A relation form never folds (it would be TRUE or FALSE), so its sympy relation is
    built unevaluated; connectives keep their order (Note [Ordered connectives] in
    :mod:`symint.sympy_io.functions`).
    """
    kind = b.kind
    if kind == "const":
        return sympy.true if b.value else sympy.false
    if kind == "rel":
        op, lhs, rhs = b.args
        return _RELATION_CLASSES[op](lhs.sympy(), rhs.sympy(), evaluate=False)
    if kind == "and":
        return ordered_and(*(a.sympy() for a in b.args))
    if kind == "or":
        return ordered_or(*(a.sympy() for a in b.args))
    if kind == "not":
        return sympy.Not(b.args[0].sympy())
    return b.args[0]
