"""What guard text builds: canonical forms for integers and booleans, sympy only for floats.

The parser (:mod:`guards.text.parse`) calls these builders. A value is a
:class:`~symint.form.Form` (an integer), a :class:`~symint.form.BoolForm` (a boolean)
or, only for what a form cannot hold, a float-valued sympy expression (``s0 / 2``,
``2.5``, ``FloatSqrt(s0)``). Integer operations on forms build forms directly; an
operation with a float operand, or one forms do not have (``IntTrueDiv``,
``IfThenElse``, ``FloorToInt``, the opaque functions), is built by :mod:`symint.build`
on the operands' sympy views, and an integer or boolean result joins the forms at once
(an opaque atom, Note [Guards are forms] in :mod:`guards.guard`).

Note [Parsed forms and the sympy builders]
    The text used to be built in sympy and converted to forms once per guard. Building
    forms directly gives the same guards: the form constructors apply the rewrites of
    :mod:`symint.sympy_io.functions` (Note [Canonical forms] there), relations keep their
    sides as written, and connectives keep the written order. Two corners are kept as
    the sympy path had them, by hand: a relation that forms fold through a gcd while its
    sides are not constant apart (``Eq(2*a, 1)`` is False over the integers) stays the
    opaque relation as written, so the input it names is still an input of the set; and
    an operation whose form would hold more terms than a form may (``(a+b)*(c+d)*...``
    expanded) is built in sympy and its guard kept as written.

    Two differences are deliberate. ``and``/``or`` keep their operands as the forms do
    (flattened, an identical operand dropped): sympy also dropped a relation whose
    ``canonical`` form repeated another's (``x < 3 and 3 > x``) and folded ``x < 3 and
    x >= 3`` to False, which changes what the guard raises on (Note [Folding connectives]
    in :mod:`symint.sympy_io.connectives`); simplification folds them instead. And inside a
    float expression an integer operand is its canonical form, so
    ``IntTrueDiv(s0, s1)/((s1 + 1)*(s1 + 2))`` reads back with the denominator expanded
    (the same value; an integer guard was expanded by its conversion to forms anyway).

>>> from symint.sympy_io import to_sympy
>>> from symint import form as F
>>> x = F.sym("x")
>>> to_sympy(relation("<", arith("//", x, F.const(2)), F.const(3)))
FloorDiv(x, 2) < 3
>>> arith("/", x, F.const(2))
IntTrueDiv(x, 2)
"""

from __future__ import annotations

from typing import Callable, Union

from symint.lazy_sympy import lazy_module, sympy

from symint import build
from symint import form as F
from symint.form import MAX_TERMS, BoolForm, Form, FormLimitError

from guards.errors import GuardTypeError
from guards.guard import as_bool_form

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["Value", "is_bool", "lift", "view", "arith", "relation", "connective", "negate", "call"]

#: A parsed value: an integer form, a boolean form, or a float-valued sympy expression.
Value = Union[Form, BoolForm, "sympy.Basic"]


def is_bool(v: Value) -> bool:
    """Whether ``v`` is a boolean.

    >>> is_bool(F.TRUE), is_bool(F.sym("x"))
    (True, False)
    """
    return isinstance(v, BoolForm)


def lift(e: sympy.Basic) -> Value:
    """The value of a sympy result: a form when it is an integer or a boolean, else ``e`` itself.

    >>> lift(sympy.Integer(3)) is F.const(3), lift(sympy.Float(0.5))
    (True, 0.500000000000000)
    """
    if build.is_bool_expr(e):
        return as_bool_form(e)
    if _too_large(e):
        return e
    try:
        return _io.from_sympy(e)
    except (_io.NotAnIntegerForm, FormLimitError):
        return e


def _too_large(e: sympy.Basic) -> bool:
    """Whether ``e`` is a sum of more terms than a form holds (kept in sympy, not converted in vain)."""
    return isinstance(e, sympy.Add) and len(e.args) > MAX_TERMS


def view(v: Value) -> sympy.Basic:
    """The sympy expression of ``v`` (the view of a form, built once and cached on it)."""
    return v if isinstance(v, sympy.Basic) else _io.to_sympy(v)


def _on_forms(form_op: Callable[..., Value] | None, sympy_op: Callable[..., sympy.Basic], args: tuple) -> Value:
    if form_op is not None and all(type(a) is Form for a in args):
        try:
            return form_op(*args)
        except FormLimitError:  # more terms than a form holds: kept as written (Note [Parsed forms and the sympy builders])
            return sympy_op(*(view(a) for a in args))
    return lift(sympy_op(*(view(a) for a in args)))


