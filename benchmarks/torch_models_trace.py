"""Trace time of ``shapeenv.torch.export`` vs ``torch.export.export`` on the eight models of the differential suite.

Both run in this one process, side by side, on the same model objects, example inputs and
``torch.export.Dim`` specs (``tests/torch_models/models.py``). Imports are paid first (torch,
``torch.export``, ``shapeenv.torch``) and each exporter traces every model once before timing
(torch's first export of a process also warms its dispatcher caches, ours its rule tables). Then
each model is exported ``--runs`` times by each, alternating, and the median wall time of each is
printed with the ratio torch / shapeenv (above 1: shapeenv is faster).

    python3 benchmarks/torch_models_trace.py              # all eight, 5 runs each
    python3 benchmarks/torch_models_trace.py --runs 9 gpt2 vit

What is timed is the call only (see ``export_timing.py``).
"""

from __future__ import annotations

import sys

from export_timing import exporters, medians, options, timed_import, warm_up


def main(argv: list[str]) -> int:
    opts = options(__doc__, argv, runs=5, models="case names (default: all eight)")

    t_torch = timed_import("torch", "torch.export")
    t_ours = timed_import("shapeenv.torch")
    import torch
    from tests.torch_models.models import CASES

    names = opts.models or list(CASES)
    print(f"torch {torch.__version__}; imports: torch {t_torch:.2f} s, shapeenv.torch {t_ours:.2f} s (paid before timing)")
    print(f"median of {opts.runs} runs per model, after one untimed warm-up export each\n")

    export = exporters()
    rows = []
    for name in names:
        case = CASES[name]
        model, args, specs = case.build(), case.args(), case.dynamic_shapes()
        calls = {key: (lambda key=key: export[key](model, args, None, specs)) for key in ("ours", "torch")}
        refused = warm_up(calls)
        if refused:
            print(f"not timed, {name}: " + "; ".join(refused))
            continue
        t = medians(calls, opts.runs)
        rows.append((name, t["ours"], t["torch"]))

    width = max([len(n) for n, _, _ in rows] + [5])
    print(f"{'model':<{width}}  {'shapeenv.torch.export':>22}  {'torch.export.export':>20}  {'torch / shapeenv':>16}")
    for name, a, b in rows:
        print(f"{name:<{width}}  {a * 1e3:>19.1f} ms  {b * 1e3:>17.1f} ms  {b / a:>15.1f}x")
    total_a, total_b = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"{'total':<{width}}  {total_a * 1e3:>19.1f} ms  {total_b * 1e3:>17.1f} ms  {total_b / total_a:>15.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
