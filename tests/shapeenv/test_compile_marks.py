"""Marks (mark_dynamic & co.), source whitelists, hint_override and specialize_on, through ``compile``."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from guards import Source
from shapeenv import ConstraintViolationError, ExportConstraintError, TensorSpec
from shapeenv.compile import compile
from shapeenv.compile.marks import (
    MARKS,
    DimMark,
    SourcePatterns,
    clear_marks,
    mark_dynamic,
    mark_static,
    marks_of,
    maybe_mark_dynamic,
)


class TraceLog(list):
    """The branches traces take (recorded on purpose: a trace does not undo writes to it)."""

    __shapeenv_trace_recorder__ = True


def a(*shape):
    return np.ones(shape, dtype=np.float32)


def scale(x):
    return x * 2


def pinned(guards) -> set[str]:
    """The sizes and ints a guard set pins (its layout pins, ``x.stride()[i] == k``, are not marks' business)."""
    return {line.split(" == ")[0] for line in size_guards(guards) if " == " in line and line.split(" == ")[1].isdigit()}


def size_guards(guards) -> list[str]:
    return [line for line in guards.to_text("source").splitlines() if ".stride()" not in line]


# -- the mark table ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "steps, expected",
    [
        ([("dynamic", 0)], "Marks(0: dynamic)"),
        ([("maybe", 0), ("dynamic", 0)], "Marks(0: dynamic)"),
        ([("dynamic", 0), ("maybe", 0)], "Marks(0: dynamic)"),  # the weak mark never replaces a strong one
        ([("static", 0), ("maybe", 0)], "Marks(0: static)"),
        ([("dynamic", 0), ("static", 0)], "Marks(0: static)"),  # explicit marks: the latest wins
        ([("static", 1), ("dynamic", -1)], "Marks(1: dynamic)"),
        ([("maybe", [0, 1])], "Marks(0: maybe, 1: maybe)"),
    ],
)
def test_mark_precedence(steps, expected) -> None:
    x = a(4, 5)
    fns = {"dynamic": mark_dynamic, "maybe": maybe_mark_dynamic, "static": mark_static}
    for kind, dims in steps:
        fns[kind](x, dims)
    assert repr(marks_of(x)) == expected


def test_marks_belong_to_the_object_and_die_with_it() -> None:
    before = len(MARKS)
    x = a(4)
    mark_dynamic(x, 0)
    assert len(MARKS) == before + 1
    assert marks_of(x[:]) == marks_of(a(4)) == marks_of(x.copy())  # views and copies are unmarked
    assert marks_of(x).get(0) == DimMark.of("dynamic")
    del x
    gc.collect()
    assert len(MARKS) == before
    y = a(4)
    mark_static(y, 0)
    clear_marks(y)
    assert repr(marks_of(y)) == "Marks()"


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: mark_dynamic((4, 5), 0), TypeError, "shape specs .* cannot be marked"),
        (lambda: mark_dynamic(TensorSpec((4,)), 0), TypeError, "dynamic_sources='x:0'"),
        (lambda: mark_dynamic(3, 0), TypeError, r"anything with \.shape"),
        (lambda: mark_dynamic(a(4), 1), IndexError, "dim 1 is out of range for an input with 1 dims"),
        (lambda: mark_dynamic(a(4), 0, min=5, max=2), ValueError, "min=5 is greater than max=2"),
        (lambda: mark_dynamic(a(4), 0, min=8), ConstraintViolationError, "size 4, outside the declared range"),
        (lambda: mark_dynamic(a(4), 0, max=8, hint_override=9), ConstraintViolationError, "hint_override 9"),
        (lambda: mark_dynamic(a(4), 0, specialize_on=[8]), TypeError, "specialize_on takes callables"),
        (lambda: mark_static(a(4), "0"), TypeError, "dims must be ints"),
    ],
)
def test_bad_marks_are_rejected(call, error, match) -> None:
    with pytest.raises(error, match=match):
        call()


def test_marking_inside_a_traced_function_is_an_error() -> None:
    def f(x):
        mark_dynamic(x, 0)
        return x

    with pytest.raises(TypeError, match="inside a traced function"):
        compile(f)(a(4))


def test_predicates_written_once_compare_equal() -> None:
    marks = [DimMark.of("dynamic", specialize_on=[lambda s: s == 8]) for _ in range(2)]
    assert marks[0] == marks[1] and hash(marks[0]) == hash(marks[1])
    k = [DimMark.of("dynamic", specialize_on=[lambda s, k=k: s == k]) for k in (8, 16)]
    assert k[0] != k[1]  # same code, other captured value


# -- marks through compile -----------------------------------------------------------------------------
def test_mark_dynamic_traces_the_first_call_dynamic() -> None:
    c = compile(scale)
    x = a(8, 3)
    mark_dynamic(x, 0)
    c(x)
    (entry,) = c.cache_info().entries
    assert pinned(entry.guards) == {"x.size()[1]"}
    assert entry.dynamic == "x.size()[0] (mark_dynamic)"
    assert "Marks(0: dynamic)" in entry.inputs


