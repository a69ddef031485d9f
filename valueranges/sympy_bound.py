"""``bound``: the range of values a sympy expression built by ``symint`` can take.

The bound is computed bottom-up on the canonical expression, one
:mod:`valueranges.ops` operator per node, so it is sound but can lose
precision when a symbol occurs more than once. A few cheap patterns recover
the common cases (see Note [Repeated symbols]).

This is the bound of the sympy view; canonical forms have their own, on the hot
path (:mod:`valueranges.bound`), and both compute with the one endpoint
arithmetic (:mod:`valueranges.endpoints` through :mod:`valueranges.ops`). Public
``valueranges.bound`` is this function: it also covers floats, true division and
opaque functions, and booleans, which the form bound does not (yet).

Note [Repeated symbols]
    Interval arithmetic treats each occurrence of a symbol as independent, so
    ``x - x`` would be ``[-10, 10]`` for ``x`` in ``[0, 10]``. Sympy's canonical
    form already merges the simplest repetitions (``x - x`` is 0, ``x*x`` is
    ``x**2``, which the even-power rule keeps non-negative). On top of that:

    * ``Max(e, -e)`` (how ``symint.build.abs_`` spells ``abs``) is bounded as
      ``abs(e)``, and ``Min(e, -e)`` as ``-abs(e)``;
    * a comparison whose sides share a symbol and is not decided by the two
      sides' ranges is retried on the canonical difference ``lhs - rhs``
      compared with 0, where sympy cancels common terms (``x + 1 < x + y`` becomes
      ``1 - y < 0``).

    Anything else (``x - Min(x, 3)``, ``(x + 1) * (x - 1)``, ``x < Max(x, 3) + 1``)
    stays imprecise but sound.

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

import sympy
from sympy.core.relational import Relational
from sympy.core.sorting import default_sort_key

from symint import build
from symint.sympy_io.functions import OrderedAnd, OrderedOr
from symint.sympy_io import functions as N

from . import ops
from .endpoints import FALSE, TRUE, UNKNOWN
from .errors import UnsupportedExpressionError
from .interval import INF, NINF, ValueRanges

__all__ = ["bound"]

_CACHE_SIZE = 1 << 14

Env = dict  # sympy.Symbol -> ValueRanges
Memo = dict  # sympy.Basic -> ValueRanges


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
    return tuple(sorted(found, key=default_sort_key))


@lru_cache(maxsize=_CACHE_SIZE)
def _bound_cached(expr: sympy.Basic, symbol_ranges: tuple[tuple | None, ...]) -> ValueRanges:
    env = {s: k[0] for s, k in zip(_free_symbols(expr), symbol_ranges) if k is not None}
    return _walk(expr, env, {})


def _walk(e: sympy.Basic, env: Env, memo: Memo) -> ValueRanges:
    rule = _RULES.get(type(e))
    if rule is None:
        return _walk_other(e, env)
    if not e.args:
        return rule(e, env, memo)
    r = memo.get(e)
    if r is None:
        r = memo[e] = rule(e, env, memo)
    return r


def _walk_other(e: sympy.Basic, env: Env) -> ValueRanges:
    """Leaves of types not in ``_RULES`` (subclasses of numbers and symbols), else an error."""
    if e.is_Symbol:
        return env.get(e, UNKNOWN)
    if e.is_Integer:
        return ValueRanges(int(e), int(e))
    if e.is_Rational:
        return _rational(e, env, {})
    if e.is_Float:
        return ValueRanges.exact(float(e))
    hook = getattr(type(e), "bound_args", None)  # opaque functions (symint.sympy_io.floats) bound themselves
    if hook is not None:
        args = [_walk(a, env, {}) for a in e.args]
        lo, hi = hook(*((r.lower, r.upper) for r in args))
        return ValueRanges.of(lo, hi)
    raise UnsupportedExpressionError(e)


# -- leaves ---------------------------------------------------------------------------------------


def _symbol(e: sympy.Symbol, env: Env, memo: Memo) -> ValueRanges:
    return env.get(e, UNKNOWN)


def _integer(e: sympy.Integer, env: Env, memo: Memo) -> ValueRanges:
    v = e.p
    return ValueRanges(v, v)


def _rational(e: sympy.Rational, env: Env, memo: Memo) -> ValueRanges:
    return _scale(ValueRanges(e.p, e.p), 1, e.q)


def _float(e: sympy.Float, env: Env, memo: Memo) -> ValueRanges:
    return ValueRanges.exact(float(e))


# -- arithmetic -----------------------------------------------------------------------------------


def _add(e: sympy.Add, env: Env, memo: Memo) -> ValueRanges:
    args = e.args
    r = _walk(args[0], env, memo)
    for a in args[1:]:
        r = ops.add(r, _walk(a, env, memo))
    return r


def _mul(e: sympy.Mul, env: Env, memo: Memo) -> ValueRanges:
    args = e.args
    coeff = args[0]
    if coeff.is_Number:
        args = args[1:]
    r = _walk(args[0], env, memo)
    for a in args[1:]:
        r = ops.mul(r, _walk(a, env, memo))
    if not coeff.is_Number:
        return r
    if coeff.is_Integer:
        return ops.mul(r, ValueRanges(coeff.p, coeff.p))
    if coeff.is_Rational:
        return _scale(r, coeff.p, coeff.q)
    return ops.mul(r, _walk(coeff, env, memo))


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


def _pow(e: sympy.Pow, env: Env, memo: Memo) -> ValueRanges:
    base, exp = e.args
    if not exp.is_Integer:
        return UNKNOWN  # a fractional or symbolic real power: not built for integers
    k = exp.p
    r = ops.pow_(_walk(base, env, memo), ValueRanges(abs(k), abs(k)))
    return r if k >= 0 else ops.truediv(ValueRanges(1, 1), r)


def _binary(op: Callable[[ValueRanges, ValueRanges], ValueRanges]):
    def rule(e: sympy.Basic, env: Env, memo: Memo) -> ValueRanges:
        a, b = e.args
        return op(_walk(a, env, memo), _walk(b, env, memo))

    return rule


def _unary(op: Callable[[ValueRanges], ValueRanges]):
    def rule(e: sympy.Basic, env: Env, memo: Memo) -> ValueRanges:
        return op(_walk(e.args[0], env, memo))

    return rule


def _minmax(op: Callable[[ValueRanges, ValueRanges], ValueRanges], is_max: bool):
    def rule(e: sympy.Basic, env: Env, memo: Memo) -> ValueRanges:
        args = e.args
        present = set(args)
        paired: set = set()
        r = None
        for a in args:
            if a in paired:
                continue
            minus_a = build.neg(a)
            if minus_a in present and minus_a not in paired:
                # Max(e, -e) == abs(e), Min(e, -e) == -abs(e): see Note [Repeated symbols].
                paired.update((a, minus_a))
                v = ops.abs_(_walk(a, env, memo))
                v = v if is_max else ops.neg(v)
            else:
                v = _walk(a, env, memo)
            r = v if r is None else op(r, v)
        return r

    return rule


def _ite(e: N.IfThenElse, env: Env, memo: Memo) -> ValueRanges:
    c, a, b = e.args
    return ops.ite(_walk(c, env, memo), _walk(a, env, memo), _walk(b, env, memo))


# -- booleans -------------------------------------------------------------------------------------


def _relation(op: Callable[[ValueRanges, ValueRanges], ValueRanges]):
    def rule(e: Relational, env: Env, memo: Memo) -> ValueRanges:
        lhs, rhs = e.args
        r = op(_walk(lhs, env, memo), _walk(rhs, env, memo))
        if r.is_singleton() or build.is_bool_expr(lhs) or build.is_bool_expr(rhs):
            return r
        if not set(_free_symbols(lhs)).intersection(_free_symbols(rhs)):
            return r
        # The sides share a symbol: sympy may cancel it in the difference.
        return r & op(_walk(build.sub(lhs, rhs), env, memo), ValueRanges(0, 0))

    return rule


def _and(e: sympy.And, env: Env, memo: Memo) -> ValueRanges:
    r = TRUE
    for a in e.args:
        r = ops.and_(r, _walk(a, env, memo))
        if r is FALSE:
            break
    return r


def _or(e: sympy.Or, env: Env, memo: Memo) -> ValueRanges:
    r = FALSE
    for a in e.args:
        r = ops.or_(r, _walk(a, env, memo))
        if r is TRUE:
            break
    return r


def _true(e: sympy.Basic, env: Env, memo: Memo) -> ValueRanges:
    return TRUE


def _false(e: sympy.Basic, env: Env, memo: Memo) -> ValueRanges:
    return FALSE


_RULES: dict[type, Callable[[sympy.Basic, Env, Memo], ValueRanges]] = {
    sympy.Symbol: _symbol,
    sympy.Dummy: _symbol,
    sympy.Integer: _integer,
    type(sympy.S.Zero): _integer,
    type(sympy.S.One): _integer,
    type(sympy.S.NegativeOne): _integer,
    sympy.Rational: _rational,
    type(sympy.S.Half): _rational,
    sympy.Float: _float,
    sympy.Add: _add,
    sympy.Mul: _mul,
    sympy.Pow: _pow,
    N.FloorDiv: _binary(ops.floordiv),
    N.CeilDiv: _binary(ops.ceildiv),
    N.Mod: _binary(ops.mod),
    N.PowByNatural: _binary(ops.pow_),
    N.IntTrueDiv: _binary(ops.int_truediv),
    N.Max: _minmax(ops.max_, True),
    N.Min: _minmax(ops.min_, False),
    N.FloorToInt: _unary(ops.floor_to_int),
    N.CeilToInt: _unary(ops.ceil_to_int),
    N.IfThenElse: _ite,
    # sympy's own spellings of the same functions (same semantics on integers).
    sympy.Max: _minmax(ops.max_, True),
    sympy.Min: _minmax(ops.min_, False),
    sympy.Abs: _unary(ops.abs_),
    sympy.Mod: _binary(ops.mod),
    sympy.floor: _unary(ops.floor_to_int),
    sympy.ceiling: _unary(ops.ceil_to_int),
    sympy.Eq: _relation(ops.eq),
    sympy.Ne: _relation(ops.ne),
    sympy.Lt: _relation(ops.lt),
    sympy.Le: _relation(ops.le),
    sympy.Gt: _relation(ops.gt),
    sympy.Ge: _relation(ops.ge),
    sympy.And: _and,
    sympy.Or: _or,
    OrderedAnd: _and,  # symint.build's connectives (sympy's, in evaluation order)
    OrderedOr: _or,
    sympy.Not: _unary(ops.not_),
    type(sympy.true): _true,
    type(sympy.false): _false,
}
