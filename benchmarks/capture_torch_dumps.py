"""Capture torch 2.13's guard dumps for six small real models into tests/guards/data/torch_dumps/.

Each ``<model>.log`` is what ``TORCH_LOGS="guards,recompiles,+dynamic"`` prints while the model
(``tests/guards/torch_models.py``) is compiled and called with its call sequence: the guard
trees of every cache entry, the recompile reasons, and the create_symbol lines. The tests read
the checked-in files, so they run without torch; rerun this script to refresh them:

    python3 benchmarks/capture_torch_dumps.py            # all six models
    python3 benchmarks/capture_torch_dumps.py cnn lstm   # some of them
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.guards.torch_models import MODELS, capture  # noqa: E402

OUT = ROOT / "tests" / "guards" / "data" / "torch_dumps"


def main(argv: list[str]) -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in argv or sorted(MODELS):
        text, _ = capture(name)
        (OUT / f"{name}.log").write_text(text, encoding="utf-8")
        print(f"{name}: {len(text.splitlines())} lines -> {(OUT / f'{name}.log').relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
