"""The soundness fuzzer, run long: random shape programs exported and checked against concrete numpy runs.

Run from the repository root::

    python benchmarks/fuzz_soundness.py --seconds 300
    python benchmarks/fuzz_soundness.py --programs 2000 --seed 7 --instructions 12 --samples 12

Each program (see ``tests/shapeenv/fuzz_programs.py``) is exported with dynamic dims, on inputs of
random layouts (contiguous, transposed, permuted, stepped slices, expanded with stride 0, offset
views, channels-last); sizes and layouts are sampled and, whenever the guard set (layout guards
included) accepts them, the same Python program is run on numpy arrays with torch's semantics: it
must take the same branch decisions (on sizes, ``is_contiguous()``, ``stride()``) and produce the
shapes and strides the export predicts, and the numpy backend must compute the same values
(``tests/shapeenv/fuzz_check.py``). A violation is printed
with a shrunk reproducer (program, example sizes, failing sizes, guard set) and the exit status is 1.
Export errors (programs numpy accepts but a shape rule rejects) are precision notes, not
violations: they are counted and the first few printed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guards.progress import Progress  # noqa: E402
from tests.shapeenv.fuzz_check import Report, check_program, reproduce  # noqa: E402
from tests.shapeenv.fuzz_programs import generate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="stop after this long (default 60)")
    parser.add_argument("--programs", type=int, default=None, help="stop after this many programs")
    parser.add_argument("--seed", type=int, default=0, help="the first program's seed (then +1 each)")
    parser.add_argument("--instructions", type=int, default=10, help="instructions per program (default 10)")
    parser.add_argument("--samples", type=int, default=10, help="sizes sampled per program (default 10)")
    parser.add_argument("--show-export-errors", type=int, default=5, help="print at most this many export errors")
    parser.add_argument("--progress", action="store_true",
                        help="show progress on stderr even when it is not a terminal (it is shown on a terminal anyway)")
    args = parser.parse_args(argv)

    report = Report()
    start = time.perf_counter()
    seed = args.seed
    bar = Progress(args.programs, "fuzz programs", enabled=True if args.progress else None)
    while time.perf_counter() - start < args.seconds and (args.programs is None or report.programs < args.programs):
        rng = random.Random(seed)
        found = check_program(generate(rng, args.instructions), rng, samples=args.samples)
        for violation in found.violations:
            print(f"seed {seed}:\n{reproduce(violation)}\n", flush=True)
        report.merge(found)
        seed += 1
        bar.step(note=f"{report.accepted} accepted samples, {len(report.violations)} violations")
    bar.close()
    elapsed = time.perf_counter() - start
    print(f"seeds {args.seed}..{seed - 1} in {elapsed:.1f} s ({report.programs / elapsed:.1f} programs/s)")
    print(report.summary())
    for error in report.export_errors[: args.show_export_errors]:
        print("\nexport error (precision note):", error)
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
