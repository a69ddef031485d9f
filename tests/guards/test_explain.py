"""Tests for guards/runtime/explain.py: failing guards explained in words, with the values they saw."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guards import Explanation, Failure, GuardSet, GuardTypeError, Source, UnknownSourceError, explain, explain_inputs
from symint.build import add, and_, eq, floordiv, le, lt, mod, mul, ne, symbol_expr

s0, s1, s2 = symbol_expr("s0"), symbol_expr("s1"), symbol_expr("s2")
SOURCES = {s0: Source.size("x", 0), s1: Source.size("y", 0), s2: Source.stride("x", 1)}


def gs_of(*guards) -> GuardSet:
    return GuardSet.of(guards, SOURCES)


# (guards, bindings, expected lines) -- the expected text is the product's wording, written by hand.
CASES = [
    ([eq(s0, 8)], {"x.size()[0]": 9}, ["x.size()[0] == 8 failed: got 9"]),
    (
        [eq(s0, s1)],
        {"x.size()[0]": 3, "y.size()[0]": 4},
        ["x.size()[0] == y.size()[0] failed: got x.size()[0] = 3, y.size()[0] = 4"],
    ),
    ([le(2, s0)], {"x.size()[0]": 1}, ["2 <= x.size()[0] failed: got 1"]),
    ([ne(s2, 1)], {"L['x'].stride()[1]": 1}, ["x.stride()[1] != 1 failed: got 1"]),
    (
        [le(2, s0), eq(s0, s1), lt(s1, 100)],
        {s0: 1, s1: 100},
        [
            "2 <= x.size()[0] failed: got 1",
            "x.size()[0] == y.size()[0] failed: got x.size()[0] = 1, y.size()[0] = 100",
            "y.size()[0] < 100 failed: got 100",
        ],
    ),
    ([eq(mod(s0, 8), 0), le(2, s0)], {"x.size()[0]": 12}, ["(x.size()[0] % 8) == 0 failed: got 12"]),
    ([le(2, s0)], {"x.size()[0]": 5}, []),
]


@pytest.mark.parametrize("guards, bindings, expected", CASES, ids=[f"case{k}" for k in range(len(CASES))])
def test_messages(guards, bindings, expected):
    ex = gs_of(*guards).explain(bindings)
    assert isinstance(ex, Explanation)
    assert [f.message() for f in ex] == expected, (guards, bindings)
    assert ex.accepted is (not expected)
    assert str(ex) == ("\n".join(expected) if expected else f"all {len(guards)} guards hold")


def test_failure_records_are_frozen_and_structured():
    gs = gs_of(le(2, s0), eq(s0, s1))
    (f1, f2) = explain(gs, {"x.size()[0]": 1, "y.size()[0]": 7}).failures
    assert isinstance(f1, Failure) and f1.index == 0 and f1.guard == gs.guards[0] and f1.values == (("x.size()[0]", 1),)
    assert f2.index == 1 and f2.values == (("x.size()[0]", 1), ("y.size()[0]", 7)) and f2.error is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        f1.index = 3  # type: ignore[misc]


def test_values_follow_the_order_of_the_text():
    gs = gs_of(eq(s1, add(s0, 1)))
    (f,) = explain(gs, {s0: 1, s1: 5})
    assert f.text == "y.size()[0] == x.size()[0] + 1"
    assert [name for name, _ in f.values] == ["y.size()[0]", "x.size()[0]"]


def test_first_only_stops_at_the_first_failure():
    gs = gs_of(le(2, s0), eq(s0, s1), lt(s1, 3))
    ex = gs.explain({s0: 1, s1: 9}, first_only=True)
    assert [f.index for f in ex] == [0] and ex.checked == 1
    assert len(gs.explain({s0: 1, s1: 9})) == 3


def test_a_guard_that_raises_is_explained():
    gs = gs_of(eq(floordiv(s0, s1), 2))
    (f,) = explain(gs, {s0: 4, s1: 0})
    assert f.error is not None and "ZeroDivisionError" in f.error
    assert f.message().startswith("x.size()[0] // y.size()[0] == 2 failed: got x.size()[0] = 4, y.size()[0] = 0 (")


def test_constant_false_guard():
    (f,) = GuardSet.of([False]).explain({})
    assert f.message() == "False failed: it never holds"


def test_missing_and_unknown_bindings():
    gs = gs_of(eq(s0, s1))
    with pytest.raises(UnknownSourceError, match=r"y\.size\(\)\[0\]"):
        explain(gs, {"x.size()[0]": 3})
    with pytest.raises(UnknownSourceError):
        explain(gs, {"z.size()[0]": 3})


def test_odd_input_names_are_quoted():
    a = symbol_expr("a")
    gs = GuardSet.of([eq(a, 4)], {a: Source.size("my input", 0)})
    (f,) = gs.explain({Source.size("my input", 0): 5})
    assert f.message() == "L['my input'].size()[0] == 4 failed: got 5"


def test_explain_inputs_reads_objects():
    gs = gs_of(eq(s2, 1), eq(s0, s1))
    ex = explain_inputs(gs, {"x": np.zeros((3, 4)).T, "y": np.zeros(3)})
    assert [f.message() for f in ex] == [
        "x.stride()[1] == 1 failed: got 4",
        "x.size()[0] == y.size()[0] failed: got x.size()[0] = 4, y.size()[0] = 3",
    ]
    with pytest.raises(UnknownSourceError, match="no input named 'y'"):
        explain_inputs(gs, {"x": np.zeros((3, 4))})
    with pytest.raises(GuardTypeError, match=r"x\.size\(\)\[0\]"):
        explain_inputs(gs, {"x": 3, "y": np.zeros(3)})


guard_pool = [le(2, s0), eq(s0, s1), lt(s1, 9), eq(mod(s0, 4), 0), ne(s2, 1), and_(le(s0, 6), le(s1, 6)), eq(mul(s0, 2), s1)]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(guard_pool), min_size=1, max_size=5, unique=True),
    st.integers(0, 12),
    st.integers(0, 12),
    st.integers(0, 3),
)
def test_agrees_with_failures_and_compiled_checker(guards, a, b, c):
    gs = gs_of(*guards)
    values = {s0: a, s1: b, s2: c}
    ex = gs.explain(values)
    assert [f.guard for f in ex] == gs.failures(values)
    for f in ex:
        assert {name for name, _ in f.values} == {SOURCES[s].text() for s in f.guard.free_symbols}
        assert all(values[s] == dict(f.values)[SOURCES[s].text()] for s in f.guard.free_symbols)
    compiled = gs.compile()
    first = compiled.first_failure_ints(*(values[s] for s in compiled.symbols))
    assert first == (ex.failures[0].index if ex.failures else None)
