"""``symint.sympy_io``: conversion at the boundary, and substitution through forms.

``substitute`` rewrites the form of an expression (:func:`symint.form.transform`) and
returns its sympy view; what forms do not cover (floats, opaque functions) is rebuilt
node by node. Checked against evaluation: substituting then evaluating is evaluating
with the substituted values.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symint import FloorToInt, IntTrueDiv, build, evaluate
from symint.build import symbol_expr
from symint.errors import ExpressionLimitError
from symint.form import const, mul, pow_nat, sym
from symint.sympy_io import bool_from_sympy, from_sympy, substitute, to_sympy
from symint.sympy_io.floats import FloatSqrt

from ._util import outcome
from .test_canonical_soundness import SYMBOLS, _Bytes, random_tree, show, to_expr

X, Y, Z = SYMBOLS


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=8, max_size=64), st.binary(min_size=4, max_size=32), st.binary(min_size=9, max_size=40))
def test_substituting_then_evaluating_is_evaluating_the_substituted_values(tree_bytes, repl_bytes, point_bytes):
    tree, repl = random_tree(_Bytes(tree_bytes), 3), random_tree(_Bytes(repl_bytes), 2)
    built, replacement = outcome(to_expr, tree), outcome(to_expr, repl)
    if built[0] == "raise" or replacement[0] == "raise":
        return
    replaced = outcome(lambda: replacement[1].xreplace({X: Z}))  # the replacement of x uses y and z only
    if replaced[0] == "raise":
        return  # renaming x to z can divide by zero: (x**0) // (z % x) becomes 1 // (z % z)
    e, r = built[1], replaced[1]
    for y, z in [(p[1], p[2]) for p in _Bytes(point_bytes).points(3)]:
        x_value = outcome(evaluate, r, {Y: y, Z: z})
        if x_value[0] == "raise":
            continue
        expected = outcome(evaluate, e, {X: x_value[1], Y: y, Z: z})
        if expected[0] == "raise":
            continue  # a division by zero the canonical form may fold away (Note [Canonical forms])
        for target in (e, build.lt(e, Y)):
            got = outcome(lambda: evaluate(substitute(target, {X: r}), {Y: y, Z: z}))
            want = expected if target is e else ("ok", expected[1] < y)
            assert got == want, f"substitute({show(tree)}, x -> {r}) at y={y}, z={z}: {got} != {want}"


def test_substitution_folds_relations_as_forms_do():
    x, y = symbol_expr("x"), symbol_expr("y")
    # 2*x == 1 has no integer solution: the relation form folds (the sympy walk kept Eq(2*x, 1)).
    assert substitute(build.eq(build.mul(2, x), y), {y: build.as_expr(1)}) is build.as_expr(False)
    assert substitute(build.lt(build.floordiv(build.mul(x, 4), 2), y), {y: build.mul(x, 2)}) is build.as_expr(False)
    assert substitute(build.eq(build.mod(x, 4), y), {x: build.mul(8, y)}) == build.eq(0, y)


def test_substitution_reaches_inside_float_and_opaque_nodes():
    x, y = symbol_expr("x"), symbol_expr("y")
    e = build.add(FloorToInt(IntTrueDiv(x, 2)), y)
    assert substitute(e, {x: build.as_expr(7)}) == build.add(3, y)
    assert substitute(build.lt(FloatSqrt(x), 3), {x: build.as_expr(16)}) is build.as_expr(False)
    assert substitute(build.mod(x, 4), {build.mod(x, 4): build.as_expr(0)}) == 0  # an atom as the key


def test_substitution_past_the_exponent_limit_is_a_typed_error():
    x, y = symbol_expr("x"), symbol_expr("y")
    with pytest.raises(ExpressionLimitError):
        substitute(build.ge(build.pow_(x, 8192), 1), {x: build.pow_(y, 8192)})
    with pytest.raises(ExpressionLimitError):
        mul(pow_nat(sym("y"), 8192), sym("y"))


def test_round_trip_through_forms_is_identity_on_the_view():
    e = build.lt(build.add(build.floordiv(X, 4), build.mul(3, Y)), build.max_(Z, 2))
    b = bool_from_sympy(e)
    assert to_sympy(b) == e and bool_from_sympy(to_sympy(b)) is b
    f = from_sympy(build.add(build.mod(X, 8), 1))
    assert from_sympy(to_sympy(f)) is f and f.const == 1 and const(1) is from_sympy(build.as_expr(1))
