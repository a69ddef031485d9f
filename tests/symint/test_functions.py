"""``symint.sympy_io.functions``: each function on concrete integers agrees with Python; canonical forms; zero divisors."""

from __future__ import annotations

import importlib
import inspect
import itertools
import math
import operator
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import symint
from symint import (CeilDiv, CeilToInt, FloorDiv, FloorToInt, IfThenElse, IntTrueDiv, Max, Min, Mod, PowByNatural,
                    modular_indexing)
from symint.build import symbol_expr

from ._util import any_ints, msg, outcome, py_ceildiv, same_value, to_python

x, y, z = symbol_expr("x"), symbol_expr("y"), symbol_expr("z")

#: Every sign, zero, and integers beyond 2**53 (where going through floats would be wrong).
SIGNED = [-(2**70) - 3, -13, -7, -4, -3, -2, -1, 0, 1, 2, 3, 4, 7, 13, 2**70 + 5]

# name, sympy function, Python reference
BINARY = [
    ("FloorDiv", FloorDiv, operator.floordiv),
    ("CeilDiv", CeilDiv, py_ceildiv),
    ("Mod", Mod, operator.mod),
    ("Max", Max, max),
    ("Min", Min, min),
    ("IntTrueDiv", IntTrueDiv, operator.truediv),
]


def _symint_outcome(fn, *args):
    kind, value = outcome(fn, *args)
    return (kind, to_python(value)) if kind == "ok" else (kind, value)


def _check(name, fn, ref, args):
    expected = outcome(ref, *args)
    got = _symint_outcome(fn, *(sympy.Integer(a) for a in args))
    ok = expected[0] == got[0] and (expected[0] == "raise" and expected[1] is got[1] or same_value(expected[1], got[1]))
    assert ok, msg(f"{name} on concrete integers differs from Python", args, expected, got)


