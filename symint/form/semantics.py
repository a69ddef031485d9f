"""Python's semantics of the integer operators and relations, written once for both evaluators.

:func:`symint.form.evaluate.evaluate_form` (forms) and :func:`symint.evaluate` (sympy
expressions, for floats and opaque nodes) both read these tables.

>>> INTEGER_OPS["floordiv"](-7, 2), INTEGER_OPS["mod"](-1, 4), RELATIONS["<="](2, 2)
(-4, 3, True)
"""

from __future__ import annotations

from typing import Callable

from ..limits import check_power

__all__ = ["INTEGER_OPS", "RELATIONS", "pow_natural"]


def pow_natural(a: int, b: int) -> int:
    """``a ** b`` for a natural ``b`` (ValueError for ``b < 0``; ExpressionLimitError past the limits).

    >>> pow_natural(3, 4)
    81
    """
    if b < 0:
        raise ValueError(f"PowByNatural({a}, {b}): the exponent must be >= 0")
    check_power(a, b)  # ExpressionLimitError (an OverflowError) rather than hours of work
    return a**b


#: Python's semantics of each integer atom kind (and of the sympy functions that spell them).
INTEGER_OPS: dict[str, Callable[..., int]] = {
    "floordiv": lambda a, b: a // b,
    "ceildiv": lambda a, b: -(-a // b),
    "mod": lambda a, b: a % b,
    "max": lambda *xs: max(xs),
    "min": lambda *xs: min(xs),
    "pow": pow_natural,
}

#: Python's comparison for each relation operator.
RELATIONS: dict[str, Callable[[object, object], bool]] = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
