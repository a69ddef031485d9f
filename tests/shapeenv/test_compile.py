"""``compile``: dispatch, automatic dynamic, ints and constants, reasons, cache info, backends, limits, threads."""

from __future__ import annotations

import dataclasses
import random
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guards import Source
from shapeenv import TensorSpec, export, ops
from shapeenv.compile import (
    CacheInfo,
    CompiledFunction,
    RecompileLimitWarning,
    compile,
    suggest_dynamic,
)
from shapeenv.compile.binding import Binder
from shapeenv.errors import TraceStateWarning
from shapeenv.program.program import ExportedProgram


def a(*shape, dtype=np.float32):
    return np.ones(shape, dtype=dtype)


def scale(x):
    return x * 2


def scale_by(x, n):
    return x * n


def pins(guards) -> dict[str, int]:
    """Source text -> constant, for the ``source == constant`` guards of a set (sizes and ints; the
    layout pins ``x.stride()[i] == k`` are tested in test_layout_compile.py)."""
    out = {}
    for line in guards.to_text("source").splitlines():
        left, sep, right = line.partition(" == ")
        if sep and right.lstrip("-").isdigit() and ".stride()" not in left:
            out[left] = int(right)
    return out


# -- automatic dynamic ---------------------------------------------------------------------------------
AUTOMATIC = [
    # (calls as shapes of x, compilations, sources dynamic in the last entry)
    ([(8,), (8,), (8,)], 1, set()),
    ([(8,), (9,)], 2, {"x.size()[0]"}),
    ([(8,), (9,), (10,), (11,), (8,)], 2, {"x.size()[0]"}),
    ([(8, 3), (8, 4), (8, 5)], 2, {"x.size()[1]"}),
    ([(8, 3), (8, 4), (9, 4)], 3, {"x.size()[0]", "x.size()[1]"}),
    ([(1,), (2,), (3,), (1,)], 2, {"x.size()[0]"}),
    ([(8,), (1,), (0,)], 3, set()),  # 1 and 0 are specialised even once the dim changed
    ([(2, 3), (2, 3, 4), (2, 3, 5)], 2, {"x.size()[0]", "x.size()[1]", "x.size()[2]"}),  # a rank change: all dims
]


@pytest.mark.parametrize("calls, compilations, dynamic", AUTOMATIC)
def test_automatic_dynamic(calls, compilations, dynamic) -> None:
    f = compile(scale)
    for shape in calls:
        np.testing.assert_array_equal(f(a(*shape)), a(*shape) * 2)
    info = f.cache_info()
    assert info.compilations == compilations, (calls, str(info))
    last = info.entries[-1]
    sizes = {f"x.size()[{i}]" for i in range(len(calls[-1]))}
    assert sizes - set(pins(last.guards)) == dynamic, (calls, str(last.guards))


def test_the_second_distinct_size_recompiles_with_that_dim_dynamic() -> None:
    f = compile(scale)
    f(a(8, 3))
    f(a(9, 3))
    first, second = f.cache_info().entries
    assert pins(first.guards) == {"x.size()[0]": 8, "x.size()[1]": 3}
    assert pins(second.guards) == {"x.size()[1]": 3}
    assert "x.size()[0] >= 2" in second.guards.to_text("source")
    assert second.reason.text == "x.size()[0] == 8 failed: got 9"
    assert second.dynamic == "x.size()[0] (automatic dynamic: 8 -> 9)"
    for n in (2, 9, 100, 4096):  # the dynamic entry serves every size >= 2
        f(a(n, 3))
    assert f.cache_info().compilations == 2


@pytest.mark.parametrize(
    "dynamic, calls, compilations",
    [
        (True, [(8,), (9,), (100,)], 1),
        (True, [(1,), (2,), (3,)], 2),  # size 1 is specialised even with dynamic=True
        (False, [(8,), (9,), (10,), (9,)], 3),
        (None, [(8,), (9,), (10,), (9,)], 2),
    ],
)
def test_the_dynamic_flag(dynamic, calls, compilations) -> None:
    f = compile(scale, dynamic=dynamic)
    for shape in calls:
        f(a(*shape))
    assert f.cache_info().compilations == compilations


