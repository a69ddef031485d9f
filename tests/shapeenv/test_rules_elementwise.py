"""Comparisons, where, unary math, pow, in-place ops and the tensor dunders that reach them."""

from __future__ import annotations

import pytest

from shapeenv import ShapeEnv, ShapeError, ops


def _xy(x_shape=(4, 3), y_shape=(3,), x_dtype="float32", y_dtype="float32"):
    env = ShapeEnv()
    return env, env.fake_tensor(x_shape, x_dtype, name="x"), env.fake_tensor(y_shape, y_dtype, name="y")


@pytest.mark.parametrize(
    "fn,shape,dtype",
    [
        (lambda x, y: x == y, "(s0, s1)", "bool"),
        (lambda x, y: x != 1, "(s0, s1)", "bool"),
        (lambda x, y: 0.5 < x, "(s0, s1)", "bool"),
        (lambda x, y: ops.where(x > 0, x, y), "(s0, s1)", "float32"),
        (lambda x, y: ops.where(y > 0, 1, 0), "(s1,)", "int64"),
        (lambda x, y: ops.where(y > 0, 1.0, 0), "(s1,)", "float32"),
        (lambda x, y: x.long().exp(), "(s0, s1)", "float32"),
        (lambda x, y: x.long().relu(), "(s0, s1)", "int64"),
        (lambda x, y: abs(x.int()), "(s0, s1)", "int32"),
        (lambda x, y: x.long() ** 2, "(s0, s1)", "int64"),
        (lambda x, y: x.long() ** 0.5, "(s0, s1)", "float32"),
        (lambda x, y: 2 ** y, "(s1,)", "float32"),
        (lambda x, y: ops.maximum(x, y.double()), "(s0, s1)", "float64"),
        (lambda x, y: x.to(y), "(s0, s1)", "float32"),
    ],
)
def test_shapes_and_dtypes(fn, shape, dtype) -> None:
    env, x, y = _xy()
    out = fn(x, y)
    assert (str(out.shape), out.dtype.name) == (shape, dtype)
    assert env.guards == []


def test_in_place_ops_bump_the_version_and_keep_identity() -> None:
    env, x, y = _xy()
    view = x.t()
    z = x
    z += y
    z *= 2
    assert z is x and x.version == 2 and view.version == 2
    assert x.sub_(y).div_(y).zero_().fill_(1.0).copy_(y).relu_() is x and x.version == 8


@pytest.mark.parametrize(
    "fn,match",
    [
        (lambda x, y: y.add_(x), r"add_: output with shape \[s1\] doesn't match the broadcast shape \[s0, s1\]"),
        (lambda x, y: x.long().mul_(y), "mul_: result type float32 can't be cast to the desired output type int64"),
        (lambda x, y: x.long().div_(2), "div_: result type float32 can't be cast to the desired output type int64"),
        (lambda x, y: ops.where(x, x, y), "where: expected the condition to be a bool tensor, got float32"),
        (lambda x, y: (x > 0).relu(), "relu: bool inputs are not supported"),
        (lambda x, y: x.long() ** -1, "pow: integers to negative integer powers are not allowed"),
        (lambda x, y: ops.maximum(x, 1), "maximum: expected two tensors"),
        (lambda x, y: x.fill_(y), r"fill_: only supports a 0-dimension value tensor, got shape \[s1\]"),
        (lambda x, y: x.to("complex64"), "to: unknown dtype"),
    ],
)
def test_errors_name_the_op_arguments_and_condition(fn, match) -> None:
    env, x, y = _xy()
    with pytest.raises(ShapeError, match=match):
        fn(x, y)


def test_tensors_hash_by_identity_and_are_not_truthy() -> None:
    env, x, y = _xy()
    seen = {x: "x", y: "y"}
    assert seen[x] == "x" and x in [x] and len({x, y, x}) == 2
    assert (x == None) is False and (x != "a") is True  # noqa: E711  (not elementwise: Python's identity fallback)
    with pytest.raises(ShapeError, match="bool\\(\\) of a fake tensor .* depends on its data"):
        bool(x == y)
    with pytest.raises(ShapeError):
        y in [x]  # noqa: B015  (`in` compares elementwise, as in torch, and the result has no truth value)


def test_iterating_unbinds_the_first_dim() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((3, 2), name="x")
    rows = list(x)
    assert len(rows) == 3 and all(str(r.shape) == "(s1,)" for r in rows)
    assert [str(g.expr) for g in env.guards] == ["Eq(s0, 3)"]  # the number of rows is specialised
