"""How an anchor case is judged: ours against the anchor's answer, both checked by brute force.

* bounds: ours must hold every value of the expression on the grid (else the test fails as
  *wrong*); it is *same* as the anchor's when the checked ends are equal, *better* when no
  end is looser and one is tighter, else *worse*.
* forms: ours and the anchor's must both equal the input on the grid; ours is *same* when
  identical or of the same size, *better* when smaller (fewer terms and operators), else *worse*.
  The anchor's form is built with our constructors, so it is in our canonical form too.
* modular sets: every value must be ``base`` modulo ``coeff``; *better* when ours is a
  subset of the anchor's set (a multiple of its coefficient, or a constant in it).

The grid: each variable over its range intersected with a window around 0 (smaller with
more variables), plus its finite ends: brute force, so a check of the cases, not a proof.
"""

from __future__ import annotations

import itertools
import math

from valueranges.facts import Facts
from symint.form import logic as B
from symint import form as F
from symint.build import symbol_expr
from symint.sympy_io import to_sympy
from valueranges import ValueRanges
from valueranges.rewrite import simplify, simplify_bool, size

INF = math.inf
SAME, BETTER, WORSE = "same", "better", "worse"


def grid(names, ranges):
    width = {1: 40, 2: 12, 3: 6}.get(len(names), 4)
    axes = []
    for n in names:
        lo, hi = ranges.get(n, (-INF, INF))
        axis = set(range(int(max(lo, -width)), int(min(hi, width)) + 1))
        axis |= {int(v) for v in (lo, hi) if v not in (INF, -INF)}
        axes.append(sorted(axis))
    for point in itertools.product(*axes):
        yield dict(zip(names, point))


def engine(ranges, constraints=()) -> Facts:
    facts = Facts()
    for name, (lo, hi) in ranges.items():
        facts.set_range(symbol_expr(name), ValueRanges.of(lo, hi))
    for c in constraints:
        facts.learn_form(c)
    return facts


def _values(f, ranges, constraints):
    names = sorted(f.symbols | {n for c in constraints for n in c.symbols})
    for env in grid(names, ranges):
        if not all(c.evaluate(env) for c in constraints):
            continue
        try:
            yield env, f.value(env)
        except ZeroDivisionError:
            continue


def judge_bound(expr, ranges, expected, constraints=()):
    """``(status, ours)`` for a bound case; raises AssertionError if ours misses a value (wrong)."""
    f = expr.form
    ours = engine(ranges, constraints).bound(f)
    for env, v in _values(f, ranges, constraints):
        assert ours[0] <= v <= ours[1], f"wrong: {to_sympy(f)} = {v} at {env} is outside ours {ours}"
    ends = [(o, t, side) for o, t, side in ((ours[0], expected[0], "lo"), (ours[1], expected[1], "hi")) if t is not None]
    if all(o == t for o, t, _ in ends):
        return SAME, ours
    if all((o >= t) if side == "lo" else (o <= t) for o, t, side in ends):
        return BETTER, ours
    return WORSE, ours


def judge_form(before, expected, ranges=None, constraints=()):
    """``(status, ours)`` for a simplification case."""
    ranges = ranges or {}
    f, theirs = before.form, expected.form if hasattr(expected, "form") else F.const(expected)
    eng = engine(ranges, constraints)
    ours = simplify(eng.simplify_form(f), eng.bounds())
    for env, v in _values(f, ranges, constraints):
        assert ours.value(env) == v, f"wrong: {to_sympy(f)} -> {to_sympy(ours)} differs at {env}"
        assert theirs.value(env) == v, f"port error: the anchor's {to_sympy(theirs)} differs at {env}"
    if ours is theirs:
        return SAME, ours
    a, b = size(ours), size(theirs)
    return (BETTER if a < b else SAME if a == b else WORSE), ours


def bool_size(b) -> int:
    if b.kind == "const":
        return 0
    if b.kind == "rel":
        return 1 + size(b.norm.p)
    return 1 + sum(bool_size(a) for a in b.args) if b.kind in ("and", "or", "not") else 99


def judge_bool(before, expected, ranges=None, constraints=()):
    ranges = ranges or {}
    theirs = expected if isinstance(expected, B.BoolForm) else B.bool_const(expected)
    eng = engine(ranges, constraints)
    ours = simplify_bool(eng.simplify_bool(before), eng.bounds())
    decided = eng.decide(ours) if ours.kind != "const" else None
    if decided is not None:  # what the engine proves: a constant
        ours = B.bool_const(decided)
    names = sorted(before.symbols | ours.symbols | theirs.symbols | {n for c in constraints for n in c.symbols})
    for env in grid(names, ranges):
        if not all(c.evaluate(env) for c in constraints):
            continue
        try:
            v = before.evaluate(env)
        except ZeroDivisionError:
            continue
        assert ours.evaluate(env) == v, f"wrong: {to_sympy(before)} -> {to_sympy(ours)} differs at {env}"
        assert theirs.evaluate(env) == v, f"port error: the anchor's {to_sympy(theirs)} differs at {env}"
    if ours is theirs or (ours.kind == theirs.kind == "rel" and ours.norm is theirs.norm):
        return SAME, ours
    a, b = bool_size(ours), bool_size(theirs)
    return (BETTER if a < b else SAME if a == b else WORSE), ours


def judge_modular(expr, expected, constraints=(), ranges=None):
    f = expr.form
    ours = engine(ranges or {}, constraints).modular_set(f)
    coeff, base = ours
    for env, v in _values(f, ranges or {}, constraints):
        assert (v == base) if coeff == 0 else (v - base) % coeff == 0, f"wrong: {to_sympy(f)} = {v} at {env}, ours {ours}"
    tc, tb = expected
    if ours == (tc, tb % tc if tc else tb):
        return SAME, ours
    if tc == 0:
        return WORSE, ours
    if (coeff % tc == 0) and (base - tb) % tc == 0:
        return BETTER, ours
    return WORSE, ours
