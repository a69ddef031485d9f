"""guards/guard.py: a Guard holds a boolean form; sympy is its view (Note [Guards are forms])."""

from __future__ import annotations

import pytest
import z3

from guards import Guard, GuardSet, GuardTypeError, Source
from guards.solver.z3_translate import Translator
from symint.form import logic as B
from symint import form as F
from symint.build import and_, eq, ge, lt, mod, mul, symbol_expr
from symint.sympy_io import to_sympy

x, y = F.sym("x"), F.sym("y")
X, Y = symbol_expr("x"), symbol_expr("y")


def test_a_guard_holds_the_form_and_its_expr_is_the_sympy_view():
    form = B.rel("<", F.add(x, F.const(1)), y)
    g = Guard.of(form, "here")
    assert g.form is form
    assert g.expr == lt(X + 1, Y)
    assert g.expr is g.expr  # built once
    assert Guard.of(lt(X + 1, Y)).form.norm is form.norm  # sympy converts to the same relation


def test_equality_is_the_forms_structure_not_identity_nor_origin():
    a, b = B.rel("<", x, F.const(3)), B.rel(">", y, F.const(0))
    assert Guard.of(B.and_(a, b), "one") == Guard.of(B.and_(b, a), "two")
    assert hash(Guard.of(B.and_(a, b))) == hash(Guard.of(B.and_(b, a)))
    B._RELS.clear()  # a relation is memoised, not interned: built again it is another object
    again = B.rel("<", x, F.const(3))
    assert again is not a and Guard.of(again) == Guard.of(a)
    assert Guard.of(a) != Guard.of(B.rel("<=", x, F.const(3)))


def test_guard_set_merges_guards_by_form():
    gs = GuardSet.of([lt(X, 5), B.rel("<", x, F.const(5)), Guard.of(lt(X, 5), "again"), True])
    assert len(gs) == 1


def test_a_guard_is_a_boolean():
    with pytest.raises(GuardTypeError):
        Guard.of(x)
    with pytest.raises(GuardTypeError):
        Guard.of(X + 1)
    with pytest.raises(GuardTypeError):
        Guard.of(True)


def test_folding_that_would_drop_an_input_keeps_the_condition_as_written():
    # Eq(2*a, 1) has no integer solution: as a form it folds to FALSE and names no symbol;
    # the guard set must still read (and reject) its input
    gs = GuardSet.of([eq(mul(2, X), 1)], {X: Source.value("n")})
    assert gs.symbols == frozenset({X})
    assert gs.holds({"n": 0}) is False
    assert gs.compile().check({"n": 3}) is False


CASES = [
    B.rel("==", F.mod(x, F.const(8)), F.const(3)),
    B.rel("<", F.floordiv(F.add(x, F.const(7)), F.const(-2)), F.ceildiv(y, F.const(3))),
    B.rel("==", F.mod(x, y), F.const(0)),
    B.or_(B.rel("==", y, F.const(0)), B.rel(">", F.floordiv(x, y), F.const(1))),
    B.and_(B.rel(">=", F.max_(x, y), F.min_(x, F.const(4))), B.not_(B.rel("==", F.mul(x, y), F.const(6)))),
    B.rel("<=", F.pow_nat(F.sub(x, y), 3), F.scale(F.mul(x, x), -2)),
]


@pytest.mark.parametrize("form", CASES, ids=lambda f: str(to_sympy(f)))
def test_z3_from_the_form_means_what_the_sympy_view_means(form):
    t = Translator()
    from_form, from_sympy = t.holds(form), t.holds(to_sympy(form))
    s = z3.Solver()
    s.add(from_form != from_sympy)
    assert s.check() == z3.unsat, (from_form, from_sympy)


@pytest.mark.parametrize("form", CASES, ids=lambda f: str(to_sympy(f)))
def test_compiled_checker_and_holds_agree_with_the_form(form):
    gs = GuardSet.of([form], {X: Source.value("a"), Y: Source.value("b")})
    c = gs.compile()
    for a in range(-4, 5):
        for b in range(-4, 5):
            try:
                expected = form.evaluate({"x": a, "y": b})
            except (ArithmeticError, ValueError):
                expected = False
            assert gs.holds({"a": a, "b": b}) is expected, (a, b)
            assert c.check({"a": a, "b": b}) is expected, (a, b, c.code)


def test_and_or_are_evaluated_in_their_written_order():
    # y // x only where x != 0: the or stops at its first true operand, as Python does
    g = B.or_(B.rel("==", x, F.const(0)), B.rel(">", F.floordiv(y, x), F.const(1)))
    gs = GuardSet.of([g], {X: Source.value("a"), Y: Source.value("b")})
    assert gs.holds({"a": 0, "b": 5}) and gs.compile().check({"a": 0, "b": 5})
    guarded = GuardSet.of([and_(ge(X, 1), eq(mod(Y, X), 0))], {X: Source.value("a"), Y: Source.value("b")})
    assert not guarded.holds({"a": 0, "b": 4}) and not guarded.compile().check({"a": 0, "b": 4})