def test_a_dim_the_function_specialises_is_traced_static_instead_of_failing() -> None:
    def eight(x):
        return x * 2 if x.shape[0] == 8 else x * 3

    f = compile(eight, dynamic=True)
    np.testing.assert_array_equal(f(a(8)), a(8) * 2)
    (entry,) = f.cache_info().entries
    assert pins(entry.guards) == {"x.size()[0]": 8}
    assert "traced static: the function specialises it" in entry.dynamic
    np.testing.assert_array_equal(f(a(9)), a(9) * 3)
    assert "x.size()[0] != 8" in f.cache_info().entries[1].guards.to_text("source")


# -- ints, constants, dtypes ---------------------------------------------------------------------------
def test_int_inputs_are_pinned_then_automatically_dynamic() -> None:
    f = compile(scale_by)
    f(a(4), 3)
    assert pins(f.cache_info().entries[0].guards) == {"x.size()[0]": 4, "n": 3}
    f(a(4), 4)
    second = f.cache_info().entries[1]
    assert second.reason.text == "n == 3 failed: got 4"
    assert "n" not in pins(second.guards) and "n >= 2" in second.guards.to_text("source")
    for n in (5, 6, 70):
        np.testing.assert_array_equal(f(a(4), n), a(4) * n)
    assert f.cache_info().compilations == 2


@pytest.mark.parametrize(
    "first, second, reason",
    [
        ((a(4), "fast"), (a(4), "slow"), "mode == 'fast' failed: got 'slow'"),
        ((a(4), 1.5), (a(4), 2.5), "mode == 1.5 failed: got 2.5"),
        ((a(4), None), (a(4), True), "mode == None failed: got True"),
        ((a(4), "x"), (a(4, dtype=np.int64), "x"), "x: float32[1-d] ndarray failed: got int64[1-d] ndarray"),
        ((a(4), "x"), (a(4, 4), "x"), "x: float32[1-d] ndarray failed: got float32[2-d] ndarray"),
        ((a(4), "x"), (TensorSpec((4,)), "x"), "x: float32[1-d] ndarray failed: got float32[1-d] spec"),
    ],
)
def test_what_guards_cannot_say_is_in_the_key(first, second, reason) -> None:
    def f(x, mode):
        return x + 1

    c = compile(f)
    c(*first)
    c(*first)
    c(*second)
    info = c.cache_info()
    assert [e.hits for e in info.entries] == [1, 0]
    assert info.entries[1].reason.text == reason


def test_bool_is_not_an_int_and_one_is_not_true() -> None:
    c = compile(scale_by)
    c(a(2), True)
    c(a(2), 1)
    assert c.cache_info().compilations == 2


def test_unhashable_constants_are_rejected_with_the_input_name() -> None:
    c = compile(scale_by)
    with pytest.raises(TypeError, match=r"input n = \{1, 2\} is an unhashable constant"):
        c(a(2), {1, 2})


def test_keyword_calls_share_entries_with_positional_calls() -> None:
    c = compile(scale_by)
    c(a(4), 3)
    c(x=a(4), n=3)
    c(a(4), n=3)
    assert c.cache_info().compilations == 1
    assert c.cache_info().hits == 2


def test_pytree_inputs_are_named_like_export() -> None:
    def total(xs, d):
        return xs[0] + xs[1] + d["w"]

    c = compile(total, dynamic=True)
    out = c([a(3), a(3)], {"w": a(3)})
    np.testing.assert_array_equal(out, a(3) * 3)
    sources = {src for _, src in c.cache_info().entries[0].guards.sources}
    assert {Source.size("xs[0]", 0), Source.size("xs[1]", 0), Source.size("d['w']", 0)} <= sources
    c([a(5), a(5)], {"w": a(5)})
    assert c.cache_info().compilations == 1


def test_the_fast_and_slow_binding_give_the_same_key() -> None:
    b = Binder(scale_by)
    x = a(3, 4)
    fast = b.fast((x, 7))
    assert fast is not None
    assert fast[0] == b.bind((x, 7), {}).key == b.bind((), {"x": x, "n": 7}).key
    assert b.fast((x, 7.0)) is None  # not a fast type: the slow path decides


