"""Errors raised by the ``valueranges`` package.

Every error subclasses :class:`ValueRangeError` and the built-in exception it
most resembles, so callers may catch either. Errors keep the offending values as
fields and build their message only when it is printed.

>>> from valueranges import ValueRanges
>>> try:
...     ValueRanges.of(5, 3)
... except ValueError as e:
...     print(type(e).__name__, e.lower, e.upper)
EmptyRangeError 5 3
"""

from __future__ import annotations

__all__ = [
    "ValueRangeError",
    "EmptyRangeError",
    "InvalidRangeError",
    "RangeKindError",
    "UnsupportedExpressionError",
    "ContradictoryFactsError",
]


def format_endpoint(v: object) -> str:
    """An endpoint as printed in messages: ``oo``/``-oo`` for infinities, huge ints summarised.

    Args:
        v: the endpoint.

    Returns:
        Its text.

    >>> format_endpoint(float("-inf")), format_endpoint(3), format_endpoint(2**5000)
    ('-oo', '3', '<5001-bit integer>')
    """
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "oo" if v > 0 else "-oo"
    if type(v) is int and v.bit_length() > _BIG_INT_BITS:
        return f"{'-' if v < 0 else ''}<{v.bit_length()}-bit integer>"
    return str(v)


#: Ints longer than this are summarised in messages (Python refuses to print ints past 4300 digits).
_BIG_INT_BITS = 3000


class ValueRangeError(Exception):
    """Base class of every error raised by ``valueranges``."""


class EmptyRangeError(ValueRangeError, ValueError):
    """A range would contain no value: its lower bound is above its upper bound.

    Raised by the constructors (``ValueRanges.of(5, 3)``) and by an intersection
    of disjoint ranges. In the latter case ``operands`` holds the two ranges: the
    facts they come from contradict each other.

    Attributes:
        lower: the lower bound that came out too large.
        upper: the upper bound that came out too small.
        operands: the ranges whose intersection is empty, or ``()``.
    """

    def __init__(self, lower: object, upper: object, operands: tuple = ()):
        super().__init__(lower, upper, operands)
        self.lower = lower
        self.upper = upper
        self.operands = operands

    def __str__(self) -> str:
        lo, hi = format_endpoint(self.lower), format_endpoint(self.upper)
        if self.operands:
            a, b = self.operands
            return (
                f"the ranges {a} and {b} do not intersect (lower bound {lo} > upper bound {hi}); "
                "the facts they come from contradict each other"
            )
        return f"empty range: lower bound {lo} > upper bound {hi}; a range needs lower <= upper"


class InvalidRangeError(ValueRangeError, ValueError):
    """An endpoint is not allowed: NaN, a lower bound of +oo or an upper bound of -oo.

    Attributes:
        lower: the lower endpoint given.
        upper: the upper endpoint given.
    """

    def __init__(self, lower: object, upper: object):
        super().__init__(lower, upper)
        self.lower = lower
        self.upper = upper

    def __str__(self) -> str:
        return (
            f"invalid range [{format_endpoint(self.lower)}, {format_endpoint(self.upper)}]: endpoints must be numbers, "
            "not NaN, with lower < oo and upper > -oo"
        )


class RangeKindError(ValueRangeError, TypeError):
    """A boolean range met a numeric one where both must be of the same kind, or an endpoint is not a number.

    Attributes:
        what: the operation that was attempted.
        operands: the values involved.
    """

    def __init__(self, what: str, *operands: object):
        super().__init__(what, *operands)
        self.what = what
        self.operands = operands

    def __str__(self) -> str:
        shown = ", ".join(str(o) for o in self.operands)
        return f"{self.what}: {shown}"


class UnsupportedExpressionError(ValueRangeError, TypeError):
    """``bound`` met a sympy node it has no rule for.

    Build expressions with ``symint.build`` (or the ``SymInt`` operators): every
    node they produce is supported.

    Attributes:
        expr: the unsupported sub-expression.
    """

    def __init__(self, expr: object):
        super().__init__(expr)
        self.expr = expr

    def __str__(self) -> str:
        return (
            f"cannot bound {type(self.expr).__name__} node '{self.expr}': build expressions with "
            "symint.build (add, mul, floordiv, mod, max_, lt, and_, ...) so that every node is supported"
        )


class ContradictoryFactsError(ValueRangeError, ValueError):
    """A new fact contradicts what a :class:`~valueranges.facts.Facts` already knows (an empty range,
    a relation that simplifies to False, two incompatible congruences).

    The facts are left as they were before the call that raised, except for what that call
    had already learned; a caller that needs them intact takes a ``snapshot()`` first.

    Attributes:
        what: the contradiction, in words (``s0 cannot be in both [2, 4] and [5, oo]``).
    """

    def __init__(self, what: str):
        super().__init__(what)
        self.what = what

    def __str__(self) -> str:
        return self.what
