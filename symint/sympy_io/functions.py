"""Integer sympy functions with Python semantics.

Shape code divides, takes remainders and clamps. Sympy's own ``floor``, ``Mod``,
``Max`` and ``Min`` either differ from Python on negative operands or spend their
time in assumption queries, so this module defines small replacements whose
``eval`` does only cheap, exact rewrites and whose value on concrete integers is
exactly what Python computes for every sign combination:

=========================  ===================================================
``FloorDiv(a, b)``         ``a // b`` (rounds toward -oo)
``CeilDiv(a, b)``          ``-(-a // b)``
``Mod(a, b)``              ``a % b`` (the result takes the sign of ``b``)
``Max(*xs)``/``Min(*xs)``  ``max``/``min`` (never queries assumptions)
``PowByNatural(a, b)``     ``a ** b`` for ``b >= 0``
``IntTrueDiv(a, b)``       ``a / b`` as a float
``FloorToInt(x)``          ``math.floor(x)``; ``CeilToInt(x)``: ``math.ceil(x)``
``IfThenElse(c, a, b)``    ``a if c else b``
=========================  ===================================================

A zero divisor raises :class:`ZeroDivisionError`, as Python does, as soon as the
divisor is the constant 0 (or 0.0).

Note [Canonical forms]
    ``FloorDiv``, ``CeilDiv`` and ``Mod`` have one definition of their rewrites: the
    form rules of :mod:`symint.form.arith` (Note [One definition of the rewrites]). Their
    ``eval`` converts the arguments to forms, applies ``floordiv``/``ceildiv``/``mod`` and
    returns the sympy view of the result, or stays as written when that is the node
    itself. The rules are exact for *every* integer value of the symbols, so they need
    no facts: ``(b*x + y) // b -> x + y // b``, ``Mod(b*x + y, b) -> Mod(y, b)``, a common
    factor cancels (``FloorDiv(4*x, 6) -> FloorDiv(2*x, 3)``, ``Mod(3*x, 6) -> 3*Mod(x, 2)``),
    ``(x // c1) // c2 -> x // (c1*c2)`` for ``c2 > 0``, nested ``Mod`` folds. Facts such
    as ``x >= 0`` are the environment's business, not this module's. An argument that is
    not an integer form (a float, ``4/x``, a non-integer symbol) leaves the node as
    written, but for the zero divisor, which raises.

    "Integer-valued" is decided by structure (:func:`_is_integer_valued`), never
    by sympy's assumptions: ``4/x`` or ``1.5*x`` must not be split off a floor
    division, and a ``Max`` of floats is not an integer.

    One deliberate widening: a rewrite may give a value where the original
    divides by zero. ``FloorDiv(x*y, x) -> y``, ``FloorDiv(x, x) -> 1`` and
    ``Mod(x, x) -> 0`` are exact for every ``x != 0``, but at ``x == 0`` Python
    raises and the rewritten expression does not. This is sympy's and torch's
    convention too. Every input on which the original expression has a value
    gets the same value from the rewritten one; what is lost is only the error:
    a guard set built from the rewritten form does not reject an input on which
    the original program would have raised ``ZeroDivisionError``.

Note [One definition of the rewrites]
    The sympy nodes are the printable view of forms (:mod:`symint.sympy_io`), so the
    rules live once, on forms, and the nodes ask them through the converter
    (:func:`symint.sympy_io.division_by_forms`). The forms build their view with these
    nodes, so the dependency is mutual: this module reaches the forms only through its
    own package, as a module read when ``eval`` runs (Note [Import order of form and
    sympy_io] in :mod:`symint.sympy_io`). Building the view of a form builds these nodes
    from canonical arguments, for which ``eval`` finds the same interned atom and keeps
    the node: no loop. ``Max``/``Min`` keep their own fold
    (flatten, fold numbers, drop repeats, sort): the same lattice normalisation as the
    forms', which also serves ``Max`` of floats, and which sorts by sympy's print key.

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
"""

from __future__ import annotations

import math
from functools import lru_cache

