"""``and``/``or`` of sympy booleans that keep the order they were written in.

Note [Ordered connectives]
    ``and``/``or`` that keep the order they were written in: Python evaluates them left to right.

    Sympy's ``And``/``Or`` sort their arguments. For pure booleans that is harmless,
    but a guard can *raise*: ``y == 0 or x // y == 2`` is True at ``y = 0`` in Python,
    while the sorted ``x // y == 2 or y == 0`` raises ``ZeroDivisionError`` there (and a
    guard that raises fails). So every connective built by :mod:`symint.build` is an
    :class:`OrderedAnd` / :class:`OrderedOr`: a subclass of sympy's class (every
    ``isinstance(e, sympy.And)`` keeps working, and reasoning that treats it as a
    commutative conjunction stays right) whose ``args`` are in evaluation order. The
    parser, the printers, ``symint.evaluate``, the compiled checkers and the Z3
    translation all read ``args`` in that order, so all of them follow Python's
    short-circuit semantics of the text as written.

Note [Folding connectives]
    Construction folds what is exact under short-circuit evaluation: nested
    connectives of the same kind are flattened in place, ``True`` operands of an
    ``and`` (``False`` of an ``or``) are dropped, a repeated operand keeps its first
    position. Like sympy, it also folds ``a and False`` to ``False`` (``a or True``
    to ``True``) and ``a and not a`` to ``False`` wherever they stand, and that is
    exact only where ``a`` does not raise: at a guard's top level a raise is a
    failure anyway, but under a ``not`` the folded form accepts an input on which
    the text as written raises. This is the widening of Note [Canonical forms] in
    :mod:`symint.sympy_io.functions`: every input on which the written guard has a value
    gets the same value; only the error is lost.

>>> import sympy
>>> x = sympy.Symbol("x", integer=True)
>>> ordered_or(sympy.Eq(x, 0), sympy.Lt(x, 5)).args, ordered_and(sympy.Lt(x, 5), sympy.true, sympy.Lt(x, 5))
((Eq(x, 0), x < 5), x < 5)
"""

from __future__ import annotations

import sympy
from sympy.core.basic import Basic
from sympy.core.relational import Relational
from sympy.core.sympify import _sympify

__all__ = ["OrderedAnd", "OrderedOr", "ordered_and", "ordered_or"]


def _fold(cls: type, args: tuple, kind: type, zero: sympy.Basic, identity: sympy.Basic) -> sympy.Basic:
    """The folded connective of ``args`` (Note [Folding connectives])."""
    flat: list[sympy.Basic] = []
    seen: set[sympy.Basic] = set()
    canonical: set[sympy.Basic] = set()
    stack = [iter(args)]
    while stack:
        for a in stack[-1]:
            a = _sympify(a)
            if isinstance(a, kind):  # ours or sympy's own: splice its arguments here, in their order
                stack.append(iter(a.args))
                break
            if a == zero:
                return zero
            if a == identity or a in seen:
                continue
            if isinstance(a, Relational):
                c = a.canonical
                if c in canonical:
                    continue
                if c.negated.canonical in canonical:
                    return zero
                canonical.add(c)
            seen.add(a)
            flat.append(a)
        else:
            stack.pop()
    if not flat:
        return identity
    if len(flat) == 1:
        return flat[0]
    obj = Basic.__new__(cls, *flat)
    obj._argset = frozenset(flat)  # what sympy's LatticeOp.make_args reads
    return obj


class OrderedAnd(sympy.And):
    """``a and b and ...`` with its arguments in evaluation order (Note [Ordered connectives]).

    >>> import sympy
    >>> x = sympy.Symbol("x", integer=True)
    >>> OrderedAnd(sympy.Lt(x, 3), sympy.Gt(x, 0)).args
    (x < 3, x > 0)
    """

    def __new__(cls, *args: sympy.Basic, **options: object) -> sympy.Basic:
        return _fold(cls, args, sympy.And, sympy.false, sympy.true)


class OrderedOr(sympy.Or):
    """``a or b or ...`` with its arguments in evaluation order (Note [Ordered connectives]).

    >>> import sympy
    >>> x = sympy.Symbol("x", integer=True)
    >>> OrderedOr(sympy.Lt(x, 3), sympy.true)
    True
    """

    def __new__(cls, *args: sympy.Basic, **options: object) -> sympy.Basic:
        return _fold(cls, args, sympy.Or, sympy.true, sympy.false)


def ordered_and(*args: sympy.Basic) -> sympy.Basic:
    """The conjunction of ``args`` in the order given.

    >>> import sympy
    >>> ordered_and(sympy.true, sympy.false)
    False
    """
    return OrderedAnd(*args)


def ordered_or(*args: sympy.Basic) -> sympy.Basic:
    """The disjunction of ``args`` in the order given.

    >>> import sympy
    >>> ordered_or(sympy.false, sympy.false)
    False
    """
    return OrderedOr(*args)
