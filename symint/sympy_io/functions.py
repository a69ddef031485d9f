"""Integer sympy functions with Python semantics, and the conversions between forms and sympy.

The conversions (:func:`to_sympy`, :func:`from_sympy`, :func:`bool_from_sympy`) live here
with the nodes they build and read (Note [Nodes and conversions in one module]);
:mod:`symint.sympy_io` exports them.

Shape code divides, takes remainders and clamps. Sympy's own ``floor``, ``Mod``,
``Max`` and ``Min`` either differ from Python on negative operands or spend their
time in assumption queries, so this module defines small replacements whose
``eval`` does only cheap, exact rewrites and whose value on concrete integers is
exactly what Python computes for every sign combination:

=========================  ===================================================
``FloorDiv(a, b)``         ``a // b`` (rounds toward -oo)
``CeilDiv(a, b)``          ``-(-a // b)``
``Mod(a, b)``              ``a % b`` (the result takes the sign of ``b``)
``Max(*xs)``/``Min(*xs)``  ``max``/``min`` (never queries assumptions)
``PowByNatural(a, b)``     ``a ** b`` for ``b >= 0``
``IntTrueDiv(a, b)``       ``a / b`` as a float
``FloorToInt(x)``          ``math.floor(x)``; ``CeilToInt(x)``: ``math.ceil(x)``
``IfThenElse(c, a, b)``    ``a if c else b``
=========================  ===================================================

A zero divisor raises :class:`ZeroDivisionError`, as Python does, as soon as the
divisor is the constant 0 (or 0.0).

Note [Canonical forms]
    ``FloorDiv``, ``CeilDiv`` and ``Mod`` have one definition of their rewrites: the
    form rules of :mod:`symint.form.arith` (Note [One definition of the rewrites]). Their
    ``eval`` converts the arguments to forms, applies ``floordiv``/``ceildiv``/``mod`` and
    returns the sympy view of the result, or stays as written when that is the node
    itself. The rules are exact for *every* integer value of the symbols, so they need
    no facts: ``(b*x + y) // b -> x + y // b``, ``Mod(b*x + y, b) -> Mod(y, b)``, a common
    factor cancels (``FloorDiv(4*x, 6) -> FloorDiv(2*x, 3)``, ``Mod(3*x, 6) -> 3*Mod(x, 2)``),
    ``(x // c1) // c2 -> x // (c1*c2)`` for ``c2 > 0``, nested ``Mod`` folds. Facts such
    as ``x >= 0`` are the environment's business, not this module's. An argument that is
    not an integer form (a float, ``4/x``, a non-integer symbol) leaves the node as
    written, but for the zero divisor, which raises.

    "Integer-valued" is decided by structure (:func:`_is_integer_valued`), never
    by sympy's assumptions: ``4/x`` or ``1.5*x`` must not be split off a floor
    division, and a ``Max`` of floats is not an integer.

    One deliberate widening: a rewrite may give a value where the original
    divides by zero. ``FloorDiv(x*y, x) -> y``, ``FloorDiv(x, x) -> 1`` and
    ``Mod(x, x) -> 0`` are exact for every ``x != 0``, but at ``x == 0`` Python
    raises and the rewritten expression does not. This is sympy's and torch's
    convention too. Every input on which the original expression has a value
    gets the same value from the rewritten one; what is lost is only the error:
    a guard set built from the rewritten form does not reject an input on which
    the original program would have raised ``ZeroDivisionError``.

Note [One definition of the rewrites]
    The sympy nodes are the printable view of forms, so the rules live once, on forms,
    and the nodes ask them through the converter (:func:`division_by_forms`). The view of a
    form (:func:`to_sympy`) builds these nodes, and the conversion to forms
    (:func:`from_sympy`) reads them, while the nodes' ``eval`` needs both conversions: so
    the nodes and both conversions are this one module (Note [Nodes and conversions in one
    module]). Building the view of a form builds these nodes from canonical arguments, for
    which ``eval`` finds the same interned atom and keeps the node: no loop. ``Max``/``Min`` keep their own fold
    (flatten, fold numbers, drop repeats, sort): the same lattice normalisation as the
    forms', which also serves ``Max`` of floats, and which sorts by sympy's print key.
"""

from __future__ import annotations

import math
from functools import lru_cache

