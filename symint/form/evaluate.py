"""Evaluating integer and boolean forms at integer values, with Python semantics.

The semantics of each operator is written once, in :mod:`symint.form.semantics`
(the sympy evaluator, :func:`symint.evaluate`, reads the same tables); an opaque
atom or boolean (a wrapped sympy expression) is evaluated by the function it carries
(Note [Opaque atoms carry their own meaning] in :mod:`symint.form.terms`).

>>> from symint.form import add, floordiv, const, rel, sym
>>> x = sym("x")
>>> evaluate_form(add(floordiv(x, const(2)), const(1)), {"x": -7})
-3
>>> evaluate_bool(rel("<", x, const(3)), {"x": 2})
True
"""

from __future__ import annotations

from .semantics import INTEGER_OPS, RELATIONS

__all__ = ["evaluate_atom", "evaluate_form", "evaluate_bool"]


def evaluate_atom(atom, values: dict[str, int]) -> int:
    """The value of one atom (KeyError when a symbol has no value; ZeroDivisionError as Python raises).

    >>> from symint.form import const, mod, sym
    >>> evaluate_atom(mod(sym("x"), const(4)).atom(), {"x": -1})
    3
    """
    kind = atom.kind
    if kind == "sym":
        return values[atom.name]
    if kind == "opaque":
        return atom.opaque_value(atom.args[0], values)
    op = INTEGER_OPS.get(kind)
    if op is None:
        raise ValueError(f"unknown atom kind {kind}")
    return op(*(evaluate_form(a, values) for a in atom.args))


def evaluate_form(f, values: dict[str, int]) -> int:
    """The value of the form ``f`` for ``values`` (symbol name -> int).

    >>> from symint.form import mul, sym
    >>> evaluate_form(mul(sym("x"), sym("y")), {"x": 3, "y": -2})
    -6
    """
    total = f.const
    for m, c in f.terms:
        term = c
        for atom, p in m.factors:
            term *= evaluate_atom(atom, values) ** p
        total += term
    return total


def evaluate_bool(b, values: dict[str, int]) -> bool:
    """The truth value of the boolean form ``b`` (``and``/``or`` left to right, short-circuiting).

    >>> from symint.form import and_, const, rel, sym
    >>> x = sym("x")
    >>> evaluate_bool(and_(rel(">", x, const(0)), rel("<", x, const(9))), {"x": 9})
    False
    """
    kind = b.kind
    if kind == "const":
        return b.value
    if kind == "rel":
        op, lhs, rhs = b.args
        return RELATIONS[op](evaluate_form(lhs, values), evaluate_form(rhs, values))
    if kind == "and":
        return all(evaluate_bool(x, values) for x in b.args)
    if kind == "or":
        return any(evaluate_bool(x, values) for x in b.args)
    if kind == "not":
        return not evaluate_bool(b.args[0], values)
    return bool(b.opaque_value(b.args[0], values))
