"""Limits on what folding and evaluation may build, so hostile input cannot make the library hang.

Sympy folds eagerly: ``(x**8192)**8192`` is ``x**67108864`` and evaluating that at
``x = 2`` needs gigabytes; ``n ** m`` at ``m = 10**9`` never ends. The limits are
defined here, on plain integers, for both sides: the canonical forms
(:mod:`symint.form` refuses a form past them) and the evaluators
(:mod:`symint.sympy_io.evaluate`, the compiled checkers of ``guards``) call
:func:`check_power`; the sympy folds are checked against the same limits by
:mod:`symint.sympy_io.limits`. Each raises :class:`~symint.errors.ExpressionLimitError`,
a typed ``OverflowError``. A guard whose *evaluation* hits a limit therefore counts
as failing, like one that divides by zero (an ``ArithmeticError``).

This module imports no sympy: the forms below it must not (Note [Forms import no sympy]
in :mod:`symint.form`).

>>> check_power(3, 10**9)
Traceback (most recent call last):
    ...
symint.errors.ExpressionLimitError: 3 ** 1000000000 would have about 1584962500 bits (at most 67108864 are evaluated)
"""

from __future__ import annotations

import math

from symint.errors import ExpressionLimitError

__all__ = [
    "MAX_INTEGER_BITS",
    "MAX_EXPONENT",
    "MAX_ARGS",
    "MAX_RESULT_BITS",
    "check_integer",
    "check_power",
    "short_int",
]

#: Largest integer constant folding may build, in bits (about 2,500 decimal digits).
MAX_INTEGER_BITS = 8192
#: Largest integer exponent of a symbolic power (``x ** 8192``).
MAX_EXPONENT = 8192
#: Most arguments of one sum, product, ``And``/``Or`` or ``Max``/``Min``.
MAX_ARGS = 1 << 17
#: Largest integer a power or product may produce while *evaluating* at concrete values, in bits.
MAX_RESULT_BITS = 1 << 26


def check_integer(value: int, where: str = "a folded constant") -> None:
    """Refuse an integer of more than :data:`MAX_INTEGER_BITS` bits.

    >>> check_integer(2**100) is None
    True
    """
    if value.bit_length() > MAX_INTEGER_BITS:
        raise ExpressionLimitError(f"{where} has {value.bit_length()} bits (at most {MAX_INTEGER_BITS})")


def check_power(base: object, exponent: object) -> None:
    """Refuse to evaluate ``base ** exponent`` on ints when the result would exceed :data:`MAX_RESULT_BITS`.

    Floats and negative exponents are left to Python (they overflow or underflow quickly).

    >>> check_power(2, 1000) is None, check_power(1, 10**100) is None, check_power(-1, 10**100) is None
    (True, True, True)
    """
    if type(base) is bool or type(exponent) is bool or not isinstance(base, int) or not isinstance(exponent, int):
        return
    if exponent <= 1 or base in (0, 1, -1):
        return
    bits = int(exponent * _log2(abs(base)))
    if bits > MAX_RESULT_BITS:
        raise ExpressionLimitError(
            f"{short_int(base)} ** {short_int(exponent)} would have about {bits} bits (at most {MAX_RESULT_BITS} are evaluated)"
        )


def _log2(n: int) -> float:
    k = n.bit_length()
    return math.log2(n) if k <= 1000 else k - 53 + math.log2(n >> (k - 53))


def short_int(n: int) -> str:
    """``n`` in decimal, or its bit length when it is too long to print.

    >>> short_int(12), short_int(2**300)
    ('12', '<301-bit int>')
    """
    return str(n) if n.bit_length() < 200 else f"<{n.bit_length()}-bit int>"
