"""Issue 13's reasoning gaps, each closed with the torch behaviour it matches (or why we differ)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy

from guards import GuardSet, Source, parse_guard, reduce_exact
from guards.guard import as_bool_form
from guards.text.printers import to_sympy_text, to_torch_text
from shapeenv import (
    Dim,
    ExportConstraintError,
    GuardOnDataDependentSymNode,
    ShapeEnv,
    check,
    export,
    mark_dynamic,
    mark_unbacked,
    ops,
    switch,
)
from shapeenv.compile import compile
from symint import SymFloat, SymInt, build, evaluate
from symint import form as F
from symint.form import logic as B
from symint.mathfns import sym_float, sym_math, sym_sqrt, sym_sum
from symint.sympy_io import to_sympy


def parse_sympy(text: str, *args, **kwargs):
    """The sympy view of a parsed guard (the reasoning passes tested here read sympy)."""
    return to_sympy(parse_guard(text, *args, **kwargs))


def size(env, hint, name="x", i=0):
    return env.create_symint(hint, Source.size(name, i))


# -- divisibility normalisation ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "before, expected",
    [
        ("Eq(Mod(3*s, 6), 0)", "Eq(Mod(s, 2), 0)"),
        ("Eq(Mod(3*s, 2), 0)", "Eq(Mod(s, 2), 0)"),
        ("Eq(Mod(3*s, 3), 0)", "True"),
        ("Ne(Mod(4*s + 6*t, 8), 0)", "Ne(Mod(2*s + 3*t, 4), 0)"),
        ("Eq(Mod(s, 6), 0)", "Eq(Mod(s, 6), 0)"),  # nothing to cancel
        ("Eq(Mod(3*s + 1, 6), 0)", "Eq(Mod(3*s + 1, 6), 0)"),  # not a multiple: kept
    ],
)
def test_gcd_normalisation_is_exact(before, expected) -> None:
    # The sympy pass is fed the sympy expression built from the text. Building already applies
    # the form rules (symint.sympy_io.division_by_forms), which take the gcd out of a modulus:
    # Mod(3*s, 6) is built as 3*Mod(s, 2) and Mod(3*s, 2) as Mod(s, 2). The pass must finish
    # the job either way: a multiple of a Mod compared with 0 is the Mod compared with 0.
    s, t = (build.symbol_expr(n) for n in "st")
    written = {
        "Eq(Mod(3*s, 6), 0)": build.eq(build.mod(3 * s, 6), 0),
        "Eq(Mod(3*s, 2), 0)": build.eq(build.mod(3 * s, 2), 0),
        "Eq(Mod(3*s, 3), 0)": build.eq(build.mod(3 * s, 3), 0),
        "Ne(Mod(4*s + 6*t, 8), 0)": build.ne(build.mod(4 * s + 6 * t, 8), 0),
        "Eq(Mod(s, 6), 0)": build.eq(build.mod(s, 6), 0),
        "Eq(Mod(3*s + 1, 6), 0)": build.eq(build.mod(3 * s + 1, 6), 0),
    }[before]
    form = as_bool_form(written)  # the normal form of a relation divides by the gcd (symint.form.logic)
    e = to_sympy(form if form.kind == "const" else B.rel(form.norm.op, form.norm.p, F.const(0)))
    assert to_sympy_text(e) == expected, (before, expected, e)
    for sv in range(-12, 13):
        for tv in (-3, 0, 5):
            assert evaluate(e, {s: sv, t: tv}) == evaluate(written, {s: sv, t: tv})


def test_view_makes_a_named_dim_even_and_export_reports_it_as_for_s_mod_2() -> None:
    # torch: x.view(2, -1, 3) on an (s, 3) input with a named Dim raises a constraint violation
    # that s must be even, the same as for a program that tests s % 2 == 0.
    with pytest.raises(ExportConstraintError) as viewed:
        export(lambda x: x.reshape(2, -1, 3), ((4, 3),), dynamic_shapes=({0: Dim("s")},))
    with pytest.raises(ExportConstraintError) as direct:
        export(lambda x: x + 1 if x.shape[0] % 2 == 0 else x, ((4, 3),), dynamic_shapes=({0: Dim("s")},))
    assert viewed.value.violations[0].kind == direct.value.violations[0].kind == "divisible"
    assert "multiple of 2" in str(viewed.value) and "multiple of 2" in str(direct.value)
    # the fix it suggests is a derived dim, which export accepts
    assert "2*Dim('s_')" in str(viewed.value)
    p = export(lambda x: x.reshape(2, -1, 3), ((4, 3),), dynamic_shapes=({0: 2 * Dim("s_")},))
    assert "(x.size()[0] % 2) == 0" in p.guards.to_text("source")


def test_simplify_drops_mod_of_quotient_next_to_the_divisibility_it_follows_from() -> None:
    # torch test_floordiv_static records s0 % 2 == 0 and s0 % (s0 // 2) == 0; the second follows.
    env = ShapeEnv(); s = size(env, 8)
    assert bool(s % 4 == 0) and bool(s % (s // 4) == 0)
    text = env.produce_guards().to_text("source")
    assert "// 4" not in text and "(x.size()[0] % 4) == 0" in text
    # where s may be 0 the second raises (fails) while the first holds: it is not dropped
    x = build.symbol_expr("s")
    gs = GuardSet.of([parse_sympy("Eq(Mod(s, 4), 0)"), parse_sympy("Eq(Mod(s, FloorDiv(s, 4)), 0)")], {x: Source.size("x", 0)})
    for out in (gs.simplify(), reduce_exact(gs)[0]):
        assert not out.holds({x: 0}) and out.holds({x: 8}) and len(out) == 2


# -- derived dims, Dim.AUTO, mark_unbacked -----------------------------------------------------------
def test_derived_dims_follow_their_root() -> None:
    # torch.export: dy = dx + 1 ties y.size(0) to x.size(0) + 1; the guard is in the produced set.
    dx = Dim("dx", min=3, max=6)
    p = export(lambda x, y: x[1:] + y[:-1] if False else y[1:] + x, ((4,), (5,)), dynamic_shapes=({0: dx}, {0: dx + 1}))
    text = p.guards.to_text("source")
    assert "y.size()[0] == x.size()[0] + 1" in text and "x.size()[0] <= 6" in text
    p2 = export(lambda x: x * 2, ((12,),), dynamic_shapes=({0: 4 * Dim("np")},))
    assert "(x.size()[0] % 4) == 0" in p2.guards.to_text("source")


def test_derived_dim_violation_names_the_inherited_range() -> None:
    dim1 = Dim("dim1", min=2, max=5)
    with pytest.raises(ExportConstraintError) as e:
        export(lambda y: y * 2 if y.shape[0] > 6 else y, ((6,),), dynamic_shapes=({0: 2 * dim1},))
    assert "[4, 10] (inherited from 2 <= dim1 <= 5)" in str(e.value)
    assert "dim1 = Dim('dim1', min=2, max=3)" in str(e.value)


def test_derived_dim_example_must_fit_the_declaration() -> None:
    with pytest.raises(ValueError, match="no np"):
        export(lambda x: x, ((7,),), dynamic_shapes=({0: 4 * Dim("np")},))
    with pytest.raises(TypeError):
        Dim("b", choices=(1, 2)) * 2


def test_dim_auto_specialises_without_complaint() -> None:
    # torch.export Dim.AUTO: no constraint violation; the dim becomes whatever tracing allows.
    p = export(lambda x: x.reshape(2, -1, 3), ((12,),), dynamic_shapes=({0: Dim.AUTO},))
    assert "(x.size()[0] % 6) == 0" in p.guards.to_text("source")
    p = export(lambda x: x + 1, ((1,),), dynamic_shapes=({0: Dim.AUTO},))
    assert p.guards.to_text("source") == "x.size()[0] == 1"


def test_mark_unbacked_one_entry_for_every_size() -> None:
    # torch._dynamo.mark_unbacked: the size is data-dependent (no 0/1 specialisation, no guard on it).
    f = compile(lambda x: x.sum(0) + 1)
    for n in (1, 5, 0):
        x = np.ones((n, 3), dtype=np.float32); mark_unbacked(x, 0)
        assert f(x).shape == (3,)
    (entry,) = f.cache_info().entries
    assert "x.size()[0]" not in entry.guards.to_text("source")
    g = compile(lambda x: x + 1 if x.shape[0] == 3 else x)
    x = np.ones((3,), dtype=np.float32); mark_unbacked(x, 0)
    with pytest.raises(GuardOnDataDependentSymNode):
        g(x)


# -- data-dependent sizes --------------------------------------------------------------------------
def test_nonzero_twice_on_unchanged_tensor_is_one_size() -> None:
    # torch memoises nonzero's unbacked size on the tensor (while its version is unchanged).
    env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x")
    a, b = ops.nonzero(x), ops.nonzero(x)
    assert a.shape[0] is b.shape[0]
    x.add_(1)
    assert str(ops.nonzero(x).shape[0]) != str(a.shape[0])


def test_unbacked_broadcast_defers_equality_as_runtime_assert() -> None:
    # torch: an unbacked size is assumed != 1 when broadcasting, and u == y.size(0) becomes a runtime assert.
    env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x"); y = env.fake_tensor((5,), name="y")
    u = ops.nonzero(x).shape[0]
    z = ops.empty((u,)) + y
    assert str(z.shape[0]) == str(y.shape[0]) and not env.guards
    assert [str(r.expr) for r in env.runtime_asserts][-1] == "Eq(u0, s2)"


def test_counts_are_bounded_by_the_element_count() -> None:
    env = ShapeEnv(); x = env.fake_tensor((4, 3), name="x"); m = env.fake_tensor((3,), "bool", name="m")
    for t in (ops.nonzero(x), ops.masked_select(x, m), ops.unique(x)):
        assert env.statically_known_true(t.shape[0] <= x.numel())


# -- SymFloat, bitwise, sympify ------------------------------------------------------------------------
def test_tensor_divided_by_sqrt_of_a_size() -> None:
    env = ShapeEnv(); x = env.fake_tensor((4, 16), name="x")
    y = x / x.shape[1] ** 0.5
    assert y.shape == x.shape and str(y.dtype) == "float32"
    z = x / sym_sqrt(x.shape[1])
    assert z.shape == x.shape


def test_sym_float_sum_sqrt_and_math_functions() -> None:
    env = ShapeEnv(); a, b, c = (size(env, v, n) for v, n in ((4, "a"), (5, "b"), (6, "c")))
    assert isinstance(sym_float(a), SymFloat) and sym_float(a).node.hint == 4.0
    assert str(sym_sum([a, b, c])) == str(a + b + c)  # torch test_sym_sum
    r = sym_sqrt(a)
    assert isinstance(r, SymFloat) and r.node.hint == 2.0 and float(r) == 2.0
    assert [str(g.expr) for g in env.guards] == ["Eq(FloatSqrt(s0), 2.0)"]  # torch: Eq(OpaqueUnaryFn_sqrt(...), 2.0)
    for name in ("exp", "log", "sin", "cos", "tan", "tanh", "atan", "asinh"):
        v = sym_math(name, b)
        assert math.isclose(v.node.hint, getattr(math, name)(5)), name
        assert math.isclose(evaluate(v.node.expr, {b.node.expr: 5}), getattr(math, name)(5))
    assert env.bound(sym_sqrt(a)).lower == math.sqrt(2)


def test_symint_bitwise_ops() -> None:
    # torch test_symint_bitwise_and/or: a0 & b0 == 0b1000 guards Eq(BitwiseFn_bitwise_and(s0, s1), 8).
    env = ShapeEnv(); a0, b0 = size(env, 0b1100, "a"), size(env, 0b1010, "b")
    res = a0 & b0
    assert isinstance(res, SymInt) and res == 0b1000
    assert str(env.guards[0].expr) == "Eq(BitwiseAnd(s0, s1), 8)"
    assert (a0 | b0) == 0b1110 and (a0 ^ b0) == 0b0110 and (a0 & 0b1010) == 0b1000 and (3 & a0) == 0
    assert str(env.bound(a0 & b0)) == "[0, oo]"


def test_float_ranges_keep_their_float_type() -> None:
    env = ShapeEnv(); s = size(env, 8); check(s <= 10)
    r = env.bound(sym_float(s))
    assert (r.lower, r.upper) == (2.0, 10.0) and all(isinstance(v, float) for v in (r.lower, r.upper))
    assert isinstance(env.bound(s).lower, int)


def test_sympify_uses_the_expression_without_a_guard() -> None:
    # torch test_sympify_symint: sympy.sympify(a) is a.node.expr.
    env = ShapeEnv(); s = size(env, 8)
    assert sympy.sympify(s + 1) == s.node.expr + 1 and sympy.sympify(s > 2) == (s > 2).node.expr
    assert not env.guards


# -- public queries ---------------------------------------------------------------------------------
def test_public_size_oblivious_query_and_replacements_view() -> None:
    env = ShapeEnv(); u = env.create_unbacked_symint(size_like=True)
    assert not env.statically_known_true(u != 1)
    assert env.statically_known_true(u != 1, size_oblivious=True)
    assert env.statically_known_false(u == 1, size_oblivious=True)
    a, b = size(env, 4, "a"), size(env, 5, "b")
    assert bool(a + 1 == b)
    assert dict(env.replacements) == {b.node.expr: a.node.expr + 1}
    with pytest.raises(TypeError):
        env.replacements[a.node.expr] = 3
    import symint
    assert symint.build.add is build.add


def test_produce_guards_tightens_bounds_through_a_difference() -> None:
    # torch derives 14 <= a1 from a1 >= a0 + 8 and a0 >= 6.
    env = ShapeEnv(); a0, a1 = size(env, 10, "a"), size(env, 20, "b")
    assert bool(a0 >= 6) and bool(a1 >= a0 + 8)
    text = env.produce_guards().to_text("source")
    assert "b.size()[0] >= 14" in text
    assert env.produce_guards_with_report().proof.verdict.value == "yes"


# -- path-sensitive facts -----------------------------------------------------------------------------
def test_branch_knows_its_index() -> None:
    # torch (issue 138141) guards again on the index inside the branch it selected; we do not.
    env = ShapeEnv(); x = env.fake_tensor((6,), name="x"); n = env.create_symint(2, Source.value("n"))

    def branch(t):
        if n == 2:
            return t + 1
        return t * 2 if n > 2 else t - 1

    out = switch(n - 1, [branch, branch, branch], (x,))
    assert out.shape == x.shape and env.guards == []


def test_assuming_undoes_itself_and_keeps_implications() -> None:
    env = ShapeEnv(); s, t = size(env, 5, "x"), size(env, 9, "y")
    with env.assuming(s > 10):
        assert env.statically_known_true(s >= 11)
        assert bool(t > 8)  # a guard on this path: kept as an implication
    assert not env.statically_known_true(s >= 11)
    (g,) = env.guards
    assert str(g.expr) == "(s0 <= 10) | (s1 > 8)"
    gs = env.produce_guards()
    assert gs.holds({Source.size("x", 0): 5, Source.size("y", 0): 3})  # the path is not taken: t is free
    assert not gs.holds({Source.size("x", 0): 12, Source.size("y", 0): 3})
    assert gs.holds({Source.size("x", 0): 12, Source.size("y", 0): 9})


# -- set-valued dims ------------------------------------------------------------------------------------
def test_set_valued_dim_guards_in_every_format() -> None:
    p = export(lambda x: x * 2, ((8, 3),), dynamic_shapes=({0: Dim("b", choices=(1, 8, 16))},))
    gs = p.guards
    assert "L['x'].size()[0] in (1, 8, 16)" in gs.to_text("torch").splitlines()
    membership = next(g.expr for g in gs if isinstance(g.expr, sympy.Or))
    assert parse_sympy(to_torch_text(membership)) == membership
    assert parse_sympy(to_sympy_text(membership)) == membership
    back = GuardSet.from_json(gs.to_json())
    assert back.to_text("torch") == gs.to_text("torch")
    checker = gs.compile()
    x = Source.size("x", 0)
    y = Source.size("x", 1)
    for v, ok in ((1, True), (8, True), (16, True), (2, False), (0, False), (17, False)):
        assert gs.holds({x: v, y: 3}) is ok, v
        assert checker.check({"x": np.zeros((v, 3))}) is ok, v
        assert back.holds({x: v, y: 3}) is ok, v


def test_set_valued_dim_keeps_one_cache_entry() -> None:
    f = compile(lambda x: x * 2)
    for n in (8, 1, 16, 1):
        x = np.ones((n, 3), dtype=np.float32); mark_dynamic(x, 0, choices=(1, 8, 16))
        assert f(x).shape == (n, 3)
    (entry,) = f.cache_info().entries
    assert "x.size()[0] in (1, 8, 16)" in entry.guards.to_text("source")


def test_set_valued_dim_example_must_be_a_choice() -> None:
    with pytest.raises(ValueError, match="not one of the choices"):
        export(lambda x: x, ((4,),), dynamic_shapes=({0: Dim("b", choices=(1, 8))},))


def test_guards_on_bitwise_and_float_functions_go_through_every_format() -> None:
    # torch records Eq(BitwiseFn_bitwise_and(...), 8) and OpaqueUnaryFn_sqrt guards; ours print, parse back,
    # serialise, compile and evaluate like any other guard.
    env = ShapeEnv(); a, b = size(env, 12, "x"), size(env, 10, "y")
    assert bool((a & b) == 8) and bool(sym_sqrt(a) > 3)
    gs = env.produce_guards()
    for style in ("torch", "sympy", "source"):
        text = gs.to_text(style)
        assert "BitwiseAnd(" in text and "FloatSqrt(" in text, style
    for g in gs:
        assert parse_sympy(to_torch_text(g.expr, gs.source_map)) is not None
        assert parse_sympy(to_sympy_text(g.expr)) == g.expr
    back = GuardSet.from_json(gs.to_json())
    checker = gs.compile()
    for xs, ys, ok in ((12, 10, True), (13, 10, True), (12, 5, False), (9, 10, False)):
        inputs = {"x": np.zeros(xs), "y": np.zeros(ys)}
        bindings = {Source.size("x", 0): xs, Source.size("y", 0): ys}
        assert checker.check(inputs) is ok and gs.holds(bindings) is ok and back.holds(bindings) is ok, (xs, ys)
    f = compile(lambda x: x * 2 if (x.shape[0] & 1) == 0 else x)
    f(np.ones(8, np.float32)); f(np.ones(10, np.float32)); f(np.ones(9, np.float32))
    assert len(f.cache_info().entries) == 3  # first static, then dynamic, then the odd branch


def test_nested_assumptions_keep_inner_implications() -> None:
    env = ShapeEnv(); s, t = size(env, 20, "x"), size(env, 9, "y")
    with env.assuming(s > 10):
        with env.assuming(s > 15):
            assert env.statically_known_true(s >= 16)
            assert bool(t > 8)
        assert not env.statically_known_true(s >= 16) and env.statically_known_true(s >= 11)
    assert not env.statically_known_true(s >= 11)
    (g,) = env.guards
    gs = env.produce_guards()
    assert not gs.holds({Source.size("x", 0): 20, Source.size("y", 0): 3})
    assert gs.holds({Source.size("x", 0): 12, Source.size("y", 0): 3})
    assert set(map(str, g.expr.args)) == {"s0 <= 10", "s0 <= 15", "s1 > 8"}


# -- issue 24: the rewrite rules inside the facts engine ---------------------------------------------------
def test_decide_and_bound_use_the_rewrite_rules():
    """``min(x, y)*max(x, y) == x*y`` was not provable (no linear combination shows it); the rewrite rules make it
    ``x*y == x*y``. ``env.bound`` of ``min(x, y) - min(x + 10, y + 10)`` is exactly -10 (was [-oo, oo])."""
    from symint import sym_max, sym_min

    env = ShapeEnv()
    x, y = env.create_unbacked_symint(), env.create_unbacked_symint()
    assert env.statically_known_true(sym_min(x, y) * sym_max(x, y) == x * y)
    assert env.statically_known_true(sym_max(x, 2 * y) + sym_min(x, 2 * y) == x + 2 * y)
    assert str(env.bound(sym_min(x, y) - sym_min(x + 10, y + 10))) == "[-10, -10]"
    assert not env.guards and not env.runtime_asserts
