"""Limits on what folding and evaluation may build, so hostile input cannot make the library hang.

Sympy folds eagerly: ``(x**8192)**8192`` is ``x**67108864`` and evaluating that at
``x = 2`` needs gigabytes; ``n ** m`` at ``m = 10**9`` never ends. The checks here
are called after every fold of the builders (:mod:`symint.build`,
:func:`symint.sympy_io.substitute`) and by the evaluators (:mod:`symint.evaluate`, the
compiled checkers of ``guards``), and raise
:class:`~symint.errors.ExpressionLimitError`, a typed ``OverflowError``. A guard whose *evaluation* hits a limit therefore counts
as failing, like one that divides by zero (an ``ArithmeticError``).

Note [Where the limits are checked]
    Folding grows an expression only near its root: sympy flattens a product of
    powers into one ``Pow`` factor, distributes a number over a sum into new
    coefficients, and multiplies constants. So :func:`check_folded` looks at the
    node a builder returned, its arguments and, for sums, each term's
    coefficient and power factors: a constant amount of work per fold besides
    what sympy already spent building the node. The limits are far above any
    real shape computation (a size of 2**8192 elements does not exist).

>>> import sympy
>>> x = sympy.Symbol("x", integer=True)
>>> check_folded(x**8192)
x**8192
>>> check_folded(x**16384)
Traceback (most recent call last):
    ...
symint.errors.ExpressionLimitError: the exponent 16384 is larger than 8192 (in a folded power)
>>> check_power(3, 10**9)
Traceback (most recent call last):
    ...
symint.errors.ExpressionLimitError: 3 ** 1000000000 would have about 1584962500 bits (at most 67108864 are evaluated)
"""

from __future__ import annotations

import math
from typing import TypeVar

import sympy

from symint.errors import ExpressionLimitError
from symint.sympy_io.functions import PowByNatural

__all__ = [
    "MAX_INTEGER_BITS",
    "MAX_EXPONENT",
    "MAX_ARGS",
    "MAX_RESULT_BITS",
    "check_integer",
    "check_folded",
    "check_fold_power",
    "check_power",
]

T = TypeVar("T")

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


def _check_node(e: sympy.Basic) -> None:
    if isinstance(e, sympy.Integer):
        check_integer(int(e))
    elif isinstance(e, sympy.Rational):
        check_integer(int(e.p))
        check_integer(int(e.q))
    elif e.is_Pow or isinstance(e, PowByNatural):
        exp = e.args[1]
        if isinstance(exp, sympy.Integer) and abs(int(exp)) > MAX_EXPONENT:
            raise ExpressionLimitError(f"the exponent {int(exp)} is larger than {MAX_EXPONENT} (in a folded power)")


def check_folded(e: T) -> T:
    """Check what a fold returned (Note [Where the limits are checked]); returns ``e``.

    Raises:
        ExpressionLimitError: a constant, an exponent or an argument count is over its limit.

    >>> check_folded(sympy.Integer(2) ** 9000)
    Traceback (most recent call last):
        ...
    symint.errors.ExpressionLimitError: a folded constant has 9001 bits (at most 8192)
    """
    if not isinstance(e, sympy.Basic):
        return e
    _check_node(e)
    args = e.args
    if len(args) > MAX_ARGS:
        raise ExpressionLimitError(f"a {type(e).__name__} with {len(args)} arguments (at most {MAX_ARGS})")
    if args and (e.is_Add or e.is_Mul or e.is_Pow):
        for a in args:
            _check_node(a)
            if e.is_Add and a.is_Mul:
                for f in a.args:
                    _check_node(f)
    return e


def check_fold_power(base: sympy.Basic, exponent: sympy.Basic) -> None:
    """Refuse to *fold* ``base ** exponent`` when the exponent or the constant it would make is too large.

    Called before the power is built, so that ``PowByNatural(2, 10**9)`` is never computed.

    >>> check_fold_power(sympy.Integer(2), sympy.Integer(100)) is None
    True
    """
    if not isinstance(exponent, sympy.Integer):
        return
    k = abs(int(exponent))
    if isinstance(base, sympy.Integer) and int(base) in (0, 1, -1):
        return
    if k > MAX_EXPONENT:
        raise ExpressionLimitError(f"the exponent {_short(int(exponent))} is larger than {MAX_EXPONENT}")
    if isinstance(base, sympy.Integer) and k * (int(base).bit_length() - 1) > MAX_INTEGER_BITS:
        raise ExpressionLimitError(f"{_short(int(base))} ** {k} has more than {MAX_INTEGER_BITS} bits")


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
            f"{_short(base)} ** {_short(exponent)} would have about {bits} bits (at most {MAX_RESULT_BITS} are evaluated)"
        )


def _log2(n: int) -> float:
    k = n.bit_length()
    return math.log2(n) if k <= 1000 else k - 53 + math.log2(n >> (k - 53))


def _short(n: int) -> str:
    return str(n) if n.bit_length() < 200 else f"<{n.bit_length()}-bit int>"
