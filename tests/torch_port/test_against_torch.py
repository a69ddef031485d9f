"""The issue-13 behaviours checked against torch itself (marker ``torch``; `.ci/run` installs torch).

Each test runs the same question through torch's ShapeEnv / export and ours, and asserts the
answers agree (the ported tests in this folder state torch's expectations; these confirm them live).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from guards import Source
from shapeenv import Dim, ShapeEnv, export, ops
from symint import sym_sqrt

torch = pytest.importorskip("torch", reason="needs torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

from torch._dynamo.source import LocalSource  # noqa: E402
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv as TorchShapeEnv  # noqa: E402


def torch_symint(env, hint, name):
    src = LocalSource(name)
    sym = env.create_symbol(hint, src, dynamic_dim=DimDynamic.DYNAMIC)
    return env.create_symintnode(sym, hint=hint, source=src)


def test_difference_bound_tightening_matches_torch() -> None:
    tenv = TorchShapeEnv(duck_shape=False)
    a0, a1 = torch_symint(tenv, 10, "a"), torch_symint(tenv, 20, "b")
    assert bool(a0 >= 6) and bool(a1 >= a0 + 8)
    assert "14 <= L['b']" in tenv.produce_guards([a0, a1], [LocalSource("a"), LocalSource("b")])
    env = ShapeEnv(duck_shape=False)
    b0, b1 = env.create_symint(10, Source.value("a")), env.create_symint(20, Source.value("b"))
    assert bool(b0 >= 6) and bool(b1 >= b0 + 8)
    ours = env.produce_guards()
    for va, vb in [(6, 14), (6, 13), (7, 15), (5, 20), (10, 17)]:
        binding = {a0.node.expr: va, a1.node.expr: vb}
        theirs = all(bool(g.expr.xreplace(binding)) for g in tenv.guards) and va >= 2 and vb >= 2
        assert ours.holds({Source.value("a"): va, Source.value("b"): vb}) == theirs, (va, vb)
    assert "b >= 14" in ours.to_text("source")


def test_bitwise_and_sqrt_guards_match_torch() -> None:
    tenv = TorchShapeEnv()
    ta, tb = torch_symint(tenv, 12, "a"), torch_symint(tenv, 10, "b")
    env = ShapeEnv()
    a, b = env.create_symint(12, Source.value("a")), env.create_symint(10, Source.value("b"))
    assert (ta & tb) == 8 and (a & b) == 8
    assert (ta | tb) == 14 and (a | b) == 14
    assert float(torch.sym_sqrt(ta)) == float(sym_sqrt(a))
    assert len(tenv.guards) == len(env.guards) == 3
    assert str(tenv.guards[0].expr).startswith("Eq(BitwiseFn_bitwise_and") and str(env.guards[0].expr).startswith("Eq(BitwiseAnd")


def test_sympify_matches_torch() -> None:
    tenv = TorchShapeEnv()
    ta = torch_symint(tenv, 5, "a")
    env = ShapeEnv()
    a = env.create_symint(5, Source.value("a"))
    assert sympy.sympify(ta + 1) == ta.node.expr + 1 and sympy.sympify(a + 1) == a.node.expr + 1
    assert not tenv.guards and not env.guards


def test_derived_dims_match_torch_export() -> None:
    class Foo(torch.nn.Module):
        def forward(self, x, y):
            return x + y[1:]

    tdimx = torch.export.Dim("dimx", min=3, max=6)
    ep = torch.export.export(Foo(), (torch.randn(5), torch.randn(6)), dynamic_shapes=({0: tdimx}, {0: tdimx + 1}))
    dimx = Dim("dimx", min=3, max=6)
    ours = export(lambda x, y: x + y[1:], (np.zeros(5), np.zeros(6)), dynamic_shapes=({0: dimx}, {0: dimx + 1}))
    for nx, ny in [(4, 5), (4, 6), (6, 7), (7, 8), (3, 4)]:
        try:
            ep.module()(torch.randn(nx), torch.randn(ny))
            theirs = True
        except (RuntimeError, AssertionError):
            theirs = False
        assert ours.accepts(np.zeros(nx), np.zeros(ny)) == theirs, (nx, ny)


def test_unbacked_broadcast_defers_like_torch() -> None:
    """empty(u) + y: torch defers ['0 <= u0', 'Eq(u0, s26)'] and guards nothing; so do we."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import StatelessSymbolicContext

    tenv = TorchShapeEnv()
    mode = FakeTensorMode(shape_env=tenv)
    ty = mode.from_tensor(torch.randn(10), symbolic_context=StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC]))
    tu = tenv.create_unbacked_symint()
    torch._check(tu >= 0)
    with mode:
        tz = torch.empty(tu) + ty
    theirs = [str(r.expr) for v in tenv.deferred_runtime_asserts.values() for r in v]
    assert not tenv.guards and len(theirs) == 2 and theirs[1].startswith("Eq(u0, s")
    assert str(tz.shape[0]) == str(ty.shape[0])

    env = ShapeEnv()
    y = env.fake_tensor((10,), name="y")
    u = env.create_unbacked_symint()
    env.check(u >= 0)
    z = ops.empty((u,)) + y
    assert not env.guards
    assert [str(r.expr) for r in env.runtime_asserts] == ["u0 >= 0", "Eq(u0, s0)"]
    assert str(z.shape[0]) == str(y.shape[0])
