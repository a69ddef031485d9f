"""The stored form of traced programs: every kind of program reads back as one that prints and runs the same."""

from __future__ import annotations

import json

import numpy as np
import pytest

from shapeenv import Dim, TensorSpec, check, export, map, ops, switch
from shapeenv.backends import numpy_backend
from shapeenv.demo import rnn
from shapeenv.program.io import LoadedEnv, ProgramFormatError, dumps_program, loads_program, program_to_json


def _rnn():
    return export(rnn, ((5, 2, 4), (2, 4), (4, 4)), dynamic_shapes={"xs": {0: Dim.DYNAMIC}})


def _slicing():
    def f(x, y):
        z = ops.cat([x, y])
        n = z.shape[0]
        return z[1 : n - 1, ...].reshape(-1), n * 2

    return export(f, ((3, 4), (5, 4)), dynamic_shapes={"x": {0: Dim.DYNAMIC}, "y": {0: Dim.DYNAMIC}})


def _mapped():
    return export(lambda xs, w: map(lambda x, w: (x @ w).relu(), xs, w), ((6, 3, 4), (4, 2)),
                  dynamic_shapes={"xs": {0: Dim.DYNAMIC}})


def _switched():
    return export(lambda i, x: switch(i, [lambda x: x * 2, lambda x: x + 1], (x,)), (TensorSpec((1,), "int64"), (4, 3)),
                  dynamic_shapes={"x": {0: Dim.DYNAMIC}})


def _asserted():
    def f(x, k):
        check(k <= x.shape[0], "k must not exceed the batch")
        return x.transpose(0, 1) * k

    return export(f, ((8, 3), 4), dynamic_shapes={"x": {0: Dim("batch", max=64)}, "k": Dim("k")})


def _unbacked():
    return export(lambda x: ops.nonzero(x).sum(0), ((5, 2),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})


