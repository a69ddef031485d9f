"""Interval arithmetic: one pure function per operator, from ranges of the operands to the range of the result.

Every function is *sound*: for any values ``x`` in ``a`` and ``y`` in ``b`` for
which Python computes ``op(x, y)`` without raising, the result lies in
``op(a, b)``. Most are also *tight* on integer ranges (the result is the hull of
the attainable values); ``mod`` and ``pow_`` with a non-constant exponent are
the exceptions. Booleans take part in arithmetic as 0 and 1, as in Python.

Names follow :mod:`symint.build`: ``max_``, ``min_``, ``abs_``, ``pow_``,
``and_``, ``or_``, ``not_`` have a trailing underscore so as not to shadow
built-ins. The division family lives in :mod:`valueranges.division`, comparisons
and logic in :mod:`valueranges.compare`; both are re-exported here.

>>> from valueranges import ValueRanges as VR
>>> str(mul(VR.of(-2, 3), VR.of(4, 5))), str(lt(VR.of(2, 5), VR.of(6, 9)))
('[-10, 15]', '[True, True]')
"""

from __future__ import annotations

from .endpoints import (
    ONE,
    UNKNOWN,
    add_end,
    ceil_end,
    floor_end,
    int_bounds,
    mul_end,
    numeric,
    pow_end,
    pow_ends,
)
from . import compare
from .compare import and_, eq, ge, gt, ite, le, lt, ne, not_, or_
from .division import ceildiv, floordiv, int_truediv, mod, truediv
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
]
__all__ += compare.__all__  # comparisons and logic: their one list is compare's


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
    if k == 0:
        return ONE
    if k == 1:
        return a
    return ValueRanges(*pow_ends(a.lower, a.upper, k))


def _pow_range(a: ValueRanges, el: int, eu: int | float) -> ValueRanges:
    # For x >= 0, x**k is monotone in x and in k separately, so its extremes are at the corners.
    if a.lower >= 0:
        c = [pow_end(x, k) for x in (a.lower, a.upper) for k in (el, eu)]
        return ValueRanges(min(c), max(c))
    m = _pow_range(abs_(a), el, eu)
    return ValueRanges(-m.upper, m.upper)


def _endpointwise(pick, a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``[pick(a.lower, b.lower), pick(a.upper, b.upper)]``: the range of ``pick(x, y)`` for ``pick`` nondecreasing
    in both arguments (``max``, ``min``; on equal endpoints both keep ``a``'s); booleans count as 0/1."""
    if a.is_bool or b.is_bool:
        a, b = numeric(a), numeric(b)
    return ValueRanges(pick(a.lower, b.lower), pick(a.upper, b.upper))


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
    return _endpointwise(max, a, b)


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
    return _endpointwise(min, a, b)


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
