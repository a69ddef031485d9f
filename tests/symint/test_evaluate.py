"""``symint.evaluate``: the concrete evaluator of expressions built by ``symint``."""

from __future__ import annotations

import math

import pytest
import sympy

from symint import (CeilDiv, CeilToInt, FloorDiv, FloorToInt, IfThenElse, IntTrueDiv, Max, Min, Mod, PowByNatural,
                    UnboundSymbolError, build, evaluate)
from symint.build import symbol_expr

from ._util import msg

x, y = symbol_expr("x"), symbol_expr("y")

# (label, expression, {x, y} values, expected value with its type)
CASES = [
    ("x", x, (-3, 0), -3),
    ("constant", sympy.Integer(2**80), (0, 0), 2**80),
    ("x + 2*y - 1", x + 2 * y - 1, (5, -4), -4),
    ("x*y**2", x * y**2, (-3, 4), -48),
    ("FloorDiv(x, y)", FloorDiv(x, y), (-7, 2), -4),
    ("FloorDiv(x, y) neg divisor", FloorDiv(x, y), (7, -2), -4),
    ("CeilDiv(x, y)", CeilDiv(x, y), (-7, 2), -3),
    ("CeilDiv(x, y) neg divisor", CeilDiv(x, y), (7, -2), -3),
    ("Mod(x, y)", Mod(x, y), (-7, 3), 2),
    ("Mod(x, y) neg divisor", Mod(x, y), (7, -3), -2),
    ("Max(x, y, 1)", Max(x, y, 1), (-7, -3), 1),
    ("Min(x, y, 1)", Min(x, y, 1), (-7, -3), -7),
    ("PowByNatural(x, y)", PowByNatural(x, y), (-2, 3), -8),
    ("PowByNatural(0, 0)", PowByNatural(x, y), (0, 0), 1),
    ("IntTrueDiv(x, y)", IntTrueDiv(x, y), (7, 2), 3.5),
    ("IntTrueDiv(huge, 3)", IntTrueDiv(x, y), (2**70 + 1, 3), (2**70 + 1) / 3),
    ("FloorToInt(x / 2)", FloorToInt(IntTrueDiv(x, 2)), (-7, 0), -4),
    ("CeilToInt(x / 2)", CeilToInt(IntTrueDiv(x, 2)), (-7, 0), -3),
    ("x / 2 as rational", x / 2, (6, 0), 3),
    ("x / 4 as rational", x / 4, (6, 0), 1.5),
    ("x**-2", x**-2, (2, 0), 0.25),
    ("0.5*x + y", sympy.Float(0.5) * x + y, (3, 1), 2.5),
    ("x < y", build.lt(x, y), (1, 2), True),
    ("Eq(x, y)", build.eq(x, y), (1, 2), False),
    ("Ne(x, y)", build.ne(x, y), (1, 2), True),
    ("x >= y", build.ge(x, y), (2, 2), True),
    ("And", build.and_(build.lt(x, 3), build.gt(y, 0)), (2, 1), True),
    ("Or", build.or_(build.lt(x, 3), build.gt(y, 0)), (5, 0), False),
    ("Not", build.not_(build.eq(build.mod(x, 2), 0)), (5, 0), True),
    ("IfThenElse", IfThenElse(build.lt(x, 0), -x, x * 10), (-4, 0), 4),
    ("IfThenElse else", IfThenElse(build.lt(x, 0), -x, x * 10), (4, 0), 40),
    ("nested", Mod(FloorDiv(x + 3 * y, 4), 3) + Max(x, -y), (-9, 2), (-3 // 4) % 3 + max(-9, -2)),
    ("true", sympy.true, (0, 0), True),
]


@pytest.mark.parametrize("label, expr, point, expected", CASES, ids=[c[0] for c in CASES])
def test_evaluate(label, expr, point, expected):
    got = evaluate(expr, {x: point[0], y: point[1]})
    assert type(got) is type(expected) and got == expected, msg(f"evaluate({expr})", point, expected, got)


def test_evaluation_is_exact_for_huge_integers():
    big = 2**100 + 1
    assert evaluate(FloorDiv(x, 3) * 3 + Mod(x, 3), {x: big}) == big
    assert evaluate(CeilDiv(x, y), {x: big, y: 2}) == 2**99 + 1


@pytest.mark.parametrize(
    "label, expr, point",
    [
        ("FloorDiv(x, y)", FloorDiv(x, y), (1, 0)),
        ("CeilDiv(x, y)", CeilDiv(x, y), (1, 0)),
        ("Mod(x, y)", Mod(x, y), (1, 0)),
        ("IntTrueDiv(x, y)", IntTrueDiv(x, y), (1, 0)),
        ("x**-1", x**-1, (0, 0)),
        ("only the taken branch", IfThenElse(build.eq(y, 0), y, FloorDiv(x, y)), None),
    ],
)
def test_zero_division(label, expr, point):
    if point is None:  # a zero divisor in the branch not taken is not evaluated
        assert evaluate(expr, {x: 1, y: 0}) == 0
        return
    with pytest.raises(ZeroDivisionError):
        evaluate(expr, {x: point[0], y: point[1]})


def test_unbound_symbol():
    with pytest.raises(UnboundSymbolError, match="no value given for symbol y") as info:
        evaluate(x + y, {x: 1})
    assert isinstance(info.value, KeyError)


def test_negative_exponent_of_pow_by_natural():
    with pytest.raises(ValueError, match="exponent must be >= 0"):
        evaluate(PowByNatural(x, y), {x: 2, y: -1})


@pytest.mark.parametrize("expr", [sympy.sin(x), sympy.Max(x, y), sympy.floor(x / 2 + sympy.Rational(1, 3)), sympy.Mod(x, y)])
def test_foreign_functions_are_refused(expr):
    with pytest.raises(TypeError, match="not an expression built by symint"):
        evaluate(expr, {x: 1, y: 2})


def test_float_results_follow_python():
    assert evaluate(IntTrueDiv(x, y), {x: 1, y: 3}) == 1 / 3
    assert math.isclose(evaluate(sympy.Float(0.1) * x, {x: 3}), 0.1 * 3)
