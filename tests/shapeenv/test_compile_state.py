"""``shapeenv.export.export`` and ``shapeenv.compile`` over plain Python leave the program's state as they found it.

A traced function that writes a global, a closure variable, a list it closes over or an
attribute of an argument object has those writes undone when the trace ends (returns or
raises), with a :class:`~shapeenv.errors.TraceStateWarning` naming each one. A compiled call
then runs the function itself on the real inputs, so its writes happen once per call, with
real values (as torch's compiled code replays side effects).
"""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

from shapeenv import Dim, compile, export
from shapeenv.errors import TraceStateWarning
from shapeenv.export.state import MAX_OBJECTS, StateSnapshot, is_traced
from symint import SymInt

#: written by ``count_calls`` (``global``)
CALLS = 0
#: the last batch size ``remember_batch`` saw (``global``)
LAST_BATCH = None
#: ``log_shape`` appends to it
LOG: list = []


def count_calls(x):
    global CALLS
    CALLS += 1
    return x * CALLS


def remember_batch(x):
    global LAST_BATCH
    LAST_BATCH = x.shape[0]
    return x + 1


def log_shape(x):
    LOG.append(x.shape[0])
    return x * 2


@pytest.fixture(autouse=True)
def _fresh_globals():
    global CALLS, LAST_BATCH
    CALLS, LAST_BATCH = 0, None
    LOG.clear()
    yield
    CALLS, LAST_BATCH = 0, None
    LOG.clear()


def _writes(caught) -> list[str]:
    return [w.path for c in caught if issubclass(c.category, TraceStateWarning) for w in c.message.writes]




def test_export_undoes_a_global_written_with_the_global_statement() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export(remember_batch, (np.ones((3, 2)),), dynamic_shapes={"x": {0: Dim("b")}})
    assert LAST_BATCH is None  # not the SymInt s0 of the trace
    assert _writes(caught) == [f"{__name__}.LAST_BATCH"]
    (write,) = caught[0].message.writes
    assert write.traced and write.what == "assigned" and "SymInt" in write.value
    assert caught[0].filename == __file__


def test_compile_runs_a_global_write_once_per_call_with_real_values() -> None:
    f = compile(count_calls)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(np.ones(3))
    assert CALLS == 1  # the real call's increment; the trace's was undone
    np.testing.assert_array_equal(out, np.ones(3))
    assert _writes(caught) == [f"{__name__}.CALLS"]
    np.testing.assert_array_equal(f(np.ones(3)), 2 * np.ones(3))  # a cache hit runs it again: no trace, no warning
    assert CALLS == 2


