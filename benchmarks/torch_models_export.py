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

What is timed is the call only: for shapeenv, tracing the module on fake tensors and producing the
reduced guard set (the Z3 simplification runs off the critical path and is not waited for); for
torch, dynamo tracing, AOT export to the ATen graph and its range constraints.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="case names (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per model and exporter (median)")
    opts = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    from tests.real_models.models import CASES, shim_torchvision

    shim_torchvision()  # torchvision 0.28 beside the CPU torch wheel (see tests/real_models/models.py)
    t0 = time.perf_counter()
    import timm  # noqa: F401
    import torch
    import torch.export  # noqa: F401
    import transformers  # noqa: F401
    t_libs = time.perf_counter() - t0
    t0 = time.perf_counter()
    import shapeenv.torch as st
    t_ours = time.perf_counter() - t0

    names = opts.models or list(CASES)
    print(f"torch {torch.__version__}; imports: torch and the model libraries {t_libs:.2f} s, shapeenv.torch {t_ours:.2f} s")
    print(f"median of {opts.runs} alternating runs per model, after one untimed export each\n")

    def ours(model, kwargs, specs):
        return st.export(model, (), kwargs, dynamic_shapes=specs)

    def theirs(model, kwargs, specs):
        return torch.export.export(model, (), kwargs, dynamic_shapes=specs)

    rows, refused = [], []
    for name in names:
        case = CASES[name]
        kwargs, specs = case.kwargs(), case.dynamic_shapes()
        models = {"ours": case.build(), "torch": case.build()}  # one each (seeded alike): a trace cannot disturb the other
        failed = []
        for key, fn in (("ours", ours), ("torch", theirs)):
            try:
                fn(models[key], kwargs, specs)  # warm-up
            except Exception as e:  # noqa: BLE001 - a refusal is reported, not timed
                lines = str(e).splitlines()
                why = next((line.strip() for line in lines if line.strip().startswith("- ")), lines[0] if lines else "")
                failed.append(f"{'shapeenv' if key == 'ours' else 'torch'}: {type(e).__name__}: {why[:110]}")
        if failed:
            refused.append((name, failed))
            continue
        times: dict[str, list[float]] = {"ours": [], "torch": []}
        for _ in range(opts.runs):
            for key, fn in (("ours", ours), ("torch", theirs)):
                t0 = time.perf_counter()
                fn(models[key], kwargs, specs)
                times[key].append(time.perf_counter() - t0)
        rows.append((name, case.library, statistics.median(times["ours"]), statistics.median(times["torch"])))

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
