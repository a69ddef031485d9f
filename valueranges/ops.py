"""Interval arithmetic: one pure function per operator, from ranges of the operands to the range of the result.

Every function is *sound*: for any values ``x`` in ``a`` and ``y`` in ``b`` for
which Python computes ``op(x, y)`` without raising, the result lies in
``op(a, b)``. Most are also *tight* on integer ranges (the result is the hull of
the attainable values); ``mod`` and ``pow_`` with a non-constant exponent are
the exceptions. Booleans take part in arithmetic as 0 and 1, as in Python.

Names follow :mod:`symint.build`: ``max_``, ``min_``, ``abs_``, ``pow_``,
``and_``, ``or_``, ``not_`` have a trailing underscore so as not to shadow
built-ins. The division family lives in :mod:`valueranges.division` and is
re-exported here.

>>> from valueranges import ValueRanges as VR
>>> str(mul(VR.of(-2, 3), VR.of(4, 5))), str(lt(VR.of(2, 5), VR.of(6, 9)))
('[-10, 15]', '[True, True]')
"""

from __future__ import annotations

from ._endpoints import (
    FALSE,
    ONE,
    TRUE,
    UNKNOWN,
    UNKNOWN_BOOL,
    add_end,
    ceil_end,
    floor_end,
    int_bounds,
    mul_end,
    numeric,
    pow_end,
)
from .division import ceildiv, floordiv, int_truediv, mod, truediv
from .errors import RangeKindError
from .interval import ValueRanges

__all__ = [
    "add",
    "sub",
    "neg",
    "mul",
    "floordiv",
    "ceildiv",
    "mod",
    "truediv",
    "int_truediv",
    "pow_",
    "max_",
    "min_",
    "abs_",
    "floor_to_int",
    "ceil_to_int",
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
]


# -- arithmetic ---------------------------------------------------------------------------------