def _branchy():
    def f(x):
        if x.shape[0] % 4 == 0:
            return ops.zeros(x.shape[0] // 4, 2, dtype="int64") + 1
        return x.sum(1)

    return export(f, ((8, 2),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})


PROGRAMS = {"rnn": _rnn, "slicing": _slicing, "map": _mapped, "switch": _switched, "asserts": _asserted,
            "unbacked": _unbacked, "branchy": _branchy}


@pytest.mark.parametrize("name", PROGRAMS)
def test_a_loaded_program_prints_the_same_and_stores_the_same(name) -> None:
    p = PROGRAMS[name]()
    text = dumps_program(p)
    q = loads_program(text)
    assert q.format() == p.format(), name
    assert q.format("source") == p.format("source"), name
    assert dumps_program(q) == text, name  # a stable form: loading and storing again changes nothing
    assert q.guards == p.guards and str(q.output_shapes) == str(p.output_shapes) and q.signature() == p.signature()
    assert isinstance(q.env, LoadedEnv) and len(q.env.guards) == p.recorded_guards


RUNS = [
    # (program, inputs for the numpy backend)
    ("rnn", lambda r: (r.random((7, 2, 4), np.float32), np.zeros((2, 4), np.float32), r.random((4, 4), np.float32))),
    ("slicing", lambda r: (r.random((4, 4), np.float32), r.random((6, 4), np.float32))),
    ("map", lambda r: (r.random((3, 3, 4), np.float32), r.random((4, 2), np.float32))),
    ("switch", lambda r: (np.array([1]), r.random((5, 3), np.float32))),
    ("asserts", lambda r: (r.random((9, 3), np.float32), 5)),
    ("unbacked", lambda r: (np.array([[0, 1], [2, 0], [3, 3]], np.float32),)),
    ("branchy", lambda r: (r.random((12, 2), np.float32),)),
]


@pytest.mark.parametrize("name, inputs", RUNS, ids=[r[0] for r in RUNS])
def test_a_loaded_program_runs_like_the_traced_one(name, inputs) -> None:
    p = PROGRAMS[name]()
    q = loads_program(dumps_program(p))
    args = inputs(np.random.default_rng(0))
    want, got = numpy_backend(p)(*args), numpy_backend(q)(*args)
    flat_want = want if isinstance(want, tuple) else (want,)
    flat_got = got if isinstance(got, tuple) else (got,)
    assert len(flat_want) == len(flat_got)
    for a, b in zip(flat_want, flat_got):
        np.testing.assert_array_equal(a, b)


def test_tensors_sharing_storage_share_it_when_loaded() -> None:
    p = export(lambda x: (x.transpose(0, 1), x[1:]), ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    q = loads_program(dumps_program(p))
    a, b = q.outputs
    assert a.storage is b.storage and a.stride() == (1, 3) and b.storage_offset() == 3


def test_the_loaded_environment_decides_nothing_new() -> None:
    q = loads_program(dumps_program(_slicing()))
    size = q.inputs[0].value.shape[0]
    with pytest.raises(ProgramFormatError, match="cannot be decided on a loaded program"):
        bool(size > 5)


def test_values_without_a_stored_form_are_refused_when_writing() -> None:
    class Opaque:
        pass

    p = export(lambda x: x + 1, ((2, 3),))
    p.graph.nodes[-1].kwargs["weird"] = Opaque()
    with pytest.raises(ProgramFormatError, match="Opaque"):
        program_to_json(p)


@pytest.mark.parametrize("mangle, message", [
    (lambda d: d.update(format="program/v0"), "format"),
    (lambda d: d["graph"]["nodes"][-1].update(args={"t": "node", "v": "nowhere"}), "nowhere"),
    (lambda d: d["graph"]["nodes"][-1].update(value={"t": "symint", "e": "__import__('os')", "h": 1}), "symint|expression|parse|__import__"),
    (lambda d: d.pop("graph"), "malformed"),
])
def test_damaged_stored_programs_are_errors_not_programs(mangle, message) -> None:
    data = json.loads(dumps_program(_slicing()))
    mangle(data)
    with pytest.raises(ProgramFormatError, match=message):
        loads_program(json.dumps(data))


_JUNK = [None, 0, -1, 1.5, "x", "s0", [], {}, {"t": "node"}, {"t": "tensor", "v": 0}, [[[]]], True, "1/0",
         {"t": "symint", "e": "s0"}, 10**40]


def _mutate(data, rng) -> None:
    """Replace or delete one value somewhere inside ``data`` (a random walk down from the top)."""
    cur = data
    for _ in range(rng.randint(1, 8)):
        keys = list(cur) if isinstance(cur, dict) else list(range(len(cur))) if isinstance(cur, list) else []
        if not keys:
            return
        k = rng.choice(keys)
        if rng.random() < 0.3 or not isinstance(cur[k], (dict, list)):
            if isinstance(cur, dict) and rng.random() < 0.2:
                del cur[k]
            else:
                cur[k] = rng.choice(_JUNK)
            return
        cur = cur[k]


def test_randomly_damaged_programs_raise_only_program_format_errors() -> None:
    # Before: 61 of 1,500 such programs raised AttributeError ('list' object has no attribute 'items'),
    # one RecursionError; the documented error is ProgramFormatError, for every malformed input.
    import random

    rng = random.Random(7)
    texts = [dumps_program(f()) for f in PROGRAMS.values()]
    escaped = []
    for _ in range(600):
        data = json.loads(rng.choice(texts))
        for _ in range(rng.randint(1, 3)):
            _mutate(data, rng)
        try:
            loads_program(json.dumps(data))
        except ProgramFormatError:
            pass
        except Exception as e:  # noqa: BLE001 -- the assertion below names it
            escaped.append(repr(e))
    assert escaped == []


def test_a_program_nested_deeper_than_the_stack_is_a_format_error() -> None:
    data = json.loads(dumps_program(_slicing()))
    data["graph"]["nodes"][-1]["args"] = "DEEP"
    for depth in (900, 5000):  # JSON reads the first; the reader's own recursion is what overflows
        text = json.dumps(data).replace('"DEEP"', "[" * depth + "]" * depth)
        with pytest.raises(ProgramFormatError, match="deep|malformed|JSON"):
            loads_program(text)


@pytest.mark.parametrize("name", ["branchy", "asserts"])
def test_stored_provenance_states_the_condition_as_text(name) -> None:
    """A guard's or assert's ``stated`` is the condition's text, which reads back (never a form's repr)."""
    d = program_to_json(PROGRAMS[name]())
    stated = [p["stated"] for p in _provenances(d)]
    assert stated, "the program records a guard or an assert"
    assert all(isinstance(s, str) and s and "Form(" not in s for s in stated), stated
    assert any(("Mod(s0, 4)" in s) or ("s1 <= s0" in s) for s in stated), stated


def _provenances(value):
    if isinstance(value, dict):
        if "stated" in value and "why" in value:
            yield value
        for v in value.values():
            yield from _provenances(v)
    elif isinstance(value, list):
        for v in value:
            yield from _provenances(v)
