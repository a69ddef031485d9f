"""Capture torch 2.13's guard dumps for six small real models into tests/guards/data/torch_dumps/.

Each ``<model>.log`` is what ``TORCH_LOGS="guards,recompiles,+dynamic"`` prints while the model
(``tests/guards/torch_models.py``) is compiled and called with its call sequence: the guard
trees of every cache entry, the recompile reasons, and the create_symbol lines. The tests read
the checked-in files, so they run without torch; rerun this script to refresh them:

    python3 benchmarks/capture_torch_dumps.py            # all six models
    python3 benchmarks/capture_torch_dumps.py cnn lstm   # some of them
    python3 benchmarks/capture_torch_dumps.py export     # print(torch.export.export(transformer, ...))
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.guards.torch_models import MODELS, capture, capture_export  # noqa: E402

OUT = ROOT / "tests" / "guards" / "data" / "torch_dumps"


def main(argv: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in [n for n in argv if n != "export"] if argv else sorted(MODELS):
        text, _ = capture(name)
        (OUT / f"{name}.log").write_text(text, encoding="utf-8")
        print(f"{name}: {len(text.splitlines())} lines -> {(OUT / f'{name}.log').relative_to(ROOT)}")
    if not argv or "export" in argv:
        text, _ = capture_export("transformer")
        (OUT / "transformer_export.txt").write_text(text, encoding="utf-8")
        print(f"transformer export: {len(text.splitlines())} lines -> {(OUT / 'transformer_export.txt').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
