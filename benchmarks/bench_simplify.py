"""Benchmark ``GuardSet.simplify`` on realistic guard sets of 50, 200 and 500 guards.

Run: ``python benchmarks/bench_simplify.py [--sizes 50 200 500] [--seeds 3] [--rlimit 250000] [--budget-rlimit N]``.

The generator mimics what tracing a model leaves behind. It allocates size
symbols for the dims of a few inputs, each with a concrete *hint* (as a
ShapeEnv would), and emits only guards that hold at the hints:

* equalities between sizes (duck sizing, broadcasting): ``Eq(s7, s2)``;
* products and sums from views and concatenations: ``Eq(s9, 16*s1*s2)``, ``Eq(s4, s1 + s3)``;
* bounds, many implied by others: ``s3 >= 2``, ``s3 > 5``, ``s3 <= 4096``, ``Ne(s3, 1)``;
* divisibility, some implied: ``Eq(Mod(s3, 8), 0)``, ``Eq(Mod(s3, 4), 0)``;
* consequences of the products (implied): ``s9 >= 64``, ``Eq(Mod(s9, 16), 0)``, ``s9 >= s1``;
* a few general guards: ``s1*s2 < 2**31``, ``FloorDiv(s3 + 1, 2) >= 1``.

A second workload replays the shared W1 program (``benchmarks/workloads/w1_program.json``,
8 sizes with hints, 5,000 ops): every comparison that interval reasoning cannot decide
becomes a guard (the comparison, or its negation, whichever holds at the hints), and a
guard bounding one symbol by a constant narrows that symbol's range, as a ShapeEnv's
would. This gives a dense set: hundreds of guards over only 8 symbols, with floor
division, modulo, max and min by symbols.

Prints, per workload, the median time, how many guards remain, the number of Z3
checks and Z3 resource units spent (deterministic: the same on every run and any
machine, given ``--rlimit``), whether the budget ran out, and whether the
equivalence proof succeeded. A run with a different result under load would show
here as different counts; ``--repeat 2`` checks that.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from symint import build  # noqa: E402
from symint.sympy_io.evaluate import evaluate  # noqa: E402
from valueranges import ValueRanges, bound  # noqa: E402
from guards import GuardSet, Source, SolverConfig  # noqa: E402

W1 = Path(__file__).resolve().parent / "workloads" / "w1_program.json"


def make_guard_set(n_guards: int, seed: int = 0) -> GuardSet:
    """A satisfiable guard set of exactly ``n_guards`` guards over input sizes."""
    rng = random.Random(seed)
    hints: dict = {}
    sources: dict = {}
    guards: list = []
    fresh: list = []

    def new_symbol() -> object:
        i = len(hints)
        sym = build.symbol_expr(f"s{i}")
        sources[sym] = Source.size(f"x{i // 3}", i % 3)
        return sym

    def emit(g) -> None:
        if g is not True and g not in guards:
            assert evaluate(g, hints), g  # the generator only emits guards true at the hints
            guards.append(g)

    def add_symbol() -> None:
        sym = new_symbol()
        roll = rng.random()
        if len(fresh) >= 2 and roll < 0.25:  # duck sizing / broadcasting
            other = rng.choice(fresh)
            hints[sym] = hints[other]
            emit(build.eq(sym, other))
        elif len(fresh) >= 2 and roll < 0.40:  # view: numel of a product of dims
            a, b = rng.sample(fresh, 2)
            hints[sym] = 16 * hints[a] * hints[b]
            emit(build.eq(sym, build.mul(16, build.mul(a, b))))
            emit(build.ge(sym, 64))
            emit(build.eq(build.mod(sym, 16), 0))
            emit(build.ge(sym, a))
        elif len(fresh) >= 2 and roll < 0.50:  # cat along a dim
            a, b = rng.sample(fresh, 2)
            hints[sym] = hints[a] + hints[b]
            emit(build.eq(sym, build.add(a, b)))
            emit(build.gt(sym, a))
        else:
            hints[sym] = 8 * rng.randint(2, 128)
            fresh.append(sym)
            emit(build.ge(sym, 2))
        emit(build.ne(sym, 1))

    def add_fact() -> None:
        sym = rng.choice(fresh)
        h = hints[sym]
        roll = rng.random()
        if roll < 0.30:
            emit(build.gt(sym, rng.randint(2, h - 1)))
        elif roll < 0.50:
            emit(build.le(sym, h + rng.randint(0, 4096)))
        elif roll < 0.65:
            emit(build.eq(build.mod(sym, rng.choice([2, 4, 8])), 0))
        elif roll < 0.75:
            other = rng.choice(fresh)
            if hints[other] * h < 2**31:
                emit(build.lt(build.mul(sym, other), 2**31))
        elif roll < 0.85:
            emit(build.ge(build.floordiv(build.add(sym, 1), 2), 1))
        elif roll < 0.95:
            other = rng.choice(fresh)
            emit(build.le(sym, other) if h <= hints[other] else build.gt(sym, other))
        else:
            emit(build.ne(sym, h + 1))

    while len(guards) < n_guards:
        if not fresh or rng.random() < 0.35:
            add_symbol()
        else:
            add_fact()
    return GuardSet.of(guards[:n_guards], sources)


def w1_guard_set(path: Path = W1) -> GuardSet:
    """The guards of the W1 program, replayed with symint expressions and interval reasoning."""
    program = json.loads(path.read_text())
    pool, hints, sources, ranges = [], {}, {}, {}
    for i, s in enumerate(program["symbols"]):
        sym = build.symbol_expr(s["name"])
        pool.append(sym)
        hints[sym], sources[sym], ranges[sym] = s["hint"], Source.size(f"x{i}", 0), ValueRanges.of(2, math.inf)
    arithmetic = {"add": build.add, "sub": build.sub, "mul": build.mul, "floordiv": build.floordiv,
                  "mod": build.mod, "max": build.max_, "min": build.min_}  # fmt: skip
    guards = [build.ge(s, 2) for s in pool]
    for op in program["ops"]:
        args = [pool[k] if kind == "v" else build.as_expr(k) for kind, k in op["args"]]
        if op["op"] in arithmetic:
            pool.append(arithmetic[op["op"]](*args))
            continue
        if op["op"] != "cmp":
            continue  # runtime asserts are not guards
        rel = build.RELATIONS[op["rel"]](*args)
        if not build.is_bool_expr(rel) or bound(rel, ranges).is_singleton():
            continue
        guard = rel if evaluate(rel, hints) else build.not_(rel)
        guards.append(guard)
        syms = guard.free_symbols
        if len(syms) == 1 and getattr(guard, "rhs", None) is not None and guard.rhs.is_Integer and guard.lhs in syms:
            (s,) = syms
            op_ = guard.rel_op
            lo, hi = ranges[s].lower, ranges[s].upper
            c = int(guard.rhs)
            lo = max(lo, {">": c + 1, ">=": c, "==": c}.get(op_, lo))
            hi = min(hi, {"<": c - 1, "<=": c, "==": c}.get(op_, hi))
            ranges[s] = ValueRanges.of(lo, hi)
    return GuardSet.of(guards, sources)


def bench(n: int | str, seeds: int, config: SolverConfig, repeat: int = 1) -> dict:
    times, remaining, checks, rlimits, proofs, exhausted = [], [], [], [], set(), 0
    outcomes: dict[int, set] = {}
    for seed in range(seeds if n != "w1" else 1):
        gs = make_guard_set(n, seed) if n != "w1" else w1_guard_set()
        for _ in range(repeat):
            start = time.perf_counter()
            out, report = gs.simplify_with_report(config)
            times.append(time.perf_counter() - start)
            outcomes.setdefault(seed, set()).add((out.exprs, report.z3_checks, report.rlimit))
        remaining.append(len(out))
        checks.append(report.z3_checks)
        rlimits.append(report.rlimit)
        exhausted += report.budget_exhausted
        proofs.add(report.proof.value)
    return {
        "n": f"{n} ({len(gs)})" if n == "w1" else n,
        "median_s": statistics.median(times),
        "max_s": max(times),
        "remaining": statistics.median(remaining),
        "z3_checks": statistics.median(checks),
        "rlimit": statistics.median(rlimits),
        "exhausted": exhausted,
        "same": all(len(v) == 1 for v in outcomes.values()),
        "proof": "/".join(sorted(proofs)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 500])
    parser.add_argument("--seeds", type=int, default=3, help="guard sets per size (different random seeds)")
    default = SolverConfig()
    parser.add_argument("--rlimit", type=int, default=default.rlimit, help="Z3 resource limit per check")
    parser.add_argument("--budget-rlimit", type=int, default=default.budget_rlimit, help="Z3 resource units per set")
    parser.add_argument("--repeat", type=int, default=1, help="simplify each set this many times and compare")
    parser.add_argument("--no-w1", action="store_true", help="skip the W1 replay")
    args = parser.parse_args(argv)
    config = SolverConfig(rlimit=args.rlimit, budget_rlimit=args.budget_rlimit)
    print(f"{'guards':>9} {'median s':>9} {'max s':>7} {'remaining':>9} {'z3 checks':>9} {'rlimit units':>13}  proof")
    workloads = list(args.sizes) + ([] if args.no_w1 or not W1.exists() else ["w1"])
    for n in workloads:
        r = bench(n, args.seeds, config, args.repeat)
        flags = (f"; budget exhausted in {r['exhausted']}" if r["exhausted"] else "") + (
            f"; identical over {args.repeat} runs: {'yes' if r['same'] else 'NO'}" if args.repeat > 1 else ""
        )
        print(
            f"{r['n']:>9} {r['median_s']:>9.3f} {r['max_s']:>7.3f} {r['remaining']:>9} {r['z3_checks']:>9} "
            f"{int(r['rlimit']):>13,}  {r['proof']}{flags}"
        )


if __name__ == "__main__":
    main()
