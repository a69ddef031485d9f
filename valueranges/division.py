"""Interval division with Python semantics: ``//``, ceiling division, ``%`` and ``/``.

Re-exported by :mod:`valueranges.ops`; use it from there.

Note [Zero divisors]
    A division by zero raises in Python, so it contributes no value: the divisor
    range is split into its negative and positive parts without 0, each part is
    a box on which the quotient is monotone in each argument (so its extremes
    are at the corners), and the results are joined. A divisor that can only be
    0 leaves no value at all; as a range cannot be empty, the answer is then
    ``[-oo, oo]``, which is trivially sound.

Note [Integer operands]
    ``FloorDiv``, ``CeilDiv``, ``Mod`` and ``IntTrueDiv`` take integers, so their
    operands' float endpoints are first tightened to integers (``[0.5, 3.5]``
    holds the integers ``[1, 3]``). ``truediv`` is the real-valued ``/`` and does
    not assume this.

>>> import math
>>> from valueranges import ValueRanges as VR
>>> str(floordiv(VR.of(-7, 7), VR.of(-2, 2))), str(mod(VR.of(0, math.inf), VR.exact(8)))
('[-7, 7]', '[0, 7]')
"""

from __future__ import annotations

import math
from fractions import Fraction

from .endpoints import UNKNOWN, floordiv_end, int_bounds, nonzero_int_parts, numeric, truediv_end
from .interval import INF, NINF, ValueRanges

__all__ = ["floordiv", "ceildiv", "mod", "truediv", "int_truediv", "floordiv_ends", "mod_ends"]


