"""Evaluating canonical forms on concrete integers, with Python semantics.

>>> from symint import form as F
>>> evaluate_form(F.floordiv(F.sym("x"), F.const(2)), {"x": -7})
-4
"""

from __future__ import annotations

from . import form as F

__all__ = ["evaluate_form", "evaluate_atom"]


def evaluate_atom(atom: "F.Atom", values: dict[str, int]) -> int:
    """The value of one atom (KeyError when a symbol has no value; ZeroDivisionError as Python raises)."""
    kind = atom.kind
    if kind == "sym":
        return values[atom.name]
    if kind == "opaque":
        from .evaluate import evaluate

        expr = atom.args[0]
        return evaluate(expr, {s: values[s.name] for s in expr.free_symbols})
    args = [evaluate_form(a, values) for a in atom.args]
    if kind == "floordiv":
        return args[0] // args[1]
    if kind == "ceildiv":
        return -((-args[0]) // args[1])
    if kind == "mod":
        return args[0] % args[1]
    if kind == "max":
        return max(args)
    if kind == "min":
        return min(args)
    if kind == "pow":
        if args[1] < 0:
            raise ValueError(f"a natural power with exponent {args[1]}")
        return args[0] ** args[1]
    raise ValueError(f"unknown atom kind {kind}")


def evaluate_form(f: "F.Form", values: dict[str, int]) -> int:
    """The value of ``f`` for ``values`` (symbol name -> int)."""
    total = f.const
    for m, c in f.terms:
        term = c
        for atom, p in m.factors:
            term *= evaluate_atom(atom, values) ** p
        total += term
    return total
