"""Canonical boolean forms: relations between integer forms and connectives, hash-consed.

A relation keeps the sides as stated (``lhs op rhs``, for printing) and a
*normal form* used for every decision: ``p <= 0``, ``p == 0`` or ``p != 0`` with
``p = lhs - rhs`` rewritten so that equivalent relations share one normal form
(``x < y``, ``x + 1 <= y`` and ``2*x < 2*y`` all normalise to ``x - y + 1 <= 0``).
Relations whose difference is a constant fold to ``TRUE``/``FALSE`` when built.
Connectives keep their arguments in the order written (Python evaluates ``and``
and ``or`` left to right, and so does everything that reads these).

>>> from symint import form as F
>>> x, y = F.sym("x"), F.sym("y")
>>> rel("<", x, y).norm is rel("<=", F.add(x, F.const(1)), y).norm
True
>>> rel("<", x, F.add(x, F.const(1))) is TRUE, rel(">", x, F.const(3))
(True, BoolForm(x > 3))
"""

from __future__ import annotations

import math

from typing import Hashable

from . import arith as F
from .evaluate import evaluate_bool
from .terms import OpaqueValue, make_form, register_cache, register_interned, sorted_terms, symbol_set
from .text import bool_text, form_text

__all__ = ["BoolForm", "Norm", "TRUE", "FALSE", "rel", "relation_norm", "combination_norm", "normalise", "and_", "or_", "not_", "bool_const", "opaque_bool", "OPS"]

#: The relation operators, as sympy spells them.
OPS = ("==", "!=", "<", "<=", ">", ">=")


class Norm:
    """An interned normalised relation ``p <op> 0`` with ``op`` one of ``<=``, ``==``, ``!=``.

    For ``<=`` the coefficients of ``p``'s terms have gcd 1; for ``==``/``!=`` too,
    and the first term's coefficient is positive.

    >>> from symint import form as F
    >>> n = rel(">=", F.scale(F.sym("x"), 2), F.const(3)).norm
    >>> n.op, n.p
    ('<=', Form(-x + 2))
    """

    __slots__ = ("op", "p", "_negated", "__weakref__")

    def __init__(self, op: str, p: "F.Form"):
        self.op = op
        self.p = p
        self._negated = None


    def negated(self) -> "Norm":
        """The normal form of the negation (``not p <= 0`` is ``1 - p <= 0``)."""
        if self._negated is None:
            p = self.p
            if self.op == "<=":  # 1 - p keeps the coefficients' gcd of 1: already normal
                self._negated = _intern_norm("<=", make_form(tuple((m, -c) for m, c in p.terms), 1 - p.const))
            else:
                self._negated = _intern_norm("!=" if self.op == "==" else "==", p)
        return self._negated

    def holds_for(self, value: int) -> bool:
        """Whether the relation holds when ``p`` takes ``value``."""
        return value <= 0 if self.op == "<=" else (value == 0 if self.op == "==" else value != 0)

    def __repr__(self) -> str:
        return f"Norm({form_text(self.p)} {self.op} 0)"


_NORMS: dict[tuple, Norm] = {}
register_interned(_NORMS, lambda n: (n.op, n.p.uid))  # Note [Sweeping the interning tables] (symint.form.terms)


def _intern_norm(op: str, p: "F.Form") -> Norm:
    """The interned :class:`Norm` of ``p op 0`` for an already normal ``p``."""
    key = (op, p.uid)  # Note [Keys the garbage collector skips] (symint.form.terms)
    found = _NORMS.get(key)
    if found is None:
        found = _NORMS.setdefault(key, Norm(op, p))  # atomic: Note [Interning from several threads] (symint.form.terms)
    return found


def relation_norm(op: str, lhs: "F.Form", rhs: "F.Form") -> "Norm | bool":
    """The normal form of ``lhs op rhs`` (a bool when it folds), building only the final form.

    ``<``, ``<=``, ``>``, ``>=`` become ``sign*(lhs - rhs) + k <= 0``; ``==``/``!=`` become
    ``lhs - rhs op 0``; :func:`_normal_norm` normalises the coefficients. :func:`rel` keeps it
    in the relation it builds; facts used only in normal form call this directly.

    >>> from symint import form as F
    >>> relation_norm("<", F.sym("x"), F.sym("y")) is rel("<", F.sym("x"), F.sym("y")).norm
    True
    >>> relation_norm("<", F.sym("x"), F.add(F.sym("x"), F.const(1)))
    True
    """
    if op == "<" or op == "<=":
        sign, k, nop = 1, 1 if op == "<" else 0, "<="
    elif op == ">" or op == ">=":
        sign, k, nop = -1, 1 if op == ">" else 0, "<="
    elif op == "==" or op == "!=":
        sign, k, nop = 1, 0, op
    else:
        raise ValueError(f"unknown relation {op!r}; expected one of {OPS}")
    const_ = sign * (lhs.const - rhs.const) + k
    if rhs.is_const:  # the terms are lhs's (or their negation), already in canonical order
        terms = lhs.terms if sign == 1 else [(m, -c) for m, c in lhs.terms]
    elif lhs.is_const:
        terms = rhs.terms if sign == -1 else [(m, -c) for m, c in rhs.terms]
    else:
        coeffs = dict(lhs.terms) if sign == 1 else {m: -c for m, c in lhs.terms}
        for m, c in rhs.terms:
            coeffs[m] = coeffs.get(m, 0) - sign * c
        terms = sorted_terms(coeffs)
    return _normal_norm(nop, terms, const_)


