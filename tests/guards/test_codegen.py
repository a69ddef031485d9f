"""Tests for guards/runtime/codegen.py: compiled checkers agree with the slow evaluator and cannot be injected."""

from __future__ import annotations

import builtins
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from guards import (CodegenError, CompiledGuards, GuardError, GuardSet, GuardTypeError, Source, UnknownSourceError,
                    compile_guards)
from symint.build import (add, and_, ceildiv, eq, floordiv, ge, gt, ite, le, lt, max_, min_, mod, mul, ne, not_, or_,
                          pow_, sub, symbol_expr, truediv)
from symint.sympy_io.evaluate import evaluate

x, y, z = symbol_expr("x"), symbol_expr("y"), symbol_expr("z")
X0, Y0 = Source.size("x", 0), Source.size("y", 0)


def values_gs(*guards) -> GuardSet:
    """Guards over int inputs named like their symbols."""
    return GuardSet.of(guards, {s: Source.value(s.name) for s in (x, y, z)})


def reference_first_failure(gs: GuardSet, values: dict) -> int | None:
    """Slow path: evaluate each guard; raising an arithmetic error counts as failing."""
    for k, g in enumerate(gs.guards):
        try:
            ok = bool(evaluate(g.expr, values))
        except (ArithmeticError, ValueError):
            ok = False
        if not ok:
            return k
    return None


# -- verdicts, table-driven ------------------------------------------------------------------------
# (guards, (x, y, z), expected verdict, why) -- expected values worked out by hand.
VERDICTS = [
    ([eq(x, y)], (3, 3, 0), True, "equal"),
    ([eq(x, y)], (3, 4, 0), False, "unequal"),
    ([ge(x, 2), le(x, 512)], (512, 0, 0), True, "upper bound inclusive"),
    ([ge(x, 2), le(x, 512)], (513, 0, 0), False, "above upper bound"),
    ([eq(mod(x, 8), 0)], (-16, 0, 0), True, "Python modulo of a negative multiple"),
    ([eq(mod(x, 8), 7)], (-1, 0, 0), True, "-1 % 8 == 7 in Python"),
    ([eq(floordiv(x, 2), -4)], (-7, 0, 0), True, "-7 // 2 == -4 (floor, not truncation)"),
    ([eq(ceildiv(x, 2), -3)], (-7, 0, 0), True, "ceil(-3.5) == -3"),
    ([eq(ceildiv(x, 4), 3)], (9, 0, 0), True, "ceil(9/4) == 3"),
    ([eq(floordiv(x, y), 2)], (5, 0, 0), False, "division by zero rejects"),
    ([or_(eq(y, 0), eq(floordiv(x, y), 2))], (5, 0, 0), True, "short-circuit protects the division"),
    ([or_(eq(y, 0), eq(floordiv(x, y), 2))], (5, 2, 0), True, "5 // 2 == 2"),
    ([or_(eq(y, 0), eq(floordiv(x, y), 2))], (7, 2, 0), False, "7 // 2 == 3"),
    ([eq(max_(x, y), 9), eq(min_(x, y), 4)], (4, 9, 0), True, "max and min"),
    ([eq(pow_(x, 3), -27)], (-3, 0, 0), True, "natural power"),
    ([eq(pow_(x, y), 1)], (5, 0, 0), True, "symbolic exponent 0"),
    ([eq(pow_(x, y), 1)], (1, -1, 0), False, "a negative natural exponent rejects"),
    ([lt(truediv(x, y), 1)], (3, 4, 0), True, "3/4 < 1 as a float"),
    ([eq(ite(lt(x, 0), sub(0, x), x), 3)], (-3, 0, 0), True, "if-then-else"),
    ([not_(and_(eq(x, 1), eq(y, 1)))], (1, 1, 0), False, "Not of a conjunction"),
    ([ne(add(x, y), z), gt(z, x)], (1, 2, 4), True, "sum and comparison"),
    ([and_(ge(x, 2), le(x, 4)), eq(y, mul(x, 2))], (3, 6, 0), True, "a top-level And"),
    ([and_(ge(x, 2), le(x, 4)), eq(y, mul(x, 2))], (5, 10, 0), False, "a top-level And, failing"),
]


