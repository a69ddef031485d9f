"""``SymInt``, ``SymBool`` and ``SymFloat``: symbolic values that behave like ``int``, ``bool`` and ``float``.

Arithmetic builds canonical sympy expressions (Python semantics, constants
folded: a result that folds to a number *is* a plain Python number) and carries
the value under the hints along. Turning a symbolic value into a concrete one
(``bool()``, ``int()``, ``operator.index()``, ``float()``) asks the environment,
which either proves the answer or records a guard; nothing here silently reads
a hint.

Hashing follows torch: a ``SymInt`` is unhashable (``==`` builds a ``SymBool``),
and hashing a ``SymBool`` or ``SymFloat`` makes it concrete first.

Note [Float expressions]
    Integer expressions are exact: their value under :func:`symint.evaluate` is
    Python's, bit for bit. Float expressions (``SymFloat``) are sympy's *real*
    arithmetic: the hint is always Python's float, but evaluating the expression
    may differ in the last bits (``(s + 0.1) + 0.2`` becomes ``s + 0.3``, and
    ``s ** -3`` is ``1 / s**3`` where Python calls ``pow``), and a constant folded
    from floats is the real-number answer (``s + 0.5 - s`` is ``0.5`` even where
    Python's floats round ``s + 0.5``). Comparisons are never folded from float
    arithmetic (see Note [Folding relations] in ``build``), so no decision rests
    on it.

>>> from symint import symbol
>>> s0, s1 = symbol("s0", hint=4), symbol("s1", hint=3)
>>> y = (s0 * 2 + s1) // 2
>>> y, y.node.hint, s0 - s0, s0 == s0 + 1
(s0 + FloorDiv(s1, 2), 5, 0, False)
"""

from __future__ import annotations

import math
import operator
import sys
from typing import Callable

from symint.lazy_sympy import lazy_module, sympy

from symint.form import logic as B
from symint import build
from symint import form as F
from symint.errors import SymbolicTypeError
from symint.node import Hint, SymNode, compute_hint, merge_envs

__all__ = ["SymInt", "SymBool", "SymFloat", "wrap", "unwrap"]

_Operand = tuple["sympy.Basic", Hint, type, "SymNode | None"]


def unwrap(value: object) -> _Operand | None:
    """``(expr, hint, pytype, node)`` for an int/bool/float or a symbolic value, else None.

    >>> unwrap(3)
    (3, 3, <class 'int'>, None)
    """
    if isinstance(value, (SymInt, SymBool, SymFloat)):
        node = value.node
        return node.expr, node.hint, node.pytype, node
    if isinstance(value, bool):
        return (sympy.true if value else sympy.false), value, bool, None
    if isinstance(value, int):
        return sympy.Integer(value), value, int, None
    if isinstance(value, float):
        return sympy.Float(value), value, float, None
    return None


def wrap(expr: sympy.Basic, pytype: type, hint: Hint, env) -> "int | bool | float | SymInt | SymBool | SymFloat":
    """A plain number when ``expr`` folded to a constant, else a symbolic value of ``pytype``.

    A constant keeps the requested type: ``s * 0.0`` folds to ``0`` in sympy but is
    the float ``0.0`` in Python.

    >>> wrap(sympy.Integer(3), int, 3, None), wrap(sympy.Integer(0), float, 0.0, None)
    (3, 0.0)
    """
    if expr is sympy.true or expr is sympy.false:
        return bool(expr)
    if expr.is_Number:
        if isinstance(expr, sympy.Integer) and pytype is not float:
            return int(expr)
        return float(expr)
    node = SymNode(expr, pytype, hint, env)
    if pytype is bool:
        return SymBool(node)
    if pytype is float:
        return SymFloat(node)
    return SymInt(node)


# imported by the first float-to-int conversion / bitwise node (Note [sympy on first use] in symint.lazy_sympy)
_sympy_io = lazy_module("symint.sympy_io.functions")
_floats = lazy_module("symint.sympy_io.floats")  # the bitwise nodes BitwiseAnd, ...


def _int_operand(v: object):
    """``(form, hint, node)`` for an int or a SymInt with a form, else None (floats, bools, others)."""
    t = type(v)
    if t is SymInt:
        node = v.node
        f = node.form
        return None if f is None else (f, node.hint, node)
    if t is int:
        return F.const(v), v, None
    return None


