"""Persistent stores: time to first call in a fresh process, concurrent compiles, lookups with 1,000 entries.

    python3 benchmarks/stores.py [--repeat 5] [--processes 8] [--entries 1000] [--redis URL]

1. **Fresh process, first call**: a process imports the library, compiles the demo's RNN
   (a ``scan`` over a sequence) or a 201-node program, numpy backend, and calls it once. Cold: no store (it traces);
   warm: a DiskStore / RedisStore that already holds the entry (it loads, traces nothing).
   Reported: the whole process (spawn to exit, imports included) and the first call alone
   (``compile(...)`` and the store object are built before the clock starts), medians. sympy is not
   imported before the clock: a traced first call imports it (export still reads sympy views of the
   trace's symbols), a warm one never does (Note [A loaded program is forms] in ``shapeenv.program.io``).
2. **N processes at once**: N fresh processes compile the same function on the same store at
   the same moment. Reported: traces in total (the compile lease makes it 1 per distinct entry),
   entries stored, whether every result is right and the store passes SQLite's integrity check.
3. **1,000 entries**: a store holding 1,000 entries of one function (one static entry per
   size) and 1,000 entries of other functions. Reported: the store's index query for one
   function and key (and, for comparison, reading every head), a fresh process's first call (it
   reads only the heads whose pinned sizes agree with the call), and a lookup in the loaded
   cache (the dispatch index).

Without ``--redis``, a private ``redis-server`` is started on a loopback port if the binary is
installed; otherwise the Redis rows are skipped (and say so).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from shapeenv import compile, ops  # noqa: E402
from shapeenv.backends import numpy_backend  # noqa: E402
from shapeenv.demo import rnn  # noqa: E402
from shapeenv.stores import DiskStore, open_store  # noqa: E402
from shapeenv.stores.entry import StoredEntry  # noqa: E402


def scale(x):
    """The function of part 3: one static entry per size."""
    return ops.relu(x * 2)


def deep(x, w):
    """A 200-node program: 40 blocks of matmul, add, tanh, slicing and concatenation."""
    h = x
    for _ in range(40):
        h = ops.tanh(h @ w + h)
        h = ops.cat([h[:, 8:], h[:, :8]], 1)
    return h.sum(0)


def deep_reference(x, w):
    h = x
    for _ in range(40):
        h = np.tanh(h @ w + h)
        h = np.concatenate([h[:, 8:], h[:, :8]], 1)
    return h.sum(0)


def rnn_inputs(n: int):
    rng = np.random.default_rng(n)
    return rng.random((n, 4, 16), np.float32), np.zeros((4, 16), np.float32), rng.random((16, 16), np.float32) * 0.1


def rnn_reference(n: int):
    xs, h, w = rnn_inputs(n)
    ys = []
    for x in xs:
        h = np.tanh(h @ w + x)
        ys.append(h)
    return h, np.stack(ys)


# -- the worker process -----------------------------------------------------------------------------------
def worker(args: argparse.Namespace) -> None:
    """One fresh process: build the compiled function, then time its first call (the trace, or the store)."""
    store = open_store(args.store) if args.store != "none" else None
    if args.what == "rnn":
        f = compile(rnn, store=store, backend=numpy_backend)
        call_args = rnn_inputs(args.size)
    elif args.what == "deep":
        f = compile(deep, store=store, backend=numpy_backend)
        rng = np.random.default_rng(0)
        call_args = (rng.random((args.size, 16), np.float32), rng.random((16, 16), np.float32) * 0.1)
    else:
        f = compile(scale, store=store, backend=numpy_backend, dynamic=False, recompile_limit=100000)
        call_args = (np.ones(args.size, np.float32),)
    if args.wait:
        while not os.path.exists(args.wait):
            time.sleep(0.002)
    t0 = time.perf_counter()
    out = f(*call_args)
    first = time.perf_counter() - t0
    correct = True
    if args.what == "rnn":
        want = rnn_reference(args.size)
        correct = bool(np.allclose(out[0], want[0], atol=1e-5) and np.allclose(out[1], want[1], atol=1e-5))
    elif args.what == "deep":
        correct = bool(np.allclose(out, deep_reference(*call_args), atol=1e-4))
    lookup = None
    if args.what == "scale":
        (cache,) = f.caches().values()
        inputs = {"x": call_args[0]}
        reps = 20000
        t = time.perf_counter()
        for _ in range(reps):
            cache.lookup(inputs)
        lookup = (time.perf_counter() - t) / reps
    info = f.cache_info()
    print(json.dumps({"first_call": first, "compilations": info.compilations, "loaded": info.loaded,
                      "stored": info.stored, "correct": correct, "lookup": lookup}), flush=True)


def spawn(store: str, what: str = "rnn", size: int = 50, wait: str | None = None) -> subprocess.Popen:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", store, "--what", what, "--size", str(size)]
    if wait:
        cmd += ["--wait", wait]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


def run(store: str, what: str = "rnn", size: int = 50) -> tuple[float, dict]:
    t = time.perf_counter()
    p = spawn(store, what, size)
    out, err = p.communicate()
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(err)
    return wall, json.loads(out.strip().splitlines()[-1])


# -- a Redis server ---------------------------------------------------------------------------------------
class RedisServer:
    def __init__(self, directory: str):
        port = _free_port()
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc = subprocess.Popen([shutil.which("redis-server"), "--port", str(port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", directory],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return
            time.sleep(0.025)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the parts ----------------------------------------------------------------------------------------------
def part1(stores: dict[str, str], repeat: int) -> None:
    print("1. fresh process, first call (numpy backend)")
    print(f"   {'function':<34} {'case':<16} {'process (s)':>12} {'first call (ms)':>16} {'traces':>7}")
    for what, label in (("rnn", "rnn: scan over 50 steps (demo)"), ("deep", "deep: 40 blocks, 201 nodes")):
        rows = [("cold, no store", "none", None)]
        for name, spec in stores.items():
            rows.append((f"warm {name}", spec, name))
        for case, spec, name in rows:
            if name is not None:
                open_store(spec).clear()
                run(spec, what)  # the entry is traced and stored once
            walls, firsts, traces = [], [], []
            for _ in range(repeat):
                wall, r = run(spec, what)
                assert r["correct"], r
                walls.append(wall)
                firsts.append(r["first_call"])
                traces.append(r["compilations"])
            print(f"   {label:<34} {case:<16} {statistics.median(walls):>12.3f} "
                  f"{1e3 * statistics.median(firsts):>16.1f} {max(traces):>7}")
            label = ""


def part2(stores: dict[str, str], processes: int) -> None:
    print(f"\n2. {processes} fresh processes compiling the same function on one store at once")
    for name, spec in stores.items():
        open_store(spec).clear()
        with tempfile.TemporaryDirectory() as d:
            go = os.path.join(d, "go")
            procs = [spawn(spec, "rnn", 30, wait=go) for _ in range(processes)]
            time.sleep(3.0)  # every process imported the library and waits
            Path(go).write_text("")
            results = []
            for p in procs:
                out, err = p.communicate()
                if p.returncode != 0:
                    raise RuntimeError(err)
                results.append(json.loads(out.strip().splitlines()[-1]))
        store = open_store(spec)
        entries = store.entries()
        integrity = store.integrity() if isinstance(store, DiskStore) else "n/a"
        print(f"   {name:<10} traces {sum(r['compilations'] for r in results)}, entries stored {len(entries)}, "
              f"all results correct: {all(r['correct'] for r in results)}, integrity: {integrity}; first calls "
              f"{min(r['first_call'] for r in results):.2f} to {max(r['first_call'] for r in results):.2f} s "
              f"(the tracer's, then the others' after the lease)")


def part3(stores: dict[str, str], n: int) -> None:
    print(f"\n3. a store with {n} entries of one function (compile(scale, dynamic=False): one static entry per size)")
    for name, spec in stores.items():
        store = open_store(spec)
        store.clear()
        t = time.perf_counter()
        f = compile(scale, store=store, backend=numpy_backend, dynamic=False, recompile_limit=n + 1)
        for size in range(2, n + 2):
            f(np.ones(size, np.float32))
        fill = time.perf_counter() - t
        fp = f._persist.fingerprint()
        key = next(iter(store.entries())).key
        for k in range(n):  # as many entries of other functions
            store.save(StoredEntry.build(f"{k:064x}", key, "x", None, {"guards": []}, {"k": k},
                                         {"backend": "program"}, {"name": f"other{k}"}))
        reps = 50
        t = time.perf_counter()
        for _ in range(reps):
            rows = store.index(fp, key)
        query = (time.perf_counter() - t) / reps
        assert len(rows) == n
        t = time.perf_counter()
        for _ in range(reps):
            heads = store.load(fp, key)
        every_head = (time.perf_counter() - t) / reps
        assert len(heads) == n
        walls, firsts, lookups, loaded = [], [], [], []
        for size in (2, n // 2, n + 1):
            wall, r = run(spec, "scale", size)
            assert r["compilations"] == 0, r
            walls.append(wall)
            firsts.append(r["first_call"])
            lookups.append(r["lookup"])
            loaded.append(r["loaded"])
        print(f"   {name:<10} {2 * n} entries stored (half of them one function's, filled in {fill:.1f} s)")
        print(f"   {'':<10} store index of one function and key ({n} entries): {1e3 * query:.2f} ms "
              f"(reading and checking all {n} heads instead: {1e3 * every_head:.1f} ms)")
        print(f"   {'':<10} fresh process, first call: {1e3 * statistics.median(firsts):.1f} ms (guard sets read: "
              f"{max(loaded)} of {n}), whole process {statistics.median(walls):.2f} s")
        print(f"   {'':<10} lookup in the loaded cache: {1e6 * statistics.median(lookups):.2f} us")
        store.clear()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--redis", help="a Redis URL (default: a private redis-server if installed)")
    parser.add_argument("--parts", default="1,2,3", help="which parts to run (default: 1,2,3)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--what", default="rnn", help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=50, help=argparse.SUPPRESS)  # rnn steps, deep batch
    parser.add_argument("--wait", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.store = args.worker
        worker(args)
        return 0
    tmp = tempfile.mkdtemp(prefix="shapeenv-bench-")
    server = None
    stores = {"DiskStore": os.path.join(tmp, "disk")}
    if args.redis:
        stores["Redis"] = args.redis + "#bench"
    elif shutil.which("redis-server"):
        server = RedisServer(tmp)
        stores["Redis"] = server.url + "#bench"
    else:
        print("(no redis-server installed and no --redis URL: the Redis rows are skipped)")
    try:
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus\n")
        parts = {p.strip() for p in args.parts.split(",")}
        if "1" in parts:
            part1(stores, args.repeat)
        if "2" in parts:
            part2(stores, args.processes)
        if "3" in parts:
            part3(stores, args.entries)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
