"""Comparisons and logic on ranges: ``== != < <= > >=`` give boolean ranges; ``and``/``or``/``not``/``ite``.

Re-exported by :mod:`valueranges.ops`; use it from there.

>>> from valueranges import ValueRanges as VR
>>> str(lt(VR.of(2, 5), VR.of(6, 9))), str(and_(VR.unknown_bool(), VR.false()))
('[True, True]', '[False, False]')
"""

from __future__ import annotations

from .endpoints import FALSE, TRUE, UNKNOWN_BOOL, numeric
from .errors import RangeKindError
from .interval import ValueRanges

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "and_", "or_", "not_", "ite"]


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
