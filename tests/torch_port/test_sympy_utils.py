"""Ported from pytorch ``test/test_sympy_utils.py`` (TestValueRanges, TestSympyInterp, TestSympySolve,
TestSympyFunctions): each test names the torch test it translates.

torch's ``ValueRangeAnalysis.<op>`` is our :mod:`valueranges.ops` / ``valueranges.division`` /
``valueranges.compare`` function of the same operator; torch's ``ReferenceAnalysis`` (the
value on constants) is Python's own operator, which is what :func:`symint.evaluate` computes.
torch's ``int_oo`` is our ``math.inf`` endpoint (there is no separate integer infinity).
"""

from __future__ import annotations

import itertools
import math
import operator
import pickle
import sys

import pytest
import sympy

from symint import FloorDiv, Mod, evaluate
from symint import build
from symint.sympy_io.floats import BitwiseAnd, BitwiseOr, FloatCos, FLOAT_FUNCTIONS
from valueranges import ValueRanges, bound, ops
from valueranges import compare, division

CONSTANTS = [-1, 0, 1, 2, 3, 4, 5, 8, 16, 32, 64, 100, 101, 2**24, 2**32, 2**37 - 1]
LESS_CONSTANTS = [-1, 0, 1, 2, 100]

UNARY = {
    "abs": (ops.abs_, abs),
    "neg": (ops.neg, operator.neg),
    "floor": (ops.floor_to_int, math.floor),
    "ceil": (ops.ceil_to_int, math.ceil),
}
BINARY = {
    "add": (ops.add, operator.add),
    "sub": (ops.sub, operator.sub),
    "mul": (ops.mul, operator.mul),
    "floordiv": (division.floordiv, operator.floordiv),
    "mod": (division.mod, operator.mod),
    "truediv": (division.truediv, operator.truediv),
    "pow_by_natural": (ops.pow_, operator.pow),
    "minimum": (ops.min_, min),
    "maximum": (ops.max_, max),
}
COMPARE = {
    "eq": (compare.eq, operator.eq), "ne": (compare.ne, operator.ne), "lt": (compare.lt, operator.lt),
    "gt": (compare.gt, operator.gt), "le": (compare.le, operator.le), "ge": (compare.ge, operator.ge),
}


def valid_binary(fn: str, a, b) -> bool:
    """torch's ``valid_binary``: skip inputs the reference cannot evaluate."""
    if fn == "pow_by_natural" and (b > 4 or b < 0 or a == b == 0):
        return False
    if fn == "mod" and (a < 0 or b <= 0):
        return False
    if fn in ("truediv", "floordiv") and b == 0:
        return False
    return True


def generate_range(vals):
    """torch's ``generate_range``: every ``[a1, a2]`` with ``a1 <= a2`` from ``vals``."""
    for a1, a2 in itertools.product(vals, repeat=2):
        if a1 <= a2:
            yield ValueRanges.of(a1, a2)


@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary_ref(fn) -> None:
    """torch TestValueRanges.test_unary_ref (int): a singleton range maps to the singleton of the value."""
    vr, ref = UNARY[fn]
    for v in CONSTANTS:
        r = vr(ValueRanges.exact(v))
        assert r.lower == r.upper == ref(v), (fn, v, r)


@pytest.mark.parametrize("fn", sorted(BINARY))
def test_binary_ref(fn) -> None:
    """torch TestValueRanges.test_binary_ref (int)."""
    vr, ref = BINARY[fn]
    for a, b in itertools.product(CONSTANTS, repeat=2):
        if not valid_binary(fn, a, b):
            continue
        r = vr(ValueRanges.exact(a), ValueRanges.exact(b))
        if r == ValueRanges.unknown():
            continue
        expected = ref(a, b)
        if isinstance(expected, float):
            assert r.lower <= expected <= r.upper, (fn, a, b, r)
        else:
            assert r.lower == r.upper == expected, (fn, a, b, r)


def test_mul_zero_unknown() -> None:
    """torch TestValueRanges.test_mul_zero_unknown."""
    assert ops.mul(ValueRanges.exact(0), ValueRanges.unknown()) == ValueRanges.exact(0)


def test_unary_bool_ref_range() -> None:
    """torch TestValueRanges.test_unary_bool_ref_range (not_)."""
    for a in (ValueRanges.true(), ValueRanges.false(), ValueRanges.unknown_bool()):
        r = compare.not_(a)
        outs = {not v for v in (False, True) if v in a}
        assert all(o in r for o in outs)
        assert (r.lower == r.upper) == (len(outs) == 1)