# -- shape specs ---------------------------------------------------------------------------------------
def test_shape_specs_return_output_shapes() -> None:
    def f(x, y):
        return ops.cat([x, y], 0), x.shape[0] * 2

    c = compile(f, dynamic=True)
    assert c((4, 3), (5, 3)) == ((9, 3), 8)
    assert c(TensorSpec((7, 3)), (1, 3)) == ((8, 3), 14)
    assert c.cache_info().entries[0].inputs == "x: float32[2-d] spec, y: float32[2-d] spec"


def test_shape_specs_under_the_recompile_limit_still_get_shapes() -> None:
    c = compile(scale, dynamic=False, recompile_limit=1)
    assert c((4,)) == (4,)
    with pytest.warns(RecompileLimitWarning):
        assert c((5,)) == (5,)
    assert c.cache_info().compilations == 1


# -- backends ------------------------------------------------------------------------------------------
def test_a_callable_artifact_runs_instead_of_the_function() -> None:
    seen: list[ExportedProgram] = []

    def backend(program):
        seen.append(program)
        return lambda x: ("artifact", program.signature())

    c = compile(scale, backend=backend)
    assert c(a(4)) == ("artifact", "scale(x: f32[4])")
    assert c(a(4)) == ("artifact", "scale(x: f32[4])")
    assert c(a(5)) == ("artifact", "scale(x: f32[s0])")
    assert len(seen) == 2 and all(isinstance(p, ExportedProgram) for p in seen)


def test_a_non_callable_artifact_means_running_the_function_eagerly() -> None:
    calls = []

    def f(x):
        calls.append(type(x).__name__)
        return x + 1

    c = compile(f, backend=lambda program: {"not": "callable"})
    with pytest.warns(TraceStateWarning, match=r"f\.<closure>\.calls\[0\]"):
        np.testing.assert_array_equal(c(a(3)), a(3) + 1)
    # traced once (the trace's append undone: shapeenv.export.state), then run eagerly on the array (with torch's methods)
    assert calls == ["EagerTensor"]
    assert c.cache_info().entries[0].program.signature() == "f(x: f32[3])"


def test_bad_options_are_rejected() -> None:
    with pytest.raises(TypeError, match="dynamic must be None"):
        compile(scale, dynamic="yes")
    with pytest.raises(ValueError, match="recompile_limit must be an int >= 1"):
        compile(scale, recompile_limit=0)
    with pytest.raises(TypeError, match="backend must be a callable"):
        compile(scale, backend="inductor")
    with pytest.raises(TypeError, match="compile\\(\\) takes a function"):
        compile(42)


def test_decorator_form_and_wrapping() -> None:
    @compile(dynamic=True, name="twice")
    def double(x):
        """Double it."""
        return x * 2

    assert isinstance(double, CompiledFunction)
    assert double.__doc__ == "Double it." and double.options.name == "twice"
    double(a(3))
    assert "twice" in repr(double) and double.cache_info().function == "twice"


# -- reasons, cache info, suggestions ------------------------------------------------------------------
def test_reasons_name_the_first_failed_guard_of_every_entry() -> None:
    c = compile(scale, dynamic=False)
    for n in (8, 9, 10):
        c(a(n))
    reasons = [e.reason.text for e in c.cache_info().entries]
    assert reasons == [
        "first call",
        "x.size()[0] == 8 failed: got 9",
        "entry 0: x.size()[0] == 8 failed: got 10; entry 1: x.size()[0] == 9 failed: got 10",
    ]
    assert [r.text for r in c.recompile_reasons()] == reasons[1:]


def test_cache_info_is_a_frozen_readable_snapshot() -> None:
    c = compile(scale_by)
    c(a(4), 3)
    c(a(5), 3)
    c(a(6), 3)
    info = c.cache_info()
    assert isinstance(info, CacheInfo)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.misses = 0  # type: ignore[misc]
    assert (info.compilations, info.misses, info.hits, info.eager_calls) == (2, 2, 1, 0)
    text = str(info)
    assert text.splitlines()[0] == (
        "scale_by: 2 entries from 2 compilations, 1 hits, 2 misses, 0 eager calls (recompile_limit 8)"
    )
    for line in ("entry 1: 1 hits", "reason:  x.size()[0] == 4 failed: got 5", "n == 3", "x.size()[0] >= 2"):
        assert line in text, text
    html = info._repr_html_()
    assert html.count("<tr>") == 3 and "x.size()[0] &gt;= 2" in html
    c(a(7), 3)
    assert info.hits == 1 and c.cache_info().hits == 2  # the snapshot does not move


