"""Trace time of ``shapeenv.torch.export`` vs ``torch.export.export`` on the eight models of the differential suite.

Both run in this one process, side by side, on the same model objects, example inputs and
``torch.export.Dim`` specs (``tests/torch_models/models.py``). Imports are paid first (torch,
``torch.export``, ``shapeenv.torch``) and each exporter traces every model once before timing
(torch's first export of a process also warms its dispatcher caches, ours its rule tables). Then
each model is exported ``--runs`` times by each, alternating, and the median wall time of each is
printed with the ratio torch / shapeenv (above 1: shapeenv is faster).

    python3 benchmarks/torch_models_trace.py              # all eight, 5 runs each
    python3 benchmarks/torch_models_trace.py --runs 9 gpt2 vit

What is timed is the call only: for shapeenv, tracing the module on fake tensors and producing the
reduced guard set (the Z3 simplification runs off the critical path and is not waited for); for
torch, dynamo tracing, AOT export to the ATen graph and its range constraints.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="case names (default: all eight)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per model and exporter (median)")
    opts = parser.parse_args(argv)

    t0 = time.perf_counter()
    import torch
    import torch.export  # noqa: F401
    t_torch = time.perf_counter() - t0
    t0 = time.perf_counter()
    import shapeenv.torch as st
    t_ours = time.perf_counter() - t0
    from tests.torch_models.models import CASES

    names = opts.models or list(CASES)
    print(f"torch {torch.__version__}; imports: torch {t_torch:.2f} s, shapeenv.torch {t_ours:.2f} s (paid before timing)")
    print(f"median of {opts.runs} runs per model, after one untimed warm-up export each\n")

    def ours(case, model, args, specs):
        return st.export(model, args, dynamic_shapes=specs)

    def theirs(case, model, args, specs):
        return torch.export.export(model, args, dynamic_shapes=specs)

    rows = []
    for name in names:
        case = CASES[name]
        model, args, specs = case.build(), case.args(), case.dynamic_shapes()
        times: dict[str, list[float]] = {"ours": [], "torch": []}
        for fn in (ours, theirs):
            fn(case, model, args, specs)  # warm-up
        for _ in range(opts.runs):
            for key, fn in (("ours", ours), ("torch", theirs)):
                t0 = time.perf_counter()
                fn(case, model, args, specs)
                times[key].append(time.perf_counter() - t0)
        a, b = statistics.median(times["ours"]), statistics.median(times["torch"])
        rows.append((name, a, b))

    width = max(len(n) for n, _, _ in rows)
    print(f"{'model':<{width}}  {'shapeenv.torch.export':>22}  {'torch.export.export':>20}  {'torch / shapeenv':>16}")
    for name, a, b in rows:
        print(f"{name:<{width}}  {a * 1e3:>19.1f} ms  {b * 1e3:>17.1f} ms  {b / a:>15.1f}x")
    total_a, total_b = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"{'total':<{width}}  {total_a * 1e3:>19.1f} ms  {total_b * 1e3:>17.1f} ms  {total_b / total_a:>15.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
