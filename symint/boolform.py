"""Canonical boolean forms: relations between integer forms and connectives, hash-consed.

A relation keeps the sides as stated (``lhs op rhs``, for printing) and a
*normal form* used for every decision: ``p <= 0``, ``p == 0`` or ``p != 0`` with
``p = lhs - rhs`` rewritten so that equivalent relations share one normal form
(``x < y``, ``x + 1 <= y`` and ``2*x < 2*y`` all normalise to ``x - y + 1 <= 0``).
Relations whose difference is a constant fold to ``TRUE``/``FALSE`` when built.
Connectives keep their arguments in the order written (Python evaluates ``and``
and ``or`` left to right, and so does everything that reads these).

>>> from symint import form as F
>>> x, y = F.sym("x"), F.sym("y")
>>> rel("<", x, y).norm is rel("<=", F.add(x, F.const(1)), y).norm
True
>>> rel("<", x, F.add(x, F.const(1))) is TRUE, rel(">", x, F.const(3)).sympy()
(True, x > 3)
"""

from __future__ import annotations

import math

from . import form as F
from .form_terms import make_form

__all__ = ["BoolForm", "Norm", "TRUE", "FALSE", "rel", "and_", "or_", "not_", "bool_const", "opaque_bool", "OPS"]

#: The relation operators, as sympy spells them.
OPS = ("==", "!=", "<", "<=", ">", ">=")


class Norm:
    """An interned normalised relation ``p <op> 0`` with ``op`` one of ``<=``, ``==``, ``!=``.

    For ``<=`` the coefficients of ``p``'s terms have gcd 1; for ``==``/``!=`` too,
    and the first term's coefficient is positive.

    >>> from symint import form as F
    >>> n = rel(">=", F.scale(F.sym("x"), 2), F.const(3)).norm
    >>> n.op, n.p.sympy()
    ('<=', 2 - x)
    """

    __slots__ = ("op", "p", "_negated", "__weakref__")

    def __init__(self, op: str, p: "F.Form"):
        self.op = op
        self.p = p
        self._negated = None


    def negated(self) -> "Norm":
        """The normal form of the negation (``not p <= 0`` is ``1 - p <= 0``)."""
        if self._negated is None:
            if self.op == "<=":
                self._negated = _norm("<=", F.sub(F.const(1), self.p))
            else:
                self._negated = _norm("!=" if self.op == "==" else "==", self.p)
        return self._negated

    def holds_for(self, value: int) -> bool:
        """Whether the relation holds when ``p`` takes ``value``."""
        return value <= 0 if self.op == "<=" else (value == 0 if self.op == "==" else value != 0)

    def __repr__(self) -> str:
        return f"Norm({self.p.sympy()} {self.op} 0)"


_NORMS: dict[tuple, "Norm | bool"] = {}


def _norm(op: str, p: "F.Form") -> "Norm | bool":
    """The interned normal form of ``p op 0`` (``op`` in ``<=``, ``==``, ``!=``), or a bool if constant."""
    key = (op, p)
    found = _NORMS.get(key)
    if found is not None:
        return found
    result = _normalise(op, p)
    _NORMS[key] = result
    return result


