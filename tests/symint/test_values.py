"""``SymInt``, ``SymBool``, ``SymFloat``: every dunder against Python on the hints.

For a result ``r`` of an operation on symbolic values, both the hint it carries
(``r.node.hint``) and ``evaluate(r.node.expr, {symbol: value})`` must be Python's
result on the plain values; a result that folds to a constant must be a plain
``int``/``bool``/``float`` equal to Python's.
"""

from __future__ import annotations

import math
import operator

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import symint
from symint import (
    MixedEnvironmentError,
    NoEnvironmentError,
    SymBool,
    SymbolicEnv,
    SymbolicTypeError,
    SymFloat,
    SymInt,
    SymIntError,
    evaluate,
    sym_max,
    symbol,
)

from ._util import FakeEnv, msg, outcome, same_value

_PYTYPE_CLASS = {int: SymInt, bool: SymBool, float: SymFloat}


def bindings(*syms_and_values):
    """``{sympy symbol: value}`` for pairs ``(SymInt symbol, value)``."""
    return {s.node.expr: v for s, v in syms_and_values}


def check_result(label, inputs, expected, got, values, *, float_tol=False):
    """``got`` (an outcome of the symbolic computation) agrees with ``expected`` (Python's outcome)."""
    if expected[0] == "raise" or got[0] == "raise":
        assert expected == got, msg(label, inputs, expected, got)
        return
    e, g = expected[1], got[1]
    if isinstance(e, tuple):  # divmod
        assert isinstance(g, tuple) and len(g) == len(e), msg(label, inputs, e, g)
        for i, (ei, gi) in enumerate(zip(e, g)):
            check_result(f"{label}[{i}]", inputs, ("ok", ei), ("ok", gi), values, float_tol=float_tol)
        return
    if not symint.is_symbolic(g):
        assert same_value(e, g, float_tol=float_tol), msg(f"{label} (folded to a constant)", inputs, e, g)
        return
    node = g.node
    assert isinstance(g, _PYTYPE_CLASS[type(e)]) and node.pytype is type(e), msg(
        f"{label}: type of the result", inputs, type(e).__name__, f"{type(g).__name__} ({node.pytype.__name__})"
    )
    assert same_value(e, node.hint, float_tol=float_tol), msg(f"{label}: hint of {node.expr}", inputs, e, node.hint)
    at = outcome(evaluate, node.expr, values)
    assert at[0] == "ok" and same_value(e, at[1], float_tol=float_tol), msg(
        f"{label}: evaluate({node.expr})", inputs, e, at
    )


# -- binary dunders ------------------------------------------------------------------------------

BINARY = [
    ("+", operator.add),
    ("-", operator.sub),
    ("*", operator.mul),
    ("//", operator.floordiv),
    ("%", operator.mod),
    ("/", operator.truediv),
    ("divmod", divmod),
    ("==", operator.eq),
    ("!=", operator.ne),
    ("<", operator.lt),
    ("<=", operator.le),
    (">", operator.gt),
    (">=", operator.ge),
]


def check_binary_forms(a: int, b: int, *, all_forms: bool = True) -> None:
    """Every binary dunder on symbol/symbol, symbol/int, int/symbol, compounds, same symbol and bools."""
    s, t = symbol("s", hint=a), symbol("t", hint=b)
    values = bindings((s, a), (t, b))
    forms = [
        ("s {} t", (s, t), (a, b)),
        ("s {} b", (s, b), (a, b)),
        ("a {} t", (a, t), (a, b)),  # reflected
        ("(2*s - 3) {} (t + 1)", (2 * s - 3, t + 1), (2 * a - 3, b + 1)),
        ("s {} s", (s, s), (a, a)),
        ("(s*t) {} t", (s * t, t), (a * b, b)),
        ("s {} (b % 2 == 1)", (s, b % 2 == 1), (a, b % 2 == 1)),
        ("(a > 0) {} t", (a > 0, t), (a > 0, b)),
    ]
    if not all_forms:
        forms = forms[:4]
    for name, fn in BINARY:
        for template, sym_args, py_args in forms:
            label = template.format(name) if name != "divmod" else f"divmod{template.format(',')}"
            expected = outcome(fn, *py_args)
            got = outcome(fn, *sym_args)
            check_result(label, {"s": a, "t": b}, expected, got, values, float_tol=False)