import sympy
from sympy.core.basic import Basic
from sympy.core.relational import Relational
from sympy.core.sorting import default_sort_key
from sympy.core.sympify import _sympify

from .. import sympy_io as _io  # Note [One definition of the rewrites]: the package, read when eval runs

__all__ = [
    "symbol_expr",
    "OrderedAnd",
    "OrderedOr",
    "ordered_and",
    "ordered_or",
    "FloorDiv",
    "CeilDiv",
    "Mod",
    "Max",
    "Min",
    "PowByNatural",
    "IntTrueDiv",
    "FloorToInt",
    "CeilToInt",
    "IfThenElse",
    "modular_indexing",
    "INTEGER_FUNCTIONS",
]


def _int_or_none(e: sympy.Basic) -> int | None:
    """The Python int an expression stands for, or None if it is not an integer literal."""
    return int(e) if isinstance(e, sympy.Integer) else None


@lru_cache(maxsize=1 << 14)
def _is_integer_valued(e: sympy.Basic) -> bool:
    """Whether ``e`` is an integer for every integer value of its symbols, judged by structure.

    Conservative (False means "not known to be"). It asks sympy's assumption
    system nothing but a symbol's own ``integer`` flag: floats, ``IntTrueDiv``,
    rationals and negative or symbolic powers are not integer-valued.

    >>> x = sympy.Symbol("x", integer=True)
    >>> _is_integer_valued(3*x**2 + FloorDiv(x, 2)), _is_integer_valued(x/2), _is_integer_valued(2.0*x)
    (True, False, False)
    """
    if isinstance(e, sympy.Integer):
        return True
    if e.is_Symbol:
        return e.is_integer is True
    if isinstance(e, (FloorDiv, CeilDiv, FloorToInt, CeilToInt)):
        return True
    if isinstance(e, (sympy.Add, sympy.Mul, Mod, Max, Min)):
        return all(_is_integer_valued(arg) for arg in e.args)
    if isinstance(e, PowByNatural):
        return _is_integer_valued(e.args[0])
    if isinstance(e, sympy.Pow):
        exp = e.exp
        return isinstance(exp, sympy.Integer) and int(exp) >= 0 and _is_integer_valued(e.base)
    if isinstance(e, IfThenElse):
        return _is_integer_valued(e.args[1]) and _is_integer_valued(e.args[2])
    return False


def _is_zero_number(e: sympy.Basic) -> bool:
    """Whether ``e`` is the number zero; sympy 1.13+ says ``Float(0.0) != 0``, so ``== 0`` will not do."""
    return bool(e.is_Number) and not e


class _IntegerFunction(sympy.Function):
    """Common base: integer-valued, printed by name, never expanded by sympy."""

    is_integer = True
    is_real = True
    is_finite = True


class _IntegerIfArguments(sympy.Function):
    """Common base of ``Mod``, ``Max``, ``Min`` and ``PowByNatural``: integers when their arguments are.

    ``Mod(x + 0.5, 2)`` or ``Max(s / 2, 1)`` is a float, so these may not claim
    ``is_integer`` unconditionally (``FloorToInt`` would then drop its floor).
    """

    def _eval_is_integer(self):
        return _fuzzy_all(a.is_integer for a in self.args)

    def _eval_is_real(self):
        return _fuzzy_all(a.is_real for a in self.args)

    def _eval_is_finite(self):
        return _fuzzy_all(a.is_finite for a in self.args)


def _fuzzy_all(values) -> bool | None:
    """True if all are True, False if any is False, else None (sympy's three-valued ``and``)."""
    result: bool | None = True
    for v in values:
        if v is False:
            return False
        if v is None:
            result = None
    return result


class FloorDiv(_IntegerFunction):
    """Python floor division ``a // b`` of integers.

    >>> x = sympy.Symbol("x", integer=True)
    >>> FloorDiv(-7, 2), FloorDiv(7, -2), FloorDiv(4*x, 2), FloorDiv(FloorDiv(x, 2), 3)
    (-4, -4, 2*x, FloorDiv(x, 6))
    """

    nargs = (2,)

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        return _by_forms(cls, "floordiv", a, b)


