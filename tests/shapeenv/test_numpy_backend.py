"""The numpy backend: a kernel per op, programs run node by node, HOPs loop, typed errors.

Each case of :mod:`tests.shapeenv.backend_cases` is exported at example sizes, run at other sizes,
compared with a direct numpy computation, and its output shapes compared with the program's
symbolic output shapes evaluated at the real sizes.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from shapeenv import CheckFailedError, Dim, check, export, ops
from shapeenv.backends import (
    BackendError,
    InputMismatchError,
    KernelError,
    MissingKernelError,
    ShapeMismatchError,
    missing_kernels,
    numpy_backend,
)
from shapeenv.ops.kernels.numpy import KERNELS
from shapeenv.ops.registry import _RULES, registered
from symint import SymInt
from symint.sympy_io.evaluate import UnboundSymbolError, evaluate
from tests.shapeenv.backend_cases import CASES, OURS, Case, dynamic_shapes, make_inputs
from tests.shapeenv.fuzz_check import symbol_values

D = Dim.DYNAMIC


# -- coverage ----------------------------------------------------------------------------------------
def test_every_registered_op_has_a_kernel() -> None:
    assert missing_kernels(registered()) == []


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_parameters_match_the_shape_rule(name: str) -> None:
    """A node's recorded arguments are the rule's: the kernel must take them by the same names."""
    rule = [(p.name, p.kind) for p in inspect.signature(_RULES[name]).parameters.values()]
    kern = [(p.name, p.kind) for p in inspect.signature(KERNELS[name]).parameters.values() if p.name != "_rng"]
    assert kern == rule, (name, kern, rule)


# -- the case table ------------------------------------------------------------------------------------
def export_case(case: Case):
    example = make_inputs(case.example, seed=1)
    return export(lambda *xs: case.fn(OURS, *xs), tuple(example), dynamic_shapes=dynamic_shapes(case), name="case")


def leaves(value) -> list:
    """Flatten nested tuples, lists and dicts (dicts in insertion order) into arrays and ints."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in leaves(v)]
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in leaves(v)]
    return [value]


def predicted(program, inputs) -> list:
    """The program's output shapes at the inputs' sizes (None for a dim of a data-dependent size)."""
    values = symbol_values(program, inputs)

    def dim(d):
        try:
            return int(evaluate(d.node.expr, values)) if isinstance(d, SymInt) else d
        except UnboundSymbolError:
            return None

    return [tuple(dim(d) for d in shape) if isinstance(shape, tuple) else dim(shape)
            for shape in _shape_leaves(program.output_shapes)]


def _shape_leaves(value) -> list:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _shape_leaves(v)]
    if isinstance(value, list) or (isinstance(value, tuple) and not all(isinstance(d, (int, SymInt)) for d in value)):
        return [leaf for v in value for leaf in _shape_leaves(v)]
    return [value]


