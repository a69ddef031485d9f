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
from symint import form as F
from symint.form.logic import BoolForm
from symint.sympy_io.functions import CeilDiv, FloorDiv, IntTrueDiv, Mod
from symint.sympy_io import bool_from_sympy
from valueranges import ValueRanges, bound
from valueranges.facts import natural_rank

from guards.text.escape import sympy_str

__all__ = [
    "_Kind", "_classify", "_canonical_key", "_sym_key", "_conjuncts", "_may_raise", "_safe_divisors", "_Contradiction",
    "classify_form", "form_order_key", "form_size",
]


def _sym_key(sym: sympy.Symbol) -> tuple:
    """Sort key putting ``s2`` before ``s10`` (the engine's :func:`~valueranges.facts.natural_rank`)."""
    return natural_rank(sym.name)


@lru_cache(maxsize=1 << 14)
def _name_key(name: str) -> tuple:
    """:func:`_sym_key` of a symbol name (cached: sorting guards asks it of the same few names again and again)."""
    return natural_rank(name)


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
    """What the relation ``e`` says (:func:`classify_form` of its form, with sympy symbols)."""
    if not isinstance(e, Relational) or build.is_bool_expr(e.lhs) or build.is_bool_expr(e.rhs):
        return _Kind("other")
    k = classify_form(bool_from_sympy(e))
    if k.sym is None:
        return k
    value = build.symbol_expr(k.value) if k.kind == "eqsym" else k.value
    return _Kind(k.kind, build.symbol_expr(k.sym), value)


def classify_form(b: BoolForm) -> _Kind:
    """What a boolean form says when it is a simple one (``sym`` is then a symbol name), read from its normal form.

    The normal form ``p op 0`` (:mod:`symint.form.logic`) has already divided ``p`` by the
    gcd of its coefficients (``2*s >= 5`` is ``3 - s <= 0``; ``Eq(3*Mod(s, 2), 0)`` is
    ``Mod(s, 2) == 0``) and folded a relation that holds for every integer, or for none, to
    a constant.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> s = F.sym("s")
    >>> classify_form(B.rel(">=", F.scale(s, 2), F.const(5))), classify_form(B.rel("==", F.mod(s, F.const(8)), F.const(0))).kind
    (_Kind(kind='lower', sym='s', value=3), 'div')
    """
    if b.kind == "const":
        return _Kind("true" if b.value else "false")
    if b.kind != "rel":
        return _Kind("other")
    op, p = b.norm.op, b.norm.p
    if op == "==":
        atom = p.atom()
        if atom is not None and atom.kind == "mod" and atom.args[0].atom() is not None and atom.args[1].is_const:
            inner = atom.args[0].atom()
            if inner.kind == "sym" and atom.args[1].const != 0:
                return _Kind("div", inner.name, abs(atom.args[1].const))
    lin = p.linear()
    if not lin:
        return _Kind("other")
    k = p.const
    if len(lin) == 2 and op == "==" and k == 0:
        (a, ca), (c, cb) = lin.items()
        if ca == -cb:
            return _Kind("eqsym", a, c)
    if len(lin) != 1:
        return _Kind("other")
    ((s, c),) = lin.items()  # c is 1 or -1: the normal form divided by it
    if op == "==" or op == "!=":  # c*s + k == 0
        return _Kind("exact" if op == "==" else "ne", s, -k // c)
    # c*s + k <= 0
    return _Kind("upper", s, -k) if c > 0 else _Kind("lower", s, k)


def form_size(b: BoolForm) -> int:
    """The number of nodes of a boolean form (relations, terms, atoms and their arguments): a cost.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> form_size(B.rel(">=", F.sym("x"), F.const(2))) < form_size(B.rel(">=", F.mod(F.sym("x"), F.sym("y")), F.const(2)))
    True
    """
    if b.kind == "rel":
        return 1 + _form_nodes(b.args[1]) + _form_nodes(b.args[2])
    if b.kind in ("and", "or", "not"):
        return 1 + sum(form_size(a) for a in b.args)
    return 1


def _form_nodes(f: "F.Form") -> int:
    n = 1 if f.const or not f.terms else 0
    for m, c in f.terms:
        n += (c != 1) + sum(_atom_nodes(a) for a, _ in m.factors) + (len(m.factors) > 1)
    return n + (len(f.terms) > 1)


def _atom_nodes(a: "F.Atom") -> int:
    if a.kind in ("sym", "opaque"):
        return 1
    return 1 + sum(_form_nodes(x) for x in a.args)


def _bool_digest(b: BoolForm) -> tuple:
    """A structural key of a boolean form that does not depend on the process (Note [Deterministic order])."""
    kind = b.kind
    if kind == "const":
        return (0, b"1" if b.value else b"0")
    if kind == "rel":
        op, lhs, rhs = b.args
        return (1, op.encode() + lhs.digest + rhs.digest)
    if kind == "opaque":
        return (2, sympy.srepr(b.args[0]).encode())
    return (3, kind.encode(), tuple(sorted(_bool_digest(a) for a in b.args)))


def form_order_key(b: BoolForm) -> tuple:
    """:func:`_canonical_key` of a boolean form, without printing it: equalities, then bounds per symbol, then the rest.

    Guards of one class with the same symbol and value (and the rest) are ordered by their
    symbols (natural order), their size, then a structural digest: deterministic across
    processes and hash seeds, and no text is built.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> n, m = F.sym("n"), F.sym("m")
    >>> keys = [form_order_key(B.rel(">=", n, F.const(2))), form_order_key(B.rel("==", m, F.const(3)))]
    >>> keys[1] < keys[0]
    True
    """
    k = classify_form(b)
    tie = (tuple(sorted(_name_key(s) for s in b.symbols)), form_size(b), _bool_digest(b))
    if k.kind == "eqsym":
        member = max(k.sym, k.value, key=_name_key)
        return (0, _name_key(member), (0, 0), tie)
    if k.kind == "exact":
        return (0, _name_key(k.sym), (0, 0), tie)
    if b.kind == "rel" and b.args[0] == "==" and k.kind != "div":
        return (1, (), (0, 0), tie)
    sub = {"lower": 0, "upper": 1, "ne": 2, "div": 3}.get(k.kind)
    if sub is not None:
        return (2, _name_key(k.sym), (sub, k.value), tie)
    return (3, (), (0, 0), tie)


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
