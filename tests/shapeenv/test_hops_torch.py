"""Differential tests: output shapes of our scan/map/switch against torch's scan/map/cond (torch 2.13).

Each body is written once against a tiny namespace (``narrow``, ``new_empty``) that both worlds
implement, run by torch on real tensors and by us on fake tensors (static, and symbolic evaluated
at the hints). One documented divergence: torch 2.13's scan moves the stacked ys dimension back
to ``dim``; ours stacks along dim 0 (see Note [Where ys are stacked] in shapeenv/hops/scan.py).
"""

from __future__ import annotations

import pytest

from shapeenv import ShapeEnv, map as se_map, scan as se_scan, switch as se_switch

from .test_hops_common import narrow, new_empty

torch = pytest.importorskip("torch", reason="differential tests need torch (pip install torch==2.13.0)")
pytestmark = pytest.mark.torch

hops = pytest.importorskip("torch._higher_order_ops")


def _hop(name: str):
    """``torch._higher_order_ops.<name>``, or skip the comparison when this torch lacks it."""
    fn = getattr(hops, name, None)
    if fn is None:
        pytest.skip(f"torch._higher_order_ops.{name} is not available in torch {torch.__version__}")
    return fn


class TorchNS:
    narrow = staticmethod(lambda t, n: t[:n])
    new_empty = staticmethod(lambda t, shape: t.new_empty(shape))


class OurNS:
    narrow = staticmethod(narrow)
    new_empty = staticmethod(new_empty)


def _hinted(shape) -> tuple:
    return tuple(d if isinstance(d, int) else d.node.hint for d in shape)


