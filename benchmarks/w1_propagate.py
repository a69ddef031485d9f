"""W1 "propagate": replay ../shared/workloads/w1_program.json through our ShapeEnv and (if installed) torch's.

Prints both times, the ratio, both guard counts, and checks that every ``val`` is reproduced.
Run: ``python benchmarks/w1_propagate.py [--no-torch] [--limit N]``.
"""

from __future__ import annotations

import argparse
import json
import operator
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORKLOAD = ROOT.parent / "shared" / "workloads" / "w1_program.json"
RELATIONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}


def replay(program: dict, pool: list, sym_max, sym_min, check, limit: int | None = None) -> int:
    """Run the ops over ``pool`` (the symbols first); returns the number of ops whose value mismatched."""
    arith = {
        "add": operator.add,
        "sub": operator.sub,
        "mul": operator.mul,
        "floordiv": operator.floordiv,
        "mod": operator.mod,
        "max": sym_max,
        "min": sym_min,
    }

    def arg(a):
        return pool[a[1]] if a[0] == "v" else a[1]

    mismatches = 0
    for op in program["ops"][:limit]:
        kind = op["op"]
        a, b = (arg(x) for x in op["args"])
        if kind in arith:
            value = arith[kind](a, b)
            assert len(pool) == op["out"], (len(pool), op)
            pool.append(value)
            got = value.node.hint if hasattr(value, "node") and hasattr(value.node, "hint") else value
            if hasattr(value, "node") and not isinstance(got, int):  # torch SymInt
                got = value.node.hint
        elif kind == "cmp":
            got = bool(RELATIONS[op["rel"]](a, b))
        elif kind == "check":
            check(RELATIONS[op["rel"]](a, b))
            got = op.get("val")
        else:
            raise ValueError(f"unknown op {kind}")
        if "val" in op and got != op["val"]:
            mismatches += 1
    return mismatches


def run_ours(program: dict, limit: int | None, use_z3: bool = True):
    from guards import Source
    from shapeenv import DimDynamic, ShapeEnv, check
    from symint import sym_max, sym_min

    start = time.perf_counter()
    env = ShapeEnv(duck_shape=False, use_z3=use_z3)
    pool = [env.create_symint(s["hint"], Source.size(s["name"], 0), dynamic=DimDynamic.DYNAMIC) for s in program["symbols"]]
    mismatches = replay(program, pool, sym_max, sym_min, check, limit)
    traced = time.perf_counter() - start
    t0 = time.perf_counter()
    produced = env.produce_guards()
    produce_time = time.perf_counter() - t0
    return env, traced, produce_time, mismatches, produced


def run_torch(program: dict, limit: int | None):
    import torch
    from torch._dynamo.source import LocalSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv

    start = time.perf_counter()
    env = ShapeEnv(duck_shape=False)
    pool, symbols = [], []
    for s in program["symbols"]:
        src = LocalSource(s["name"])
        sym = env.create_symbol(s["hint"], src, dynamic_dim=DimDynamic.DYNAMIC)
        symbols.append(sym)
        pool.append(env.create_symintnode(sym, hint=s["hint"], source=src))
    mismatches = replay(program, pool, torch.sym_max, torch.sym_min, torch._check, limit)
    elapsed = time.perf_counter() - start
    return env, elapsed, mismatches, symbols


def torch_guard_set(tenv, torch_symbols, program: dict):
    """torch's recorded guards as one of our GuardSets over the same sources (sizes assumed >= 2)."""
    import math

    from guards import GuardSet, Source
    from guards.parse import parse_guard
    from symint.build import symbol_expr
    from symint.substitute import substitute
    from valueranges import ValueRanges

    ours = [symbol_expr(f"s{i}") for i in range(len(torch_symbols))]
    rename = {symbol_expr(str(t)): o for t, o in zip(torch_symbols, ours)}
    exprs = [substitute(parse_guard(str(g.expr), dialect="sympy"), rename) for g in tenv.guards]
    sources = {o: Source.size(s["name"], 0) for o, s in zip(ours, program["symbols"])}
    return GuardSet.of(exprs, sources, {o: ValueRanges.of(2, math.inf) for o in ours})


def compare_sets(ours, theirs, program: dict, samples: int) -> str:
    """Z3 equivalence (bounded) plus agreement on random sizes >= 2 around the hints."""
    import random

    from guards import GuardSet

    from guards import SolverConfig

    # Nonlinear guards: a generous per-check timeout (the default 200 ms answers "unknown" here).
    proof = ours.equivalent(theirs, SolverConfig(timeout_ms=20_000, budget_ms=120_000))
    rng = random.Random(0)
    hints = [s["hint"] for s in program["symbols"]]
    names = [f"{s['name']}.size()[0]" for s in program["symbols"]]
    disagree = accepted = 0
    for _ in range(samples):
        # Each size is its hint half of the time (so that pinned sizes match), else random in [2, 2*hint].
        sizes = [h if rng.random() < 0.5 else rng.randint(2, 2 * h) for h in hints]
        bind = dict(zip(names, sizes))
        a, b = ours.holds(bind), theirs.holds(bind)
        accepted += a
        disagree += a != b
    _ = GuardSet
    return f"Z3 equivalence: {proof.verdict.value}; {samples} random size vectors: {accepted} accepted by ours, {disagree} disagreements"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--limit", type=int, default=None, help="replay only the first N ops")
    parser.add_argument("--no-z3", action="store_true", help="decide without Z3 (ranges, replacements, facts only)")
    args = parser.parse_args()
    program = json.loads(WORKLOAD.read_text())
    env, ours, produce_time, mism, produced = run_ours(program, args.limit, use_z3=not args.no_z3)
    print(f"ours : {ours:8.3f} s  ({len(env.guards)} guards recorded, {len(env.runtime_asserts)} runtime asserts, "
          f"{mism} value mismatches, Z3 checks {env.decider.prover.checks if env.decider.prover else 0} "
          f"taking {env.decider.prover.time_spent if env.decider.prover else 0:.2f} s)")
    print(f"       produce_guards: {len(produced)} guards in {produce_time:.3f} s")
    if args.no_torch:
        return
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch: not installed (pip install torch==2.13.0 to compare)")
        return
    tenv, theirs, tmism, tsyms = run_torch(program, args.limit)
    print(f"torch: {theirs:8.3f} s  ({len(tenv.guards)} guards recorded, {tmism} value mismatches)")
    print(f"ratio: {theirs / ours:.1f}x faster")
    torch_set = torch_guard_set(tenv, tsyms, program)
    t0 = time.perf_counter()
    torch_simplified = torch_set.simplify()
    print(f"torch's {len(torch_set)} guards, simplified by us: {len(torch_simplified)} ({time.perf_counter() - t0:.1f} s)")
    from guards import SolverConfig

    weaker = torch_set.implies(produced, SolverConfig(timeout_ms=20_000, budget_ms=120_000))
    print(f"torch's guards imply ours (ours never rejects what torch accepts): {weaker.verdict.value}")
    with_asserts = produced.with_guards(list(produced.exprs) + [a.expr for a in env.runtime_asserts])
    print("ours + our runtime asserts vs torch's (torch turns a check on backed sizes into guards): "
          + compare_sets(with_asserts, torch_set, program, samples=20000))


if __name__ == "__main__":
    main()
