"""Z3 translation has Python's semantics: division, modulo, short-circuits and zero divisors."""

from __future__ import annotations

import math

import pytest
import sympy
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guards import GuardSet, SolverError, Source, to_smtlib
from guards.solver.z3_solver import SatStatus, Z3Solver
from guards.solver.z3_translate import Translator
from symint import build
from symint.sympy_io.evaluate import evaluate
from symint.sympy_io.functions import CeilToInt, FloorToInt, IntTrueDiv
from valueranges import ValueRanges

A, B, C = (build.symbol_expr(n) for n in ("a", "b", "c"))
SYMBOLS = (A, B, C)


def z3_value(translator: Translator, expr: sympy.Basic, values: dict) -> tuple[object, bool]:
    """Z3's value of ``expr`` and whether it is defined, with the symbols replaced by ``values``."""
    term = translator.term(expr)
    pairs = [(translator.variable(s), z3.IntVal(v)) for s, v in values.items()]
    defined = True if term.defined is None else z3.is_true(z3.simplify(z3.substitute(term.defined, *pairs)))
    value = z3.simplify(z3.substitute(term.value, *pairs))
    if z3.is_int_value(value):
        return value.as_long(), defined
    if z3.is_rational_value(value):
        return sympy.Rational(value.numerator_as_long(), value.denominator_as_long()), defined
    if z3.is_true(value) or z3.is_false(value):
        return z3.is_true(value), defined
    return value, defined


def python_value(expr: sympy.Basic, values: dict) -> tuple[object, bool]:
    try:
        return evaluate(expr, values), True
    except ZeroDivisionError:
        return None, False


# -- random expressions ------------------------------------------------------------------------------
def _safe(op):
    """Apply ``op``; a constant zero divisor (which Python refuses at build time) falls back to ``a``."""

    def apply(args):
        try:
            return op(*args)
        except ZeroDivisionError:
            return args[0]

    return apply


LEAVES = st.one_of(st.sampled_from(SYMBOLS), st.integers(-7, 7).map(sympy.Integer))


def _extend(children):
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(_safe(build.add)),
        pair.map(_safe(build.sub)),
        pair.map(_safe(build.mul)),
        pair.map(_safe(build.floordiv)),
        pair.map(_safe(build.ceildiv)),
        pair.map(_safe(build.mod)),
        pair.map(_safe(build.max_)),
        pair.map(_safe(build.min_)),
        children.map(build.neg),
        children.map(build.abs_),
        st.tuples(children, st.integers(0, 3)).map(_safe(build.pow_)),
        st.tuples(children, children, children, children).map(lambda t: build.ite(build.lt(t[0], t[1]), t[2], t[3])),
    )


INT_EXPRS = st.recursive(LEAVES, _extend, max_leaves=6)
RELATIONS = st.sampled_from(sorted(build.RELATIONS))


@st.composite
def bool_exprs(draw, depth: int = 2):
    if depth == 0 or draw(st.booleans()):
        rel = build.RELATIONS[draw(RELATIONS)](draw(INT_EXPRS), draw(INT_EXPRS))
        return rel
    kind = draw(st.sampled_from(["and", "or", "not"]))
    if kind == "not":
        return build.not_(draw(bool_exprs(depth - 1)))
    parts = draw(st.lists(bool_exprs(depth - 1), min_size=2, max_size=3))
    return build.and_(*parts) if kind == "and" else build.or_(*parts)


VALUES = st.fixed_dictionaries({s: st.integers(-40, 40) for s in SYMBOLS})


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(INT_EXPRS, VALUES)
def test_integer_terms_have_python_semantics(expr, values):
    expected, ok = python_value(expr, values)
    got, defined = z3_value(Translator(), expr, values)
    assert defined == ok, (expr, values)
    if ok:
        assert got == expected, (expr, values, got, expected)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bool_exprs(), st.lists(VALUES, min_size=4, max_size=4))
def test_guards_hold_exactly_when_python_says_so(expr, assignments):
    """``holds`` is "evaluates to True without raising", short-circuits included."""
    if expr in (sympy.true, sympy.false):
        return
    t = Translator()
    formula = t.holds(expr)
    for values in assignments:
        values = {s: v for s, v in values.items() if s in expr.free_symbols}
        holds = GuardSet.of([expr]).holds(values)
        pairs = [(t.variable(s), z3.IntVal(v)) for s, v in values.items()]
        got = z3.simplify(z3.substitute(formula, *pairs))
        assert z3.is_true(got) == holds and (z3.is_true(got) or z3.is_false(got)), (expr, values)


SIGNS = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (6, -3), (0, 5), (0, -5), (1, 7), (-1, 7), (1, -7)]


