"""What a guard says, when it is one of the simple forms the simplification passes understand.

:func:`_classify` reads a sympy guard as a bound of one symbol (``lower``, ``upper``), a
value (``exact``), an excluded value (``ne``), a divisibility (``div``), an equality of
two symbols (``eqsym``), a constant, or ``other``; :func:`_canonical_key` is the sort key
of the canonical order (equalities, then bounds per symbol, then the rest); :func:`_may_raise`
and :func:`_safe_divisors` say whether evaluating a guard may divide by zero. The knowledge
these forms feed is held by the one facts engine, :class:`valueranges.facts.Facts`
(see :mod:`guards.simplify.folding`).

>>> from symint.build import symbol_expr, ge, eq, mod
>>> s = symbol_expr("s")
>>> _classify(ge(2*s, 5)), _classify(eq(mod(s, 8), 0)).kind
(_Kind(kind='lower', sym=s, value=3), 'div')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping

import sympy
from sympy.core.relational import Relational

from symint import build
from symint.sympy_io.functions import CeilDiv, FloorDiv, IntTrueDiv, Mod
from symint.sympy_io import NotAnIntegerForm, from_sympy
from valueranges import ValueRanges, bound
from valueranges.facts import natural_rank
from valueranges.facts.ranges import ceil_div

from guards.text.escape import sympy_str

__all__ = ["_Kind", "_classify", "_canonical_key", "_sym_key", "_conjuncts", "_may_raise", "_safe_divisors", "_Contradiction"]


def _sym_key(sym: sympy.Symbol) -> tuple:
    """Sort key putting ``s2`` before ``s10`` (the engine's :func:`~valueranges.facts.natural_rank`)."""
    return natural_rank(sym.name)


def _conjuncts(expr: sympy.Basic) -> Iterable[sympy.Basic]:
    # And(a, b) holds (evaluates to True without raising) exactly when a and b both hold.
    if isinstance(expr, sympy.And):
        for arg in expr.args:
            yield from _conjuncts(arg)
    else:
        yield expr


@dataclass(frozen=True, slots=True)
class _Kind:
    """What a guard says, when it is one of the simple forms simplification understands."""

    kind: str  # "eqsym", "lower", "upper", "exact", "ne", "div", "false", "true", "other"
    sym: sympy.Symbol | None = None
    value: object = None


@lru_cache(maxsize=1 << 14)
def _classify(e: sympy.Basic) -> _Kind:
    if not isinstance(e, Relational) or build.is_bool_expr(e.lhs) or build.is_bool_expr(e.rhs):
        return _Kind("other")
    op = e.rel_op
    diff = build.sub(e.lhs, e.rhs)
    if op == "==" and isinstance(diff, Mod) and diff.args[0].is_Symbol and diff.args[1].is_Integer:
        return _Kind("div", diff.args[0], abs(int(diff.args[1])))
    try:
        form = from_sympy(diff)
    except NotAnIntegerForm:
        return _Kind("other")
    lin = form.linear()
    if lin is None:
        return _Kind("other")
    coeffs, k = {build.symbol_expr(n): c for n, c in lin.items()}, form.const
    if len(coeffs) == 2 and op == "==" and k == 0:
        (a, ca), (b, cb) = coeffs.items()
        if ca == -cb:
            return _Kind("eqsym", a, b)
    if len(coeffs) != 1:
        return _Kind("other")
    ((s, c),) = coeffs.items()
    if op in ("==", "!="):  # c*s + k == 0
        if k % c:
            return _Kind("false" if op == "==" else "true")
        return _Kind("exact" if op == "==" else "ne", s, -k // c)
    # Normalise to c*s <= t or c*s >= t.
    t, upper = {"<": (-1 - k, True), "<=": (-k, True), ">": (1 - k, False), ">=": (-k, False)}[op]
    if upper == (c > 0):  # s <= t / c
        return _Kind("upper", s, t // c)
    return _Kind("lower", s, ceil_div(t, c))


@lru_cache(maxsize=1 << 14)
def _canonical_key(e: sympy.Basic) -> tuple:
    k = _classify(e)
    text = sympy_str(e)  # str(e), in linear memory for huge sums (Note [Printing large sums])
    if k.kind == "eqsym":
        member = max(k.sym, k.value, key=_sym_key)
        return (0, _sym_key(member), (0, 0), text)
    if k.kind == "exact":
        return (0, _sym_key(k.sym), (0, 0), text)
    if isinstance(e, sympy.Eq) and k.kind != "div":
        return (1, (), (0, 0), text)
    sub = {"lower": 0, "upper": 1, "ne": 2, "div": 3}.get(k.kind)
    if sub is not None:
        return (2, _sym_key(k.sym), (sub, k.value), text)
    return (3, (), (0, 0), text)


@lru_cache(maxsize=1 << 14)
def _may_raise(e: sympy.Basic) -> bool:
    """Whether evaluating ``e`` may divide by zero (a divisor that is not a nonzero constant).

    Such guards are never rewritten by substitution: symint's canonical forms assume
    divisors are nonzero (``Mod(s0, s0)`` is 0), so replacing ``s1`` by ``s0`` in
    ``Eq(Mod(s0, s1), 0)`` would lose the failure at ``s0 == 0``.
    """
    for node in sympy.preorder_traversal(e):
        if isinstance(node, (FloorDiv, CeilDiv, Mod)) and not node.args[1].is_Integer:
            return True
        if isinstance(node, IntTrueDiv) or (node.is_Pow and node.args[1].is_negative):
            return True
    return False


def _safe_divisors(e: sympy.Basic, ranges: Mapping[sympy.Symbol, ValueRanges]) -> bool:
    """Whether no division in ``e`` can have a zero divisor within ``ranges`` (so ``e`` never raises)."""
    for node in sympy.preorder_traversal(e):
        if isinstance(node, (FloorDiv, CeilDiv, Mod)):
            d = node.args[1]
            if d.is_Integer:
                continue
            r = bound(d, ranges)
            if not (r.lower > 0 or r.upper < 0):
                return False
        elif isinstance(node, IntTrueDiv) or (node.is_Pow and node.args[1].is_negative):
            return False
    return True


class _Contradiction(Exception):
    """The guards cannot all hold (found by the cheap passes; Z3 confirms)."""

    def __init__(self, origins: Iterable[int]):
        super().__init__("contradiction")
        self.origins = frozenset(origins)