@pytest.mark.parametrize("name, fn, ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_every_sign_combination(name, fn, ref):
    for a, b in itertools.product(SIGNED, repeat=2):
        _check(name, fn, ref, (a, b))


@settings(max_examples=2000, deadline=None)
@given(a=any_ints, b=any_ints, c=any_ints)
def test_every_function_agrees_with_python(a, b, c):
    """One property over all functions (one hypothesis run keeps the suite fast)."""
    for name, fn, ref in BINARY:
        _check(name, fn, ref, (a, b))
    _check("PowByNatural", PowByNatural, operator.pow, (a, abs(c) % 13))
    _check("Max/3", Max, max, (a, b, c))
    _check("Min/3", Min, min, (a, b, c))
    expected = outcome(lambda p, q, r: (p // q) % r, a, b, c)
    got = _symint_outcome(lambda p, q, r: modular_indexing(sympy.Integer(p), q, r), a, b, c)
    assert expected == got, msg("modular_indexing(a, b, c) vs (a // b) % c", (a, b, c), expected, got)


def test_pow_by_natural_every_sign_and_negative_exponent():
    for a, b in itertools.product(SIGNED, range(0, 5)):
        _check("PowByNatural", PowByNatural, operator.pow, (a, b))
    assert PowByNatural(0, 0) == 1  # Python's 0 ** 0
    with pytest.raises(ValueError, match="exponent must be >= 0"):
        PowByNatural(2, -1)  # int ** negative int is a float: the dunder handles it, not this function


def test_modular_indexing_every_sign_combination():
    for a, b, c in itertools.product([-9, -4, -1, 0, 1, 3, 4, 9], repeat=3):
        expected = outcome(lambda p, q, r: (p // q) % r, a, b, c)
        got = _symint_outcome(lambda p, q, r: modular_indexing(sympy.Integer(p), q, r), a, b, c)
        assert expected == got, msg("modular_indexing(a, b, c) vs (a // b) % c", (a, b, c), expected, got)


def test_max_min_many_arguments():
    for args in itertools.chain.from_iterable(itertools.product(SIGNED[4:11], repeat=n) for n in (1, 2, 3, 4)):
        for fn, ref in ((Max, max), (Min, min)):
            got = to_python(fn(*args))
            assert got == ref(args), msg(f"{fn.__name__}(*args)", args, ref(args), got)


FLOATS = [-1e20, -2.5, -2.0, -0.5, -0.0, 0.0, 0.5, 2.0, 2.5, 1e20, 2.0**60 + 2**8]


@pytest.mark.parametrize("value", FLOATS)
def test_floor_ceil_to_int_on_floats(value):
    for fn, ref in ((FloorToInt, math.floor), (CeilToInt, math.ceil)):
        got = fn(sympy.Float(value))
        assert isinstance(got, sympy.Integer) and int(got) == ref(value), msg(fn.__name__, value, ref(value), got)


@pytest.mark.parametrize("p, q", [(-7, 2), (7, 2), (-1, 3), (6, 3), (2**80 + 1, 2), (-(2**80) - 1, 2)])
def test_floor_ceil_to_int_on_rationals_are_exact(p, q):
    r = sympy.Rational(p, q)
    assert int(FloorToInt(r)) == math.floor(Fraction(p, q))
    assert int(CeilToInt(r)) == math.ceil(Fraction(p, q))


# -- zero divisors ------------------------------------------------------------------------------

ZERO_DIVISORS = [
    ("FloorDiv(x, 0)", lambda: FloorDiv(x, 0)),
    ("FloorDiv(3, 0)", lambda: FloorDiv(3, 0)),
    ("CeilDiv(x, 0)", lambda: CeilDiv(x, 0)),
    ("Mod(x, 0)", lambda: Mod(x, 0)),
    ("Mod(0, 0)", lambda: Mod(0, 0)),
    ("IntTrueDiv(x, 0)", lambda: IntTrueDiv(x, 0)),
    ("IntTrueDiv(x, 0.0)", lambda: IntTrueDiv(x, sympy.Float(0.0))),
    ("FloorDiv(x, 0.0)", lambda: FloorDiv(x, sympy.Float(0.0))),
    ("Mod(x, 0.0)", lambda: Mod(x, sympy.Float(0.0))),
    ("modular_indexing(x, 0, 4)", lambda: modular_indexing(x, 0, 4)),
    ("modular_indexing(x, 2, 0)", lambda: modular_indexing(x, 2, 0)),
]


@pytest.mark.parametrize("label, build", ZERO_DIVISORS, ids=[z[0] for z in ZERO_DIVISORS])
def test_constant_zero_divisor_raises(label, build):
    with pytest.raises(ZeroDivisionError):
        build()


# -- canonical forms ----------------------------------------------------------------------------

# (label, built expression, expected canonical form)
CANONICAL = [
    ("(4*x)//2", FloorDiv(4 * x, 2), 2 * x),
    ("Mod(2*x, 2)", Mod(2 * x, 2), sympy.Integer(0)),
    ("(x*y)//y", FloorDiv(x * y, y), x),
    ("(3*x)//3", FloorDiv(3 * x, 3), x),
    ("(x*y + x)//x", FloorDiv(x * y + x, x), y + 1),
    ("(2*x*y + 3)//(2*x)", FloorDiv(2 * x * y + 3, 2 * x), y + FloorDiv(3, 2 * x)),
    ("(4*x + y + 6)//2", FloorDiv(4 * x + y + 6, 2), 2 * x + 3 + FloorDiv(y, 2)),
    ("(4*x + 6)//-2", FloorDiv(4 * x + 6, -2), -2 * x - 3),
    ("(6*x + 4)//4 (gcd)", FloorDiv(6 * x + 4, 4), FloorDiv(3 * x + 2, 2)),
    ("(6*x + 2)//-4 (gcd, negative)", FloorDiv(6 * x + 2, -4), FloorDiv(3 * x + 1, -2)),
    ("ceil((6*x + 4)/4) (gcd)", CeilDiv(6 * x + 4, 4), CeilDiv(3 * x + 2, 2)),
    ("ceil((4*x + y)/2)", CeilDiv(4 * x + y, 2), 2 * x + CeilDiv(y, 2)),
    ("(x//3)//2", FloorDiv(FloorDiv(x, 3), 2), FloorDiv(x, 6)),
    ("(x//-3)//2", FloorDiv(FloorDiv(x, -3), 2), FloorDiv(x, -6)),
    ("x//1", FloorDiv(x, 1), x),
    ("x//-1", FloorDiv(x, -1), -x),
    ("x//x", FloorDiv(x, x), sympy.Integer(1)),
    ("0//x", FloorDiv(0, x), sympy.Integer(0)),
    ("Mod(Mod(x, 12), 4)", Mod(Mod(x, 12), 4), Mod(x, 4)),
    ("Mod(Mod(x, 12), -4)", Mod(Mod(x, 12), -4), Mod(x, -4)),
    ("Mod(Mod(x, y), y)", Mod(Mod(x, y), y), Mod(x, y)),
    ("Mod(Mod(x, 4), 12)", Mod(Mod(x, 4), 12), Mod(x, 4)),
    ("Mod(Mod(x, -4), -12)", Mod(Mod(x, -4), -12), Mod(x, -4)),
    ("Mod(x + 9, 4)", Mod(x + 9, 4), Mod(x + 1, 4)),
    ("Mod(x - 1, 4)", Mod(x - 1, 4), Mod(x + 3, 4)),
    ("Mod(x + 5, -4)", Mod(x + 5, -4), Mod(x + 1, -4)),
    ("Mod(4*x + 5, 4)", Mod(4 * x + 5, 4), sympy.Integer(1)),
    ("Mod(x*y + 3, y)", Mod(x * y + 3, y), Mod(3, y)),
    ("Mod(x, 1)", Mod(x, 1), sympy.Integer(0)),
    ("Mod(x, x)", Mod(x, x), sympy.Integer(0)),
    ("Max(3, x, 5, Max(x, 2))", Max(3, x, 5, Max(x, 2)), Max(5, x)),
    ("Max(x, y) == Max(y, x)", Max(y, x), Max(x, y)),
    ("Min(x, -oo)", Min(x, -sympy.oo), -sympy.oo),
    ("Max(x, -oo)", Max(x, -sympy.oo), x),
    ("PowByNatural(x, 0)", PowByNatural(x, 0), sympy.Integer(1)),
    ("PowByNatural(1, y)", PowByNatural(1, y), sympy.Integer(1)),
    ("IfThenElse(x > 0, 3, 3)", IfThenElse(x > 0, 3, 3), sympy.Integer(3)),
    ("modular_indexing(4*x + 8, 4, 8)", modular_indexing(4 * x + 8, 4, 8), Mod(x + 2, 8)),
]


@pytest.mark.parametrize("label, got, expected", CANONICAL, ids=[c[0] for c in CANONICAL])
def test_canonical_form(label, got, expected):
    assert got == expected, msg("canonical form", label, expected, got)


# The sympy nodes evaluate by the form rules (Note [One definition of the rewrites]): these folds were
# form-only before. Each is checked against Python on every x (and y) in a window, zero divisors aside.
BY_FORMS = [
    ("Mod(3*x, 6) (gcd)", Mod(3 * x, 6), 3 * Mod(x, 2), lambda x, y: (3 * x) % 6),
    ("Mod(-3*x, -6) (gcd, negative)", Mod(-3 * x, -6), 3 * Mod(-x, -2), lambda x, y: (-3 * x) % -6),
    ("Mod(6*x + 4*y, 8) (gcd)", Mod(6 * x + 4 * y, 8), 2 * Mod(3 * x + 2 * y, 4), lambda x, y: (6 * x + 4 * y) % 8),
    ("Mod(5*x + 3, 4) (coefficients mod 4)", Mod(5 * x + 3, 4), Mod(x + 3, 4), lambda x, y: (5 * x + 3) % 4),
    ("Mod(7*x - 2*y, -3) (coefficients mod 3)", Mod(7 * x - 2 * y, -3), Mod(x + y, -3), lambda x, y: (7 * x - 2 * y) % -3),
]


@pytest.mark.parametrize("label, got, expected, python", BY_FORMS, ids=[c[0] for c in BY_FORMS])
def test_sympy_nodes_fold_as_forms(label, got, expected, python):
    assert got == expected, msg("canonical form", label, expected, got)
    for xv in range(-13, 14):
        for yv in range(-7, 8):
            assert symint.evaluate(got, {x: xv, y: yv}) == python(xv, yv), (label, xv, yv)


# Expressions that must NOT be rewritten the tempting way: each rewrite would be wrong somewhere.
# (label, built expression, the wrong rewrite, a point where they differ)
NOT_REWRITTEN = [
    # floor(floor(x/3) / -2) != floor(x / -6): x = 1 gives 0 vs -1.
    ("(x//3)//-2", FloorDiv(FloorDiv(x, 3), -2), FloorDiv(x, -6), {x: 1}),
    # 4/x is not an integer: floor(4/x / 2) != 2/x.
    ("(4/x)//2", FloorDiv(4 / x, 2), 2 / x, {x: 3}),
    # 1.5*x is not an integer.
    ("(3*x)//2.0", FloorDiv(3 * x, sympy.Float(2.0)), sympy.Float(1.5) * x, {x: 1}),
    # x*(y + Mod(y, z)) / (-4*x) has a non-integer quotient.
    ("ceil(x*(y + Mod(y,z)) / (-4*x))", CeilDiv(x * (y + Mod(y, z)), -4 * x), -(y + Mod(y, z)) / 4, {x: -25, y: -28, z: 3}),
    # Mod(Mod(x, 8), 12) == Mod(x, 12) would need 12 | 8.
    ("Mod(Mod(x, 8), 12)", Mod(Mod(x, 8), 12), Mod(x, 12), {x: 9}),
    # different signs: Mod(x, 4) in [0, 4) is not inside (-8, 0].
    ("Mod(Mod(x, 4), -8)", Mod(Mod(x, 4), -8), Mod(x, 4), {x: 1}),
    # x // 1 == x only for integer x.
    ("(x/2.0)//1", FloorDiv(x / sympy.Float(2.0), 1), x / sympy.Float(2.0), {x: 3}),
    ("Mod(x/2.0, 1)", Mod(x / sympy.Float(2.0), 1), sympy.Integer(0), {x: 3}),
    # Max of floats is not an integer, so FloorToInt must stay.
    ("floor(Max(x/2, 1))", FloorToInt(Max(IntTrueDiv(x, 2), 1)), Max(IntTrueDiv(x, 2), 1), {x: 7}),
]


@pytest.mark.parametrize("label, got, wrong, point", NOT_REWRITTEN, ids=[n[0] for n in NOT_REWRITTEN])
def test_unsound_rewrite_not_applied(label, got, wrong, point):
    assert got != wrong, msg("an unsound rewrite was applied", label, "anything but " + str(wrong), got)
    assert symint.evaluate(got, point) != symint.evaluate(wrong, point)  # the table's own sanity check


def test_integrality_comes_from_arguments():
    assert FloorDiv(x, 2).is_integer and Mod(x, 3).is_integer and Max(x, 2).is_integer
    assert PowByNatural(x, y).is_integer
    assert Max(IntTrueDiv(x, 2), 1).is_integer is not True
    assert Mod(x + sympy.Float(0.5), 2).is_integer is not True


def test_results_print_by_name():
    assert str(FloorDiv(x, 2)) == "FloorDiv(x, 2)"
    assert str(Mod(x, 3)) == "Mod(x, 3)"
    assert str(Max(x, y)) == "Max(x, y)"
    assert set(symint.sympy_io.functions.INTEGER_FUNCTIONS) >= {"FloorDiv", "CeilDiv", "Mod", "Max", "Min", "PowByNatural"}


def test_no_sympy_simplify_anywhere():
    for name in ("sympy_io.functions", "sympy_io", "sympy_io.substitute", "sympy_io.limits", "sympy_io.evaluate", "build", "values", "builtins", "node"):
        module = importlib.import_module(f"symint.{name}")
        source = inspect.getsource(module)
        assert "simplify(" not in source, f"{module.__name__} calls sympy.simplify"
