"""W1 at every size: programs from the W1 generator (benchmarks/workloads/gen_w1.py), ours vs torch's ShapeEnv, end to end.

Two measurements, each engine in fresh processes (imports paid before timing):

* **scaling**: ``gen_w1.py`` programs of 100, 1,000, 10,000 and 30,000 ops (seeds below);
  per size, the end-to-end time (replay + produced guard set) of both engines, the
  ratio, our cost per op, and the produced guard counts (ours: the reduced set a caller
  gets at once / the Z3-simplified set installed later; torch: the guards in its
  produce_guards lines, a range line ``2 <= x and x <= 16`` counting two, as it does in ours);
* **small programs**: 300 programs of 20 to 200 ops (seeded), all run in one process per
  engine, each with a fresh ShapeEnv (how a user compiling many small functions works);
  the total time of each engine.

Run: ``python benchmarks/w1_scaling.py [--sizes 100,1000,10000,30000] [--small 300] [--no-torch]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(1, str(ROOT))  # the library itself, installed or not
GENERATOR = ROOT / "benchmarks" / "workloads" / "gen_w1.py"
SEEDS = {100: 101, 1000: 1001, 10000: 10001, 30000: 30001}


def _generator():
    spec = importlib.util.spec_from_file_location("gen_w1", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.gen_w1_program


def small_programs(count: int, seed: int = 7) -> list[dict]:
    """``count`` programs of 20 to 200 ops from the W1 generator (deterministic)."""
    gen = _generator()
    rng = random.Random(seed)
    return [gen(seed=rng.randrange(1 << 30), n_ops=rng.randint(20, 200)) for _ in range(count)]


def small_worker(engine: str, path: Path) -> dict:
    """Run every program of the file in this process, a fresh environment each; total times."""
    import w1_propagate as w

    w.preload(engine)  # imports are paid before timing
    programs = json.loads(path.read_text())
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    produced = 0
    for program in programs:
        r = w.run_torch(program) if engine == "torch" else w.run_ours(program)
        produced += w.torch_guard_count(r["produced"]) if engine == "torch" else len(r["produced"])
        assert r["mismatches"] == 0, "a value differs from the program's"
    return {"wall": time.perf_counter() - start_wall, "cpu": time.process_time() - start_cpu, "produced": produced}


def _run(args: list[str]) -> dict:
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def scaling(sizes: list[int], repeat: int, torch_too: bool) -> None:
    import w1_propagate as w

    gen = _generator()
    print(f"scaling: medians of {repeat} cold runs per engine and size (times in s; cpu = process time)")
    print(f"{'ops':>7} {'ours e2e':>9} {'(cpu)':>7} {'torch e2e':>10} {'(cpu)':>7} {'ratio':>6} {'(cpu)':>6} "
          f"{'ours/op µs':>10} {'ours red/simp':>13} {'torch':>6} {'simp ready s':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"w1_{n}.json"
            path.write_text(json.dumps(gen(seed=SEEDS.get(n, n + 1), n_ops=n)))
            ours, theirs = [], []
            for _ in range(repeat):
                ours.append(_run([w.__file__, "--worker", "ours", "--program", str(path)]))
                if torch_too:
                    theirs.append(_run([w.__file__, "--worker", "torch", "--program", str(path)]))
            for r in ours + theirs:
                r["total"] = w._total(r)
            o = w._median(ours, "total")
            line = f"{n:>7} {o[0]:>9.3f} {o[1]:>7.3f}"
            if theirs:
                t, q = w._median(theirs, "total"), w.ratios(ours, theirs)["e2e"]
                line += f" {t[0]:>10.3f} {t[1]:>7.3f} {q[0]:>5.1f}x {q[1]:>5.1f}x"
            else:
                line += " " * 38
            reduced_simplified = f"{ours[-1]['produced']}/{ours[-1]['simplified']}"
            ready = statistics.median(r["simplify"][0] for r in ours)  # after the reduced set, off the critical path
            line += f" {1e6 * o[1] / n:>10.1f} {reduced_simplified:>13} {theirs[-1]['produced'] if theirs else '-':>6}"
            line += f" {ready:>12.2f}"
            print(line, flush=True)


def small(count: int, torch_too: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "small.json"
        path.write_text(json.dumps(small_programs(count)))
        ours = _run([__file__, "--small-worker", "ours", "--file", str(path)])
        line = f"small programs: {count} of 20-200 ops: ours {ours['wall']:.2f} s (cpu {ours['cpu']:.2f})"
        if torch_too:
            theirs = _run([__file__, "--small-worker", "torch", "--file", str(path)])
            line += (f", torch {theirs['wall']:.2f} s (cpu {theirs['cpu']:.2f}); ours / torch = "
                     f"{ours['wall'] / theirs['wall']:.3f} (cpu {ours['cpu'] / theirs['cpu']:.3f}); "
                     f"produced guards {ours['produced']} vs {theirs['produced']}")
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000,30000")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--small", type=int, default=300, help="number of small programs (0 to skip)")
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--small-worker", choices=("ours", "torch"), help=argparse.SUPPRESS)
    parser.add_argument("--file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.small_worker:
        print(json.dumps(small_worker(args.small_worker, args.file)))
        return
    import w1_propagate as w

    torch_too = not args.no_torch and w.torch_available()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if sizes:
        scaling(sizes, args.repeat, torch_too)
    if args.small:
        small(args.small, torch_too)


if __name__ == "__main__":
    main()
