"""Single-symbol guards that are monotone in their symbol become plain bounds.

A guard such as ``((x - 1)//2 - 1)//2 + 1 >= 1`` (a conv/pool output must be
non-empty) reads one symbol and only gets truer as the symbol grows. Within the
symbol's range it is therefore exactly ``x >= t`` for the least ``t`` where it
holds, which a binary search over concrete values finds. The bound is cheaper to
check and merges with the symbol's other bounds.

Note [Why the rewrite is exact]
    :func:`direction` is a syntactic proof of monotonicity: sums of non-decreasing
    terms, positive multiples, floor/ceil division by a positive constant and
    ``Max``/``Min`` of non-decreasing terms are non-decreasing (and mirror-wise for
    non-increasing). A predicate ``d >= 0`` with ``d`` non-decreasing holds on an
    upward-closed set; its least element within the range is found by bisection.
    Anything the syntax cannot prove monotone (``Mod``, products of symbols,
    division by a symbol) is left alone. Evaluation that raises aborts the rewrite.

>>> from symint.build import symbol_expr, floordiv, add, ge
>>> x = symbol_expr("x")
>>> guard = ge(add(floordiv(add(floordiv(add(x, -1), 2), -1), 2), 1), 1)
>>> as_bound(guard, x, 2, 10**9, hint=33)
x >= 3
"""

from __future__ import annotations

import math

import sympy

from symint import form as F
from symint.form import logic as B
from symint.form.logic import BoolForm
from symint.sympy_io import NotAnIntegerForm, bool_from_sympy, from_sympy

__all__ = ["direction", "as_bound", "form_direction", "bound_of_guard"]


def form_direction(f: "F.Form", name: str) -> int | None:
    """+1 if the form ``f`` is provably non-decreasing in the symbol ``name``, -1 if non-increasing, 0 if constant, else None.

    >>> x = F.sym("x")
    >>> form_direction(F.floordiv(F.neg(x), F.const(2)), "x"), form_direction(F.mul(x, x), "x")
    (-1, None)
    """
    if name not in f.symbols:
        return 0
    found = 0
    for m, c in f.terms:
        if name not in m.symbols:
            continue
        atom = m.single_atom()
        d = None if atom is None else _atom_direction(atom, name)
        if d is None:
            return None
        d = d if c > 0 else -d
        if d and found and d != found:
            return None
        found = found or d
    return found


def _atom_direction(atom: "F.Atom", name: str) -> int | None:
    kind = atom.kind
    if kind == "sym":
        return 1
    if kind in ("max", "min"):
        dirs = {form_direction(a, name) for a in atom.args} - {0}
        return dirs.pop() if len(dirs) == 1 and None not in dirs else None
    if kind in ("floordiv", "ceildiv"):
        a, k = atom.args
        if not k.is_const or k.const == 0:
            return None
        inner = form_direction(a, name)
        return None if inner is None else inner * (1 if k.const > 0 else -1)
    return None


def direction(expr: sympy.Expr, sym: sympy.Symbol) -> int | None:
    """:func:`form_direction` of a sympy expression (the sympy boundary).

    >>> from symint.build import symbol_expr, floordiv
    >>> x = symbol_expr("x")
    >>> direction(floordiv(-x, 2), x), direction(x * x, x)
    (-1, None)
    """
    try:
        return form_direction(from_sympy(expr), sym.name)
    except NotAnIntegerForm:
        return None


def _predicate_direction(guard: BoolForm, name: str) -> int | None:
    if guard.kind != "rel" or guard.norm.op != "<=":
        return None
    d = form_direction(guard.norm.p, name)  # the guard is ``p <= 0``: it holds more as p shrinks
    return -d if d else None


def bound_of_guard(guard: BoolForm, name: str, lower: int, upper: int | float, hint: int) -> BoolForm | None:
    """``guard`` (a form true at ``hint``) as ``name >= t`` or ``name <= t`` on ``[lower, upper]``, or None if not monotone.

    Returns ``TRUE`` when the guard holds on the whole range.

    >>> x = F.sym("x")
    >>> g = B.rel(">=", F.floordiv(F.add(x, F.const(-1)), F.const(2)), F.const(1))
    >>> bound_of_guard(g, "x", 2, 10**9, hint=33).sympy()
    x >= 3
    """
    if guard.kind != "rel" or guard.symbols != {name} or not lower <= hint <= upper or lower == -math.inf:
        return None
    way = _predicate_direction(guard, name)
    if way is None:
        return None
    x = F.sym(name)

    def holds(v: int) -> bool:
        return guard.evaluate({name: v})

    try:
        if not holds(hint):
            return None
        if way > 0:  # holds on [t, upper]: the least t in [lower, hint]
            lo, hi = int(lower), hint
            if holds(lo):
                return B.TRUE
            while hi - lo > 1:  # holds(hi), not holds(lo)
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if holds(mid) else (mid, hi)
            return B.rel(">=", x, F.const(hi))
        # holds on [lower, t]: the greatest t in [hint, upper]
        lo, step = hint, 1
        while True:  # find a failing point above hint
            probe = lo + step
            if probe > upper:
                if upper != math.inf and holds(int(upper)):
                    return B.TRUE
                hi = int(upper) if upper != math.inf else None
                break
            if not holds(probe):
                hi = probe
                break
            lo, step = probe, step * 2
            if step > 2**62:
                return None
        if hi is None:
            return None
        while hi - lo > 1:  # holds(lo), not holds(hi)
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if holds(mid) else (lo, mid)
        return B.rel("<=", x, F.const(lo))
    except (ArithmeticError, ValueError):
        return None


def as_bound(guard: sympy.Basic, sym: sympy.Symbol, lower: int, upper: int | float, hint: int) -> sympy.Basic | None:
    """:func:`bound_of_guard` of a sympy guard (the sympy boundary): ``sympy.true`` on the whole range."""
    if guard.free_symbols != {sym}:
        return None
    try:
        found = bound_of_guard(bool_from_sympy(guard), sym.name, lower, upper, hint)
    except NotAnIntegerForm:
        return None
    return None if found is None else found.sympy()