def _normal_norm(op: str, terms, const_: int) -> "Norm | bool":
    """The interned normal form of ``sum(terms) + const_ op 0`` (terms in canonical order, nonzero).

    For ``<=`` the coefficients are divided by their gcd ``g`` (``g*q + c <= 0`` iff
    ``q + ceil(c / g) <= 0``). For ``==``/``!=`` the gcd must divide the constant (``2*x == 3``
    has no integer solution) and the first coefficient is made positive. Dividing every
    coefficient by the same number keeps the order, which depends on the monomials only.
    """
    if not terms:
        return const_ <= 0 if op == "<=" else (const_ == 0) == (op == "==")
    g = 0
    for _, c in terms:
        g = math.gcd(g, c)
        if g == 1:
            break
    if op == "<=":
        if g > 1:
            terms = [(m, c // g) for m, c in terms]
            const_ = -((-const_) // g)
    else:
        if const_ % g:
            return op == "!="
        if terms[0][1] < 0:
            g = -g
        if g != 1:
            terms = [(m, c // g) for m, c in terms]
            const_ //= g
    return _intern_norm(op, make_form(terms if type(terms) is tuple else tuple(terms), const_))


def combination_norm(op: str, parts, const_: int = 0) -> "Norm | bool":
    """The normal form of ``sum(k * f for f, k in parts) + const_ op 0`` (``op`` in ``<=``, ``==``, ``!=``).

    Only the final form is built (the sum is never interned on the way): what
    :func:`relation_norm` does for two sides, for any number of them.

    >>> from symint import form as F
    >>> x, y = F.sym("x"), F.sym("y")
    >>> combination_norm("<=", [(x, 2), (y, -2)], 1) is relation_norm("<", x, y)
    True
    """
    coeffs: dict = {}
    for f, k in parts:
        const_ += k * f.const
        for m, c in f.terms:
            coeffs[m] = coeffs.get(m, 0) + k * c
    return _normal_norm(op, sorted_terms(coeffs), const_)


def normalise(op: str, p: "F.Form") -> "Norm | bool":
    """The normal form of ``p op 0`` (``op`` in ``<=``, ``==``, ``!=``), or a bool if it folds.

    >>> from symint import form as F
    >>> normalise("<=", F.add(F.scale(F.sym("x"), 2), F.const(1))).p
    Form(x + 1)
    """
    return _normal_norm(op, p.terms, p.const)


class BoolForm:
    """An interned boolean: a constant, a relation, a connective, or a wrapped sympy boolean.

    Attributes:
        kind: ``const``, ``rel``, ``and``, ``or``, ``not`` or ``opaque``.
        args: for ``rel`` ``(op, lhs, rhs)``; for connectives the operands; for ``opaque`` the wrapped boolean.
        norm: for ``rel``, the :class:`Norm` (or a bool when it folded).
        symbols: names of the symbols inside.
        opaque_value: for ``opaque``, its evaluator (Note [Opaque atoms carry their own meaning]
            in :mod:`symint.form.terms`).

    >>> from symint import form as F
    >>> c = and_(rel(">", F.sym("x"), F.const(2)), rel("<", F.sym("x"), F.const(9)))
    >>> c.kind, c
    ('and', BoolForm((x > 2) & (x < 9)))
    """

    __slots__ = ("kind", "args", "norm", "symbols", "_sympy", "value", "opaque_value", "__weakref__")

    def __init__(self, kind: str, args: tuple, norm=None, symbols: frozenset = frozenset(), value=None,
                 opaque_value: OpaqueValue | None = None):
        self.kind = kind
        self.args = args
        self.norm = norm
        self.symbols = symbols
        self._sympy = None  # the sympy view: written and read by symint.sympy_io only
        self.value = value
        self.opaque_value = opaque_value


    @property
    def is_const(self) -> bool:
        """Whether this is TRUE or FALSE."""
        return self.kind == "const"

    def evaluate(self, values: dict[str, int]) -> bool:
        """The truth value for integer ``values`` of the symbols (left-to-right ``and``/``or``).

        >>> from symint import form as F
        >>> rel("<", F.sym("x"), F.const(3)).evaluate({"x": 2})
        True
        """
        return evaluate_bool(self, values)

    def __repr__(self) -> str:
        return f"BoolForm({bool_text(self)})"


TRUE = BoolForm("const", (), value=True)
FALSE = BoolForm("const", (), value=False)


def bool_const(value: bool) -> BoolForm:
    """TRUE or FALSE."""
    return TRUE if value else FALSE


_RELS: dict[tuple, BoolForm] = {}
register_cache(_RELS)  # a memo: it is emptied when large already


def rel(op: str, lhs: "F.Form", rhs: "F.Form") -> BoolForm:
    """``lhs op rhs``: folded to TRUE/FALSE when the sides differ by a constant.

    >>> from symint import form as F
    >>> rel("==", F.sym("x"), F.sym("x")) is TRUE, rel("!=", F.sym("x"), F.const(1))
    (True, BoolForm(x != 1))
    """
    key = (op, lhs.uid, rhs.uid)
    found = _RELS.get(key)
    if found is not None:
        return found
    norm = relation_norm(op, lhs, rhs)
    if isinstance(norm, bool):  # the sides differ by a constant, or 2*x == 3 has no integer solution
        found = bool_const(norm)
    else:
        ls, rs = lhs.symbols, rhs.symbols  # shared sets: often one side's holds the other's (no union built)
        found = BoolForm("rel", (op, lhs, rhs), norm, ls if rs <= ls else (rs if ls <= rs else symbol_set(ls | rs)))
    if len(_RELS) > (1 << 17):
        _RELS.clear()
    return _RELS.setdefault(key, found)


_CONNECTIVES: dict[tuple, BoolForm] = {}
register_interned(_CONNECTIVES, lambda b: (b.kind, b.args))


def _connective(kind: str, args: tuple[BoolForm, ...]) -> BoolForm:
    key = (kind, args)
    found = _CONNECTIVES.get(key)
    if found is None:
        found = _CONNECTIVES.setdefault(key, BoolForm(kind, args, symbols=symbol_set(frozenset().union(*(a.symbols for a in args)))))
    return found


def and_(*args: BoolForm) -> BoolForm:
    """Conjunction in the written order (flattened; TRUE operands dropped; FALSE absorbs).

    >>> from symint import form as F
    >>> and_(TRUE, rel("<", F.sym("x"), F.const(3))), and_(FALSE, TRUE) is FALSE
    (BoolForm(x < 3), True)
    """
    return _flat_connective("and", args, TRUE, FALSE)


def or_(*args: BoolForm) -> BoolForm:
    """Disjunction in the written order (flattened; FALSE operands dropped; TRUE absorbs).

    >>> from symint import form as F
    >>> or_(rel("<", F.sym("x"), F.const(3)), TRUE) is TRUE
    True
    """
    return _flat_connective("or", args, FALSE, TRUE)


def _flat_connective(kind: str, args, unit: BoolForm, absorbing: BoolForm) -> BoolForm:
    """``kind`` over ``args``: nested ``kind`` flattened, ``unit`` dropped, repeats dropped, ``absorbing`` wins."""
    flat: list[BoolForm] = []
    seen: set[BoolForm] = set()  # identity: a set keeps a long chain linear
    for a in args:
        if a is absorbing:
            return absorbing
        if a is unit:
            continue
        for part in a.args if a.kind == kind else (a,):
            if part not in seen:
                seen.add(part)
                flat.append(part)
    if not flat:
        return unit
    if len(flat) == 1:
        return flat[0]
    return _connective(kind, tuple(flat))


_NEGATE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def not_(a: BoolForm) -> BoolForm:
    """Negation: a relation flips its operator (``not x < 3`` is ``x >= 3``).

    >>> from symint import form as F
    >>> not_(rel("<", F.sym("x"), F.const(3)))
    BoolForm(x >= 3)
    """
    if a.kind == "const":
        return bool_const(not a.value)
    if a.kind == "rel":
        op, lhs, rhs = a.args
        nop = _NEGATE[op]
        key = (nop, lhs.uid, rhs.uid)
        found = _RELS.get(key)
        if found is None:  # the negation's normal form is the relation's, negated: not computed again
            found = _RELS.setdefault(key, BoolForm("rel", (nop, lhs, rhs), a.norm.negated(), a.symbols))
        return found
    if a.kind == "not":
        return a.args[0]
    return _connective("not", (a,))


def opaque_bool(wrapped: Hashable, symbols: frozenset, value: OpaqueValue) -> BoolForm:
    """A boolean this module cannot represent (e.g. a sympy comparison of floats), wrapped.

    ``symbols`` are the names of its symbols, ``value(wrapped, values)`` its truth value
    (Note [Opaque atoms carry their own meaning] in :mod:`symint.form.terms`);
    :func:`symint.sympy_io.bool_from_sympy` wraps what it cannot convert.

    >>> b = opaque_bool("n is odd", frozenset({"n"}), lambda w, values: values["n"] % 2 == 1)
    >>> b.kind, b.evaluate({"n": 3}), b is opaque_bool("n is odd", frozenset({"n"}), None)
    ('opaque', True, True)
    """
    key = ("opaque", (wrapped,))  # (kind, args), as the sweep puts it back
    found = _CONNECTIVES.get(key)
    if found is None:
        found = _CONNECTIVES.setdefault(key, BoolForm("opaque", (wrapped,), symbols=symbol_set(symbols), opaque_value=value))
    return found