def _pow(a: Form, b: Form) -> Value:
    if b.is_const and b.const < 0:  # 1 / a**k: a float
        return lift(build.pow_(_io.to_sympy(a), _io.to_sympy(b)))
    return F.pow_sym(a, b)


_ARITH: dict[str, tuple[Callable | None, Callable]] = {
    "+": (F.add, build.add),
    "-": (F.sub, build.sub),
    "*": (F.mul, build.mul),
    "//": (F.floordiv, build.floordiv),
    "%": (F.mod, build.mod),
    "/": (None, build.truediv),
    "**": (_pow, build.pow_),
    "max": (F.max_, build.max_),
    "min": (F.min_, build.min_),
    "ceildiv": (F.ceildiv, build.ceildiv),
}


def arith(op: str, a: Value, b: Value) -> Value:
    """``a op b`` for ``op`` in ``+ - * // % / **`` or ``max``, ``min``, ``ceildiv``.

    Raises:
        ZeroDivisionError: a division by the constant 0.
        ExpressionLimitError: the result would be too large.

    >>> from symint.sympy_io import to_sympy
    >>> to_sympy(arith("%", F.add(F.sym("x"), F.const(9)), F.const(4)))
    Mod(x + 1, 4)
    """
    form_op, sympy_op = _ARITH[op]
    return _on_forms(form_op, sympy_op, (a, b))


def neg(a: Value) -> Value:
    """``-a``.

    >>> from symint.sympy_io import to_sympy
    >>> to_sympy(neg(F.sym("x")))
    -x
    """
    return F.neg(a) if type(a) is Form else lift(build.neg(view(a)))


def call(fn: Callable[..., sympy.Basic], args: tuple) -> Value:
    """A function forms do not have (``IntTrueDiv``, ``IfThenElse``, ``FloorToInt``, ...), built on the views.

    >>> call(build.truediv, (F.sym("x"), F.const(2)))
    IntTrueDiv(x, 2)
    """
    return lift(fn(*(view(a) for a in args)))


_SYMPY_RELATIONS = {"==": build.eq, "!=": build.ne, "<": build.lt, "<=": build.le, ">": build.gt, ">=": build.ge}


def relation(op: str, a: Value, b: Value) -> BoolForm:
    """``a op b``: two integers, two numbers (one a float) or two booleans (``==``/``!=`` only).

    Raises:
        GuardTypeError: booleans ordered (``<``).

    >>> from symint.sympy_io import to_sympy
    >>> to_sympy(relation("==", F.scale(F.sym("a"), 2), F.const(1)))   # no integer solution, kept as written
    Eq(2*a, 1)
    """
    if type(a) is Form and type(b) is Form:
        r = F.rel(op, a, b)
        if r.kind == "const" and not F.sub(a, b).is_const:  # folded by a gcd (Note [Parsed forms and the sympy builders])
            return as_bool_form(_SYMPY_RELATIONS[op](_io.to_sympy(a), _io.to_sympy(b)))
        return r
    if isinstance(a, BoolForm) and isinstance(b, BoolForm):
        if op not in ("==", "!="):
            raise GuardTypeError(f"cannot order booleans: {view(a)} {op} {view(b)}")
        same = F.or_(connective("and", [a, b]), connective("and", [negate(a), negate(b)]))
        return same if op == "==" else negate(same)
    written = _SYMPY_RELATIONS[op](view(a), view(b))
    if any(_too_large(x) for x in (a, b) if isinstance(x, sympy.Basic)) and build.is_bool_expr(written):
        return _io.opaque_bool_from_sympy(written) if not isinstance(written, sympy.logic.boolalg.BooleanAtom) else F.bool_const(bool(written))
    return as_bool_form(written)


def negate(a: BoolForm) -> BoolForm:
    """``not a`` (a relation flips its operator).

    >>> from symint.sympy_io import to_sympy
    >>> to_sympy(negate(relation("<", F.sym("x"), F.const(3))))
    x >= 3
    """
    return F.not_(a)


def connective(kind: str, args: list[BoolForm]) -> BoolForm:
    """``and``/``or`` of ``args`` in the written order (flattened; a repeated operand dropped).

    >>> from symint.sympy_io import to_sympy
    >>> x = F.sym("x")
    >>> to_sympy(connective("and", [relation("<", x, F.const(3)), relation("<", x, F.const(3))]))
    x < 3
    """
    return (F.and_ if kind == "and" else F.or_)(*args)
