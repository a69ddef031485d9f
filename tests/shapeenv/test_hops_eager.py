"""scan/map/switch on real arrays outside a trace run their reference loops (as eager stances need)."""

from __future__ import annotations

import numpy as np
import pytest

import shapeenv
from shapeenv import compile, set_stance


def test_scan_is_a_cumulative_loop() -> None:
    xs = np.arange(12, dtype=np.float64).reshape(4, 3)
    final, ys = shapeenv.scan(lambda c, x: (c + x, c + x), np.zeros(3), xs)
    np.testing.assert_array_equal(ys, np.cumsum(xs, axis=0))
    np.testing.assert_array_equal(final, xs.sum(0))


def test_reverse_scan_and_length_only() -> None:
    xs = np.arange(4.0)
    _, ys = shapeenv.scan(lambda c, x: (c + x, c + x), np.zeros(()), xs, reverse=True)
    np.testing.assert_array_equal(ys, np.cumsum(xs[::-1])[::-1])
    final, ys = shapeenv.scan(lambda c, x: (c * 2, c), np.ones(2), None, length=3)
    np.testing.assert_array_equal(ys, [[1, 1], [2, 2], [4, 4]])
    np.testing.assert_array_equal(final, [8, 8])


def test_scan_along_another_dim_with_pytrees() -> None:
    xs = {"a": np.ones((2, 5)), "b": np.arange(10.0).reshape(2, 5)}
    final, ys = shapeenv.scan(lambda c, x: (c + x["b"], {"y": x["a"] * c}), np.zeros(2), xs, dim=1)
    assert ys["y"].shape == (5, 2)
    np.testing.assert_array_equal(final, xs["b"].sum(1))


def test_map_and_switch() -> None:
    out = shapeenv.map(lambda x, k: x * k, np.ones((4, 3)), 2.0)
    np.testing.assert_array_equal(out, np.full((4, 3), 2.0))
    branches = [lambda t: t + 1, lambda t: t * 2, lambda t: t - 1]
    assert shapeenv.switch(np.array([7]), branches, (np.ones(2),)).tolist() == [0.0, 0.0]  # clamped to 2
    assert shapeenv.switch(-3, branches, (np.ones(2),)).tolist() == [2.0, 2.0]  # clamped to 0


def test_force_eager_runs_a_scan_function() -> None:
    def cumsum(xs):
        return shapeenv.scan(lambda c, x: (c + x, c + x), xs[0] * 0, xs)[1]

    f = compile(cumsum)
    xs = np.arange(15, dtype=np.float32).reshape(5, 3)
    with set_stance("force_eager"):
        eager = f(xs)
    assert len(f.cache_info().entries) == 0
    np.testing.assert_array_equal(eager, np.cumsum(xs, 0))


def test_torch_tensors_stack_with_torch() -> None:
    torch = pytest.importorskip("torch")
    xs = torch.arange(6.0).reshape(3, 2)
    _, ys = shapeenv.scan(lambda c, x: (c + x, c + x), torch.zeros(2), xs)
    assert isinstance(ys, torch.Tensor) and torch.equal(ys, torch.cumsum(xs, 0))
