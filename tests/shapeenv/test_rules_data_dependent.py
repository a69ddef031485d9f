"""nonzero / masked_select / unique / item / boolean masks: unbacked sizes and what is known about them."""

from __future__ import annotations

import pytest

from shapeenv import GuardOnDataDependentSymNode, ShapeEnv, ShapeError, check, ops
from symint import SymInt


def _x(shape=(4, 3), dtype="float32", **kw):
    env = ShapeEnv()
    return env, env.fake_tensor(shape, dtype, name="x", **kw)


def test_nonzero_count_is_bounded_by_numel() -> None:
    env, x = _x()
    y = ops.nonzero(x)
    u = y.shape[0]
    assert str(y.shape) == "(u0, 2)" and y.dtype.name == "int64" and [str(s) for s in y.stride()] == ["1", "u0"]
    assert env.statically_known_true(u <= x.numel()) and env.statically_known_true(u >= 0)
    assert env.guards == [] and [str(a.expr) for a in env.runtime_asserts] == ["u0 <= s0*s1"]


def test_static_numel_narrows_the_range_and_empty_input_gives_zero() -> None:
    env, x = _x(dynamic=False)
    u = ops.nonzero(x).shape[0]
    assert str(env.bound(u)) == "[0, 12]"
    env, e = _x((0, 3), dynamic=False)
    assert ops.nonzero(e).shape == (0, 2) and env.symbols == {}


def test_branching_on_the_count_needs_a_check() -> None:
    env, x = _x()
    u = ops.masked_select(x, x > 0).shape[0]
    with pytest.raises(GuardOnDataDependentSymNode, match=r"check\(u0 >= 5\)|check\(.*u0"):
        bool(u >= 5)
    check(u >= 5)
    assert bool(u >= 5) and bool(u > 4) and env.guards == []


def test_masked_select_broadcasts_the_mask() -> None:
    env, x = _x()
    m = env.fake_tensor((3,), "bool", name="m")
    y = ops.masked_select(x, m)
    assert str(y.shape) == "(u0,)" and env.statically_known_true(y.shape[0] <= x.numel())
    with pytest.raises(ShapeError, match="masked_select: expected a bool tensor for mask, got float32"):
        ops.masked_select(x, x)


def test_unique_knows_a_non_empty_input_has_a_value() -> None:
    env, x = _x(dtype="int64")
    out, inverse, counts = ops.unique(x, return_inverse=True, return_counts=True)
    u = out.shape[0]
    assert str(env.bound(u)) == "[1, oo]" and env.statically_known_true(u <= x.numel())
    assert inverse.shape == x.shape and counts.shape == (u,) and counts.dtype.name == "int64"
    rows = ops.unique(x, dim=0)
    assert rows.shape[1] == x.shape[1] and env.statically_known_true(rows.shape[0] <= x.shape[0])


def test_boolean_mask_index() -> None:
    env, x = _x((4, 3, 5))
    m = env.fake_tensor((4, 3), "bool", name="m")
    y = x[m]
    assert str(y.shape) == "(u0, s2)" and env.statically_known_true(y.shape[0] <= m.numel())


@pytest.mark.parametrize(
    "dtype,bound",
    [("int64", "[-oo, oo]"), ("int32", "[-oo, oo]"), ("bool", "[0, 1]")],
)
def test_item_of_integer_tensors_is_unbacked(dtype, bound) -> None:
    env = ShapeEnv()
    n = env.fake_tensor((1,), dtype, name="n").item()
    assert isinstance(n, SymInt) and n.node.hint is None and str(env.bound(n)) == bound


def test_item_errors() -> None:
    env, x = _x((1,))
    with pytest.raises(ShapeError, match="item: the value of a float32 tensor is a data-dependent float"):
        x.item()
    env, y = _x((2,), "int64")
    with pytest.raises(ShapeError, match=r"item: a Tensor with s0 elements cannot be converted to Scalar"):
        y.item()


def test_item_can_size_a_tensor_after_a_check() -> None:
    env = ShapeEnv()
    n = env.fake_tensor((), "int64", name="n").item()
    check(n >= 0)
    z = ops.zeros(n, 4, env=env)
    assert str(z.shape) == "(u0, 4)" and str(env.bound(z.numel())) == "[0, oo]"
