"""The bucketing planner: optimal against brute force, its guard sets, logs, cache_info, and the CLI."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guards import Source
from shapeenv import compile
from shapeenv.compile.buckets import (
    PlannerError,
    cost_curve,
    optimal_tops,
    plan_buckets,
    plan_dim,
    read_size_log,
    sizes_from_cache_info,
)
from shapeenv.cli.buckets import main as cli_main

X0 = Source.size("x", 0)


def brute_force(counts, recompile_cost, waste_cost, multiple_of=1, buckets=None):
    """The least cost over every set of pad-to sizes (each a multiple of ``multiple_of``, up to the largest needed)."""
    top = -(-max(s for s, n in counts.items() if n) // multiple_of) * multiple_of
    candidates = list(range(multiple_of, top + 1, multiple_of)) if top else [0]
    if 0 in counts and counts[0] and 0 not in candidates:
        candidates = [0] + candidates
    best = math.inf
    for k in range(1, len(candidates) + 1):
        if buckets is not None and k != buckets:
            continue
        for tops in itertools.combinations(candidates, k):
            if tops[-1] != top:
                continue
            waste = sum(n * (min(t for t in tops if t >= s) - s) for s, n in counts.items())
            best = min(best, recompile_cost * k + waste_cost * waste)
    return best


def cost_of(tops, counts, recompile_cost, waste_cost):
    waste = sum(n * (min(t for t in tops if t >= s) - s) for s, n in counts.items() if n)
    return recompile_cost * len(tops) + waste_cost * waste


COUNTS = st.dictionaries(st.integers(0, 14), st.integers(1, 6), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(COUNTS, st.integers(0, 40), st.sampled_from([0.5, 1, 2]), st.sampled_from([1, 2, 4]))
def test_the_plan_costs_what_brute_force_finds_least(counts, recompile_cost, waste_cost, multiple_of) -> None:
    tops = optimal_tops(counts, recompile_cost=recompile_cost, waste_cost=waste_cost, multiple_of=multiple_of)
    assert all(t % multiple_of == 0 for t in tops) and tops == tuple(sorted(set(tops)))
    assert tops[-1] >= max(counts)
    got = cost_of(tops, counts, recompile_cost, waste_cost)
    assert got == pytest.approx(brute_force(counts, recompile_cost, waste_cost, multiple_of)), (counts, tops)


@settings(max_examples=100, deadline=None)
@given(COUNTS, st.integers(0, 30), st.integers(1, 3))
def test_a_bucket_limit_is_optimal_among_plans_within_it(counts, recompile_cost, max_buckets) -> None:
    tops = optimal_tops(counts, recompile_cost=recompile_cost, max_buckets=max_buckets)
    assert len(tops) <= max_buckets
    best = min(brute_force(counts, recompile_cost, 1, buckets=k) for k in range(1, max_buckets + 1)
               if k <= len(counts))
    assert cost_of(tops, counts, recompile_cost, 1) == pytest.approx(best)


@settings(max_examples=100, deadline=None)
@given(COUNTS, st.sampled_from([1, 3]))
def test_the_cost_curve_is_the_least_waste_for_each_number_of_buckets(counts, multiple_of) -> None:
    curve = cost_curve(counts, recompile_cost=0, multiple_of=multiple_of)
    for k, waste, total in curve:
        assert waste == brute_force(counts, 0, 1, multiple_of, buckets=k) and total == waste
    wastes = [w for _, w, _ in curve]
    assert wastes == sorted(wastes, reverse=True) and wastes[-1] == sum(
        n * (-(-s // multiple_of) * multiple_of - s) for s, n in counts.items())


CASES = [
    # (counts, recompile_cost, expected tops): expected worked out by hand
    ({8: 100}, 1000, (8,)),  # one size: one bucket, no waste
    ({1: 1, 100: 1}, 1000, (100,)),  # recompiling costs more than 99 padded rows
    ({1: 1, 100: 1}, 10, (1, 100)),  # it costs less
    ({3: 10, 4: 10, 5: 1, 31: 2, 32: 5}, 25, (5, 32)),
]


@pytest.mark.parametrize("counts, recompile_cost, expected", CASES)
def test_small_plans(counts, recompile_cost, expected) -> None:
    assert optimal_tops(counts, recompile_cost=recompile_cost) == expected, (counts, recompile_cost)


def test_each_bucket_has_the_guard_set_of_the_sizes_it_serves() -> None:
    plan = plan_dim(X0, [3, 4, 9, 10, 10, 30], recompile_cost=10)
    assert plan.tops == (4, 10, 30)
    for i, b in enumerate(plan.buckets):
        gs = plan.guards(i)
        served = [s for s in range(0, 40) if gs.holds({"x.size()[0]": s})]
        assert served == [s for s in range(0, 40) if plan.pad(s) == b.top], (i, gs.to_text("source"))
    assert plan.pad(31) is None and plan.recompiles == 3 and plan.waste == 2
    assert plan.cost == 10 * 3 + 2


def test_plans_for_several_dims_and_padding() -> None:
    plan = plan_buckets({"x.size()[0]": [5, 6, 7, 60], "x.size()[1]": {3: 4}}, recompile_cost=50)
    assert [p.source.text() for p in plan.dims] == ["x.size()[0]", "x.size()[1]"]
    assert plan.pad({X0: 6, Source.size("x", 1): 3}) == {X0: 7, Source.size("x", 1): 3}
    assert json.loads(json.dumps(plan.to_json()))["dims"][0]["tops"] == [7, 60]


def test_sizes_from_cache_info_weigh_static_entries_by_their_calls() -> None:
    f = compile(lambda x: x + 1, dynamic=False)
    for n in (4, 4, 4, 5, 9):
        f(np.ones(n))
    observed, notes = sizes_from_cache_info(f.cache_info())
    assert dict(observed[X0]) == {4: 3, 5: 1, 9: 1} and notes == ()
    assert plan_buckets(f.cache_info(), recompile_cost=10).dims[0].tops == (5, 9)


def test_sizes_served_by_dynamic_entries_are_noted_as_unknown() -> None:
    f = compile(lambda x: x + 1)
    for n in (4, 5, 6):
        f(np.ones(n))
    observed, notes = sizes_from_cache_info(f.cache_info())
    assert dict(observed[X0]) == {4: 1} and notes == ("2 calls served by entries with x.size()[0] dynamic: their sizes "
                                                      "are not recorded",)


@pytest.mark.parametrize("text, expected", [
    ("x.size()[0]=9 x.size()[1]=3\n# comment\nx.shape[0]=12, x.size()[1]=3\n", {"x.size()[0]": {9: 1, 12: 1},
                                                                           "x.size()[1]": {3: 2}}),
    ("4\n4\n7\n", {"size": {4: 2, 7: 1}}),
    ("[1, 2, 2]", {"size": {1: 1, 2: 2}}),
    ('{"L[\'x\'].size()[0]": {"8": 3}}', {"x.size()[0]": {8: 3}}),
])
def test_size_logs(text, expected) -> None:
    got = {s.text(): dict(c) for s, c in read_size_log(text).items()}
    assert got == expected


@pytest.mark.parametrize("text, message", [
    ("x.size()[0]=nine\n", "line 1"),
    ("\n\n", "no sizes"),
    ("{\"x\": [1, true]}", "list of ints"),
    ("os.system('x')=3", "not an input dim"),
])
def test_bad_logs_are_planner_errors(text, message) -> None:
    with pytest.raises(PlannerError, match=message):
        read_size_log(text)


@pytest.mark.parametrize("kwargs, message", [
    ({"recompile_cost": -1}, "recompile_cost"), ({"waste_cost": math.inf}, "waste_cost"),
    ({"multiple_of": 0}, "multiple_of"), ({"max_buckets": 0}, "max_buckets"),
])
def test_bad_parameters_are_planner_errors(kwargs, message) -> None:
    with pytest.raises(PlannerError, match=message):
        optimal_tops({3: 1}, **kwargs)
    with pytest.raises(PlannerError, match="no sizes"):
        optimal_tops({3: 0})


def test_the_cli_plans_a_log(tmp_path, capsys) -> None:
    log = tmp_path / "sizes.log"
    log.write_text("".join(f"x.size()[0]={n}\n" for n in (3, 3, 4, 30, 31)))
    assert cli_main([str(log), "--recompile-cost", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dims"][0]["tops"] == [4, 31]
    assert out["dims"][0]["buckets"][1]["guards"] == ["x.size()[0] > 4", "x.size()[0] <= 31"]
    assert cli_main([str(log), "--multiple-of", "8", "--recompile-cost", "1000"]) == 0
    assert "pad to     32" in capsys.readouterr().out
    assert cli_main(["--sizes", "3,x"]) == 2 and "comma-separated" in capsys.readouterr().err
    assert cli_main([str(tmp_path / "missing")]) == 2 and "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["--sizes", "3," + "9" * 400],
    ["--sizes", "3,4", "--multiple-of", "9" * 400],
])
def test_sizes_beyond_int64_are_usage_errors_not_crashes(argv, capsys) -> None:
    # Before: OverflowError ("int too large to convert to float") from the cost arithmetic.
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert "error:" in err and ("2**63 - 1" in err or "multiple_of" in err) and "internal error" not in err


def test_a_huge_size_given_to_the_planner_is_a_planner_error() -> None:
    with pytest.raises(PlannerError, match="401-digit"):
        plan_buckets({"x.size()[0]": [3, int("1" * 401)]})