ints = st.one_of(st.integers(-30, 30), st.integers(-(2**70), 2**70))


@settings(max_examples=2000, deadline=None)
@given(a=ints, b=ints)
def test_binary_dunders_agree_with_python(a, b):
    check_binary_forms(a, b, all_forms=False)  # the other forms: the exhaustive test below


def test_binary_dunders_every_sign_combination():
    signed = [-7, -3, -2, -1, 0, 1, 2, 3, 7, 12, 2**64 + 1, -(2**64) - 1]
    for a in signed:
        for b in signed:
            check_binary_forms(a, b)


def check_unary_and_power(a: int, b: int) -> None:
    s = symbol("s", hint=a)
    values = bindings((s, a))
    cases = [
        ("-s", lambda v: -v),
        ("+s", lambda v: +v),
        ("abs(s)", abs),
        ("abs(s - b)", lambda v: abs(v - b)),
        ("-(s * b)", lambda v: -(v * b)),
        ("s ** 0", lambda v: v**0),
        ("s ** 1", lambda v: v**1),
        ("s ** 3", lambda v: v**3),
        ("(s + b) ** 2", lambda v: (v + b) ** 2),
        ("s << 3", lambda v: v << 3),
        ("s >> 2", lambda v: v >> 2),
        ("(s * b) >> 5", lambda v: (v * b) >> 5),
        ("s << True", lambda v: v << True),
        ("math.floor(s)", math.floor),
        ("math.ceil(s)", math.ceil),
        ("math.trunc(s)", math.trunc),
        ("round(s)", round),
        ("round(s, 2)", lambda v: round(v, 2)),
        ("round(s, -1)", lambda v: round(v, -1)),
        ("round(s * b, -2)", lambda v: round(v * b, -2)),
        ("divmod(s, 7)", lambda v: divmod(v, 7)),
        ("divmod(-7, s)", lambda v: divmod(-7, v)),
    ]
    for label, fn in cases:
        check_result(label, {"s": a, "b": b}, outcome(fn, a), outcome(fn, s), values)
    # int ** negative int is a float: 1 / s**k, equal to Python up to the last bit of rounding.
    for k in (1, 2, 3):
        check_result(f"s ** -{k}", {"s": a}, outcome(pow, a, -k), outcome(pow, s, -k), values, float_tol=True)


@settings(max_examples=500, deadline=None)
@given(a=ints, b=st.integers(-50, 50))
def test_unary_power_shift_round_agree_with_python(a, b):
    check_unary_and_power(a, b)


@pytest.mark.parametrize("a", [-25, -15, -5, 0, 5, 15, 25, 35, 149, 150, 151, 250, -250])
def test_round_negative_digits_ties_to_even(a):
    check_unary_and_power(a, 3)


# -- floats ---------------------------------------------------------------------------------------

FLOAT_CASES = [
    ("s + 0.5", lambda s: s + 0.5),
    ("0.5 + s", lambda s: 0.5 + s),
    ("s - 2.25", lambda s: s - 2.25),
    ("2.25 - s", lambda s: 2.25 - s),
    ("s * 1.5", lambda s: s * 1.5),
    ("s / 2.0", lambda s: s / 2.0),
    ("3.0 / (s*s + 1)", lambda s: 3.0 / (s * s + 1)),
    ("s / 4", lambda s: s / 4),
    ("(s / 4) * 2", lambda s: (s / 4) * 2),
    ("(s / 4) + s", lambda s: (s / 4) + s),
    ("-(s / 4)", lambda s: -(s / 4)),
    ("abs(s / 4)", lambda s: abs(s / 4)),
    ("(s / 4) ** 2", lambda s: (s / 4) ** 2),
    ("2 ** (s / 4)", lambda s: 2 ** (s / 4)),
    ("math.floor(s / 4)", lambda s: math.floor(s / 4)),
    ("math.ceil(s / 4)", lambda s: math.ceil(s / 4)),
    ("math.trunc(s / 4)", lambda s: math.trunc(s / 4)),
    ("math.floor(sym_max(s / 2, 1))", lambda s: math.floor(sym_max(s / 2, 1)) if symint.is_symbolic(s) else math.floor(max(s / 2, 1))),
    ("s / 4 < 1.5", lambda s: s / 4 < 1.5),
    ("s / 4 == 0.25", lambda s: s / 4 == 0.25),
    ("s / 4 >= s", lambda s: s / 4 >= s),
    ("s * 0.0", lambda s: s * 0.0),
    ("s - s + 0.5", lambda s: s - s + 0.5),
    ("s < 2.5", lambda s: s < 2.5),
]


