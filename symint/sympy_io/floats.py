"""Opaque sympy functions for what shape code rarely needs: bitwise ``& | ^`` of integers and float math.

Each function folds on numeric arguments (to exactly what Python computes) and otherwise
stays an opaque node. Two small class attributes let lower layers handle them without
knowing them by name:

* ``python_eval(*args)``: the value on concrete arguments (used by :func:`symint.evaluate`);
* ``bound_args(*intervals)``: ``(lower, upper)`` of the result from ``(lower, upper)`` of
  the arguments (endpoints may be ``+-math.inf``), used by :mod:`valueranges`.

Note [Opaque float functions]
    ``sym_sqrt(s)`` is ``FloatSqrt(s)``, not sympy's ``sqrt`` (``s**(1/2)``): sympy would
    rewrite ``sqrt(4*s)`` to ``2*sqrt(s)`` and ask assumptions about ``s``; torch keeps an
    opaque ``OpaqueUnaryFn_sqrt`` for the same reason. The float functions are monotone
    where that is true (sqrt, exp, log, tanh, atan, asinh), which is all the bound uses.

>>> import sympy
>>> x = sympy.Symbol("x", integer=True)
>>> BitwiseAnd(12, 10), BitwiseOr(x, 0), FloatSqrt(16), FloatSqrt(x)
(8, x, 4.00000000000000, FloatSqrt(x))
"""

from __future__ import annotations

import math
import operator
import sys
from typing import Callable

import sympy

__all__ = [
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "FloatSqrt",
    "FLOAT_FUNCTIONS",
    "OPAQUE_FUNCTIONS",
]

INF = math.inf
_FLOAT_MAX = sys.float_info.max


def _next_pow2_minus_one(hi: float) -> float:
    if hi == INF:
        return INF
    return float((1 << int(hi).bit_length()) - 1)


def _on_booleans(op: Callable[[bool, bool], bool], ra: tuple, rb: tuple) -> tuple | None:
    """The exact range of ``op`` on two boolean ranges (each holds only its ends), else None.

    torch's ``bitwise_and`` of two booleans is their ``and``: ``[True, True]``, not ``[0, 1]``.
    """
    if not all(type(v) is bool for v in (*ra, *rb)):
        return None
    values = [bool(op(a, b)) for a in set(ra) for b in set(rb)]
    return min(values), max(values)


class _Bitwise(sympy.Function):
    """An integer bitwise operation on two integers (Python's semantics, also for negatives)."""

    is_integer = True
    _op: Callable[[int, int], int]
    _identity: int | None = None

    @classmethod
    def eval(cls, a, b):
        if isinstance(a, sympy.Integer) and isinstance(b, sympy.Integer):
            return sympy.Integer(cls._op(int(a), int(b)))
        if cls._identity is not None:
            if a == cls._identity:
                return b
            if b == cls._identity:
                return a
        return None

    @classmethod
    def python_eval(cls, a, b):
        return cls._op(int(a), int(b))


class BitwiseAnd(_Bitwise):
    """``a & b``.

    >>> BitwiseAnd(6, 3)
    2
    """

    _op = staticmethod(lambda a, b: a & b)

    @classmethod
    def eval(cls, a, b):
        if a == 0 or b == 0:
            return sympy.Integer(0)
        return super().eval(a, b)

    @staticmethod
    def bound_args(ra, rb):
        on_bools = _on_booleans(operator.and_, ra, rb)
        if on_bools is not None:
            return on_bools
        (alo, ahi), (blo, bhi) = ra, rb
        if alo >= 0 and blo >= 0:
            return 0, min(ahi, bhi)
        if alo >= 0:
            return 0, ahi
        if blo >= 0:
            return 0, bhi
        return -INF, INF


class BitwiseOr(_Bitwise):
    """``a | b``.

    >>> BitwiseOr(4, 1)
    5
    """

    _op = staticmethod(lambda a, b: a | b)
    _identity = 0

    @staticmethod
    def bound_args(ra, rb):
        on_bools = _on_booleans(operator.or_, ra, rb)
        if on_bools is not None:
            return on_bools
        (alo, ahi), (blo, bhi) = ra, rb
        if alo >= 0 and blo >= 0:
            return max(alo, blo), _next_pow2_minus_one(max(ahi, bhi))
        return -INF, INF


