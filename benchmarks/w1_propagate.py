"""W1 "propagate", end to end: replay a shape program through our ShapeEnv and torch's, then produce the guards.

End to end is what a user embedding the ShapeEnv waits for: create the symbols, run
every op (arithmetic, comparisons that may guard, runtime asserts), then produce the
guard set that decides reuse. Both engines do exactly that, in this process, after
their imports are paid. Reported per engine: replay, produce, and their sum; for ours
also the time until the Z3-simplified set is ready (off the critical path: a user of
``produce_guards()`` gets the reduced set at once). Times are medians of ``--repeat``
runs, wall clock and CPU (``process_time``, less sensitive to a loaded machine);
the ratio is torch / ours, end to end.

Two heaps are measured (``--heap``), each run of each engine in a fresh process:

- ``as-loaded``: the timed region starts right after the imports and ``json.loads`` of the
  program, whose ~20,000 young container objects are still waiting for the collector;
- ``settled``: the same, after one ``gc.collect()`` before the clock starts.

Note [Whose full collection]: CPython runs a full (generation 2) collection once the objects
promoted since the last one exceed a quarter of the long-lived heap. In ``as-loaded`` the
harness's own program (20,000 dicts and lists) tips that balance during our replay, and the
collection then scans every object z3, the imports and the program left: about 80,000 since a
trace imports no sympy (Note [Symbols are names] in ``shapeenv.core.symbols``), ~20-25 ms,
against ~120,000 and ~50-70 ms when it did. Torch pays its collections in both modes (its own
allocations tip it). Both are reported; neither is hidden.

Run: ``python benchmarks/w1_propagate.py [--program FILE] [--no-torch] [--repeat 3] [--heap both] [--check]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import operator
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORKLOAD = ROOT / "benchmarks" / "workloads" / "w1_program.json"
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
    deferred = env.produce_guards_deferred(background=False)  # what a caller gets at once: the exact reduced set
    produced = deferred.current
    produce_t = _since(start)
    return {"env": env, "replay": replay_t, "produce": produce_t, "mismatches": mismatches, "produced": produced,
            "deferred": deferred}


def simplify_ours(run: dict) -> tuple:
    """The Z3-simplified set (proven equivalent before it replaces the reduced one) and the time it took."""
    start = _clock()
    simplified = run["deferred"].wait()
    return simplified, _since(start), run["deferred"].proof


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


def torch_guard_count(lines: list[str]) -> int:
    """Atomic guards in torch's produce_guards strings: a range line ``2 <= L['x'] and L['x'] <= 16`` is two.

    Our GuardSet holds one relation per guard (a range is two guards), so counting both
    engines' relations compares like with like.
    """
    return sum(2 if _TORCH_RANGE.match(line) else 1 for line in lines)


_TORCH_RANGE = re.compile(r"^\S+ <= (L\[[^\]]+\]) and \1 <= \S+$")


def _full_collections() -> int:
    return gc.get_stats()[2]["collections"]


def preload(engine: str = "ours") -> None:
    """The imports ``engine`` makes, paid before any clock starts (a worker calls it first).

    Both engines import our packages and Z3 (the harness and the simplified set use them).
    Torch's also imports ``sympy.tensor.tensor`` (~30 ms), which sympy imports inside the
    first Add it builds: an import torch would otherwise pay in its replay. Ours imports no
    sympy: a trace and its produced guards are forms, and sympy is loaded only to print or
    simplify afterwards (Note [Symbols are names] in ``shapeenv.core.symbols``), outside
    the clock.
    """
    import guards  # noqa: F401
    import guards.solver.z3_solver  # noqa: F401
    import guards.solver.z3_translate  # noqa: F401
    import shapeenv  # noqa: F401

    if engine == "torch":
        import sympy.tensor.tensor  # noqa: F401
        import torch  # noqa: F401


def worker(engine: str, program_path: Path, use_z3: bool, settle: bool = False) -> dict:
    """One cold run in this (fresh) process: imports first, then replay + produce; a JSON-able summary.

    With ``settle``, one ``gc.collect()`` runs before the clock starts (Note [Whose full collection]).
    """
    preload(engine)
    program = json.loads(program_path.read_text())
    if engine == "torch":
        if settle:
            gc.collect()
        full = _full_collections()
        r = run_torch(program)
        return {"replay": r["replay"], "produce": r["produce"], "mismatches": r["mismatches"],
                "recorded": len(r["env"].guards), "produced": torch_guard_count(r["produced"]),
                "produced_lines": len(r["produced"]), "full_gc": _full_collections() - full}
    if settle:
        gc.collect()
    full = _full_collections()
    r = run_ours(program, use_z3)
    full = _full_collections() - full
    env = r["env"]
    simplified, simp_t, proof = simplify_ours(r)
    return {"replay": r["replay"], "produce": r["produce"], "mismatches": r["mismatches"],
            "recorded": len(env.guards), "asserts": len(env.runtime_asserts), "produced": len(r["produced"]),
            "simplified": len(simplified), "simplify": simp_t, "proof": str(proof), "decisions": env.decider.stats,
            "simplified_text": simplified.to_text("torch"),
            "z3_checks": env.decider._prover.checks if env.decider._prover else 0,
            "guard_text": r["produced"].to_text("torch"), "full_gc": full}


def cold_runs(engine: str, program_path: Path, repeat: int, use_z3: bool = True, settle: bool = False) -> list[dict]:
    """``repeat`` cold runs, each in a fresh interpreter (what a user of a new process waits for)."""
    import subprocess

    out = []
    for _ in range(repeat):
        cmd = [sys.executable, __file__, "--worker", engine, "--program", str(program_path)]
        if not use_z3:
            cmd.append("--no-z3")
        if settle:
            cmd.append("--settled")
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        out.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return out


def _median(runs: list[dict], key: str) -> tuple[float, float]:
    return statistics.median(r[key][0] for r in runs), statistics.median(r[key][1] for r in runs)


def _total(r: dict) -> tuple[float, float]:
    return r["replay"][0] + r["produce"][0], r["replay"][1] + r["produce"][1]


def summary(label: str, runs: list[dict]) -> str:
    for r in runs:
        r["total"] = _total(r)
    rp, pr, tot = (_median(runs, k) for k in ("replay", "produce", "total"))
    full = statistics.median(r["full_gc"] for r in runs)
    return (f"{label}: end to end {tot[0]:7.3f} s (cpu {tot[1]:7.3f})  = replay {rp[0]:7.3f} (cpu {rp[1]:7.3f})"
            f" + produce {pr[0]:6.3f} (cpu {pr[1]:6.3f}); full collections inside: {full:g}")


def ratios(ours: list[dict], theirs: list[dict]) -> dict:
    """torch / ours for the end-to-end total and the replay, wall and cpu (medians)."""
    for r in ours + theirs:
        r["total"] = _total(r)
    o, t = _median(ours, "total"), _median(theirs, "total")
    orp, trp = _median(ours, "replay"), _median(theirs, "replay")
    return {"e2e": (t[0] / o[0], t[1] / o[1]), "replay": (trp[0] / orp[0], trp[1] / orp[1])}


def torch_available() -> bool:
    """Whether torch imports here (else say how to install it, once)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch: not installed (pip install torch==2.13.0 to compare)")
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--program", type=Path, default=WORKLOAD, help="a W1-format program (default: benchmarks/workloads/w1_program.json)")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--no-z3", action="store_true", help="decide without Z3 while tracing")
    parser.add_argument("--repeat", type=int, default=3, help="cold runs per engine and heap, each in a fresh process")
    parser.add_argument("--heap", choices=("as-loaded", "settled", "both"), default="both",
                        help="collect the harness's garbage before the clock starts or not (Note [Whose full collection])")
    parser.add_argument("--worker", choices=("ours", "torch"), help=argparse.SUPPRESS)
    parser.add_argument("--settled", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--check", action="store_true", help="also compare ours (with asserts) with torch's guards by Z3")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.program, not args.no_z3, args.settled)))
        return
    program = json.loads(args.program.read_text())
    torch_too = not args.no_torch and torch_available()
    heaps = ("as-loaded", "settled") if args.heap == "both" else (args.heap,)
    ours = {h: [] for h in heaps}
    theirs = {h: [] for h in heaps}
    for _ in range(args.repeat):  # interleaved, so that a change in machine load hits both engines and heaps
        for h in heaps:
            ours[h] += cold_runs("ours", args.program, 1, not args.no_z3, settle=h == "settled")
            if torch_too:
                theirs[h] += cold_runs("torch", args.program, 1, settle=h == "settled")
    every = [r for h in heaps for r in ours[h]]
    last = every[-1]
    print(f"program: {args.program.name}, {len(program['ops'])} ops; medians of {args.repeat} cold runs per engine "
          f"and heap (fresh processes)")
    print(f"       ours: {last['recorded']} guards recorded, {last['asserts']} runtime asserts, {last['mismatches']} value "
          f"mismatches; produced at once (reduced, exact): {last['produced']} guards; decisions {last['decisions']}, "
          f"Z3 checks {last['z3_checks']}")
    simp = statistics.median(r["simplify"][0] for r in every)
    print(f"       Z3-simplified set (off the critical path): {last['simplified']} guards, ready {simp:.3f} s after the "
          f"reduced set; equivalence proof: {last['proof']}")
    same = len({r["guard_text"] for r in every}) == 1 and len({r["simplified_text"] for r in every}) == 1
    print(f"       reduced and simplified guard text identical across the {len(every)} runs: {same}")
    if torch_too:
        t = theirs[heaps[0]][-1]
        print(f"       torch: {t['recorded']} guards recorded, {t['mismatches']} value mismatches; "
              f"produce_guards: {t['produced']} guards ({t['produced_lines']} lines, a range line holds two)")
    for h in heaps:
        print(f"heap {h}:")
        print("  " + summary("ours ", ours[h]))
        if torch_too:
            print("  " + summary("torch", theirs[h]))
            q = ratios(ours[h], theirs[h])
            print(f"  ratio (torch / ours): end to end {q['e2e'][0]:.1f}x (cpu {q['e2e'][1]:.1f}x); "
                  f"replay alone {q['replay'][0]:.1f}x (cpu {q['replay'][1]:.1f}x)")
    if torch_too and args.check:
        from w1_compare import compare_with_torch

        o, t = run_ours(program), run_torch(program)
        print(compare_with_torch(o, t, program))


if __name__ == "__main__":
    main()
