"""Tests of shapeenv.hops.switch: specialisation, clamping, joining branch outputs, restrictions."""

from __future__ import annotations

import pytest

from shapeenv import Graph, HigherOrderOpError, ShapeEnv, check, switch

from .test_hops_common import narrow, new_empty, nonzero


def _env():
    env = ShapeEnv()
    x = env.fake_tensor((8, 3), name="x")
    i = env.fake_tensor((), "int64", name="i")
    return env, x, i


def _traced(env, *inputs):
    graph = Graph("prog")
    for t in inputs:
        graph.placeholder(t.name, "", t)
    return graph


# -- specialisation -----------------------------------------------------------------------------------
@pytest.mark.parametrize("index,chosen", [(-3, 0), (0, 0), (1, 1), (2, 2), (9, 2)])
def test_int_index_specialises_and_clamps(index, chosen):
    env, x, _ = _env()
    ran = []
    branches = [lambda t, k=k: (ran.append(k), t * k)[1] for k in range(3)]
    graph = _traced(env, x)
    with env.tracing(graph):
        out = switch(index, branches, (x,))
    assert ran == [chosen] and out.shape == x.shape
    assert [n.op for n in graph.nodes] == ["placeholder", "mul"]  # inlined: no switch node
    assert env.guards == []


def test_symint_index_whose_range_picks_one_branch_specialises_without_a_guard():
    env, x, _ = _env()
    ran = []
    branches = [lambda t, k=k: (ran.append(k), t * k)[1] for k in range(3)]
    switch(x.shape[0] + 1, branches, (x,))  # s0 + 1 >= 3 clamps to branch 2
    u = env.create_unbacked_symint()
    check(u < 0)
    switch(u, branches, (x,))  # u < 0 clamps to branch 0
    assert ran == [2, 0] and env.guards == []


def test_symbolic_index_traces_every_branch_into_one_node():
    env, x, i = _env()
    graph = _traced(env, x, i)
    with env.tracing(graph):
        out = switch(i, [lambda t: t.clone(), lambda t: t + 1, lambda t: t * 2], (x,))
    assert out.shape == x.shape and out.storage is not x.storage
    node = graph.nodes[2]
    assert node.op == "switch" and list(node.subgraphs) == ["branch_0", "branch_1", "branch_2"]
    assert [n.op for n in node.subgraphs["branch_1"].nodes] == ["placeholder", "add"]
    assert graph.format().splitlines()[1] == "    switch_0: f32[s0, s1] = switch(i, (x,))"
    s = x.shape[0]
    graph2 = _traced(env, x)
    with env.tracing(graph2):
        switch(s - 5, [lambda t: t + 1, lambda t: t * 2], (x,))
    assert "switch(s0 - 5, (x,))" in graph2.format() and env.guards == []


def test_data_dependent_index_with_three_branches():
    env, x, _ = _env()
    index = nonzero(x)  # any tensor: its value is data
    out = switch(new_empty(index, (1,)), [lambda t: t * 2, lambda t: t + 10, lambda t: t * t], (x,))
    assert out.shape == x.shape and env.guards == []


# -- joining outputs ------------------------------------------------------------------------------------
def test_int_leaves_that_differ_become_one_unbacked_symint_with_the_hull_range():
    env, x, i = _env()
    out = switch(i, [lambda t: (t + 1, 2, 7), lambda t: (t * 2, 5, 7), lambda t: (t * 3, 3, 7)], (x,))
    tensor, n, same = out
    assert str(n) == "u0" and str(env.bound(n)) == "[2, 5]" and same == 7
    assert [str(a.expr) for a in env.runtime_asserts] == ["u0 >= 2", "u0 <= 5"]
    assert all(a.provenance.op == "switch" for a in env.runtime_asserts)


def test_symbolic_int_leaves_join_over_their_ranges():
    env, x, i = _env()
    s0 = x.shape[0]
    n = switch(i, [lambda t: s0, lambda t: s0 + 1, lambda t: s0], (x,))
    assert str(env.bound(n)) == "[2, oo]" and [str(a.expr) for a in env.runtime_asserts] == ["u0 >= 2"]
    same = switch(i, [lambda t: s0, lambda t: s0 * 1], (x,))
    assert same is s0  # equal in every branch: kept, no new symbol


def test_tensor_dims_that_differ_become_unbacked_sizes_with_the_hull_range():
    env, x, i = _env()
    s0, s1 = x.shape
    out = switch(i, [lambda t: narrow(t, 2).clone(), lambda t: narrow(t, 5).clone(), lambda t: t * 1], (x,))
    u = out.shape[0]
    assert out.shape[1] is s1 and str(u) == "u0"
    assert str(env.bound(u)) == "[2, oo]" and env.symbols[u.node.expr].size_like
    both = switch(i, [lambda t: (narrow(t, 2).clone(), narrow(t, 2) * 2), lambda t: (narrow(t, 4).clone(), narrow(t, 4) + 1)], (x,))
    assert both[0].shape[0] is both[1].shape[0]  # the same values in every branch share one symbol
    assert str(env.bound(both[0].shape[0])) == "[2, 4]"


def test_join_keeps_structure_none_and_dicts():
    env, x, i = _env()
    out = switch(i, [lambda t: {"a": t + 1, "b": [None, 1]}, lambda t: {"a": t * 2, "b": [None, 1]}], (x,))
    assert list(out) == ["a", "b"] and out["b"] == [None, 1] and out["a"].shape == x.shape


