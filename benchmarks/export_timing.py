"""What the export benchmarks share (``torch_models_export.py``, ``torch_models_trace.py``): their options,
timed imports, the two exporters, the untimed warm-up export and the alternating timed runs.

Each benchmark times ``shapeenv.torch.export`` against ``torch.export.export`` in one process: imports
are paid first (:func:`timed_import`), each exporter exports each model once untimed (:func:`warm_up`:
torch's first export also warms its dispatcher caches, ours its rule tables), then the exporters
alternate ``runs`` times and the median wall time of each is kept (:func:`medians`).

What is timed is the call only: for shapeenv, tracing the module on fake tensors and producing the
reduced guard set (the Z3 simplification runs off the critical path and is not waited for); for
torch, dynamo tracing, AOT export to the ATen graph and its range constraints.

>>> sorted(medians({"ours": lambda: None, "torch": lambda: None}, runs=3))
['ours', 'torch']
>>> warm_up({"ours": lambda: None, "torch": lambda: 1 / 0})
['torch: ZeroDivisionError: division by zero']
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the benchmarks import the model cases of tests/

__all__ = ["options", "timed_import", "exporters", "warm_up", "medians"]

_LABEL = {"ours": "shapeenv", "torch": "torch"}


def options(doc: str, argv: list[str], *, runs: int, models: str) -> argparse.Namespace:
    """The benchmark's options: the model names to time (``models``: their help) and ``--runs``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("models", nargs="*", help=models)
    parser.add_argument("--runs", type=int, default=runs, help="timed runs per model and exporter (median)")
    return parser.parse_args(argv)


def timed_import(*modules: str) -> float:
    """Import ``modules`` (in order) and return the seconds it took."""
    t0 = time.perf_counter()
    for name in modules:
        importlib.import_module(name)
    return time.perf_counter() - t0


def exporters() -> dict[str, Callable[..., Any]]:
    """``{"ours": ..., "torch": ...}``, each ``(model, args, kwargs, specs) -> exported program``."""
    import torch.export

    import shapeenv.torch as st

    return {"ours": lambda model, args, kwargs, specs: st.export(model, args, kwargs, dynamic_shapes=specs),
            "torch": lambda model, args, kwargs, specs: torch.export.export(model, args, kwargs, dynamic_shapes=specs)}


def warm_up(calls: dict[str, Callable[[], Any]]) -> list[str]:
    """Run each call once, untimed; the refusals, one line each (an exporter's error names the reason)."""
    refused = []
    for key, call in calls.items():
        try:
            call()
        except Exception as e:  # noqa: BLE001 - a refusal is reported, not timed
            lines = str(e).splitlines()
            why = next((line.strip() for line in lines if line.strip().startswith("- ")), lines[0] if lines else "")
            refused.append(f"{_LABEL.get(key, key)}: {type(e).__name__}: {why[:110]}")
    return refused


def medians(calls: dict[str, Callable[[], Any]], runs: int) -> dict[str, float]:
    """The median wall time of each call over ``runs`` rounds, the calls alternating within a round."""
    times: dict[str, list[float]] = {key: [] for key in calls}
    for _ in range(runs):
        for key, call in calls.items():
            t0 = time.perf_counter()
            call()
            times[key].append(time.perf_counter() - t0)
    return {key: statistics.median(ts) for key, ts in times.items()}
