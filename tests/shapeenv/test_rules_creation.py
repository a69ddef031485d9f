"""zeros/ones/full/arange/*_like: symbolic sizes, default dtypes, arange lengths and the env they need."""

from __future__ import annotations

import itertools

import pytest

from guards import Source
from shapeenv import ShapeEnv, ShapeError, ops
from symint import SymInt, evaluate


def test_static_arange_length_is_len_of_range() -> None:
    env = ShapeEnv()
    for start, end, step in itertools.product(range(-5, 6), range(-5, 6), (1, 2, 3, -1, -2, -4)):
        if (step > 0 and end < start) or (step < 0 and end > start):
            with pytest.raises(ShapeError, match="upper bound and larger bound inconsistent with step sign"):
                ops.arange(start, end, step, env=env)
        else:
            assert ops.arange(start, end, step, env=env).shape == (len(range(start, end, step)),), (start, end, step)


@pytest.mark.parametrize("start,step", [(0, 1), (2, 3), (-4, 5), (1, 2)])
def test_symbolic_arange_length_holds_for_every_size(start, step) -> None:
    env = ShapeEnv()
    n = env.create_symint(9, Source.size("x", 0))
    out = ops.arange(start, n + 3, step).shape[0]
    assert env.guards == []  # n + 3 >= start is provable for n >= 2
    for size in range(2, 30):
        value = evaluate(out.node.expr, {n.node.expr: size}) if isinstance(out, SymInt) else out
        assert value == len(range(start, size + 3, step))


def test_arange_needing_a_guard_and_float_arange() -> None:
    env = ShapeEnv()
    n = env.create_symint(9, Source.size("x", 0))
    assert str(ops.arange(5, n).shape) == "(s0 - 5,)" and len(env.guards) == 1  # end >= start, by the hint
    assert ops.arange(0.0, 1.0, 0.25, env=env).shape == (4,) and ops.arange(0.0, 1.0, 0.25, env=env).dtype.name == "float32"
    with pytest.raises(ShapeError, match="symbolic float bounds are not supported"):
        ops.arange(0.5, n)
    with pytest.raises(ShapeError, match="step must be nonzero"):
        ops.arange(0, n, 0)


@pytest.mark.parametrize(
    "make,shape,dtype",
    [
        (lambda env, n: ops.zeros(n, 3), "(s0, 3)", "float32"),
        (lambda env, n: ops.ones((n, n + 1), dtype="int32"), "(s0, s0 + 1)", "int32"),
        (lambda env, n: ops.full((n,), True), "(s0,)", "bool"),
        (lambda env, n: ops.full((2,), 3, env=env), "(2,)", "int64"),
        (lambda env, n: ops.full((n,), 0.5), "(s0,)", "float32"),
        (lambda env, n: ops.empty(n * 2), "(2*s0,)", "float32"),
        (lambda env, n: ops.arange(n), "(s0,)", "int64"),
        (lambda env, n: ops.arange(n, dtype="float64"), "(s0,)", "float64"),
        (lambda env, n: ops.zeros_like(ops.zeros(n, 2, dtype="int8")), "(s0, 2)", "int8"),
        (lambda env, n: ops.full_like(ops.zeros(n), 1, dtype="int64"), "(s0,)", "int64"),
    ],
)
def test_creation_shapes_and_dtypes(make, shape, dtype) -> None:
    env = ShapeEnv()
    n = env.create_symint(5, Source.size("x", 0))
    t = make(env, n)
    assert (str(t.shape), t.dtype.name) == (shape, dtype)


def test_creation_errors() -> None:
    env = ShapeEnv()
    assert ops.zeros(2, 3).env is None  # detached: plain-int sizes outside a trace (tests/shapeenv/rules/test_creation_env.py)
    with pytest.raises(ShapeError, match=r"zeros: trying to create tensor with negative dimension -1: \[2, -1\]"):
        ops.zeros(2, -1, env=env)
    with pytest.raises(ShapeError, match="full: the fill value must be a bool, int or float"):
        ops.full((2,), "x", env=env)
    with pytest.raises(ShapeError, match="zeros: unknown dtype"):
        ops.zeros(2, dtype="complex", env=env)


def test_like_ops_keep_a_dense_permuted_layout() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((2, 3, 4), name="x").permute(2, 0, 1)
    y = ops.empty_like(x)
    assert y.stride() == x.stride() and not y.is_view_of(x)
    narrow = ops.zeros_like(x[:, :1])  # still dense (the size-1 dim does not count): its strides are kept, as in torch
    assert narrow.stride() == x[:, :1].stride() and not narrow.is_contiguous()
