"""Small API comforts a newcomer reaches for first (issue: torch's other outputs, item 6)."""

from __future__ import annotations

import pydoc

import pytest
import sympy

import shapeenv
from guards import GuardSet, Source
from shapeenv import Dim, ShapeEnv, export, statically_known_true
from shapeenv.core.errors import ShapeEnvTypeError


def test_hint_of_takes_symbolic_values_and_plain_numbers() -> None:
    env = ShapeEnv()
    s = env.create_symint(8, Source.size("x", 0))
    assert env.hint_of(s) == 8 and env.hint_of(s * 3 - 1) == 23  # before: AttributeError (no free_symbols)
    assert env.hint_of(s > 3) is True and env.hint_of(7) == 7
    assert env.hint_of(env.create_unbacked_symint()) is None


def test_statically_known_true_on_a_sympy_relation() -> None:
    env = ShapeEnv()
    s = env.create_symint(8, Source.size("x", 0))
    expr = s.node.expr
    assert env.statically_known_true(sympy.Gt(expr, 1)) is True  # before: TypeError
    assert env.statically_known_true(sympy.Gt(expr, 3)) is False
    assert env.statically_known_false(sympy.Lt(expr, 2)) is True
    assert env.guards == []
    with pytest.raises(ShapeEnvTypeError, match="condition"):
        env.statically_known_true(expr + 1)
    # the module-level function has no environment to ask: a typed error that says which to use
    with pytest.raises(ShapeEnvTypeError, match=r"env\.statically_known_true"):
        statically_known_true(sympy.Gt(expr, 1))


def test_an_exported_program_gives_its_input_shapes_by_name() -> None:
    p = export(lambda x, y: x @ y, ((4, 3), (3, 5)), dynamic_shapes={"x": {0: Dim("batch", max=64)}})
    shapes = p.input_shapes
    assert list(shapes) == ["x", "y"] and shapes["y"] == (3, 5)
    batch = shapes["x"][0]
    assert str(batch) == "s0" and str(p.env.bound(batch)) == "[2, 64]"
    assert str(p.output_shapes) == "(s0, 5)"


def test_output_shapes_mirror_the_returned_structure() -> None:
    one = export(lambda x: x * 2, ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    several = export(lambda x: {"a": x, "b": (x.sum(0), x.sum(1))}, ((4, 3),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    assert str(one.output_shapes) == "(s0, 3)"
    assert str(several.output_shapes) == "{'a': (s0, 3), 'b': ((3,), (s0,))}"


def test_the_repr_of_a_guard_set_names_sources() -> None:
    p = export(lambda x: x.view(-1, 4), ((8,),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
    text = repr(p.guards)
    assert "x.size()[0]" in text and "s0" not in text  # before: GuardSet(s0 >= 4, Eq(Mod(s0, 4), 0))
    s0 = sympy.Symbol("n", integer=True)
    assert repr(GuardSet.of([sympy.Ge(s0, 2)])) == "GuardSet(n >= 2)"  # no source: sympy's text


def test_help_on_export_explains_dynamic_shapes_itself() -> None:
    text = pydoc.render_doc(shapeenv.export, renderer=pydoc.plaintext)
    assert "see the module docstring" not in text  # before: all help() said about the arguments
    for needed in ("Dim(", "Dim.DYNAMIC", "Dim.STATIC", "Dim.AUTO", "2 * d", "min=", "max="):
        assert needed in text, needed
