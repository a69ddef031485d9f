"""Unsat cores: which guards conflict, minimal, in the API and in ``shapeenv guards check``."""

from __future__ import annotations

import json

from hypothesis import given, settings, strategies as st

from symint.build import eq, ge, gt, le, lt, mod, symbol_expr
from valueranges import ValueRanges

from guards import GuardSet, Source
from shapeenv.cli.guards import main

s0, s1, s2 = (symbol_expr(f"s{i}") for i in range(3))
SOURCES = {s0: Source.size("x", 0), s1: Source.size("y", 0), s2: Source.size("z", 0)}


def test_the_core_names_the_conflicting_guards_only() -> None:
    gs = GuardSet.of([ge(s1, 2), ge(s0, 8), eq(mod(s0, 2), 0), eq(s1, s2), lt(s0, 6)], SOURCES)
    core = gs.unsat_core()
    assert core.found and core.minimal and core.indices == (1, 4)
    assert [str(g.expr) for g in core.guards] == ["s0 >= 8", "s0 < 6"]
    assert core.text().splitlines() == ["these 2 guards cannot all hold:", "  [1] x.size()[0] >= 8", "  [4] x.size()[0] < 6"]


def test_a_conflict_through_an_equality_needs_three_guards() -> None:
    gs = GuardSet.of([eq(s0, s1), ge(s0, 10), le(s1, 4), ge(s2, 3)], SOURCES)
    assert gs.unsat_core().indices == (0, 1, 2)


def test_the_domain_can_take_part() -> None:
    gs = GuardSet.of([le(s0, 1)], SOURCES, domain={s0: ValueRanges.of(2, float("inf"))})
    core = gs.unsat_core()
    assert core.found and core.indices == (0,) and core.domain == ((s0, ValueRanges.of(2, float("inf"))),)
    assert "x.size()[0] in [2, oo] (the domain of the guard set)" in core.text()


def test_a_satisfiable_set_has_no_conflict() -> None:
    core = GuardSet.of([ge(s0, 2), lt(s0, 9)], SOURCES).unsat_core()
    assert not core.found and core.status == "sat" and core.indices == ()
    assert core.text() == "no conflict: the guards can all hold"


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([s0, s1]), st.sampled_from(["ge", "le"]), st.integers(0, 12)), min_size=1, max_size=7))
def test_every_member_of_a_core_is_needed(spec) -> None:
    make = {"ge": ge, "le": le}
    gs = GuardSet.of([make[op](sym, k) for sym, op, k in spec], SOURCES)
    core = gs.unsat_core()
    sat = gs.is_satisfiable().verdict.value
    assert core.found == (sat == "no")
    if core.found:
        assert core.minimal
        assert GuardSet.of([g.expr for g in core.guards], SOURCES).is_satisfiable().verdict.value == "no"
        for k in range(len(core.guards)):
            rest = [g.expr for j, g in enumerate(core.guards) if j != k]
            assert GuardSet.of(rest, SOURCES).is_satisfiable().verdict.value == "yes", (core.text(), k)


def test_guards_check_prints_the_conflict(tmp_path, capsys) -> None:
    path = tmp_path / "g.txt"
    path.write_text("L['x'].size()[0] >= 8\nL['x'].size()[1] == 3\nL['x'].size()[0] % 2 == 0\nL['x'].size()[0] < 6\n")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "satisfiable: no\nconflict: 2 of 4 guards cannot all hold:\n" in out
    assert f"  [0] L['x'].size()[0] >= 8  # {path}:1\n  [3] L['x'].size()[0] < 6  # {path}:4" in out
    assert main(["check", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [g["index"] for g in report["conflict"]["guards"]] == [0, 3] and report["conflict"]["minimal"] is True
