"""``ValueRanges``: a closed interval of integers, floats or booleans with infinite ends.

This is the value type of the whole package: cheap to build, compare and hash,
with no sympy inside. Operators on ranges live in :mod:`valueranges.ops`; bounds
of forms in :mod:`valueranges.bound`; the public ``bound`` of a sympy expression (:mod:`valueranges.sympy_bound`) converts it to its form.

>>> r = ValueRanges.of(2, math.inf)
>>> str(r), 5 in r, 1 in r, str(r & ValueRanges.of(0, 9)), str(r | ValueRanges.exact(-1))
('[2, oo]', True, False, '[2, 9]', '[-1, oo]')
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Union

from .errors import EmptyRangeError, InvalidRangeError, RangeKindError, format_endpoint

__all__ = ["ValueRanges", "Endpoint", "INF", "NINF"]

#: The unbounded ends: plain floats, so that ``int < INF`` is exact and cheap.
INF = math.inf
NINF = -math.inf

Endpoint = Union[int, float, bool]


@dataclass(frozen=True, slots=True)
class ValueRanges:
    """The closed interval ``[lower, upper]`` of the values an expression can take.

    Endpoints:
        * integer-valued expressions have ``int`` endpoints, or ``-math.inf`` /
          ``math.inf`` (floats) for an unbounded end, written ``-oo`` / ``oo``.
          As in SymPy's ``AccumulationBounds``, ``oo`` is not a value: ``[2, oo]``
          holds every integer ``>= 2``, and a lower bound of ``oo`` or an upper
          bound of ``-oo`` is invalid.
        * float-valued expressions (true division, float literals) may get
          ``float`` endpoints. They bound the values Python computes in IEEE
          arithmetic (rounding is monotone, so the rounded extremes bound the
          rounded values); exact rationals are rounded outward.
        * boolean ranges (``is_bool``) have ``bool`` endpoints: ``[False, True]``
          means "unknown", ``[True, True]`` "always true".

    Build ranges with the classmethods (:meth:`of`, :meth:`exact`,
    :meth:`unknown`, ...), which normalise their arguments; the plain
    constructor only checks ``lower <= upper`` and is meant for code that already
    holds normalised endpoints (``int``/``float``/``bool``).

    Attributes:
        lower: the least value (or ``-math.inf``).
        upper: the greatest value (or ``math.inf``).
        is_bool: whether this is a range of booleans.

    >>> ValueRanges.of(0, 3), ValueRanges.unknown_bool().is_bool
    (ValueRanges(lower=0, upper=3, is_bool=False), True)
    """

    lower: Endpoint
    upper: Endpoint
    is_bool: bool = False

    def __post_init__(self) -> None:
        lo, hi = self.lower, self.upper
        if not lo <= hi:
            if lo != lo or hi != hi:
                raise InvalidRangeError(lo, hi)
            raise EmptyRangeError(lo, hi)
        if lo == INF or hi == NINF:
            raise InvalidRangeError(lo, hi)

    # -- constructors ---------------------------------------------------------------------------

    @classmethod
    def of(cls, lower: object, upper: object) -> ValueRanges:
        """The range ``[lower, upper]``; boolean if both ends are ``bool``.

        Endpoints may be ints, bools, floats (``±math.inf`` for unbounded ends) or
        any number type with ``__index__`` or ``__float__`` (sympy's ``Integer``,
        ``oo``, ...), which is converted to ``int`` or ``float``.

        Args:
            lower: the least value.
            upper: the greatest value.

        Returns:
            The normalised range.

        Raises:
            EmptyRangeError: ``lower > upper``.
            InvalidRangeError: an endpoint is NaN, or ``lower`` is ``oo`` or ``upper`` is ``-oo``.
            RangeKindError: an endpoint is not a number.

        >>> ValueRanges.of(2, math.inf), ValueRanges.of(False, True).is_bool
        (ValueRanges(lower=2, upper=inf, is_bool=False), True)
        """
        if type(lower) is bool and type(upper) is bool:
            return cls(lower, upper, True)
        return cls(_endpoint(lower), _endpoint(upper))

    @classmethod
    def exact(cls, value: object) -> ValueRanges:
        """The range holding only ``value``.

        Args:
            value: a finite number or a bool.

        Returns:
            ``[value, value]``.

        Raises:
            InvalidRangeError: ``value`` is infinite or NaN.

        >>> str(ValueRanges.exact(4)), ValueRanges.exact(True) == ValueRanges.true()
        ('[4, 4]', True)
        """
        return cls.of(value, value)

    @classmethod
    def unknown(cls) -> ValueRanges:
        """The range of a number about which nothing is known: ``[-oo, oo]``.

        Returns:
            ``[-oo, oo]``.

        >>> str(ValueRanges.unknown())
        '[-oo, oo]'
        """
        return _UNKNOWN

    @classmethod
    def unknown_bool(cls) -> ValueRanges:
        """The range of a boolean about which nothing is known: ``[False, True]``.

        Returns:
            ``[False, True]``.

        >>> str(ValueRanges.unknown_bool())
        '[False, True]'
        """
        return _UNKNOWN_BOOL

    @classmethod
    def true(cls) -> ValueRanges:
        """The range of a boolean that is always true.

        Returns:
            ``[True, True]``.

        >>> ValueRanges.true().is_singleton()
        True
        """
        return _TRUE

    @classmethod
    def false(cls) -> ValueRanges:
        """The range of a boolean that is always false.

        Returns:
            ``[False, False]``.

        >>> str(ValueRanges.false())
        '[False, False]'
        """
        return _FALSE

    # -- queries --------------------------------------------------------------------------------

    def is_singleton(self) -> bool:
        """Whether the range holds exactly one value.

        Returns:
            ``lower == upper``.

        >>> ValueRanges.of(3, 3).is_singleton(), ValueRanges.of(3, 4).is_singleton()
        (True, False)
        """
        return self.lower == self.upper

    def is_finite(self) -> bool:
        """Whether both ends are finite.

        Returns:
            ``True`` unless an end is ``-oo`` or ``oo``.

        >>> ValueRanges.of(0, 5).is_finite(), ValueRanges.of(0, math.inf).is_finite()
        (True, False)
        """
        return self.lower != NINF and self.upper != INF

    def issubset(self, other: ValueRanges) -> bool:
        """Whether every value of this range is in ``other``.

        Booleans count as 0 and 1, as in Python.

        Args:
            other: the enclosing range.

        Returns:
            ``other.lower <= self.lower and self.upper <= other.upper``.

        >>> ValueRanges.of(2, 3).issubset(ValueRanges.of(0, math.inf))
        True
        """
        return other.lower <= self.lower and self.upper <= other.upper

    def __contains__(self, item: object) -> bool:
        """``x in r``: whether a number (or every value of a range) lies in the range.

        >>> 3 in ValueRanges.of(0, 5), ValueRanges.of(1, 9) in ValueRanges.of(0, 5)
        (True, False)
        """
        if isinstance(item, ValueRanges):
            return item.issubset(self)
        return self.lower <= item <= self.upper  # type: ignore[operator]

    # -- lattice operations ---------------------------------------------------------------------

    def __and__(self, other: ValueRanges) -> ValueRanges:
        """Intersection: the values in both ranges.

        Raises:
            EmptyRangeError: the ranges are disjoint.
            RangeKindError: one range is boolean and the other is not.

        >>> str(ValueRanges.of(0, 5) & ValueRanges.of(3, math.inf))
        '[3, 5]'
        """
        if not isinstance(other, ValueRanges):
            return NotImplemented
        if self.is_bool != other.is_bool:
            raise RangeKindError("cannot intersect a boolean and a numeric range", self, other)
        lo = self.lower if self.lower >= other.lower else other.lower
        hi = self.upper if self.upper <= other.upper else other.upper
        if lo > hi:
            raise EmptyRangeError(lo, hi, (self, other))
        return ValueRanges(lo, hi, self.is_bool)

    def __or__(self, other: ValueRanges) -> ValueRanges:
        """Union hull: the least range holding both ranges.

        Raises:
            RangeKindError: one range is boolean and the other is not.

        >>> str(ValueRanges.of(0, 1) | ValueRanges.of(5, 7))
        '[0, 7]'
        """
        if not isinstance(other, ValueRanges):
            return NotImplemented
        if self.is_bool != other.is_bool:
            raise RangeKindError("cannot join a boolean and a numeric range", self, other)
        lo = self.lower if self.lower <= other.lower else other.lower
        hi = self.upper if self.upper >= other.upper else other.upper
        return ValueRanges(lo, hi, self.is_bool)

    def __str__(self) -> str:
        return f"[{_show(self.lower)}, {_show(self.upper)}]"


_show = format_endpoint


def _endpoint(v: object) -> int | float:
    """Normalise one endpoint to ``int`` or ``float`` (bools become 0/1)."""
    t = type(v)
    if t is int or t is float:
        return v  # type: ignore[return-value]
    if t is bool:
        return int(v)  # type: ignore[arg-type]
    if hasattr(t, "__index__"):
        return operator.index(v)  # type: ignore[arg-type]
    if hasattr(t, "__float__"):
        return float(v)  # type: ignore[arg-type]
    raise RangeKindError("a range endpoint must be a number", repr(v))


_UNKNOWN = ValueRanges(NINF, INF)
_UNKNOWN_BOOL = ValueRanges(False, True, True)
_TRUE = ValueRanges(True, True, True)
_FALSE = ValueRanges(False, False, True)
