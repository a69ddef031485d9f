"""W3 "dispatch": the per-call cost of a compiled function whose cache holds M entries, every call a hit.

A function compiled with ``dynamic=False`` is called once with each of M distinct
sizes (M = 1, 8, 64), so its cache holds M entries; then calls cycle through the M
inputs. Reported, in µs per call (best of interleaved repeats):

* ``ours compiled call``: our whole compiled call (stance, binding, key, lookup, running
  the artifact) with a trivial backend artifact (the identity), so the number is the
  dispatch overhead; on numpy arrays and, where torch is installed, on torch tensors;
* ``ours lookup only`` / ``ours binding only``: its two parts, :meth:`GuardedCache.lookup`
  on pre-bound inputs and :meth:`Binder.fast`;
* ``ours compiled call, fn reads 2 globals``: the same with a function reading a global and a
  module attribute, which every hit checks (:mod:`shapeenv.compile.reads`);
* ``ours default backend (eager run)``: the default backend, whose artifact is not callable, so a
  hit runs the function eagerly on the arrays (wrapped with torch's methods);
* where torch is installed: ``torch.compile(backend="eager", dynamic=False)`` on the same
  function and sizes, and the function run eagerly (so its own cost can be subtracted).

The dispatch goal is checked and printed: our lookup with 64 entries at most 1.5x the
lookup with 1 entry, and the whole compiled call within a few microseconds.

Usage: ``python benchmarks/w3_dispatch.py [--repeat 7] [--number 20000] [--no-torch]``
"""

from __future__ import annotations

import argparse
import sys
import time
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shapeenv.compile import compile  # noqa: E402

MS = (1, 8, 64)
LOOKUP_RATIO_GOAL = 1.5
CALL_GOAL_US = 5.0


def fn(x):
    return x + 1


OFFSET = 1.0
config = type(sys)("config")  # a module whose attribute the function reads
config.SCALE = 1.0


def fn_reads(x):
    """``fn`` reading a global and a module attribute: its entries check those reads on every hit."""
    return x * config.SCALE + OFFSET


def identity_backend(program):
    """A backend whose artifact is the identity: running it costs one Python call."""
    return lambda x: x


def _cycle(f, inputs, number):
    m = len(inputs)
    calls = [inputs[i % m] for i in range(number)]

    def run():
        for x in calls:
            f(x)

    return run


def ours(m: int, make, function=fn, backend=identity_backend) -> tuple[dict, float]:
    """``(rows, seconds per compilation)``: our compiled call, lookup and binding on ``m`` cached sizes."""
    compiled = compile(function, dynamic=False, backend=backend, recompile_limit=max(MS))
    inputs = [make(16 + k) for k in range(m)]
    start = time.perf_counter()
    for x in inputs:
        compiled(x)
    per_compile = (time.perf_counter() - start) / m
    assert compiled.cache_info().compilations == m
    binder = compiled._binder  # noqa: SLF001 - the benchmark times the parts separately
    bound = [binder.fast((x,)) for x in inputs]
    caches = compiled._caches  # noqa: SLF001
    (cache,) = caches.values()
    lookups = [inputs_ for _, inputs_ in bound]
    for x, (key, mapping) in zip(inputs, bound):
        assert backend is not identity_backend or cache.lookup(mapping).artifact.run(x) is x
    return {
        "compiled call": compiled,
        "lookup only": (cache.lookup, lookups),
        "binding only": (lambda args: binder.fast(args), [(x,) for x in inputs]),
    }, per_compile


