"""Tests of shapeenv.hops.map: output shapes, leading-dim unification and non-zero checks, restrictions."""

from __future__ import annotations

import pytest

from shapeenv import Dim, Graph, HigherOrderOpError, ShapeEnv, map
from shapeenv.tensor.dtypes import int64

from .test_hops_common import narrow, new_empty, nonzero


def test_map_over_a_batch():
    env = ShapeEnv()
    xs = env.fake_tensor((3, 4, 5), name="xs")
    seen = []

    def f(x):
        seen.append(x.shape)
        return x * 2 + 1

    out = map(f, xs)
    assert seen == [xs.shape[1:]]  # traced once, on one slice
    assert out.shape == xs.shape and out.dtype == xs.dtype and out.storage is not xs.storage


CASES = [
    # (name, build(env) -> (f, xs, args), expected output shapes as a string)
    ("static", lambda env: (lambda x: x + 1, env.fake_tensor((3, 4), dynamic=False), ()), "(3, 4)"),
    ("list xs", lambda env: (lambda x: x[0] + x[1],
                             [env.fake_tensor((2, 3), dynamic=False, name="a"),
                              env.fake_tensor((2, 3), dynamic=False, name="b")], ()), "(2, 3)"),
    ("dict xs and args", lambda env: (lambda x, c, k: x["v"] * c + k,
                                      {"v": env.fake_tensor((6, 3), dynamic=False, name="v")},
                                      (env.fake_tensor((3,), dynamic=False, name="c"), 2.0)), "(6, 3)"),
    ("output pytree", lambda env: (lambda x: {"sum": x + x, "rows": new_empty(x, (7,))},
                                   env.fake_tensor((4, 2), dynamic=False), ()), "{'sum': (4, 2), 'rows': (4, 7)}"),
    ("symbolic", lambda env: (lambda x: new_empty(x, (x.shape[0] * 2,)), env.fake_tensor((5, 3), name="x"), ()),
     "(s0, 2*s1)"),
]


def _shapes(tree) -> str:
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {_shapes(v)}" for k, v in tree.items()) + "}"
    return str(tuple(tree.shape))


@pytest.mark.parametrize("name,build,expected", CASES, ids=[c[0] for c in CASES])
def test_map_shapes(name, build, expected):
    env = ShapeEnv()
    f, xs, args = build(env)
    assert _shapes(map(f, xs, *args)) == expected


def test_map_unifies_leading_dims_with_a_guard():
    env = ShapeEnv()
    a = env.fake_tensor((4, 3), dynamic={0: Dim.DYNAMIC}, name="a")
    b = env.fake_tensor((4,), dynamic={0: Dim.DYNAMIC}, name="b")
    out = map(lambda x: x[0] * x[1], (a, b))
    assert [str(g.expr) for g in env.guards] == ["Eq(s1, s0)"] and env.guards[0].provenance.op == "map"
    assert out.shape == (a.shape[0], 3)
    assert env.statically_known_true(a.shape[0] == b.shape[0])


def test_map_non_zero_leading_dim():
    # provably >= 1: nothing recorded
    env = ShapeEnv()
    map(lambda x: x + 1, env.fake_tensor((4, 2), name="x"))
    assert env.guards == [] and env.runtime_asserts == []
    # a dim declared with min=0: a runtime assert, not a guard
    env = ShapeEnv()
    x = env.fake_tensor((4, 2), dynamic={0: Dim("n", min=0)}, name="x")
    map(lambda t: t + 1, x)
    assert env.guards == [] and [str(a.expr) for a in env.runtime_asserts] == ["s0 >= 1"]
    # data-dependent: a runtime assert too
    env = ShapeEnv()
    rows = nonzero(env.fake_tensor((4, 2), name="x"))
    out = map(lambda r: r * 2, rows)
    assert out.shape == rows.shape and [str(a.expr) for a in env.runtime_asserts] == ["u0 >= 1"]
    assert env.bound(rows.shape[0]).lower == 1