class BitwiseXor(_Bitwise):
    """``a ^ b``.

    >>> BitwiseXor(6, 3)
    5
    """

    _op = staticmethod(lambda a, b: a ^ b)
    _identity = 0

    @staticmethod
    def bound_args(ra, rb):
        on_bools = _on_booleans(operator.xor, ra, rb)
        if on_bools is not None:
            return on_bools
        (alo, ahi), (blo, bhi) = ra, rb
        if alo >= 0 and blo >= 0:
            return 0, _next_pow2_minus_one(max(ahi, bhi))
        return -INF, INF


def _monotone(fn: Callable[[float], float], lo_domain: float) -> Callable:
    """``bound_args`` of a non-decreasing ``fn`` defined on ``[lo_domain, oo]``."""

    def at(v: float) -> float:
        try:
            return fn(v)
        except OverflowError:
            return INF

    def bound_args(r):
        lo, hi = r
        if lo < lo_domain:
            return -INF, INF
        # Note [Overflowing float functions]: exp(1000) has no float value (Python raises,
        # torch gives inf) and log(0) is -inf; ``oo`` is not a value of a range, so an end
        # that overflows is "past the largest float": [MAX, oo] and [-oo, -MAX].
        low, high = at(lo), at(hi)
        return (_FLOAT_MAX if low == INF else low), (-_FLOAT_MAX if high == -INF else high)

    return staticmethod(bound_args)


def _periodic(r):
    return -1.0, 1.0


def _float_function(name: str, fn: Callable[[float], float], bound_args) -> type:
    """A one-argument opaque float function class named ``name`` that folds on numbers with ``fn``."""

    def eval(cls, x):  # noqa: A001 - sympy's hook
        if x.is_Number:
            try:
                return sympy.Float(fn(float(x)))
            except (ValueError, OverflowError):
                return None
        return None

    attrs = {
        "eval": classmethod(eval),
        "is_real": True,
        "python_eval": staticmethod(lambda x: fn(float(x))),
        "bound_args": bound_args,
        "__doc__": f"``math.{fn.__name__}(x)`` as an opaque float expression (see Note [Opaque float functions]).",
        "__module__": __name__,
    }
    return type(name, (sympy.Function,), attrs)


def _log_safe(v: float) -> float:
    return -INF if v == 0 else math.log(v)


FloatSqrt = _float_function("FloatSqrt", math.sqrt, _monotone(math.sqrt, 0))
FloatExp = _float_function("FloatExp", math.exp, _monotone(math.exp, -INF))
FloatLog = _float_function("FloatLog", math.log, _monotone(_log_safe, 0))
FloatSin = _float_function("FloatSin", math.sin, staticmethod(_periodic))
FloatCos = _float_function("FloatCos", math.cos, staticmethod(_periodic))
FloatTan = _float_function("FloatTan", math.tan, staticmethod(lambda r: (-INF, INF)))
FloatTanh = _float_function("FloatTanh", math.tanh, _monotone(math.tanh, -INF))
FloatAtan = _float_function("FloatAtan", math.atan, _monotone(math.atan, -INF))
FloatAsinh = _float_function("FloatAsinh", math.asinh, _monotone(math.asinh, -INF))

#: name (as in ``torch.sym_<name>`` / ``math.<name>``) -> opaque function class.
FLOAT_FUNCTIONS: dict[str, type] = {
    "sqrt": FloatSqrt,
    "exp": FloatExp,
    "log": FloatLog,
    "sin": FloatSin,
    "cos": FloatCos,
    "tan": FloatTan,
    "tanh": FloatTanh,
    "atan": FloatAtan,
    "asinh": FloatAsinh,
}

OPAQUE_FUNCTIONS: tuple[type, ...] = (BitwiseAnd, BitwiseOr, BitwiseXor, *FLOAT_FUNCTIONS.values())
