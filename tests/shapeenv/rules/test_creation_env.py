"""Creation ops without ``env=``: the trace's environment, eager arrays, or detached tensors adopted later."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from shapeenv import Dim, ShapeEnv, ShapeError, compile, export, ops
from shapeenv.ops.dispatch import activated, current, current_env
from shapeenv.backends import numpy_backend
from shapeenv.backends.eager import EagerTensor, wrap_call
from shapeenv.compile.stance import set_stance


def test_plain_int_sizes_outside_a_trace_make_a_detached_tensor() -> None:
    z = ops.zeros(2, 3)
    assert z.env is None and z.shape == (2, 3) and z.dtype.name == "float32"
    w = z + ops.ones(3, dtype="int64")  # detached with detached: still detached, shapes and dtypes as usual
    assert w.env is None and w.shape == (2, 3) and w.dtype.name == "float32"


def test_a_detached_tensor_is_adopted_by_the_first_environment_it_meets() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 3), name="x")
    b = ops.ones(3)
    y = b + x  # the detached operand comes first: the result still belongs to x's environment
    assert b.env is env and y.env is env and y.shape == x.shape
    # a size broadcast against a plain 3 is decided in x's environment (a guard there)
    assert [str(g.expr) for g in env.guards] == ["Eq(s1, 3)"]


def test_a_symbolic_size_brings_its_environment() -> None:
    env = ShapeEnv()
    n = env.fake_tensor((5,), name="x").shape[0]
    assert ops.zeros(n, 2).env is env and ops.full((2, n), 1.0).env is env


def test_inside_a_trace_plain_sizes_join_the_trace_and_run_on_the_backend() -> None:
    def fn(x):
        bias = ops.ones(x.shape[1]) * 2 + ops.zeros(3) + ops.arange(3)
        return x + bias, ops.zeros(2, 2, dtype="int64")

    program = export(fn, ((4, 3),), dynamic_shapes=({0: Dim.DYNAMIC},))
    ops_in_graph = [node.op for node in program.graph.nodes]
    assert {"ones", "zeros", "arange"} <= set(ops_in_graph)
    out, z = numpy_backend(program)(np.ones((6, 3), np.float32))
    assert out.shape == (6, 3) and np.allclose(out, [3.0, 4.0, 5.0]) and z.dtype == np.int64 and z.shape == (2, 2)


def test_compile_traces_creation_ops_with_plain_sizes() -> None:
    f = compile(lambda x: x + ops.full((x.shape[1],), 0.5), backend=numpy_backend)
    assert np.allclose(f(np.zeros((2, 4), np.float32)), 0.5)
    assert np.allclose(f(np.zeros((3, 4), np.float32)), 0.5)


def test_eager_runs_make_real_arrays() -> None:
    out = wrap_call(lambda x: x + ops.ones(2, 3) * 2, (np.zeros((2, 3), np.float32),), {})
    assert isinstance(out, np.ndarray) and out.tolist() == [[2.0] * 3] * 2


def test_force_eager_stance_runs_creation_ops() -> None:
    f = compile(lambda x: x * ops.ones(x.shape[0], 1), backend=numpy_backend)
    with set_stance("force_eager"):
        assert np.allclose(f(np.full((3, 2), 4.0, np.float32)), 4.0)


def test_a_data_dependent_op_on_a_detached_tensor_says_what_to_do() -> None:
    with pytest.raises(ShapeError, match=r"nonzero: the result has a data-dependent size, which needs a ShapeEnv") as e:
        ops.nonzero(ops.ones(3))
    assert "env=<ShapeEnv>" in e.value.fix


def test_the_active_context_is_per_thread_and_unwinds() -> None:
    env = ShapeEnv()
    seen = []
    with activated(env):
        t = threading.Thread(target=lambda: seen.append(current()))
        t.start()
        t.join()
        assert current_env() is env and ops.zeros(2).env is env
        with activated(EagerTensor):
            assert current_env() is None
    assert seen == [None] and current() is None
