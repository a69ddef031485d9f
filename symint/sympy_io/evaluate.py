"""Evaluate an expression built by ``symint`` at concrete values, with Python semantics.

This walks the expression tree with plain Python arithmetic (no sympy
substitution), so it is both exact and fast enough for tests and fuzzers.

Note [Nodes say their value]
    Each sympy function class of :mod:`symint.sympy_io.functions` and
    :mod:`symint.sympy_io.floats` carries its Python semantics: ``python_eval(*values)``
    (for the integer functions, the entries of :data:`symint.form.semantics.INTEGER_OPS`,
    which the forms' evaluator reads too), or, for ``IfThenElse``,
    ``python_branch(condition)``: the index of the one argument that is evaluated, as
    Python evaluates only the branch taken. So this module imports no node class, and the
    nodes' module can give the opaque atoms it creates this evaluator (Note [Nodes and
    conversions in one module] there).

>>> from symint.build import symbol_expr, floordiv, mod
>>> x = symbol_expr("x")
>>> evaluate(floordiv(x, 2) + mod(x, 3), {x: -7})
-2
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

import sympy
from sympy.core.relational import Relational

from symint.form.semantics import RELATIONS
from symint.limits import check_power

__all__ = ["evaluate", "UnboundSymbolError"]


class UnboundSymbolError(KeyError):
    """``evaluate`` met a symbol with no value in the bindings."""


Value = int | bool | float | Fraction


def _num(v: Value) -> int | float:
    if isinstance(v, Fraction):
        return v.numerator if v.denominator == 1 else float(v)
    return v


def evaluate(expr, values: Mapping["sympy.Symbol | str", int]) -> int | bool | float:
    """The value of ``expr`` when each symbol takes its value in ``values``.

    Args:
        expr: a sympy expression built by ``symint``, a ``SymInt``/``SymBool``/``SymFloat``
            (its expression is used), or a plain number (returned as is).
        values: symbol -> value; symbols may also be given by name.

    Raises:
        UnboundSymbolError: a symbol of ``expr`` has no value.
        ZeroDivisionError: a division or modulo by zero, as Python would.

    >>> from symint.build import symbol_expr, lt
    >>> evaluate(lt(symbol_expr("x"), 3), {symbol_expr("x"): 2})
    True
    >>> from symint import symbol
    >>> evaluate(symbol("n") // 2, {"n": -7})
    -4
    """
    node = getattr(expr, "node", None)
    if node is not None and isinstance(getattr(node, "expr", None), sympy.Basic):
        expr = node.expr
    if isinstance(expr, (bool, int, float)):
        return expr
    if not isinstance(expr, sympy.Basic):
        raise TypeError(f"cannot evaluate {expr!r}: expected a sympy expression or a SymInt/SymBool/SymFloat")
    if any(isinstance(k, str) for k in values):
        values = {(sympy.Symbol(k, integer=True) if isinstance(k, str) else k): v for k, v in values.items()}
    return _num(_eval(expr, values))


def _eval(e: sympy.Basic, values: Mapping[sympy.Symbol, int]) -> Value:
    if e.is_Symbol:
        try:
            return values[e]
        except KeyError:
            raise UnboundSymbolError(f"no value given for symbol {e}") from None
    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Float:
        return float(e)
    if e is sympy.true:
        return True
    if e is sympy.false:
        return False
    if e.is_Add:
        return sum((_eval(a, values) for a in e.args), 0)
    if e.is_Mul:
        result: Value = 1
        for a in e.args:
            result = result * _eval(a, values)
        return result
    if e.is_Pow:
        base, exp = _eval(e.args[0], values), _eval(e.args[1], values)
        if isinstance(exp, Fraction) and exp.denominator == 1:
            exp = exp.numerator
        if isinstance(exp, int):
            check_power(base, abs(exp))
        if isinstance(exp, int) and exp < 0:
            return Fraction(1, base ** (-exp)) if isinstance(base, int) else base**exp
        return base**exp
    if isinstance(e, Relational):
        return RELATIONS[e.rel_op](_eval(e.lhs, values), _eval(e.rhs, values))
    if isinstance(e, sympy.And):
        return all(_eval(a, values) for a in e.args)
    if isinstance(e, sympy.Or):
        return any(_eval(a, values) for a in e.args)
    if isinstance(e, sympy.Not):
        return not _eval(e.args[0], values)
    branch = getattr(type(e), "python_branch", None)  # IfThenElse: Note [Nodes say their value]
    if branch is not None:
        return _eval(e.args[branch(_eval(e.args[0], values))], values)
    fn = getattr(type(e), "python_eval", None)  # Note [Nodes say their value]
    if fn is not None:
        return fn(*(_num(_eval(a, values)) for a in e.args))
    raise TypeError(f"cannot evaluate {type(e).__name__} in {e}: not an expression built by symint")
