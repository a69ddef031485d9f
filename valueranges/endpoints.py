"""Arithmetic on single endpoints (ints, floats, ``±math.inf``): the one endpoint arithmetic of the package.

The operators on :class:`ValueRanges` (:mod:`valueranges.ops`, :mod:`valueranges.division`)
and the bounds of forms (:mod:`valueranges.bound`, on ``(lo, hi)`` pairs) both compute with it.

Note [Infinite endpoints]
    An infinite endpoint is a limit, not a value, so ``0 * oo`` is 0 (every
    value times 0 is 0), ``x // oo`` is what ``x // y`` tends to as ``y`` grows
    (0 or -1), and ``oo // oo`` takes the sign of the quotient (the other corners
    of the box already give any finite extreme). A lower bound is never ``oo``
    and an upper bound never ``-oo``, so sums never meet ``oo + -oo``.

    Python converts an int to float when it meets a float, and an int past
    ~1e308 then raises ``OverflowError``. The helpers keep ints exact and treat
    infinities explicitly; the operators catch the remaining ``OverflowError``
    (huge ints meeting finite floats) and answer ``[-oo, oo]``, which is sound.
"""

from __future__ import annotations

import math

from .interval import INF, NINF, Endpoint, ValueRanges

#: Integer powers whose result would exceed this many bits are not computed.
POW_BITS_LIMIT = 1 << 16

UNKNOWN = ValueRanges.unknown()
UNKNOWN_BOOL = ValueRanges.unknown_bool()
TRUE = ValueRanges.true()
FALSE = ValueRanges.false()
ONE = ValueRanges(1, 1)


def numeric(r: ValueRanges) -> ValueRanges:
    """``r`` itself, or for a boolean range the same range over 0/1 (bools are ints in arithmetic)."""
    if r.is_bool:
        return ValueRanges(int(r.lower), int(r.upper))
    return r


def int_bounds(r: ValueRanges) -> tuple[int | float, int | float]:
    """The endpoints of ``r`` tightened to integers (for integer-valued operands); may cross."""
    return int_ends(r.lower, r.upper)


def int_ends(lo: Endpoint, hi: Endpoint) -> tuple[int | float, int | float]:
    """``(lo, hi)`` tightened to the integers inside (``±oo`` stay); may cross.

    >>> int_ends(0.5, 3.5), int_ends(-math.inf, 2)
    ((1, 3), (-inf, 2))
    """
    if type(lo) is not int:
        lo = lo if lo == NINF else math.ceil(lo)
    if type(hi) is not int:
        hi = hi if hi == INF else math.floor(hi)
    return lo, hi


def add_end(x: Endpoint, y: Endpoint) -> Endpoint:
    """``x + y`` for endpoints that are not opposite infinities."""
    if type(x) is int and type(y) is int:
        return x + y
    if x == INF or x == NINF:
        return x
    if y == INF or y == NINF:
        return y
    return x + y


def mul_end(x: Endpoint, y: Endpoint) -> Endpoint:
    """``x * y`` with ``0 * oo == 0``."""
    if type(x) is int and type(y) is int:
        return x * y
    if x == 0 or y == 0:
        return 0
    if x == INF or x == NINF or y == INF or y == NINF:
        return INF if (x > 0) == (y > 0) else NINF
    return x * y


def floordiv_end(x: Endpoint, y: Endpoint) -> Endpoint:
    """``x // y`` for integer-or-infinite ``x`` and a nonzero integer-or-infinite ``y``."""
    if type(x) is int and type(y) is int:
        return x // y
    if x == INF or x == NINF:
        return x if y > 0 else -x
    if x == 0:
        return 0
    return 0 if (x > 0) == (y > 0) else -1


def truediv_end(x: Endpoint, y: Endpoint, side: int) -> float:
    """``x / y``; ``y == 0`` stands for the limit as ``y`` tends to 0 from ``side`` (+1 or -1)."""
    if y == 0:
        if x == 0:
            return 0.0
        return INF if (x > 0) == (side > 0) else NINF
    if x == INF or x == NINF:
        return INF if (x > 0) == (y > 0) else NINF
    if y == INF or y == NINF:
        return 0.0
    return x / y


def pow_end(x: Endpoint, k: int | float) -> Endpoint:
    """``x ** k`` for a natural (or infinite, then only for ``x >= 0``) exponent ``k``.

    Raises:
        OverflowError: the result has more than ``POW_BITS_LIMIT`` bits or overflows a float.
    """
    if k == 0:
        return 1
    if type(x) is int:
        if k == INF:
            return x if x in (0, 1) else INF
        if -1 <= x <= 1 or x.bit_length() * k <= POW_BITS_LIMIT:
            return x**k
        raise OverflowError(f"a {x.bit_length()}-bit integer to the power {k} is too large to compute")
    if x == INF:
        return INF
    if x == NINF:
        return INF if k % 2 == 0 else NINF
    if k == INF:
        return 0.0 if x < 1 else (1.0 if x == 1 else INF)
    return x**k


def pow_ends(lo: Endpoint, hi: Endpoint, k: int) -> tuple[Endpoint, Endpoint]:
    """The least and greatest ``x ** k`` for ``x`` in ``[lo, hi]`` and a natural ``k`` (``0 ** 0 == 1``).

    An even power of an interval spanning 0 starts at 0; an odd power keeps the sign.

    Raises:
        OverflowError: as :func:`pow_end`.

    >>> pow_ends(-3, 2, 2), pow_ends(-3, 2, 3), pow_ends(-INF, -2, 2)
    ((0, 9), (-27, 8), (4, inf))
    """
    if k == 0:
        return 1, 1
    if k == 1:
        return lo, hi
    if k % 2 == 1 or lo >= 0:
        return pow_end(lo, k), pow_end(hi, k)
    if hi <= 0:
        return pow_end(hi, k), pow_end(lo, k)
    p, q = pow_end(lo, k), pow_end(hi, k)
    return 0, (p if p >= q else q)


def floor_end(v: Endpoint) -> Endpoint:
    """``math.floor(v)``, keeping infinities."""
    if type(v) is int or v == INF or v == NINF:
        return v
    return math.floor(v)


def ceil_end(v: Endpoint) -> Endpoint:
    """``math.ceil(v)``, keeping infinities."""
    if type(v) is int or v == INF or v == NINF:
        return v
    return math.ceil(v)


def nonzero_int_parts(lo: int | float, hi: int | float) -> list[tuple[int | float, int | float]]:
    """The negative and positive parts of the integers in ``[lo, hi]``, without 0."""
    parts = []
    if lo <= -1:
        parts.append((lo, hi if hi <= -1 else -1))
    if hi >= 1:
        parts.append((lo if lo >= 1 else 1, hi))
    return parts


def hull(values: list) -> ValueRanges:
    """The least range holding every value in the non-empty list ``values``."""
    return ValueRanges(min(values), max(values))