@pytest.mark.parametrize("label, fn", FLOAT_CASES, ids=[c[0] for c in FLOAT_CASES])
def test_float_operations(label, fn):
    for a in (-9, -4, -1, 0, 1, 3, 4, 10, 2**60 + 1):
        s = symbol("s", hint=a)
        check_result(label, {"s": a}, outcome(fn, a), outcome(fn, s), bindings((s, a)), float_tol=True)


def test_floor_division_and_modulo_of_floats_are_refused():
    s = symbol("s", hint=3)
    for fn in (lambda: s // 2.0, lambda: 2.0 // s, lambda: s % 1.5, lambda: 1.5 % s, lambda: (s / 2) // 1, lambda: (s / 2) % 1):
        with pytest.raises(SymbolicTypeError, match="not supported"):
            fn()


# -- constant folding -------------------------------------------------------------------------------

FOLDING = [
    ("s - s", lambda s, t: s - s, 0),
    ("s * 0", lambda s, t: s * 0, 0),
    ("0 * s", lambda s, t: 0 * s, 0),
    ("(s + 1) - s", lambda s, t: (s + 1) - s, 1),
    ("s // s", lambda s, t: s // s, 1),
    ("s % s", lambda s, t: s % s, 0),
    ("s % 1", lambda s, t: s % 1, 0),
    ("(2*s) % 2", lambda s, t: (2 * s) % 2, 0),
    ("(4*s*t + 6) % 2", lambda s, t: (4 * s * t + 6) % 2, 0),
    ("(4*s)//2 - 2*s", lambda s, t: (4 * s) // 2 - 2 * s, 0),
    ("(s*t)//t - s", lambda s, t: (s * t) // t - s, 0),
    ("s ** 0", lambda s, t: s**0, 1),
    ("s == s", lambda s, t: s == s, True),
    ("s != s", lambda s, t: s != s, False),
    ("s < s + 1", lambda s, t: s < s + 1, True),
    ("s >= s + 1", lambda s, t: s >= s + 1, False),
    ("s + t == t + s", lambda s, t: s + t == t + s, True),
    ("(s == s) & (t < t + 2)", lambda s, t: True & (t < t + 2), True),
    ("s * 0.0", lambda s, t: s * 0.0, 0.0),
    ("s - s + 0.5", lambda s, t: s - s + 0.5, 0.5),
    ("abs(s) - abs(s)", lambda s, t: abs(s) - abs(s), 0),
    ("sym_max(s, s)", lambda s, t: sym_max(s, s) - s, 0),
]


@pytest.mark.parametrize("label, fn, expected", FOLDING, ids=[f[0] for f in FOLDING])
def test_constant_folding_gives_plain_numbers(label, fn, expected):
    s, t = symbol("s", hint=5), symbol("t", hint=-3)
    got = fn(s, t)
    assert type(got) is type(expected) and got == expected, msg("constant folding", label, expected, got)


def test_result_types():
    s = symbol("s", hint=4)
    assert type(s + 1) is SymInt and type(1 + s) is SymInt and type(s + True) is SymInt
    assert type(s / 2) is SymFloat and type(s + 0.5) is SymFloat and type(2 ** (s / 2)) is SymFloat
    assert type(s < 2) is SymBool and type(s == 2.5) is SymBool and type((s < 2) & (s > 0)) is SymBool
    assert type(math.floor(s / 3)) is SymInt and type(math.trunc(s / 3)) is SymInt
    assert repr(s + 1) == str(s + 1) == "s + 1"


def test_unsupported_operands_return_not_implemented():
    s = symbol("s", hint=4)
    for fn in (lambda: s + "1", lambda: "1" - s, lambda: s < None, lambda: s << 1.5, lambda: s & 1.5):
        with pytest.raises(TypeError):
            fn()
    assert (s == "x") is False and (s != "x") is True  # like int: foreign types compare unequal


def test_shift_counts():
    s = symbol("s", hint=4)
    with pytest.raises(ValueError, match="negative shift count"):
        s << -1
    with pytest.raises(ValueError, match="negative shift count"):
        s >> -2


def test_zero_hint_divisor_raises_like_python():
    s, z = symbol("s", hint=7), symbol("z", hint=0)
    for fn in (lambda a, b: a // b, lambda a, b: a % b, lambda a, b: a / b, divmod, lambda a, b: a // (b * 3)):
        with pytest.raises(ZeroDivisionError):
            fn(7, 0)
        with pytest.raises(ZeroDivisionError):
            fn(s, z)
    with pytest.raises(ZeroDivisionError):
        s // 0
    with pytest.raises(ZeroDivisionError):
        s / 0.0
    with pytest.raises(ZeroDivisionError):
        z**-1


def test_unhinted_symbols_build_and_evaluate():
    u = symbol("u")
    e = (u + 3) // 2
    assert e.node.hint is None and evaluate(e.node.expr, {u.node.expr: -4}) == -1
    assert (u < 3).node.hint is None and (u / 2).node.hint is None
    with pytest.raises(ZeroDivisionError):
        evaluate((7 // u).node.expr, {u.node.expr: 0})


# -- hashing --------------------------------------------------------------------------------------


def test_symint_is_unhashable_with_a_helpful_message():
    s = symbol("s", hint=4)
    for fn in (hash, lambda v: {v}, lambda v: {v: 1}):
        with pytest.raises(TypeError, match=r"unhashable type: 'SymInt'.*int\(x\).*x\.node\.expr"):
            fn(s)


def test_symbool_and_symfloat_hash_by_their_concrete_value():
    env = FakeEnv()
    s = symbol("s", hint=4, env=env)
    assert hash(s > 2) == hash(True)
    assert hash(s / 8) == hash(0.5)
    assert [reason for _, reason in env.calls] == ["bool", "float"]
    with pytest.raises(NoEnvironmentError):
        hash(symbol("p", hint=1) > 0)


# -- going through the environment ----------------------------------------------------------------

NO_ENV = [
    ("bool(s)", lambda s: bool(s)),
    ("bool(s > 1)", lambda s: bool(s > 1)),
    ("if s == 1", lambda s: 1 if s == 1 else 0),
    ("int(s)", lambda s: int(s)),
    ("operator.index(s)", lambda s: operator.index(s)),
    ("range(s)", lambda s: range(s)),
    ("[0] * s", lambda s: [0] * s),
    ("float(s)", lambda s: float(s)),
    ("float(s / 2)", lambda s: float(s / 2)),
    ("int(s / 2)", lambda s: int(s / 2)),
    ("bool(s / 2)", lambda s: bool(s / 2)),
    ("int(s > 1)", lambda s: int(s > 1)),
    ("2 ** s", lambda s: 2**s),
    ("1 << s", lambda s: 1 << s),
]


@pytest.mark.parametrize("label, fn", NO_ENV, ids=[n[0] for n in NO_ENV])
def test_no_environment_error(label, fn):
    s = symbol("s", hint=3)
    with pytest.raises(NoEnvironmentError, match="no environment") as info:
        fn(s)
    assert isinstance(info.value, SymIntError) and isinstance(info.value, RuntimeError)
    assert "symint.evaluate" in str(info.value)  # says what to do instead


# (label, operation, expected result, expected [(expression text, reason)] recorded by the env)
THROUGH_ENV = [
    ("bool(s > 2)", lambda s, t: bool(s > 2), True, [("s > 2", "bool")]),
    ("bool(s)", lambda s, t: bool(s), True, [("Ne(s, 0)", "bool")]),
    ("not s", lambda s, t: not s, False, [("Ne(s, 0)", "bool")]),
    ("bool(s == t)", lambda s, t: bool(s == t), False, [("Eq(s, t)", "bool")]),
    ("int(s)", lambda s, t: int(s), 4, [("s", "int")]),
    ("int(s + t)", lambda s, t: int(s + t), 1, [("s + t", "int")]),
    ("operator.index(s)", lambda s, t: operator.index(s), 4, [("s", "index")]),
    ("len(range(s))", lambda s, t: len(range(s)), 4, [("s", "index")]),
    ("float(s)", lambda s, t: float(s), 4.0, [("s", "float")]),
    ("float(s / 8)", lambda s, t: float(s / 8), 0.5, [("IntTrueDiv(s, 8)", "float")]),
    ("int(s > 2)", lambda s, t: int(s > 2), 1, [("s > 2", "bool")]),
    ("[1, 2][s > 2]", lambda s, t: [1, 2][s > 2], 2, [("s > 2", "bool")]),
    ("2 ** s", lambda s, t: (2**s).node.hint, 16, [("s >= 0", "bool")]),
    ("2 ** t", lambda s, t: (2**t).node.hint, 0.125, [("t >= 0", "bool")]),
    ("s << t", lambda s, t: s << t, ValueError, [("t >= 0", "bool")]),
    ("1 << s", lambda s, t: (1 << s).node.hint, 16, [("s >= 0", "bool")]),
    ("2.0 ** t (float base: no question)", lambda s, t: (2.0**t).node.hint, 0.125, []),
    ("s ** t (negative exponent: a float)", lambda s, t: (s**t).node.hint, 4**-3, [("t >= 0", "bool")]),
    ("math.floor(s / 3) + 1 (no question)", lambda s, t: (math.floor(s / 3) + 1).node.hint, 2, []),
]


@pytest.mark.parametrize("label, fn, expected, calls", THROUGH_ENV, ids=[c[0] for c in THROUGH_ENV])
def test_concrete_values_go_through_the_environment(label, fn, expected, calls):
    env = FakeEnv()
    assert isinstance(env, SymbolicEnv)
    s, t = symbol("s", hint=4, env=env), symbol("t", hint=-3, env=env)
    if isinstance(expected, type):
        with pytest.raises(expected):
            fn(s, t)
    else:
        got = fn(s, t)
        assert type(got) is type(expected) and got == expected, msg(label, {"s": 4, "t": -3}, expected, got)
    recorded = [(str(e), reason) for e, reason in env.calls]
    assert recorded == calls, msg(f"{label}: questions asked to the environment", {"s": 4, "t": -3}, calls, recorded)


class _AnsweringEnv:
    """Answers every question with a fixed value, unlike the hint: proves nobody reads the hint."""

    def __init__(self, answer):
        self.answer = answer

    def evaluate_sym_node(self, node, *, reason):
        return self.answer


def test_conversions_use_the_environments_answer_not_the_hint():
    s = symbol("s", hint=4, env=_AnsweringEnv(7))
    assert int(s) == 7 and operator.index(s) == 7 and float(s) == 7.0
    assert bool(symbol("p", hint=4, env=_AnsweringEnv(False)) > 2) is False


def test_environment_propagates_and_mixing_environments_fails():
    e1, e2 = FakeEnv("e1"), FakeEnv("e2")
    a, b, p = symbol("a", hint=3, env=e1), symbol("b", hint=4, env=e2), symbol("p", hint=5)
    assert (a + p).node.env is e1 and (p * a).node.env is e1 and (p < a).node.env is e1
    assert (a / p).node.env is e1 and ((a > 1) & (p > 1)).node.env is e1 and (p + 1).node.env is None
    for label, fn in [
        ("a + b", lambda: a + b),
        ("b - a", lambda: b - a),
        ("a < b", lambda: a < b),
        ("a // b", lambda: a // b),
        ("a / b", lambda: a / b),
        ("(a > 1) & (b > 1)", lambda: (a > 1) & (b > 1)),
        ("(a > 1) == (b > 1)", lambda: (a > 1) == (b > 1)),
        ("sym_max(a, b)", lambda: sym_max(a, p, b)),
        ("sym_ite(a > 1, p, b)", lambda: symint.sym_ite(a > 1, p, b)),
    ]:
        with pytest.raises(MixedEnvironmentError, match="different environments") as info:
            fn()
        assert isinstance(info.value, ValueError), label


# -- SymBool ---------------------------------------------------------------------------------------

LOGICAL = [
    ("&", operator.and_),
    ("|", operator.or_),
    ("^", operator.xor),
    ("==", operator.eq),
    ("!=", operator.ne),
]


@pytest.mark.parametrize("name, fn", LOGICAL, ids=[n for n, _ in LOGICAL])
def test_symbool_logic(name, fn):
    for a in (-1, 0, 2, 5):
        for b in (-2, 1, 3):
            s, t = symbol("s", hint=a), symbol("t", hint=b)
            values = bindings((s, a), (t, b))
            for label, sym_args, py_args in [
                (f"(s > 1) {name} (t < 2)", (s > 1, t < 2), (a > 1, b < 2)),
                (f"(s > 1) {name} True", (s > 1, True), (a > 1, True)),
                (f"False {name} (t < 2)", (False, t < 2), (False, b < 2)),
                (f"(s > 1) {name} (s > 1)", (s > 1, s > 1), (a > 1, a > 1)),
            ]:
                check_result(label, {"s": a, "t": b}, outcome(fn, *py_args), outcome(fn, *sym_args), values)


def test_symbool_does_not_mix_with_numbers_silently():
    """Arithmetic on a SymBool is refused (Note [Booleans in integer operations])."""
    s = symbol("s", hint=3)
    with pytest.raises(TypeError):
        s + (s > 1)
    with pytest.raises(TypeError):
        (s > 1) * 2


@pytest.mark.parametrize("op", [operator.and_, operator.or_, operator.xor], ids=["and", "or", "xor"])
def test_bitwise_of_int_and_bool_is_pythons(op):
    """issue 24 bug 1: ``SymInt & SymBool`` raised TypeError; Python and torch give an int (``3 & True == 1``)."""
    for a in (-3, 0, 3, 6):
        for b in (-2, 1, 3):
            s, t = symbol("s", hint=a), symbol("t", hint=b)
            values = bindings((s, a), (t, b))
            for label, sym_args, py_args in [
                (f"s {op.__name__} (t > 1)", (s, t > 1), (a, b > 1)),
                (f"(t > 1) {op.__name__} s", (t > 1, s), (b > 1, a)),
                (f"(t > 1) {op.__name__} 5", (t > 1, 5), (b > 1, 5)),
                (f"5 {op.__name__} (t > 1)", (5, t > 1), (5, b > 1)),
                (f"s {op.__name__} True", (s, True), (a, True)),
            ]:
                want, got = op(*py_args), op(*sym_args)
                assert type(want) is int and isinstance(got, (int, SymInt)), label
                check_result(label, {"s": a, "t": b}, outcome(op, *py_args), outcome(op, *sym_args), values)


def test_symnode_is_immutable():
    s = symbol("s", hint=3)
    with pytest.raises(AttributeError):
        s.node.hint = 4  # type: ignore[misc]
    assert s.node.expr == sympy.Symbol("s", integer=True)


# -- performance sanity -----------------------------------------------------------------------------


def test_builders_are_memoised():
    from symint import build

    x, y = symbol("s").node.expr, symbol("t").node.expr
    for name in ("add", "sub", "mul", "floordiv", "ceildiv", "mod", "truediv", "pow_", "max_", "min_", "eq", "lt", "ge"):
        fn = getattr(build, name)
        assert fn(x, y) is fn(x, y), f"build.{name} builds a new expression for the same arguments"
    assert build.ite(build.lt(x, 1), x, y) is build.ite(build.lt(x, 1), x, y)


@pytest.mark.parametrize("base,exp", [(2, -1), (2, -3), (-3, -2), (5, 0), (3, 4)])
def test_symbolic_exponent_of_either_sign_evaluates_like_python(base: int, exp: int) -> None:
    from symint import SymNode, symbol_expr

    env = FakeEnv()
    b = SymInt(SymNode(symbol_expr("b"), int, base, env))
    e = SymInt(SymNode(symbol_expr("e"), int, exp, env))
    result = b**e
    expected = base**exp
    assert type(result) is (SymFloat if exp < 0 else SymInt)
    assert result.node.hint == expected
    assert math.isclose(symint.evaluate(result.node.expr, {"b": base, "e": exp}), expected)