@pytest.mark.parametrize("guards, vals, expected, why", VERDICTS, ids=[c[3] for c in VERDICTS])
def test_verdicts(guards, vals, expected, why):
    gs = values_gs(*guards)
    c = gs.compile()
    bound = dict(zip((x, y, z), vals))
    args = [bound[s] for s in c.symbols]
    assert c.check_ints(*args) is expected, (guards, vals, why)
    inputs = {s.name: bound[s] for s in c.symbols}
    assert c.check(inputs) is expected, (guards, vals, why)
    assert c.check_objects(**inputs) is expected, (guards, vals, why)
    assert (c.first_failure_ints(*args) is None) is expected
    assert (c.first_failure(inputs) is None) is expected


def test_order_and_first_failure_report_original_positions():
    gs = GuardSet.of([eq(mul(x, y), 16), eq(x, y), ge(x, 2)], {x: X0, y: Y0})
    c = gs.compile()
    assert c.order == (X0, Y0) and c.symbols == (x, y) and c.input_names == ("x", "y")
    # The fast path may reorder guards; first_failure reports the first in guard-set order.
    cases = {(4, 4): None, (3, 4): 0, (1, 1): 0, (2, 8): 1, (-4, -4): 2}
    for vals, expected in cases.items():
        assert c.first_failure_ints(*vals) == expected, vals
        assert c.check_ints(*vals) is (expected is None), vals


def test_empty_and_false_guard_sets():
    empty = GuardSet.of([]).compile()
    assert empty.order == () and empty.check_ints() is True and empty.first_failure_ints() is None
    assert empty.check({}) is True
    never = GuardSet.of([False]).compile()
    assert never.check_ints() is False and never.first_failure_ints() == 0


def test_repeated_subexpression_is_computed_once_and_shared_safely():
    s = add(x, y)
    # add(x, y) appears in an unconditional position and, later, under an `or`.
    gs = values_gs(lt(s, 10), or_(eq(z, 0), eq(floordiv(s, z), 1)), ge(s, 0))
    c = gs.compile()
    assert ":=" in c.code  # the sum was named at its first unconditional use
    for vals in [(1, 2, 0), (1, 2, 3), (1, 2, 2), (9, 9, 1), (-5, 1, 1)]:
        bound = dict(zip((x, y, z), vals))
        assert c.check_ints(*vals) is (reference_first_failure(gs, bound) is None)


def test_conditional_first_occurrence_is_not_hoisted():
    # floordiv(x, y) first appears guarded by y != 0, then unguarded in a later guard:
    # with y == 0 the first guard holds and the second rejects (it raises).
    q = floordiv(x, y)
    gs = values_gs(or_(eq(y, 0), ge(q, 1)), or_(eq(y, 0), le(q, 5)))
    c = gs.compile()
    assert c.symbols == (x, y)
    assert c.check_ints(3, 0) is True
    assert c.check_ints(30, 2) is False
    gs2 = values_gs(or_(eq(y, 0), ge(q, 1)), ge(q, 1))
    assert gs2.compile().check_ints(3, 0) is False
    assert gs2.compile().first_failure_ints(3, 0) == 1


# -- agreement with the slow evaluator (property) -----------------------------------------------------
SYMS = (x, y, z)
leaves = st.one_of(st.sampled_from(SYMS), st.integers(-6, 6).map(sympy.Integer))


def _int_exprs():
    def extend(children):
        binary = st.sampled_from([add, sub, mul, floordiv, mod, ceildiv, max_, min_])
        pair = st.tuples(binary, children, children)
        power = st.tuples(children, st.integers(0, 3)).map(lambda t: pow_(t[0], t[1]))
        return st.one_of(pair.map(_apply), power)

    return st.recursive(leaves, extend, max_leaves=6)


def _apply(t):
    fn, a, b = t
    try:
        return fn(a, b)
    except ZeroDivisionError:  # a constant 0 divisor: builders raise eagerly, like Python
        return a


RELS = [eq, ne, lt, le, gt, ge]