import sympy
from sympy.core.relational import Relational
from sympy.core.sorting import default_sort_key

from .. import form as F
from ..errors import ExpressionLimitError
from ..form.semantics import INTEGER_OPS
from ..form.terms import register_cache
from .connectives import ordered_and, ordered_or
from .evaluate import evaluate

__all__ = [
    "symbol_expr",
    "view_symbol",
    "FloorDiv",
    "CeilDiv",
    "Mod",
    "Max",
    "Min",
    "PowByNatural",
    "IntTrueDiv",
    "FloorToInt",
    "CeilToInt",
    "IfThenElse",
    "modular_indexing",
    "INTEGER_FUNCTIONS",
    "to_sympy",
    "from_sympy",
    "bool_from_sympy",
    "opaque_from_sympy",
    "opaque_bool_from_sympy",
    "division_by_forms",
    "NotAnIntegerForm",
]


def _int_or_none(e: sympy.Basic) -> int | None:
    """The Python int an expression stands for, or None if it is not an integer literal."""
    return int(e) if isinstance(e, sympy.Integer) else None


@lru_cache(maxsize=1 << 14)
def _is_integer_valued(e: sympy.Basic) -> bool:
    """Whether ``e`` is an integer for every integer value of its symbols, judged by structure.

    Conservative (False means "not known to be"). It asks sympy's assumption
    system nothing but a symbol's own ``integer`` flag: floats, ``IntTrueDiv``,
    rationals and negative or symbolic powers are not integer-valued.

    >>> x = sympy.Symbol("x", integer=True)
    >>> _is_integer_valued(3*x**2 + FloorDiv(x, 2)), _is_integer_valued(x/2), _is_integer_valued(2.0*x)
    (True, False, False)
    """
    if isinstance(e, sympy.Integer):
        return True
    if e.is_Symbol:
        return e.is_integer is True
    if isinstance(e, (FloorDiv, CeilDiv, FloorToInt, CeilToInt)):
        return True
    if isinstance(e, (sympy.Add, sympy.Mul, Mod, Max, Min)):
        return all(_is_integer_valued(arg) for arg in e.args)
    if isinstance(e, PowByNatural):
        return _is_integer_valued(e.args[0])
    if isinstance(e, sympy.Pow):
        exp = e.exp
        return isinstance(exp, sympy.Integer) and int(exp) >= 0 and _is_integer_valued(e.base)
    if isinstance(e, IfThenElse):
        return _is_integer_valued(e.args[1]) and _is_integer_valued(e.args[2])
    return False


def _is_zero_number(e: sympy.Basic) -> bool:
    """Whether ``e`` is the number zero; sympy 1.13+ says ``Float(0.0) != 0``, so ``== 0`` will not do."""
    return bool(e.is_Number) and not e


class _IntegerFunction(sympy.Function):
    """Common base: integer-valued, printed by name, never expanded by sympy."""

    is_integer = True
    is_real = True
    is_finite = True


class _IntegerIfArguments(sympy.Function):
    """Common base of ``Mod``, ``Max``, ``Min`` and ``PowByNatural``: integers when their arguments are.

    ``Mod(x + 0.5, 2)`` or ``Max(s / 2, 1)`` is a float, so these may not claim
    ``is_integer`` unconditionally (``FloorToInt`` would then drop its floor).
    """

    def _eval_is_integer(self):
        return _fuzzy_all(a.is_integer for a in self.args)

    def _eval_is_real(self):
        return _fuzzy_all(a.is_real for a in self.args)

    def _eval_is_finite(self):
        return _fuzzy_all(a.is_finite for a in self.args)


def _fuzzy_all(values) -> bool | None:
    """True if all are True, False if any is False, else None (sympy's three-valued ``and``)."""
    result: bool | None = True
    for v in values:
        if v is False:
            return False
        if v is None:
            result = None
    return result


class FloorDiv(_IntegerFunction):
    """Python floor division ``a // b`` of integers.

    >>> x = sympy.Symbol("x", integer=True)
    >>> FloorDiv(-7, 2), FloorDiv(7, -2), FloorDiv(4*x, 2), FloorDiv(FloorDiv(x, 2), 3)
    (-4, -4, 2*x, FloorDiv(x, 6))
    """

    nargs = (2,)
    python_eval = staticmethod(INTEGER_OPS["floordiv"])  # Note [Nodes say their value] in symint.sympy_io.evaluate

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        return _by_forms(cls, "floordiv", a, b)


