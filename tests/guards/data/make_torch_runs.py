"""Regenerate the torch 2.13 runs under ``tests/guards/data/torch_runs/`` (needs torch; ~1 minute).

Each run (:data:`tests.guards.torch_run_models.RUNS`) is one process started with
``TORCH_LOGS=recompiles,dynamic,guards`` and ``TORCH_TRACE=<run>_trace``: ``<run>.log`` is
the text log (stderr), ``<run>_trace/`` the structured trace of the same run,
``<run>.calls.json`` the input shapes of every call. ``export_derived.txt`` is
``print(torch.export.export(...))`` of the Mask model with ``S = 2*_S``, and
``export_derived_ours.txt`` the guards ``shapeenv.torch.export`` produces for the same model and dims.

    python3 tests/guards/data/make_torch_runs.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent / "torch_runs"
ROOT = Path(__file__).resolve().parents[3]

EXPORT = r'''
import sys
sys.path.insert(0, {root!r})
import torch
from torch.export import Dim, export
import shapeenv.torch as st
from tests.guards.torch_run_models import Mask
_S = Dim("_S", min=1, max=32)
S = 2 * _S
B = Dim("B", min=1, max=16)
args = (torch.randn(4, 10, 16), torch.zeros(4, 10, dtype=torch.bool))
shapes = {{"x": {{0: B, 1: S}}, "mask": {{0: B, 1: S}}}}
print(export(Mask(), args, dynamic_shapes=shapes))
ours = st.export(Mask(), args, dynamic_shapes=shapes)
with open(sys.argv[1], "w") as f:
    f.write(ours.guards.to_text("torch") + "\n")
'''


def record(name: str, out: Path) -> tuple[Path, Path]:
    """Run ``name`` in a subprocess with both logs on; returns (the text log, the trace file)."""
    trace = out / f"{name}_trace"
    shutil.rmtree(trace, ignore_errors=True)
    env = {**os.environ, "TORCH_LOGS": "recompiles,dynamic,guards", "TORCH_TRACE": str(trace),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}  # fmt: skip
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from tests.guards.torch_run_models import run; run({name!r})"
    log = out / f"{name}.log"
    with open(log, "w") as err:
        subprocess.run([sys.executable, "-c", code], env=env, stderr=err, check=True, cwd=ROOT)
    files = sorted(trace.iterdir())
    for i, path in enumerate(files):  # a stable name: torch's random suffix changes each run
        path.rename(trace / f"trace_{i}.log")
    return log, trace / "trace_0.log"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.guards.torch_run_models import RUNS

    HERE.mkdir(exist_ok=True)
    for name, (_, calls, inputs) in RUNS.items():
        record(name, HERE)
        (HERE / f"{name}.calls.json").write_text(json.dumps([dict(zip(inputs, c)) for c in calls]) + "\n")
    with open(HERE / "export_derived.txt", "w") as out:
        code = EXPORT.format(root=str(ROOT))
        subprocess.run([sys.executable, "-c", code, str(HERE / "export_derived_ours.txt")], stdout=out, check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