def _bool_exprs():
    ints = _int_exprs()
    rel = st.tuples(st.sampled_from(RELS), ints, ints).map(lambda t: t[0](t[1], t[2]))
    ite_rel = st.tuples(st.sampled_from(RELS), ints, ints, ints, ints).map(
        lambda t: t[0](ite(lt(t[1], t[2]), t[3], t[4]), t[2])
    )
    atoms = st.one_of(rel, ite_rel).filter(lambda e: e not in (sympy.true, sympy.false))

    def extend(children):
        return st.one_of(
            st.tuples(children, children).map(lambda t: and_(*t)),
            st.tuples(children, children).map(lambda t: or_(*t)),
            children.map(not_),
        )

    return st.recursive(atoms, extend, max_leaves=3)


values = st.tuples(st.integers(-8, 8), st.integers(-8, 8), st.integers(-8, 8))


@settings(max_examples=120, deadline=None)
@given(st.lists(_bool_exprs(), min_size=1, max_size=4), st.lists(values, min_size=1, max_size=4))
def test_compiled_agrees_with_evaluate(guards, samples):
    gs = values_gs(*guards)
    c = gs.compile()
    for vals in samples:
        bound = dict(zip(SYMS, vals))
        expected = reference_first_failure(gs, bound)
        args = [bound[s] for s in c.symbols]
        assert c.first_failure_ints(*args) == expected, (gs, vals, c.code)
        assert c.check_ints(*args) is (expected is None), (gs, vals, c.code)
        assert c.check({s.name: bound[s] for s in c.symbols}) is (expected is None)


# -- reading inputs ---------------------------------------------------------------------------------------
def _read_all(gs: GuardSet, inputs: dict) -> dict:
    return {sym: src.read(inputs[src.base]) for sym, src in gs.sources}


def test_numpy_strides_are_read_in_elements():
    s0, s1, t0, t1 = (symbol_expr(n) for n in ("s0", "s1", "t0", "t1"))
    srcs = {s0: Source.size("a", 0), s1: Source.size("a", 1), t0: Source.stride("a", 0), t1: Source.stride("a", 1)}
    gs = GuardSet.of([eq(t0, s1), eq(t1, 1)], srcs)
    c = gs.compile()
    contiguous = np.zeros((3, 5), dtype=np.float64)  # byte strides (40, 8), element strides (5, 1)
    assert c.check({"a": contiguous}) is True
    assert c.check({"a": contiguous.T}) is False  # element strides (1, 5)
    assert c.check({"a": np.zeros((4, 10), dtype=np.int16)[:, ::2]}) is False  # strides (10, 2), shape (4, 5)
    for arr in (contiguous, contiguous.T, np.zeros((4, 10), dtype=np.int8)[:, ::2]):
        assert c.check({"a": arr}) is gs.holds(_read_all(gs, {"a": arr}))


class TorchLike:
    """Duck-typed tensor: element strides via .stride(), and a storage offset."""

    def __init__(self, shape, strides, offset):
        self.shape, self._strides, self._offset = tuple(shape), tuple(strides), offset

    def stride(self):
        return self._strides

    def storage_offset(self):
        return self._offset


def test_all_source_kinds_read_like_source_read():
    n, s, st_, off, ne_ = (symbol_expr(k) for k in ("n", "s", "st", "off", "numel"))
    srcs = {
        n: Source.value("n"),
        s: Source.size("t", 1),
        st_: Source.stride("t", 0),
        off: Source("t", "storage_offset"),
        ne_: Source("t", "numel"),
    }
    gs = GuardSet.of([eq(s, n), eq(st_, mul(s, 2)), eq(off, 3), eq(ne_, mul(s, 4))], srcs)
    c = gs.compile()
    good = {"n": 2, "t": TorchLike((4, 2), (4, 1), 3)}
    assert c.check(good) is True and c.check_objects(**good) is True
    assert c.first_failure({**good, "t": TorchLike((4, 2), (4, 1), 0)}) == 2
    numpy_input = {"n": 2, "t": np.zeros((4, 2))}  # numpy: stride 2 != 4 and offset 0
    assert c.first_failure(numpy_input) == 1
    assert c.check(numpy_input) is gs.holds(_read_all(gs, numpy_input)) is False


