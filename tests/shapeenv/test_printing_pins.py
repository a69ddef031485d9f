"""Shapes print what the environment knows now: a pinned size prints as its value (torch: ``torch.Size([6])``)."""

from __future__ import annotations

from shapeenv import ShapeEnv, ops, scan


def test_a_shape_pinned_by_broadcasting_prints_its_value() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((6,), name="x")
    assert str(x.shape) == "(s0,)"
    y = x + ops.ones(6)  # guards s0 == 6: the symbol is pinned
    assert str(x.shape) == "(6,)" and str(y.shape) == "(6,)"
    assert repr(x) == "FakeTensor(float32[6])"
    assert f"{x.shape[0]}" == "6"
    assert [str(g.expr) for g in env.guards] == ["Eq(s0, 6)"]  # printing added no guard


def test_a_scan_output_prints_the_pinned_length() -> None:
    env = ShapeEnv()
    xs = env.fake_tensor((5, 3), name="xs")
    init = env.fake_tensor((3,), name="init", dynamic=False)

    def step(carry, x):
        return carry + x, carry * 2

    carry, ys = scan(step, init, xs)
    assert str(ys.shape[0]) == str(xs.shape[0]) and str(ys.shape[0]).startswith("s")
    _ = xs + ops.ones(5, 3)  # pins the scanned length to 5
    assert str(ys.shape) == "(5, 3)" and str(xs.shape) == "(5, 3)"
