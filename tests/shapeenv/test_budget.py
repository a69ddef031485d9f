"""The guard budget: recompile and guard limits per source and per function, their fallbacks, and soundness."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guards import Source
from shapeenv import compile
from shapeenv.backends import numpy_backend
from shapeenv.compile import GuardBudget
from shapeenv.compile.budget import guards_per_source

X0 = Source.size("x", 0)


def double(x):
    return x * 2


def picky(x):
    """Four guards on the batch size when it is dynamic (divisibility and comparisons)."""
    n = x.shape[0]
    y = x * 2 if n % 2 == 0 else x + 1
    y = y * 3 if n % 3 == 0 else y - 1
    y = y + 5 if n > 10 else y * 5
    return y * 7 if n < 100 else y


def test_a_source_that_keeps_recompiling_falls_back_to_dynamic_with_its_observed_range() -> None:
    f = compile(double, dynamic=False, budget=GuardBudget(max_recompiles_per_source=2))
    for n in (4, 5, 6, 7, 8, 50):
        np.testing.assert_array_equal(f(np.ones(n)), np.full(n, 2.0))
    info = f.cache_info()
    assert info.compilations == 4  # 4, 5, 6 static; 7 is the third recompile caused by x.size()[0]: dynamic
    (fb,) = info.fallbacks
    assert (fb.source, fb.to, fb.limit, fb.observed) == (X0, "dynamic", "max_recompiles_per_source", (4, 7))
    assert "caused 3 recompiles, more than 2" in fb.reason and "observed 4..7" in fb.reason
    assert "guard budget" in info.entries[-1].dynamic and info.entries[-1].hits == 2
    assert "1 budget fallbacks" in info.summary()


def test_without_a_budget_the_same_calls_recompile_every_time() -> None:
    f = compile(double, dynamic=False)
    for n in (4, 5, 6, 7, 8):
        f(np.ones(n))
    assert f.cache_info().compilations == 5 and f.cache_info().fallbacks == ()


def test_the_function_recompile_limit_makes_every_charged_source_dynamic() -> None:
    def add(x, y):
        return x + y[0]

    f = compile(add, dynamic=False, budget=GuardBudget(max_recompiles=2))
    for n, m in ((4, 3), (5, 3), (5, 4), (6, 5), (9, 9)):
        np.testing.assert_array_equal(f(np.ones(n), np.ones(m)), np.full(n, 2.0))
    info = f.cache_info()
    assert {fb.source.text() for fb in info.fallbacks} == {"x.size()[0]", "y.size()[0]"}
    assert all(fb.limit == "max_recompiles" for fb in info.fallbacks)
    assert info.compilations == 4 and info.entries[-1].hits == 1


def test_a_source_with_too_many_guards_is_traced_static() -> None:
    f = compile(picky, dynamic=True, budget=GuardBudget(max_guards_per_source=2))
    x = np.arange(12.0)
    np.testing.assert_array_equal(f(x), picky(x))
    info = f.cache_info()
    (fb,) = info.fallbacks
    assert (fb.source, fb.to, fb.limit) == (X0, "static", "max_guards_per_source")
    assert info.entries[0].guards.to_text("source").splitlines() == ["x.size()[0] == 12", "x.stride()[0] == 1"]
    for n in (13, 14):  # static from now on: each size its own entry, each within budget
        np.testing.assert_array_equal(f(np.arange(float(n))), picky(np.arange(float(n))))
    assert all(guards_per_source(e.guards, [X0])[X0] <= 2 for e in f.cache_info().entries)


def test_unbudgeted_the_dynamic_entry_has_the_guards_the_budget_refuses() -> None:
    f = compile(picky, dynamic=True)
    f(np.arange(12.0))
    assert guards_per_source(f.cache_info().entries[0].guards, [X0])[X0] > 2


def test_a_guard_limit_per_entry_makes_the_most_guarded_source_static() -> None:
    def two(x, y):
        return picky(x), y * 2

    f = compile(two, dynamic=True, budget=GuardBudget(max_guards=4))
    out = f(np.arange(12.0), np.ones(3))
    np.testing.assert_array_equal(out[0], picky(np.arange(12.0)))
    info = f.cache_info()
    assert [(fb.source.text(), fb.to, fb.limit) for fb in info.fallbacks] == [("x.size()[0]", "static", "max_guards")]
    assert len(info.entries[0].guards) <= 4


def test_explicit_choices_beat_the_budget() -> None:
    f = compile(double, dynamic=False, static_sources="x", budget=GuardBudget(max_recompiles_per_source=1))
    for n in (4, 5, 6, 7):
        f(np.ones(n))
    info = f.cache_info()
    assert info.compilations == 4 and info.fallbacks == ()


@pytest.mark.parametrize("bad", [{"max_guards": -1}, {"max_recompiles": 1.5}, {"max_guards_per_source": True}])
def test_bad_limits_are_errors(bad) -> None:
    with pytest.raises(ValueError, match="must be None"):
        GuardBudget(**bad)
    with pytest.raises(TypeError, match="GuardBudget"):
        compile(double, budget={"max_guards": 1})


@pytest.mark.filterwarnings("ignore::shapeenv.compile.RecompileLimitWarning")
@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=12),
       st.sampled_from([GuardBudget(max_recompiles_per_source=1), GuardBudget(max_guards_per_source=1),
                        GuardBudget(max_guards=2, max_recompiles=2)]),
       st.sampled_from([None, True, False]))
def test_budgeted_functions_compute_what_the_function_computes(sizes, budget, dynamic) -> None:
    f = compile(picky, dynamic=dynamic, budget=budget, backend=numpy_backend)
    for n in sizes:
        x = np.arange(float(n), dtype=np.float32)
        np.testing.assert_array_equal(f(x), picky(x))
    for e in f.cache_info().entries:  # every installed entry respects the guard limits
        if budget.max_guards_per_source is not None:
            assert guards_per_source(e.guards, [X0])[X0] <= max(budget.max_guards_per_source, 1)