def test_tensor_index_records_node_and_captured_inputs():
    env, x, i = _env()
    w = env.fake_tensor((3,), name="w")
    graph = _traced(env, x, i, w)
    with env.tracing(graph):
        out = switch(i, [lambda t: t + w, lambda t: t * 2], (x,))
    node = graph.nodes[3]
    assert node.kwargs["captured"]["branch_0"][0].name == "w" and "branch_1" not in node.kwargs["captured"]
    assert "switch(i, (x,), captured={'branch_0': (w,)})" in graph.format()
    assert [n.name for n in node.subgraphs["branch_0"].inputs] == ["operand0", "captured_0"]
    assert out.shape == x.shape


# -- restrictions ---------------------------------------------------------------------------------------
G = None  # a global a branch mutates (set by the test)


def _mutates_global(t):
    return t + G.add_(1)


ERRORS = [
    ("empty branches", lambda env, x, i: switch(i, [], (x,)), "branches must be a non-empty list"),
    ("branch not callable", lambda env, x, i: switch(i, [lambda t: t, 3], (x,)), r"branch 1 is 3 \(int\), not a callable"),
    ("operands not tuple", lambda env, x, i: switch(i, [lambda t: t], x), "operands must be a tuple of inputs"),
    ("bad operand", lambda env, x, i: switch(i, [lambda t: t], ("s",)), r"operands\[0\] is 's' \(str\)"),
    ("bad index type", lambda env, x, i: switch("0", [lambda t: t], (x,)), "index must be an int, a SymInt or an integer tensor"),
    ("bool index", lambda env, x, i: switch(True, [lambda t: t], (x,)), "index must be an int"),
    ("index with many elements", lambda env, x, i: switch(x, [lambda t: t + 1], (x,)),
     r"a tensor index must hold exactly one element, but the index of shape \(s0, s1\) does not hold one"),
    ("index data-dependent numel", lambda env, x, i: switch(new_empty(i, (nonzero(x).shape[0],)), [lambda t: t + 1], (x,)),
     "cannot be proven to hold one"),
    ("float index", lambda env, x, i: switch(env.fake_tensor((1,), name="f"), [lambda t: t + 1], (x,)),
     "the index tensor has dtype float32; use an integer tensor"),
    ("structure", lambda env, x, i: switch(i, [lambda t: (t + 1,), lambda t: [t + 1]], (x,)),
     r"the branches return different structures \(at the top level: branch_0 has a tuple of 1, branch_1 has a list of 1\)"),
    ("None position", lambda env, x, i: switch(i, [lambda t: (t + 1, None), lambda t: (t + 1, t * 2)], (x,)),
     r"output\[1\] is None in branch_0 but f32\[s0, s1\] in branch_1; None must stand in the same positions"),
    ("kind", lambda env, x, i: switch(i, [lambda t: (t + 1, 3), lambda t: (t + 1, t * 2)], (x,)),
     r"output\[1\] is 3 in branch_0 but f32\[s0, s1\] in branch_1; every branch must return the same kind"),
    ("dtype", lambda env, x, i: switch(i, [lambda t: t + 1, lambda t: new_empty(i, t.shape)], (x,)),
     r"output has dtype float32 in branch_0 but int64 in branch_1; all branches must return the same dtypes"),
    ("rank", lambda env, x, i: switch(i, [lambda t: t + 1, lambda t: new_empty(t, (3,))], (x,)),
     r"output has shape \(s0, s1\) in branch_0 but \(3,\) in branch_1; all branches must return tensors of the same rank"),
    ("bad output leaf", lambda env, x, i: switch(i, [lambda t: (t + 1, "no")], (x,)),
     r"branch_0 returns 'no' \(str\) at output\[1\]"),
    ("returns operand", lambda env, x, i: switch(i, [lambda t: t + 1, lambda t: t], (x,)),
     "branch_1 returns output, which is its input operand0 or a view of it"),
    ("returns operand (specialised)", lambda env, x, i: switch(0, [lambda t: narrow(t, 1)], (x,)),
     r"branch_0 returns output, which is operands\[0\] or a view of it"),
    ("mutates operand", lambda env, x, i: switch(i, [lambda t: t.add_(1) * 1, lambda t: t + 1], (x,)),
     "branch_0 mutates its input operand0 in place with add_"),
    ("mutates operand (specialised)", lambda env, x, i: switch(1, [lambda t: t, lambda t: t.add_(1) * 1], (x,)),
     r"branch_1 mutates operands\[0\] in place \(its version counter went from 0 to 1\)"),
    ("mutates global", lambda env, x, i: switch(i, [lambda t: t + 1, _mutates_global], (x,)),
     "branch_1 mutates global 'G' in place with add_"),
    ("mutates global (specialised)", lambda env, x, i: switch(5, [lambda t: t + 1, _mutates_global], (x,)),
     r"branch_1 mutates global 'G' in place \(its version counter"),
]


@pytest.mark.parametrize("name,run,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_switch_restrictions(name, run, message):
    global G
    env, x, i = _env()
    G = env.fake_tensor((3,), name="g")
    with pytest.raises(HigherOrderOpError, match=message) as info:
        run(env, x, i)
    assert str(info.value).startswith("switch: "), str(info.value)
