"""view / reshape / flatten / unflatten / contiguous: inference of -1, viewability, guards and asserts."""

from __future__ import annotations

import pytest

from shapeenv import ShapeEnv, ShapeError, ops
from shapeenv.ops.rules.views import compute_stride, infer_size


@pytest.mark.parametrize(
    "oldshape,oldstride,newshape,expected",
    [
        ((2, 3), (3, 1), (6,), (1,)),
        ((2, 3), (1, 2), (6,), None),  # a transpose cannot flatten
        ((2, 3), (1, 2), (2, 3), (1, 2)),
        ((4, 3), (1, 4), (2, 2, 3), (2, 1, 4)),  # splitting a dim of a transpose
        ((2, 3, 4), (12, 1, 3), (6, 4), None),
        ((2, 3, 4), (12, 1, 3), (2, 3, 2, 2), (12, 1, 6, 3)),
        ((2, 1, 3), (3, 100, 1), (2, 3), (3, 1)),  # a size-1 dim's stride is irrelevant
        ((6, 1), (1, 6), (6, 1, 1), (1, 6, 6)),  # torch's strides for new size-1 dims
        ((3, 4), (0, 1), (12,), None),  # expanded
        ((3, 4), (0, 1), (3, 2, 2), (0, 2, 1)),
        ((0, 3), (3, 1), (3, 0), (1, 1)),  # empty: strides as if resized
        ((), (), (1, 1), (1, 1)),
    ],
)
def test_compute_stride_matches_torch_table(oldshape, oldstride, newshape, expected) -> None:
    assert compute_stride(oldshape, oldstride, newshape) == expected


@pytest.mark.parametrize(
    "shape,numel,expected",
    [((2, -1), 12, (2, 6)), ((-1,), 7, (7,)), ((3, 4), 12, (3, 4)), ((0, -1), 0, ShapeError),
     ((-1, 5), 12, ShapeError), ((-1, -1), 4, ShapeError), ((-2, 3), 6, ShapeError), ((2, 2), 5, ShapeError)],
)
def test_infer_size_static(shape, numel, expected) -> None:
    if expected is ShapeError:
        with pytest.raises(ShapeError, match="view"):
            infer_size(shape, numel)
    else:
        assert infer_size(shape, numel) == expected


def test_view_on_unbacked_size_asserts_instead_of_guarding() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint(size_like=True)
    z = ops.zeros(2 * u, env=env)
    y = z.view(-1, 4)
    assert [str(s) for s in y.shape] == ["FloorDiv(u0, 2)", "4"]
    assert env.guards == [] and [str(a.expr) for a in env.runtime_asserts] == ["Eq(Mod(u0, 2), 0)"]  # (2*u0) % 4 == 0, normalised by the gcd
    assert env.statically_known_true(y.shape[0] * 4 == 2 * u)


def test_inferred_unbacked_dim_is_size_like() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint()
    env.check(u >= 0)
    y = ops.zeros(u, 3, env=env).view(-1)
    assert str(y.shape[0]) == "3*u0" and env.bound(y.shape[0]).lower >= 0


def test_view_of_non_contiguous_input_explains_the_fix() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 6), name="x")
    with pytest.raises(ShapeError, match=r"view: size \[s0\*s1\] is not compatible.*Use \.reshape\(\.\.\.\) instead"):
        x.t().view(-1)
    y = x.t().reshape(-1)
    assert not y.is_view_of(x) and y.is_contiguous()
    z = x.t().contiguous().view(-1)
    assert not z.is_view_of(x) and z.is_view_of(x.t().contiguous()) is False


def test_view_of_non_contiguous_input_guards_only_what_the_layout_needs() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 6), name="x")
    w = x.t().unsqueeze(1).view(x.shape[1], x.shape[0])  # drops the size-1 dim again: no question
    assert w.is_view_of(x) and [str(s) for s in w.stride()] == ["1", "s1"] and env.guards == []
    y = x.t().view(x.shape[1], 2, -1)  # splits the transpose's inner dim: only the divisibility
    assert y.is_view_of(x) and [str(g.expr) for g in env.guards] == ["Eq(Mod(s0, 2), 0)"]
    assert [str(s) for s in y.stride()] == ["1", str(y.shape[2] * x.shape[1]), "s1"]


def test_reshape_is_a_view_when_it_can_be() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 6), name="x")
    assert x.reshape(2, -1).is_view_of(x)
    assert x[:, :3].reshape(-1).is_view_of(x) is False
    assert x[:2].reshape(-1).is_view_of(x)


def test_view_on_unbacked_non_contiguous_is_refused_not_guarded() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint(size_like=True)
    z = ops.zeros(u, 3, env=env).t()  # (3, u0), strides (1, 3)
    with pytest.raises(ShapeError, match="not compatible"):
        z.view(-1)
    assert env.guards == []


@pytest.mark.parametrize(
    "fn,match",
    [
        (lambda x: x.flatten(2, 1), "flatten: start_dim 2 cannot come after end_dim 1"),
        (lambda x: x.flatten(0, 5), "flatten: end_dim out of range"),
        (lambda x: x.unflatten(0, ()), "unflatten: sizes must be non-empty"),
        (lambda x: x.unflatten(1, (4, -1)), r"unflatten: shape '\[4, -1\]' is invalid for input of size 3"),
        (lambda x: x.view(2.5), "view: size 0 must be an int or SymInt"),
        (lambda x: x.view(-1, -1), "only one dimension can be inferred"),
    ],
)
def test_errors_name_the_op_and_the_arguments(fn, match) -> None:
    x = ShapeEnv().fake_tensor((2, 3, 4), dynamic=False, name="x")
    with pytest.raises(ShapeError, match=match):
        fn(x)


def test_contiguous_returns_self_only_when_provable() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 6), name="x")
    assert x.contiguous() is x
    y = x.t().contiguous()
    assert y is not x and not y.is_view_of(x) and [str(s) for s in y.stride()] == ["s0", "1"]
