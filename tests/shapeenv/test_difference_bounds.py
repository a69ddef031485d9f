"""shapeenv.difference_bounds: tightened bounds are implied by the guards (hypothesis, by enumeration)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings, strategies as st

from shapeenv.difference_bounds import difference_constraints, tighten
from symint import build, evaluate
from valueranges import ValueRanges

a, b, c = (build.symbol_expr(n) for n in "abc")
RELS = [build.ge, build.gt, build.le, build.lt, build.eq]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(specs=st.lists(st.tuples(st.sampled_from([(a, b), (b, c), (c, a), (b, a)]), st.integers(0, 4), st.integers(-4, 4)),
                      min_size=1, max_size=3),
       lo=st.lists(st.integers(0, 6), min_size=3, max_size=3))
def test_tightened_ranges_contain_every_solution(specs, lo) -> None:
    guards = [RELS[r](x, build.add(y, k)) for (x, y), r, k in specs]
    ranges = {s: ValueRanges.of(l, 12) for s, l in zip((a, b, c), lo)}
    out = tighten(ranges, guards)
    for va, vb, vc in itertools.product(*(range(l, 13) for l in lo)):
        env = {a: va, b: vb, c: vc}
        if all(evaluate(g, env) for g in guards):
            for sym, rng in out.items():
                assert env[sym] in rng, (guards, sym, rng, env)


def test_reads_the_torch_example() -> None:
    """a1 >= a0 + 8 and a0 >= 6 give 14 <= a1 (pytorch's produce_guards derives it too)."""
    assert difference_constraints([build.ge(b, build.add(a, 8))]) == [(b, a, 8)]
    out = tighten({a: ValueRanges.of(6, float("inf")), b: ValueRanges.of(2, float("inf"))}, [build.ge(b, build.add(a, 8))])
    assert str(out[b]) == "[14, oo]"