@pytest.mark.parametrize("fn", ["and_", "or_"])
def test_binary_bool_ref_range(fn) -> None:
    """torch TestValueRanges.test_binary_bool_ref_range."""
    vr, ref = getattr(compare, fn), {"and_": operator.and_, "or_": operator.or_}[fn]
    ranges = (ValueRanges.true(), ValueRanges.false(), ValueRanges.unknown_bool())
    for a, b in itertools.product(ranges, repeat=2):
        r = vr(a, b)
        outs = {ref(x, y) for x in (False, True) for y in (False, True) if x in a and y in b}
        assert all(o in r for o in outs)
        assert (r.lower == r.upper) == (len(outs) == 1)


@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary_ref_range(fn) -> None:
    """torch TestValueRanges.test_unary_ref_range: every value's image lies in the range's image."""
    vr, ref = UNARY[fn]
    for a in generate_range(CONSTANTS[:10]):
        r = vr(a)
        for a0 in CONSTANTS:
            if a0 in a:
                assert ref(a0) in r, (fn, a, a0)


@pytest.mark.parametrize("fn", sorted(BINARY) + sorted(COMPARE))
def test_binary_ref_range(fn) -> None:
    """torch TestValueRanges.test_binary_ref_range."""
    vr, ref = {**BINARY, **COMPARE}[fn]
    for a, b in itertools.product(generate_range(LESS_CONSTANTS), repeat=2):
        if fn == "pow_by_natural" and b.upper > 4:
            continue
        r = vr(a, b)
        for a0, b0 in itertools.product(LESS_CONSTANTS, repeat=2):
            if a0 not in a or b0 not in b or not valid_binary(fn, a0, b0):
                continue
            assert ref(a0, b0) in r, (fn, a, b, a0, b0, r)


@pytest.mark.parametrize("fn", ["bitwise_and", "bitwise_or"])
def test_bitwise_ref_range(fn) -> None:
    """torch TestValueRanges.test_bitwise_ref_range: bounds of & and | hold for every pair in range(-4, 5)."""
    cls, ref = {"bitwise_and": (BitwiseAnd, operator.and_), "bitwise_or": (BitwiseOr, operator.or_)}[fn]
    vals = range(-4, 5)
    for a, b in itertools.product(generate_range(vals), repeat=2):
        lo, hi = cls.bound_args((a.lower, a.upper), (b.lower, b.upper))
        for a0, b0 in itertools.product(vals, repeat=2):
            if a0 in a and b0 in b:
                assert lo <= ref(a0, b0) <= hi, (fn, a, b, a0, b0)


def test_float_functions_ref_range() -> None:
    """torch TestValueRanges.test_unary_ref_range for exp/log/sqrt (our opaque float functions)."""
    for name in ("exp", "log", "sqrt"):
        cls = FLOAT_FUNCTIONS[name]
        for a in generate_range([0, 1, 2, 5, 100]):
            lo, hi = cls.bound_args((a.lower, a.upper))
            for a0 in (1, 2, 5, 100):
                if a0 in a:
                    assert lo <= getattr(math, name)(a0) <= hi, (name, a, a0)


def test_pow_half() -> None:
    """torch TestValueRanges.test_pow_half: bounding a power with exponent 0.5 does not raise."""
    x = build.symbol_expr("x")
    bound(build.pow_(x, 0.5), {})


# -- TestSympyInterp: evaluating a built expression equals the Python operator -----------------------
@pytest.mark.parametrize("fn", sorted(BINARY) + sorted(COMPARE))
def test_interp(fn) -> None:
    """torch TestSympyInterp.test_interp: ``sympy_interp`` of the expression equals the reference value."""
    builders = {
        "add": build.add, "sub": build.sub, "mul": build.mul, "floordiv": build.floordiv, "mod": build.mod,
        "truediv": build.truediv, "pow_by_natural": build.pow_, "minimum": build.min_, "maximum": build.max_,
        "eq": build.eq, "ne": build.ne, "lt": build.lt, "gt": build.gt, "le": build.le, "ge": build.ge,
    }
    _, ref = {**BINARY, **COMPARE}[fn]
    x, y = build.symbol_expr("x"), build.symbol_expr("y")
    expr = builders[fn](x, y)
    for a, b in itertools.product(CONSTANTS[:12], repeat=2):
        if not valid_binary(fn, a, b):
            continue
        assert evaluate(expr, {x: a, y: b}) == ref(a, b), (fn, a, b)


