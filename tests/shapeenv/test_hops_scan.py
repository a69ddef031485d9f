"""Tests of shapeenv.hops.scan: output shapes, length and dim handling, and every restriction's error."""

from __future__ import annotations

import re

import pytest

from shapeenv import Dim, Graph, HigherOrderOpError, ShapeEnv, check, scan
from shapeenv.tensor.tensor import FakeTensor
from shapeenv.tensor.dtypes import float32, int64

from .test_hops_common import narrow, new_empty, nonzero


def cumsum(carry, x):
    nxt = carry + x
    return nxt, nxt.clone()


def shapes(tree):
    if isinstance(tree, dict):
        return {k: shapes(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(shapes(v) for v in tree)
    return tree.shape


def _env_xs_init(xs_shape, init_shape, dynamic=True):
    env = ShapeEnv()
    xs = env.fake_tensor(xs_shape, name="xs", dynamic=dynamic)
    init = env.fake_tensor(init_shape, name="init", dynamic=dynamic)
    return env, xs, init


# -- shapes -----------------------------------------------------------------------------------------

SHAPE_CASES = [
    # (name, xs shape, init shape, dynamic, combine_fn, kwargs, expected (final carry, ys) shapes as strings)
    ("cumsum static", (5, 3), (3,), False, cumsum, {}, ("(3,)", "(5, 3)")),
    ("cumsum symbolic", (5, 3), (3,), True, cumsum, {}, ("(s1,)", "(s0, s1)")),
    ("reverse", (5, 3), (3,), True, cumsum, {"reverse": True}, ("(s1,)", "(s0, s1)")),
    ("dim=1", (3, 5), (3,), True, cumsum, {"dim": 1}, ("(s0,)", "(s1, s0)")),
    ("dim=-1", (3, 5), (3,), True, cumsum, {"dim": -1}, ("(s0,)", "(s1, s0)")),
    ("y smaller than x", (4, 3, 2), (), False, lambda c, x: (c + 1, narrow(x, 1).clone()), {"dim": 1},
     ("()", "(3, 1, 2)")),
    ("length equal to xs", (5, 3), (3,), False, cumsum, {"length": 5}, ("(3,)", "(5, 3)")),
    ("empty xs, static", (0, 3), (3,), False, cumsum, {}, ("(3,)", "(0, 3)")),
]


@pytest.mark.parametrize("name,xs_shape,init_shape,dynamic,fn,kwargs,expected", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_scan_shapes(name, xs_shape, init_shape, dynamic, fn, kwargs, expected):
    env, xs, init = _env_xs_init(xs_shape, init_shape, dynamic)
    final, ys = scan(fn, init, xs, **kwargs)
    got = (str(tuple(final.shape)), str(tuple(ys.shape)))
    assert got == expected, (name, got)
    assert final.dtype == init.dtype and ys.dtype == init.dtype
    assert final.storage is not init.storage  # fresh outputs, never the inputs


def test_scan_pytrees_of_carries_and_inputs():
    env = ShapeEnv()
    xs = {"a": env.fake_tensor((6, 4), name="a"), "b": [env.fake_tensor((6,), "int64", name="b")]}
    init = (env.fake_tensor((4,), name="h"), {"n": env.fake_tensor((), "int64", dynamic=False, name="n")})

    def step(carry, x):
        h, counts = carry
        h2 = h + x["a"]
        return (h2, {"n": counts["n"] + x["b"][0]}), {"h": h2.clone(), "b": x["b"][0] * 2}

    final, ys = scan(step, init, xs)
    assert shapes(final) == (init[0].shape, {"n": ()})
    assert shapes(ys) == {"h": (xs["a"].shape[0], init[0].shape[0]), "b": (xs["a"].shape[0],)}
    assert ys["b"].dtype == int64 and final[1]["n"].dtype == int64


def test_scan_length_only_passes_none_and_stacks_length():
    env = ShapeEnv()
    init = env.fake_tensor((2, 3), name="init")
    seen = []

    def step(carry, x):
        seen.append(x)
        return carry * 2, carry.clone()

    final, ys = scan(step, init, None, length=7)
    assert seen == [None]  # traced once, with x=None
    assert (final.shape, ys.shape) == (init.shape, (7, *init.shape))
    n = env.fake_tensor((9,), name="n").shape[0]
    _, ys = scan(step, init, None, length=n)
    assert ys.shape == (n, *init.shape)
    _, ys = scan(step, init, [], length=0)  # an empty pytree of xs behaves like None
    assert ys.shape == (0, *init.shape) and seen[-1] is None


def test_scan_length_zero_still_traces_and_checks_the_body():
    env = ShapeEnv()
    init = env.fake_tensor((3,), dynamic=False, name="init")
    calls = []

    def step(carry, x):
        calls.append(x)
        return carry + 1, new_empty(carry, (carry.shape[0], 2))

    final, ys = scan(step, init, None, length=0)
    assert calls == [None] and final.shape == (3,) and ys.shape == (0, 3, 2)
    with pytest.raises(HigherOrderOpError, match=r"carry: shape \(4,\) does not match init \(3,\)"):
        scan(lambda c, x: (new_empty(c, (4,)), c.clone()), init, None, length=0)


def test_scan_unifies_xs_leaf_sizes_with_a_guard():
    env = ShapeEnv()
    a = env.fake_tensor((5, 2), dynamic={0: Dim.DYNAMIC}, name="a")
    b = env.fake_tensor((5,), dynamic={0: Dim.DYNAMIC}, name="b")
    assert a.shape[0] is not b.shape[0]
    init = env.fake_tensor((2,), dynamic=False, name="init")
    _, ys = scan(lambda c, x: (c + x[0], x[1] * 1), init, (a, b))
    assert len(env.guards) == 1 and env.guards[0].provenance.op == "scan"
    assert env.statically_known_true(a.shape[0] == b.shape[0])
    assert env.statically_known_true(ys.shape[0] == b.shape[0])


def test_scan_symbolic_length_must_match_xs():
    env = ShapeEnv()
    xs = env.fake_tensor((5, 2), dynamic={0}, name="xs")
    n = xs.shape[0]
    init = env.fake_tensor((2,), dynamic=False, name="init")
    _, ys = scan(cumsum, init, xs, length=n)
    assert ys.shape[0] is n and env.guards == []
    _, ys = scan(cumsum, init, xs, length=5)  # pins the scan length: guard s0 == 5
    assert [str(g.expr) for g in env.guards] == ["Eq(s0, 5)"]


def test_scan_symbolic_length_gets_a_non_negative_assert():
    env = ShapeEnv()
    init = env.fake_tensor((2,), dynamic=False, name="init")
    u = env.create_unbacked_symint()
    _, ys = scan(lambda c, x: (c * 2, c.clone()), init, None, length=u)
    assert ys.shape[0] is u
    assert [str(a.expr) for a in env.runtime_asserts] == ["u0 >= 0"] and env.guards == []


# -- restrictions -----------------------------------------------------------------------------------


def _inputs():
    env = ShapeEnv()
    xs = env.fake_tensor((5, 3), name="xs")
    init = env.fake_tensor((3,), name="init")
    return env, xs, init


def _carry_dict_mismatch(c, x):
    return (c[0] + 1, {"h": new_empty(c[1]["h"], (c[1]["h"].shape[0], 4))}), c[0].clone()


ERRORS = [
    # (name, call(env, xs, init), message regex)
    ("combine not callable", lambda env, xs, init: scan(3, init, xs), "combine_fn must be callable"),
    ("dim not int", lambda env, xs, init: scan(cumsum, init, xs, dim=0.5), "dim must be an int"),
    ("reverse not bool", lambda env, xs, init: scan(cumsum, init, xs, reverse=1), "reverse must be a bool"),
    ("init empty", lambda env, xs, init: scan(cumsum, (), xs), "init has no leaves"),
    ("init leaf not tensor", lambda env, xs, init: scan(cumsum, (init, 3), xs),
     r"init leaf \[1\] is 3 \(int\); init leaves must be tensors"),
    ("xs leaf not tensor", lambda env, xs, init: scan(cumsum, init, [xs, 2.0]),
     r"xs leaf \[1\] is 2.0 \(float\); xs leaves must be tensors"),
    ("dim out of range", lambda env, xs, init: scan(cumsum, init, xs, dim=2),
     r"dim=2 is out of range for xs of shape \(s0, s1\)"),
    ("leaf without dim", lambda env, xs, init: scan(cumsum, init, (xs, init), dim=1),
     r"xs leaf \[1\] of shape \(s1,\) has no dimension 1"),
    ("xs sizes differ", lambda env, xs, init: scan(cumsum, init, (xs, env.fake_tensor((6, 3), name="z"))),
     r"xs leaf \[1\] has size s2 along dim 0, which differs from the size s0 of xs leaf \[0\]"),
    ("xs sizes provably differ", lambda env, xs, init: scan(cumsum, init, (xs, FakeTensor(env, (2 * xs.shape[0], 3), float32))),
     r"size 2\*s0 along dim 0, which differs from the size s0"),
    ("xs sizes data-dependent", lambda env, xs, init: scan(cumsum, init, (xs, nonzero(xs))),
     r"size u0 along dim 0, which cannot be proven equal to the size s0 .*check\(u0 == s0\)"),
    ("length mismatch", lambda env, xs, init: scan(cumsum, init, xs, length=4),
     r"length=4 does not match the size s0 of xs along dim 0"),
    ("length not int", lambda env, xs, init: scan(cumsum, init, xs, length=2.0), "length must be an int or a SymInt"),
    ("no xs, no length", lambda env, xs, init: scan(cumsum, init, None), "pass length=N"),
    ("negative length", lambda env, xs, init: scan(cumsum, init, None, length=-1), "length=-1 is negative"),
    ("not a pair", lambda env, xs, init: scan(lambda c, x: c + x, init, xs),
     r"combine_fn must return a pair \(next_carry, y\), got f32\[s1\]"),
    ("carry structure", lambda env, xs, init: scan(lambda c, x: ([c[0] + 1], c[0].clone()), (init,), xs),
     r"next_carry does not have init's structure \(at the top level: init has a tuple of 1, next_carry has a list of 1\)"),
    ("carry shape", lambda env, xs, init: scan(_carry_dict_mismatch, (init, {"h": env.fake_tensor((5, 5), dynamic={0}, name="h")}), xs),
     re.escape("carry leaf [1]['h']: shape (s0, 4) does not match init (s0, 5)")),
    ("carry rank", lambda env, xs, init: scan(lambda c, x: (new_empty(c, (1, 3)), c.clone()), init, xs),
     r"carry: shape \(1, 3\) does not match init \(s1,\)"),
    ("carry dtype", lambda env, xs, init: scan(lambda c, x: (new_empty(env.fake_tensor((2,), "int64", name="q"), c.shape), c.clone()), init, xs),
     r"carry: dtype int64 does not match init \(float32\)"),
    ("carry not tensor", lambda env, xs, init: scan(lambda c, x: (3, c.clone()), init, xs),
     r"carry is 3 \(int\), but init holds a tensor there"),
    ("y not tensor", lambda env, xs, init: scan(lambda c, x: (c + 1, (x.clone(), None)), init, xs),
     r"y leaf \[1\] is None \(NoneType\); y is stacked"),
    ("returns carry", lambda env, xs, init: scan(lambda c, x: (c, x.clone()), init, xs),
     r"combine_fn returns next_carry, which is its input carry or a view of it .*clone"),
    ("returns x view", lambda env, xs, init: scan(lambda c, x: (c + 1, narrow(x, 1)), init, xs),
     r"combine_fn returns y, which is its input xs or a view of it"),
    ("returns outer tensor", lambda env, xs, init: scan(lambda c, x: (c + 1, init), init, xs),
     r"combine_fn returns y, which is init or a view of it"),
    ("output-output alias", lambda env, xs, init: scan(lambda c, x: (lambda n: (n, n))(c + x), init, xs),
     r"combine_fn returns next_carry and y, which share storage .*clone"),
    ("mutates carry", lambda env, xs, init: scan(lambda c, x: (c.add_(x), x.clone()), init, xs),
     r"combine_fn mutates its input carry in place with add_"),
    ("mutates x", lambda env, xs, init: scan(lambda c, x: (c + 1, narrow(x, 1).add_(1).clone()), init, xs),
     r"combine_fn mutates its input xs in place with add_"),
]


@pytest.mark.parametrize("name,run,message", ERRORS, ids=[e[0] for e in ERRORS])
def test_scan_restrictions(name, run, message):
    env, xs, init = _inputs()
    with pytest.raises(HigherOrderOpError, match=message) as info:
        run(env, xs, init)
    assert str(info.value).startswith("scan: "), str(info.value)


def test_scan_rejects_mutating_closures_globals_and_captured_tensors():
    env, xs, init = _inputs()
    w = env.fake_tensor((3,), name="w")

    class Holder:
        weight = env.fake_tensor((3,), name="weight")

    holder = Holder()

    def sneaky(c, x):
        y = c + holder.weight  # captured here, by a read
        holder.weight.storage.version += 1  # then changed by an in-place op not named like one
        return y, x.clone()

    cases = [
        (lambda c, x: (c + w.add_(1), x.clone()), "closure variable 'w'"),
        (lambda c, x: (c + holder.weight.add_(1), x.clone()), r"the captured tensor captured_0 \(f32\[s1\]\)"),
        (sneaky, r"the captured tensor captured_0 \(f32\[s1\]\) in place \(its version counter went from 1 to 2\)"),
    ]
    for fn, who in cases:
        with pytest.raises(HigherOrderOpError, match=f"combine_fn mutates {who}"):
            scan(fn, init, xs)


def test_scan_error_happens_before_any_output_and_body_may_mutate_its_own_temporaries():
    env, xs, init = _inputs()

    def step(c, x):
        tmp = c + x
        tmp.add_(1)  # a temporary the body created: allowed
        return tmp, tmp.clone()

    final, ys = scan(step, init, xs)
    assert ys.shape == xs.shape


def test_scan_data_dependent_carry_needs_a_check():
    env, xs, init = _inputs()
    with pytest.raises(HigherOrderOpError, match=r"cannot be proven to match init"):
        scan(lambda c, x: (new_empty(c, (nonzero(x).shape[0],)), x.clone()), init, xs)

    def checked(c, x):
        u = nonzero(x).shape[0]
        check(u == c.shape[0])
        return new_empty(c, (u,)), x.clone()

    final, _ = scan(checked, init, xs)
    assert final.shape == init.shape


def test_scan_records_one_node_with_the_combine_graph():
    env, xs, init = _inputs()
    graph = Graph("prog")
    graph.placeholder("xs", "", xs)
    graph.placeholder("init", "", init)
    with env.tracing(graph):
        final, ys = scan(cumsum, init, xs, reverse=True)
    text = graph.format()
    assert "scan_0: (f32[s1], f32[s0, s1]) = scan(init, xs, dim=0, reverse=True, length=s0)" in text, text
    assert [n.op for n in graph.nodes] == ["placeholder", "placeholder", "scan", "getitem", "getitem"]
    body = graph.nodes[2].subgraphs["combine_fn"]
    assert not body.is_root and [n.name for n in body.inputs] == ["carry", "xs"]
    assert [n.op for n in body.nodes[2:]] == ["add", "clone"]
    assert graph.node_of(final).op == "getitem" and graph.node_of(ys).args[1] == 1