class CeilDiv(_IntegerFunction):
    """Ceiling division ``-(-a // b)`` of integers.

    >>> CeilDiv(7, 2), CeilDiv(-7, 2), CeilDiv(7, -2)
    (4, -3, -3)
    """

    nargs = (2,)
    python_eval = staticmethod(INTEGER_OPS["ceildiv"])

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        return _by_forms(cls, "ceildiv", a, b)


def _by_forms(cls, kind: str, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
    """``cls(a, b)`` rewritten by the form rule ``kind`` (Note [One definition of the rewrites]), or None to keep it.

    >>> x = sympy.Symbol("x", integer=True)
    >>> _by_forms(Mod, "mod", 3*x, sympy.Integer(6)), _by_forms(Mod, "mod", x, sympy.Integer(6))
    (3*(Mod(x, 2)), None)
    """
    if _is_zero_number(b):
        raise ZeroDivisionError(f"{cls.__name__}({a}, 0): integer {'modulo' if kind == 'mod' else 'division'} by zero")
    return division_by_forms(kind, a, b)


class Mod(_IntegerIfArguments):
    """Python modulo ``a % b``: the result has the sign of ``b``.

    >>> x = sympy.Symbol("x", integer=True)
    >>> Mod(-7, 3), Mod(7, -3), Mod(2*x, 2), Mod(4*x + 5, 4), Mod(x + 9, 4), Mod(Mod(x, 8), 4)
    (2, -2, 0, 1, Mod(x + 1, 4), Mod(x, 4))
    >>> Mod(Mod(x, 4), 8), Mod(Mod(x, 4), -8), Mod(3*x, 6)
    (Mod(x, 4), Mod(Mod(x, 4), -8), 3*(Mod(x, 2)))
    """

    nargs = (2,)
    python_eval = staticmethod(INTEGER_OPS["mod"])

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        return _by_forms(cls, "mod", a, b)


class _MinMax(_IntegerIfArguments):
    """Shared evaluation of Max/Min: flatten, fold constants, dedupe, sort.

    Not an ``_IntegerFunction``: ``Max`` of floats (``sym_max(s / 2, 1)``) is a
    float, so integrality is derived from the arguments.
    """

    _pick = max
    _absorbing: sympy.Expr = sympy.S.Infinity  # max(oo, x) == oo
    _neutral: sympy.Expr = sympy.S.NegativeInfinity  # max(-oo, x) == x

    @classmethod
    def eval(cls, *args: sympy.Expr) -> sympy.Expr | None:
        if not args:
            raise TypeError(f"{cls.__name__} expected at least 1 argument, got 0")
        flat: list[sympy.Expr] = []
        for arg in args:
            flat.extend(arg.args if isinstance(arg, cls) else (arg,))
        numbers = [x for x in flat if x.is_Number]
        symbolic = list(dict.fromkeys(x for x in flat if not x.is_Number))
        if numbers:
            best = cls._pick(numbers)
            if not symbolic or best is cls._absorbing:
                return best
            if best is not cls._neutral:
                symbolic.append(best)
        if len(symbolic) == 1:
            return symbolic[0]
        ordered = sorted(symbolic, key=default_sort_key)
        if len(ordered) != len(args) or any(x is not y for x, y in zip(ordered, args)):
            return cls(*ordered, evaluate=False)
        return None


class Max(_MinMax):
    """``max`` of integers; never asks sympy's assumption system anything.

    >>> x = sympy.Symbol("x", integer=True)
    >>> Max(3, x, 5, Max(x, 2))
    Max(5, x)
    """

    _pick = max
    python_eval = staticmethod(INTEGER_OPS["max"])


class Min(_MinMax):
    """``min`` of integers; never asks sympy's assumption system anything.

    >>> Min(3, -4, 7), Min(sympy.Symbol("x", integer=True), -sympy.oo)
    (-4, -oo)
    """

    _pick = min
    _absorbing = sympy.S.NegativeInfinity
    _neutral = sympy.S.Infinity
    python_eval = staticmethod(INTEGER_OPS["min"])


class PowByNatural(_IntegerIfArguments):
    """``a ** b`` for a natural exponent ``b``; Python's ``0 ** 0 == 1``.

    >>> PowByNatural(-2, 3), PowByNatural(0, 0)
    (-8, 1)
    """

    nargs = (2,)
    python_eval = staticmethod(INTEGER_OPS["pow"])

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        ai, bi = _int_or_none(a), _int_or_none(b)
        if bi is not None and bi < 0:
            raise ValueError(f"PowByNatural({a}, {b}): the exponent must be >= 0")
        if bi is not None:
            if ai is not None:
                return sympy.Integer(ai**bi)
            return sympy.Integer(1) if bi == 0 else a**bi
        if ai == 1:
            return sympy.Integer(1)
        return None


class IntTrueDiv(sympy.Function):
    """Python true division ``a / b`` of two integers, a float.

    >>> IntTrueDiv(7, 2), IntTrueDiv(-1, 4)
    (3.50000000000000, -0.250000000000000)
    """

    nargs = (2,)
    is_real = True
    is_finite = True
    python_eval = staticmethod(lambda a, b: a / b)

    @classmethod
    def eval(cls, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        ai, bi = _int_or_none(a), _int_or_none(b)
        if _is_zero_number(b):
            raise ZeroDivisionError(f"IntTrueDiv({a}, 0): division by zero")
        if ai is not None and bi is not None:
            return sympy.Float(ai / bi)
        return None


class FloorToInt(_IntegerFunction):
    """``math.floor`` of a float expression.

    >>> FloorToInt(sympy.Float(-2.5)), FloorToInt(sympy.Rational(-7, 2))
    (-3, -4)
    """

    nargs = (1,)
    python_eval = staticmethod(math.floor)

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if isinstance(x, sympy.Rational):  # Integer included: exact, even past 2**53
            return sympy.Integer(x.p // x.q)
        if x.is_Float:
            return sympy.Integer(math.floor(float(x)))
        if _is_integer_valued(x):
            return x
        return None


class CeilToInt(_IntegerFunction):
    """``math.ceil`` of a float expression.

    >>> CeilToInt(sympy.Float(-2.5)), CeilToInt(sympy.Rational(7, 2))
    (-2, 4)
    """

    nargs = (1,)
    python_eval = staticmethod(math.ceil)

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if isinstance(x, sympy.Rational):
            return sympy.Integer(-(-x.p // x.q))
        if x.is_Float:
            return sympy.Integer(math.ceil(float(x)))
        if _is_integer_valued(x):
            return x
        return None


class IfThenElse(sympy.Function):
    """``a if c else b`` for a boolean expression ``c``.

    >>> x = sympy.Symbol("x", integer=True)
    >>> IfThenElse(sympy.true, x, 3), IfThenElse(x > 0, 3, 3)
    (x, 3)
    """

    nargs = (3,)
    python_branch = staticmethod(lambda c: 1 if c else 2)  # the argument that is the value: only it is evaluated

    @classmethod
    def eval(cls, c: sympy.Basic, a: sympy.Expr, b: sympy.Expr) -> sympy.Expr | None:
        if c is sympy.true:
            return a
        if c is sympy.false:
            return b
        if a == b:
            return a
        return None

    def _eval_is_integer(self):
        return (self.args[1].is_integer and self.args[2].is_integer) or None


def modular_indexing(a: sympy.Expr, divisor: sympy.Expr | int, modulus: sympy.Expr | int) -> sympy.Expr:
    """``(a // divisor) % modulus``: the index of ``a`` within a dimension of a reshaped tensor.

    >>> x = sympy.Symbol("x", integer=True)
    >>> modular_indexing(x, 4, 8)
    Mod(FloorDiv(x, 4), 8)
    """
    return Mod(FloorDiv(a, divisor), modulus)


#: Every function class defined here, by name (used by printers, parsers and translators).
INTEGER_FUNCTIONS: dict[str, type[sympy.Function]] = {
    cls.__name__: cls
    for cls in (FloorDiv, CeilDiv, Mod, Max, Min, PowByNatural, IntTrueDiv, FloorToInt, CeilToInt, IfThenElse)
}


# -- symbols ------------------------------------------------------------------
@lru_cache(maxsize=None)
def symbol_expr(name: str) -> sympy.Symbol:
    """The integer sympy symbol called ``name`` (the same object every time).

    >>> symbol_expr("s0") is symbol_expr("s0"), symbol_expr("s0").is_integer
    (True, True)
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"symbol names must be Python identifiers, got {name!r}")
    return sympy.Symbol(name, integer=True)


def view_symbol(name: str) -> sympy.Symbol:
    """The sympy symbol a form's symbol ``name`` has in a view: any name (``symbol_expr`` wants identifiers).

    A form's symbol may have any name (one converted from a user's sympy Symbol): the name is
    data to sympy, never parsed, and the printers escape what is not an identifier.

    >>> view_symbol("s0") is symbol_expr("s0"), view_symbol("a b").is_integer
    (True, True)
    """
    return symbol_expr(name) if name.isidentifier() else sympy.Symbol(name, integer=True)


# -- forms and sympy, both ways ------------------------------------------------------------------------
# Note [Nodes and conversions in one module]
#     ``FloorDiv``/``CeilDiv``/``Mod`` evaluate by the form rules (Note [One definition of the
#     rewrites]): their ``eval`` converts its arguments to forms and the result back to sympy.
#     Both conversions know the nodes: the view builds them, the conversion to forms recognises
#     them. Split into modules, nodes and conversions would import each other (the old
#     ``symint.sympy_io.view``, ``symint.sympy_io`` and this module did, through the package's
#     ``__init__``), so they are one module, below the package's ``__init__`` and above
#     :mod:`symint.form`, which imports none of them (Note [Forms import no sympy] in
#     :mod:`symint.form`). The sympy evaluator (:mod:`symint.sympy_io.evaluate`), which an opaque
#     atom created here carries, reads the nodes' value from the nodes themselves (Note [Nodes say
#     their value] there) and so imports none of them.


class NotAnIntegerForm(ValueError):
    """The sympy expression is not integer-valued by structure (floats, true division, ...)."""


#: sympy expression -> its form, filled by both directions (:func:`from_sympy` reads it first).
SYMPY_TO_FORM: dict = {}
#: sympy boolean -> its boolean form (:func:`bool_from_sympy` and :func:`to_sympy` fill it).
SYMPY_TO_BOOL: dict = {}
register_cache(SYMPY_TO_FORM)  # emptied by a sweep (Note [Sweeping the interning tables] in symint.form.terms)
register_cache(SYMPY_TO_BOOL)

_RELATION_CLASSES = {"==": sympy.Eq, "!=": sympy.Ne, "<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge}
_NODES = {"floordiv": FloorDiv, "ceildiv": CeilDiv, "mod": Mod, "max": Max, "min": Min, "pow": PowByNatural}


def to_sympy(value: "F.Form | F.BoolForm | F.Atom") -> sympy.Basic:
    """The sympy view of a form, boolean form or atom (built once, cached on it).

    A relation never folds (it would be TRUE or FALSE), so its sympy relation is built
    unevaluated; connectives keep their order (Note [Ordered connectives] in
    :mod:`symint.sympy_io.connectives`).

    >>> x = F.sym("x")
    >>> to_sympy(F.add(F.floordiv(x, F.const(2)), F.const(1))), to_sympy(F.rel("<", x, F.const(3)))
    (FloorDiv(x, 2) + 1, x < 3)
    """
    try:
        found = value._sympy
    except AttributeError:
        raise TypeError(f"to_sympy takes a Form, BoolForm or Atom, not {type(value).__name__}") from None
    if found is not None:
        return found
    if isinstance(value, F.Form):
        found = _form_to_sympy(value)
        SYMPY_TO_FORM.setdefault(found, value)
    elif isinstance(value, F.BoolForm):
        found = _bool_to_sympy(value)
        SYMPY_TO_BOOL.setdefault(found, value)
    elif isinstance(value, F.Atom):
        found = _atom_to_sympy(value)
    else:
        raise TypeError(f"to_sympy takes a Form, BoolForm or Atom, not {type(value).__name__}")
    value._sympy = found
    return found


def _atom_to_sympy(atom: "F.Atom") -> sympy.Basic:
    kind = atom.kind
    if kind == "sym":
        return view_symbol(atom.name)
    if kind == "opaque":
        return atom.args[0]
    return _NODES[kind](*(to_sympy(a) for a in atom.args))


def _mono_to_sympy(m: "F.Mono") -> sympy.Expr:
    if m._sympy is None:
        m._sympy = sympy.Mul(*(to_sympy(a) if p == 1 else sympy.Pow(to_sympy(a), p) for a, p in m.factors))
    return m._sympy


def _form_to_sympy(f: "F.Form") -> sympy.Expr:
    if f.is_const:
        return sympy.Integer(f.const)
    terms = [(_mono_to_sympy(m) if c == 1 else sympy.Integer(c) * _mono_to_sympy(m)) for m, c in f.terms]
    if f.const:
        terms.append(sympy.Integer(f.const))
    return sympy.Add(*terms)


def _bool_to_sympy(b: "F.BoolForm") -> sympy.Basic:
    kind = b.kind
    if kind == "const":
        return sympy.true if b.value else sympy.false
    if kind == "rel":
        op, lhs, rhs = b.args
        return _RELATION_CLASSES[op](to_sympy(lhs), to_sympy(rhs), evaluate=False)
    if kind == "and":
        return ordered_and(*(to_sympy(a) for a in b.args))
    if kind == "or":
        return ordered_or(*(to_sympy(a) for a in b.args))
    if kind == "not":
        return sympy.Not(to_sympy(b.args[0]))
    return b.args[0]


def _opaque_value(expr: sympy.Basic, values) -> int | bool:
    """The value of a wrapped sympy expression for ``values`` (symbol name -> int)."""
    return evaluate(expr, {s: values[s.name] for s in expr.free_symbols})


def opaque_from_sympy(expr: sympy.Basic) -> "F.Form":
    """The opaque atom's form of an integer-valued sympy expression forms do not represent.

    It carries its digest, its symbols and its evaluator (Note [Opaque atoms carry their own
    meaning] in :mod:`symint.form.terms`).

    >>> x = symbol_expr("x")
    >>> f = opaque_from_sympy(IfThenElse(x > 0, x, -x))
    >>> f.symbols, f.value({"x": -3}), to_sympy(f)
    (frozenset({'x'}), 3, IfThenElse(x > 0, x, -x))
    """
    symbols = frozenset(s.name for s in expr.free_symbols)
    return F.opaque(expr, sympy.srepr(expr).encode(), symbols, _opaque_value)


def opaque_bool_from_sympy(expr: sympy.Basic) -> "F.BoolForm":
    """A sympy boolean kept as written, as an opaque boolean form (a float comparison, say).

    >>> b = opaque_bool_from_sympy(sympy.Lt(symbol_expr("x"), sympy.Float(2.5)))
    >>> b.kind, b.evaluate({"x": 2}), to_sympy(b)
    ('opaque', True, x < 2.5)
    """
    return F.opaque_bool(expr, frozenset(s.name for s in expr.free_symbols), _opaque_value)


# Note [A view does not remember its source]
# A form's sympy view is built from the form (``to_sympy``), never taken from the sympy
# expression a form was converted from: ``(s0 + 1)**2`` and ``s0**2 + 2*s0 + 1`` are one form,
# and were the first expression converted kept as the view, what ``to_sympy`` returns (and
# every printer or serialiser reading it) would depend on which of the two the process met
# first. The tables below only map an expression to its form.


def from_sympy(expr: sympy.Basic) -> "F.Form":
    """The canonical form of an integer-valued sympy expression.

    Raises:
        NotAnIntegerForm: ``expr`` is not integer-valued by structure.

    >>> to_sympy(from_sympy(FloorDiv(symbol_expr("x") * 4, 2)))
    2*x
    """
    table = SYMPY_TO_FORM
    found = table.get(expr)
    if found is not None:
        return found
    result = _convert(expr)
    if len(table) > (1 << 16):
        table.clear()
    table[expr] = result  # the view is not ``expr``: Note [A view does not remember its source]
    return result


def _convert(e: sympy.Basic) -> "F.Form":
    if isinstance(e, sympy.Integer):
        return F.const(int(e))
    if e.is_Symbol:
        if e.is_integer is not True:
            raise NotAnIntegerForm(f"{e} is not an integer symbol")
        return F.sym(e.name)
    if isinstance(e, sympy.Add):
        out = F.const(0)
        for arg in e.args:
            out = F.add(out, from_sympy(arg))
        return out
    if isinstance(e, sympy.Mul):
        out = F.const(1)
        for arg in e.args:
            out = F.mul(out, from_sympy(arg))
        return out
    if isinstance(e, sympy.Pow):
        if isinstance(e.exp, sympy.Integer) and int(e.exp) >= 0:
            return F.pow_nat(from_sympy(e.base), int(e.exp))
        raise NotAnIntegerForm(f"{e} is not integer-valued")
    if isinstance(e, PowByNatural):
        return F.pow_sym(from_sympy(e.args[0]), from_sympy(e.args[1]))
    if isinstance(e, FloorDiv):
        return F.floordiv(from_sympy(e.args[0]), from_sympy(e.args[1]))
    if isinstance(e, CeilDiv):
        return F.ceildiv(from_sympy(e.args[0]), from_sympy(e.args[1]))
    if isinstance(e, Mod):
        if not all(_is_integer_valued(a) for a in e.args):
            raise NotAnIntegerForm(f"{e} is not integer-valued")
        return F.mod(from_sympy(e.args[0]), from_sympy(e.args[1]))
    if isinstance(e, (Max, Min)):
        if not all(_is_integer_valued(a) for a in e.args):
            raise NotAnIntegerForm(f"{e} is not integer-valued")
        op = F.max_ if isinstance(e, Max) else F.min_
        args = [from_sympy(a) for a in e.args]
        out = args[0]
        for a in args[1:]:
            out = op(out, a)
        return out
    if isinstance(e, sympy.Basic) and not isinstance(e, sympy.Number) and _is_integer_valued(e):
        return opaque_from_sympy(e)
    raise NotAnIntegerForm(f"{e} is not an integer expression")


def division_by_forms(kind: str, a: sympy.Basic, b: sympy.Basic) -> sympy.Basic | None:
    """The sympy view of the form rule ``kind`` (``floordiv``, ``ceildiv``, ``mod``) on ``a`` and ``b``.

    What ``FloorDiv``/``CeilDiv``/``Mod`` evaluate to (Note [One definition of the rewrites]).
    None keeps the node as written: the result is that node itself, or an argument is not
    an integer form (a float, ``4/x``).

    >>> x = symbol_expr("x")
    >>> division_by_forms("mod", 3 * x, sympy.Integer(6)), division_by_forms("floordiv", x, sympy.Integer(2))
    (3*(Mod(x, 2)), None)
    """
    try:
        fa, fb = from_sympy(a), from_sympy(b)
        result = getattr(F, kind)(fa, fb)
    except (NotAnIntegerForm, ExpressionLimitError):
        return None
    atom = result.atom()
    if atom is not None and atom.kind == kind and atom.args[0] is fa and atom.args[1] is fb:
        return None  # canonical already: the node as written
    return to_sympy(result)


def bool_from_sympy(expr: sympy.Basic) -> "F.BoolForm":
    """The boolean form of a sympy boolean (relations between integer expressions become ``rel``).

    What is not a relation between integer forms (floats, unknown functions) is kept as
    written, an opaque boolean (:func:`opaque_bool_from_sympy`).

    >>> bool_from_sympy(sympy.Lt(symbol_expr("x"), 3)).kind, bool_from_sympy(sympy.Lt(symbol_expr("x"), 2.5)).kind
    ('rel', 'opaque')
    """
    table = SYMPY_TO_BOOL
    found = table.get(expr)
    if found is not None:
        return found
    if expr is sympy.true or expr is sympy.false:
        result = F.bool_const(bool(expr))
    elif isinstance(expr, Relational):
        try:
            result = F.rel(expr.rel_op, from_sympy(expr.lhs), from_sympy(expr.rhs))
        except NotAnIntegerForm:
            result = opaque_bool_from_sympy(expr)
    elif isinstance(expr, sympy.And):
        result = F.and_(*(bool_from_sympy(a) for a in expr.args))
    elif isinstance(expr, sympy.Or):
        result = F.or_(*(bool_from_sympy(a) for a in expr.args))
    elif isinstance(expr, sympy.Not):
        result = F.not_(bool_from_sympy(expr.args[0]))
    else:
        result = opaque_bool_from_sympy(expr)
    if len(table) > (1 << 16):
        table.clear()
    table[expr] = result
    return result
