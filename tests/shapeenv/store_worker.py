"""Processes for the store tests and benchmarks: ``python3 -m tests.shapeenv.store_worker MODE ...``.

* ``call STORE SIZES [--backend numpy] [--no-trace] [--wait FILE]``: compile :func:`model`
  with the store (a DiskStore directory or a redis:// URL), call it once per size, and print
  one JSON line: compilations, entries loaded and stored, and a checksum of the results.
  With ``--no-trace`` any trace is an error (the process must be served by the store);
  with ``--wait FILE`` the process first waits for FILE to exist (to start several at once).
* ``write STORE``: store ever larger entries in a loop, printing the count after each
  (the SIGKILL test kills it in the middle).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time

import numpy as np

from shapeenv import compile, ops
from shapeenv.backends import numpy_backend
from shapeenv.stores import open_store
from shapeenv.stores.entry import StoredEntry


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