def assert_same(got, expected, atol: float, what: str) -> None:
    got, expected = leaves(got), leaves(expected)
    assert len(got) == len(expected), (what, len(got), len(expected))
    for k, (a, b) in enumerate(zip(got, expected)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, (what, k, a.shape, b.shape)
        assert np.allclose(a.astype(np.float64), b.astype(np.float64), atol=atol, rtol=1e-4, equal_nan=True), (what, k, a, b)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_backend_matches_numpy_and_predicted_shapes(case: Case) -> None:
    program = export_case(case)
    inputs = make_inputs(case.run, seed=2)
    out = numpy_backend(program)(*inputs)
    got_shapes = [np.shape(leaf) if isinstance(leaf, np.ndarray) else leaf for leaf in leaves(out)]
    want = predicted(program, inputs)
    assert len(got_shapes) == len(want)
    for got, shape in zip(got_shapes, want):
        if isinstance(shape, tuple):
            assert len(got) == len(shape) and all(s is None or s == g for s, g in zip(shape, got)), (got, shape)
        else:
            assert shape is None or got == shape, (got, shape)
    if case.ref is not None:
        assert_same(out, case.ref(*inputs), case.atol, case.name)


# -- known values of the window ops (their full check is against torch) ---------------------------------
def _run(fn, *arrays, dynamic=None):
    program = export(fn, arrays, dynamic_shapes=dynamic)
    return numpy_backend(program)(*arrays)


def test_max_pool_ceil_mode_and_indices() -> None:
    x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
    values, indices = _run(lambda x: ops.max_pool2d(x, 2, ceil_mode=True, return_indices=True), x)
    assert values[0, 0].tolist() == [[6, 8, 9], [16, 18, 19], [21, 23, 24]]
    assert indices[0, 0].tolist() == [[6, 8, 9], [16, 18, 19], [21, 23, 24]]


def test_avg_pool_divisors() -> None:
    x = np.ones((1, 1, 3, 3), np.float32)
    with_pad = _run(lambda x: ops.avg_pool2d(x, 2, 2, 1), x)
    without = _run(lambda x: ops.avg_pool2d(x, 2, 2, 1, count_include_pad=False), x)
    assert with_pad[0, 0].tolist() == [[0.25, 0.5], [0.5, 1.0]]
    assert without[0, 0].tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_conv2d_with_a_delta_kernel_is_the_input() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 5)).astype(np.float32)
    w = np.zeros((3, 3, 3, 3), np.float32)
    w[[0, 1, 2], [0, 1, 2], 1, 1] = 1.0
    out = _run(lambda x, w: ops.conv2d(x, w, padding=1), x, w, dynamic={"x": {0: D, 2: D, 3: D}})
    assert np.allclose(out, x)


# -- higher-order ops: what the loops do ------------------------------------------------------------------
def test_scan_ys_follow_xs_when_reversed() -> None:
    xs = np.arange(4, dtype=np.float32).reshape(4, 1)

    def f(xs):
        def step(c, x):
            n = c + x
            return n, n.clone()
        return ops.scan(step, ops.zeros_like(xs.sum(0)), xs, reverse=True)

    final, ys = _run(f, xs, dynamic={"xs": {0: D}})
    assert final.tolist() == [6.0] and ys[:, 0].tolist() == [6.0, 6.0, 5.0, 3.0]  # as torch's scan


def test_switch_clamps_and_binds_joined_ints() -> None:
    def f(x, i):
        out, n = ops.switch(i, [lambda t: (t * 2, 2), lambda t: (t + 1, 5)], (x,))
        return out, n * 10

    program = export(f, (np.ones(3, np.float32), np.zeros(1, np.int64)), dynamic_shapes={"x": {0: D}})
    run = numpy_backend(program)
    for index, expected in ((-5, (6.0, 20)), (0, (6.0, 20)), (1, (4.0, 50)), (9, (4.0, 50))):
        out, n = run(np.full(4, 3.0, np.float32), np.array([index]))
        assert (out[0], n) == expected, index


def test_hop_bodies_get_their_captured_inputs() -> None:
    w = np.array([1.0, 2.0, 3.0], np.float32)

    def f(xs, w):
        return ops.map(lambda x: x * w, xs), ops.scan(lambda c, x: (c + x * w, c.clone()), ops.zeros_like(w), xs)[0]

    program = export(f, (np.ones((2, 3), np.float32), w), dynamic_shapes={"xs": {0: D}})
    assert "captured" in program.graph.format()
    mapped, total = numpy_backend(program)(np.ones((5, 3), np.float32), w)
    assert mapped.tolist() == [[1.0, 2.0, 3.0]] * 5 and total.tolist() == [5.0, 10.0, 15.0]


def test_unbacked_sizes_are_bound_from_results() -> None:
    def f(x):
        idx = ops.nonzero(x > 0)
        return idx, idx.shape[0] * 2

    program = export(f, (np.ones((3, 2), np.float32),), dynamic_shapes={"x": {0: D}})
    idx, twice = numpy_backend(program)(np.array([[1, -1], [-1, -1], [2, 3], [0, 5]], np.float32))
    assert idx.tolist() == [[0, 0], [2, 0], [2, 1], [3, 1]] and twice == 8


