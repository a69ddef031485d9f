"""Value ranges: interval bounds of the integer (and boolean) sympy expressions built by ``symint``.

A :class:`ValueRanges` is a closed interval ``[lower, upper]`` whose ends may be
``-oo``/``oo``; :mod:`valueranges.ops` has one pure function per operator on
ranges, and :func:`bound` computes the range of a whole expression given the
range of each symbol. Nothing here holds state: the only cache is ``bound``'s,
keyed by its arguments.

>>> import math
>>> from symint.build import symbol_expr, mod, lt, sub
>>> x = symbol_expr("x")
>>> r = {x: ValueRanges.of(2, math.inf)}
>>> str(bound(mod(x, 8), r)), str(bound(lt(1, x), r)), str(bound(sub(x, x), r))
('[0, 7]', '[True, True]', '[0, 0]')
"""

from . import ops
from .bound import bound
from .errors import (
    EmptyRangeError,
    InvalidRangeError,
    RangeKindError,
    UnsupportedExpressionError,
    ValueRangeError,
)
from .interval import ValueRanges

__all__ = [
    "ValueRanges",
    "bound",
    "ops",
    "ValueRangeError",
    "EmptyRangeError",
    "InvalidRangeError",
    "RangeKindError",
    "UnsupportedExpressionError",
]