@pytest.mark.parametrize(
    "fn, calls, min_count, expected",
    [
        (scale, [(a(4),), (a(5),), (a(6),)], 2, ["mark_dynamic(x, 0)  # x.size()[0] was pinned (4, 5) in 2 recompiles"]),
        (scale, [(a(4),), (a(5),)], 2, []),
        (scale, [(a(4),), (a(5),)], 1, ["mark_dynamic(x, 0)  # x.size()[0] was pinned (4) in 1 recompiles"]),
        (scale, [(a(4, 2),), (a(4, 3),), (a(4, 4),)], 2, ["mark_dynamic(x, 1)  # x.size()[1] was pinned (2, 3) in 2 recompiles"]),
        (scale_by, [(a(4), 2), (a(4), 3), (a(4), 5)], 2, ["compile(..., dynamic_sources='n')  # n was pinned (2, 3) in 2 recompiles"]),
    ],
)
def test_suggest_dynamic(fn, calls, min_count, expected) -> None:
    c = compile(fn, dynamic=False)
    for call in calls:
        c(*call)
    assert [str(s) for s in suggest_dynamic(c, min_count=min_count)] == expected


def test_an_entry_that_is_already_dynamic_contributes_no_pins() -> None:
    def small(x):
        return x * 2 if x.shape[0] <= 16 else x * 3

    c = compile(small)
    for n in (4, 5, 40, 6):
        c(a(n))
    first, second = c.recompile_reasons()
    assert first.pins == ((Source.size("x", 0), 4, 5),)
    where = f"{__file__}:{small.__code__.co_firstlineno + 1} in small"  # the line of the branch that made the guard
    assert second.text == f"entry 0: x.size()[0] == 4 failed: got 40; entry 1: x.size()[0] <= 16 failed: got 40 (guard from {where})"
    assert second.call_site.startswith(f"{__file__}:") and second.call_site.endswith("in test_an_entry_that_is_already_dynamic_contributes_no_pins")
    assert second.pins == ()  # the closest entry (dynamic, range-guarded) pins nothing
    assert suggest_dynamic(c) == ()


# -- the recompile limit -------------------------------------------------------------------------------
def test_the_recompile_limit_falls_back_to_eager_with_one_typed_warning() -> None:
    c = compile(scale, dynamic=False, recompile_limit=2)
    c(a(2))
    c(a(3))
    with pytest.warns(RecompileLimitWarning) as record:
        np.testing.assert_array_equal(c(a(4)), a(4) * 2)
    (w,) = record
    message = str(w.message)
    assert "reached its recompile_limit (2)" in message
    assert "x.size()[0] == 3 failed: got 4" in message
    assert "mark_dynamic(x, 0)" in message and "dynamic_sources='x:0'" in message
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second warning
        c(a(5))
        c(a(3))  # cached entries keep serving
    info = c.cache_info()
    assert (info.compilations, info.eager_calls, info.limit_reached, len(info.entries)) == (2, 2, True, 2)
    assert info.entries[1].hits == 1


def test_reset_forgets_entries_and_observations() -> None:
    c = compile(scale)
    c(a(4))
    c(a(5))
    c.reset()
    assert c.cache_info().entries == () and c.cache_info().compilations == 0
    c(a(6))
    assert pins(c.cache_info().entries[0].guards) == {"x.size()[0]": 6}  # static again: a fresh start


def test_inside_another_trace_the_function_is_inlined() -> None:
    inner = compile(scale)
    program = export(lambda x: inner(x) + 1, ((4, 3),))
    ops_used = [n.op for n in program.graph if n.op != "placeholder"]
    assert ops_used == ["mul", "add"]
    assert inner.cache_info().entries == ()