def torch_rows(m: int):
    """``(compiled, eager, inputs, seconds per compilation)`` for torch, or None without torch."""
    try:
        import torch
        import torch._dynamo
    except ImportError:
        return None
    torch._dynamo.reset()
    torch._dynamo.config.recompile_limit = max(MS) + 1
    torch._dynamo.config.accumulated_recompile_limit = 10 * max(MS)
    compiled = torch.compile(fn, backend="eager", dynamic=False)
    inputs = [torch.zeros(16 + k) for k in range(m)]
    start = time.perf_counter()
    for x in inputs:
        compiled(x)
    per_compile = (time.perf_counter() - start) / m
    return compiled, inputs, per_compile


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timeit repeats; the best is kept (default 7)")
    parser.add_argument("--number", type=int, default=20000, help="calls per repeat for ours (default 20000)")
    parser.add_argument("--torch-number", type=int, default=2000, help="calls per repeat for torch (default 2000)")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch rows even if torch is installed")
    args = parser.parse_args(argv)

    have_torch = False
    if not args.no_torch:
        try:  # loaded before compiling, as in real use
            import torch

            have_torch = True
        except ImportError:
            pass

    # (row name, M) -> (statement, calls per repeat)
    stmts: dict[tuple[str, int], tuple] = {}
    compile_ms: dict[str, dict[int, float]] = {"ours": {}, "torch": {}}
    for m in MS:
        rows, per_compile = ours(m, lambda n: np.zeros(n, dtype=np.float32))
        compile_ms["ours"][m] = per_compile * 1e3
        inputs = [np.zeros(16 + k, dtype=np.float32) for k in range(m)]
        stmts[("ours compiled call (numpy)", m)] = (_cycle(rows["compiled call"], inputs, args.number), args.number)
        lookup, per = rows["lookup only"]
        stmts[("ours lookup only", m)] = (_cycle(lookup, per, args.number), args.number)
        binding, per = rows["binding only"]
        stmts[("ours binding only", m)] = (_cycle(binding, per, args.number), args.number)
        reads, _ = ours(m, lambda n: np.zeros(n, dtype=np.float32), fn_reads)
        stmts[("ours compiled call, fn reads 2 globals", m)] = (_cycle(reads["compiled call"], inputs, args.number),
                                                                 args.number)
        eager, _ = ours(m, lambda n: np.zeros(n, dtype=np.float32), fn, None)
        stmts[("ours default backend (eager run)", m)] = (_cycle(eager["compiled call"], inputs, args.number // 4),
                                                          args.number // 4)
        if have_torch:
            trows, _ = ours(m, lambda n: torch.zeros(n))
            tinputs = [torch.zeros(16 + k) for k in range(m)]
            stmts[("ours compiled call (torch tensors)", m)] = (_cycle(trows["compiled call"], tinputs, args.number), args.number)
            found = torch_rows(m)
            if found is not None:
                compiled, tin, per_compile = found
                compile_ms["torch"][m] = per_compile * 1e3
                stmts[("torch.compile eager backend", m)] = (_cycle(compiled, tin, args.torch_number), args.torch_number)
                stmts[("torch eager fn (x + 1)", m)] = (_cycle(fn, tin, args.torch_number), args.torch_number)

    best = {k: float("inf") for k in stmts}
    for _ in range(args.repeat):  # interleaved, so load changes hit every row alike
        for k, (stmt, number) in stmts.items():
            best[k] = min(best[k], timeit.timeit(stmt, number=1) / number * 1e6)

    names = list(dict.fromkeys(name for name, _ in stmts))
    width = max(len(n) for n in names)
    version = f"torch {torch.__version__}" if have_torch else "torch not measured"
    print(f"W3 dispatch: µs per call, every call a cache hit, cycling through M sizes ({version})")
    print(f"  {'':<{width}}" + "".join(f"  {'M=' + str(m):>9}" for m in MS))
    for name in names:
        print(f"  {name:<{width}}" + "".join(f"  {best[(name, m)]:9.3f}" for m in MS))
    for who, per in compile_ms.items():
        if per:
            print(f"  {'compile ms per entry, ' + who:<{width}}" + "".join(f"  {per[m]:9.2f}" for m in MS))

    ok = True
    lookup_ratio = best[("ours lookup only", 64)] / best[("ours lookup only", 1)]
    call_ratio = best[("ours compiled call (numpy)", 64)] / best[("ours compiled call (numpy)", 1)]
    worst_call = max(best[("ours compiled call (numpy)", m)] for m in MS)
    print("goals:")
    for label, value, goal, unit in (
        ("lookup M=64 / M=1", lookup_ratio, LOOKUP_RATIO_GOAL, "x"),
        ("compiled call M=64 / M=1", call_ratio, LOOKUP_RATIO_GOAL, "x"),
        ("compiled call, worst M", worst_call, CALL_GOAL_US, " µs"),
    ):
        verdict = "ok" if value <= goal else "MISSED"
        ok &= value <= goal
        print(f"  {label}: {value:.2f}{unit} (goal <= {goal}{unit}) {verdict}")
    if ("torch.compile eager backend", 1) in best:
        for m in MS:
            overhead = best[("torch.compile eager backend", m)] - best[("torch eager fn (x + 1)", m)]
            ratio = best[("torch.compile eager backend", m)] / best[("ours compiled call (torch tensors)", m)]
            print(f"  M={m}: torch.compile overhead over eager {overhead:.1f} µs; torch.compile / ours on tensors {ratio:.1f}x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