def _env_of(na: SymNode | None, nb: SymNode | None):
    if na is None:
        return nb.env
    if nb is None or nb.env is na.env or nb.env is None:
        return na.env
    if na.env is None:
        return nb.env
    return merge_envs(na, nb)


def _int_operands(a: object, b: object):
    """``(fa, ha, na, fb, hb, nb)`` (form, hint, node) when both are ints or SymInts with forms, else None.

    :func:`_int_operand` of both at once, unrolled: every integer operation and comparison of a
    trace comes here (a loop over the two costs W1's replay 1% more instructions, measured).
    """
    if type(a) is SymInt:
        na = a.node
        fa, ha = na._form or na.form, na.hint  # the slot first: the property only derives a missing form
        if fa is None:
            return None
    elif type(a) is int:
        na, fa, ha = None, F.const(a), a
    else:
        return None
    if type(b) is SymInt:
        nb = b.node
        fb, hb = nb._form or nb.form, nb.hint
        if fb is None:
            return None
    elif type(b) is int:
        nb, fb, hb = None, F.const(b), b
    else:
        return None
    return fa, ha, na, fb, hb, nb


def _form_binary(a: object, b: object, fop: Callable, concrete: Callable, builder: Callable, result_type):
    """The canonical-form fast path of integer arithmetic; falls back to sympy for anything else."""
    ops = _int_operands(a, b)
    if ops is None:
        return _binary(a, b, builder, concrete, result_type)
    fa, ha, na, fb, hb, nb = ops
    hint = None if ha is None or hb is None else concrete(ha, hb)  # first: 0 // t raises when t's hint is 0
    f = fop(fa, fb)
    if f.is_const:
        return f.const
    env = na.env if na is not None and (nb is None or nb.env is na.env) else _env_of(na, nb)  # _env_of's common case
    return SymInt(SymNode.of_form(f, int, hint, env))


def _form_compare(a: object, b: object, op: str, concrete: Callable, builder: Callable):
    """The canonical-form fast path of integer comparisons."""
    ops = _int_operands(a, b)
    if ops is None:
        return _binary(a, b, builder, concrete, bool)
    fa, ha, na, fb, hb, nb = ops
    r = B.rel(op, fa, fb)
    if r.kind == "const":
        return r.value
    hint = None if ha is None or hb is None else concrete(ha, hb)
    return SymBool(SymNode.of_form(r, bool, hint, _env_of(na, nb)))


def _binary(a: object, b: object, builder: Callable, concrete: Callable, result_type: type | None):
    """Combine two operands; ``result_type`` None means int, or float if either is a float."""
    ua, ub = unwrap(a), unwrap(b)
    if ua is None or ub is None:
        return NotImplemented
    (ea, ha, ta, na), (eb, hb, tb, nb) = ua, ub
    if ta is bool or tb is bool:
        # bools take part in integer arithmetic as 0/1, as in Python.
        if na is not None and build.is_bool_expr(ea):
            return NotImplemented
        if nb is not None and build.is_bool_expr(eb):
            return NotImplemented
        ea, ta = (sympy.Integer(int(ha)), int) if ta is bool else (ea, ta)
        eb, tb = (sympy.Integer(int(hb)), int) if tb is bool else (eb, tb)
    env = merge_envs(*(n for n in (na, nb) if n is not None))
    pytype = result_type or (float if float in (ta, tb) else int)
    return wrap(builder(ea, eb), pytype, compute_hint(concrete, ha, hb), env)


def _unary(x: "SymInt | SymFloat", builder: Callable, concrete: Callable, pytype: type | None = None):
    node = x.node
    return wrap(builder(node.expr), pytype or node.pytype, compute_hint(concrete, node.hint), node.env)


def _reject_float(a: object, b: object, op: str) -> None:
    if isinstance(a, (float, SymFloat)) or isinstance(b, (float, SymFloat)):
        raise SymbolicTypeError(
            f"symbolic {op} of floats is not supported; use math.floor(a / b) or work with integers"
        )


