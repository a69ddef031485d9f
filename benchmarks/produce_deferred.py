"""Produced guards off the critical path: latency of the reduced set, time until the simplified set is installed.

For W1 (``benchmarks/workloads/w1_program.json``) and programs from ``gen_w1.py`` of
1,000 and 10,000 ops (or ``--ops``), replays the program through a ShapeEnv (as
``benchmarks/w1_propagate.py`` does), then reports:

* ``produce``: the latency of ``produce_guards_deferred()`` (what ``produce_guards()``,
  ``export()`` and ``compile()`` wait for): the exact reduced set, no Z3;
* ``simplified after``: the time from that call until the Z3-simplified set is
  installed (the worker thread's simplification and proof);
* guard counts raw / reduced / simplified, the proof verdict, and the Z3 work in
  deterministic units (checks and rlimit units; the same on every run and machine).

Run: ``python3 benchmarks/produce_deferred.py [--ops 1000 10000] [--no-w1] [--runs 1]``.
With ``--runs N`` each program is replayed N times and the script checks that the
reduced and simplified sets are identical across runs.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

WORKLOADS = ROOT / "benchmarks" / "workloads"


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_w1", WORKLOADS / "gen_w1.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.gen_w1_program


def run(program: dict) -> dict:
    from guards import Source
    from shapeenv import DimDynamic, ShapeEnv, check
    from shapeenv.core.produce import raw_guards
    from symint import sym_max, sym_min
    from w1_propagate import replay

    start = time.perf_counter()
    env = ShapeEnv(duck_shape=False)
    pool = [env.create_symint(s["hint"], Source.size(s["name"], 0), dynamic=DimDynamic.DYNAMIC) for s in program["symbols"]]
    mismatches = replay(program, pool, sym_max, sym_min, check)
    replay_s = time.perf_counter() - start
    t0 = time.perf_counter()
    produced = env.produce_guards_deferred()
    produce_s = time.perf_counter() - t0
    simplified = produced.wait()
    installed_s = time.perf_counter() - t0
    report = produced.report
    text = lambda gs: gs.to_text("sympy")  # noqa: E731
    return {
        "ops": len(program["ops"]),
        "replay_s": replay_s,
        "produce_s": produce_s,
        "installed_s": installed_s,
        "mismatches": mismatches,
        "recorded": len(env.guards),
        "asserts": len(env.runtime_asserts),
        "raw": len(raw_guards(env)),
        "reduced": len(produced.reduced),
        "simplified": len(simplified),
        "proof": produced.proof.value if produced.proof else "n/a",
        "checks": report.z3_checks if report else 0,
        "rlimit": report.rlimit if report else 0,
        "exhausted": report.budget_exhausted if report else False,
        "safety_net": report.safety_net if report else False,
        "trace_checks": env.decider.prover.checks if env.decider.prover else 0,
        "digest": hashlib.sha1(
            "\n--\n".join(
                [
                    "\n".join(str(g.expr) for g in env.guards),
                    "\n".join(str(a.expr) for a in env.runtime_asserts),
                    text(produced.reduced),
                    text(simplified),
                ]
            ).encode()
        ).hexdigest()[:12],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, nargs="*", default=[1000, 10000], help="gen_w1 program sizes")
    parser.add_argument("--seed", type=int, default=7, help="gen_w1 seed (default 7)")
    parser.add_argument("--no-w1", action="store_true", help="skip the 5,000-op W1 program")
    parser.add_argument("--runs", type=int, default=1, help="replay each program this many times and compare")
    args = parser.parse_args()
    programs = [] if args.no_w1 else [("W1", json.loads((WORKLOADS / "w1_program.json").read_text()))]
    gen = load_generator()
    programs += [(f"gen_w1 {n} ops (seed {args.seed})", gen(seed=args.seed, n_ops=n)) for n in args.ops]
    print(f"{'program':32} {'replay':>8} {'produce':>8} {'simplified after':>17}  raw/reduced/simplified  proof  Z3 (deterministic)")
    for name, program in programs:
        digests = set()
        for _ in range(args.runs):
            r = run(program)
            digests.add(r["digest"])
            flags = (" budget exhausted" if r["exhausted"] else "") + (" SAFETY NET FIRED" if r["safety_net"] else "")
            print(
                f"{name:32} {r['replay_s']:7.2f}s {r['produce_s'] * 1e3:6.0f}ms {r['installed_s']:16.2f}s  "
                f"{r['raw']:>5}/{r['reduced']}/{r['simplified']:<12} {r['proof']:5}  "
                f"{r['checks']} checks, {r['rlimit']:,} rlimit{flags}; trace: {r['trace_checks']} checks, "
                f"{r['recorded']} guards, {r['asserts']} asserts, digest {r['digest']}"
            )
        if args.runs > 1:
            print(f"{'':32} identical across {args.runs} runs: {'yes' if len(digests) == 1 else 'NO: ' + ', '.join(sorted(digests))}")


if __name__ == "__main__":
    main()
