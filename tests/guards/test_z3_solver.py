"""Bounded Z3 checks: resource limits are deterministic and measured, budgets cap checks, safety nets are reported."""

from __future__ import annotations

import pytest

from guards.solver.z3_solver import Budget, SatStatus, SolverConfig, Z3Context, Z3Solver
from guards.solver.z3_translate import Translator
from symint import build

A, B, C = (build.symbol_expr(n) for n in ("a", "b", "c"))
SYMBOLS = (A, B, C)

def _fermat_solver(config: SolverConfig, budget=None):
    ctx = Z3Context()
    t, s = Translator(context=ctx), Z3Solver(config, ctx, budget)
    cube = lambda x: build.pow_(x, 3)  # noqa: E731
    s.add(t.holds(build.eq(build.add(cube(A), cube(B)), cube(C))))
    s.add(*(t.holds(build.ge(x, 1)) for x in SYMBOLS))
    return s


def test_rlimit_reports_unknown():
    """Fermat's cubic: Z3 cannot refute it, and a small resource limit must give UNKNOWN, never UNSAT."""
    outcome = _fermat_solver(SolverConfig(rlimit=5_000)).check()
    assert outcome.status is SatStatus.UNKNOWN and outcome.reason == "rlimit" and not outcome.safety_net


def test_rlimit_is_deterministic_and_measured():
    """The same check in two fresh contexts spends exactly the same resource units."""
    spent = []
    for _ in range(2):
        budget = Budget(rlimit=None, checks=None)
        outcome = _fermat_solver(SolverConfig(rlimit=20_000), budget).check()
        assert outcome.status is SatStatus.UNKNOWN and outcome.rlimit == budget.spent
        spent.append(budget.spent)
    assert spent[0] == spent[1] >= 20_000


def test_budget_caps_checks_and_units():
    budget = Budget(rlimit=30_000, checks=None)
    s = _fermat_solver(SolverConfig(rlimit=20_000), budget)
    first, second, third = s.check(), s.check(), s.check()
    assert first.reason == "rlimit" and second.reason == "budget exhausted"  # the second got only what was left
    assert third.status is SatStatus.UNKNOWN and third.reason == "budget exhausted" and budget.exhausted
    assert budget.checks == 2 and 30_000 <= budget.spent < 31_000


def test_wall_clock_safety_net_firing_is_reported():
    """A safety net far below what the rlimit allows fires: UNKNOWN, and the outcome and budget say so."""
    budget = Budget(rlimit=None, checks=None)
    s = _fermat_solver(SolverConfig(rlimit=10**9, timeout_ms=20), budget)
    outcome = s.check()
    assert outcome.status is SatStatus.UNKNOWN and outcome.safety_net and outcome.reason == "wall-clock safety net"
    assert budget.safety_net == 1 and s.safety_net == 1


@pytest.mark.parametrize("engine", ["smt", "auto"])
def test_check_reports_values_of_requested_variables(engine):
    t, s = Translator(), Z3Solver(SolverConfig(engine=engine))
    s.add(t.holds(build.eq(build.mod(A, 8), 3)), t.holds(build.gt(A, 20)), t.holds(build.lt(A, 30)))
    outcome = s.check(report=[t.variable(A), t.variable(B)])
    assert outcome.status is SatStatus.SAT and outcome.values["a"] == 27 and "b" in outcome.values
    assert s.checks == 1


@pytest.mark.parametrize(
    "bad",
    [{"timeout_ms": 0}, {"timeout_ms": True}, {"drop_timeout_ms": -1}, {"engine": "x"}, {"rlimit": 0},
     {"budget_rlimit": -5}, {"max_checks": 1.5}, {"drop_rlimit": None}],
)
def test_solver_config_validates(bad):
    with pytest.raises(ValueError):
        SolverConfig(**bad)
