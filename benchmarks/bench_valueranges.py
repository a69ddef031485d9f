"""Time ``valueranges.bound`` on a ~20-node expression, cold (cache miss) and warm (cache hit).

Run from the repository root::

    python benchmarks/bench_valueranges.py

"Cold" calls use a fresh range for one symbol each time, so every call misses
``bound``'s cache and walks the whole expression; "warm" calls repeat the same
arguments and hit the cache. Each figure is the best of several repeats, in
microseconds per call.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sympy  # noqa: E402

from symint import build  # noqa: E402
from symint.build import symbol_expr  # noqa: E402
from valueranges import ValueRanges, bound, ops  # noqa: E402

REPEATS = 5


def expression() -> sympy.Basic:
    """``FloorDiv(s0*s1 + 3, 4) + Mod(s2, 8) + Max(s0, s1 - 1) + (s0 - 1)**2``: 21 nodes."""
    s0, s1, s2 = (symbol_expr(f"s{i}") for i in range(3))
    e = build.add(build.floordiv(build.add(build.mul(s0, s1), 3), 4), build.mod(s2, 8))
    e = build.add(e, build.max_(s0, build.sub(s1, 1)))
    return build.add(e, build.pow_(build.sub(s0, 1), 2))


def per_call_us(fn, calls: int) -> float:
    best = math.inf
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn(calls)
        best = min(best, time.perf_counter() - start)
    return best / calls * 1e6


def main() -> None:
    e = expression()
    s0, s1, s2 = (symbol_expr(f"s{i}") for i in range(3))
    nodes = sum(1 for _ in sympy.preorder_traversal(e))
    base = {s1: ValueRanges.of(2, 100), s2: ValueRanges.of(0, 64)}

    start = time.perf_counter()
    first = bound(e, {s0: ValueRanges.of(2, math.inf), **base})
    first_us = (time.perf_counter() - start) * 1e6

    cold_calls = 2000
    fresh = iter([{s0: ValueRanges.of(2, 10**6 + i), **base} for i in range(cold_calls * REPEATS)])

    def cold(n: int) -> None:
        for _ in range(n):
            bound(e, next(fresh))

    warm_env = {s0: ValueRanges.of(2, math.inf), **base}

    def warm(n: int) -> None:
        for _ in range(n):
            bound(e, warm_env)

    a, b = ValueRanges.of(-3, 7), ValueRanges.of(2, math.inf)

    def op_calls(n: int) -> None:
        for _ in range(n):
            ops.add(a, b)
            ops.mul(a, b)
            ops.floordiv(a, b)
            ops.mod(a, b)

    print(f"expression ({nodes} nodes): {e}")
    print(f"bound = {first}")
    print(f"{'first call (incl. symbol scan)':<34}{first_us:10.1f} us")
    print(f"{'bound, cold (cache miss)':<34}{per_call_us(cold, cold_calls):10.1f} us/call")
    print(f"{'bound, warm (cache hit)':<34}{per_call_us(warm, 100_000):10.2f} us/call")
    print(f"{'ops.add+mul+floordiv+mod':<34}{per_call_us(op_calls, 100_000):10.2f} us/4 calls")


if __name__ == "__main__":
    main()