class CeilDiv(_IntegerFunction):
    """Ceiling division ``-(-a // b)`` of integers.

    >>> CeilDiv(7, 2), CeilDiv(-7, 2), CeilDiv(7, -2)
    (4, -3, -3)
    """

    nargs = (2,)

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        return _by_forms(cls, "ceildiv", a, b)


def _by_forms(cls, kind: str, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
    """``cls(a, b)`` rewritten by the form rule ``kind`` (Note [One definition of the rewrites]), or None to keep it.

    >>> x = sympy.Symbol("x", integer=True)
    >>> _by_forms(Mod, "mod", 3*x, sympy.Integer(6)), _by_forms(Mod, "mod", x, sympy.Integer(6))
    (3*(Mod(x, 2)), None)
    """
    if _is_zero_number(b):
        raise ZeroDivisionError(f"{cls.__name__}({a}, 0): integer {'modulo' if kind == 'mod' else 'division'} by zero")
    return _io.division_by_forms(kind, a, b)


class Mod(_IntegerIfArguments):
    """Python modulo ``a % b``: the result has the sign of ``b``.

    >>> x = sympy.Symbol("x", integer=True)
    >>> Mod(-7, 3), Mod(7, -3), Mod(2*x, 2), Mod(4*x + 5, 4), Mod(x + 9, 4), Mod(Mod(x, 8), 4)
    (2, -2, 0, 1, Mod(x + 1, 4), Mod(x, 4))
    >>> Mod(Mod(x, 4), 8), Mod(Mod(x, 4), -8), Mod(3*x, 6)
    (Mod(x, 4), Mod(Mod(x, 4), -8), 3*(Mod(x, 2)))
    """

    nargs = (2,)

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        return _by_forms(cls, "mod", a, b)


class _MinMax(_IntegerIfArguments):
    """Shared evaluation of Max/Min: flatten, fold constants, dedupe, sort.

    Not an ``_IntegerFunction``: ``Max`` of floats (``sym_max(s / 2, 1)``) is a
    float, so integrality is derived from the arguments.
    """

    _pick = max
    _absorbing: sympy.Expr = sympy.S.Infinity  # max(oo, x) == oo
    _neutral: sympy.Expr = sympy.S.NegativeInfinity  # max(-oo, x) == x

    @classmethod
    def eval(cls, *args: sympy.Expr) -> sympy.Expr | None:
        if not args:
            raise TypeError(f"{cls.__name__} expected at least 1 argument, got 0")
        flat: list[sympy.Expr] = []
        for arg in args:
            flat.extend(arg.args if isinstance(arg, cls) else (arg,))
        numbers = [x for x in flat if x.is_Number]
        symbolic = list(dict.fromkeys(x for x in flat if not x.is_Number))
        if numbers:
            best = cls._pick(numbers)
            if not symbolic or best is cls._absorbing:
                return best
            if best is not cls._neutral:
                symbolic.append(best)
        if len(symbolic) == 1:
            return symbolic[0]
        ordered = sorted(symbolic, key=default_sort_key)
        if len(ordered) != len(args) or any(x is not y for x, y in zip(ordered, args)):
            return cls(*ordered, evaluate=False)
        return None


class Max(_MinMax):
    """``max`` of integers; never asks sympy's assumption system anything.

    >>> x = sympy.Symbol("x", integer=True)
    >>> Max(3, x, 5, Max(x, 2))
    Max(5, x)
    """

    _pick = max


class Min(_MinMax):
    """``min`` of integers; never asks sympy's assumption system anything.

    >>> Min(3, -4, 7), Min(sympy.Symbol("x", integer=True), -sympy.oo)
    (-4, -oo)
    """

    _pick = min
    _absorbing = sympy.S.NegativeInfinity
    _neutral = sympy.S.Infinity


class PowByNatural(_IntegerIfArguments):
    """``a ** b`` for a natural exponent ``b``; Python's ``0 ** 0 == 1``.

    >>> PowByNatural(-2, 3), PowByNatural(0, 0)
    (-8, 1)
    """

    nargs = (2,)

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        ai, bi = _int_or_none(a), _int_or_none(b)
        if bi is not None and bi < 0:
            raise ValueError(f"PowByNatural({a}, {b}): the exponent must be >= 0")
        if bi is not None:
            if ai is not None:
                return sympy.Integer(ai**bi)
            return sympy.Integer(1) if bi == 0 else a**bi
        if ai == 1:
            return sympy.Integer(1)
        return None


class IntTrueDiv(sympy.Function):
    """Python true division ``a / b`` of two integers, a float.

    >>> IntTrueDiv(7, 2), IntTrueDiv(-1, 4)
    (3.50000000000000, -0.250000000000000)
    """

    nargs = (2,)
    is_real = True
    is_finite = True

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        ai, bi = _int_or_none(a), _int_or_none(b)
        if _is_zero_number(b):
            raise ZeroDivisionError(f"IntTrueDiv({a}, 0): division by zero")
        if ai is not None and bi is not None:
            return sympy.Float(ai / bi)
        return None


class FloorToInt(_IntegerFunction):
    """``math.floor`` of a float expression.

    >>> FloorToInt(sympy.Float(-2.5)), FloorToInt(sympy.Rational(-7, 2))
    (-3, -4)
    """

    nargs = (1,)

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if isinstance(x, sympy.Rational):  # Integer included: exact, even past 2**53
            return sympy.Integer(x.p // x.q)
        if x.is_Float:
            return sympy.Integer(math.floor(float(x)))
        if _is_integer_valued(x):
            return x
        return None


class CeilToInt(_IntegerFunction):
    """``math.ceil`` of a float expression.

    >>> CeilToInt(sympy.Float(-2.5)), CeilToInt(sympy.Rational(7, 2))
    (-2, 4)
    """

    nargs = (1,)

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if isinstance(x, sympy.Rational):
            return sympy.Integer(-(-x.p // x.q))
        if x.is_Float:
            return sympy.Integer(math.ceil(float(x)))
        if _is_integer_valued(x):
            return x
        return None


class IfThenElse(sympy.Function):
    """``a if c else b`` for a boolean expression ``c``.

    >>> x = sympy.Symbol("x", integer=True)
    >>> IfThenElse(sympy.true, x, 3), IfThenElse(x > 0, 3, 3)
    (x, 3)
    """

    nargs = (3,)

    @classmethod
    def eval(cls, c: sympy.Basic, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        if c is sympy.true:
            return a
        if c is sympy.false:
            return b
        if a == b:
            return a
        return None

    def _eval_is_integer(self):
        return (self.args[1].is_integer and self.args[2].is_integer) or None


def modular_indexing(a: sympy.Expr, divisor: sympy.Expr | int, modulus: sympy.Expr | int) -> sympy.Expr:
    """``(a // divisor) % modulus``: the index of ``a`` within a dimension of a reshaped tensor.

    >>> x = sympy.Symbol("x", integer=True)
    >>> modular_indexing(x, 4, 8)
    Mod(FloorDiv(x, 4), 8)
    """
    return Mod(FloorDiv(a, divisor), modulus)


#: Every function class defined here, by name (used by printers, parsers and translators).
INTEGER_FUNCTIONS: dict[str, type[sympy.Function]] = {
    cls.__name__: cls
    for cls in (FloorDiv, CeilDiv, Mod, Max, Min, PowByNatural, IntTrueDiv, FloorToInt, CeilToInt, IfThenElse)
}


# -- symbols and ordered connectives ------------------------------------------------------------------
@lru_cache(maxsize=None)
def symbol_expr(name: str) -> sympy.Symbol:
    """The integer sympy symbol called ``name`` (the same object every time).

    >>> symbol_expr("s0") is symbol_expr("s0"), symbol_expr("s0").is_integer
    (True, True)
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"symbol names must be Python identifiers, got {name!r}")
    return sympy.Symbol(name, integer=True)


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
