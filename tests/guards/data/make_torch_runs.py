"""Regenerate the torch 2.13 runs under ``tests/guards/data/torch_runs/`` (needs torch; ~1 minute).

Each run is one process started with ``TORCH_LOGS=recompiles,dynamic,guards`` and
``TORCH_TRACE=<run>_trace``: ``<run>.log`` is the text log (stderr), ``<run>_trace/`` the
structured trace of the same run, ``<run>.calls.json`` the input shapes of every call.
``export_derived.txt`` is ``print(torch.export.export(...))`` of the mask model with
``S = 2*_S``, and ``export_derived_ours.txt`` the guards ``shapeenv.torch.export`` produces
for the same model and dims.

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

MODELS = r'''
import torch

class Mask(torch.nn.Module):
    """Linear, ReLU, masked_fill and a branch on S % 2."""

    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 8)

    def forward(self, x, mask):
        y = torch.relu(self.proj(x))
        y = y.masked_fill(mask.unsqueeze(-1), 0.0)
        if y.shape[1] % 2 == 0:
            return y * 2
        return y + 1


class Block(torch.nn.Module):
    """LayerNorm (eps == 1e-05), a float attribute and a branch on self.training."""

    def __init__(self):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(16)
        self.fc = torch.nn.Linear(16, 16)
        self.scale = 0.5

    def forward(self, x):
        h = self.fc(self.ln1(x)) * self.scale
        if self.training:
            h = torch.nn.functional.dropout(h, 0.0)
        return x + h


class Chunks(torch.nn.Module):
    """Splits the sequence into chunks of 4 (a view that needs S % 4 == 0)."""

    def forward(self, x):
        b, s, d = x.shape
        return x.view(b, s // 4, 4, d).sum(2)
'''

RUNS = {
    "mask": ("Mask()", [((3, s, 16), (3, s)) for s in (4, 6, 7, 9, 10, 12, 5)], "x, mask"),
    "block": ("Block().eval()", [((b, 8, 16),) for b in (2, 3, 4, 6, 2, 5)], "x"),
    "chunks": ("Chunks()", [((2, s, 8),) for s in (8, 12, 16, 8, 24)] + [((b, 12, 8),) for b in (3, 4)], "x"),
}

SCRIPT = r'''
import json, sys, torch
{models}
torch.manual_seed(0)
model = {ctor}
f = torch.compile(model, backend="eager")
calls = {calls!r}
for shapes in calls:
    args = [torch.randn(*s) if i == 0 else torch.zeros(*s, dtype=torch.bool) for i, s in enumerate(shapes)]
    f(*args)
'''

EXPORT = r'''
import sys, torch
sys.path.insert(0, {root!r})
{models}
from torch.export import Dim, export
import shapeenv.torch as st
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


def main() -> None:
    HERE.mkdir(exist_ok=True)
    for name, (ctor, calls, inputs) in RUNS.items():
        trace = HERE / f"{name}_trace"
        shutil.rmtree(trace, ignore_errors=True)
        env = {**os.environ, "TORCH_LOGS": "recompiles,dynamic,guards", "TORCH_TRACE": str(trace)}
        script = SCRIPT.format(models=MODELS, ctor=ctor, calls=calls)
        with open(HERE / f"{name}.log", "w") as err:
            subprocess.run([sys.executable, "-c", script], env=env, stderr=err, check=True)
        for i, path in enumerate(sorted(trace.iterdir())):  # a stable name: the random suffix changes each run
            path.rename(trace / f"trace_{i}.log")
        names = [n.strip() for n in inputs.split(",")]
        (HERE / f"{name}.calls.json").write_text(json.dumps([dict(zip(names, c)) for c in calls]) + "\n")
    with open(HERE / "export_derived.txt", "w") as out:
        code = EXPORT.format(root=str(ROOT), models=MODELS)
        subprocess.run([sys.executable, "-c", code, str(HERE / "export_derived_ours.txt")], stdout=out, check=True, cwd=ROOT)


if __name__ == "__main__":
    main()
