"""``symint.builtins``: sym_max, sym_min, sym_not, sym_and, sym_or, sym_ite, symbol, is_symbolic."""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symint import (
    Max,
    Min,
    SymBool,
    SymbolicTypeError,
    SymFloat,
    SymInt,
    evaluate,
    is_symbolic,
    sym_and,
    sym_ite,
    sym_max,
    sym_min,
    sym_not,
    sym_or,
    symbol,
)

from ._util import FakeEnv, msg

S_HINT, T_HINT = 6, -2


def _syms():
    return symbol("s", hint=S_HINT), symbol("t", hint=T_HINT)


def _check(label, got, expected, values):
    """``got`` is Python's ``expected``: as a plain value, or by hint and by evaluation at ``values``."""
    if not is_symbolic(got):
        assert type(got) is type(expected) and got == expected, msg(label, values, expected, got)
        return
    assert got.node.hint == expected and got.node.pytype is type(expected), msg(f"{label}: hint", values, expected, got.node)
    at = evaluate(got.node.expr, {sympy.Symbol(k, integer=True): v for k, v in values.items()})
    assert at == expected and type(at) is type(expected), msg(f"{label}: evaluate({got.node.expr})", values, expected, at)


# (label, symbolic call, Python reference on the hints) with s = 6, t = -2
CASES = [
    ("sym_max(s, t)", lambda s, t: sym_max(s, t), max(6, -2)),
    ("sym_max(s, 10)", lambda s, t: sym_max(s, 10), 10),
    ("sym_max(3, t, s)", lambda s, t: sym_max(3, t, s), 6),
    ("sym_max(s - 10, t)", lambda s, t: sym_max(s - 10, t), -2),
    ("sym_max(s / 4, 1)", lambda s, t: sym_max(s / 4, 1), 1.5),
    ("sym_max(t, 0.5)", lambda s, t: sym_max(t, 0.5), 0.5),
    ("sym_min(s, t)", lambda s, t: sym_min(s, t), -2),
    ("sym_min(s, t, -5)", lambda s, t: sym_min(s, t, -5), -5),
    ("sym_min(s * t, s)", lambda s, t: sym_min(s * t, s), -12),
    ("sym_not(s > 2)", lambda s, t: sym_not(s > 2), False),
    ("sym_not(t > 2)", lambda s, t: sym_not(t > 2), True),
    ("sym_and(s > 2, t < 0)", lambda s, t: sym_and(s > 2, t < 0), True),
    ("sym_and(s > 2, t > 0, True)", lambda s, t: sym_and(s > 2, t > 0, True), False),
    ("sym_or(s < 2, t > 0)", lambda s, t: sym_or(s < 2, t > 0), False),
    ("sym_or(s < 2, t < 0)", lambda s, t: sym_or(s < 2, t < 0), True),
    ("sym_ite(s > t, s, t)", lambda s, t: sym_ite(s > t, s, t), 6),
    ("sym_ite(s < t, s + 1, t - 1)", lambda s, t: sym_ite(s < t, s + 1, t - 1), -3),
    ("sym_ite(s > 0, 1, 2)", lambda s, t: sym_ite(s > 0, 1, 2), 1),
    ("sym_ite(s > 0, t < 0, s < 0)", lambda s, t: sym_ite(s > 0, t < 0, s < 0), True),
    ("sym_ite(t > 0, t < 0, s < 0)", lambda s, t: sym_ite(t > 0, t < 0, s < 0), False),
    ("sym_ite(s > 0, s / 4, t)", lambda s, t: sym_ite(s > 0, s / 4, t), 1.5),
]


@pytest.mark.parametrize("label, fn, expected", CASES, ids=[c[0] for c in CASES])
def test_builtin_on_symbols(label, fn, expected):
    s, t = _syms()
    _check(label, fn(s, t), expected, {"s": S_HINT, "t": T_HINT})


PLAIN = [
    ("sym_max(3, 9, -1)", lambda: sym_max(3, 9, -1), 9),
    ("sym_min(3, 9, -1)", lambda: sym_min(3, 9, -1), -1),
    ("sym_max(2.5, 1)", lambda: sym_max(2.5, 1), 2.5),
    ("sym_not(True)", lambda: sym_not(True), False),
    ("sym_and(True, False)", lambda: sym_and(True, False), False),
    ("sym_and()", lambda: sym_and(), True),
    ("sym_or()", lambda: sym_or(), False),
    ("sym_ite(True, 1, 2)", lambda: sym_ite(True, 1, 2), 1),
    ("sym_ite(False, 'a', 'b')", lambda: sym_ite(False, "a", "b"), "b"),
]