def floordiv(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``a // b`` (rounding toward -oo) for integers ``a`` in ``a``, nonzero ``b`` in ``b``.

    Args:
        a: the dividend's range.
        b: the divisor's range; 0 is left out, since dividing by it raises.

    Returns:
        The range of the quotients; ``[-oo, oo]`` if ``b`` holds no nonzero integer.

    >>> import math
    >>> from valueranges import ValueRanges as VR
    >>> str(floordiv(VR.of(2, 10), VR.exact(2))), str(floordiv(VR.of(-7, 3), VR.of(2, math.inf)))
    ('[1, 5]', '[-4, 1]')
    """
    found = floordiv_ends(*int_bounds(a), *int_bounds(b))
    return UNKNOWN if found is None else ValueRanges(*found)


def floordiv_ends(al, au, bl, bu) -> tuple | None:
    """``(lo, hi)`` of ``x // y`` for integers ``x`` in ``[al, au]`` and nonzero ``y`` in ``[bl, bu]``.

    Endpoints are ints or ``±math.inf`` (Note [Infinite endpoints] in :mod:`valueranges.endpoints`);
    None when there is no such pair (Note [Zero divisors]). The bounds of forms use it directly.

    >>> floordiv_ends(-7, 3, 2, math.inf), floordiv_ends(1, 5, 0, 0)
    ((-4, 1), None)
    """
    if al > au:
        return None
    if bl == bu and type(bl) is int and bl > 0:
        return floordiv_end(al, bl), floordiv_end(au, bl)
    lo, hi = INF, NINF
    for pl, ph in nonzero_int_parts(bl, bu):
        for q in (floordiv_end(al, pl), floordiv_end(al, ph), floordiv_end(au, pl), floordiv_end(au, ph)):
            lo = q if q < lo else lo
            hi = q if q > hi else hi
    return None if lo > hi else (lo, hi)


def ceildiv(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """``-(-a // b)`` (rounding toward +oo) for integers ``a`` in ``a``, nonzero ``b`` in ``b``.

    Args:
        a: the dividend's range.
        b: the divisor's range; 0 is left out.

    Returns:
        The range of the quotients; ``[-oo, oo]`` if ``b`` holds no nonzero integer.

    >>> from valueranges import ValueRanges as VR
    >>> str(ceildiv(VR.of(1, 10), VR.exact(4)))
    '[1, 3]'
    """
    a = numeric(a)
    q = floordiv(ValueRanges(-a.upper, -a.lower), b)
    return ValueRanges(-q.upper, -q.lower)


def mod(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """Python's ``a % b``: the result lies between 0 and the divisor, with its sign.

    Precise when the dividend stays inside one period (``[9, 11] % 8`` is
    ``[1, 3]``) or below a positive divisor (``[0, 3] % [5, 9]`` is ``[0, 3]``);
    otherwise the result is bounded by the divisor (``x % 8`` is in ``[0, 7]``)
    and, for a non-negative dividend, by the dividend. A divisor spanning both
    signs gives the join of its negative and positive parts.

    Args:
        a: the dividend's range.
        b: the divisor's range; 0 is left out.

    Returns:
        The range of the remainders; ``[-oo, oo]`` if ``b`` holds no nonzero integer.

    >>> from valueranges import ValueRanges as VR
    >>> str(mod(VR.unknown(), VR.exact(8))), str(mod(VR.of(9, 11), VR.exact(8))), str(mod(VR.of(0, 20), VR.exact(-8)))
    ('[0, 7]', '[1, 3]', '[-7, 0]')
    """
    found = mod_ends(*int_bounds(a), *int_bounds(b))
    return UNKNOWN if found is None else ValueRanges(*found)


def mod_ends(al, au, bl, bu) -> tuple | None:
    """``(lo, hi)`` of ``x % y`` for integers ``x`` in ``[al, au]`` and nonzero ``y`` in ``[bl, bu]`` (None: no such pair).

    >>> mod_ends(9, 11, 8, 8), mod_ends(0, 20, -8, -8), mod_ends(-math.inf, math.inf, 1, 8)
    ((1, 3), (-7, 0), (0, 7))
    """
    if al > au:
        return None
    lo, hi = INF, NINF
    for pl, ph in nonzero_int_parts(bl, bu):
        if pl > 0:
            plo, phi = _mod_positive(al, au, pl, ph)
        else:
            # x % y == -((-x) % (-y)) in Python.
            nlo, nhi = _mod_positive(-au, -al, -ph, -pl)
            plo, phi = -nhi, -nlo
        lo = plo if plo < lo else lo
        hi = phi if phi > hi else hi
    return None if lo > hi else (lo, hi)


def _mod_positive(al, au, c, d):
    """Bounds of ``x % y`` for integers ``x`` in ``[al, au]``, ``y`` in ``[c, d]`` with ``1 <= c``."""
    same_period = c == d and al != NINF and au != INF and al // c == au // c
    if al >= 0:
        if au < c:
            return al, au  # x % y == x
        if same_period:
            return al % c, au % c
        return 0, min(au, d - 1)  # x % y <= x for x >= 0
    if au < 0 and al >= -c:
        return al + c, au + d  # -y <= x < 0, so x % y == x + y
    if same_period:
        return al % c, au % c
    return 0, d - 1


def truediv(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """Real-valued ``a / b``, a float; a divisor range touching 0 makes the quotient unbounded.

    Inexact ends are rounded outward, so the result also bounds the exact
    rational quotient (``symint.evaluate`` keeps ``1/x`` as a ``Fraction``).

    Args:
        a: the dividend's range.
        b: the divisor's range; the value 0 itself is left out, values near it are not.

    Returns:
        A range with float endpoints; ``[-oo, oo]`` if ``b`` is ``[0, 0]``.

    >>> from valueranges import ValueRanges as VR
    >>> str(truediv(VR.of(1, 3), VR.of(2.0, 4.0))), str(truediv(VR.of(1, 3), VR.of(0.0, 4.0)))
    ('[0.25, 1.5]', '[0.25, oo]')
    """
    a, b = numeric(a), numeric(b)
    parts = []
    if b.lower < 0:
        parts.append((b.lower, b.upper if b.upper < 0 else 0, -1))
    if b.upper > 0:
        parts.append((b.lower if b.lower > 0 else 0, b.upper, 1))
    return _quotients(a, parts, outward=True)


def int_truediv(a: ValueRanges, b: ValueRanges) -> ValueRanges:
    """Python's ``a / b`` of two integers (``IntTrueDiv``), a float; 0 is left out of the divisor.

    Args:
        a: the dividend's range (integers).
        b: the divisor's range (integers); 0 is left out, since dividing by it raises.

    Returns:
        A range with float endpoints; ``[-oo, oo]`` if ``b`` holds no nonzero integer.

    >>> from valueranges import ValueRanges as VR
    >>> str(int_truediv(VR.of(1, 3), VR.of(-2, 4)))
    '[-3.0, 3.0]'
    """
    bl, bu = int_bounds(b)
    return _quotients(numeric(a), [(pl, ph, 1 if pl > 0 else -1) for pl, ph in nonzero_int_parts(bl, bu)])


def _quotients(a: ValueRanges, parts: list, outward: bool = False) -> ValueRanges:
    """The hull of the corner quotients; ``outward`` rounds inexact ends away from the exact value."""
    lo = hi = None
    try:
        for pl, ph, side in parts:
            for x in (a.lower, a.upper):
                for y in (pl, ph):
                    q = truediv_end(x, y, side)
                    if lo is None or q < lo[0]:
                        lo = (q, x, y)
                    if hi is None or q > hi[0]:
                        hi = (q, x, y)
    except OverflowError:
        return UNKNOWN
    if lo is None:
        return UNKNOWN
    if outward:
        return ValueRanges(_round(*lo, NINF), _round(*hi, INF))
    return ValueRanges(float(lo[0]), float(hi[0]))


def _round(q: float, x, y, toward: float) -> float:
    """``q`` (the float ``x / y``), or the next float toward ``toward`` if ``q`` is past the exact quotient."""
    if q == INF or q == NINF or y == 0 or y == INF or y == NINF:
        return float(q)
    exact = Fraction(x) / Fraction(y)
    if (Fraction(q) <= exact) if toward < 0 else (Fraction(q) >= exact):
        return float(q)
    return math.nextafter(q, toward)