def test_map_records_one_node_with_the_body_graph():
    env = ShapeEnv()
    xs = env.fake_tensor((3, 4), name="xs")
    c = env.fake_tensor((4,), name="c")
    graph = Graph("prog")
    graph.placeholder("xs", "", xs)
    graph.placeholder("c", "", c)
    with env.tracing(graph):
        out = map(lambda x, k: x * k, xs, c)
    node = graph.nodes[2]
    assert (node.op, node.meta) == ("map", "f32[s0, s1]")
    assert graph.format().splitlines()[1] == "    map_0: f32[s0, s1] = map(xs, (c,))"
    body = node.subgraphs["body"]
    assert [n.name for n in body.inputs] == ["xs", "arg0"] and body.captured == []
    assert graph.node_of(out).op == "getitem"


ERRORS = [
    ("f not callable", lambda env, xs: map("f", xs), "f must be callable"),
    ("no leaves", lambda env, xs: map(lambda x: x, []), "xs has no leaves"),
    ("non-tensor leaf", lambda env, xs: map(lambda x: x, [xs, 3]),
     r"xs leaf \[1\] is 3 \(int\); mapped xs can only consist of tensors"),
    ("0-d leaf", lambda env, xs: map(lambda x: x, env.fake_tensor((), name="z")), "xs is 0-d"),
    ("leading dims differ", lambda env, xs: map(lambda x: x[0] + 1, (xs, env.fake_tensor((4, 3), name="y"))),
     r"xs leaf \[1\] of shape \(s2, s1\) has leading size s2, which differs from s0 of xs leaf \[0\] \(s0, s1\)"),
    ("leading dims data-dependent", lambda env, xs: map(lambda x: x[0] + 1, (xs, nonzero(xs))),
     r"has leading size u0, which cannot be proven equal to s0"),
    ("leading dim 0", lambda env, xs: map(lambda x: x + 1, env.fake_tensor((0, 3), name="e")),
     "the leading dimension of xs is 0, which is 0"),
    ("leading dim hint 0", lambda env, xs: map(lambda x: x + 1, env.fake_tensor((0, 3), dynamic={0: Dim("e", min=0)}, name="e")),
     r"the leading dimension of xs is s\d+, which is 0"),
    ("bad arg", lambda env, xs: map(lambda x, o: x, xs, object()), r"args\[0\] is <object object"),
    ("output not tensor", lambda env, xs: map(lambda x: (x + 1, 3), xs),
     r"f returns 3 \(int\) at output\[1\]; map stacks f's outputs, so they must be tensors"),
    ("returns input", lambda env, xs: map(lambda x: x, xs), "body returns its output, which is its input xs or a view"),
    ("returns view", lambda env, xs: map(lambda x: narrow(x, 1), xs), "which is its input xs or a view of it"),
    ("returns arg", lambda env, xs: map(lambda x, c: (x + 1, c), xs, new_empty(xs, (3,))),
     r"returns its output\[1\], which is its input arg0"),
    ("mutates input", lambda env, xs: map(lambda x: x.add_(1).clone(), xs), "body mutates its input xs in place"),
    ("mutates shared arg", lambda env, xs: map(lambda x, c: x + c.add_(1), xs, env.fake_tensor((3,), name="c")),
     "body mutates its input arg0 in place with add_"),
]


@pytest.mark.parametrize("name,run,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_map_restrictions(name, run, message):
    env = ShapeEnv()
    xs = env.fake_tensor((5, 3), name="xs")
    with pytest.raises(HigherOrderOpError, match=message) as info:
        run(env, xs)
    assert str(info.value).startswith("map: "), str(info.value)


def test_map_int_outputs_keep_dtype():
    env = ShapeEnv()
    xs = env.fake_tensor((2, 3), "int64", dynamic=False)
    assert map(lambda x: x * 2, xs).dtype == int64
