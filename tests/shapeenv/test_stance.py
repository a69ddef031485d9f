"""Stances: set_stance as a call, a context manager and a decorator; what each stance does to compiled calls."""

from __future__ import annotations

import contextvars
import threading

import numpy as np
import pytest

from shapeenv.compile import RecompileError, compile
from shapeenv.compile.stance import Stance, current_stance, set_stance


def a(*shape):
    return np.ones(shape, dtype=np.float32)


@pytest.fixture(autouse=True)
def _default_stance():
    token_stance = current_stance()
    yield
    set_stance(token_stance)


class Traced:
    """A function that counts how often it is traced and how often it runs eagerly."""

    __shapeenv_trace_recorder__ = True  # counts traces on purpose: a trace does not undo its writes

    def __init__(self):
        self.traces = 0
        self.eager = 0

    def __call__(self, x):
        if type(x).__name__ == "FakeTensor":
            self.traces += 1
        else:
            self.eager += 1
        return x * 2


# -- the setting itself --------------------------------------------------------------------------------
def test_set_stance_as_a_call_holds_until_changed() -> None:
    set_stance("force_eager")
    assert current_stance() is Stance.FORCE_EAGER
    set_stance(Stance.DEFAULT)
    assert current_stance() is Stance.DEFAULT


def test_set_stance_as_a_context_manager_restores_on_exit_even_on_error() -> None:
    with set_stance("fail_on_recompile"):
        assert current_stance() is Stance.FAIL_ON_RECOMPILE
        with set_stance("force_eager"):
            assert current_stance() is Stance.FORCE_EAGER
        assert current_stance() is Stance.FAIL_ON_RECOMPILE
    assert current_stance() is Stance.DEFAULT
    with pytest.raises(KeyError):
        with set_stance("force_eager"):
            raise KeyError("boom")
    assert current_stance() is Stance.DEFAULT


def test_set_stance_as_a_decorator_holds_only_during_the_call() -> None:
    @set_stance("eager_on_recompile")
    def inside():
        return current_stance()

    assert current_stance() is Stance.DEFAULT  # decorating did not change it
    assert inside() is Stance.EAGER_ON_RECOMPILE
    assert current_stance() is Stance.DEFAULT
    assert inside.__name__ == "inside"


def test_unknown_stances_are_rejected_with_the_list() -> None:
    with pytest.raises(ValueError, match="unknown stance 'aot_eager_then_compile'; the stances are 'default', 'force_eager'"):
        set_stance("aot_eager_then_compile")
    with pytest.raises(TypeError):
        set_stance("force_eager")(42)
    assert current_stance() is Stance.DEFAULT


def test_the_stance_is_per_thread_and_copy_context_carries_it() -> None:
    seen = {}
    set_stance("force_eager")

    def look(label):
        seen[label] = current_stance()

    t = threading.Thread(target=look, args=("fresh thread",))
    t.start()
    t.join()
    ctx = contextvars.copy_context()
    t = threading.Thread(target=ctx.run, args=(look, "copied context"))
    t.start()
    t.join()
    assert seen == {"fresh thread": Stance.DEFAULT, "copied context": Stance.FORCE_EAGER}


# -- what the stances do -------------------------------------------------------------------------------
def test_force_eager_never_compiles_nor_looks_up() -> None:
    fn = Traced()
    c = compile(fn)
    c(a(4))
    with set_stance("force_eager"):
        for n in (4, 5, 6):
            np.testing.assert_array_equal(c(a(n)), a(n) * 2)
    info = c.cache_info()
    assert (fn.traces, info.compilations, info.hits, info.misses) == (1, 1, 0, 1)
    assert fn.eager == 4


def test_eager_on_recompile_uses_entries_but_never_recompiles() -> None:
    fn = Traced()
    c = compile(fn)
    with set_stance("eager_on_recompile"):
        c(a(4))  # the first compilation is allowed
        c(a(4))
        np.testing.assert_array_equal(c(a(5)), a(5) * 2)
        c(a(6))
    info = c.cache_info()
    assert (fn.traces, info.compilations, info.hits, info.eager_calls) == (1, 1, 1, 2)
    c(a(5))  # back to default: now it recompiles, with automatic dynamic
    assert c.cache_info().compilations == 2


def test_fail_on_recompile_raises_the_reason() -> None:
    c = compile(Traced())
    with set_stance("fail_on_recompile"):
        c(a(4))  # the first compilation is allowed
        c(a(4))
        with pytest.raises(RecompileError, match=r"would recompile under the stance 'fail_on_recompile': x.size\(\)\[0\] == 4 failed: got 5") as info:
            c(a(5))
    assert info.value.reason == "x.size()[0] == 4 failed: got 5" and info.value.function == "Traced"
    assert isinstance(info.value, RuntimeError)
    assert c.cache_info().compilations == 1


@pytest.mark.parametrize(
    "calls, compilations, dynamic",
    [
        ([(8, 3), (9, 3), (10, 3)], 1, "x.size()[0] (automatic dynamic: 8 -> 9)"),
        ([(8, 3), (8, 3), (9, 3)], 2, "x.size()[0] (automatic dynamic: 8 -> 9)"),  # equal first calls: static first
        ([(8, 3), (9, 4), (10, 5)], 1, "x.size()[0] (automatic dynamic: 8 -> 9), x.size()[1] (automatic dynamic: 3 -> 4)"),
    ],
)
def test_eager_then_compile_infers_dynamism_from_the_first_two_calls(calls, compilations, dynamic) -> None:
    fn = Traced()
    c = compile(fn)
    with set_stance("eager_then_compile"):
        for shape in calls:
            np.testing.assert_array_equal(c(a(*shape)), a(*shape) * 2)
    info = c.cache_info()
    assert fn.eager >= 1 and info.eager_calls == 1
    assert info.compilations == compilations
    assert info.entries[-1].dynamic == dynamic


def test_a_stance_decorating_a_compiled_function() -> None:
    c = compile(Traced())
    eager = set_stance("force_eager")(c)
    eager(a(4))
    assert c.cache_info().compilations == 0
    c(a(4))
    assert c.cache_info().compilations == 1


def test_force_eager_with_shape_specs_still_returns_shapes_without_caching() -> None:
    c = compile(Traced())
    with set_stance("force_eager"):
        assert c((4, 3)) == (4, 3)
    assert c.cache_info().entries == ()
