"""``sym_float``, ``sym_sum``, ``sym_sqrt`` and the other math functions on symbolic values (``torch.sym_*``).

Each returns a plain number for plain arguments and a symbolic value otherwise; none
records a guard.

>>> from symint import symbol
>>> n = symbol("n", hint=16)
>>> sym_float(n), sym_float(n).node.hint, sym_sqrt(n), sym_sqrt(n).node.hint, sym_sqrt(9)
(n, 16.0, FloatSqrt(n), 4.0, 3.0)
>>> sym_sum([n, 2 * n, 3]), sym_sum([n, 2 * n, 3]).node.hint
(3*n + 3, 51)
"""

from __future__ import annotations

import math
from typing import Iterable

from symint import build
from symint.errors import SymbolicTypeError
from symint.node import compute_hint, merge_envs
from symint.values import SymBool, SymFloat, SymInt, unwrap, wrap

__all__ = ["sym_float", "sym_sum", "sym_sqrt", "sym_exp", "sym_log", "sym_sin", "sym_cos", "sym_tan",
           "sym_tanh", "sym_atan", "sym_asinh", "sym_math"]


def sym_float(value):
    """``float(value)`` without a guard: a SymInt becomes the SymFloat of the same expression.

    >>> from symint import symbol
    >>> sym_float(3), type(sym_float(symbol("s", hint=2))).__name__
    (3.0, 'SymFloat')
    """
    if isinstance(value, SymFloat):
        return value
    if isinstance(value, SymInt):
        node = value.node
        return wrap(node.expr, float, compute_hint(float, node.hint), node.env)
    if isinstance(value, SymBool):
        raise SymbolicTypeError("sym_float of a SymBool: convert it with sym_ite(b, 1.0, 0.0)")
    return float(value)


def sym_sum(values: Iterable):
    """``sum(values)`` built as one sum (no chain of partial sums), without a guard.

    >>> sym_sum([1, 2, 3])
    6
    """
    items = list(values)
    if not any(isinstance(v, (SymInt, SymFloat)) for v in items):
        return sum(items)
    ops = [unwrap(v) for v in items]
    for v, u in zip(items, ops):
        if u is None or u[2] is bool:
            raise SymbolicTypeError(f"sym_sum: expected numbers, got {v!r}")
    expr = ops[0][0]
    for e, _, _, _ in ops[1:]:
        expr = build.add(expr, e)
    pytype = float if any(t is float for _, _, t, _ in ops) else int
    hint = compute_hint(lambda *hs: sum(hs), *(h for _, h, _, _ in ops))
    env = merge_envs(*(n for _, _, _, n in ops if n is not None))
    return wrap(expr, pytype, hint, env)


def sym_math(name: str, value):
    """``math.<name>(value)`` for ``name`` in sqrt, exp, log, sin, cos, tan, tanh, atan, asinh; a SymFloat if symbolic.

    >>> sym_math("exp", 0)
    1.0
    """
    from symint.sympy_io.floats import FLOAT_FUNCTIONS  # sympy on first use (Note [sympy on first use] in symint.lazy_sympy)

    try:
        fn = FLOAT_FUNCTIONS[name]
    except KeyError:
        raise ValueError(f"sym_math: unknown function {name!r}; one of {sorted(FLOAT_FUNCTIONS)}") from None
    if not isinstance(value, (SymInt, SymFloat)):
        if isinstance(value, SymBool):
            raise SymbolicTypeError(f"sym_{name} of a SymBool")
        return getattr(math, name)(value)
    node = value.node
    return wrap(fn(node.expr), float, compute_hint(lambda h: getattr(math, name)(h), node.hint), node.env)


def sym_sqrt(value):
    """``math.sqrt(value)`` without a guard.

    >>> sym_sqrt(4)
    2.0
    """
    return sym_math("sqrt", value)


def sym_exp(value):
    """``math.exp(value)`` without a guard (``sym_exp(0) == 1.0``)."""
    return sym_math("exp", value)


def sym_log(value):
    """``math.log(value)`` without a guard (``sym_log(1) == 0.0``)."""
    return sym_math("log", value)


def sym_sin(value):
    """``math.sin(value)`` without a guard (``sym_sin(0) == 0.0``)."""
    return sym_math("sin", value)


def sym_cos(value):
    """``math.cos(value)`` without a guard (``sym_cos(0) == 1.0``)."""
    return sym_math("cos", value)


def sym_tan(value):
    """``math.tan(value)`` without a guard (``sym_tan(0) == 0.0``)."""
    return sym_math("tan", value)


def sym_tanh(value):
    """``math.tanh(value)`` without a guard (``sym_tanh(0) == 0.0``)."""
    return sym_math("tanh", value)


def sym_atan(value):
    """``math.atan(value)`` without a guard (``sym_atan(0) == 0.0``)."""
    return sym_math("atan", value)


def sym_asinh(value):
    """``math.asinh(value)`` without a guard (``sym_asinh(0) == 0.0``)."""
    return sym_math("asinh", value)