def test_marks_are_part_of_the_key() -> None:
    c = compile(scale)
    c(a(8))
    x = a(8)
    mark_dynamic(x, 0)
    c(x)
    info = c.cache_info()
    assert info.compilations == 2
    assert info.entries[1].reason.text == "the marks of x are Marks() failed: got Marks(0: dynamic)"


def test_mark_dynamic_with_bounds_guards_the_bounds() -> None:
    c = compile(scale)
    x = a(8)
    mark_dynamic(x, 0, min=4, max=64)
    c(x)
    text = c.cache_info().entries[0].guards.to_text("source")
    assert "x.size()[0] >= 4" in text and "x.size()[0] <= 64" in text


def test_mark_dynamic_forbids_specialising() -> None:
    x = a(8)
    mark_dynamic(x, 0)
    with pytest.raises(ExportConstraintError, match="specialised it to the constant 8") as info:
        compile(lambda x: x * 2 if x.shape[0] == 8 else x)(x)
    assert any("marked with mark_dynamic" in note for note in getattr(info.value, "__notes__", []))


def test_mark_dynamic_with_bounds_forbids_narrowing() -> None:
    def small(x):
        return x * 2 if x.shape[0] <= 16 else x

    x = a(8)
    mark_dynamic(x, 0, max=64)
    with pytest.raises(ExportConstraintError, match="only .* do"):
        compile(small)(x)


def test_maybe_mark_dynamic_may_be_specialised() -> None:
    def eight(x):
        return x * 2 if x.shape[0] == 8 else x

    x = a(8)
    maybe_mark_dynamic(x, 0)
    c = compile(eight)
    c(x)
    assert pinned(c.cache_info().entries[0].guards) == {"x.size()[0]"}
    y = a(9)
    maybe_mark_dynamic(y, 0)
    c(y)
    assert pinned(c.cache_info().entries[1].guards) == set()


@pytest.mark.parametrize("dynamic", [None, True])
def test_mark_static_beats_automatic_and_forced_dynamic(dynamic) -> None:
    c = compile(scale, dynamic=dynamic)
    for n in (4, 5, 6):
        x = a(n, n)
        mark_static(x, 0)
        c(x)
    info = c.cache_info()
    assert info.compilations == 3
    assert all("x.size()[0]" in pinned(e.guards) for e in info.entries)


# -- whitelists ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "patterns, source, expected",
    [
        ("x", Source.size("x", 1), True),
        ("x", Source.value("x"), True),
        ("x", Source.size("xs", 0), False),
        ("L['x']", Source.size("x", 0), True),
        ("x.size()[0]", Source.size("x", 0), True),
        ("x.size()[0]", Source.size("x", 1), False),
        ("L['x'].size()[1]", Source.size("x", 1), True),
        ("x:1", Source.size("x", 1), True),
        ("x:1", Source.size("x", 0), False),
        ("x:0", Source.value("x"), False),
        ("x.*", Source.size("xs[0]", 0), True),
        (r"L\['y.*", Source.size("y", 0), True),
        ("a, b ,c", Source.value("b"), True),
        (["x,y"], Source.value("x"), False),  # a list item is one pattern, commas included
        ("", Source.value("x"), False),
    ],
)
def test_source_patterns(patterns, source, expected) -> None:
    assert SourcePatterns.parse(patterns).matches(source) is expected, (patterns, source)


@pytest.mark.parametrize("bad, error", [("x,,y", ValueError), (3, TypeError), ([1], TypeError)])
def test_bad_source_patterns(bad, error) -> None:
    with pytest.raises(error):
        SourcePatterns.parse(bad)


@pytest.mark.parametrize(
    "options, first_dynamic",
    [
        ({"dynamic_sources": "x:0"}, {"x.size()[0]"}),
        ({"dynamic_sources": "x", "dynamic": False}, {"x.size()[0]", "x.size()[1]"}),  # the whitelist beats dynamic=False
        ({"dynamic_sources": "n"}, {"n"}),  # ints too
        ({"dynamic": True, "static_sources": "x:1"}, {"x.size()[0]", "n"}),
        ({"dynamic_sources": "x", "static_sources": "L['x'].size()[0]"}, {"x.size()[1]"}),  # static beats dynamic
        ({"dynamic_sources": r"x\.size\(\)\[1\]"}, {"x.size()[1]"}),
    ],
)
def test_whitelists_decide_the_first_trace(options, first_dynamic) -> None:
    def f(x, n):
        return x * n

    c = compile(f, **options)
    c(a(4, 5), 3)
    entry = c.cache_info().entries[0]
    all_sources = {"x.size()[0]", "x.size()[1]", "n"}
    assert all_sources - pinned(entry.guards) == first_dynamic, str(entry.guards)


