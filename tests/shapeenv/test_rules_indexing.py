"""Slicing and indexing: torch's normalisation of bounds, guard-free symbolic lengths, select/narrow/gather."""

from __future__ import annotations

import itertools

import pytest

from guards import Source
from shapeenv import ShapeEnv, ShapeError, ops
from shapeenv.ops.rules.indexing import getitem, normalize_slice
from symint import SymInt, evaluate

BOUNDS = [None, -10, -7, -3, -1, 0, 1, 2, 5, 9]
STEPS = [None, 1, 2, 3]


def _length(n: int, a, b, c) -> int:
    """What torch (and Python, for positive steps) gives for ``[a:b:c]`` on ``n`` elements."""
    return len(range(n)[slice(a, b, c)])


@pytest.mark.parametrize("n", range(0, 9))
def test_static_slice_lengths_match_python(n: int) -> None:
    for a, b, c in itertools.product(BOUNDS, BOUNDS, STEPS):
        start, length = normalize_slice(n, a, b, c)
        r = range(n)[slice(a, b, c)]
        assert length == len(r), (n, a, b, c)
        if len(r):
            assert start == r[0], (n, a, b, c)


def test_symbolic_slice_lengths_hold_for_every_size_without_guards() -> None:
    """No guard is recorded, so each length expression must be right for every size in [2, oo)."""
    env = ShapeEnv()
    n = env.create_symint(5, Source.size("x", 0))
    sym = n.node.expr
    for a, b, c in itertools.product(BOUNDS, BOUNDS, STEPS):
        _, length = normalize_slice(n, a, b, c)
        assert env.guards == [], (a, b, c)
        for size in range(2, 14):
            value = evaluate(length.node.expr, {sym: size}) if isinstance(length, SymInt) else length
            assert value == _length(size, a, b, c), (a, b, c, size, length)


def test_symbolic_bounds_use_min_and_max() -> None:
    env = ShapeEnv(duck_shape=False)
    x = env.fake_tensor((9, 3), name="x")
    m = env.fake_tensor((4,), name="m").shape[0]
    cases = [(x[:m], "Min(s0, s2)"), (x[m:], "s0 - Min(s0, s2)"), (x[-m:], "s0 - Max(0, s0 - s2)"),
             (x[1:m], "Min(s0, s2) - 1")]
    for t, expected in cases:
        assert str(t.shape[0]) == expected
    assert env.guards == []
    for nx, nm in itertools.product(range(2, 9), range(2, 9)):
        values = {x.shape[0].node.expr: nx, m.node.expr: nm}
        got = [evaluate(t.shape[0].node.expr, values) for t, _ in cases]
        assert got == [len(range(nx)[:nm]), len(range(nx)[nm:]), len(range(nx)[-nm:]), len(range(nx)[1:nm])]


def test_unbacked_bound_of_unknown_sign_is_an_if_then_else() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((9,), name="x")
    u = env.create_unbacked_symint()
    y = x[u:]
    assert "IfThenElse" in str(y.shape[0]) and env.guards == [] and env.runtime_asserts == []
    n, usym = x.shape[0].node.expr, u.node.expr
    for size, start in itertools.product(range(2, 8), range(-9, 9)):
        assert evaluate(y.shape[0].node.expr, {n: size, usym: start}) == len(range(size)[start:])


def test_select_and_narrow_with_negative_and_symbolic_positions() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((6, 4), name="x")
    assert str(x.select(0, -1).storage_offset()) == "s0*s1 - s1" and env.guards == []
    n = x.narrow(0, -3, 2)
    assert str(n.storage_offset()) == "s0*s1 - 3*s1" and len(env.guards) == 1  # s0 >= 3: -3 must be in range
    u = env.create_unbacked_symint()
    s = x.select(1, u)  # an unbacked index: range asserts, and an offset that handles both signs
    assert str(s.shape) == "(s0,)" and len(env.runtime_asserts) == 2 and "IfThenElse" in str(s.storage_offset())


def test_zero_d_integer_tensor_index_selects() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((5, 6), name="x")
    i = env.fake_tensor((), "int64", name="i")
    y = x[i]
    assert str(y.shape) == "(s1,)" and y.is_view_of(x) and len(env.runtime_asserts) == 2


def test_advanced_indexing_shapes() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((5, 6, 7), name="x", dynamic=False)
    i = env.fake_tensor((2, 3), "int64", name="i", dynamic=False)
    j = env.fake_tensor((3,), "int64", name="j", dynamic=False)
    m = env.fake_tensor((5, 6), "bool", name="m", dynamic=False)
    assert x[i, :, j].shape == (2, 3, 6)  # not adjacent: broadcast dims in front
    assert x[:, i, j].shape == (5, 2, 3)  # adjacent: in place
    assert x[i, 0].shape == (2, 3, 7)  # the int is a select first, as in torch
    assert str(x[m].shape) == "(u0, 7)" and not x[m].is_view_of(x)
    with pytest.raises(ShapeError, match=r"getitem: the shape of the mask \[5, 6\] at index 0 does not match the shape of the indexed tensor \[5, 6, 7\] at index 1"):
        x[:, m]


@pytest.mark.parametrize(
    "fn,match",
    [
        (lambda x: x[5], "getitem: index 5 is out of bounds for dimension 0 with size 5"),
        (lambda x: x[::-1], "getitem: step must be greater than zero"),
        (lambda x: x[0, 0, 0], "getitem: too many indices for tensor of dimension 2"),
        (lambda x: x[..., ...], "single ellipsis"),
        (lambda x: x["a"], "getitem: unsupported index 'a'"),
        (lambda x: x[[0, 1.5]], "a list index must hold ints"),
        (lambda x: x.narrow(0, 3, 3), r"narrow: start \(3\) \+ length \(3\) exceeds dimension size \(5\)"),
        (lambda x: x.narrow(0, 6, 0), r"narrow: start out of range \(expected to be in range of \[-5, 5\], but got 6\)"),
        (lambda x: x.narrow(0, 0, -1), "narrow: length must be non-negative"),
        (lambda x: x.select(1, -7), "select: index -7 is out of bounds for dimension 1 with size 6"),
        (lambda x: x.gather(0, x), "gather: expected dtype int64 for index"),
        (lambda x: ops.index_select(x, 0, x.long()[0, 0].unsqueeze(0).unsqueeze(0)), "index_select: index is supposed to be a vector"),
    ],
)
def test_errors_name_the_op_arguments_and_condition(fn, match) -> None:
    x = ShapeEnv().fake_tensor((5, 6), dynamic=False, name="x")
    with pytest.raises(ShapeError, match=match):
        fn(x)


def test_getitem_on_a_tuple_is_item_access() -> None:
    x = ShapeEnv().fake_tensor((5, 6), dynamic=False)
    pieces = x.split(2)
    assert getitem(pieces, 1) is pieces[1]
