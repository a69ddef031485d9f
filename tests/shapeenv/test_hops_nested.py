"""Nested HOPs export as nested sub-graphs; closures become explicit (captured) sub-graph inputs."""

from __future__ import annotations

import pytest

from shapeenv import Graph, HigherOrderOpError, ShapeEnv, map, scan, switch
from shapeenv.ops.dispatch import graph_arg


def _program(env, *inputs):
    graph = Graph("prog")
    for t in inputs:
        graph.placeholder(t.name, "", t)
    return graph


SWITCH_IN_SCAN = """\
graph prog(xs, init, i, w):
    scan_0: (f32[s1], f32[s0, s1]) = scan(init, xs, dim=0, reverse=False, length=s0, captured={'combine_fn': (i, w)})
        combine_fn =
            graph combine_fn(carry: f32[s1], xs: f32[s1], captured_0: i64[], captured_1: f32[s1]):
                add_0: f32[s1] = add(carry, xs)
                switch_0: f32[s1] = switch(captured_0, (add_0,), captured={'branch_0': (captured_1,)})
                    branch_0 =
                        graph branch_0(operand0: f32[s1], captured_0: f32[s1]):
                            add_0: f32[s1] = add(operand0, captured_0)
                            return add_0
                    branch_1 =
                        graph branch_1(operand0: f32[s1]):
                            mul_0: f32[s1] = mul(operand0, 2)
                            return mul_0
                getitem_0: f32[s1] = getitem(switch_0, 0)
                clone_0: f32[s1] = clone(getitem_0)
                return (getitem_0, clone_0)
    getitem_0: f32[s1] = getitem(scan_0, 0)
    getitem_1: f32[s0, s1] = getitem(scan_0, 1)
    return (getitem_0, getitem_1)"""


def test_switch_inside_scan_is_a_nested_subgraph_and_closures_are_passed_explicitly():
    env = ShapeEnv()
    xs, init = env.fake_tensor((6, 4), name="xs"), env.fake_tensor((4,), name="init")
    i, w = env.fake_tensor((), "int64", name="i"), env.fake_tensor((4,), name="w")
    graph = _program(env, xs, init, i, w)

    def step(carry, x):
        h = switch(i, [lambda c: c + w, lambda c: c * 2], (carry + x,))
        return h, h.clone()

    with env.tracing(graph):
        out = scan(step, init, xs)
        graph.set_output(graph_arg(graph, out))
    assert graph.format() == SWITCH_IN_SCAN
    scan_node = graph.nodes[4]
    body = scan_node.subgraphs["combine_fn"]
    # the outer values passed for the body's captured placeholders, in order
    assert [node.name for node, _ in body.captured] == ["captured_0", "captured_1"]
    assert [v.name for v in scan_node.kwargs["captured"]["combine_fn"]] == ["i", "w"]
    inner = body.nodes[5]
    assert inner.op == "switch" and inner.kwargs["captured"]["branch_0"][0] is body.inputs[3]


def test_map_inside_switch_branch():
    env = ShapeEnv()
    x, i, w = env.fake_tensor((5, 3), name="x"), env.fake_tensor((), "int64", name="i"), env.fake_tensor((3,), name="w")
    graph = _program(env, x, i, w)
    with env.tracing(graph):
        out = switch(i, [lambda t: map(lambda r: r * w, t), lambda t: t + 1], (x,))
    assert out.shape == x.shape
    branch_0 = graph.nodes[3].subgraphs["branch_0"]
    map_node = next(n for n in branch_0.nodes if n.op == "map")
    body = map_node.subgraphs["body"]
    assert [n.name for n in body.inputs] == ["xs", "captured_0"]
    assert map_node.kwargs["captured"] == {"body": (branch_0.inputs[1],)}  # w, captured once more by the branch
    assert graph.nodes[3].kwargs["captured"] == {"branch_0": (graph.inputs[2],)}


def test_scan_inside_map_inside_scan_shapes():
    env = ShapeEnv()
    xs = env.fake_tensor((4, 3, 2), name="xs")
    init = env.fake_tensor((2,), name="init")

    def inner(c, row):
        nxt = c + row
        return nxt, nxt.clone()

    def step(carry, x):  # x: (s1, s2); map over its rows a scan of length 1
        ys = map(lambda row: scan(inner, row, row * 1, dim=0)[1], x)
        return carry + 1, ys

    final, ys = scan(step, init, xs)
    s0, s1, s2 = xs.shape
    assert final.shape == init.shape and ys.shape == (s0, s1, s2, s2) and env.guards == []


def test_nested_body_errors_name_the_inner_hop():
    env = ShapeEnv()
    xs, init = env.fake_tensor((6, 4), name="xs"), env.fake_tensor((4,), name="init")
    i = env.fake_tensor((), "int64", name="i")

    def step(carry, x):
        out = switch(i, [lambda c: c + 1, lambda c: c.add_(1) * 1], (carry,))
        return out, x.clone()

    with pytest.raises(HigherOrderOpError, match=r"^switch: branch_1 mutates its input operand0 in place with add_"):
        scan(step, init, xs)
