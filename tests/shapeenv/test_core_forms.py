"""shapeenv/core records and decides on forms: one record_guard, one static, one guard_bool, one guard_value."""

from __future__ import annotations

from guards import Source
from shapeenv import ShapeEnv
from symint.form import logic as B
from symint import form as F
from symint.build import ge, symbol_expr


def test_the_paired_apis_are_one():
    env = ShapeEnv()
    for gone in ("static_expr", "static_form", "guard_form", "guard_int_form"):
        assert not hasattr(env.decider, gone), gone
    assert not hasattr(env, "record_guard_form")


def test_record_guard_takes_a_form_and_learns_it():
    env = ShapeEnv()
    s = env.create_symint(8, Source.size("x", 0))
    name = s.node.expr.name
    cond = B.rel(">=", F.sym(name), F.const(5))
    env.record_guard(cond, cond, "test")
    assert env.guards[-1].form is cond
    assert env.decider.static(B.rel(">=", F.sym(name), F.const(4))) is True


def test_record_guard_takes_sympy_converted_once():
    env = ShapeEnv()
    s = env.create_symint(8, Source.size("x", 0))
    env.record_guard(ge(s.node.expr, 6), ge(s.node.expr, 6), "test")
    assert isinstance(env.guards[-1].form, B.BoolForm)
    assert env.statically_known_true(s >= 6)


def test_static_takes_forms_sympy_symbools_and_bools():
    env = ShapeEnv()
    s = env.create_symint(8, Source.size("x", 0))
    assert bool(s > 5)  # a guard: s >= 6
    name = s.node.expr.name
    assert env.decider.static(B.rel(">", F.sym(name), F.const(5))) is True
    assert env.decider.static(ge(symbol_expr(name), 6)) is True
    assert env.decider.static(s >= 6) is True
    assert env.decider.static(False) is False


def test_guards_recorded_inside_assuming_are_implications_as_forms():
    env = ShapeEnv()
    s = env.create_symint(5, Source.size("x", 0))
    t = env.create_symint(7, Source.size("y", 0))
    with env.assuming(s > 3):
        assert bool(t > 6)
    record = env.guards[-1]
    assert isinstance(record.form, B.BoolForm) and record.form.kind == "or"
    assert len(env.produce_guards(simplify=False)) >= 1