@pytest.mark.parametrize("a,b", SIGNS)
@pytest.mark.parametrize("op", ["floordiv", "ceildiv", "mod"])
@pytest.mark.parametrize("divisor", ["constant", "symbol"])
def test_division_for_every_sign(a, b, op, divisor):
    build_op = {"floordiv": build.floordiv, "ceildiv": build.ceildiv, "mod": build.mod}[op]
    expected = {"floordiv": a // b, "ceildiv": -(-a // b), "mod": a % b}[op]
    expr = build_op(A, b if divisor == "constant" else B)
    got, defined = z3_value(Translator(), expr, {A: a, B: b})
    assert (got, defined) == (expected, True), (op, a, b, divisor)


@pytest.mark.parametrize(
    "expr",
    [build.floordiv(A, B), build.mod(A, B), build.ceildiv(A, B), build.add(build.mod(A, B), 1)],
    ids=str,
)
def test_zero_divisor_is_undefined(expr):
    assert z3_value(Translator(), expr, {A: 5, B: 0})[1] is False


# (guard, values, holds) -- a guard that raises in Python fails, even inside Not.
ZERO_DIVISION_CASES = [
    (build.eq(build.mod(A, B), 0), {A: 4, B: 0}, False),
    (build.not_(build.eq(build.mod(A, B), 0)), {A: 4, B: 0}, False),
    (build.ne(build.floordiv(A, B), 3), {A: 4, B: 0}, False),
    (build.eq(build.ite(build.eq(B, 0), 0, build.floordiv(A, B)), 0), {A: 4, B: 0}, True),
    (build.eq(build.ite(build.ne(B, 0), build.floordiv(A, B), 1), 1), {A: 4, B: 0}, True),
]


@pytest.mark.parametrize("guard,values,holds", ZERO_DIVISION_CASES, ids=lambda x: str(x))
def test_zero_divisor_makes_a_guard_fail(guard, values, holds):
    assert GuardSet.of([guard]).holds(values) is holds  # the reference semantics
    t = Translator()
    pairs = [(t.variable(s), z3.IntVal(v)) for s, v in values.items()]
    assert z3.is_true(z3.simplify(z3.substitute(t.holds(guard), *pairs))) is holds


def test_short_circuit_follows_argument_order():
    """``Or(Eq(b, 0), Eq(Mod(a, b), 0))`` evaluates its arguments in order: Z3 must agree at b == 0."""
    guard = build.or_(build.eq(B, 0), build.eq(build.mod(A, B), 0))
    first_is_safe = guard.args[0] == build.eq(B, 0)
    for a in (-3, 0, 5):
        expected = GuardSet.of([guard]).holds({A: a, B: 0})
        assert expected is first_is_safe
        t = Translator()
        got = z3.simplify(z3.substitute(t.holds(guard), (t.variable(A), z3.IntVal(a)), (t.variable(B), z3.IntVal(0))))
        assert z3.is_true(got) is expected


@pytest.mark.parametrize("a", [-9, -8, -1, 0, 1, 7, 8, 9, 100])
@pytest.mark.parametrize("b", [-4, -3, 3, 4])
def test_float_division_rounded_is_integer_division(a, b):
    for wrapper, expected in ((FloorToInt, math.floor(a / b)), (CeilToInt, math.ceil(a / b))):
        expr = wrapper(IntTrueDiv(A, B))
        assert z3_value(Translator(), expr, {A: a, B: b}) == (expected, True)
    assert z3_value(Translator(), FloorToInt(IntTrueDiv(A, B)), {A: a, B: 0})[1] is False


def test_rational_coefficients_are_exact():
    expr = build.lt(build.mul(A, sympy.Rational(1, 3)), 2)  # a/3 < 2
    for a in (-10, 5, 6, 7):
        got, _ = z3_value(Translator(), expr, {A: a})
        assert got is bool(sympy.Rational(a, 3) < 2)


# (expression, words the error must contain)
UNSUPPORTED = [
    (IntTrueDiv(A, B), "IntTrueDiv"),
    (build.lt(IntTrueDiv(A, B), 2), "IntTrueDiv"),
    (build.lt(A, sympy.Float(2.5)), "float"),
    (build.eq(build.pow_(A, B), 8), "PowByNatural"),
    (build.lt(sympy.sin(A), 1), "sin"),
    (build.eq(build.pow_(A, 65), 1), "exponent"),
]


@pytest.mark.parametrize("expr,words", UNSUPPORTED, ids=[w for _, w in UNSUPPORTED])
def test_unsupported_constructs_raise_solver_error(expr, words):
    with pytest.raises(SolverError, match=words):
        Translator().holds(expr)


def test_names_let_two_translators_share_a_variable():
    s0, s3 = build.symbol_expr("s0"), build.symbol_expr("s3")
    assert Translator({s0: "x0"}).variable(s0).eq(Translator({s3: "x0"}).variable(s3))


def test_in_range_formula():
    t = Translator()
    s = Z3Solver()
    s.add(t.in_range(A, ValueRanges.of(2, 5)), t.holds(build.gt(A, 5)))
    assert s.check().status is SatStatus.UNSAT
    assert z3.is_true(t.in_range(A, ValueRanges.unknown()))


# -- SMT-LIB ---------------------------------------------------------------------------------------------
def _smt_status(text: str) -> z3.CheckSatResult:
    solver = z3.Solver()
    solver.add(z3.parse_smt2_string(text))
    return solver.check()


def test_smtlib_declares_symbols_and_names_sources():
    s0, s1 = build.symbol_expr("s0"), build.symbol_expr("s1")
    gs = GuardSet.of(
        [build.eq(build.mod(s0, s1), 0), build.ge(s1, 2)], {s0: Source.size("x", 0), s1: Source.size("x", 1)}
    )
    text = to_smtlib(gs)
    assert "; s0 = x.size()[0]" in text and "; s1 = x.size()[1]" in text
    assert "(declare-const s0 Int)" in text and text.rstrip().endswith("(check-sat)")
    assert _smt_status(text) == z3.sat


def test_smtlib_round_trips_unsatisfiability_and_domain():
    n = build.symbol_expr("n")
    # Satisfiable without the domain (n = -1), unsatisfiable with n >= 0 assumed.
    gs = GuardSet.of([build.lt(n, 0)], {n: Source.size("x", 0)})
    assert _smt_status(to_smtlib(gs)) == z3.unsat
    assert _smt_status(to_smtlib(GuardSet.of([build.lt(n, 0)]))) == z3.sat


def test_smtlib_encodes_zero_divisors_as_failing():
    a, b = build.symbol_expr("a"), build.symbol_expr("b")
    gs = GuardSet.of([build.eq(build.mod(a, b), 0), build.eq(b, 0)])
    assert _smt_status(to_smtlib(gs)) == z3.unsat
