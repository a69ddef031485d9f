"""What a guard says, when it is one of the simple forms the simplification passes understand.

:func:`classify_form` reads a boolean form as a bound of one symbol (``lower``, ``upper``), a
value (``exact``), an excluded value (``ne``), a divisibility (``div``), an equality of
two symbols (``eqsym``), a constant, or ``other``; :func:`form_order_key` is the sort key
of the canonical order (equalities, then bounds per symbol, then the rest) that every
simplified or reduced set is sorted by; :func:`may_raise` and :func:`never_raises` say
whether evaluating a guard may divide by zero. The knowledge these forms feed is held by
the one facts engine, :class:`valueranges.facts.Facts` (see :mod:`guards.simplify.folding`).
Nothing here builds or prints a sympy expression.

>>> from symint import form as F
>>> from symint.form import logic as B
>>> s = F.sym("s")
>>> classify_form(B.rel(">=", F.scale(s, 2), F.const(5))), classify_form(B.rel("==", F.mod(s, F.const(8)), F.const(0))).kind
(_Kind(kind='lower', sym='s', value=3), 'div')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator

from symint.lazy_sympy import sympy

from symint import form as F
from symint.form.logic import BoolForm
from valueranges.facts import Facts, natural_rank

__all__ = [
    "_Kind", "_name_key", "_Contradiction", "classify_form", "form_order_key", "form_size", "conjuncts",
    "may_raise", "never_raises", "has_opaque",
]


@lru_cache(maxsize=1 << 14)
def _name_key(name: str) -> tuple:
    """Sort key putting ``s2`` before ``s10`` (the engine's :func:`~valueranges.facts.natural_rank`), cached:
    sorting guards asks it of the same few names again and again."""
    return natural_rank(name)


def conjuncts(b: BoolForm) -> Iterator[BoolForm]:
    """The conjuncts of ``b``: ``and(a, b)`` holds (evaluates to True without raising) exactly when ``a`` and ``b`` both hold.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> x = F.sym("x")
    >>> len(list(conjuncts(B.and_(B.rel(">", x, F.const(1)), B.rel("<", x, F.const(9))))))
    2
    """
    if b.kind == "and":
        for arg in b.args:
            yield from conjuncts(arg)
    else:
        yield b


@dataclass(frozen=True, slots=True)
class _Kind:
    """What a guard says, when it is one of the simple forms simplification understands (``sym``: a symbol name)."""

    kind: str  # "eqsym", "lower", "upper", "exact", "ne", "div", "false", "true", "other"
    sym: str | None = None
    value: object = None


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
    """The canonical order of guards, without printing them: equalities, then bounds per symbol, then the rest.

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



def may_raise(b: BoolForm) -> bool:
    """Whether evaluating ``b`` may divide by zero: a division by a non-constant, or an opaque boolean.

    Such guards are never rewritten by substitution (Note [Guards that may raise] in
    :mod:`guards.simplify.reduce_forms`): forms assume divisors nonzero (``Mod(s0, s0)`` is 0),
    so replacing ``s1`` by ``s0`` in ``Eq(Mod(s0, s1), 0)`` would lose the failure at ``s0 == 0``.

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> x, y = F.sym("x"), F.sym("y")
    >>> may_raise(B.rel("==", F.mod(x, y), F.const(0))), may_raise(B.rel("==", F.mod(x, F.const(2)), F.const(0)))
    (True, False)
    """
    kind = b.kind
    if kind == "rel":
        return b.args[1].has_symbolic_division or b.args[2].has_symbolic_division
    if kind in ("and", "or", "not"):
        return any(may_raise(a) for a in b.args)
    return kind == "opaque"


def never_raises(b: BoolForm, facts: Facts, raises: bool = True) -> bool:
    """Whether no divisor in ``b`` can be 0 within ``facts``' ranges (True when ``raises`` is False).

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> from valueranges import ValueRanges
    >>> facts = Facts()
    >>> facts.set_range("y", ValueRanges.of(1, 9))
    >>> never_raises(B.rel("==", F.mod(F.sym("x"), F.sym("y")), F.const(0)), facts)
    True
    """
    if not raises:
        return True
    if b.kind == "rel":
        return all(_divisors_nonzero(f, facts) for f in b.args[1:])
    if b.kind in ("and", "or", "not"):
        return all(never_raises(a, facts, True) for a in b.args)
    return b.kind == "const"


def _divisors_nonzero(f: "F.Form", facts: Facts) -> bool:
    for m, _ in f.terms:
        for a, _ in m.factors:
            if a.kind in ("floordiv", "ceildiv", "mod") and not a.args[1].is_const:
                lo, hi = facts.bound_form(a.args[1])
                if not (lo > 0 or hi < 0):
                    return False
            if a.kind == "opaque" or (a.kind != "sym" and not all(_divisors_nonzero(x, facts) for x in a.args)):
                return False
    return True


def has_opaque(b: BoolForm) -> bool:
    """Whether a boolean form holds an opaque part (a float, an unknown function: what only sympy holds).

    >>> from symint import form as F
    >>> from symint.form import logic as B
    >>> has_opaque(B.rel("<", F.sym("x"), F.const(3)))
    False
    """
    if b.kind == "opaque":
        return True
    if b.kind == "rel":
        return any(_form_has_opaque(f) for f in b.args[1:])
    return any(has_opaque(a) for a in b.args) if b.kind in ("and", "or", "not") else False


def _form_has_opaque(f: "F.Form") -> bool:
    for m, _ in f.terms:
        for a, _ in m.factors:
            if a.kind == "opaque" or (a.kind != "sym" and any(_form_has_opaque(x) for x in a.args)):
                return True
    return False


class _Contradiction(Exception):
    """The guards cannot all hold (found by the cheap passes; Z3 confirms)."""

    def __init__(self, origins: Iterable[int]):
        super().__init__("contradiction")
        self.origins = frozenset(origins)