@pytest.mark.torch
def test_torch_tensors():
    torch = pytest.importorskip("torch")
    a, b = symbol_expr("a"), symbol_expr("b")
    gs = GuardSet.of([eq(b, 1), ge(a, 2)], {a: Source.stride("t", 0), b: Source.stride("t", 1)})
    c = gs.compile()
    assert c.check({"t": torch.zeros(3, 4)}) is True
    assert c.check({"t": torch.zeros(3, 4).t()}) is False


def test_reading_errors_are_typed():
    gs = GuardSet.of([eq(x, y)], {x: X0, y: Source.value("n")})
    c = gs.compile()
    with pytest.raises(UnknownSourceError, match="no input named 'x'"):
        c.check({"n": 3})
    with pytest.raises(GuardTypeError, match=r"x\.size\(\)\[0\]"):
        c.check({"x": 3, "n": 3})  # an int has no .shape
    with pytest.raises(GuardTypeError):
        c.check({"x": np.zeros(()), "n": 3})  # a 0-d array has no dim 0
    with pytest.raises(UnknownSourceError):
        c.check_objects(n=3)


def test_symbols_without_sources_only_check_ints():
    c = GuardSet.of([lt(x, y)], {x: X0}).compile()
    assert c.order == (X0, y)
    assert c.check_ints(1, 2) is True
    with pytest.raises(UnknownSourceError, match="no source"):
        c.check({"x": np.zeros(1)})


# -- what cannot be compiled ------------------------------------------------------------------------------
UNSUPPORTED = [
    (sympy.Eq(sympy.floor(x / 3), 1), "sympy's floor"),
    (sympy.Eq(sympy.Rational(1, 2) * x, 1), "a non-integer rational"),
    (sympy.Eq(sympy.Pow(x, -1), 1), "a negative power"),
    (sympy.Lt(x, sympy.oo, evaluate=False), "infinity"),
    (sympy.Eq(sympy.Mod(x, y, evaluate=False), 0), "sympy's own Mod"),
    (sympy.Xor(sympy.Lt(x, 1), sympy.Lt(y, 1)), "Xor"),
]


@pytest.mark.parametrize("expr, why", UNSUPPORTED, ids=[u[1] for u in UNSUPPORTED])
def test_unsupported_expressions_raise_codegen_error(expr, why):
    gs = GuardSet.of([expr])
    assert len(gs) == 1
    with pytest.raises(CodegenError, match="cannot compile"):
        compile_guards(gs)


def test_too_deeply_nested_raises_codegen_error():
    e = x
    for _ in range(150):
        e = mod(add(e, 1), 7)
    with pytest.raises(CodegenError, match="nested"):
        values_gs(eq(e, 0)).compile()


# -- injection ------------------------------------------------------------------------------------------------
HOSTILE = [
    "x'); __import__('os').system('touch /tmp/pwned'); ('",
    "__import__('builtins').PWNED = 1",
    'x"]\nimport builtins; builtins.PWNED = 1\n#',
    "L['x']",
    "a\nb\r\nc\\",
    "}{)(][:=;",
    "x" * 100_000,
    "\u0000\u202e",
]


