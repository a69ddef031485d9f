"""Tests of shapeenv.hops.pytree and shapeenv.hops.common, plus the small test-only ops the HOP tests share.

The helper ops (``narrow``, ``new_empty``, ``nonzero``) are defined here, outside the op registry,
so that the HOP tests do not depend on the op rules of shapeenv.ops.rules.
"""

from __future__ import annotations

import functools
from collections import namedtuple

import pytest

from shapeenv import Dim, HigherOrderOpError, ShapeEnv
from shapeenv.tensor.dtypes import int64
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.hops.common import closure_tensors, decide_equal, fmt_shape, select_view, trace_body
from shapeenv.hops.pytree import flatten, leaf_items, paths, structure_diff, tree_map, unflatten
from shapeenv.ops.dispatch import describe, graph_arg

# -- test-only ops -----------------------------------------------------------------------------------
# Recorded like registered ops but kept out of the global registry (other tests enumerate it).


def _apply(name, out, *args):
    graph = out.env.current_graph()
    if graph is not None:
        graph.call(name, graph_arg(graph, args), {}, describe(out), out)
    return out


def narrow(x, n):
    """``x[:n]``: a view of the first ``n`` rows (shares storage)."""
    return _apply("narrow", FakeTensor(x.env, (n, *x.shape[1:]), x.dtype, stride=x.stride(), storage=x.storage), x, n)


def new_empty(x, shape):
    """A new tensor of ``shape`` with ``x``'s dtype."""
    return _apply("new_empty", FakeTensor(x.env, tuple(shape), x.dtype), x, tuple(shape))


def nonzero(x):
    """``x.nonzero()``: ``(u, x.ndim)`` with a fresh unbacked ``u``."""
    return _apply("nonzero", FakeTensor(x.env, (x.env.create_unbacked_symint(size_like=True), x.ndim), int64), x)


# -- pytree -----------------------------------------------------------------------------------------
Point = namedtuple("Point", "x y")

TREES = [
    # (tree, leaves, paths)
    (7, [7], [""]),
    (None, [None], [""]),
    ((1, 2), [1, 2], ["[0]", "[1]"]),
    ([1, (2, 3)], [1, 2, 3], ["[0]", "[1][0]", "[1][1]"]),
    ({"h": 1, "c": [2, None]}, [1, 2, None], ["['h']", "['c'][0]", "['c'][1]"]),
    (Point(1, {"k": 2}), [1, 2], ["[0]", "[1]['k']"]),
    ((), [], []),
]


@pytest.mark.parametrize("tree,leaves,expected_paths", TREES)
def test_flatten_roundtrip(tree, leaves, expected_paths):
    got, spec = flatten(tree)
    assert got == leaves, tree
    assert paths(spec) == expected_paths, tree
    rebuilt = unflatten(got, spec)
    assert rebuilt == tree and type(rebuilt) is type(tree), (tree, rebuilt)
    assert spec.num_leaves == len(leaves)


def test_tree_map_and_leaf_items():
    assert tree_map(lambda v: v * 10, {"a": (1, [2])}) == {"a": (10, [20])}
    assert leaf_items([1, {"b": 2}]) == [("[0]", 1), ("[1]['b']", 2)]
    with pytest.raises(ValueError, match="expected 2 leaves, got 1"):
        unflatten([1], flatten((1, 2))[1])


DIFFS = [
    ((1, 2), (3, 4), None),
    ((1, 2), [1, 2], "at the top level: a has a tuple of 2, b has a list of 2"),
    ((1, {"h": 2}), (1, {"c": 2}), "at [1]: a has a dict with keys ['h'], b has a dict with keys ['c']"),
    ((1, (2, 3)), (1, (2,)), "at [1]: a has a tuple of 2, b has a tuple of 1"),
    ({"x": 1}, {"x": [1]}, "at ['x']: a has a leaf, b has a list of 1"),
]


@pytest.mark.parametrize("a,b,expected", DIFFS)
def test_structure_diff(a, b, expected):
    assert structure_diff(flatten(a)[1], flatten(b)[1], "a", "b") == expected


# -- sizes ------------------------------------------------------------------------------------------


def test_decide_equal():
    env = ShapeEnv()
    x = env.fake_tensor((4, 4, 6), dynamic={0, 2}, name="x")
    y = env.fake_tensor((4,), dynamic={0: Dim.DYNAMIC}, name="y")  # own symbol, hint 4
    s0, s2 = x.shape[0], x.shape[2]
    u = env.create_unbacked_symint(size_like=True)
    cases = [
        # (a, b, expected, guards recorded)
        (3, 3, True, 0),
        (3, 4, False, 0),
        (s0, s0, True, 0),
        (s0, 2 * s0, False, 0),  # statically: s0 >= 2
        (s0, s2, False, 1),      # decided by the hints (4 != 6): a guard
        (u, s0, None, 0),        # data-dependent: cannot tell
        (y.shape[0], s0, True, 1),  # equal hints: the guard unifies them
    ]
    for a, b, expected, guards in cases:
        before = len(env.guards)
        assert decide_equal(a, b) is expected, (a, b)
        assert len(env.guards) - before == guards, (a, b, env.guards[before:])
    assert env.statically_known_true(y.shape[0] == s0)


def test_fmt_shape():
    assert [fmt_shape(s) for s in [(), (3,), (2, 3)]] == ["()", "(3,)", "(2, 3)"]


@pytest.mark.parametrize("dim,shape,stride", [(0, (3, 2), (2, 1)), (1, (4, 2), (6, 1)), (2, (4, 3), (6, 2))])
def test_select_view(dim, shape, stride):
    x = ShapeEnv().fake_tensor((4, 3, 2), dynamic=False)
    v = select_view(x, dim)
    assert (v.shape, v.stride(), v.dtype, v.is_view_of(x)) == (shape, stride, x.dtype, True)


# -- closures ---------------------------------------------------------------------------------------
G = None  # a global a body names; set by the test


def _uses_global(x):
    return x + G


def test_closure_tensors_finds_cells_globals_partials_and_helpers():
    global G
    env = ShapeEnv()
    a, b, c, d = (env.fake_tensor((2,), name=n) for n in "abcd")
    G = b

    def helper(x):
        return x * c

    def body(x):
        return helper(_uses_global(x)) + a + [d][0]

    found = {name: t for name, t in closure_tensors(body)}
    assert found["closure variable 'a'"] is a
    assert found["global 'G'"] is b
    assert found["closure variable 'c'"] is c
    assert found["closure variable 'd'"] is d
    part = closure_tensors(functools.partial(lambda x, w: x + w, w=d))
    assert [(name, t is d) for name, t in part] == [("partial argument 'w'", True)]
    assert closure_tensors(len) == []


def test_trace_body_records_placeholders_and_rejects_mutation():
    env = ShapeEnv()
    x = env.fake_tensor((3,), name="x")
    body = trace_body(env, "map", "body", lambda t: (t[0] + 1, t[0] * 2), [("xs", (x,))])
    graph = body.finish(body.output)
    assert [n.name for n in graph.inputs] == ["xs_0"]
    assert [n.op for n in graph.nodes] == ["placeholder", "add", "mul"]

    with pytest.raises(HigherOrderOpError, match=r"map: body mutates its input xs\[0\] in place with add_"):
        trace_body(env, "map", "body", lambda t: t[0].add_(1), [("xs", (x,))])