def _pow(base: object, exp: object):
    ub, ue = unwrap(base), unwrap(exp)
    if ub is None or ue is None:
        return NotImplemented
    if ub[2] is float or ue[2] is float:  # a float power: real, whatever the exponent's sign
        return _binary(base, exp, build.float_pow, operator.pow, float)
    if isinstance(exp, SymInt):
        # Python's int ** int is an int only for a natural exponent: decide which (this may guard).
        if not bool(exp >= 0):
            # A negative exponent: base ** exp == 1 / base ** (-exp), a float.
            return _binary(base, exp, _negative_pow, operator.pow, float)
        return _binary(base, exp, build.pow_, operator.pow, None)
    if isinstance(exp, int) and exp < 0:
        if isinstance(base, int) and base == 0:
            raise ZeroDivisionError("0 cannot be raised to a negative power")
        return _binary(base, exp, build.pow_, operator.pow, float)
    return _binary(base, exp, build.pow_, operator.pow, None)


def _negative_pow(base: sympy.Expr, exp: sympy.Expr) -> sympy.Expr:
    return build.truediv(1, build.pow_(base, build.neg(exp)))


def _shift(value: object, count: object, left: bool):
    """``value << count`` or ``value >> count``: times or floor-divided by ``2 ** count``."""
    if not all(isinstance(v, (int, SymInt)) for v in (value, count)):
        return NotImplemented
    if isinstance(count, SymInt):
        if not bool(count >= 0):  # may record a guard
            raise ValueError(f"negative shift count {count}")
    elif count < 0:
        raise ValueError("negative shift count")
    if left:
        return _binary(value, count, lambda a, b: build.mul(a, build.pow_(2, b)), operator.lshift, int)
    return _binary(value, count, lambda a, b: build.floordiv(a, build.pow_(2, b)), operator.rshift, int)


def _round_int(x: "SymInt", ndigits: int):
    """``round(x, ndigits)`` for ``ndigits < 0``: to a multiple of ``10**-ndigits``, ties to even."""
    m = 10**-ndigits
    node = x.node
    q, r = build.floordiv(node.expr, m), build.mod(node.expr, m)
    up = build.or_(build.gt(build.mul(r, 2), m), build.and_(build.eq(build.mul(r, 2), m), build.eq(build.mod(q, 2), 1)))
    expr = build.ite(up, build.mul(build.add(q, 1), m), build.mul(q, m))
    return wrap(expr, int, compute_hint(lambda h: round(h, ndigits), node.hint), node.env)


def _bitwise(a: object, b: object, fn: str, concrete: Callable):
    """``a & b`` (``|``, ``^``) of two integers, at least one symbolic: an opaque integer expression.

    ``fn`` names its node class in :mod:`symint.sympy_io.floats` (``"BitwiseAnd"``, ...).

    Note [Booleans in integer operations]
        A bitwise operator between an integer and a boolean is Python's: the boolean is
        0 or 1 and the result an int (``3 & True == 1``, torch too). A ``SymBool``
        operand becomes ``IfThenElse(b, 1, 0)``. Arithmetic (``+ - * // %``) on a
        ``SymBool`` stays refused with a ``TypeError``: there, a comparison where a
        count was meant is the likelier bug; write ``sym_ite(b, 1, 0)`` to mean it.
        Two booleans stay boolean (``SymBool & SymBool`` is ``and``).
    """
    if not all(isinstance(v, (int, SymInt, SymBool)) for v in (a, b)):
        return NotImplemented
    return _binary(_bool_as_int(a), _bool_as_int(b), getattr(_floats, fn), concrete, int)