@pytest.mark.parametrize("name", HOSTILE, ids=[f"hostile{k}" for k in range(len(HOSTILE))])
def test_hostile_source_names_cannot_inject(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    s0, s1 = symbol_expr("s0"), symbol_expr("s1")
    gs = GuardSet.of([eq(s0, mul(s1, 2)), ge(s1, 2)], {s0: Source.size(name, 0), s1: Source.value(name + "n")})
    c = gs.compile()
    assert name not in c.code and "'" not in c.code and '"' not in c.code
    assert c.check({name: np.zeros(6), name + "n": 3}) is True
    assert c.check({name: np.zeros(6), name + "n": 4}) is False
    with pytest.raises(UnknownSourceError):
        c.check({"x": np.zeros(6)})
    assert not hasattr(builtins, "PWNED") and not list(tmp_path.iterdir())


def test_hostile_symbol_names_cannot_inject():
    evil = sympy.Symbol("__import__('builtins').__setattr__('PWNED', 1)", integer=True)
    gs = GuardSet.of([ge(evil, 2)], {evil: Source.value("n")})
    c = gs.compile()
    assert "__import__" not in c.code
    assert c.check_ints(3) is True and c.check({"n": 1}) is False
    assert not hasattr(builtins, "PWNED")


def test_generated_code_has_only_generated_names():
    from guards.runtime.codegen import _validate

    c = GuardSet.of([eq(floordiv(x, y), max_(y, 3))], {x: X0, y: Y0}).compile()
    _validate(c.code)  # the finished text passes its own validator
    with pytest.raises(CodegenError):
        _validate(c.code + "os = 'x'\n")
    with pytest.raises(CodegenError):
        _validate(c.code.replace("v0", "__import__", 1))


def test_compiled_is_a_frozen_value():
    c = values_gs(eq(x, 1)).compile()
    assert isinstance(c, CompiledGuards)
    with pytest.raises(AttributeError):
        c.order = ()  # type: ignore[misc]
    assert "1 guards" in repr(c)


def test_big_constants_are_exact():
    c = values_gs(eq(mul(x, 10**30), mul(y, 10**29)), eq(mod(sub(0, x), 10**20), 10**20 - 1)).compile()
    assert c.check_ints(1, 10) is True
    assert c.check_ints(1, 11) is False


HOSTILE_TEXT = [
    "__import__('builtins').__setattr__('PWNED', 1) == 0",
    "L['x'].size()[0] == 1 and exec(\"import builtins; builtins.PWNED = 1\")",
    "eval('1') == 1",
    "().__class__.__mro__[1].__subclasses__() == 0",
    "(lambda: 1)() == 1",
    "L['x'].size()[0] == 1; import os",
    "L['x'].size()[0] == 1 # ok\n__import__('os')",
    "L['x'].size()[0] == " + "(" * 5000 + "1" + ")" * 5000,
]


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=[f"text{k}" for k in range(len(HOSTILE_TEXT))])
def test_hostile_guard_text_raises_typed_errors_and_runs_nothing(text, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(GuardError):
        GuardSet.parse(text).compile()
    assert not hasattr(builtins, "PWNED") and not list(tmp_path.iterdir())


def test_hostile_names_from_parsed_text_never_reach_the_code():
    evil = "x'); __import__('builtins').__setattr__('PWNED', 1); ('"
    gs = GuardSet.parse(f"L[{evil!r}].size()[0] * 2 == L[{evil!r}].stride()[0]")
    c = gs.compile()
    assert "__import__" not in c.code and "'" not in c.code
    assert c.check({evil: np.zeros((3, 6))}) is True  # strides (6, 1): 3 * 2 == 6
    assert c.check({evil: np.zeros((3, 5))}) is False
    assert not hasattr(builtins, "PWNED")


# -- the W2 workload ----------------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parents[2]
W2_PATH = ROOT / "benchmarks" / "workloads" / "w2_guards.json"


def test_w2_verdicts_from_numpy_arrays_and_ints():
    w2 = json.loads(W2_PATH.read_text())
    gs = GuardSet.parse(w2["guards"])
    c = gs.compile()
    for inputs, expected in zip(w2["input_sets"], w2["expected_verdicts"]):
        arrays = {n: np.zeros(shape, dtype=np.float32) for n, shape in inputs["shapes"].items()}
        ints = [src.read(arrays[src.base]) for src in c.order]
        assert c.check(arrays) is expected, inputs["label"]
        assert c.check_objects(**arrays) is expected, inputs["label"]
        assert c.check_ints(*ints) is expected, inputs["label"]
        assert (c.first_failure(arrays) is None) is expected
        assert gs.holds(dict(zip(c.symbols, ints))) is expected


def test_w2_benchmark_script_runs_and_verifies_verdicts():
    argv = [sys.executable, str(ROOT / "benchmarks" / "w2_guard_eval.py"), "--repeat", "1", "--number", "20", "--no-torch"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verdicts: all" in proc.stdout and "ours ints (check_ints) / hand ints (lambda)" in proc.stdout
