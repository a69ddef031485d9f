"""Symbols are names (Note [Symbols are names] in shapeenv.core.symbols; Note [A guard set names its symbols]
in guards.guardset): the engine keys symbols by name, and the public views keyed by sympy Symbols still work."""

from __future__ import annotations

import pytest

from guards import GuardSet, Source
from guards.errors import GuardTypeError
from shapeenv import DimDynamic, ShapeEnv
from shapeenv.core.errors import UnknownSymbolError
from symint import form as F
from symint.build import lt, symbol_expr
from symint.form import logic as B
from valueranges import ValueRanges


def _env():
    env = ShapeEnv(duck_shape=False)
    a = env.create_symint(8, Source.size("x", 0), dynamic=DimDynamic.DYNAMIC)
    u = env.create_unbacked_symint(size_like=True)
    return env, a, u


def test_the_symbol_table_answers_names_and_sympy_symbols_alike():
    env, a, _ = _env()
    table = env.symbols
    assert list(table.by_name) == ["s0", "u0"]
    for key in ("s0", symbol_expr("s0"), a.node.expr):
        assert key in table
        assert table[key] is table.by_name["s0"] and table.get(key) is table.by_name["s0"]
    assert table["s0"].hint == 8 and table["u0"].hint is None and table["u0"].size_like
    assert table["s0"].sources == [Source.size("x", 0)]
    # the public view: iteration and items() give sympy Symbols, as before
    assert list(table) == [symbol_expr("s0"), symbol_expr("u0")]
    assert [(s.name, i.index) for s, i in table.items()] == [("s0", 0), ("u0", 1)]
    assert table["u0"].symbol == symbol_expr("u0") and table["u0"].name == "u0"


@pytest.mark.parametrize("key", ["s9", symbol_expr("s9"), symbol_expr("s0") + 1, 3, None, ""])
def test_an_unknown_key_is_absent_and_its_lookup_says_what_the_table_has(key):
    env, _, _ = _env()
    assert key not in env.symbols and env.symbols.get(key) is None
    with pytest.raises(KeyError) as info:  # UnknownSymbolError is a KeyError: Mapping code keeps working
        env.symbols[key]
    assert isinstance(info.value, UnknownSymbolError)
    assert "s0, u0" in str(info.value)


def test_alias_source_and_mark_size_like_work_on_names():
    env = ShapeEnv(duck_shape=False)
    a = env.create_symint(8, Source.size("x", 0), dynamic=DimDynamic.DYNAMIC)
    env.alias_source(a, Source.size("y", 0))
    assert env.symbols["s0"].sources == [Source.size("x", 0), Source.size("y", 0)]
    with pytest.raises(ValueError, match="not an input symbol"):
        env.alias_source(a + 1, Source.size("z", 0))
    u = env.create_unbacked_symint()
    assert not env.symbols["u0"].size_like and env.bound(u).lower < 0
    env.mark_size_like(u)
    assert env.symbols["u0"].size_like and env.bound(u).lower == 0


def test_a_guard_set_takes_names_or_sympy_symbols_and_they_are_the_same_set():
    n, m = symbol_expr("n"), symbol_expr("m")
    src = {n: Source.size("x", 0), m: Source.value("k")}
    by_symbol = GuardSet.of([lt(n, 5)], src, {m: ValueRanges.of(1, 9)})
    by_name = GuardSet.of([B.rel("<", F.sym("n"), F.const(5))], {"n": Source.size("x", 0), "m": Source.value("k")}, {"m": ValueRanges.of(1, 9)})
    assert by_symbol == by_name
    assert by_name.named_sources == (("m", Source.value("k")), ("n", Source.size("x", 0)))
    assert by_name.sources == ((m, Source.value("k")), (n, Source.size("x", 0)))  # the sympy view, sorted by name
    assert by_name.source_map == {m: Source.value("k"), n: Source.size("x", 0)}
    assert by_name.domain == ((m, ValueRanges.of(1, 9)),) and by_name.named_domain == (("m", ValueRanges.of(1, 9)),)
    assert by_name.to_text() == "L['x'].size()[0] < 5"
    assert by_name.holds({"x.size()[0]": 4, "k": 2}) and not by_name.holds({n: 5, "k": 2})
    # the default domain: [0, oo] for size-like sources, by name too
    assert GuardSet.of([], {"n": Source.size("x", 0)}).named_domain == (("n", ValueRanges.of(0, float("inf"))),)


@pytest.mark.parametrize("key", [3, "", None, symbol_expr("n") + 1, 2.5])
def test_a_guard_set_refuses_keys_that_are_not_symbols(key):
    with pytest.raises(GuardTypeError, match="sources must map symbols"):
        GuardSet.of([], {key: Source.size("x", 0)})
    with pytest.raises(GuardTypeError, match="domain must map symbols"):
        GuardSet.of([], {}, {key: ValueRanges.of(0, 3)})


def test_a_symbol_and_its_name_given_two_sources_are_refused():
    n = symbol_expr("n")
    assert GuardSet.of([], {n: Source.size("x", 0), "n": Source.size("x", 0)}).named_sources == (("n", Source.size("x", 0)),)
    with pytest.raises(GuardTypeError, match="give the symbol n two values"):
        GuardSet.of([], {n: Source.size("x", 0), "n": Source.size("y", 0)})