def _normalise(op: str, p: "F.Form") -> "Norm | bool":
    if p.is_const:
        return p.const <= 0 if op == "<=" else (p.const == 0 if op == "==" else p.const != 0)
    g = 0
    for _, c in p.terms:
        g = math.gcd(g, c)
    if op == "<=":
        if g > 1:
            # g*q + c <= 0  <=>  q <= floor(-c / g)  <=>  q + ceil(c / g) <= 0
            p = make_form(tuple((m, c // g) for m, c in p.terms), -((-p.const) // g))
    else:
        if p.const % g:
            return op == "!="  # g*q == -c has no integer solution
        sign = -1 if p.terms[0][1] < 0 else 1
        if g > 1 or sign < 0:
            k = g * sign
            p = make_form(tuple((m, c // k) for m, c in p.terms), p.const // k)
    key = ("n", op, p)
    found = _NORMS.get(key)
    if found is None:
        found = _NORMS[key] = Norm(op, p)
    return found


class BoolForm:
    """An interned boolean: a constant, a relation, a connective, or a wrapped sympy boolean.

    Attributes:
        kind: ``const``, ``rel``, ``and``, ``or``, ``not`` or ``opaque``.
        args: for ``rel`` ``(op, lhs, rhs)``; for connectives the operands; for ``opaque`` the sympy boolean.
        norm: for ``rel``, the :class:`Norm` (or a bool when it folded).
        symbols: names of the symbols inside.

    >>> from symint import form as F
    >>> c = and_(rel(">", F.sym("x"), F.const(2)), rel("<", F.sym("x"), F.const(9)))
    >>> c.kind, c.sympy()
    ('and', (x > 2) & (x < 9))
    """

    __slots__ = ("kind", "args", "norm", "symbols", "_sympy", "value", "__weakref__")

    def __init__(self, kind: str, args: tuple, norm=None, symbols: frozenset = frozenset(), value=None):
        self.kind = kind
        self.args = args
        self.norm = norm
        self.symbols = symbols
        self._sympy = None
        self.value = value


    @property
    def is_const(self) -> bool:
        """Whether this is TRUE or FALSE."""
        return self.kind == "const"

    def sympy(self):
        """The sympy boolean (built once)."""
        if self._sympy is None:
            self._sympy = _to_sympy(self)
            _FROM_SYMPY.setdefault(self._sympy, self)
        return self._sympy

    def evaluate(self, values: dict[str, int]) -> bool:
        """The truth value for integer ``values`` of the symbols (left-to-right ``and``/``or``)."""
        kind = self.kind
        if kind == "const":
            return self.value
        if kind == "rel":
            op, lhs, rhs = self.args
            a, b = lhs.value(values), rhs.value(values)
            return _PY_REL[op](a, b)
        if kind == "and":
            return all(x.evaluate(values) for x in self.args)
        if kind == "or":
            return any(x.evaluate(values) for x in self.args)
        if kind == "not":
            return not self.args[0].evaluate(values)
        from .evaluate import evaluate

        expr = self.args[0]
        return bool(evaluate(expr, {s: values[s.name] for s in expr.free_symbols}))

    def __repr__(self) -> str:
        return f"BoolForm({self.sympy()})"


_PY_REL = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}

TRUE = BoolForm("const", (), value=True)
FALSE = BoolForm("const", (), value=False)
TRUE._sympy = None
FALSE._sympy = None


def bool_const(value: bool) -> BoolForm:
    """TRUE or FALSE."""
    return TRUE if value else FALSE


_RELS: dict[tuple, BoolForm] = {}


def rel(op: str, lhs: "F.Form", rhs: "F.Form") -> BoolForm:
    """``lhs op rhs``: folded to TRUE/FALSE when the sides differ by a constant.

    >>> from symint import form as F
    >>> rel("==", F.sym("x"), F.sym("x")) is TRUE, rel("!=", F.sym("x"), F.const(1)).sympy()
    (True, Ne(x, 1))
    """
    key = (op, lhs, rhs)
    found = _RELS.get(key)
    if found is not None:
        return found
    diff = F.sub(lhs, rhs)
    if op == "<":
        norm = _norm("<=", F.add(diff, F.const(1)))
    elif op == "<=":
        norm = _norm("<=", diff)
    elif op == ">":
        norm = _norm("<=", F.sub(F.const(1), diff))
    elif op == ">=":
        norm = _norm("<=", F.neg(diff))
    elif op in ("==", "!="):
        norm = _norm(op, diff)
    else:
        raise ValueError(f"unknown relation {op!r}; expected one of {OPS}")
    if isinstance(norm, bool):  # the sides differ by a constant, or 2*x == 3 has no integer solution
        found = bool_const(norm)
    else:
        found = BoolForm("rel", (op, lhs, rhs), norm, lhs.symbols | rhs.symbols)
    if len(_RELS) > (1 << 17):
        _RELS.clear()
    _RELS[key] = found
    return found


_CONNECTIVES: dict[tuple, BoolForm] = {}


def _connective(kind: str, args: tuple[BoolForm, ...]) -> BoolForm:
    key = (kind, args)
    found = _CONNECTIVES.get(key)
    if found is None:
        found = BoolForm(kind, args, symbols=frozenset().union(*(a.symbols for a in args)))
        _CONNECTIVES[key] = found
    return found


def and_(*args: BoolForm) -> BoolForm:
    """Conjunction in the written order (flattened; TRUE operands dropped; FALSE absorbs).

    >>> from symint import form as F
    >>> and_(TRUE, rel("<", F.sym("x"), F.const(3))).sympy(), and_(FALSE, TRUE) is FALSE
    (x < 3, True)
    """
    flat: list[BoolForm] = []
    for a in args:
        if a is FALSE:
            return FALSE
        if a is TRUE:
            continue
        for part in a.args if a.kind == "and" else (a,):
            if part not in flat:
                flat.append(part)
    if not flat:
        return TRUE
    if len(flat) == 1:
        return flat[0]
    return _connective("and", tuple(flat))


def or_(*args: BoolForm) -> BoolForm:
    """Disjunction in the written order (flattened; FALSE operands dropped; TRUE absorbs).

    >>> from symint import form as F
    >>> or_(rel("<", F.sym("x"), F.const(3)), TRUE) is TRUE
    True
    """
    flat: list[BoolForm] = []
    for a in args:
        if a is TRUE:
            return TRUE
        if a is FALSE:
            continue
        for part in a.args if a.kind == "or" else (a,):
            if part not in flat:
                flat.append(part)
    if not flat:
        return FALSE
    if len(flat) == 1:
        return flat[0]
    return _connective("or", tuple(flat))


_NEGATE = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def not_(a: BoolForm) -> BoolForm:
    """Negation: a relation flips its operator (``not x < 3`` is ``x >= 3``).

    >>> from symint import form as F
    >>> not_(rel("<", F.sym("x"), F.const(3))).sympy()
    x >= 3
    """
    if a.kind == "const":
        return bool_const(not a.value)
    if a.kind == "rel":
        op, lhs, rhs = a.args
        return rel(_NEGATE[op], lhs, rhs)
    if a.kind == "not":
        return a.args[0]
    return _connective("not", (a,))


def opaque_bool(expr) -> BoolForm:
    """A sympy boolean this module cannot represent (e.g. over floats), wrapped."""
    key = ("opaque", expr)
    found = _CONNECTIVES.get(key)
    if found is None:
        found = BoolForm("opaque", (expr,), symbols=frozenset(s.name for s in expr.free_symbols))
        found._sympy = expr
        _CONNECTIVES[key] = found
    return found


def _to_sympy(b: BoolForm):
    import sympy

    from . import build

    kind = b.kind
    if kind == "const":
        return sympy.true if b.value else sympy.false
    if kind == "rel":
        op, lhs, rhs = b.args
        return build.RELATIONS_BY_OP[op](lhs.sympy(), rhs.sympy())
    if kind == "and":
        return build.and_(*(a.sympy() for a in b.args))
    if kind == "or":
        return build.or_(*(a.sympy() for a in b.args))
    if kind == "not":
        return build.not_(b.args[0].sympy())
    return b.args[0]


def bool_from_sympy(expr) -> BoolForm:
    """The boolean form of a sympy boolean (relations between integer expressions become ``rel``).

    >>> from symint.build import symbol_expr, lt
    >>> bool_from_sympy(lt(symbol_expr("x"), 3)).kind
    'rel'
    """
    import sympy
    from sympy.core.relational import Relational

    from .form_sympy import NotAnIntegerForm, from_sympy

    found = _FROM_SYMPY.get(expr)
    if found is not None:
        return found
    if expr is sympy.true or expr is sympy.false:
        result = bool_const(bool(expr))
    elif isinstance(expr, Relational):
        try:
            result = rel(expr.rel_op, from_sympy(expr.lhs), from_sympy(expr.rhs))
            if result.kind == "rel":
                result._sympy = expr
        except NotAnIntegerForm:
            result = opaque_bool(expr)
    elif isinstance(expr, sympy.And):
        result = and_(*(bool_from_sympy(a) for a in expr.args))
    elif isinstance(expr, sympy.Or):
        result = or_(*(bool_from_sympy(a) for a in expr.args))
    elif isinstance(expr, sympy.Not):
        result = not_(bool_from_sympy(expr.args[0]))
    else:
        result = opaque_bool(expr)
    if len(_FROM_SYMPY) > (1 << 16):
        _FROM_SYMPY.clear()
    _FROM_SYMPY[expr] = result
    return result


_FROM_SYMPY: dict = {}