# -- TestSympySolve -----------------------------------------------------------------------------------
@pytest.mark.xfail(strict=True, raises=ImportError,
                   reason="torch's try_solve (isolate a symbol in a relation) has no counterpart: we solve "
                          "only linear equalities with a unit coefficient, inside Facts, not as a public API")
def test_try_solve_addition() -> None:
    """torch TestSympySolve.test_addition."""
    from symint.solve import try_solve  # noqa: F401


def test_simple_floordiv_gcd() -> None:
    """torch TestSympySolve.test_simple_floordiv_gcd: a common factor of numerator and divisor cancels."""
    x, y, z = (build.symbol_expr(n) for n in "xyz")
    assert FloorDiv(x, x) == 1
    assert FloorDiv(128 * x, 2304) == FloorDiv(x, 18)
    assert FloorDiv(128 * x + 128 * y, 2304) == FloorDiv(x + y, 18)
    assert FloorDiv(128 * x + 128 * y + 8192 * z, 9216) == FloorDiv(x + y + 64 * z, 72)
    assert FloorDiv(x * y, x) == y
    # negative: nothing in common
    assert FloorDiv(x * y + x + y + 1, x + 1).args == (x * y + x + y + 1, x + 1)


# -- TestSympyFunctions ---------------------------------------------------------------------------------
def test_pickle() -> None:
    """torch TestSympyFunctions.test_pickle (OpaqueUnaryFn_cos -> FloatCos)."""
    x = FloatCos(sympy.Symbol("a"))
    assert pickle.loads(pickle.dumps(x)) == x
    m = Mod(sympy.Symbol("a", integer=True), 3)
    assert pickle.loads(pickle.dumps(m)) == m


# -- issue 24: value-range bugs found by translating torch's tests ----------------------------------------
def test_overflowing_float_functions_bound() -> None:
    """torch TestValueRanges.test_unary_ref (exp at 1000, log at 0): no InvalidRangeError; the range says
    "past the largest float" ([MAX, oo] and [-oo, -MAX]); oo is not a value of a range."""
    x = build.symbol_expr("x")
    exp, log = FLOAT_FUNCTIONS["exp"], FLOAT_FUNCTIONS["log"]
    big = bound(exp(x), {x: ValueRanges.exact(1000)})
    assert big.lower == sys.float_info.max and big.upper == math.inf
    for zero in (0, 0.0):
        low = bound(log(x), {x: ValueRanges.exact(zero)})
        assert low.lower == -math.inf and low.upper == -sys.float_info.max
    assert bound(exp(x), {x: ValueRanges.of(0, 1000)}).lower == 1.0


@pytest.mark.parametrize("cls, op", [(BitwiseAnd, operator.and_), (BitwiseOr, operator.or_)])
def test_bitwise_of_booleans_is_boolean(cls, op) -> None:
    """torch TestValueRanges.test_binary_bool_ref (bitwise_and/or of booleans): [True, True] & [True, True] is
    [True, True] (was the integer range [0, 1]); every pair of boolean ranges gives the exact boolean range."""
    x, y = build.symbol_expr("x"), build.symbol_expr("y")
    ranges = [ValueRanges.of(a, b) for a, b in ((False, False), (True, True), (False, True))]
    for ra, rb in itertools.product(ranges, ranges):
        got = bound(cls(x, y), {x: ra, y: rb})
        values = {op(a, b) for a in (ra.lower, ra.upper) for b in (rb.lower, rb.upper)}
        assert got == ValueRanges.of(min(values), max(values)), (ra, rb, got)


def test_bound_cache_keeps_ints_and_floats_apart() -> None:
    """torch TestValueRanges (pow with a float singleton): ``[n, n]`` equals ``[n.0, n.0]``, but ``x**2`` differs
    (the float square rounds up for n = 2**37 - 1): the cache served the int range, which misses the float value."""
    x = build.symbol_expr("x")
    n = 137438953471
    e = build.pow_(x, 2)
    assert bound(e, {x: ValueRanges.exact(n)}) == ValueRanges.exact(n * n)
    as_float = bound(e, {x: ValueRanges.exact(float(n))})
    assert float(n) ** 2 in as_float and float(n) ** 2 != n * n