def add(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a + b``.

    Args:
        a, b: the operands' ranges.

    Returns:
        ``[a.lower + b.lower, a.upper + b.upper]``.

    >>> from valueranges import ValueRanges as VR
    >>> str(add(VR.of(1, 2), VR.of(-5, float("inf"))))
    '[-4, oo]'
    """
    if a.is_bool or b.is_bool:
        a, b = numeric(a), numeric(b)
    try:
        return ValueRanges(add_end(a.lower, b.lower), add_end(a.upper, b.upper))
    except OverflowError:
        return UNKNOWN


def sub(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a - b``.

    Args:
        a, b: the operands' ranges (independent: bound ``x - x`` as an expression instead).

    Returns:
        ``[a.lower - b.upper, a.upper - b.lower]``.

    >>> from valueranges import ValueRanges as VR
    >>> str(sub(VR.of(1, 2), VR.of(0, 5)))
    '[-4, 2]'
    """
    if a.is_bool or b.is_bool:
        a, b = numeric(a), numeric(b)
    try:
        return ValueRanges(add_end(a.lower, -b.upper), add_end(a.upper, -b.lower))
    except OverflowError:
        return UNKNOWN


def neg(a: ValueRanges) -> ValueRanges:
    """``-a``.

    Args:
        a: the operand's range.

    Returns:
        ``[-a.upper, -a.lower]``.

    >>> from valueranges import ValueRanges as VR
    >>> str(neg(VR.of(2, float("inf"))))
    '[-oo, -2]'
    """
    return ValueRanges(-a.upper, -a.lower)


def mul(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a * b``, for every sign combination; ``0 * oo`` counts as 0.

    Args:
        a, b: the operands' ranges (independent: ``x * x`` is ``pow_(x, 2)``).

    Returns:
        The hull of the four corner products.

    >>> from valueranges import ValueRanges as VR
    >>> str(mul(VR.of(-2, 3), VR.of(-5, 4))), str(mul(VR.exact(0), VR.unknown()))
    ('[-15, 12]', '[0, 0]')
    """
    if a.is_bool or b.is_bool:
        a, b = numeric(a), numeric(b)
    al, au, bl, bu = a.lower, a.upper, b.lower, b.upper
    try:
        if al >= 0 and bl >= 0:
            return ValueRanges(mul_end(al, bl), mul_end(au, bu))
        c = (mul_end(al, bl), mul_end(al, bu), mul_end(au, bl), mul_end(au, bu))
    except OverflowError:
        return UNKNOWN
    return ValueRanges(min(c), max(c))


def pow_(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a ** b`` for a natural exponent ``b`` (``PowByNatural``; ``0 ** 0 == 1``).

    With a constant exponent the result is tight: an even power of a range
    spanning 0 starts at 0, an odd power keeps the sign. Negative exponents are
    left out of ``b`` (``PowByNatural`` raises on them).

    Args:
        a: the base's range.
        b: the exponent's range (integers).

    Returns:
        The range of the powers; ``[-oo, oo]`` if ``b`` holds no natural number or the
        bounds are too large to compute.

    >>> from valueranges import ValueRanges as VR
    >>> str(pow_(VR.of(-3, 2), VR.exact(2))), str(pow_(VR.of(-3, 2), VR.exact(3))), str(pow_(VR.of(2, 3), VR.of(0, 2)))
    ('[0, 9]', '[-27, 8]', '[1, 9]')
    """
    a = numeric(a)
    el, eu = int_bounds(b)
    if el < 0:
        el = 0
    if el > eu:
        return UNKNOWN
    try:
        if el == eu:
            return _pow_constant(a, el)
        return _pow_range(a, el, eu)
    except OverflowError:
        return UNKNOWN


def _pow_constant(a: ValueRanges, k: int) -> ValueRanges:
    lo, hi = a.lower, a.upper
    if k == 0:
        return ONE
    if k == 1:
        return a
    if k % 2 == 1 or lo >= 0:
        return ValueRanges(pow_end(lo, k), pow_end(hi, k))
    if hi <= 0:
        return ValueRanges(pow_end(hi, k), pow_end(lo, k))
    p, q = pow_end(lo, k), pow_end(hi, k)
    return ValueRanges(0, p if p >= q else q)


def _pow_range(a: ValueRanges, el: int, eu: int | float) -> ValueRanges:
    # For x >= 0, x**k is monotone in x and in k separately, so its extremes are at the corners.
    if a.lower >= 0:
        c = [pow_end(x, k) for x in (a.lower, a.upper) for k in (el, eu)]
        return ValueRanges(min(c), max(c))
    m = _pow_range(abs_(a), el, eu)
    return ValueRanges(-m.upper, m.upper)


def max_(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``max(a, b)``.

    Args:
        a, b: the operands' ranges.

    Returns:
        ``[max(a.lower, b.lower), max(a.upper, b.upper)]``.

    >>> from valueranges import ValueRanges as VR
    >>> str(max_(VR.of(2, 5), VR.of(3, 9)))
    '[3, 9]'
    """
    if a.is_bool or b.is_bool:
        a, b = numeric(a), numeric(b)
    return ValueRanges(
        a.lower if a.lower >= b.lower else b.lower,
        a.upper if a.upper >= b.upper else b.upper,
    )


def min_(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``min(a, b)``.

    Args:
        a, b: the operands' ranges.

    Returns:
        ``[min(a.lower, b.lower), min(a.upper, b.upper)]``.

    >>> from valueranges import ValueRanges as VR
    >>> str(min_(VR.of(2, 5), VR.of(3, 9)))
    '[2, 5]'
    """
    if a.is_bool or b.is_bool:
        a, b = numeric(a), numeric(b)
    return ValueRanges(
        a.lower if a.lower <= b.lower else b.lower,
        a.upper if a.upper <= b.upper else b.upper,
    )


def abs_(a: ValueRanges) -> ValueRanges:
    """``abs(a)``.

    Args:
        a: the operand's range.

    Returns:
        ``a`` if non-negative, ``-a`` if non-positive, else ``[0, max(-a.lower, a.upper)]``.

    >>> from valueranges import ValueRanges as VR
    >>> str(abs_(VR.of(-7, 3))), str(abs_(VR.of(-7, -3)))
    ('[0, 7]', '[3, 7]')
    """
    a = numeric(a)
    lo, hi = a.lower, a.upper
    if lo >= 0:
        return a
    if hi <= 0:
        return ValueRanges(-hi, -lo)
    return ValueRanges(0, -lo if -lo >= hi else hi)


def floor_to_int(a: ValueRanges) -> ValueRanges:
    """``math.floor(a)`` as an integer range.

    Args:
        a: the operand's range (floats).

    Returns:
        ``[floor(a.lower), floor(a.upper)]`` with ``int`` endpoints.

    >>> from valueranges import ValueRanges as VR
    >>> str(floor_to_int(VR.of(-2.5, 3.5)))
    '[-3, 3]'
    """
    a = numeric(a)
    return ValueRanges(floor_end(a.lower), floor_end(a.upper))


def ceil_to_int(a: ValueRanges) -> ValueRanges:
    """``math.ceil(a)`` as an integer range.

    Args:
        a: the operand's range (floats).

    Returns:
        ``[ceil(a.lower), ceil(a.upper)]`` with ``int`` endpoints.

    >>> from valueranges import ValueRanges as VR
    >>> str(ceil_to_int(VR.of(-2.5, 3.5)))
    '[-2, 4]'
    """
    a = numeric(a)
    return ValueRanges(ceil_end(a.lower), ceil_end(a.upper))


# -- comparisons --------------------------------------------------------------------------------


def eq(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a == b`` as a boolean range.

    Args:
        a, b: the operands' ranges.

    Returns:
        True if both are the same single value, False if they are disjoint, else unknown.

    >>> from valueranges import ValueRanges as VR
    >>> str(eq(VR.exact(3), VR.exact(3))), str(eq(VR.of(0, 2), VR.of(3, 4))), str(eq(VR.of(0, 3), VR.of(3, 4)))
    ('[True, True]', '[False, False]', '[False, True]')
    """
    if a.upper < b.lower or b.upper < a.lower:
        return FALSE
    if a.lower == a.upper == b.lower == b.upper:
        return TRUE
    return UNKNOWN_BOOL


def ne(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a != b`` as a boolean range.

    Args:
        a, b: the operands' ranges.

    Returns:
        The negation of :func:`eq`.

    >>> from valueranges import ValueRanges as VR
    >>> str(ne(VR.of(0, 2), VR.of(3, 4)))
    '[True, True]'
    """
    return not_(eq(a, b))


def lt(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a < b`` as a boolean range.

    Args:
        a, b: the operands' ranges.

    Returns:
        True if ``a.upper < b.lower``, False if ``a.lower >= b.upper``, else unknown.

    >>> from valueranges import ValueRanges as VR
    >>> str(lt(VR.of(2, 5), VR.of(6, 9))), str(lt(VR.of(2, 5), VR.of(5, 9)))
    ('[True, True]', '[False, True]')
    """
    if a.upper < b.lower:
        return TRUE
    if a.lower >= b.upper:
        return FALSE
    return UNKNOWN_BOOL


def le(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a <= b`` as a boolean range.

    Args:
        a, b: the operands' ranges.

    Returns:
        True if ``a.upper <= b.lower``, False if ``a.lower > b.upper``, else unknown.

    >>> from valueranges import ValueRanges as VR
    >>> str(le(VR.of(2, 5), VR.of(5, 9)))
    '[True, True]'
    """
    if a.upper <= b.lower:
        return TRUE
    if a.lower > b.upper:
        return FALSE
    return UNKNOWN_BOOL


def gt(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a > b`` as a boolean range.

    Args:
        a, b: the operands' ranges.

    Returns:
        ``lt(b, a)``.

    >>> from valueranges import ValueRanges as VR
    >>> str(gt(VR.of(2, float("inf")), VR.exact(1)))
    '[True, True]'
    """
    return lt(b, a)


def ge(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a >= b`` as a boolean range.

    Args:
        a, b: the operands' ranges.

    Returns:
        ``le(b, a)``.

    >>> from valueranges import ValueRanges as VR
    >>> str(ge(VR.of(0, 3), VR.exact(4)))
    '[False, False]'
    """
    return le(b, a)


# -- logic ----------------------------------------------------------------------------------------


def _check_bool(what: str, *ranges: ValueRanges) -> None:
    for r in ranges:
        if not r.is_bool:
            raise RangeKindError(f"{what} needs boolean ranges", r)


def and_(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a and b`` of boolean ranges.

    Args:
        a, b: boolean ranges.

    Returns:
        False if either is always false, True if both are always true, else unknown.

    Raises:
        RangeKindError: an operand is not a boolean range.

    >>> from valueranges import ValueRanges as VR
    >>> str(and_(VR.unknown_bool(), VR.false()))
    '[False, False]'
    """
    _check_bool("and_", a, b)
    return ValueRanges(a.lower and b.lower, a.upper and b.upper, True)


def or_(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a or b`` of boolean ranges.

    Args:
        a, b: boolean ranges.

    Returns:
        True if either is always true, False if both are always false, else unknown.

    Raises:
        RangeKindError: an operand is not a boolean range.

    >>> from valueranges import ValueRanges as VR
    >>> str(or_(VR.unknown_bool(), VR.true()))
    '[True, True]'
    """
    _check_bool("or_", a, b)
    return ValueRanges(a.lower or b.lower, a.upper or b.upper, True)


def not_(a: ValueRanges) -> ValueRanges:
    """``not a`` of a boolean range.

    Args:
        a: a boolean range.

    Returns:
        ``[not a.upper, not a.lower]``.

    Raises:
        RangeKindError: ``a`` is not a boolean range.

    >>> from valueranges import ValueRanges as VR
    >>> str(not_(VR.true())), str(not_(VR.unknown_bool()))
    ('[False, False]', '[False, True]')
    """
    _check_bool("not_", a)
    return ValueRanges(not a.upper, not a.lower, True)


def ite(c: ValueRanges, a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a if c else b``.

    Args:
        c: the condition's range; a numeric range is taken by truthiness (``!= 0``).
        a: the range of the value when ``c`` holds.
        b: the range of the value otherwise.

    Returns:
        ``a`` if ``c`` is always true, ``b`` if always false, else their join
        (over 0/1 if one of them is boolean and the other is not).

    >>> from valueranges import ValueRanges as VR
    >>> str(ite(VR.unknown_bool(), VR.exact(1), VR.of(5, 6))), str(ite(VR.of(1, 9), VR.exact(1), VR.exact(2)))
    ('[1, 6]', '[1, 1]')
    """
    if not c.is_bool:
        c = ne(c, ValueRanges(0, 0))
    if c.lower:
        return a
    if not c.upper:
        return b
    if a.is_bool != b.is_bool:
        a, b = numeric(a), numeric(b)
    return a | b
