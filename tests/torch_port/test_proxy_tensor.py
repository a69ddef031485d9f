"""Ported from pytorch ``test/test_proxy_tensor.py``, class TestSymbolicTracing: each test names the torch
test it translates.

torch traces with ``make_fx(f, tracing_mode="symbolic")`` (every input dim a duck-sized symbol);
we trace ``f`` on fake tensors of a fresh :class:`ShapeEnv` (``dynamic=True``, also duck-sized) and
assert what torch's expected graph and guards say about shapes.
"""

from __future__ import annotations

import pytest

from shapeenv import GuardOnDataDependentSymNode, ShapeEnv, ShapeError, check, ops


def trace(f, *shapes, dtypes=None):
    """Run ``f`` on symbolic fake tensors of ``shapes``; returns ``(env, output)``."""
    env = ShapeEnv()
    dtypes = dtypes or ["float32"] * len(shapes)
    args = [env.fake_tensor(s, d, name=f"arg{i}") for i, (s, d) in enumerate(zip(shapes, dtypes))]
    return env, f(*args)


def int_input(env, name="n"):
    """A 0-d int64 input tensor, whose ``item()`` is an unbacked SymInt (torch's ``torch.tensor(10)``)."""
    return env.fake_tensor((), "int64", name=name)


def test_unary() -> None:
    """torch TestSymbolicTracing.test_unary: the assert becomes the guard ``L['x'].size()[0] <= 19``."""
    def f(x):
        assert x.shape[0] < 20
        return x.cos()

    env, _ = trace(f, (3, 4))
    guards = env.produce_guards()
    assert "L['arg0'].size()[0] <= 19" in guards.to_text("torch").splitlines()
    assert guards.holds({"arg0.size()[0]": 4, "arg0.size()[1]": 5})
    assert not guards.holds({"arg0.size()[0]": 25, "arg0.size()[1]": 5})


def test_binary_broadcast() -> None:
    """torch TestSymbolicTracing.test_binary_broadcast: (1, 2) * (3, 1) records no guard."""
    env, out = trace(lambda a, b: a * b, (1, 2), (3, 1))
    assert len(env.guards) == 0
    assert str(out.shape) == "(s1, s0)"


def test_multiply_shape() -> None:
    """torch TestSymbolicTracing.test_multiply_shape: ``empty(a.shape[0] * 2)`` has size ``2*s0``."""
    env, out = trace(lambda a: ops.empty(a.shape[0] * 2), (4,))
    assert str(out.shape[0]) == "2*s0"


@pytest.mark.xfail(strict=True, raises=ShapeError,
                   reason="item() of a float tensor is a data-dependent SymFloat in torch; we model integer "
                          "item() only and raise rather than compute with an unknown float")
def test_item() -> None:
    """torch TestSymbolicTracing.test_item: ``a.item() * a`` for a float tensor."""
    trace(lambda a: a.item() * a, (1,))


def test_item_to_constructor() -> None:
    """torch TestSymbolicTracing.test_item_to_constructor: ``empty(a.item())`` has an unbacked size."""
    env = ShapeEnv()
    out = ops.empty(int_input(env).item())
    assert str(out.shape) == "(u0,)"


def test_neg_shape() -> None:
    """torch TestSymbolicTracing.test_neg_shape: ``empty(-a.shape[0] + 10)``."""
    env, out = trace(lambda a: ops.empty(-a.shape[0] + 10), (2,))
    assert str(out.shape[0]) == "10 - s0"


def test_unbacked_unification() -> None:
    """torch TestSymbolicTracing.test_unbacked_unification: ``zeros(x.item()) + y`` traces (the sizes must match,
    asserted at run time)."""
    env = ShapeEnv()
    y = env.fake_tensor((10,), name="y")
    out = ops.zeros(int_input(env).item()) + y
    assert str(out.shape) == "(s0,)"
    assert not env.guards
    assert [str(r.expr) for r in env.runtime_asserts][-1] == "Eq(u0, s0)"


