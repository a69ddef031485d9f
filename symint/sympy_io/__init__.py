"""The boundary between canonical forms (:mod:`symint.form`) and sympy: the only place that converts.

Integers and booleans are forms; sympy is a view of them, built once per form for
printing, guard text, Z3 translation and export (:func:`to_sympy`, which
:meth:`Form.sympy` caches), and the representation of what forms do not cover:
floats, true division and opaque functions (:mod:`symint.sympy_io.floats`).
sympy converts to forms through a memo table (:func:`from_sympy`,
:func:`bool_from_sympy`), so a guard parsed from text joins the hot path at the
cost of one walk.

Submodules: :mod:`~symint.sympy_io.functions` (the printable sympy nodes ``FloorDiv``,
``Mod``, ..., and the ordered connectives), :mod:`~symint.sympy_io.view` (forms to
sympy), :mod:`~symint.sympy_io.floats` (bitwise and float functions),
:mod:`~symint.sympy_io.evaluate` (the evaluator of sympy expressions with floats).

Note [Import order of form and sympy_io]
    :mod:`symint.form` builds its sympy view with :mod:`symint.sympy_io.view`, and this
    module converts sympy to forms with :mod:`symint.form`. Importing either first
    runs the other's ``__init__`` half-way, so this module refers to the form package
    and its memo tables as modules (``F.add``, ``_terms.SYMPY_TO_FORM``), read when a
    function runs, never by name at import time.

>>> import sympy
>>> from symint.build import symbol_expr
>>> x = symbol_expr("x")
>>> f = from_sympy(2 * x + 3)
>>> f.const, f.sympy() == 2 * x + 3
(3, True)
"""

from __future__ import annotations

import sympy

from typing import Mapping

from sympy.core.relational import Relational
from sympy.logic.boolalg import BooleanAtom, BooleanFunction

from .. import form as F
from ..errors import ExpressionLimitError
from ..limits import check_fold_power, check_folded
from ..form import terms as _terms
from .functions import CeilDiv, FloorDiv, Max, Min, Mod, PowByNatural, _is_integer_valued

__all__ = ["to_sympy", "from_sympy", "bool_from_sympy", "division_by_forms", "substitute", "NotAnIntegerForm"]


class NotAnIntegerForm(ValueError):
    """The sympy expression is not integer-valued by structure (floats, true division, ...)."""


def to_sympy(value) -> sympy.Basic:
    """The sympy view of a :class:`~symint.form.Form` or :class:`~symint.form.BoolForm` (built once, cached on it).

    >>> to_sympy(F.floordiv(F.sym("x"), F.const(2))), to_sympy(F.rel("<", F.sym("x"), F.const(3)))
    (FloorDiv(x, 2), x < 3)
    """
    return value.sympy()


def from_sympy(expr: sympy.Basic) -> "F.Form":
    """The canonical form of an integer-valued sympy expression.

    Raises:
        NotAnIntegerForm: ``expr`` is not integer-valued by structure.

    >>> from symint.build import symbol_expr
    >>> from_sympy(FloorDiv(symbol_expr("x") * 4, 2)).sympy()
    2*x
    """
    table = _terms.SYMPY_TO_FORM
    found = table.get(expr)
    if found is not None:
        return found
    result = _convert(expr)
    if len(table) > (1 << 16):
        table.clear()
    table[expr] = result
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


def division_by_forms(kind: str, a: sympy.Basic, b: sympy.Basic) -> sympy.Basic | None:
    """The sympy view of the form rule ``kind`` (``floordiv``, ``ceildiv``, ``mod``) on ``a`` and ``b``.

    What ``FloorDiv``/``CeilDiv``/``Mod`` evaluate to (Note [One definition of the rewrites]
    in :mod:`symint.sympy_io.functions`). None keeps the node as written: the result is that
    node itself, or an argument is not an integer form (a float, ``4/x``).

    >>> from symint.build import symbol_expr
    >>> x = symbol_expr("x")
    >>> division_by_forms("mod", 3 * x, sympy.Integer(6)), division_by_forms("floordiv", x, sympy.Integer(2))
    (3*(Mod(x, 2)), None)
    """
    try:
        fa, fb = from_sympy(a), from_sympy(b)
        result = getattr(F, kind)(fa, fb)
    except (NotAnIntegerForm, ExpressionLimitError):
        return None
    atom = result.atom()
    if atom is not None and atom.kind == kind and atom.args[0] is fa and atom.args[1] is fb:
        return None  # canonical already: the node as written
    return result.sympy()


def bool_from_sympy(expr: sympy.Basic) -> "F.BoolForm":
    """The boolean form of a sympy boolean (relations between integer expressions become ``rel``).

    >>> from symint.build import symbol_expr, lt
    >>> bool_from_sympy(lt(symbol_expr("x"), 3)).kind
    'rel'
    """
    table = _terms.SYMPY_TO_BOOL
    found = table.get(expr)
    if found is not None:
        return found
    if expr is sympy.true or expr is sympy.false:
        result = F.bool_const(bool(expr))
    elif isinstance(expr, Relational):
        try:
            result = F.rel(expr.rel_op, from_sympy(expr.lhs), from_sympy(expr.rhs))
            if result.kind == "rel":
                result._sympy = expr
        except NotAnIntegerForm:
            result = F.opaque_bool(expr)
    elif isinstance(expr, sympy.And):
        result = F.and_(*(bool_from_sympy(a) for a in expr.args))
    elif isinstance(expr, sympy.Or):
        result = F.or_(*(bool_from_sympy(a) for a in expr.args))
    elif isinstance(expr, sympy.Not):
        result = F.not_(bool_from_sympy(expr.args[0]))
    else:
        result = F.opaque_bool(expr)
    if len(table) > (1 << 16):
        table.clear()
    table[expr] = result
    return result


# -- substitution ------------------------------------------------------------------------------------
# Note [Substitution through forms]
#     Substituting into an integer or boolean expression is :func:`symint.form.transform` /
#     :func:`~symint.form.transform_bool` on its form, then the sympy view of the result: the
#     rebuilt atoms and relations are canonical and fold as forms fold. Only what forms do not
#     cover (floats, true division, opaque functions; a replacement that is not an integer form)
#     is rebuilt here node by node with sympy's own constructors, after the checks of
#     :mod:`symint.limits` (``2 ** x`` with ``x -> 10**9`` is refused before it is computed).

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
                return F.transform_bool(b, self.on_atom, self.forms, self.on_opaque_bool).sympy()
            try:
                f = from_sympy(e)
            except NotAnIntegerForm:
                pass
            else:
                return F.transform(f, self.on_atom, self.forms).sympy()
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
            result = check_folded(e.func(*args))  # Note [Where the limits are checked] in symint.limits
        self.memo[e] = result
        return result
