"""matmul / mm / bmm / linear: torch's 1-d and batched rules, the inner-size equality, error messages."""

from __future__ import annotations

import pytest

from shapeenv import ShapeEnv, ShapeError, ops


@pytest.mark.parametrize(
    "a,b,expected",
    [
        ((3,), (3,), "()"),
        ((2, 3), (3,), "(s0,)"),
        ((3,), (3, 5), "(s1,)"),
        ((2, 3), (3, 5), "(s0, s2)"),
        ((7, 2, 3), (3, 5), "(s0, s1, s3)"),
        ((3,), (4, 3, 5), "(s1, s2)"),
        ((4, 2, 3), (3,), "(s0, s1)"),
        ((2, 1, 2, 3), (5, 3, 5), "(s0, s2, s0, s2)"),
    ],
)
def test_matmul_shapes_without_guards(a, b, expected) -> None:
    env = ShapeEnv()
    x, y = env.fake_tensor(a, name="a"), env.fake_tensor(b, name="b")
    assert str((x @ y).shape) == expected
    assert env.guards == []


def test_inner_sizes_with_distinct_symbols_are_unified_by_one_guard() -> None:
    env = ShapeEnv(duck_shape=False)
    x, y = env.fake_tensor((2, 3), name="a"), env.fake_tensor((3, 5), name="b")
    out = x @ y
    assert [str(g.expr) for g in env.guards] == ["Eq(s1, s2)"]
    out2 = ops.linear(x, y.t())  # weight (s3, s2) with s2 already replaced by s1: nothing new to decide
    assert str(out2.shape) == str(out.shape) == "(s0, s3)" and len(env.guards) == 1


def test_unbacked_inner_size_is_asserted() -> None:
    env = ShapeEnv()
    u, v = env.create_unbacked_symint(size_like=True), env.create_unbacked_symint(size_like=True)
    out = ops.zeros(2, u, env=env) @ ops.zeros(v, 3, env=env)
    assert out.shape == (2, 3) and env.guards == [] and len(env.runtime_asserts) == 1


@pytest.mark.parametrize(
    "fn,match",
    [
        (lambda e: ops.matmul(e((2, 3)), e((4, 5))), r"matmul: shapes \[2, 3\] and \[4, 5\] cannot be multiplied \(the inner sizes 3 and 4 differ\)"),
        (lambda e: ops.matmul(e(()), e((3,))), "matmul: both arguments need to be at least 1D, but they are 0D and 1D"),
        (lambda e: ops.matmul(e((2, 3)), e((3, 2), "int64")), "matmul: expected both arguments to have the same dtype"),
        (lambda e: ops.matmul(e((7, 2, 3)), e((5, 3, 5))), "matmul: sizes 7 and 5 cannot be broadcast together at dimension -1"),
        (lambda e: ops.mm(e((2, 3)), e((3,))), r"mm: both arguments must be matrices, got shapes \[2, 3\] and \[3\]"),
        (lambda e: ops.bmm(e((4, 2, 3)), e((5, 3, 5))), "bmm: batch sizes must be equal"),
        (lambda e: ops.linear(e((5, 3)), e((1, 3)), e((4,))), r"linear: bias of shape \[4\] does not broadcast to the output \[5, 1\]"),
        (lambda e: ops.linear(e((5, 3)), e((2, 2, 3))), "linear: weight must be 1-D or 2-D"),
    ],
)
def test_errors_name_the_op_arguments_and_condition(fn, match) -> None:
    env = ShapeEnv()
    with pytest.raises(ShapeError, match=match):
        fn(lambda shape, dtype="float32": env.fake_tensor(shape, dtype, dynamic=False, name=f"t{len(env.specialized)}"))
