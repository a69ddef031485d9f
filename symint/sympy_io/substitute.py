"""Substitution into expressions built by ``symint``, through their forms.

>>> from symint.build import symbol_expr, mod, eq
>>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
>>> substitute(eq(mod(s0, 4), s1), {s0: 8 * s1})
Eq(0, s1)
"""

from __future__ import annotations

from typing import Mapping

import sympy
from sympy.core.relational import Relational
from sympy.logic.boolalg import BooleanAtom, BooleanFunction

from .. import form as F
from .functions import NotAnIntegerForm, PowByNatural, bool_from_sympy, from_sympy, to_sympy
from .limits import check_fold_power, check_folded

__all__ = ["substitute"]


# Note [Substitution through forms]
#     Substituting into an integer or boolean expression is :func:`symint.form.transform` /
#     :func:`~symint.form.transform_bool` on its form, then the sympy view of the result: the
#     rebuilt atoms and relations are canonical and fold as forms fold. Only what forms do not
#     cover (floats, true division, opaque functions; a replacement that is not an integer form)
#     is rebuilt here node by node with sympy's own constructors, after the checks of
#     :mod:`symint.sympy_io.limits` (``2 ** x`` with ``x -> 10**9`` is refused before it is computed).

_BOOLEAN_TYPES = (Relational, BooleanFunction, BooleanAtom)


def substitute(expr: sympy.Basic, mapping: Mapping[sympy.Basic, sympy.Basic], memo: dict | None = None) -> sympy.Basic:
    """``expr`` with every occurrence of a key of ``mapping`` replaced by its value (Note [Substitution through forms]).

    Args:
        expr: an expression built by ``symint``.
        mapping: what to replace (symbols, or atoms such as ``Mod(x, 4)``) -> replacement expression.
        memo: results for subexpressions, reusable across calls with the *same* mapping.

    >>> from symint.build import symbol_expr, mod, eq, floordiv, lt, mul
    >>> s0, s1 = symbol_expr("s0"), symbol_expr("s1")
    >>> substitute(eq(mod(s0, 4), s1), {s0: 8 * s1}), substitute(lt(floordiv(mul(s0, 4), 2), s1), {s1: mul(s0, 2)})
    (Eq(0, s1), False)
    """
    if not mapping:
        return expr
    if memo is None:
        memo = {}
    forms = memo.get("forms")
    if forms is None:
        forms = memo["forms"] = {}
        memo["sympy"] = {}
        memo["table"] = _atom_table(mapping)
    return _Substitution(mapping, memo["table"], forms, memo["sympy"]).expr(expr)


def _atom_table(mapping: Mapping) -> dict | None:
    """``{atom: replacement form}``, or None when a key is not an atom or a value not an integer form."""
    table = {}
    for k, v in mapping.items():
        try:
            key = from_sympy(k).atom()
            value = from_sympy(sympy.Integer(v) if isinstance(v, int) else v)
        except (NotAnIntegerForm, AttributeError, TypeError):
            return None
        if key is None:
            return None
        table[key] = value
    return table


class _Substitution:
    """One substitution: the integer/boolean skeleton through forms, the rest node by node."""

    __slots__ = ("mapping", "table", "forms", "memo")

    def __init__(self, mapping: Mapping, table: dict | None, forms: dict, memo: dict):
        self.mapping, self.table, self.forms, self.memo = mapping, table, forms, memo

    def expr(self, e: sympy.Basic) -> sympy.Basic:
        if self.table is not None:
            if isinstance(e, _BOOLEAN_TYPES):
                b = bool_from_sympy(e)
                return to_sympy(F.transform_bool(b, self.on_atom, self.forms, self.on_opaque_bool))
            try:
                f = from_sympy(e)
            except NotAnIntegerForm:
                pass
            else:
                return to_sympy(F.transform(f, self.on_atom, self.forms))
        return self.nodes(e)

    def on_atom(self, atom: "F.Atom") -> "F.Form | None":
        hit = self.table.get(atom)
        if hit is not None or atom.kind != "opaque":
            return hit
        inner = atom.args[0]
        new = self.nodes(inner)
        return None if new is inner else from_sympy(new)

    def on_opaque_bool(self, b: "F.BoolForm") -> "F.BoolForm | None":
        inner = b.args[0]
        new = self.nodes(inner)
        return None if new is inner else bool_from_sympy(new)

    def nodes(self, e: sympy.Basic) -> sympy.Basic:
        """``e`` rebuilt node by node where a child changed (what forms do not cover)."""
        hit = self.mapping.get(e)
        if hit is not None:
            return sympy.Integer(hit) if isinstance(hit, int) else hit
        if not e.args:
            return e
        done = self.memo.get(e)
        if done is not None:
            return done
        args = tuple(self.expr(a) for a in e.args)
        if all(a is b for a, b in zip(args, e.args)):
            result = e
        else:
            if e.is_Pow or isinstance(e, PowByNatural):
                check_fold_power(*args)  # before folding: 2 ** 10**9 must never be computed
            result = check_folded(e.func(*args))  # Note [Where the limits are checked] in symint.sympy_io.limits
        self.memo[e] = result
        return result
