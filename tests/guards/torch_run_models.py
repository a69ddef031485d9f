"""The small models of the recorded torch runs (``data/make_torch_runs.py``) and their calls.

Imported by the run script (in a subprocess started with ``TORCH_LOGS`` and ``TORCH_TRACE``)
and by the torch tests that apply ``shapeenv advise``'s proposals to the same models.
"""

from __future__ import annotations

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


#: run name -> (model factory, the input shapes of each call, the input names)
RUNS = {
    "mask": (lambda: Mask(), [((3, s, 16), (3, s)) for s in (4, 6, 7, 9, 10, 12, 5)], ("x", "mask")),
    "block": (lambda: Block().eval(), [((b, 8, 16),) for b in (2, 3, 4, 6, 2, 5)], ("x",)),
    "chunks": (lambda: Chunks(), [((2, s, 8),) for s in (8, 12, 16, 8, 24)] + [((b, 12, 8),) for b in (3, 4)], ("x",)),
}


def arguments(shapes) -> list:
    """Tensors for one call: the first input random floats, the others boolean masks."""
    return [torch.randn(*s) if i == 0 else torch.zeros(*s, dtype=torch.bool) for i, s in enumerate(shapes)]


def run(name: str) -> None:
    """Compile the run's model and make its calls (the process's TORCH_LOGS / TORCH_TRACE record them)."""
    torch.manual_seed(0)
    make, calls, _ = RUNS[name]
    compiled = torch.compile(make(), backend="eager")
    for shapes in calls:
        compiled(*arguments(shapes))
