"""Symbol allocation: hints, 0/1 specialisation, duck sizing, ranges, unbacked symbols."""

from __future__ import annotations

import math

import pytest

from guards import Source
from shapeenv import ConstraintViolationError, DimDynamic, ShapeEnv
from symint import SymInt
from valueranges import ValueRanges


def size(name: str, dim: int = 0) -> Source:
    return Source.size(name, dim)


def test_static_returns_the_int_and_pins_the_source() -> None:
    env = ShapeEnv()
    assert env.create_symint(7, size("x"), dynamic=DimDynamic.STATIC) == 7
    assert env.specialized == {size("x"): 7}
    assert env.symbols == {}


@pytest.mark.parametrize("hint", [0, 1])
def test_zero_one_specialise_by_default(hint: int) -> None:
    env = ShapeEnv()
    value = env.create_symint(hint, size("x"))
    assert value == hint and not isinstance(value, SymInt)
    assert env.specialized[size("x")] == hint


@pytest.mark.parametrize("hint,low", [(1, 1), (1, 0), (0, 0)])
def test_min_admitting_zero_or_one_keeps_the_dim_symbolic(hint: int, low: int) -> None:
    env = ShapeEnv()
    value = env.create_symint(hint, size("x"), min=low)
    assert isinstance(value, SymInt)
    assert env.bound(value) == ValueRanges.of(low, math.inf)


def test_specialize_zero_one_off_gives_size_range_from_zero() -> None:
    env = ShapeEnv(specialize_zero_one=False)
    value = env.create_symint(1, size("x"))
    assert isinstance(value, SymInt)
    assert env.bound(value) == ValueRanges.of(0, math.inf)


def test_backed_sizes_get_two_to_infinity_intersected_with_min_max() -> None:
    env = ShapeEnv()
    a = env.create_symint(5, size("x"))
    b = env.create_symint(5, size("y"), min=3, max=64)
    assert env.bound(a) == ValueRanges.of(2, math.inf)
    assert env.bound(b) == ValueRanges.of(3, 64)


def test_hint_outside_declared_range_names_source_and_range() -> None:
    env = ShapeEnv()
    with pytest.raises(ConstraintViolationError) as info:
        env.create_symint(100, size("x", 1), min=2, max=64)
    message = str(info.value)
    assert "x.size()[1]" in message and "100" in message and "64" in message


def test_duck_sizing_shares_symbols_with_equal_hints_only() -> None:
    env = ShapeEnv()
    a = env.create_symint(4, size("x"))
    b = env.create_symint(4, size("y"))
    c = env.create_symint(5, size("z"))
    d = env.create_symint(4, size("w"), dynamic=DimDynamic.DYNAMIC)
    assert a.node.expr is b.node.expr
    assert c.node.expr is not a.node.expr and d.node.expr is not a.node.expr
    assert [s.text() for s in env.symbols[a.node.expr].sources] == ["x.size()[0]", "y.size()[0]"]


def test_duck_shape_setting_off_gives_distinct_symbols() -> None:
    env = ShapeEnv(duck_shape=False)
    a, b = env.create_symint(4, size("x")), env.create_symint(4, size("y"))
    assert a.node.expr != b.node.expr


def test_symbols_are_named_by_allocation_order() -> None:
    env = ShapeEnv()
    names = [str(env.create_symint(h, size(f"t{h}"), dynamic=DimDynamic.DYNAMIC)) for h in (9, 3, 7)]
    unbacked = [str(env.create_unbacked_symint()) for _ in range(2)]
    assert names == ["s0", "s1", "s2"] and unbacked == ["u0", "u1"]


def test_unbacked_ranges_depend_on_size_like() -> None:
    env = ShapeEnv()
    u = env.create_unbacked_symint(size_like=True)
    v = env.create_unbacked_symint()
    assert env.bound(u) == ValueRanges.of(0, math.inf)
    assert env.bound(v) == ValueRanges.unknown()
    assert u.node.hint is None


def test_check_nonnegative_or_use_as_size_makes_unbacked_size_like() -> None:
    env = ShapeEnv()
    u, v = env.create_unbacked_symint(), env.create_unbacked_symint()
    env.check(u >= 0)
    env.mark_size_like(v)
    assert env.symbols[u.node.expr].size_like and env.symbols[v.node.expr].size_like
    assert env.bound(v).lower == 0


def test_each_source_is_created_once_and_must_be_a_source() -> None:
    env = ShapeEnv()
    env.create_symint(3, size("x"))
    with pytest.raises(ValueError, match="already has a symbol"):
        env.create_symint(3, size("x"))
    with pytest.raises(TypeError, match="Source"):
        env.create_symint(3, "x.size()[0]")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="hint"):
        env.create_symint(3.0, size("y"))  # type: ignore[arg-type]


def test_settings_are_one_frozen_object() -> None:
    env = ShapeEnv(duck_shape=False, solver_timeout_ms=7)
    assert env.settings.duck_shape is False and env.settings.solver_timeout_ms == 7
    with pytest.raises(AttributeError):
        env.settings.duck_shape = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        ShapeEnv(no_such_setting=True)
