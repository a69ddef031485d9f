"""Convolution, pooling and padding sizes: formulas against direct window counting, and symbolic soundness."""

from __future__ import annotations

import itertools

import pytest

from guards import Source
from shapeenv import ShapeEnv, ShapeError, ops
from shapeenv.ops.rules.conv import conv_output_size, pool_output_size
from symint import SymInt, evaluate


def _windows(n: int, k: int, s: int, p: int, d: int) -> int:
    """How many windows of ``k`` taps ``d`` apart fit in ``n`` padded by ``p`` each side, stepping by ``s``."""
    span = d * (k - 1) + 1
    return sum(1 for start in range(0, n + 2 * p) if start % s == 0 and start + span <= n + 2 * p)


def _ceil_windows(n: int, k: int, s: int, p: int, d: int) -> int:
    """ceil_mode: windows may run past the right padding, but must start inside the input or left padding."""
    span = d * (k - 1) + 1
    last = n + 2 * p - span  # the last start of a full window
    count = 0
    for start in itertools.count(0, s):
        if start > last + s - 1 or start >= n + p:
            break
        count += 1
    return count


def test_output_sizes_count_windows() -> None:
    checked = 0
    for n, k, s, p, d in itertools.product(range(1, 10), (1, 2, 3), (1, 2, 3), (0, 1), (1, 2)):
        if d * (k - 1) + 1 > n + 2 * p:  # not even one window
            continue
        checked += 1
        assert conv_output_size(n, k, s, p, d) == _windows(n, k, s, p, d), (n, k, s, p, d)
        assert pool_output_size(n, k, s, p, d, False) == _windows(n, k, s, p, d), (n, k, s, p, d)
        assert pool_output_size(n, k, s, p, d, True) == _ceil_windows(n, k, s, p, d), (n, k, s, p, d)
    assert checked > 250


@pytest.mark.parametrize("k,s,p", [(2, 2, 0), (3, 2, 1), (2, 3, 1), (3, 3, 0), (4, 3, 2)])
def test_symbolic_ceil_mode_needs_no_guard_and_holds_for_every_size(k, s, p) -> None:
    env = ShapeEnv()
    n = env.create_symint(9, Source.size("x", 2))
    out = pool_output_size(n, k, s, p, 1, True)
    assert env.guards == []
    for size in range(max(2, k - 2 * p), 40):
        value = evaluate(out.node.expr, {n.node.expr: size}) if isinstance(out, SymInt) else out
        assert value == pool_output_size(size, k, s, p, 1, True), (size, out)


def test_max_pool_on_symbolic_input_records_only_the_output_check() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((2, 3, 9, 12), name="x", dynamic={2, 3})
    y = ops.max_pool2d(x, 3, 2, 1, ceil_mode=True)
    assert len(y.shape) == 4 and env.guards == []
    z = ops.max_pool2d(x, 4)  # needs H >= 4 and W >= 4: one guard each (ranges start at 2)
    assert [str(s) for s in z.shape[2:]] == ["FloorDiv(s0, 4)", "FloorDiv(s1, 4)"] and len(env.guards) == 2


def test_conv_on_symbolic_sizes_agrees_with_static_everywhere_the_guards_hold() -> None:
    env = ShapeEnv(duck_shape=False)
    x = env.fake_tensor((2, 4, 11), name="x")
    w = env.fake_tensor((6, 2, 3), name="w", dynamic=False)
    y = ops.conv1d(x, w, None, 2, 1, 2, 2)
    gs = env.produce_guards()
    length = y.shape[2]
    seen = 0
    for n in range(0, 30):
        bindings = {"x.size()[0]": 2, "x.size()[1]": 4, "x.size()[2]": n, "w.size()[0]": 6, "w.size()[1]": 2, "w.size()[2]": 3}
        if not gs.holds({k: v for k, v in bindings.items() if k in {src.text() for _, src in gs.sources}}):
            continue
        seen += 1
        fresh = ShapeEnv()
        sx, sw = fresh.fake_tensor((2, 4, n), dynamic=False, name="x"), fresh.fake_tensor((6, 2, 3), dynamic=False, name="w")
        static = ops.conv1d(sx, sw, None, 2, 1, 2, 2)  # raises if the guards admitted a bad size
        symbols = {s: bindings[info.sources[0].text()] for s, info in env.symbols.items()}
        assert evaluate(length.node.expr, symbols) == static.shape[2]
    assert seen > 20


@pytest.mark.parametrize(
    "fn,match",
    [
        (lambda x, w: ops.conv2d(x, w, stride=2, padding="same"), "padding='same' is not supported for strided convolutions"),
        (lambda x, w: ops.conv2d(x, w, padding="full"), "invalid padding string 'full'"),
        (lambda x, w: ops.conv2d(x[0, 0], w), r"expected 3D \(unbatched\) or 4D \(batched\) input"),
        (lambda x, w: ops.conv2d(x, w, groups=4), "given groups=4, expected weight to be divisible by 4"),
        (lambda x, w: ops.conv2d(x, w[:, :2]), r"expected input\[1, 4, 5, 5\] to have 2 channels, but got 4 channels"),
        (lambda x, w: ops.conv2d(x, w.long()), r"input type \(float32\) and weight type \(int64\) should be the same"),
        (lambda x, w: ops.conv2d(x, w, stride=0), "stride and dilation must be positive"),
        (lambda x, w: ops.conv2d(x, w, padding=-1), "negative padding is not supported"),
        (lambda x, w: ops.max_pool2d(x, 3, padding=2), "pad should be smaller than or equal to half of kernel size"),
        (lambda x, w: ops.max_pool2d(x, 6), r"Calculated output size: \[4, 0, 0\]. Output size is too small"),
        (lambda x, w: ops.avg_pool2d(x, 2, divisor_override=0), "divisor must be not zero"),
        (lambda x, w: ops.pad(x, (1, 2, 3)), "padding length must be divisible by 2"),
        (lambda x, w: ops.pad(x, (-3, -3)), "plus negative padding -3 and -3 resulted in a negative output size"),
        (lambda x, w: ops.pad(x, (1, 1), mode="reflect"), "Padding size 2 is not supported for 4D input tensor"),
    ],
)
def test_errors_name_the_op_arguments_and_condition(fn, match) -> None:
    env = ShapeEnv()
    x = env.fake_tensor((1, 4, 5, 5), dynamic=False, name="x")
    w = env.fake_tensor((6, 4, 3, 3), dynamic=False, name="w")
    with pytest.raises(ShapeError, match=match):
        fn(x, w)


def test_pad_with_symbolic_amounts() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((2, 7), name="x")
    p = env.fake_tensor((3,), name="p").shape[0]
    y = ops.pad(x, (p, -p))
    assert str(y.shape) == "(s0, s1)" and env.guards == []
    z = ops.pad(x, (0, -p))  # 7 - 3 >= 0 only by the hints: a guard
    assert str(z.shape) == "(s0, s1 - s2)" and len(env.guards) == 1