# -- soundness: a cached entry serves only inputs on which tracing decides the same ----------------------
def branchy(x):
    tag = 0
    if x.shape[0] > 4:
        tag += 1
    if x.shape[0] % 2 == 0:
        tag += 2
    if x.shape[-1] == 3:
        tag += 4
    if x.shape[0] >= x.shape[-1]:
        tag += 8
    return tag


@settings(max_examples=25, deadline=None)
@given(
    dynamic=st.sampled_from([None, True, False]),
    shapes=st.lists(st.tuples(st.integers(0, 12), st.integers(1, 6)), min_size=1, max_size=10),
)
def test_every_hit_runs_a_trace_that_decided_like_eager(dynamic, shapes) -> None:
    def backend(program):
        tag = program.outputs  # the int the trace computed: its branch decisions
        return lambda x: tag

    c = compile(branchy, dynamic=dynamic, backend=backend, recompile_limit=64)
    for shape in shapes:
        x = np.zeros(shape)
        assert c(x) == branchy(x), (shape, str(c.cache_info()))


# -- threads -------------------------------------------------------------------------------------------
def test_concurrent_calls_never_run_an_entry_that_rejects_their_inputs() -> None:
    def backend(program):
        guards = program.guards
        return lambda x, n: (guards, x.shape, n)

    c = compile(scale_by, backend=backend, recompile_limit=100)
    errors: list[str] = []
    barrier = threading.Barrier(6)

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        barrier.wait()
        for _ in range(150):
            shape, n = (rng.choice([2, 3, 5, 8]), rng.choice([1, 4])), rng.choice([2, 3])
            guards, seen_shape, seen_n = c(np.zeros(shape), n)
            binding = {src: (shape[src.index] if src.kind == "size" else n) for _, src in guards.sources}
            if seen_shape != shape or seen_n != n or not guards.holds(binding):
                errors.append(f"{shape}, {n}: ran an entry with guards {guards}")

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    info = c.cache_info()
    assert [e.index for e in info.entries] == list(range(len(info.entries)))
    assert info.hits + info.misses == 6 * 150
    assert info.misses == info.compilations  # each miss compiled once: no duplicate traces
    assert info.compilations < 16  # automatic dynamic settles quickly whatever the interleaving


# -- the numpy backend drops in ------------------------------------------------------------------------
def test_the_numpy_backend_runs_programs_the_function_could_not_run_eagerly() -> None:
    from shapeenv.backends import numpy_backend

    def stack_twice(x, y):
        return ops.cat([x, y * 2], 0)  # ops.cat takes fake tensors only: eager numpy would fail

    c = compile(stack_twice, backend=numpy_backend)
    for n in (2, 3, 7):
        x, y = np.arange(2 * n, dtype=np.float32).reshape(n, 2), np.ones((4, 2), np.float32)
        np.testing.assert_array_equal(c(x, y), np.concatenate([x, y * 2]))
    info = c.cache_info()
    assert info.compilations == 2 and info.hits == 1
    assert type(info.entries[0].program).__name__ == "ExportedProgram"


def test_dispatch_hashes_on_pinned_sizes_instead_of_scanning_entries() -> None:
    c = compile(scale, dynamic=False, recompile_limit=40)
    for n in range(2, 34):
        c(a(n, 3))
    ((label, cache),) = c.caches().items()
    assert label == "x: float32[2-d] ndarray"
    assert {s.text() for s in cache.key} == {"x.size()[0]", "x.size()[1]"}
    assert len(cache.candidates({"x": a(20, 3)})) == 1  # one entry's checker runs, not 32
    assert cache.candidates({"x": a(99, 3)}) == ()  # a size no entry pins: no checker runs at all
    c(a(20, 3))
    assert c.cache_info().entries[18].hits == 1


def test_dispatch_hashes_on_pinned_int_inputs_too() -> None:
    c = compile(scale_by, dynamic=False, recompile_limit=40)
    for n in range(10):
        c(a(4), n)
    (cache,) = c.caches().values()
    assert {s.text() for s in cache.key} == {"x.size()[0]", "n"}
    assert [e.artifact.program.inputs[1].meta for e in cache.candidates({"x": a(4), "n": 7})] == ["7"]
    np.testing.assert_array_equal(c(a(4), 7), a(4) * 7)
    assert c.cache_info().entries[7].hits == 1 and c.cache_info().compilations == 10
