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

>>> from symint import form as F
>>> x = F.sym("x")
>>> half = lambda e: F.floordiv(e, F.const(2))
>>> guard = F.rel(">=", F.add(half(F.sub(half(F.sub(x, F.const(1))), F.const(1))), F.const(1)), F.const(1))
>>> from symint.sympy_io import to_sympy
>>> to_sympy(as_bound(guard, "x", 2, 10**9, hint=33))
x >= 3
"""

from __future__ import annotations

import math

from symint import form as F
from symint.form import BoolForm

__all__ = ["direction", "as_bound"]


def direction(f: "F.Form", name: str) -> int | None:
    """+1 if the form ``f`` is provably non-decreasing in the symbol ``name``, -1 if non-increasing, 0 if constant, else None.

    >>> x = F.sym("x")
    >>> direction(F.floordiv(F.neg(x), F.const(2)), "x"), direction(F.mul(x, x), "x")
    (-1, None)
    """
    if name not in f.symbols:
        return 0
    dirs = set()
    for m, c in f.terms:
        factors = m.factors
        if len(factors) != 1 or factors[0][1] != 1:  # a product or a power: monotone only if constant
            if any(name in atom.symbols for atom, _ in factors):
                return None
            continue
        d = _atom_direction(factors[0][0], name)
        if d is None:
            return None
        if d:
            dirs.add(d if c > 0 else -d)
    if len(dirs) > 1:
        return None
    return dirs.pop() if dirs else 0


def _atom_direction(atom: "F.Atom", name: str) -> int | None:
    kind = atom.kind
    if kind == "sym":
        return 1 if atom.name == name else 0
    if name not in atom.symbols:
        return 0
    if kind == "max" or kind == "min":
        dirs = {direction(a, name) for a in atom.args} - {0}
        return dirs.pop() if len(dirs) == 1 and None not in dirs else None
    if (kind == "floordiv" or kind == "ceildiv") and atom.args[1].is_const:
        inner = direction(atom.args[0], name)
        return None if inner is None else inner * (1 if atom.args[1].const > 0 else -1)
    return None


def _predicate_direction(guard: BoolForm, name: str) -> int | None:
    """+1 if ``guard`` only gets truer as ``name`` grows, -1 if only falser, else None (its normal form ``p <= 0``)."""
    if guard.kind != "rel" or guard.norm.op != "<=":
        return None
    d = direction(guard.norm.p, name)
    return -d if d else None


def as_bound(guard: BoolForm, name: str, lower: int, upper: int | float, hint: int) -> BoolForm | None:
    """``guard`` (true at ``hint``) as ``name >= t`` or ``name <= t`` on ``[lower, upper]``, or None if not monotone.

    Returns ``TRUE`` when the guard holds on the whole range.
    """
    if guard.symbols != {name} or not lower <= hint <= upper or lower == -math.inf:
        return None
    way = _predicate_direction(guard, name)
    if way is None:
        return None

    def holds(v: int) -> bool:
        return F.evaluate_bool(guard, {name: v})

    try:
        if not holds(hint):
            return None
        if way > 0:  # holds on [t, upper]: the least t in [lower, hint]
            lo, hi = int(lower), hint
            if holds(lo):
                return F.TRUE
            while hi - lo > 1:  # holds(hi), not holds(lo)
                mid = (lo + hi) // 2
                lo, hi = (lo, mid) if holds(mid) else (mid, hi)
            return F.rel(">=", F.sym(name), F.const(hi))
        # holds on [lower, t]: the greatest t in [hint, upper]
        lo, step = hint, 1
        while True:  # find a failing point above hint
            probe = lo + step
            if probe > upper:
                if upper != math.inf and holds(int(upper)):
                    return F.TRUE
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
        return F.rel("<=", F.sym(name), F.const(lo))
    except (ArithmeticError, ValueError):
        return None
