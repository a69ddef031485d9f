"""The limits of :mod:`symint.limits` applied to what sympy folds.

The builders (:mod:`symint.build`, :func:`symint.sympy_io.substitute`, the guard parser)
check every fold with :func:`check_folded`, and a power before it is folded with
:func:`check_fold_power`; both raise :class:`~symint.errors.ExpressionLimitError`.

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
"""

from __future__ import annotations

from typing import TypeVar

import sympy

from ..errors import ExpressionLimitError
from ..limits import MAX_ARGS, MAX_EXPONENT, MAX_INTEGER_BITS, check_integer, short_int
from .functions import PowByNatural

__all__ = ["check_folded", "check_fold_power"]

T = TypeVar("T")


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
        raise ExpressionLimitError(f"the exponent {short_int(int(exponent))} is larger than {MAX_EXPONENT}")
    if isinstance(base, sympy.Integer) and k * (int(base).bit_length() - 1) > MAX_INTEGER_BITS:
        raise ExpressionLimitError(f"{short_int(int(base))} ** {k} has more than {MAX_INTEGER_BITS} bits")