@pytest.mark.parametrize("label, fn, expected", PLAIN, ids=[c[0] for c in PLAIN])
def test_builtin_on_plain_values_returns_plain_values(label, fn, expected):
    got = fn()
    assert type(got) is type(expected) and got == expected, msg(label, "plain arguments", expected, got)


def test_folding_inside_builtins():
    s, t = _syms()
    assert sym_max(s, s) is not s and str(sym_max(s, s)) == "s"
    assert sym_ite(s > 0, t, t).node.expr == t.node.expr
    assert sym_and(s > 2, s < s + 1).node.expr == (s > 2).node.expr
    assert sym_or(s > 2, s < s + 1) is True
    assert sym_max(s, 3).node.expr == Max(s.node.expr, 3) and sym_min(s, 3).node.expr == Min(s.node.expr, 3)


def test_result_types():
    s, t = _syms()
    assert type(sym_max(s, t)) is SymInt and type(sym_max(s, 0.5)) is SymFloat
    assert type(sym_not(s > 1)) is SymBool and type(sym_ite(s > 1, s, t)) is SymInt


TYPE_ERRORS = [
    ("sym_max()", lambda s: sym_max(), TypeError),
    ("sym_min()", lambda s: sym_min(), TypeError),
    ("sym_max(s, 'a')", lambda s: sym_max(s, "a"), SymbolicTypeError),
    ("sym_max(s, s > 1)", lambda s: sym_max(s, s > 1), SymbolicTypeError),
    ("sym_max(s, True)", lambda s: sym_max(s, True), SymbolicTypeError),
    ("sym_not(s)", lambda s: sym_not(s), SymbolicTypeError),
    ("sym_not(1)", lambda s: sym_not(1), SymbolicTypeError),
    ("sym_and(s > 1, s)", lambda s: sym_and(s > 1, s), SymbolicTypeError),
    ("sym_or(s > 1, 2)", lambda s: sym_or(s > 1, 2), SymbolicTypeError),
    ("sym_ite(s, 1, 2)", lambda s: sym_ite(s, 1, 2), SymbolicTypeError),
    ("sym_ite(s > 1, s, s > 2)", lambda s: sym_ite(s > 1, s, s > 2), SymbolicTypeError),
    ("sym_ite(s > 1, s, 'a')", lambda s: sym_ite(s > 1, s, "a"), SymbolicTypeError),
]


@pytest.mark.parametrize("label, fn, error", TYPE_ERRORS, ids=[c[0] for c in TYPE_ERRORS])
def test_type_errors(label, fn, error):
    with pytest.raises(error):
        fn(symbol("s", hint=3))


def test_builtins_record_no_guard_and_keep_the_environment():
    env = FakeEnv()
    s, t = symbol("s", hint=4, env=env), symbol("t", hint=1, env=env)
    results = [sym_max(s, t), sym_min(s, 2), sym_not(s > 1), sym_and(s > 1, t > 1), sym_or(s > 1, t > 1), sym_ite(s > t, s, t)]
    assert env.calls == []  # none of them decided anything
    assert all(r.node.env is env for r in results)


def test_symbol():
    s = symbol("batch", hint=8)
    assert s.node.expr == sympy.Symbol("batch", integer=True) and s.node.hint == 8 and s.node.env is None
    assert symbol("batch").node.hint is None
    assert is_symbolic(s) and is_symbolic(s > 1) and is_symbolic(s / 3)
    assert not is_symbolic(3) and not is_symbolic(True) and not is_symbolic(sympy.Integer(3))
    for bad_hint in (True, 2.5, "3"):
        with pytest.raises(TypeError, match="hint must be an int"):
            symbol("s", hint=bad_hint)
    for bad_name in ("1x", "a b", "", "x-1"):
        with pytest.raises(ValueError, match="identifiers"):
            symbol(bad_name)


mixed = st.one_of(st.integers(-20, 20), st.integers(-(2**70), 2**70))


@settings(max_examples=300, deadline=None)
@given(values=st.lists(mixed, min_size=1, max_size=4), which=st.lists(st.booleans(), min_size=4, max_size=4))
def test_max_min_agree_with_python(values, which):
    """Symbols where ``which`` says so, plain ints elsewhere; hints and evaluation agree with max/min."""
    args = [symbol(f"v{i}", hint=v) if w else v for i, (v, w) in enumerate(zip(values, which))]
    bound = {f"v{i}": v for i, (v, w) in enumerate(zip(values, which)) if w}
    for fn, ref in ((sym_max, max), (sym_min, min)):
        _check(f"{fn.__name__}{tuple(args)}", fn(*args), ref(values), bound)
