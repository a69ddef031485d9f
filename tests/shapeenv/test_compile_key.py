"""The cache never serves a program traced for other reads: globals, closures, defaults, attributes, containers,
aliasing and printed SymInts are part of what an entry checks (``shapeenv.compile.reads``, ``binding``).

Each case is compared with the function run uncached on the same arrays; torch.compile is right in all of them.
"""

from __future__ import annotations

import threading
import types
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shapeenv.backends import numpy_backend
from shapeenv.compile import UnguardedReadWarning, compile
from shapeenv.compile.reads import Reads

SCALE = 2
FACTOR = 3
config = types.ModuleType("config")
config.SCALE = 2


def a(n: int = 3, value: float = 1.0) -> np.ndarray:
    return np.full(n, value, dtype=np.float32)


def same(got, want) -> None:
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


# -- 1. module globals, in the function and in the functions it calls, and module attributes ------------
def scaled(x):
    return x * SCALE


def helper(x):
    return x * FACTOR


def calls_helper(x):
    return helper(x) + 1


def reads_config(x):
    return x * config.SCALE


def test_a_changed_global_is_not_served_the_old_program() -> None:
    global SCALE
    f = compile(scaled, backend=numpy_backend)
    try:
        same(f(a()), a() * 2)
        SCALE = 3
        same(f(a()), a() * 3)
        assert f.recompile_reasons()[-1].text == "global SCALE == 2 failed: got 3"
        SCALE = 2
        same(f(a()), a() * 2)  # the first entry serves again
        assert f.cache_info().compilations == 2
    finally:
        SCALE = 2


def test_globals_of_called_functions_and_module_attributes_are_read() -> None:
    global FACTOR
    f, g = compile(calls_helper, backend=numpy_backend), compile(reads_config, backend=numpy_backend)
    try:
        same(f(a()), a() * 3 + 1)
        same(g(a()), a() * 2)
        FACTOR, config.SCALE = 5, 7
        same(f(a()), a() * 5 + 1)
        same(g(a()), a() * 7)
        assert f.recompile_reasons()[-1].text == "global FACTOR == 3 failed: got 5"
        assert g.recompile_reasons()[-1].text == "global config.SCALE == 2 failed: got 7"
    finally:
        FACTOR, config.SCALE = 3, 2


# -- 2. closure cells --------------------------------------------------------------------------------
def test_a_changed_closure_cell_is_not_served_the_old_program() -> None:
    k = 2

    def g(x):
        return x * k

    f = compile(g, backend=numpy_backend)
    same(f(a()), a() * 2)
    k = 5
    same(f(a()), a() * 5)
    assert "closure cell k" in f.recompile_reasons()[-1].text and "got 5" in f.recompile_reasons()[-1].text


def make_scaler(k):
    def scale(x):
        return x * k

    def set_k(v):
        nonlocal k
        k = v

    return scale, set_k


scaler, set_scaler = make_scaler(2)


def test_a_closure_cell_of_a_called_function_is_read() -> None:
    f = compile(lambda x: scaler(x) + 1, backend=numpy_backend)
    same(f(a()), a() * 2 + 1)
    set_scaler(6)
    try:
        same(f(a()), a() * 6 + 1)
        assert "closure cell k of make_scaler.<locals>.scale == 2 failed: got 6" in f.recompile_reasons()[-1].text
    finally:
        set_scaler(2)


# -- 3. defaults and keyword defaults ------------------------------------------------------------------
def test_changed_defaults_are_not_served_the_old_program() -> None:
    def h(x, s=2, *, t=1):
        return x * s + t

    f = compile(h, backend=numpy_backend)
    same(f(a()), a() * 2 + 1)
    h.__defaults__ = (4,)
    same(f(a()), a() * 4 + 1)
    assert "__defaults__" in f.recompile_reasons()[-1].text
    h.__kwdefaults__ = {"t": 10}
    same(f(a()), a() * 4 + 10)
    assert "__kwdefaults__" in f.recompile_reasons()[-1].text


# -- 4. attributes of object arguments ------------------------------------------------------------------
class Settings:
    def __init__(self, v):
        self.v = v

    def factor(self):
        return self.v


def test_a_changed_attribute_of_an_object_argument_is_not_served_the_old_program() -> None:
    def k(x, o):
        return x * o.factor()  # read in a method: anywhere in the call tree

    f = compile(k, backend=numpy_backend)
    o = Settings(2)
    same(f(a(), o), a() * 2)
    o.v = 7
    same(f(a(), o), a() * 7)
    assert f.recompile_reasons()[-1].text == "L['o'].v == 2 failed: got 7"


# -- 5. container types, lengths and keys ------------------------------------------------------------
def test_a_list_a_tuple_and_a_dict_of_the_same_arrays_are_three_keys() -> None:
    def pick(xs):
        if isinstance(xs, list):
            return xs[0] + xs[1]
        if isinstance(xs, tuple):
            return xs[0] - xs[1]
        return xs[0] * xs[1]

    f = compile(pick, backend=numpy_backend)
    x, y = a(value=1.0), a(value=3.0)
    same(f([x, y]), x + y)
    same(f((x, y)), x - y)
    same(f({0: x, 1: y}), x * y)
    assert f.cache_info().compilations == 3
    assert "failed: got argument 0 is a tuple" in f.recompile_reasons()[0].text