def test_unbacked_unify_guard() -> None:
    """torch TestSymbolicTracing.test_unbacked_unify_guard: after check(z.size(0) == y.size(0)), branching on
    z.size(0) == 4 is decided through y's size (hint 10: the ``y + 2`` branch)."""
    env = ShapeEnv()
    y = env.fake_tensor((10,), name="y")
    z = ops.zeros(int_input(env).item())
    check(z.shape[0] == y.shape[0])
    taken = "mul" if z.shape[0] == 4 else "add"
    assert taken == "add"


def test_reshape_divisibility_unbacked() -> None:
    """torch TestSymbolicTracing.test_reshape_divisibility_unbacked."""
    env = ShapeEnv()
    i0 = int_input(env).item()
    check(i0 >= 0)
    r = ops.zeros(i0, 4, 20).transpose(2, 1)
    assert str(r.reshape(-1, 80).shape) == "(u0, 80)"


def test_view_divisibility_unbacked() -> None:
    """torch TestSymbolicTracing.test_view_divisibility_unbacked: ``zeros(i0, 192).view(12, -1, 192)``.

    torch traces it (the divisibility becomes a deferred runtime assert); so do we."""
    env = ShapeEnv()
    i0 = int_input(env).item()
    check(i0 >= 0)
    out = ops.zeros(i0, 192).view(12, -1, 192)
    assert out.shape[0] == 12 and out.shape[2] == 192


def test_mod_gcd_unbacked() -> None:
    """torch TestSymbolicTracing.test_mod_gcd_unbacked: ``cat([randn(a*s), randn(b*s)]).view(a + b, s)``."""
    env = ShapeEnv()
    a, b, stride = (int_input(env, n).item() for n in "abs")
    for v in (a, b, stride):
        check(v >= 0)
    r = ops.cat([ops.randn(a * stride), ops.randn(b * stride)])
    out = r.view(a + b, stride)
    assert str(out.shape) == "(u0 + u1, u2)"


def test_cumsum_unbacked() -> None:
    """torch TestSymbolicTracing.test_cumsum_unbacked (cumsum -> sum): a randn of an unbacked size traces."""
    env = ShapeEnv()
    y = int_input(env).item()
    check(y >= 0)
    z = ops.randn(3, y, 3)
    assert str(z.sum(0).shape) == "(u0, 3)" and not env.guards


def test_arange_unbacked_output_size() -> None:
    """torch TestSymbolicTracing.test_arange_unbacked_output_size."""
    env = ShapeEnv()
    out = ops.arange(0, int_input(env).item())
    assert len(out.shape) == 1 and "u0" in str(out.shape[0])


def test_adv_index_batch() -> None:
    """torch TestSymbolicTracing.test_adv_index_batch: building the token buffer records no guard."""
    def f(src_tokens):
        bsz, src_len = src_tokens.size()[:2]
        start_step = src_tokens.shape[1]
        tokens = ops.zeros(bsz * 1, src_len + 64)
        return tokens[:, :start_step]

    env, out = trace(f, (4, 64))
    assert len(env.guards) == 0
    assert str(out.shape) == "(s0, s1)"


def test_unbacked_slice() -> None:
    """torch TestSymbolicTracing.test_unbacked_slice: ``x[m][:, :, :2]`` for a bool mask."""
    env = ShapeEnv()
    x = env.fake_tensor((12, 3, 3), name="x", dynamic=False)
    m = env.fake_tensor((12,), "bool", name="m", dynamic=False)
    sel = x[m]
    out = sel[:, :, :2]
    assert out.shape[1:] == (3, 2)


def test_data_dependent_branch_raises() -> None:
    """torch TestSymbolicTracing (test_unbacked_unify_guard's premise): branching on an unbacked size with no
    facts raises GuardOnDataDependentSymNode."""
    env = ShapeEnv()
    z = ops.zeros(int_input(env).item())
    with pytest.raises(GuardOnDataDependentSymNode):
        bool(z.shape[0] == 4)
