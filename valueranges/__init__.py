"""Value ranges: interval bounds of the integer (and boolean) expressions built by ``symint``.

A :class:`ValueRanges` is a closed interval ``[lower, upper]`` whose ends may be
``-oo``/``oo``; :mod:`valueranges.endpoints` is the one arithmetic on single
endpoints, :mod:`valueranges.ops` has one pure function per operator on ranges,
:mod:`valueranges.bound` bounds canonical forms (the hot path), and :func:`bound`
(:mod:`valueranges.sympy_bound`) computes the range of a sympy expression given
the range of each symbol. :class:`Facts` (:mod:`valueranges.facts`) is the one facts
engine: what is known about symbols (ranges, equalities, divisibility, congruences,
linear facts) and what follows from it; its ``bound`` is the tightest interval all of
that proves. Nothing else here holds state (a ``Facts`` holds its owner's): the only
cache is ``bound``'s, keyed by its arguments.

Note [The module bound and the function bound]
    ``valueranges.bound`` names the function (the public API); the module of form bounds
    is imported first below, so that the package attribute is the function and stays so
    (a submodule import sets the package attribute only when it first loads the module).

>>> import math
>>> from symint.build import symbol_expr, mod, lt, sub
>>> x = symbol_expr("x")
>>> r = {x: ValueRanges.of(2, math.inf)}
>>> str(bound(mod(x, 8), r)), str(bound(lt(1, x), r)), str(bound(sub(x, x), r))
('[0, 7]', '[True, True]', '[0, 0]')
"""

from . import bound as _form_bounds  # noqa: F401  (Note [The module bound and the function bound])
from . import ops
from .sympy_bound import bound
from .errors import (
    EmptyRangeError,
    InvalidRangeError,
    RangeKindError,
    UnsupportedExpressionError,
    ValueRangeError,
)
from .interval import ValueRanges
from .errors import ContradictoryFactsError
from .facts import Facts  # after the function bound (Note [The module bound and the function bound])

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
