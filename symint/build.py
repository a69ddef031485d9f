"""Memoised construction of canonical sympy expressions with Python semantics.

Every symbolic operation in the library goes through these functions: the
``SymInt`` dunders, the guard parsers and the shape rules. They take sympy
expressions and return sympy expressions, fold constants, and are cached by
their arguments (they are pure), so building the same expression twice costs a
dictionary lookup.

Note [Built on first call]
    This module imports no sympy: the first build imports it, and the sympy nodes of
    :mod:`symint.sympy_io` (Note [sympy on first use] in :mod:`symint.lazy_sympy`). So
    the modules that build views only off the hot path (the sympy fallbacks of
    :mod:`symint.values`, the guard parsers) may import this one at their top.

>>> x, y = symbol_expr("x"), symbol_expr("y")
>>> add(mul(x, 2), y), floordiv(mul(x, 4), 2), mod(mul(x, 2), 2), lt(x, add(x, 1))
(2*x + y, 2*x, 0, True)
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from symint.form.semantics import RELATIONS as _COMPARE  # Python's comparison per relation operator
from symint.lazy_sympy import lazy_module, sympy

__all__ = [
    "symbol_expr",
    "as_expr",
    "is_bool_expr",
    "add",
    "sub",
    "mul",
    "neg",
    "abs_",
    "floordiv",
    "ceildiv",
    "mod",
    "truediv",
    "float_pow",
    "pow_",
    "max_",
    "min_",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "and_",
    "or_",
    "not_",
    "ite",
    "RELATIONS",
    "RELATIONS_BY_OP",
    "symbol_name",
]

_CACHE_SIZE = 1 << 16


# The sympy nodes, imported by the first build (Note [Built on first call]; Note [sympy on first use] in symint.lazy_sympy).
_io = lazy_module("symint.sympy_io.functions")
_limits = lazy_module("symint.sympy_io.limits")
_connectives = lazy_module("symint.sympy_io.connectives")


def symbol_expr(name: str) -> sympy.Symbol:
    """The sympy view of the integer symbol ``name`` (:func:`symint.sympy_io.functions.symbol_expr`).

    >>> symbol_expr("x").is_integer
    True
    """
    return _io.symbol_expr(name)


def symbol_name(key: object) -> str | None:
    """The name a symbol key stands for: a name (any non-empty string) or a sympy ``Symbol``; None for anything else.

    Answers without importing sympy (a sympy Symbol says ``is_Symbol``).

    >>> symbol_name("s0"), symbol_name(symbol_expr("u1")), symbol_name(symbol_expr("u1") + 1), symbol_name(3)
    ('s0', 'u1', None, None)
    """
    if type(key) is str:
        return key or None
    return key.name if getattr(key, "is_Symbol", False) is True else None


def as_expr(value: object) -> sympy.Basic:
    """Convert a Python int/bool/float or a sympy expression to a sympy expression.

    Strings are refused: text goes through a parser, never through ``sympify``.

    >>> as_expr(3), as_expr(True), as_expr(0.5)
    (3, True, 0.500000000000000)
    """
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, bool):
        return sympy.true if value else sympy.false
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, float):
        return sympy.Float(value)
    raise TypeError(f"cannot use {type(value).__name__} {value!r} in a symbolic expression")


def is_bool_expr(expr: sympy.Basic) -> bool:
    """Whether ``expr`` is boolean-valued (a relation, a connective, True or False).

    >>> is_bool_expr(lt(symbol_expr("x"), 3)), is_bool_expr(symbol_expr("x"))
    (True, False)
    """
    # Not ``isinstance(expr, Boolean)``: sympy's Symbol subclasses Boolean.
    return isinstance(expr, _boolean_types())


def _boolean_types() -> tuple:
    boolalg = sympy.logic.boolalg
    return sympy.Rel, boolalg.BooleanFunction, boolalg.BooleanAtom


@lru_cache(maxsize=_CACHE_SIZE)
def _add(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _limits.check_folded(a + b)  # Note [Where the limits are checked] in symint.sympy_io.limits


def add(a, b) -> sympy.Expr:
    """``a + b``.

    >>> add(symbol_expr("x"), 1)
    x + 1
    """
    return _add(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _sub(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _limits.check_folded(a - b)  # Note [Where the limits are checked] in symint.sympy_io.limits


def sub(a, b) -> sympy.Expr:
    """``a - b``; ``x - x`` is 0.

    >>> sub(symbol_expr("x"), symbol_expr("x"))
    0
    """
    return _sub(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _mul(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _limits.check_folded(a * b)  # Note [Where the limits are checked] in symint.sympy_io.limits


def mul(a, b) -> sympy.Expr:
    """``a * b``.

    >>> mul(symbol_expr("x"), 3)
    3*x
    """
    return _mul(as_expr(a), as_expr(b))


def neg(a) -> sympy.Expr:
    """``-a``.

    >>> neg(symbol_expr("x"))
    -x
    """
    return _mul(as_expr(a), sympy.Integer(-1))


def abs_(a) -> sympy.Expr:
    """``abs(a)``, as ``Max(a, -a)`` so that only this package's functions appear.

    >>> abs_(-3), abs_(symbol_expr("x"))
    (3, Max(-x, x))
    """
    a = as_expr(a)
    return _max(a, _mul(a, sympy.Integer(-1)))


@lru_cache(maxsize=_CACHE_SIZE)
def _floordiv(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _io.FloorDiv(a, b)


def floordiv(a, b) -> sympy.Expr:
    """``a // b`` with Python semantics (ZeroDivisionError for a constant 0 divisor).

    >>> floordiv(-7, 2), floordiv(symbol_expr("x"), 2)
    (-4, FloorDiv(x, 2))
    """
    return _floordiv(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _ceildiv(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _io.CeilDiv(a, b)


def ceildiv(a, b) -> sympy.Expr:
    """``-(-a // b)``.

    >>> ceildiv(7, 2)
    4
    """
    return _ceildiv(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _mod(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _io.Mod(a, b)


def mod(a, b) -> sympy.Expr:
    """``a % b`` with Python semantics (the result has the divisor's sign).

    >>> mod(-7, 3), mod(7, -3)
    (2, -2)
    """
    return _mod(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _truediv(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    # Structural integrality, not ``is_integer``: sympy says Float(0.0).is_integer is True.
    if _io._is_zero_number(b):
        raise ZeroDivisionError(f"{a} / {b}: division by zero")
    if _io._is_integer_valued(a) and _io._is_integer_valued(b):
        return _io.IntTrueDiv(a, b)
    return a / b


def truediv(a, b) -> sympy.Expr:
    """``a / b`` as a float expression.

    >>> truediv(7, 2), truediv(symbol_expr("x"), 2), truediv(symbol_expr("x"), 2.0)
    (3.50000000000000, IntTrueDiv(x, 2), 0.5*x)
    """
    return _truediv(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _pow(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    _limits.check_fold_power(a, b)  # before folding: PowByNatural(2, 10**9) must never be computed
    return _limits.check_folded(_pow_folded(a, b))


def _pow_folded(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    if isinstance(b, sympy.Integer):
        k = int(b)
        if k >= 0:
            return _io.PowByNatural(a, b)
        if _io._is_zero_number(a):
            raise ZeroDivisionError("0 cannot be raised to a negative power")
        return _truediv(sympy.Integer(1), _io.PowByNatural(a, sympy.Integer(-k)))
    if _io._is_integer_valued(a) and _io._is_integer_valued(b):
        return _io.PowByNatural(a, b)
    return a**b


def pow_(a, b) -> sympy.Expr:
    """``a ** b``: an integer power for a natural exponent, else a float.

    A symbolic integer exponent is taken to be natural; the caller (``SymInt``)
    guards that first.

    >>> x = symbol_expr("x")
    >>> pow_(x, 2), pow_(2, 3), pow_(2, -1)
    (x**2, 8, 0.500000000000000)
    """
    return _pow(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _float_pow(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    if isinstance(b, sympy.Integer):  # a constant exponent: the integer power (1 / power when negative) is exact
        return _pow(a, b)
    _limits.check_fold_power(a, b)
    return _limits.check_folded(a**b)


def float_pow(a, b) -> sympy.Expr:
    """``a ** b`` where either side is a float: the real power, never ``PowByNatural``.

    ``sym_float(a) ** sym_float(b)`` keeps the integer expressions of ``a`` and ``b``
    (a float needs no ``ToFloat``), so :func:`pow_` would read them as a natural power;
    at ``b = -1`` that is wrong (torch builds a real power too).

    >>> x, y = symbol_expr("x"), symbol_expr("y")
    >>> float_pow(x, y), float_pow(x, -1), float_pow(2, 3)
    (x**y, IntTrueDiv(1, x), 8)
    """
    return _float_pow(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _max(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _io.Max(a, b)


def max_(a, b) -> sympy.Expr:
    """The symbolic ``max`` (never a guard).

    >>> max_(symbol_expr("x"), 2)
    Max(2, x)
    """
    return _max(as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _min(a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _io.Min(a, b)


def min_(a, b) -> sympy.Expr:
    """The symbolic ``min`` (never a guard).

    >>> min_(4, -1)
    -1
    """
    return _min(as_expr(a), as_expr(b))


def _fold_relation(rel: type[sympy.core.relational.Relational], a: sympy.Expr, b: sympy.Expr):
    # Note [Folding relations]
    # ``x < x + 1`` is True for every integer ``x``: a relation whose sides differ by
    # a constant is decided by that constant. That reasoning is real arithmetic, so
    # it is only done on exact (integer/rational) expressions: with floats,
    # ``0.5*x + 1 > 0.5*x`` is False at x = 2**60 and ``x + 0.1 + 0.2 == x + 0.3``
    # depends on x. Two numbers are compared as Python compares them
    # (``1.0 == 1``, which sympy >= 1.13 calls False).
    if a.is_Number and b.is_Number:
        return sympy.true if _COMPARE[rel.rel_op](_py_number(a), _py_number(b)) else sympy.false
    if a == b:
        return sympy.true if rel in (sympy.Eq, sympy.Le, sympy.Ge) else sympy.false
    diff = _sub(a, b)  # cached: the decision pipeline asks for the same difference
    if diff.is_Rational and _is_exact(a) and _is_exact(b):
        return sympy.true if _COMPARE[rel.rel_op](_py_number(diff), 0) else sympy.false
    return rel(a, b, evaluate=False)


def _py_number(n: sympy.Expr) -> int | float | Fraction:
    if isinstance(n, sympy.Integer):
        return int(n)
    if isinstance(n, sympy.Rational):
        return Fraction(int(n.p), int(n.q))
    return float(n)


def _is_exact(e: sympy.Expr) -> bool:
    """No floats inside: sympy's algebra on ``e`` is exact."""
    return not e.has(sympy.Float, _io.IntTrueDiv)


@lru_cache(maxsize=_CACHE_SIZE)
def _relation(rel, a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    if isinstance(a, _boolean_types()) or isinstance(b, _boolean_types()):
        if rel not in (sympy.Eq, sympy.Ne):
            raise TypeError(f"cannot order booleans: {a} {rel.rel_op} {b}")
        c = _connectives
        same = c.ordered_or(c.ordered_and(a, b), c.ordered_and(sympy.Not(a), sympy.Not(b)))
        return same if rel is sympy.Eq else sympy.Not(same)
    return _fold_relation(rel, a, b)


def eq(a, b) -> sympy.Basic:
    """``a == b`` (folded to True/False when the difference is a constant).

    >>> x = symbol_expr("x")
    >>> eq(x, x), eq(x, 2)
    (True, Eq(x, 2))
    """
    return _relation(sympy.Eq, as_expr(a), as_expr(b))


def ne(a, b) -> sympy.Basic:
    """``a != b``.

    >>> ne(symbol_expr("x"), 1)
    Ne(x, 1)
    """
    return _relation(sympy.Ne, as_expr(a), as_expr(b))


def lt(a, b) -> sympy.Basic:
    """``a < b``.

    >>> lt(symbol_expr("x"), 1)
    x < 1
    """
    return _relation(sympy.Lt, as_expr(a), as_expr(b))


def le(a, b) -> sympy.Basic:
    """``a <= b``.

    >>> le(symbol_expr("x"), 1)
    x <= 1
    """
    return _relation(sympy.Le, as_expr(a), as_expr(b))


def gt(a, b) -> sympy.Basic:
    """``a > b``.

    >>> gt(symbol_expr("x"), 1)
    x > 1
    """
    return _relation(sympy.Gt, as_expr(a), as_expr(b))


def ge(a, b) -> sympy.Basic:
    """``a >= b``.

    >>> ge(symbol_expr("x"), 1)
    x >= 1
    """
    return _relation(sympy.Ge, as_expr(a), as_expr(b))


#: Relation name (as in ``operator``) -> builder.
RELATIONS = {"eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge}

#: Relation operator (sympy's ``rel_op``) -> builder, for rebuilding a relation from its sides.
RELATIONS_BY_OP = {"==": eq, "!=": ne, "<": lt, "<=": le, ">": gt, ">=": ge}


def _check_bool(e: sympy.Basic) -> sympy.Basic:
    if not isinstance(e, _boolean_types()):
        raise TypeError(f"expected a boolean expression, got {e}")
    return e


def and_(*args) -> sympy.Basic:
    """Conjunction, its arguments kept in evaluation order (Note [Ordered connectives] in :mod:`symint.sympy_io.connectives`).

    >>> x = symbol_expr("x")
    >>> and_(lt(x, 3), True), and_(lt(x, 3), False)
    (x < 3, False)
    """
    return _and(*(_check_bool(as_expr(a)) for a in args))


@lru_cache(maxsize=_CACHE_SIZE)
def _and(*args: sympy.Basic) -> sympy.Basic:
    return _connectives.ordered_and(*args)


def or_(*args) -> sympy.Basic:
    """Disjunction, its arguments kept in evaluation order (Note [Ordered connectives] in :mod:`symint.sympy_io.connectives`).

    >>> or_(lt(symbol_expr("x"), 3), True)
    True
    """
    return _or(*(_check_bool(as_expr(a)) for a in args))


@lru_cache(maxsize=_CACHE_SIZE)
def _or(*args: sympy.Basic) -> sympy.Basic:
    return _connectives.ordered_or(*args)


@lru_cache(maxsize=_CACHE_SIZE)
def _not(a: sympy.Basic) -> sympy.Basic:
    return sympy.Not(a)


def not_(a) -> sympy.Basic:
    """Negation (``Not(x < 3)`` becomes ``x >= 3``).

    >>> not_(lt(symbol_expr("x"), 3))
    x >= 3
    """
    return _not(_check_bool(as_expr(a)))


def ite(c, a, b) -> sympy.Expr:
    """``a if c else b``.

    >>> ite(True, 1, 2), ite(lt(symbol_expr("x"), 0), 1, 1)
    (1, 1)
    """
    return _ite(_check_bool(as_expr(c)), as_expr(a), as_expr(b))


@lru_cache(maxsize=_CACHE_SIZE)
def _ite(c: sympy.Basic, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr:
    return _io.IfThenElse(c, a, b)