def _shapes(tree, concrete):
    if isinstance(tree, dict):
        return {k: _shapes(v, concrete) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [_shapes(v, concrete) for v in tree]
    return concrete(tree.shape)


def _fake(env, tree, dynamic, name="t"):
    if isinstance(tree, dict):
        return {k: _fake(env, v, dynamic, f"{name}_{k}") for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_fake(env, v, dynamic, f"{name}_{i}") for i, v in enumerate(tree))
    return env.fake_tensor(tuple(tree.shape), str(tree.dtype), dynamic=dynamic, name=name)


def _both(make_fake_and_run, run_torch):
    """Torch's shapes, and ours on static and on symbolic fake inputs (evaluated at the hints)."""
    theirs = run_torch()
    ours = [make_fake_and_run(dynamic) for dynamic in (False, True)]
    return theirs, ours


# -- scan ---------------------------------------------------------------------------------------------
def _cumsum(F):
    def fn(c, x):
        nxt = c + x
        return nxt, nxt.clone()
    return fn


def _pytree_step(F):
    def fn(c, x):
        nxt = c + x["a"] * x["b"]
        return nxt, {"y": nxt.clone(), "b": x["b"] * 2}
    return fn


def _narrowing(F):
    def fn(c, x):
        return c + 1, F.narrow(x, 1).clone()
    return fn


SCAN_CASES = [
    # (name, make body, init shape, xs shapes (pytree), dim, reverse)
    ("cumsum", _cumsum, (3,), (5, 3), 0, False),
    ("cumsum reverse", _cumsum, (3,), (5, 3), 0, True),
    ("cumsum dim=-1", _cumsum, (3,), (3, 5), -1, False),
    ("pytree xs and ys", _pytree_step, (3,), {"a": (4, 3), "b": (4,)}, 0, False),
    ("y narrower than x, dim=1", _narrowing, (), (4, 3, 2), 1, False),
]


def _torch_tree(shapes):
    if isinstance(shapes, dict):
        return {k: _torch_tree(v) for k, v in shapes.items()}
    return torch.randn(shapes)


@pytest.mark.parametrize("name,body,init_shape,xs_shapes,dim,reverse", SCAN_CASES, ids=[c[0] for c in SCAN_CASES])
def test_scan_shapes_match_torch(name, body, init_shape, xs_shapes, dim, reverse):
    init, xs = torch.zeros(init_shape), _torch_tree(xs_shapes)
    carry_t, ys_t = _hop("scan")(body(TorchNS), init, xs, dim=dim, reverse=reverse)
    lead = xs if isinstance(xs, torch.Tensor) else next(iter(xs.values()))
    d = dim % lead.ndim

    def stacked_first(y):  # undo torch's movedim(y, 0, dim): ours keep the scan dim first
        return torch.movedim(y, d, 0) if d < y.ndim else y

    expected = (_shapes(carry_t, tuple), _shapes(torch.utils._pytree.tree_map(stacked_first, ys_t), tuple))
    for dynamic in (False, True):
        env = ShapeEnv()
        carry, ys = se_scan(body(OurNS), _fake(env, init, dynamic, "init"), _fake(env, xs, dynamic, "xs"),
                            dim=dim, reverse=reverse)
        assert (_shapes(carry, _hinted), _shapes(ys, _hinted)) == expected, (name, dynamic)


def test_scan_ys_stacking_dim_differs_from_torch_as_documented():
    xs = torch.randn(4, 3, 2)
    _, ys_t = _hop("scan")(_narrowing(TorchNS), torch.zeros(()), xs, dim=1)
    env = ShapeEnv()
    _, ys = se_scan(_narrowing(OurNS), env.fake_tensor((), dynamic=False), env.fake_tensor((4, 3, 2), dynamic=False), dim=1)
    assert tuple(ys_t.shape) == (1, 3, 2) and ys.shape == (3, 1, 2)


def test_scan_length_zero_is_an_error_in_torch_but_supported_here():
    with pytest.raises(RuntimeError, match="scan dimension > 0"):
        _hop("scan")(_cumsum(TorchNS), torch.zeros(3), torch.randn(0, 3))
    env = ShapeEnv()
    _, ys = se_scan(_cumsum(OurNS), env.fake_tensor((3,), dynamic=False, name="init"),
                    env.fake_tensor((0, 3), dynamic=False, name="xs"))
    assert ys.shape == (0, 3)


# -- map ----------------------------------------------------------------------------------------------
MAP_CASES = [
    # (name, f(F) -> callable, xs shapes (pytree), args shapes)
    ("elementwise", lambda F: (lambda x: x * 2 + 1), (3, 4, 5), ()),
    ("list xs", lambda F: (lambda x: x[0] + x[1]), [(2, 3), (2, 3)], ()),
    ("args and pytree out", lambda F: (lambda x, w: {"a": x * w, "b": F.narrow(x, 1).clone()}), (4, 3), ((3,),)),
    ("new sizes", lambda F: (lambda x: F.new_empty(x, (7, x.shape[0]))), (5, 2), ()),
]


def _torch_xs(shapes):
    if isinstance(shapes, list):
        return [torch.randn(s) for s in shapes]
    return torch.randn(shapes)


@pytest.mark.parametrize("name,f,xs_shapes,arg_shapes", MAP_CASES, ids=[c[0] for c in MAP_CASES])
def test_map_shapes_match_torch(name, f, xs_shapes, arg_shapes):
    xs, args = _torch_xs(xs_shapes), [torch.randn(s) for s in arg_shapes]
    expected = _shapes(_hop("map")(f(TorchNS), xs, *args), tuple)
    for dynamic in (False, True):
        env = ShapeEnv()
        out = se_map(f(OurNS), _fake(env, xs, dynamic, "xs"), *[_fake(env, a, dynamic, f"a{i}") for i, a in enumerate(args)])
        assert _shapes(out, _hinted) == expected, (name, dynamic)


def test_map_empty_batch_is_rejected_by_both():
    with pytest.raises(RuntimeError, match="cannot be 0"):
        _hop("map")(lambda x: x + 1, torch.randn(0, 3))
    env = ShapeEnv()
    with pytest.raises(Exception, match="map: the leading dimension of xs is 0"):
        se_map(lambda x: x + 1, env.fake_tensor((0, 3), dynamic=False))


# -- cond (switch with two branches) -------------------------------------------------------------------
@pytest.mark.parametrize("pred", [True, False])
def test_cond_shapes_match_switch(pred):
    x = torch.randn(5, 3)
    expected = tuple(_hop("cond")(torch.tensor(pred), lambda t: t.sin(), lambda t: t * 2, (x,)).shape)
    env = ShapeEnv()
    xf = env.fake_tensor((5, 3), name="x")
    out = se_switch(int(pred), [lambda t: t * 2, lambda t: t + 1], (xf,))
    assert _hinted(out.shape) == expected
    index = env.fake_tensor((), "int64", name="p")
    out = se_switch(index, [lambda t: t * 2, lambda t: t + 1], (xf,))
    assert _hinted(out.shape) == expected


def test_cond_with_different_output_sizes_gives_the_same_unbacked_range_as_torch():
    cond = _hop("cond")

    class M(torch.nn.Module):
        def forward(self, p, x):
            return cond(p.sum() > 0, lambda t: t[:2].clone(), lambda t: t[:3].clone(), (x,))

    ep = torch.export.export(M(), (torch.tensor(1.0), torch.randn(5, 4)))
    (rng,) = ep.range_constraints.values()
    out_shape = ep.graph_module.graph.find_nodes(op="output")[0].args[0][0].meta["val"].shape

    env = ShapeEnv()
    x, p = env.fake_tensor((5, 4), dynamic=False, name="x"), env.fake_tensor((), "int64", name="p")
    out = se_switch(p, [lambda t: narrow(t, 3).clone(), lambda t: narrow(t, 2).clone()], (x,))
    ours = env.bound(out.shape[0])
    assert (int(rng.lower), int(rng.upper)) == (ours.lower, ours.upper) == (2, 3)
    assert out.shape[1] == int(out_shape[1]) == 4
    assert [str(a.expr) for a in env.runtime_asserts] == ["u0 >= 2", "u0 <= 3"]  # as torch's _assert_scalar nodes


def test_switch_matches_torch_switch():
    switch = _hop("switch")  # torch 2.13 has no switch HOP (only cond): skipped there
    x = torch.randn(4, 3)
    branches_t = [lambda t: t.cos(), lambda t: t[:2].clone(), lambda t: t * 2]
    env = ShapeEnv()
    xf = env.fake_tensor((4, 3), dynamic=False, name="x")
    branches = [lambda t: t * 1, lambda t: narrow(t, 2).clone(), lambda t: t * 2]
    for index in (0, 1, 2, 7):
        assert tuple(switch(torch.tensor(index), branches_t, (x,)).shape) == _hinted(se_switch(index, branches, (xf,)).shape)