# -- 6. aliasing ---------------------------------------------------------------------------------------
def test_the_same_array_twice_and_two_arrays_are_two_keys() -> None:
    def al(x, y):
        return x + y if x is y else x - y

    f = compile(al, backend=numpy_backend)
    x, y = a(value=1.0), a(value=3.0)
    same(f(x, x), x + x)
    same(f(x, y), x - y)
    same(f(y, y), y + y)
    assert f.cache_info().compilations == 2
    assert "x is y" in f.recompile_reasons()[0].text


# -- 7. printing a SymInt ------------------------------------------------------------------------------
def test_str_of_a_symbolic_int_specialises_with_a_guard() -> None:
    def s(x, n):
        return x * len(str(n)) + len(repr(n))

    f = compile(s, backend=numpy_backend, dynamic=True)
    same(f(a(), 5), a() * 1 + 1)
    same(f(a(), 123), a() * 3 + 3)
    assert "n == 5 failed: got 123" in f.recompile_reasons()[-1].text


def test_format_of_a_symbolic_int_specialises_and_takes_a_format_spec() -> None:
    f = compile(lambda x, n: x * len(f"{n:>4}|{n:x}"), backend=numpy_backend, dynamic=True)
    same(f(a(), 5), a() * 6)
    same(f(a(), 300), a() * 8)


def test_printing_a_symint_outside_compile_gives_its_expression() -> None:
    from shapeenv import ShapeEnv

    env = ShapeEnv()
    x = env.fake_tensor((4, 3), dynamic={0}, name="x")
    assert str(x.shape[0]) == "s0" and f"{x.shape[0]}" == "s0" and not env.guards


# -- what cannot be checked, and the cost of what can ---------------------------------------------------
OPAQUE = [object()]


def test_a_read_whose_state_cannot_be_seen_is_named_in_a_warning() -> None:
    def f(x):
        return x + len(OPAQUE)

    OPAQUE[0] = types.SimpleNamespace(inner=threading.Lock())  # a C object with no visible state
    with pytest.warns(UnguardedReadWarning, match=r"global OPAQUE\[0\]\.inner") as caught:
        compile(f, backend=numpy_backend)(a())
    assert caught[0].filename == __file__  # at the user's call


def test_code_made_by_exec_for_an_installed_module_is_not_the_users() -> None:
    """Note [Code made by exec] in shapeenv.compile.reads: sympy, imported on first use, makes functions by exec."""
    import sysconfig

    installed = {"__name__": "somepkg.mod", "__file__": sysconfig.get_paths()["purelib"] + "/somepkg/mod.py", "OPAQUE": OPAQUE}
    exec("def helper(x):\n    return x + len(OPAQUE)\n", installed)  # noqa: S102 - a library's generated function
    helper = installed["helper"]

    def f(x):
        return helper(x)

    OPAQUE[0] = types.SimpleNamespace(inner=threading.Lock())  # a C object with no visible state
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnguardedReadWarning)  # the helper's reads are the library's, not probed
        compile(f, backend=numpy_backend)(a())


def test_a_function_that_reads_nothing_gets_no_extra_check() -> None:
    f = compile(lambda x: x + 1, backend=numpy_backend)
    f(a())
    (cache,) = f.caches().values()
    assert cache.entries[0].extra is None


def test_reads_describe_their_checks_in_dynamo_terms() -> None:
    f = compile(reads_config, backend=numpy_backend)
    f(a())
    reads = f._records[0].reads  # noqa: SLF001 - what the entry checks
    assert isinstance(reads, Reads)
    assert "global config: ID_MATCH <module 'config'>" in reads.describe()
    assert "global config.SCALE: EQUALS_MATCH 2" in reads.describe()
    assert f.cache_info().entries[0].reads == tuple(reads.describe())
    assert "  reads:\n    global config: ID_MATCH" in f.cache_info().entries[0].format()


# -- the fuzz: mutate globals, closures, defaults and attributes between calls -----------------------
G = 1
LIMITS = [1, 2]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["global", "cell", "default", "attr", "list", "size", "none"]),
                          st.integers(0, 3)), min_size=1, max_size=12))
def test_fuzz_cached_calls_agree_with_uncached_runs(steps) -> None:
    global G
    cell = 1

    def fn(x, o, d=1):
        base = x * G + cell if G % 2 else x - cell
        return base * d + o.v + len(LIMITS) + LIMITS[-1]

    f = compile(fn, backend=numpy_backend, recompile_limit=1000)
    o = Settings(0)
    saved = (G, list(LIMITS))
    try:
        n = 3
        for what, value in steps:
            if what == "global":
                G = value
            elif what == "cell":
                cell = value
            elif what == "default":
                fn.__defaults__ = (value,)
            elif what == "attr":
                o.v = value
            elif what == "list":
                LIMITS.append(value) if value % 2 else LIMITS.__setitem__(-1, value)
            elif what == "size":
                n = 2 + value
            x = a(n, 1.5)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                same(f(x, o), fn(x, o))
    finally:
        G, LIMITS[:] = saved[0], saved[1]
