"""Export time, ``shapeenv.torch.export`` vs ``torch.export.export``, on the real models of ``tests/real_models``.

Both run in this one process, side by side, on twin models (built alike, one per exporter), the same inputs and
``torch.export.Dim(min=1, max=...)`` specs (``tests/real_models/models.py``: torchvision, timm and
transformers models in tiny configs, random init). Imports are paid first, and each exporter
exports each model once untimed (torch's first export also warms its dispatcher caches, ours its
rule tables). Then the two exporters alternate ``--runs`` times per model; the median wall time of
each is printed with the ratio shapeenv / torch (below 1: shapeenv is faster) and, at the end, the
median of the ratios over the models both export. A model either exporter refuses is listed
with its error and left out of the ratios.

    python3 benchmarks/torch_models_export.py                # every model, 3 runs each
    python3 benchmarks/torch_models_export.py --runs 5 resnet18 bert

What is timed is the call only (see ``export_timing.py``).
"""

from __future__ import annotations

import statistics
import sys
import warnings

from export_timing import exporters, medians, options, timed_import, warm_up


def main(argv: list[str]) -> int:
    opts = options(__doc__, argv, runs=3, models="case names (default: all)")
    warnings.simplefilter("ignore")

    from tests.real_models.models import CASES, shim_torchvision

    shim_torchvision()  # torchvision 0.28 beside the CPU torch wheel (see tests/real_models/models.py)
    t_libs = timed_import("timm", "torch", "torch.export", "transformers")
    t_ours = timed_import("shapeenv.torch")
    import torch

    names = opts.models or list(CASES)
    print(f"torch {torch.__version__}; imports: torch and the model libraries {t_libs:.2f} s, shapeenv.torch {t_ours:.2f} s")
    print(f"median of {opts.runs} alternating runs per model, after one untimed export each\n")

    export = exporters()
    rows, refused = [], []
    for name in names:
        case = CASES[name]
        kwargs, specs = case.kwargs(), case.dynamic_shapes()
        models = {"ours": case.build(), "torch": case.build()}  # one each (seeded alike): a trace cannot disturb the other
        calls = {key: (lambda key=key: export[key](models[key], (), kwargs, specs)) for key in ("ours", "torch")}
        failed = warm_up(calls)
        if failed:
            refused.append((name, failed))
            continue
        t = medians(calls, opts.runs)
        rows.append((name, case.library, t["ours"], t["torch"]))

    width = max([len(n) for n, *_ in rows] + [5])
    print(f"{'model':<{width}}  {'library':<12}  {'shapeenv':>10}  {'torch.export':>12}  {'shapeenv / torch':>16}")
    for name, lib, a, b in rows:
        print(f"{name:<{width}}  {lib:<12}  {a * 1e3:>7.1f} ms  {b * 1e3:>9.1f} ms  {a / b:>15.3f}x")
    if rows:
        ratios = [a / b for _, _, a, b in rows]
        print(f"\n{len(rows)} models both export: median ratio {statistics.median(ratios):.3f}x "
              f"(range {min(ratios):.3f}-{max(ratios):.3f}x)")
    for name, failed in refused:
        print(f"not timed, {name}: " + "; ".join(failed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