def test_static_sources_beat_automatic_dynamic() -> None:
    c = compile(scale, static_sources="x")
    for n in (4, 5, 6):
        c(a(n))
    assert c.cache_info().compilations == 3
    assert all(e.dynamic == "none" for e in c.cache_info().entries)


def test_mark_dynamic_beats_static_sources() -> None:
    c = compile(scale, static_sources="x")
    x = a(4)
    mark_dynamic(x, 0)
    c(x)
    assert pinned(c.cache_info().entries[0].guards) == set()


# -- hint_override -------------------------------------------------------------------------------------
def test_hint_override_decides_the_first_trace() -> None:
    taken = TraceLog()

    def f(x):
        if x.shape[0] > 16:
            taken.append("big")
            return x * 2
        taken.append("small")
        return x * 3

    def backend(program):
        branch = taken[-1]
        return lambda x: branch

    c = compile(f, backend=backend)
    x = a(8)
    mark_dynamic(x, 0, hint_override=32)
    assert c(x) == "small"  # the real size takes the other branch: traced again with it
    assert taken == ["big", "small"]
    first, second = c.cache_info().entries
    assert "x.size()[0] >= 17" in first.guards.to_text("source")
    assert "x.size()[0] <= 16" in second.guards.to_text("source")
    assert second.reason.text == (
        "x.size()[0] >= 17 failed: got 8 (the trace with hint_override x.size()[0]=32 rejects this call; "
        "traced again with its sizes)"
    )
    y = a(40)
    mark_dynamic(y, 0, hint_override=32)
    assert c(y) == "big" and taken == ["big", "small"]  # served by the override's entry, no trace
    assert c.cache_info().compilations == 1


def test_hint_override_in_its_own_regime_traces_once() -> None:
    taken = TraceLog()

    def f(x):
        taken.append("big" if x.shape[0] > 16 else "small")
        return x

    c = compile(f, backend=lambda p: (lambda x: None))
    x = a(20)
    mark_dynamic(x, 0, hint_override=64)
    c(x)
    assert taken == ["big"] and len(c.cache_info().entries) == 1


def test_hint_override_is_part_of_the_key() -> None:
    c = compile(scale)
    for hint in (None, 32, 64):
        x = a(8)
        mark_dynamic(x, 0, hint_override=hint)
        c(x)
    assert c.cache_info().compilations == 3


# -- specialize_on -------------------------------------------------------------------------------------
def test_specialize_on_dispatches_to_the_first_predicate_that_holds() -> None:
    c = compile(scale)

    def call(n):
        x = a(n)
        mark_dynamic(x, 0, specialize_on=[lambda s: s == 8, lambda s: s % 16 == 0])
        c(x)

    for n in (8, 16, 32, 17, 8, 48, 8):
        call(n)
    info = c.cache_info()
    assert info.compilations == 1
    assert [e.specialization for e in info.entries] == ["x.size()[0] == 8", "(x.size()[0] % 16) == 0", None]
    assert [e.hits for e in info.entries] == [2, 3, 1]  # the compiling call (8) is not a hit
    for e in info.entries[:2]:
        assert e.specialization in e.guards.to_text("source")
    assert size_guards(info.entries[2].guards) == ["x.size()[0] >= 2"]


def test_specialize_on_calls_the_backend_once_per_entry() -> None:
    seen = []
    c = compile(scale, backend=lambda program: seen.append(program) or (lambda x: len(seen)))
    x = a(8)
    mark_dynamic(x, 0, specialize_on=[lambda s: s == 8, lambda s: s < 4])
    c(x)
    assert len(seen) == 3 and seen[0] is seen[2]


@pytest.mark.parametrize(
    "predicate, entries, note",
    [
        (lambda s: s >= 2, 1, "specialize_on[0] of x.size()[0] always holds for this trace: the generic entry serves it"),
        (lambda s: s < 0, 1, "specialize_on[0] of x.size()[0] never holds for this trace: no entry"),
        (lambda s: s % 4 == 0, 2, None),
    ],
)
def test_specialize_on_predicates_the_trace_decides_add_no_entry(predicate, entries, note) -> None:
    c = compile(scale)
    x = a(8)
    mark_dynamic(x, 0, specialize_on=[predicate])
    c(x)
    info = c.cache_info()
    assert len(info.entries) == entries
    assert info.entries[-1].notes == ((note,) if note else ())
    if note:
        assert f"note:    {note}" in str(info)


def test_specialize_on_rejects_predicates_that_decide_instead_of_returning_a_condition() -> None:
    c = compile(scale)
    x = a(8)
    mark_dynamic(x, 0, specialize_on=[lambda s: s in (8, 16)])
    with pytest.raises(TypeError, match=r"specialize_on\[0\] of x.size\(\)\[0\] returned True, not a symbolic condition"):
        c(x)
