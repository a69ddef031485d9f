"""torch SymInts over this library's: arithmetic is ours, decisions are the ShapeEnv's (shapeenv.torch.symbolic)."""

from __future__ import annotations

import math
import operator

import pytest

torch = pytest.importorskip("torch", reason="the torch frontend needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from guards import Source  # noqa: E402
from shapeenv import ShapeEnv  # noqa: E402
from shapeenv.torch.symbolic import to_ours, to_torch  # noqa: E402

BINARY = [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod, operator.truediv, operator.pow]


def _pair(hint=8):
    env = ShapeEnv()
    ours = env.create_symint(hint, Source.size("x", 0))
    return env, ours, to_torch(ours)


@pytest.mark.parametrize("op", BINARY, ids=lambda f: f.__name__)
@pytest.mark.parametrize("other", [3, 2.5, "self"])
def test_arithmetic_is_ours(op, other):
    env, ours, theirs = _pair()
    rhs_ours, rhs_theirs = (ours, theirs) if other == "self" else (other, other)
    try:
        expected = op(ours, rhs_ours)
    except Exception as e:  # what our SymInts refuse (s0 // 2.5): torch's refuse too, or rewrite it (floor(s0 / 2.5))
        try:
            got = to_ours(op(theirs, rhs_theirs))
        except type(e):
            return
        assert got.node.hint == op(8, other), (op, other, got)
        return
    got = op(theirs, rhs_theirs)
    assert type(got).__module__ == "torch" or isinstance(got, (int, float))
    assert str(to_ours(got)) == str(expected), (op, other, got, expected)
    if other != "self":  # reflected
        assert str(to_ours(op(rhs_theirs, theirs))) == str(op(rhs_ours, ours))
    assert env.guards == []  # building expressions decides nothing


@pytest.mark.parametrize("make,expected_guard", [
    (lambda t: bool(t > 4), "s0 > 4"),
    (lambda t: bool(t == 8), "Eq(s0, 8)"),
    (lambda t: int(t), "Eq(s0, 8)"),
    (lambda t: t % 4 == 0 and True, "Eq(Mod(s0, 4), 0)"),
])
def test_decisions_record_guards_in_the_shapeenv(make, expected_guard):
    env, _, theirs = _pair()
    make(theirs)
    assert expected_guard in [str(g.expr) for g in env.guards]


def test_statically_known_questions_record_nothing():
    env, _, theirs = _pair()
    assert bool(theirs != 2 * theirs) and bool(theirs >= 2)
    assert env.guards == []


def test_torch_helpers_and_size():
    env, ours, theirs = _pair()
    assert str(to_ours(torch.sym_max(theirs, 3))) == str(max(ours, 3)) or "Max" in str(to_ours(torch.sym_max(theirs, 3)))
    assert str(to_ours(torch.sym_float(theirs) * 0.5)) == "0.5*s0"
    size = torch.Size([theirs, 3])
    assert to_ours(size[0]) is ours and size[1] == 3
    assert str(to_ours(math.floor(theirs / 3))) == str(math.floor(ours / 3))


def test_a_torch_symint_of_another_shapeenv_is_refused():
    from torch.fx.experimental.symbolic_shapes import ShapeEnv as TorchShapeEnv

    s = TorchShapeEnv().create_unbacked_symint()
    with pytest.raises(TypeError, match="torch's own ShapeEnv"):
        to_ours(s)


def test_a_symint_of_torchs_own_shapeenv_is_refused_with_a_typed_error():
    from torch._dynamo.source import LocalSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv as TorchShapeEnv

    from shapeenv.errors import TorchInteropError

    env = TorchShapeEnv()
    sym = env.create_symbol(5, LocalSource("n"), dynamic_dim=DimDynamic.DYNAMIC)
    theirs = env.create_symintnode(sym, hint=5, source=LocalSource("n"))
    with pytest.raises(TorchInteropError, match="torch's own ShapeEnv") as info:
        to_ours(theirs)
    assert isinstance(info.value, TypeError) and "torch.compile" in info.value.fix