def _bool_as_int(v: object) -> object:
    """A bool as the int 0/1, a ``SymBool`` as ``IfThenElse(b, 1, 0)``; anything else unchanged."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, SymBool):
        node = v.node
        return wrap(build.ite(node.expr, 1, 0), int, compute_hint(int, node.hint), node.env)
    return v


class SymInt:
    """A symbolic integer. Behaves like ``int``; comparisons give :class:`SymBool`.

    >>> from symint import symbol
    >>> s = symbol("s", hint=-7)
    >>> (s // 2).node.hint, (s % 3).node.hint, (s // 2), -s + 1
    (-4, 2, FloorDiv(s, 2), 1 - s)
    """

    __slots__ = ("node",)

    def __init__(self, node: SymNode):
        self.node = node

    # -- arithmetic ---------------------------------------------------------------------------
    def __add__(self, other):
        return _form_binary(self, other, F.add, operator.add, build.add, None)

    def __radd__(self, other):
        return _form_binary(other, self, F.add, operator.add, build.add, None)

    def __sub__(self, other):
        return _form_binary(self, other, F.sub, operator.sub, build.sub, None)

    def __rsub__(self, other):
        return _form_binary(other, self, F.sub, operator.sub, build.sub, None)

    def __mul__(self, other):
        return _form_binary(self, other, F.mul, operator.mul, build.mul, None)

    def __rmul__(self, other):
        return _form_binary(other, self, F.mul, operator.mul, build.mul, None)

    def __floordiv__(self, other):
        _reject_float(self, other, "floor division")
        return _form_binary(self, other, F.floordiv, operator.floordiv, build.floordiv, int)

    def __rfloordiv__(self, other):
        _reject_float(other, self, "floor division")
        return _form_binary(other, self, F.floordiv, operator.floordiv, build.floordiv, int)

    def __mod__(self, other):
        _reject_float(self, other, "modulo")
        return _form_binary(self, other, F.mod, operator.mod, build.mod, int)

    def __rmod__(self, other):
        _reject_float(other, self, "modulo")
        return _form_binary(other, self, F.mod, operator.mod, build.mod, int)

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def __truediv__(self, other):
        return _binary(self, other, build.truediv, operator.truediv, float)

    def __rtruediv__(self, other):
        return _binary(other, self, build.truediv, operator.truediv, float)

    def __pow__(self, other):
        return _pow(self, other)

    def __rpow__(self, other):
        return _pow(other, self)

    def __lshift__(self, other):
        return _shift(self, other, left=True)

    def __rlshift__(self, other):
        return _shift(other, self, left=True)

    def __rshift__(self, other):
        return _shift(self, other, left=False)

    def __rrshift__(self, other):
        return _shift(other, self, left=False)

    def __neg__(self):
        node = self.node
        if node.form is not None:
            return SymInt(SymNode.of_form(F.neg(node.form), int, None if node.hint is None else -node.hint, node.env))
        return _unary(self, build.neg, operator.neg)

    def __pos__(self):
        return self

    def __abs__(self):
        return _unary(self, build.abs_, abs)

    # -- bitwise (opaque functions, see symint.sympy_io.floats) ------------------------------------------
    def __and__(self, other):
        return _bitwise(self, other, "BitwiseAnd", operator.and_)

    def __rand__(self, other):
        return _bitwise(other, self, "BitwiseAnd", operator.and_)

    def __or__(self, other):
        return _bitwise(self, other, "BitwiseOr", operator.or_)

    def __ror__(self, other):
        return _bitwise(other, self, "BitwiseOr", operator.or_)

    def __xor__(self, other):
        return _bitwise(self, other, "BitwiseXor", operator.xor)

    def __rxor__(self, other):
        return _bitwise(other, self, "BitwiseXor", operator.xor)

    # -- comparisons --------------------------------------------------------------------------
    def __eq__(self, other):
        return _form_compare(self, other, '==', operator.eq, build.eq)

    def __ne__(self, other):
        return _form_compare(self, other, '!=', operator.ne, build.ne)

    def __lt__(self, other):
        return _form_compare(self, other, '<', operator.lt, build.lt)

    def __le__(self, other):
        return _form_compare(self, other, '<=', operator.le, build.le)

    def __gt__(self, other):
        return _form_compare(self, other, '>', operator.gt, build.gt)

    def __ge__(self, other):
        return _form_compare(self, other, '>=', operator.ge, build.ge)

    # -- conversions (each asks the environment, which may record a guard) ---------------------
    def __bool__(self) -> bool:
        return bool(self != 0)

    def __int__(self) -> int:
        return int(self.node.concrete("int"))

    def __index__(self) -> int:
        return int(self.node.concrete("index"))

    def __float__(self) -> float:
        return float(self.node.concrete("float"))

    def __round__(self, ndigits: int | None = None):
        if ndigits is None or operator.index(ndigits) >= 0:
            return self
        return _round_int(self, operator.index(ndigits))

    def __trunc__(self):
        return self

    def __floor__(self):
        return self

    def __ceil__(self):
        return self

    def __hash__(self):
        raise TypeError(
            f"unhashable type: 'SymInt' ({self}); == on a SymInt builds a SymBool, so it cannot be a "
            "dict key or set member. Use int(x) to specialise it (records a guard) or key on x.node.expr"
        )

    def _sympy_(self) -> sympy.Basic:
        """The expression, for ``sympy.sympify(value)`` (torch's protocol; records no guard)."""
        return self.node.expr

    def __repr__(self) -> str:
        return _printed(self, sys._getframe(1))

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if _specialises(self, sys._getframe(1)):
            return format(int(self.node.concrete("str")), spec)
        return format(str(self.node.current_expr()), spec)


def _specialises(v: "SymInt", frame) -> bool:
    """Whether printing ``v`` in ``frame`` makes it concrete (Note [Printing a SymInt])."""
    ask = getattr(v.node.env, "specializes_printing", None)
    return ask is not None and ask(frame)


def _printed(v: "SymInt", frame) -> str:
    """``str``/``repr`` of a SymInt: its expression, or (Note [Printing a SymInt]) its value, with a guard.

    Note [Printing a SymInt]
        ``str(n)``, ``repr(n)`` and ``f"{n}"`` in the user's code traced by ``torch.compile`` give the
        value and install a guard ``n == value`` (the text depends on it, as ``len(str(n))`` does).
        Everywhere else (messages, this library's own code, ``export``) the text is the expression,
        with a value the environment has pinned since shown as that value (records nothing).
        The environment decides (``specializes_printing(frame)``, with the caller's frame); an
        environment without that method never specialises.
    """
    if _specialises(v, frame):
        return str(int(v.node.concrete("str")))
    return str(v.node.current_expr())  # a size pinned since prints its value; no guard


class SymBool:
    """A symbolic boolean; ``bool()`` asks the environment to decide it.

    >>> from symint import symbol
    >>> s = symbol("s", hint=5)
    >>> c = (s > 2) & (s < 10)
    >>> c, c.node.hint
    ((s > 2) & (s < 10), True)
    """

    __slots__ = ("node",)

    def __init__(self, node: SymNode):
        self.node = node

    def __and__(self, other):
        if _is_integer(other):  # Note [Booleans in integer operations]
            return _bitwise(self, other, "BitwiseAnd", operator.and_)
        return _form_logical(self, other, B.and_, build.and_, lambda a, b: a and b)

    def __rand__(self, other):
        if _is_integer(other):
            return _bitwise(other, self, "BitwiseAnd", operator.and_)
        return _form_logical(other, self, B.and_, build.and_, lambda a, b: a and b)

    def __or__(self, other):
        if _is_integer(other):
            return _bitwise(self, other, "BitwiseOr", operator.or_)
        return _form_logical(self, other, B.or_, build.or_, lambda a, b: a or b)

    def __ror__(self, other):
        if _is_integer(other):
            return _bitwise(other, self, "BitwiseOr", operator.or_)
        return _form_logical(other, self, B.or_, build.or_, lambda a, b: a or b)

    def __xor__(self, other):
        if _is_integer(other):
            return _bitwise(self, other, "BitwiseXor", operator.xor)
        return _logical(self, other, build.ne, operator.ne)

    def __rxor__(self, other):
        if _is_integer(other):
            return _bitwise(other, self, "BitwiseXor", operator.xor)
        return _logical(self, other, build.ne, operator.ne)

    def __eq__(self, other):
        return _logical(self, other, build.eq, operator.eq)

    def __ne__(self, other):
        return _logical(self, other, build.ne, operator.ne)

    def __bool__(self) -> bool:
        return bool(self.node.concrete("bool"))

    def __int__(self) -> int:
        return int(bool(self))

    def __index__(self) -> int:
        return int(bool(self))

    def __hash__(self):
        return hash(bool(self))

    def _sympy_(self) -> sympy.Basic:
        """The expression, for ``sympy.sympify(value)`` (torch's protocol; records no guard)."""
        return self.node.expr

    def __repr__(self) -> str:
        return str(self.node.current_expr())  # a size pinned since prints its value; no guard

    __str__ = __repr__


def _is_integer(v: object) -> bool:
    """An int (not a bool) or a ``SymInt``: the other side of a bitwise operator that makes it integer."""
    return isinstance(v, SymInt) or (isinstance(v, int) and not isinstance(v, bool))


def _bool_operand(v: object):
    if type(v) is SymBool:
        f = v.node.form
        return None if f is None else (f, v.node.hint, v.node)
    if type(v) is bool:
        return B.bool_const(v), v, None
    return None


def _form_logical(a: object, b: object, fop: Callable, builder: Callable, concrete: Callable):
    """``a and b`` / ``a or b`` on boolean forms, in the written order."""
    oa, ob = _bool_operand(a), _bool_operand(b)
    if oa is None or ob is None:
        if isinstance(a, SymBool):
            return _logical(a, b, builder, concrete)
        return _logical(b, a, builder, lambda x, y: concrete(y, x))
    (fa, ha, na), (fb, hb, nb) = oa, ob
    r = fop(fa, fb)
    if r.kind == "const":
        return r.value
    hint = None if ha is None or hb is None else concrete(ha, hb)
    return SymBool(SymNode.of_form(r, bool, hint, _env_of(na, nb)))


def _logical(a: SymBool, b: object, builder: Callable, concrete: Callable):
    ub = unwrap(b)
    if ub is None or ub[2] is not bool:
        return NotImplemented
    eb, hb, _, nb = ub
    na = a.node
    env = merge_envs(na, nb) if nb is not None else na.env
    return wrap(builder(na.expr, eb), bool, compute_hint(concrete, na.hint, hb), env)


class SymFloat:
    """A symbolic float, produced by true division and by mixing a ``SymInt`` with a float.

    >>> from symint import symbol
    >>> import math
    >>> s = symbol("s", hint=7)
    >>> half = s / 2
    >>> half, half.node.hint, math.ceil(half), math.ceil(half).node.hint
    (IntTrueDiv(s, 2), 3.5, CeilToInt(IntTrueDiv(s, 2)), 4)
    """

    __slots__ = ("node",)

    def __init__(self, node: SymNode):
        self.node = node

    def __add__(self, other):
        return _binary(self, other, build.add, operator.add, float)

    def __radd__(self, other):
        return _binary(other, self, build.add, operator.add, float)

    def __sub__(self, other):
        return _binary(self, other, build.sub, operator.sub, float)

    def __rsub__(self, other):
        return _binary(other, self, build.sub, operator.sub, float)

    def __mul__(self, other):
        return _binary(self, other, build.mul, operator.mul, float)

    def __rmul__(self, other):
        return _binary(other, self, build.mul, operator.mul, float)

    def __truediv__(self, other):
        return _binary(self, other, build.truediv, operator.truediv, float)

    def __rtruediv__(self, other):
        return _binary(other, self, build.truediv, operator.truediv, float)

    def __neg__(self):
        return _unary(self, build.neg, operator.neg)

    def __pos__(self):
        return self

    def __abs__(self):
        return _unary(self, build.abs_, abs)

    def __pow__(self, other):
        return _binary(self, other, build.float_pow, operator.pow, float)

    def __rpow__(self, other):
        return _binary(other, self, build.float_pow, operator.pow, float)

    def __floordiv__(self, other):
        _reject_float(self, other, "floor division")

    def __rfloordiv__(self, other):
        _reject_float(other, self, "floor division")

    def __mod__(self, other):
        _reject_float(self, other, "modulo")

    def __rmod__(self, other):
        _reject_float(other, self, "modulo")

    def __eq__(self, other):
        return _binary(self, other, build.eq, operator.eq, bool)

    def __ne__(self, other):
        return _binary(self, other, build.ne, operator.ne, bool)

    def __lt__(self, other):
        return _binary(self, other, build.lt, operator.lt, bool)

    def __le__(self, other):
        return _binary(self, other, build.le, operator.le, bool)

    def __gt__(self, other):
        return _binary(self, other, build.gt, operator.gt, bool)

    def __ge__(self, other):
        return _binary(self, other, build.ge, operator.ge, bool)

    def __floor__(self):
        return _unary(self, _sympy_io.FloorToInt, math.floor, int)

    def __ceil__(self):
        return _unary(self, _sympy_io.CeilToInt, math.ceil, int)

    def __trunc__(self):
        node = self.node
        expr = build.ite(build.ge(node.expr, 0), _sympy_io.FloorToInt(node.expr), _sympy_io.CeilToInt(node.expr))
        return wrap(expr, int, compute_hint(math.trunc, node.hint), node.env)

    def __bool__(self) -> bool:
        return bool(self != 0)

    def __float__(self) -> float:
        return float(self.node.concrete("float"))

    def __int__(self) -> int:
        return int(math.trunc(self))

    def __hash__(self):
        return hash(float(self))

    def _sympy_(self) -> sympy.Basic:
        """The expression, for ``sympy.sympify(value)`` (torch's protocol; records no guard)."""
        return self.node.expr

    def __repr__(self) -> str:
        return str(self.node.current_expr())  # a size pinned since prints its value; no guard

    __str__ = __repr__
