"""Processes for the store tests and benchmarks: ``python3 -m tests.shapeenv.store_worker MODE ...``.

* ``call STORE SIZES [--backend numpy] [--no-trace] [--wait FILE]``: compile :func:`model`
  with the store (a DiskStore directory or a redis:// URL), call it once per size, and print
  one JSON line: compilations, entries loaded and stored, and a checksum of the results.
  With ``--no-trace`` any trace is an error (the process must be served by the store);
  with ``--wait FILE`` the process first waits for FILE to exist (to start several at once).
* ``write STORE``: store ever larger entries in a loop, printing the count after each
  (the SIGKILL test kills it in the middle).

The tests start these processes with :func:`run`, :func:`run_at_once` and :func:`killed_writers`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import numpy as np

from shapeenv import compile, ops
from shapeenv.backends import numpy_backend
from shapeenv.stores import open_store
from shapeenv.stores.entry import StoredEntry


ROOT = Path(__file__).resolve().parents[2]


def spawn(*args: str) -> subprocess.Popen:
    """A worker process ``python3 -m tests.shapeenv.store_worker ARGS``, its output piped (text)."""
    return subprocess.Popen([sys.executable, "-m", "tests.shapeenv.store_worker", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


def _result(proc: subprocess.Popen, timeout: float) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def run(*args: str, timeout: float = 180) -> dict:
    """Run a ``call`` worker to its end and return its JSON line (a failed process fails the test)."""
    return _result(spawn(*args), timeout)


def run_at_once(store: str, sizes: str, count: int, go: Path, settle: float = 0.0) -> list[dict]:
    """Start ``count`` ``call`` workers that wait for the file ``go``, create it (after ``settle`` seconds)
    and return their JSON lines: processes compiling the same function at once."""
    procs = [spawn("call", store, sizes, "--wait", str(go)) for _ in range(count)]
    time.sleep(settle)
    go.write_text("")
    return [_result(p, 180) for p in procs]


def killed_writers(store: str, rounds: int = 3, pause: float = 0.003) -> Iterator[int]:
    """Per round, start a ``write`` worker and SIGKILL it after ``5 + 3 * round`` entries (``pause * round``
    seconds later: at different points of a save); yield how many it had written."""
    for round_ in range(rounds):
        proc = spawn("write", store)
        written = 0
        while written < 5 + 3 * round_:
            written = int(proc.stdout.readline())
        time.sleep(pause * round_)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        yield written


def model(x, w):
    """A small model: a branch on the batch size, a matmul and a concatenation."""
    h = ops.relu(x @ w)
    if x.shape[0] > 4:
        return ops.cat([h, h * 2])
    return h + 1


def inputs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic inputs of batch size ``n``."""
    rng = np.random.default_rng(n)
    return rng.random((n, 3), np.float32), rng.random((3, 2), np.float32)


def reference(n: int) -> np.ndarray:
    """What :func:`model` computes, in numpy."""
    x, w = inputs(n)
    h = np.maximum(x @ w, 0)
    return np.concatenate([h, h * 2]) if n > 4 else h + 1


def _call(args: argparse.Namespace) -> int:
    if args.no_trace:
        function = importlib.import_module("shapeenv.compile.function")

        def refuse(*a, **k):
            raise AssertionError("this process traced, but the store should have served it")

        function.trace_call = refuse  # the test's probe: any trace in this process fails it
    if args.wait:
        while not os.path.exists(args.wait):
            time.sleep(0.005)
    start = time.perf_counter()
    f = compile(model, store=open_store(args.store), backend=numpy_backend if args.backend == "numpy" else None)
    total, ok = 0.0, True
    first = None
    for n in [int(s) for s in args.sizes.split(",")]:
        out = f(*inputs(n))
        if first is None:
            first = time.perf_counter() - start
        ok = ok and bool(np.allclose(out, reference(n)))
        total += float(np.asarray(out).sum())
    info = f.cache_info()
    print(json.dumps({"compilations": info.compilations, "loaded": info.loaded, "stored": info.stored,
                      "checksum": round(total, 4), "correct": ok, "first_call_seconds": first}), flush=True)
    return 0


def _write(args: argparse.Namespace) -> int:
    store = open_store(args.store)
    k = 0
    while True:
        k += 1
        padding = "x" * (20000 * (1 + k % 7))  # entries of different sizes, some large
        entry = StoredEntry.build("f" * 64, "k" * 64, "x: int", None, {"guards": []}, {"padding": padding, "k": k},
                                  {"backend": "program"}, {"name": "writer"})
        store.save(entry)
        print(k, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("call")
    c.add_argument("store")
    c.add_argument("sizes")
    c.add_argument("--backend", default="numpy")
    c.add_argument("--no-trace", action="store_true")
    c.add_argument("--wait")
    w = sub.add_parser("write")
    w.add_argument("store")
    args = parser.parse_args(argv)
    return _call(args) if args.mode == "call" else _write(args)


if __name__ == "__main__":
    sys.exit(main())
