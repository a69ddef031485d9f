"""Bounds that use what the decision procedure proves (issue 24, B1): ``least_proven`` and ``tighten_bound``,
checked for soundness by brute force over small boxes, and ``ShapeEnv.bound`` on JAX's anchor cases."""

from __future__ import annotations

import itertools
import math

import pytest

from guards import Source
from shapeenv import ShapeEnv, check
from symint import form as F
from symint.form.logic import rel
from symint.sympy_io import to_sympy
from valueranges.linear_facts import LinearFacts, least_proven, tighten_bound

INF = math.inf


@pytest.mark.parametrize("threshold", [-1000, -7, -1, 0, 1, 5, 37, 10**6])
@pytest.mark.parametrize("lo, hi", [(-INF, INF), (-INF, 10**7), (-10**7, INF), (-2000, 10**7)])
def test_least_proven_finds_the_threshold(threshold, lo, hi):
    asked = []

    def proves(u):
        asked.append(u)
        return u >= threshold

    got = least_proven(proves, lo, hi, budget=64)
    assert got == max(threshold, lo) and len(asked) <= 64
    assert least_proven(proves, lo, hi, budget=64) == got  # deterministic


def test_least_proven_is_sound_when_the_budget_ends():
    for budget in range(0, 8):
        got = least_proven(lambda u: u >= 1234, -INF, INF, budget)
        assert got == INF or got >= 1234


a, b, c = F.sym("a"), F.sym("b"), F.sym("c")
k = F.const


def _facts(*relations):
    return LinearFacts([r.norm for r in relations])


CASES = [
    # (form, facts, ranges, expected (lo, hi))
    (F.sub(b, a), _facts(rel("<=", F.add(a, k(2)), b), rel("<=", b, F.add(a, k(5)))), {}, (2, 5)),
    (F.sub(c, a), _facts(rel("<", a, b), rel("<", b, c)), {}, (2, INF)),
    (F.add(F.sub(b, a), c), _facts(rel("<=", a, b)), {"c": (0, 3)}, (0, INF)),
    (F.sub(F.scale(b, 2), a), _facts(rel("<=", a, b), rel("<=", b, F.add(a, k(1)))), {"a": (0, 10)}, (0, 12)),
]


@pytest.mark.parametrize("form, facts, ranges, expected", CASES, ids=[str(i) for i in range(len(CASES))])
def test_tighten_bound_cases_are_sound_and_tight(form, facts, ranges, expected):
    got = tighten_bound(form, facts, ranges, {})
    assert got == expected, (to_sympy(form), got, expected)
    names = sorted(form.symbols | {n for f in facts.live() for n in f.p.symbols})
    values = []
    for point in itertools.product(range(-12, 13), repeat=len(names)):
        env = dict(zip(names, point))
        if any(not (ranges.get(n, (-INF, INF))[0] <= v <= ranges.get(n, (-INF, INF))[1]) for n, v in env.items()):
            continue
        if all(f.p.value(env) <= 0 if f.op == "<=" else f.p.value(env) == 0 for f in facts.live()):
            values.append(form.value(env))
    assert values and got[0] <= min(values) and max(values) <= got[1]


def test_env_bound_uses_linear_facts():
    """JAX DimExprTest bounds: ``b - a`` with ``a + 2 <= b <= a + 5`` is [2, 5]; ``a - 2*(a//2)`` is [0, 1]
    (intervals alone gave [-oo, oo])."""
    env = ShapeEnv()
    x, y = env.create_unbacked_symint(), env.create_unbacked_symint()
    check(x + 2 <= y)
    check(y <= x + 5)
    assert (env.bound(y - x).lower, env.bound(y - x).upper) == (2, 5)
    r = env.bound(x - 2 * (x // 2))
    assert (r.lower, r.upper) == (0, 1)
    r = env.bound(x % 5 + (y - x))
    assert (r.lower, r.upper) == (2, 9)
    r = env.bound(sum_max := (y - x) * 2 + 1)
    assert (r.lower, r.upper) == (5, 11) and sum_max is not None


def test_env_bound_unchanged_where_intervals_are_exact():
    env = ShapeEnv()
    s = env.create_symint(8, Source.size("x", 0))
    assert str(env.bound(s // 2)) == "[1, oo]" and str(env.bound(s + 3)) == "[5, oo]"
