"""Value ranges: interval bounds of the integer (and boolean) sympy expressions built by ``symint``.

A :class:`ValueRanges` is a closed interval ``[lower, upper]`` whose ends may be
``-oo``/``oo``; :mod:`valueranges.ops` has one pure function per operator on
ranges, and :func:`bound` computes the range of a whole expression given the
range of each symbol. :class:`Facts` (:mod:`valueranges.facts`) is the one facts engine:
what is known about symbols (ranges, equalities, divisibility, congruences, linear facts)
and what follows from it; its ``bound`` is the tightest interval all of that proves.
Only a ``Facts`` holds state (its owner's); the other cache is ``bound``'s, keyed by its
arguments.

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
from .errors import ContradictoryFactsError
from .facts import Facts

__all__ = [
    "ValueRanges",
    "bound",
    "Facts",
    "ContradictoryFactsError",
    "ops",
    "ValueRangeError",
    "EmptyRangeError",
    "InvalidRangeError",
    "RangeKindError",
    "UnsupportedExpressionError",
]
