"""Value ranges: interval bounds of the integer (and boolean) expressions built by ``symint``.

A :class:`ValueRanges` is a closed interval ``[lower, upper]`` whose ends may be
``-oo``/``oo``; :mod:`valueranges.endpoints` is the one arithmetic on single
endpoints, :mod:`valueranges.ops` has one pure function per operator on ranges,
:mod:`valueranges.bound` bounds canonical forms (the hot path), and :func:`bound`
(:mod:`valueranges.sympy_bound`) computes the range of a sympy expression given
the range of each symbol. Nothing here holds state: the only cache is ``bound``'s,
keyed by its arguments.

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
