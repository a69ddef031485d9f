"""The same program gives byte-identical guards, runtime asserts, reduced and simplified sets on every run.

Solver work is bounded by Z3 resource limits and budgets (counts), never wall-clock
(see Note [Deterministic limits] in ``guards.solver.z3_solver``): three replays of W1 in
fresh processes, with different hash seeds and one while the CPU is kept busy by
spinning processes, must print exactly the same text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
W1 = ROOT / "benchmarks" / "workloads" / "w1_program.json"

SPIN = "import time\nend = time.time() + 600\nwhile time.time() < end:\n    pass\n"


def _replay(seed: str, busy: bool = False) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(3 if busy else 0)]
    try:
        out = subprocess.run(
            [sys.executable, "-m", "tests.shapeenv.determinism_run", str(W1)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=True,
        )
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    return json.loads(out.stdout)


def test_w1_three_runs_identical_under_load_and_hash_seeds():
    runs = [_replay("0"), _replay("12345"), _replay("987", busy=True)]
    first = runs[0]
    assert first["proof"] == "yes" and first["guards"] and first["asserts"]
    assert first["safety_net"] == 0  # the wall-clock net never fired, so nothing could differ silently
    for other in runs[1:]:
        for key in ("guards", "asserts", "reduced", "simplified", "proof", "z3", "trace_checks"):
            assert other[key] == first[key], key
    # the simplified set is no larger than the reduced one, which is no larger than the raw recording
    assert len(first["simplified"].splitlines()) <= len(first["reduced"].splitlines()) <= len(first["guards"]) + 16
