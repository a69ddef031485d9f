"""``bound``: the range of values an expression built by ``symint`` can take (the public, stateless bound).

One engine: the expression is converted once to its canonical form
(:func:`symint.sympy_io.from_sympy`, :func:`~symint.sympy_io.bool_from_sympy`, memoised) and
bounded by the bounds of forms (:func:`valueranges.bound.bound_form`), the same code the
facts engine and the hot path use. Only what forms do not represent is walked here as
sympy, one :mod:`valueranges.ops` operator per node: floats and rationals, true division,
negative powers, ``FloorToInt``/``CeilToInt``, ``IfThenElse``, sympy's own ``Abs``,
``floor``, ``ceiling``, ``Max``, ``Min``, ``Mod``, relations between such values, and
opaque functions that bound themselves (``bound_args``, :mod:`symint.sympy_io.floats`).
Their integer sub-expressions go back to forms.

Note [Repeated symbols]
    Interval arithmetic treats each occurrence of a symbol as independent, so ``x - x``
    would be ``[-10, 10]`` for ``x`` in ``[0, 10]``. The canonical form merges the
    simplest repetitions (``x - x`` is 0, ``(x + 1)*(x - 1)`` is ``x**2 - 1``, which the
    even-power rule keeps above -1), but it expands ``(x - y)**2`` and ``x*(10 - x)``, so a
    product with a sum among its factors or a power of a sum (alone or as a term) is also
    bounded as written, and the two bounds intersected; the form bound factors a sum whose terms share an atom
    and bounds ``Max(e, -e)`` as ``abs(e)``; a relation is bounded on its normal form
    ``lhs - rhs op 0``, where common terms cancel (``x + 1 < x + y`` is ``1 - y < 0``).
    Anything else (``x - Min(x, 3)``, ``x < Max(x, 3) + 1``) stays imprecise but sound.

Note [Caching]
    ``bound`` is pure, so it is cached by ``(expr, the ranges of expr's free
    symbols)`` with ``functools.lru_cache``; only the symbols ``expr`` uses
    enter the key, so a large, changing mapping still hits the cache. A range
    enters the key with the types of its endpoints (``[2, 2]`` equals
    ``[2.0, 2.0]``, but float arithmetic rounds). Removing the cache changes no
    result.

>>> from symint.build import symbol_expr, floordiv, mod
>>> from valueranges import ValueRanges
>>> x = symbol_expr("x")
>>> str(bound(floordiv(x, 2) + mod(x, 8), {x: ValueRanges.of(0, math.inf)}))
'[0, oo]'
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Mapping

from symint import build
from symint.form import BoolForm
from symint.form.terms import FormLimitError
from symint.lazy_sympy import lazy_module, sympy

from . import ops
from .bound import bound_form
from .endpoints import FALSE, TRUE, UNKNOWN
from .errors import UnsupportedExpressionError
from .interval import INF, NINF, ValueRanges

_io = lazy_module("symint.sympy_io")  # Note [sympy on first use] in symint.lazy_sympy

__all__ = ["bound"]

_CACHE_SIZE = 1 << 14
_ZERO = ValueRanges(0, 0)
N = lazy_module("symint.sympy_io.functions")


def bound(expr: sympy.Basic | int | float | bool, ranges: Mapping[sympy.Symbol, ValueRanges]) -> ValueRanges:
    """The range of values ``expr`` takes when each symbol stays in its range.

    Sound: for every assignment of values within ``ranges`` (symbols missing
    from ``ranges`` may take any value) on which ``symint.evaluate(expr, ...)``
    does not raise, the value lies in the result. Boolean expressions get
    boolean ranges: ``[True, True]`` means "provably true".

    Args:
        expr: an expression built by ``symint`` (sums, products with integer or
            rational coefficients, natural powers, every ``symint`` function,
            relations, ``And``/``Or``/``Not``, true/false, numbers), or a Python number.
        ranges: the range of each symbol; missing symbols are ``[-oo, oo]``.

    Returns:
        A range holding every value of ``expr``.

    Raises:
        UnsupportedExpressionError: ``expr`` contains a node ``symint`` does not build
            (sympy's ``sin``, ``oo``, ...).

    >>> from symint.build import symbol_expr, floordiv, max_, lt
    >>> from valueranges import ValueRanges as VR
    >>> a, b = symbol_expr("a"), symbol_expr("b")
    >>> str(bound(floordiv(a, 2), {a: VR.of(2, 10)})), str(bound(max_(a, b), {a: VR.of(2, 5), b: VR.of(3, 9)}))
    ('[1, 5]', '[3, 9]')
    >>> str(bound(lt(a, b), {a: VR.of(2, 5), b: VR.of(6, 9)}))
    '[True, True]'
    """
    if not isinstance(expr, sympy.Basic):
        expr = build.as_expr(expr)
    symbols = _free_symbols(expr)
    if not symbols:
        return _bound_cached(expr, ())
    get = ranges.get
    return _bound_cached(expr, tuple(_key(get(s)) for s in symbols))


def _key(r: ValueRanges | None) -> tuple | None:
    """A range with its endpoint types: ``[n, n]`` and ``[n.0, n.0]`` are equal, but bound apart.

    ``x**2`` at the int ``n`` is exact; at the float ``n.0`` it is rounded (for
    ``n = 2**37 - 1`` the rounded square is larger than ``n**2``): a cache keyed by
    the equal ranges alone would serve one for the other (see Note [Caching]).
    """
    return None if r is None else (r, type(r.lower), type(r.upper))


@lru_cache(maxsize=_CACHE_SIZE)
def _free_symbols(expr: sympy.Basic) -> tuple[sympy.Symbol, ...]:
    """``expr``'s symbols in a fixed order (the cache key relies on it being deterministic).

    Not ``expr.free_symbols``: sympy recomputes it for every path through a shared
    sub-expression, which is exponential on DAGs such as nested ``abs``.
    """
    found: set[sympy.Symbol] = set()
    seen: set[int] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if e.is_Symbol:
            found.add(e)
            continue
        for arg in e.args:
            if id(arg) not in seen:
                seen.add(id(arg))
                stack.append(arg)
    return tuple(sorted(found, key=sympy.core.sorting.default_sort_key))


@lru_cache(maxsize=_CACHE_SIZE)
def _bound_cached(expr: sympy.Basic, symbol_ranges: tuple[tuple | None, ...]) -> ValueRanges:
    env = {s: k[0] for s, k in zip(_free_symbols(expr), symbol_ranges) if k is not None}
    return _Bounder(env).expr(expr)


def _integral(r: ValueRanges) -> bool:
    return all(type(v) is int or v == INF or v == NINF for v in (r.lower, r.upper))


class _Bounder:
    """One bound: forms for what they represent, the sympy nodes of the rest (see the module docstring)."""

    __slots__ = ("env", "ranges", "integral", "memo", "nodes")

    def __init__(self, env: dict):
        self.env = env
        self.ranges = {s.name: (r.lower, r.upper) for s, r in env.items()}
        # A relation's normal form divides by the gcd of its coefficients, exact for integer values only.
        self.integral = all(_integral(r) for r in env.values())
        self.memo: dict = {}
        self.nodes: dict = {}

    def expr(self, e: sympy.Basic) -> ValueRanges:
        found = self.nodes.get(e)
        if found is None:
            found = self.nodes[e] = self._expr(e)
        return found

    def _expr(self, e: sympy.Basic) -> ValueRanges:
        if e.is_Symbol:
            return self.env.get(e, UNKNOWN)
        if build.is_bool_expr(e):
            return self.boolean(_io.bool_from_sympy(e))
        try:
            f = _io.from_sympy(e)
        except (_io.NotAnIntegerForm, FormLimitError):
            return self.node(e)
        r = self.form(f)
        if not r.is_singleton() and _has_factored_sum(e):
            # (x - y)**2 is >= 0 and x*(10 - x) is in [0, 100] for x in [0, 10]; expanded, x**2 - 2*x*y + y**2
            # and 10*x - x**2 are not: bounded as written too, both sound (Note [Repeated symbols])
            r = r & self.node(e)
        return r

    def form(self, f) -> ValueRanges:
        try:
            lo, hi = bound_form(f, self.ranges, self.memo, self.opaque)
        except OverflowError:  # ints past ~1e308 meeting a float endpoint: sound without a bound
            return UNKNOWN
        return ValueRanges.of(lo, hi)

    def opaque(self, e: sympy.Basic) -> tuple:
        """The interval of an opaque atom's sympy node (its form is itself: walk the node)."""
        r = self.nodes.get(e)
        if r is None:
            r = self.nodes[e] = self.node(e)
        return r.lower, r.upper

    def boolean(self, b: BoolForm) -> ValueRanges:
        kind = b.kind
        if kind == "const":
            return TRUE if b.value else FALSE
        if kind == "rel":
            op, lhs, rhs = b.args
            r = _RELATIONS[op](self.form(lhs), self.form(rhs))
            if r.is_singleton() or not self.integral:
                return r
            n = b.norm  # common terms of the sides cancel (Note [Repeated symbols])
            return r & _RELATIONS[n.op](self.form(n.p), _ZERO)
        if kind == "and" or kind == "or":
            op, r, stop = (ops.and_, TRUE, FALSE) if kind == "and" else (ops.or_, FALSE, TRUE)
            for a in b.args:
                r = op(r, self.boolean(a))
                if r is stop:
                    break
            return r
        if kind == "not":
            return ops.not_(self.boolean(b.args[0]))
        return self.node(b.args[0])

    def node(self, e: sympy.Basic) -> ValueRanges:
        """A sympy node no form represents, its arguments bounded by :meth:`expr`."""
        rule = _rules().get(type(e))
        if rule is not None:
            return rule(self, e)
        if e.is_Integer:
            return ValueRanges(int(e), int(e))
        if e.is_Rational:
            return _rational(self, e)
        if e.is_Float:
            return ValueRanges.exact(float(e))
        hook = getattr(type(e), "bound_args", None)  # opaque functions (symint.sympy_io.floats) bound themselves
        if hook is not None:
            lo, hi = hook(*((r.lower, r.upper) for r in map(self.expr, e.args)))
            return ValueRanges.of(lo, hi)
        raise UnsupportedExpressionError(e)


def _is_factored_sum(e: sympy.Basic) -> bool:
    """A product with a sum among its factors, or a power of a sum: what a form expands."""
    if e.is_Pow:
        return e.base.is_Add and e.exp.is_Integer and e.exp.p > 1
    return e.is_Mul and any(a.is_Add or (a.is_Pow and a.base.is_Add) for a in e.args)


def _has_factored_sum(e: sympy.Basic) -> bool:
    """Whether ``e`` is, or directly sums, a factored sum (which its form expands: Note [Repeated symbols]).

    >>> x = sympy.Symbol("x", integer=True)
    >>> _has_factored_sum(x*(10 - x)), _has_factored_sum(x**2 - 10*x), _has_factored_sum((x - 1)**2 + 3)
    (True, False, True)
    """
    return _is_factored_sum(e) or (e.is_Add and any(_is_factored_sum(a) for a in e.args))


# -- the nodes forms do not represent ------------------------------------------------------------


def _rational(b: _Bounder, e: sympy.Rational) -> ValueRanges:
    return _scale(ValueRanges(e.p, e.p), 1, e.q)


def _add(b: _Bounder, e: sympy.Add) -> ValueRanges:
    args = e.args
    r = b.expr(args[0])
    for a in args[1:]:
        r = ops.add(r, b.expr(a))
    return r


def _mul(b: _Bounder, e: sympy.Mul) -> ValueRanges:
    args = e.args
    coeff = args[0]
    if coeff.is_Number:
        args = args[1:]
    r = b.expr(args[0])
    for a in args[1:]:
        r = ops.mul(r, b.expr(a))
    if not coeff.is_Number:
        return r
    if coeff.is_Integer:
        return ops.mul(r, ValueRanges(coeff.p, coeff.p))
    if coeff.is_Rational:
        return _scale(r, coeff.p, coeff.q)
    return ops.mul(r, b.expr(coeff))


def _scale(r: ValueRanges, p: int, q: int) -> ValueRanges:
    """``r * p / q`` for integers ``p`` and ``q > 0``, rounded outward when not exact."""
    r = ops.mul(r, ValueRanges(p, p))
    return ValueRanges(_div_round(r.lower, q, NINF), _div_round(r.upper, q, INF))


def _div_round(v: int | float, q: int, toward: float) -> int | float:
    """``v / q`` rounded toward ``toward`` (``-oo`` for a lower bound, ``oo`` for an upper one)."""
    if v == INF or v == NINF:
        return v
    if type(v) is int and v % q == 0:
        return v // q
    try:
        f = v / q
    except OverflowError:
        return toward
    exact = Fraction(v) / q
    if (Fraction(f) <= exact) if toward < 0 else (Fraction(f) >= exact):
        return f
    return math.nextafter(f, toward)


def _pow(b: _Bounder, e: sympy.Pow) -> ValueRanges:
    base, exp = e.args
    if not exp.is_Integer:
        return UNKNOWN  # a fractional or symbolic real power: not built for integers
    k = exp.p
    r = ops.pow_(b.expr(base), ValueRanges(abs(k), abs(k)))
    return r if k >= 0 else ops.truediv(ValueRanges(1, 1), r)


def _fold(op: Callable[..., ValueRanges]):
    def rule(b: _Bounder, e: sympy.Basic) -> ValueRanges:
        args = [b.expr(a) for a in e.args]
        r = args[0] if len(args) > 1 or op in _N_ARY else op(args[0])
        for a in args[1:]:
            r = op(r, a)
        return r

    return rule


def _ite(b: _Bounder, e: sympy.Basic) -> ValueRanges:  # an IfThenElse
    c, x, y = e.args
    return ops.ite(b.expr(c), b.expr(x), b.expr(y))


_N_ARY = (ops.max_, ops.min_)
_RELATIONS = {"==": ops.eq, "!=": ops.ne, "<": ops.lt, "<=": ops.le, ">": ops.gt, ">=": ops.ge}


@lru_cache(maxsize=None)
def _rules() -> dict[type, Callable[[_Bounder, sympy.Basic], ValueRanges]]:
    """The rule of each sympy node type, built on first use (its keys are sympy's classes)."""
    return {
        sympy.Float: lambda b, e: ValueRanges.exact(float(e)),
        sympy.Add: _add,
        sympy.Mul: _mul,
        sympy.Pow: _pow,
        N.FloorDiv: _fold(ops.floordiv),  # with a float argument; integer ones are forms
        N.CeilDiv: _fold(ops.ceildiv),
        N.Mod: _fold(ops.mod),
        N.PowByNatural: _fold(ops.pow_),
        N.IntTrueDiv: _fold(ops.int_truediv),
        N.Max: _fold(ops.max_),
        N.Min: _fold(ops.min_),
        N.FloorToInt: _fold(ops.floor_to_int),
        N.CeilToInt: _fold(ops.ceil_to_int),
        N.IfThenElse: _ite,
        # sympy's own spellings of the same functions (same semantics on integers).
        sympy.Max: _fold(ops.max_),
        sympy.Min: _fold(ops.min_),
        sympy.Abs: _fold(ops.abs_),
        sympy.Mod: _fold(ops.mod),
        sympy.floor: _fold(ops.floor_to_int),
        sympy.ceiling: _fold(ops.ceil_to_int),
        **{cls: _fold(_RELATIONS[cls.rel_op]) for cls in (sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge)},
    }
