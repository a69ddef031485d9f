"""W1 "propagate", end to end: replay a shape program through our ShapeEnv and torch's, then produce the guards.

End to end is what a user embedding the ShapeEnv waits for: create the symbols, run
every op (arithmetic, comparisons that may guard, runtime asserts), then produce the
guard set that decides reuse. Both engines do exactly that, in this process, after
their imports are paid. Reported per engine: replay, produce, and their sum; for ours
also the time until the Z3-simplified set is ready (off the critical path: a user of
``produce_guards()`` gets the reduced set at once). Times are medians of ``--repeat``
runs, wall clock and CPU (``process_time``, less sensitive to a loaded machine);
the ratio is torch / ours, end to end.

Run: ``python benchmarks/w1_propagate.py [--program FILE] [--no-torch] [--repeat 3] [--check]``.
"""

from __future__ import annotations

import argparse
import json
import operator
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORKLOAD = ROOT.parent / "shared" / "workloads" / "w1_program.json"
RELATIONS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}


def replay(program: dict, pool: list, sym_max, sym_min, check, hint_of) -> int:
    """Run the ops over ``pool`` (the symbols first); returns the number of values that differ from ``val``."""
    arith = {
        "add": operator.add,
        "sub": operator.sub,
        "mul": operator.mul,
        "floordiv": operator.floordiv,
        "mod": operator.mod,
        "max": sym_max,
        "min": sym_min,
    }
    mismatches = 0
    for op in program["ops"]:
        kind = op["op"]
        (ka, a), (kb, b) = op["args"]
        a = pool[a] if ka == "v" else a
        b = pool[b] if kb == "v" else b
        if kind in arith:
            value = arith[kind](a, b)
            pool.append(value)
            got = hint_of(value)
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


def _clock():
    return time.perf_counter(), time.process_time()


def _since(start):
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def run_ours(program: dict, use_z3: bool = True) -> dict:
    """Replay + produce through our ShapeEnv; returns times (wall, cpu) and the results."""
    from guards import Source
    from shapeenv import DimDynamic, ShapeEnv, check
    from symint import sym_max, sym_min

    def hint_of(v):
        return v.node.hint if hasattr(v, "node") else v

    start = _clock()
    env = ShapeEnv(duck_shape=False, use_z3=use_z3)
    pool = [env.create_symint(s["hint"], Source.size(s["name"], 0), dynamic=DimDynamic.DYNAMIC) for s in program["symbols"]]
    mismatches = replay(program, pool, sym_max, sym_min, check, hint_of)
    replay_t = _since(start)
    start = _clock()
    produced = _produce_reduced(env)
    produce_t = _since(start)
    return {"env": env, "replay": replay_t, "produce": produce_t, "mismatches": mismatches, "produced": produced}


def _produce_reduced(env):
    """The set a caller gets at once: the reduced, exact set (no Z3 simplification on the critical path)."""
    from shapeenv.produce import produce_reduced

    return produce_reduced(env)


def simplify_ours(produced) -> tuple:
    start = _clock()
    simplified = produced.simplify()
    return simplified, _since(start)


def run_torch(program: dict) -> dict:
    import torch
    from torch._dynamo.source import LocalSource
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv

    def hint_of(v):
        return v.node.hint if hasattr(v, "node") else v

    start = _clock()
    env = ShapeEnv(duck_shape=False)
    pool, sources = [], []
    for s in program["symbols"]:
        src = LocalSource(s["name"])
        sym = env.create_symbol(s["hint"], src, dynamic_dim=DimDynamic.DYNAMIC)
        pool.append(env.create_symintnode(sym, hint=s["hint"], source=src))
        sources.append(src)
    inputs = list(pool)
    mismatches = replay(program, pool, torch.sym_max, torch.sym_min, torch._check, hint_of)
    replay_t = _since(start)
    start = _clock()
    produced = env.produce_guards(inputs, sources)
    produce_t = _since(start)
    return {"env": env, "replay": replay_t, "produce": produce_t, "mismatches": mismatches, "produced": produced}


def _median(runs: list[dict], key: str) -> tuple[float, float]:
    return statistics.median(r[key][0] for r in runs), statistics.median(r[key][1] for r in runs)


def _total(r: dict) -> tuple[float, float]:
    return r["replay"][0] + r["produce"][0], r["replay"][1] + r["produce"][1]


def measure(program: dict, repeat: int, torch_too: bool, use_z3: bool = True) -> dict:
    """Run both engines ``repeat`` times, interleaved; medians of each part."""
    ours, theirs = [], []
    for _ in range(repeat):
        ours.append(run_ours(program, use_z3))
        if torch_too:
            theirs.append(run_torch(program))
    out = {"ours": ours, "torch": theirs}
    for name, runs in out.items():
        if runs:
            for r in runs:
                r["total"] = _total(r)
    return out


def summary(label: str, runs: list[dict]) -> str:
    rp, pr, tot = (_median(runs, k) for k in ("replay", "produce", "total"))
    return (f"{label}: end to end {tot[0]:7.3f} s (cpu {tot[1]:7.3f})  = replay {rp[0]:7.3f} (cpu {rp[1]:7.3f})"
            f" + produce {pr[0]:6.3f} (cpu {pr[1]:6.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--program", type=Path, default=WORKLOAD, help="a W1-format program (default: the shared W1)")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--no-z3", action="store_true", help="decide without Z3 while tracing")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--check", action="store_true", help="also prove ours (with asserts) equivalent to torch's guards")
    args = parser.parse_args()
    program = json.loads(args.program.read_text())
    torch_too = not args.no_torch
    if torch_too:
        try:
            import torch  # noqa: F401  (imports are paid before timing)
        except ImportError:
            print("torch: not installed (pip install torch==2.13.0 to compare)")
            torch_too = False
    import guards  # noqa: F401
    import shapeenv  # noqa: F401

    res = measure(program, args.repeat, torch_too, use_z3=not args.no_z3)
    ours = res["ours"][-1]
    env = ours["env"]
    print(f"program: {args.program.name}, {len(program['ops'])} ops; medians of {args.repeat} runs")
    print(summary("ours ", res["ours"]))
    print(f"       {len(env.guards)} guards recorded, {len(env.runtime_asserts)} runtime asserts, "
          f"{ours['mismatches']} value mismatches; produced (reduced, exact): {len(ours['produced'])} guards; "
          f"decisions: {env.decider.stats}")
    simplified, simp_t = simplify_ours(ours["produced"])
    print(f"       Z3-simplified set (off the critical path): {len(simplified)} guards, ready {simp_t[0]:.3f} s "
          f"(cpu {simp_t[1]:.3f}) after the reduced set")
    if torch_too:
        t = res["torch"][-1]
        print(summary("torch", res["torch"]))
        print(f"       {len(t['env'].guards)} guards recorded, {t['mismatches']} value mismatches; "
              f"produce_guards: {len(t['produced'])} lines")
        o, th = _median(res["ours"], "total"), _median(res["torch"], "total")
        orp, trp = _median(res["ours"], "replay"), _median(res["torch"], "replay")
        print(f"ratio (torch / ours): end to end {th[0] / o[0]:.1f}x (cpu {th[1] / o[1]:.1f}x); "
              f"replay alone {trp[0] / orp[0]:.1f}x (cpu {trp[1] / orp[1]:.1f}x)")
        if args.check:
            from w1_compare import compare_with_torch

            print(compare_with_torch(ours, t, program))


if __name__ == "__main__":
    main()