def test_compile_with_a_dynamic_dim_leaves_no_symint_in_a_global_list() -> None:
    f = compile(log_shape, dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f(np.ones(3))
        f(np.ones(5))
    assert LOG == [3, 5] and not any(isinstance(v, SymInt) for v in LOG)
    assert _writes(caught) == [f"{__name__}.LOG[0]"]  # one trace (dynamic=True), one write undone


def test_closure_variables_and_lists_are_restored() -> None:
    seen = []
    last = None

    def f(x):
        nonlocal last
        last = x
        seen.append(x.shape[0])
        return x + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export(f, (np.ones((4, 2)),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    assert last is None and seen == []
    assert sorted(_writes(caught)) == ["f.<closure>.last", "f.<closure>.seen[0]"]

    g = compile(f)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        g(np.ones((4, 2)))
    assert seen == [4] and last is not None and not is_traced(last)  # the real call's writes (an EagerTensor)


class Counter:
    def __init__(self):
        self.calls = 0
        self.sizes: dict = {}


def test_an_argument_objects_attributes_are_restored() -> None:
    def f(x, state):
        state.calls += 1
        state.sizes["n"] = x.shape[0]
        state.extra = x
        return x * 2

    state = Counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export(f, (np.ones((3, 2)), state), dynamic_shapes={"x": {0: Dim("n")}, "state": None})
    assert (state.calls, state.sizes, hasattr(state, "extra")) == (0, {}, False)
    assert _writes(caught) == ["state.calls", "state.extra", "state.sizes['n']"]

    g = compile(f)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        g(np.ones((3, 2)), state)
    assert state.calls == 1 and state.sizes == {"n": 3} and not is_traced(state.extra)


def test_a_failed_trace_restores_and_notes_the_writes() -> None:
    def f(x):
        global LAST_BATCH
        LAST_BATCH = x.shape[0]
        LOG.append(x)
        raise ValueError("fails inside the trace")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="fails inside the trace") as info:
            export(f, (np.ones(3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    assert LAST_BATCH is None and LOG == []
    assert _writes(caught) == [f"{__name__}.LAST_BATCH", f"{__name__}.LOG[0]"]
    assert any("undone" in note and "LAST_BATCH" in note for note in info.value.__notes__)


def test_warnings_as_errors_do_not_hide_the_traces_own_error() -> None:
    def f(x):
        LOG.append(x)
        raise KeyError("the real error")

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(KeyError, match="the real error"):
            export(f, (np.ones(3),))
    assert LOG == []


def test_a_helper_of_the_same_module_writing_a_global_is_covered() -> None:
    def f(x):
        return remember_batch(x) * 2

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export(f, (np.ones((3, 2)),), dynamic_shapes={"x": {0: Dim("b")}})
    assert LAST_BATCH is None
    assert _writes(caught) == [f"{__name__}.LAST_BATCH"]


def test_a_function_without_writes_warns_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        export(lambda x: x * 2 + 1, (np.ones((3, 2)),), dynamic_shapes={"x": {0: Dim("b")}})


class Registry:
    def __init__(self):
        self.items: list = []
        self.inner = Counter()


#: an object held by a global: its __dict__ and containers are recorded; the objects it holds are only scanned
REGISTRY = Registry()


def test_an_object_held_by_a_global_is_restored_and_deeper_traced_values_are_reported() -> None:
    def f(x):
        REGISTRY.items.append(x.shape[0])
        REGISTRY.last = x
        REGISTRY.inner.sizes["n"] = x  # beyond what the snapshot records: found by the scan, not restored
        return x * 2

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        export(f, (np.ones(3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    assert REGISTRY.items == [] and not hasattr(REGISTRY, "last")
    writes = [w for c in caught for w in c.message.writes]
    assert [(w.path, w.what, w.restored) for w in writes] == [
        (f"{__name__}.REGISTRY.last", "added", True),
        (f"{__name__}.REGISTRY.items[0]", "added", True),
        (f"{__name__}.REGISTRY.inner.sizes['n']", "left", False),
    ]
    assert "could not be restored" in str(caught[0].message)
    assert is_traced(REGISTRY.inner.sizes.pop("n"))


# -- the snapshot itself ------------------------------------------------------------------------------
class Slotted:
    __slots__ = ("value",)

    def __init__(self):
        self.value = 1


def test_the_snapshot_restores_each_kind_of_container() -> None:
    from collections import OrderedDict, deque

    slotted = Slotted()
    state = {"d": OrderedDict(a=1, b=2), "l": [1, 2], "s": {1, 2}, "q": deque([1]), "t": ([0],), "o": slotted}
    snap = StateSnapshot.take([("state", state)])
    state["d"]["c"] = 3
    del state["d"]["a"]
    state["l"].append(3)
    state["s"].add(3)
    state["q"].appendleft(0)
    state["t"][0][0] = 9
    slotted.value = 2
    state["new"] = 1
    writes = snap.restore()
    assert state == {"d": OrderedDict(a=1, b=2), "l": [1, 2], "s": {1, 2}, "q": deque([1]), "t": ([0],), "o": slotted}
    assert list(state["d"]) == ["a", "b"] and slotted.value == 1
    assert [(w.path, w.what) for w in writes] == [
        ("state['new']", "added"), ("state['d']['c']", "added"), ("state['d']['a']", "removed"),
        ("state['l'][2]", "added"), ("state['s']", "changed"), ("state['q'][0]", "assigned"), ("state['q'][1]", "added"),
        ("state['t'][0][0]", "assigned"), ("state['o'].value", "assigned"),
    ]


def test_the_snapshot_is_bounded() -> None:
    big = [[i] for i in range(MAX_OBJECTS + 10)]
    snap = StateSnapshot.take([("big", big)])
    assert snap.truncated


def test_is_traced_knows_the_values_of_a_trace() -> None:
    from shapeenv import ShapeEnv
    from guards import Source

    env = ShapeEnv()
    s = env.create_symint(5, Source.size("x", 0))
    assert is_traced(s) and is_traced(s > 2) and is_traced(env.fake_tensor((2,), name="y"))
    assert not any(is_traced(v) for v in (3, "x", np.ones(2), None, [s]))


class _Instantiating(collections.OrderedDict):
    """Like transformers' ACT2FN: reading an item builds an object from the stored class."""

    def __getitem__(self, key):
        return super().__getitem__(key)()


class _Scale:
    def __call__(self, x):
        return x * 2


FACTORIES = _Instantiating(scale=_Scale)


def _uses_factory(x):
    return FACTORIES["scale"](x)


def test_a_mapping_that_builds_on_read_is_left_as_stored() -> None:
    # Found by the real-model suite: the snapshot copied such a dict through its __getitem__ (instances,
    # not classes) and the restore wrote the instances back, breaking every later model build.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        export(_uses_factory, (np.ones((3, 2)),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
        compile(_uses_factory)(np.ones(4))
    assert dict.__getitem__(FACTORIES, "scale") is _Scale
    assert isinstance(FACTORIES["scale"], _Scale)
