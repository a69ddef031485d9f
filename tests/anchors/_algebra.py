"""A small operator algebra over canonical forms, so the anchor tables read like the anchors' expressions.

``E`` wraps a :class:`symint.form.Form`; ``+ - * // %`` and ``mx``/``mn`` build forms with
Python semantics (``//`` and ``%`` are floor division and floor modulo, TVM's ``floordiv``/
``floormod``). Relations build boolean forms.

>>> x, y = var("x"), var("y")
>>> from symint.sympy_io import to_sympy
>>> str(to_sympy(((x * 8 + 7) // 16).form)), str(to_sympy(mx(x, y + 1).form))
('FloorDiv(8*x + 7, 16)', 'Max(x, y + 1)')
"""

from __future__ import annotations

from symint.form import logic as B
from symint import form as F


def _f(v) -> F.Form:
    return v.form if isinstance(v, E) else F.const(v)


class E:
    """An integer expression (a canonical form) with operators."""

    __slots__ = ("form",)

    def __init__(self, form: F.Form):
        self.form = form

    def __add__(self, o):
        return E(F.add(self.form, _f(o)))

    __radd__ = __add__

    def __sub__(self, o):
        return E(F.sub(self.form, _f(o)))

    def __rsub__(self, o):
        return E(F.sub(_f(o), self.form))

    def __mul__(self, o):
        return E(F.mul(self.form, _f(o)))

    __rmul__ = __mul__

    def __neg__(self):
        return E(F.neg(self.form))

    def __floordiv__(self, o):
        return E(F.floordiv(self.form, _f(o)))

    def __mod__(self, o):
        return E(F.mod(self.form, _f(o)))

    def __lt__(self, o):
        return B.rel("<", self.form, _f(o))

    def __le__(self, o):
        return B.rel("<=", self.form, _f(o))

    def __gt__(self, o):
        return B.rel(">", self.form, _f(o))

    def __ge__(self, o):
        return B.rel(">=", self.form, _f(o))

    def eq(self, o):
        return B.rel("==", self.form, _f(o))

    def ne(self, o):
        return B.rel("!=", self.form, _f(o))


def all_(*parts):
    return B.and_(*parts)


def true():
    return B.bool_const(True)


def false():
    return B.bool_const(False)


def var(name: str) -> E:
    return E(F.sym(name))


def const(k: int) -> E:
    return E(F.const(k))


def mx(a, b) -> E:
    return E(F.max_(_f(a), _f(b)))


def mn(a, b) -> E:
    return E(F.min_(_f(a), _f(b)))
