"""cat/stack/split/chunk/unbind/squeeze/expand/permute...: symbolic and unbacked sizes, messages, graph nodes."""

from __future__ import annotations

import pytest

from guards import Source
from shapeenv import GuardOnDataDependentSymNode, Graph, ShapeEnv, ShapeError, ops


def _env_xy(x_shape=(4, 6), y_shape=(5, 6), **kw):
    env = ShapeEnv(**kw)
    return env, env.fake_tensor(x_shape, name="x"), env.fake_tensor(y_shape, name="y")


def test_cat_adds_symbolic_sizes_and_unifies_the_others() -> None:
    env, x, y = _env_xy((4, 6), (5, 7), duck_shape=False)
    with pytest.raises(ShapeError, match=r"cat: sizes of tensors must match except in dimension 0\. Expected size s1 but got size s3"):
        ops.cat([x, y])
    env, x, y = _env_xy((4, 6), (5, 6), duck_shape=False)
    out = ops.cat([x, y])
    assert [str(s) for s in out.shape] == ["s0 + s2", "s1"]
    assert [str(g.expr) for g in env.guards] == ["Eq(s3, s1)"]  # one guard, which unifies the two
    assert [str(s) for s in ops.cat([x, x, y], 0).shape] == ["2*s0 + s2", "s1"] and len(env.guards) == 1


def test_cat_with_unbacked_sizes_asserts_equality() -> None:
    env = ShapeEnv()
    u, v = env.create_unbacked_symint(size_like=True), env.create_unbacked_symint(size_like=True)
    a, b = ops.zeros(u, 3, env=env), ops.zeros(v, 3, env=env)
    assert [str(s) for s in ops.cat([a, b]).shape] == ["u0 + u1", "3"] and env.guards == []
    c = ops.zeros(3, u, env=env)
    d = ops.cat([c, ops.zeros(3, v, env=env)])  # needs u0 == u1: data-dependent, so an assert
    assert str(d.shape) == "(6, u0)" and env.guards == [] and len(env.runtime_asserts) == 1


def test_split_specialises_the_number_of_pieces() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((10, 3), name="x")
    pieces = x.split(4)
    assert [str(p.shape[0]) for p in pieces] == ["4", "4", "s0 - 8"]
    assert [str(g.expr) for g in env.guards] == ["Eq(CeilDiv(s0, 4), 3)"]
    assert all(p.is_view_of(x) for p in pieces)
    assert [str(p.storage_offset()) for p in pieces] == ["0", "4*s1", "8*s1"]


def test_split_of_unbacked_size_is_data_dependent() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint(size_like=True)
    with pytest.raises(GuardOnDataDependentSymNode):
        ops.zeros(u, env=env).split(2)


def test_chunk_by_symbolic_size() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((6, 3), name="x")
    assert [str(p.shape[0]) for p in x.chunk(3)] == ["CeilDiv(s0, 3)"] * 2 + ["s0 - 2*CeilDiv(s0, 3)"]
    with pytest.raises(ShapeError, match="chunk: expects `chunks` to be an int greater than 0"):
        x.chunk(0)


def test_squeeze_decides_backed_and_keeps_unbacked() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((1, 4, 1), name="x", dynamic={1})
    assert str(x.squeeze().shape) == "(s0,)" and env.guards == []
    u = env.create_unbacked_symint(size_like=True)
    z = ops.zeros(u, 3, env=env)
    assert str(z.squeeze().shape) == "(u0, 3)" and env.guards == []  # u0 might be 1: kept, as torch does
    m = env.create_symint(1, Source.size("m", 0), min=1)  # a backed size that may be 1
    w = ops.zeros(m, 3)
    assert str(w.squeeze(0).shape) == "(3,)" and [str(g.expr) for g in env.guards] == ["Eq(s1, 1)"]


def test_expand_symbolic_and_unbacked() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((1, 4), name="x", dynamic={1})
    n = env.fake_tensor((7,), name="n").shape[0]
    y = x.expand(n, -1)
    assert [str(s) for s in y.shape] == ["s1", "s0"] and y.stride() == (0, 1) and env.guards == []
    u = env.create_unbacked_symint(size_like=True)
    z = ops.zeros(u, 3, env=env).expand(5, u, 3)  # u0 == u0: nothing to check
    assert str(z.shape) == "(5, u0, 3)" and env.runtime_asserts == []
    v = env.create_unbacked_symint(size_like=True)
    w = ops.zeros(u, 3, env=env).expand(v, 3)  # u0 is not provably 1: assume no broadcast, assert u0 == u1
    assert str(w.shape) == "(u0, 3)" and len(env.runtime_asserts) == 1


@pytest.mark.parametrize(
    "fn,match",
    [
        (lambda x: ops.stack([x, x.t()]), r"stack: expects each tensor to be equal size, but got \[2, 3\] at entry 0 and \[3, 2\] at entry 1"),
        (lambda x: x.permute(0), "permute: number of dims don't match"),
        (lambda x: x.permute(1, 1), "permute: dim 1 appears multiple times"),
        (lambda x: x.expand(3, 3), r"expand: the expanded size of the tensor \(3\) must match the existing size \(2\) at non-singleton dimension 0"),
        (lambda x: x.repeat(1), "repeat: number of dimensions of repeat dims"),
        (lambda x: x.repeat(1, -1), "repeat: repeats must be non-negative"),
        (lambda x: ops.movedim(x, (0, 1), 0), "movedim: invalid source or destination dims"),
        (lambda x: x.split([1, 2]), r"split_with_sizes: expects split_sizes to sum exactly to 2"),
        (lambda x: x.split(0), "split: split_size can only be 0 if dimension size is 0"),
        (lambda x: ops.cat([]), "cat: expected a non-empty list"),
        (lambda x: ops.cat([x, 3]), "cat: tensor 1 must be a FakeTensor"),
        (lambda x: x.flip(0, 0), "flip: dim 0 appears multiple times"),
        (lambda x: x.unsqueeze(3), r"unsqueeze: dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"),
    ],
)
def test_errors_name_the_op_arguments_and_condition(fn, match) -> None:
    x = ShapeEnv().fake_tensor((2, 3), dynamic=False, name="x")
    with pytest.raises(ShapeError, match=match):
        fn(x)


def test_each_op_is_one_graph_node_and_multi_outputs_get_getitems() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 6), name="x")
    graph = Graph("g")
    graph.placeholder("x", "f32[s0, s1]", x)
    with env.tracing(graph):
        a, b = x.chunk(2, 1)
        out = ops.cat([a, b.flip(0)], 0).unsqueeze(0)
    graph.set_output((graph.node_of(out),))
    text = graph.format()
    assert [n.op for n in graph.nodes] == ["placeholder", "chunk", "getitem", "getitem", "flip", "cat", "unsqueeze"]
    assert "cat_0: f32[2*s0, CeilDiv(s1, 2)] = cat([getitem_0, flip_0], 0)" in text


def test_views_share_the_version_counter() -> None:
    env = ShapeEnv()
    x = env.fake_tensor((4, 6), name="x")
    v = x.t().unsqueeze(0).expand(3, -1, -1)
    v2 = x.split(2)[1]
    assert v.is_view_of(x) and v2.is_view_of(x)
    x.add_(1)
    assert v.version == v2.version == 1
    assert x.flip(0).version == 0 and x.repeat(1, 2).is_view_of(x) is False