# -- errors -----------------------------------------------------------------------------------------
@pytest.fixture
def branchy():
    def f(x, k):
        check(k <= x.shape[0], "k must not exceed the batch")
        if x.shape[0] > 4:
            return x * k
        return x + 1
    return export(f, (np.ones((8, 3), np.float32), 2), dynamic_shapes={"x": {0: D}, "k": D})


@pytest.mark.parametrize("args, error, message", [
    ((np.ones((8, 3), np.float32),), InputMismatchError, "takes 2 positional inputs"),
    ((np.ones((8, 3, 1), np.float32), 2), InputMismatchError, "must have 2 dims, got shape (8, 3, 1)"),
    ((np.ones((8, 3), np.float64), 2), InputMismatchError, "must have dtype float32, got float64"),
    (((8, 3), 2), InputMismatchError, "must be an array with data"),
    ((np.ones((8, 4), np.float32), 2), InputMismatchError, "x.size()[1] was specialised to 3"),
    ((np.ones((3, 3), np.float32), 2), InputMismatchError, "x.size()[0] >= 5 failed: got 3"),
    ((np.ones((8, 3), np.float32), 9), CheckFailedError, "k must not exceed the batch"),
])
def test_inputs_are_checked(branchy, args, error, message) -> None:
    with pytest.raises(error) as info:
        numpy_backend(branchy)(*args)
    assert message in str(info.value), str(info.value)


def test_a_missing_kernel_is_named() -> None:
    program = export(lambda x: x + 1, (np.ones(3, np.float32),))
    program.graph.call("fft", (program.graph.inputs[0],), {}, "f32[3]")
    with pytest.raises(MissingKernelError, match="'fft'.*fft_0"):
        numpy_backend(program)


def test_a_tensor_without_data_is_refused() -> None:
    def f(x):
        return x + x.env.fake_tensor((3,), dynamic=False, name="c")  # a tensor that is not an input

    program = export(f, (np.ones(3, np.float32),))
    with pytest.raises(BackendError, match="not inputs"):
        numpy_backend(program)


def test_bfloat16_is_refused_up_front() -> None:
    program = export(lambda x: x.to("bfloat16") * 2, (np.ones(3, np.float32),))
    with pytest.raises(BackendError, match=r"bfloat16 tensors \(to_0, mul_0\)"):
        numpy_backend(program)


def test_guards_disabled_wrong_sizes_are_a_shape_mismatch() -> None:
    program = export(lambda x, y: x + y, (np.ones(3, np.float32), np.ones(3, np.float32)),
                     dynamic_shapes={"x": {0: D}, "y": {0: D}})
    with pytest.raises(InputMismatchError, match="failed"):
        numpy_backend(program)(np.ones(1, np.float32), np.ones(3, np.float32))
    with pytest.raises(ShapeMismatchError, match=r"has shape \(3,\), but the program predicts \[s0\] = 1"):
        numpy_backend(program, check_guards=False)(np.ones(1, np.float32), np.ones(3, np.float32))


def test_kernel_errors_name_the_node() -> None:
    program = export(lambda x, i: ops.index_select(x, 0, i), (np.ones((4, 2), np.float32), np.zeros(3, np.int64)),
                     dynamic_shapes={"x": {0: D}, "i": {0: D}})
    with pytest.raises(KernelError, match=r"index_select_0 = index_select\(array\[4, 2\]:float32, 0, array\[3\]:int64\)"):
        numpy_backend(program)(np.ones((4, 2), np.float32), np.array([0, 1, 7]))


def test_rand_is_seeded() -> None:
    program = export(lambda x: x + ops.rand_like(x), (np.zeros(4, np.float32),), dynamic_shapes={"x": {0: D}})
    a = numpy_backend(program, seed=3)(np.zeros(6, np.float32))
    b = numpy_backend(program, seed=3)(np.zeros(6, np.float32))
    assert a.shape == (6,) and a.dtype == np.float32 and np.array_equal(a, b) and ((a >= 0) & (a < 1)).all()
